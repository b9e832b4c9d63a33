"""NIPS abstracts as shipped with the SE-Graph code (one abstract per line, sentences joined
by `<eos>`), and `dataset=nips` reading either that layout or Logeswaran et al.'s: ids from
split and line, the separator, errors naming file:line in one line, side files ignored,
fingerprints following the files, the layout detected and recorded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixtures_readers import TRICKY, nseg_abstract, write_lines, write_logeswaran, write_nseg
from hydra.utils import instantiate

from benchmark.config.compose import compose_config
from data.datamodule import OrderingDataModule
from data.document import Document
from data.duplicates import check_duplicates
from data.errors import DataFormatError
from data.readers.logeswaran import LogeswaranReader
from data.readers.nips import NipsReader
from data.readers.nseg import NsegReader
from data.readers.sources import SOURCES, DatasetNotFoundError
from data.shuffle import eval_permutation

SIZES = {"train": 6, "valid": 3, "test": 4}


def ids(splits: dict) -> dict[str, list[str]]:
    return {split: [doc.id for doc in docs] for split, docs in splits.items()}


def test_one_abstract_per_line_ids_from_split_and_line(tmp_path: Path) -> None:
    splits = NsegReader(str(write_nseg(tmp_path, SIZES))).read_splits()
    assert ids(splits) == {s: [f"{s}-{k}" for k in range(1, n + 1)] for s, n in SIZES.items()}
    doc = splits["valid"][1]  # line 2 of val.lower
    assert doc.sentences == tuple(nseg_abstract("valid", 2)) and len(doc) == 4
    assert doc.sentences[1:3] == TRICKY  # text intact, whitespace around <eos> stripped
    assert doc.meta == {"corpus": "nips", "file": "val.lower", "line": 2}
    assert doc.source == "valid-2"
    assert not any("<eos>" in s for docs in splits.values() for d in docs for s in d.sentences)


def test_ids_and_permutations_stable_across_folders_and_text(tmp_path: Path) -> None:
    a = NsegReader(str(write_nseg(tmp_path / "a", SIZES))).read_splits()
    shutil.copytree(tmp_path / "a", tmp_path / "elsewhere" / "b")
    write_lines(tmp_path / "elsewhere" / "b" / "test.lower", ["new text <eos> here"] * 4)
    b = NsegReader(str(tmp_path / "elsewhere" / "b")).read_splits()
    assert ids(a) == ids(b)  # the folder and the text do not enter an id
    assert ids(a)["test"] == ["test-1", "test-2", "test-3", "test-4"]
    perms = [eval_permutation("nips", "test", d.id, 5, 0) for d in a["test"]]
    assert perms == [eval_permutation("nips", "test", d.id, 5, 0) for d in b["test"]]


@pytest.mark.parametrize("separator", [" <eos> ", "<eos>", "  <eos>\t", " ||| "])
def test_separator(tmp_path: Path, separator: str) -> None:
    root = write_nseg(tmp_path, SIZES, separator=separator, side=False)
    option = separator.strip() or separator
    splits = NsegReader(str(root), separator=option).read_splits()
    assert splits["train"][4].sentences == tuple(nseg_abstract("train", 5))


def test_separator_other_than_the_files_reads_one_sentence(tmp_path: Path) -> None:
    root = write_nseg(tmp_path, SIZES, side=False)
    (doc, *_) = NsegReader(str(root), separator="|||").read_splits()["train"]
    assert len(doc) == 1 and "<eos>" in doc.sentences[0]  # visible in the card: all trivial
    with pytest.raises(ValueError, match="separator must be a non-empty string"):
        NsegReader(str(root), separator="")


@pytest.mark.parametrize(
    "file, lines, message",
    [
        ("test.lower", ["a . <eos> b .", "", "c . <eos> d ."], r"test\.lower:2: empty line"),
        ("test.lower", ["a . <eos> b .", "   "], r"test\.lower:2: empty line"),
        ("val.lower", ["a . <eos> b .", "a <eos>  <eos> b"], r"val\.lower:2: sentence 2 of 3 is"),
        ("val.lower", ["a . <eos> b . <eos>"], r"val\.lower:1: sentence 3 of 3 is empty"),
        ("train.lower", ["<eos> a . <eos> b ."], r"train\.lower:1: sentence 1 of 3 is empty"),
    ],
)
def test_malformed_line_names_file_and_line(
    tmp_path: Path, file: str, lines: list[str], message: str
) -> None:
    root = write_nseg(tmp_path, SIZES)
    write_lines(root / file, lines)
    with pytest.raises(DataFormatError, match=message) as info:
        NsegReader(str(root)).read_splits()
    assert "\n" not in str(info.value)


def test_not_utf8_and_empty_file(tmp_path: Path) -> None:
    root = write_nseg(tmp_path, SIZES)
    (root / "train.lower").write_bytes(b"a . <eos> b .\nc . <eos> caf\xe9 .\n")
    with pytest.raises(DataFormatError, match=r"train\.lower:2: not UTF-8 text"):
        NsegReader(str(root)).read_splits()
    (root / "train.lower").write_bytes(b"")
    with pytest.raises(DataFormatError, match=r"train\.lower: no documents"):
        NsegReader(str(root)).read_splits()


def test_missing_file_names_the_layout(tmp_path: Path) -> None:
    root = write_nseg(tmp_path, SIZES)
    (root / "val.lower").unlink()
    with pytest.raises(DatasetNotFoundError) as info:
        NsegReader(str(root)).read_splits()
    message = str(info.value)
    assert "val.lower is missing (the valid split)" in message
    assert SOURCES["nips_nseg"].layout in message
    assert "dataset=nips dataset.reader.layout=nseg dataset.path=" in message


def test_split_files_option(tmp_path: Path) -> None:
    root = write_nseg(tmp_path, SIZES, side=False)
    (root / "val.lower").rename(root / "valid.txt")
    reader = NsegReader(
        str(root), split_files={"train": "train.lower", "valid": "valid.txt", "test": "test.lower"}
    )
    assert len(reader.read_splits()["valid"]) == 3
    with pytest.raises(ValueError, match="split_files maps"):
        NsegReader(str(root), split_files={"train": "a", "valid": "a", "test": "b"})


def test_side_files_ignored_by_default(tmp_path: Path) -> None:
    root = write_nseg(tmp_path, SIZES)
    reader = NsegReader(str(root))
    before, splits = reader.fingerprint(), reader.read_splits()
    assert all("side" not in d.meta for docs in splits.values() for d in docs)
    write_lines(root / "test.eg", ["changed:0-1"])  # wrong length too: not read
    assert reader.fingerprint() == before and reader.read_splits() == splits
    for split in ("train", "val", "test"):
        (root / f"{split}.eg").unlink()
    assert reader.read_splits() == splits


def test_side_files_when_asked_for(tmp_path: Path) -> None:
    root = write_nseg(tmp_path, SIZES)
    side = {"train": "train.eg", "valid": "val.eg", "test": "test.eg"}
    reader = NsegReader(str(root), side_files=side)
    splits = reader.read_splits()
    entities = [f"entity{k}:0-1|1-2 other:1-3" for k in (1, 2)]
    assert [d.meta["side"] for d in splits["valid"]] == [*entities, ""]  # line 3 empty
    assert splits["valid"][0].sentences == NsegReader(str(root)).read_splits()["valid"][0].sentences
    before = reader.fingerprint()
    assert before != NsegReader(str(root)).fingerprint()
    write_lines(root / "test.eg", ["changed:0-1"] * 4)
    assert reader.fingerprint() != before  # read, so hashed
    write_lines(root / "test.eg", ["x:0-1"])
    with pytest.raises(DataFormatError, match=r"test\.eg: 1 lines, but test\.lower holds 4"):
        reader.read_splits()


def test_fingerprint_follows_content_not_folder(tmp_path: Path) -> None:
    a = NsegReader(str(write_nseg(tmp_path / "a", SIZES))).fingerprint()
    b = NsegReader(str(write_nseg(tmp_path / "b", SIZES))).fingerprint()
    assert a == b and "path" not in a and a["reader"] == "nips_nseg"
    write_lines(tmp_path / "b" / "val.lower", ["changed . <eos> text ."] * 3)
    assert NsegReader(str(tmp_path / "b")).fingerprint() != a
    assert NsegReader(str(tmp_path / "a"), separator="|").fingerprint() != a


def test_cross_split_duplicates_counted_and_named(tmp_path: Path) -> None:
    root = write_nseg(tmp_path, {"train": 14, "valid": 3, "test": 13})
    write_lines(root / "test.lower", (root / "train.lower").read_text().splitlines()[:12] + ["x"])
    splits = NsegReader(str(root)).read_splits()
    with pytest.raises(DataFormatError) as info:
        check_duplicates(splits)
    message = str(info.value)
    assert message.startswith("12 document(s) repeat the text of a document of another split")
    assert (
        "document 'test-1' (file test.lower:1) in test has the same text as "
        "'train-1' (file train.lower:1) in train" in message
    )
    assert "'test-10'" in message and "'test-11'" not in message and "and 2 more" in message
    assert "\n" not in message
    same = [Document("test-1", ["A .", "B ."]), Document("test-2", ["A .", " B . "])]
    assert check_duplicates({"test": same}).groups == {"test": [["test-1", "test-2"]]}


# -- dataset=nips: either layout ------------------------------------------------------------


def test_auto_detects_either_layout(tmp_path: Path) -> None:
    nseg = NipsReader(str(write_nseg(tmp_path / "nseg", SIZES)))
    assert nseg.resolved_layout() == "nseg" and nseg.source is SOURCES["nips_nseg"]
    assert ids(nseg.read_splits())["valid"] == ["valid-1", "valid-2", "valid-3"]
    names = {"train": ["1", "2"], "valid": ["3"], "test": ["4"]}
    root = write_logeswaran(tmp_path / "lg", "nips", names)
    logeswaran = NipsReader(str(root))
    assert logeswaran.resolved_layout() == "logeswaran" and logeswaran.source is SOURCES["nips"]
    assert ids(logeswaran.read_splits()) == names
    # the fingerprint is the layout's own reader's: an existing processed cache stays valid
    assert logeswaran.fingerprint() == LogeswaranReader(str(root), "nips").fingerprint()
    assert nseg.fingerprint() == NsegReader(str(tmp_path / "nseg")).fingerprint()


def test_explicit_layout(tmp_path: Path) -> None:
    root = write_nseg(tmp_path, SIZES)
    assert NipsReader(str(root), layout="nseg").resolved_layout() == "nseg"
    with pytest.raises(DatasetNotFoundError, match="split/2013le_papers is missing"):
        NipsReader(str(root), layout="logeswaran").read_splits()
    with pytest.raises(ValueError, match="layout must be auto or one of"):
        NipsReader(str(root), layout="graph")


@pytest.mark.parametrize("where", ["empty", "missing", "unset"])
def test_neither_layout_one_line_naming_both(tmp_path: Path, where: str) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "train.eg").write_text("x:0-1\n")  # a side file alone is no layout
    path = None if where == "unset" else str(tmp_path / where)
    with pytest.raises(DatasetNotFoundError) as info:
        NipsReader(path).read_splits()
    message = str(info.value)
    assert "\n" not in message and message.startswith("nips: ")
    for name in ("nips", "nips_nseg"):
        assert SOURCES[name].layout in message and SOURCES[name].published in message
    assert "dataset.reader.layout=logeswaran|nseg" in message


def test_both_layouts_need_a_choice(tmp_path: Path) -> None:
    root = write_logeswaran(tmp_path, "nips", {"train": ["1"], "valid": ["2"], "test": ["3"]})
    write_nseg(root, SIZES)
    with pytest.raises(DatasetNotFoundError, match="holds both layouts") as info:
        NipsReader(str(root)).read_splits()
    assert "\n" not in str(info.value)
    assert len(NipsReader(str(root), layout="nseg").read_splits()["train"]) == 6


def test_config_reads_nseg_and_records_the_layout(tmp_path: Path) -> None:
    root = write_nseg(tmp_path / "nips", SIZES)
    cfg = compose_config(["dataset=nips", f"dataset.path={root}"])
    assert cfg.dataset.name == "nips" and cfg.dataset.reader.layout == "auto"
    reader = instantiate(cfg.dataset.reader)
    assert isinstance(reader, NipsReader) and reader.split_files["valid"] == "val.lower"
    datamodule = OrderingDataModule(reader, "nips", cache_dir=str(tmp_path / "cache"))
    datamodule.setup()
    stats = datamodule.stats()
    assert stats["layout"] == "nseg" and stats["n_docs"] == SIZES
