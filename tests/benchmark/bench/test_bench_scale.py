"""`orderbench bench scale`: the seeded abstract-like corpora it measures on, its keys, and
(slow) one small measurement end to end. Nothing here times anything."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from benchmark.bench.abstracts_like import split_sizes, write_abstracts_like
from benchmark.bench.scale import ROOT, main
from data.readers.jsonl import read_jsonl
from data.tokenize import tokenize


def digest(folder: Path) -> str:
    return hashlib.sha256(b"".join((folder / f"{s}.jsonl").read_bytes()
                                   for s in ("train", "valid", "test"))).hexdigest()


def test_the_corpus_is_shaped_like_abstracts_and_seeded(tmp_path: Path):
    corpus = write_abstracts_like(tmp_path / "a", 3000, seed=4)
    assert split_sizes(3000) == {"train": 2400, "valid": 300, "test": 300}
    documents = read_jsonl(corpus / "train.jsonl")
    sentences = [s for d in documents for s in d.sentences]
    assert len(documents) == 2400 and 7.2 < len(sentences) / len(documents) < 7.8
    assert 16.5 < sum(len(tokenize(s)) for s in sentences) / len(sentences) < 17.5
    assert digest(write_abstracts_like(tmp_path / "b", 3000, seed=4)) == digest(corpus)
    assert digest(write_abstracts_like(tmp_path / "c", 3000, seed=5)) != digest(corpus)


def test_the_corpora_never_go_into_the_repository(capsys):
    assert main([f"folder={ROOT / 'scale'}"]) == 2
    assert "inside the repository" in capsys.readouterr().err
    assert main(["sizes=5"]) == 2
    assert main(["reference=/nowhere", "nips=/nowhere"]) == 2


def test_the_check_of_an_entry_is_timed_beside_its_mapping(tmp_path: Path):
    from benchmark.bench.cache_check import check_seconds
    from data.ordering_data import OrderingData
    from data.readers.synthetic import SyntheticReader

    data = OrderingData(SyntheticReader(n_train=30, n_valid=5, n_test=5), name="toy",
                        cache_dir=str(tmp_path))  # fmt: skip
    data.prepare_data()
    seconds = check_seconds(data.cache_path, repeats=1)
    assert set(seconds) == {"map", "file_digests", "documents_digest", "checked_load"}
    assert all(cell["seconds"] >= 0 and cell["cpu_seconds"] >= 0 for cell in seconds.values())


@pytest.mark.slow
def test_a_small_measurement_end_to_end(tmp_path: Path, capsys):
    out = tmp_path / "scale.json"
    assert main(["sizes=300", "steps=2", "ddp=false", f"folder={tmp_path}", f"out={out}"]) == 0
    record = json.loads(out.read_text())
    [figures] = record["sizes"]
    assert figures["documents"] == 300 and figures["prepare"]["peak_rss"] > 0
    assert figures["cpu"]["docs_per_s"] > 0 and figures["cpu"]["peak_pss_sum"] > 0
    assert figures["cache_check"]["checked_load"]["seconds"] > 0
    assert "| 300 " in capsys.readouterr().out
    assert not (tmp_path / "abstracts-300-seed0").exists()  # removed once measured
