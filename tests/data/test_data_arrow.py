"""The processed data as memory-mapped Arrow columns (data/columns.py), prepared in one
streaming pass (data/processing.py) into an entry renamed into place whole (data/cache.py),
and read by the DataModule once per process."""

from __future__ import annotations

import json
import logging
import pickle
from pathlib import Path

import numpy as np
import pytest
from fixtures_data import small_jsonl_splits, write_jsonl_dataset

from data import cache
from data.columns import SplitColumns
from data.datamodule import OrderingDataModule
from data.document import Document
from data.errors import DataFormatError
from data.example import make_example
from data.processing import prepare_columns
from data.readers.jsonl import JsonlReader
from data.readers.synthetic import SyntheticReader
from data.tokenize import tokenize

DOCUMENTS = {
    "train": [
        Document("a", ("The cat sat.", "It purred loudly, didn't it?"), {"file": "t", "line": 1}),
        Document("b", ("Zürich is naïve.",), source="s1"),
        Document("c", ("One two three four five six seven.", "Eight.", "Nine ten.")),
    ],
    "valid": [Document("d", ("The dog barked.", "A cat ran."))],
    "test": [Document("e", ("Unseen words here.", "The cat."))],
}


@pytest.fixture
def prepared(tmp_path: Path):
    return prepare_columns("toy", DOCUMENTS, tmp_path), tmp_path


def test_the_columns_give_back_every_document_its_ids_and_text(prepared):
    result, folder = prepared
    assert result.n_docs == {"train": 3, "valid": 1, "test": 1}
    for split, documents in DOCUMENTS.items():
        columns = SplitColumns.open(folder / split)
        assert list(columns) == documents and columns == documents
        assert columns.sentence_counts.tolist() == [len(d) for d in documents]
        for index, document in enumerate(documents):
            assert columns.texts(index) == list(document.sentences)
            expected = [result.vocab.encode(tokenize(s)) for s in document.sentences]
            assert [ids.tolist() for ids in columns.token_ids(index)] == expected
            ids, text = columns.sentence(index, len(document) - 1)
            assert (ids.tolist(), text) == (expected[-1], document.sentences[-1])
            assert columns.doc_id(index) == document.id
        longest = [max(min(len(tokenize(s)), 3) for s in d.sentences) for d in documents]
        assert columns.longest_sentences(3).tolist() == longest
    assert not list((folder / "train").glob("provisional*"))  # mapped, then removed


def test_a_mapped_split_pickles_as_its_folder_and_a_loaded_one_by_value(prepared):
    _, folder = prepared
    mapped = SplitColumns.open(folder / "train")
    assert len(pickle.dumps(mapped)) < 1000  # the folder, not the columns
    assert pickle.loads(pickle.dumps(mapped)) == mapped
    in_memory = SplitColumns.open(folder / "train", mapped=False)
    assert pickle.loads(pickle.dumps(in_memory)) == in_memory


def make_dm(tmp_path: Path, reader=None, **options) -> OrderingDataModule:
    reader = reader or SyntheticReader(n_train=40, n_valid=10, n_test=12)
    return OrderingDataModule(reader=reader, name="toy", batch_size=8,
                              cache_dir=str(tmp_path / "cache"), **options)


def test_the_cache_is_read_once_per_process(tmp_path: Path, monkeypatch):
    """Lightning calls prepare_data in fit, validate and test: the entry is mapped once."""
    make_dm(tmp_path).setup()  # builds the entry
    loads = []
    real = cache.load_processed
    monkeypatch.setattr(cache, "load_processed", lambda *a, **k: loads.append(a) or real(*a, **k))
    dm = make_dm(tmp_path)
    for _ in range(3):
        dm.prepare_data()
    dm.setup("fit")
    dm.setup("test")
    assert dm.loaded_from_cache and len(loads) == 1


class CountingReader:
    """A reader that yields its documents lazily, counting them; `read_splits` is refused."""

    def __init__(self, splits: dict[str, list[Document]]) -> None:
        self.splits, self.yielded = splits, {split: 0 for split in splits}

    def fingerprint(self) -> dict:
        return {"reader": "counting"}

    def _yield(self, split: str):
        for document in self.splits[split]:
            self.yielded[split] += 1
            yield document

    def iter_splits(self) -> dict:
        return {split: self._yield(split) for split in self.splits}

    def read_splits(self):
        raise AssertionError("a reader that yields is not read into lists")


def test_preparation_reads_each_document_once_as_the_reader_yields_it(tmp_path: Path, caplog):
    caplog.set_level(logging.INFO, logger="data.processing")
    reader = CountingReader(DOCUMENTS)
    dm = make_dm(tmp_path, reader=reader)
    dm.setup()
    assert reader.yielded == {split: len(d) for split, d in DOCUMENTS.items()}
    assert {s: list(d) for s, d in dm.documents.items()} == DOCUMENTS
    stages = [r.getMessage() for r in caplog.records]
    assert [m.split(":")[0] for m in stages] == [
        "toy train", "toy valid", "toy test", "toy", "toy", "toy"]
    assert all("documents/s" in m for m in stages if "vocabulary" not in m)
    assert f"vocabulary of {len(dm.vocab)} words" in stages[3]


def test_a_malformed_line_stops_preparation_naming_it_and_leaves_no_entry(tmp_path: Path):
    splits = small_jsonl_splits()
    root = write_jsonl_dataset(tmp_path / "data", splits)
    lines = (root / "valid.jsonl").read_text().splitlines()
    lines.insert(2, '{"id": "broken", "sentences": ["One."')
    (root / "valid.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFormatError, match=r"valid\.jsonl:3: malformed JSON"):
        make_dm(tmp_path, reader=JsonlReader(str(root))).setup()
    assert list((tmp_path / "cache").iterdir()) == []  # no entry, no temporary folder


def test_an_interrupted_build_leaves_no_entry(tmp_path: Path, monkeypatch):
    def interrupted(*args, **kwargs):
        folder = args[2]
        (folder / "train").mkdir()
        (folder / "train" / "text.arrow").write_bytes(b"half")
        raise KeyboardInterrupt

    monkeypatch.setattr("data.ordering_data.prepare_columns", interrupted)
    with pytest.raises(KeyboardInterrupt):
        make_dm(tmp_path).setup()
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_folder_without_its_manifest_is_never_taken_for_an_entry(tmp_path: Path, caplog):
    entry = make_dm(tmp_path)
    entry.setup()
    (entry.cache_path / "manifest.json").unlink()  # as a copy cut short would leave it
    again = make_dm(tmp_path)
    again.setup()
    assert not again.loaded_from_cache and again.cache_path == entry.cache_path
    assert "damaged processed-data cache" in caplog.text
    assert make_dm(tmp_path).setup() is None and (entry.cache_path / "manifest.json").is_file()


def test_a_cache_that_cannot_be_written_to_builds_aside_and_goes_on(tmp_path: Path, monkeypatch,
                                                                     caplog):
    real = cache.tempfile.mkdtemp

    def read_only(*args, dir=None, **kwargs):
        if dir is not None:
            raise PermissionError(13, "Permission denied")
        return real(*args, **kwargs)

    monkeypatch.setattr(cache.tempfile, "mkdtemp", read_only)
    dm = make_dm(tmp_path)
    dm.setup()
    assert dm.cache_path is None and len(dm.documents["train"]) == 40
    assert "processed-data cache not written (Permission denied); going on" in caplog.text
    assert [b["doc_ids"] for b in dm.val_dataloader()]


def test_text_in_two_splits_is_refused_and_no_entry_is_kept(tmp_path: Path):
    splits = {**DOCUMENTS, "test": [*DOCUMENTS["test"], Document("x", DOCUMENTS["train"][0]
                                                                     .sentences)]}
    with pytest.raises(DataFormatError, match=r"1 document\(s\) repeat the text.*'x' in test "
                                              r"has the same text as 'a' \(file t:1\) in train"):
        make_dm(tmp_path, reader=CountingReader(splits)).setup()
    assert list((tmp_path / "cache").iterdir()) == []


def test_repeats_within_a_split_are_kept_with_the_entry(tmp_path: Path):
    splits = {**DOCUMENTS, "train": [*DOCUMENTS["train"],
                                     Document("a2", (" The  cat sat.", "It purred loudly, "
                                                     "didn't it?"))]}
    first = make_dm(tmp_path, reader=CountingReader(splits))
    first.setup()
    second = make_dm(tmp_path, reader=CountingReader(splits))
    second.setup()
    assert second.loaded_from_cache
    assert first.duplicates.groups == second.duplicates.groups == {
        "train": [["a", "a2"]], "valid": [], "test": []}
    assert json.loads((first.cache_path / "duplicates.json").read_text())["groups"]["train"]


def test_a_document_from_the_columns_makes_the_example_of_its_lists(tmp_path: Path):
    dm = make_dm(tmp_path)
    dm.setup()
    dataset, columns = dm.datasets["valid"], dm.documents["valid"]
    for index in range(len(columns)):
        permutation = dm.eval_permutations("valid")[index]
        lists = [ids.tolist() for ids in columns.token_ids(index)]
        expected = make_example(columns[index].id, lists, permutation, dm.max_sentence_tokens,
                                list(columns[index].sentences))
        assert dataset[(index, 0)] == expected  # its sentences: views of the mapped column
    assert dataset.sizes().dtype == np.int64 and dataset.sizes().shape == (len(columns), 2)


def test_bucketing_by_tokens_sorts_by_each_document_s_word_tokens(tmp_path: Path):
    """`bucket_by=tokens`: a document's key is its word tokens (its sentences counted whole,
    an empty one as one) then its sentences; batches of a pool group like totals, so the
    joined paragraphs of a batch pad less than under the default (sentences, longest)."""
    from data.sampler import BucketBatchSampler

    dm = make_dm(tmp_path)
    dm.setup()
    dataset, columns = dm.datasets["train"], dm.documents["train"]
    tokens = dataset.sizes("tokens")
    expected = [sum(max(len(ids), 1) for ids in columns.token_ids(i)) for i in range(len(columns))]
    assert tokens[:, 0].tolist() == expected
    assert tokens[:, 1].tolist() == dataset.lengths.tolist()

    def padded(bucket_by: str) -> int:
        sampler = BucketBatchSampler(dataset.sizes(bucket_by), 4, shuffle=True, seed=3)
        return sum(len(batch) * max(expected[i] for i, _ in batch) for batch in sampler)

    assert padded("tokens") <= padded("shape")


@pytest.mark.slow
def test_loader_workers_started_by_spawn_map_the_same_columns(tmp_path: Path):
    from torch.utils.data import DataLoader

    from data.collate import collate
    from data.sampler import BucketBatchSampler

    dm = make_dm(tmp_path)
    dm.setup()
    dataset = dm.datasets["train"]
    sampler = BucketBatchSampler(dataset.sizes(), 8, shuffle=True, seed=1)
    plain = [b["doc_ids"] for b in DataLoader(dataset, batch_sampler=sampler, collate_fn=collate)]
    spawned = DataLoader(dataset, batch_sampler=sampler, collate_fn=collate, num_workers=1,
                         multiprocessing_context="spawn")
    assert [b["doc_ids"] for b in spawned] == plain
