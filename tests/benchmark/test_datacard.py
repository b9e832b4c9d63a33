"""`python -m benchmark.datacard`: per-split document and sentence statistics, train
vocabulary, published sizes; a second card comes from the processed cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures_readers import write_barzilay_published, write_lines, write_logeswaran, write_nseg

from benchmark.config.compose import compose_config
from benchmark.datacard import datacard, main, split_card, train_vocabulary
from benchmark.run.stages import build_datamodule
from data.document import Document

NAMES = {"train": ["10", "11", "123", "1234"], "valid": ["20"], "test": ["3", "31"]}


def test_split_card_and_vocabulary() -> None:
    docs = [
        Document("a", ["One two.", "Two three!"]),
        Document("b", ["Four."]),
        Document("c", list("xyz")),
    ]
    card = {"n_docs": 3, "min": 1, "mean": 2.0, "max": 3, "n_trivial": 1}
    assert split_card([len(doc) for doc in docs]) == card
    assert train_vocabulary(docs) == len({"one", "two", ".", "three", "!", "four", "x", "y", "z"})


def test_cli_prints_one_json_object(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    root = write_logeswaran(tmp_path / "nips", "nips", NAMES)
    overrides = [
        "dataset=nips",
        f"dataset.path={root}",
        f"+dataset.datamodule.cache_dir={tmp_path / 'c'}",
    ]
    main(overrides)
    card = json.loads(capsys.readouterr().out)
    # document n has 3 + len(n) % 4 sentences (fixtures_readers.write_logeswaran)
    assert card["splits"] == {
        "train": {"n_docs": 4, "min": 3, "mean": 4.75, "max": 6, "n_trivial": 0},
        "valid": {"n_docs": 1, "min": 5, "mean": 5.0, "max": 5, "n_trivial": 0},
        "test": {"n_docs": 2, "min": 4, "mean": 4.5, "max": 5, "n_trivial": 0},
    }
    assert card["dataset"] == "nips" and card["published"] == {
        "train": 2448,
        "valid": 409,
        "test": 402,
    }
    assert card["layout"] == "logeswaran"  # dataset=nips detects the layout it reads
    assert card["model_vocab_size"] == card["train_word_types"] + 2  # min_freq 1, <pad> <unk>
    cfg = compose_config([*overrides, "++model.embeddings=null"])
    assert datacard(cfg) == card  # a second card, from the processed cache
    assert len(list((tmp_path / "c").iterdir())) == 1


def test_the_card_and_a_run_record_give_the_same_vocabulary(tmp_path: Path) -> None:
    """With min_freq 2 (as `dataset=brown`) the training split's word types outnumber the
    model's vocabulary; the card names them apart, and its `model_vocab_size` is the figure a
    run records as `data.vocab_size`."""
    root = write_logeswaran(tmp_path / "nips", "nips", NAMES)
    cfg = compose_config(["dataset=nips", f"dataset.path={root}", "++model.embeddings=null",
                          "dataset.datamodule.min_freq=2",
                          f"+dataset.datamodule.cache_dir={tmp_path / 'c'}"])  # fmt: skip
    card = datacard(cfg)
    assert "vocab_size" not in card and card["min_freq"] == 2
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    assert card["model_vocab_size"] == datamodule.stats()["vocab_size"]  # the run record's
    assert card["model_vocab_size"] < card["train_word_types"] + 2


def test_missing_data_exits_with_the_layout(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as info:
        main(["dataset=sind"])
    assert "dataset.path is not set" in str(info.value.code)
    assert "story-in-sequence.json" in str(info.value.code)
    assert capsys.readouterr().out == ""


def test_published_articles_compared_like_with_like(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    root = write_barzilay_published(tmp_path / "q", {"train": 20, "test": 5}, style="apws")
    twin = root / "test" / "apws2699.txt-1-5-5-0-out.perm-1"
    twin.write_bytes((root / "test" / "apws2602.txt-1-5-5-0-out.perm-1").read_bytes())
    cache = f"+dataset.datamodule.cache_dir={tmp_path / 'c'}"
    main(["dataset=earthquake", f"dataset.path={root}", cache])
    card = json.loads(capsys.readouterr().out)
    assert [card["splits"][s]["n_docs"] for s in ("train", "valid", "test")] == [18, 2, 6]
    assert card["vs_published"] == {
        "train+valid": {"published": 100, "ours": 20},  # published train = our train + valid
        "test": {"published": 99, "ours": 6},
    }
    assert card["duplicates"] == {"train": 0, "valid": 0, "test": 1}
    assert card["duplicate_ids"] == {
        "test": [["apws2602.txt-1-5-5-0-out.perm-1", "apws2699.txt-1-5-5-0-out.perm-1"]]
    }
    assert card["published_ids_left"] == 0 and card["skipped_permutation_copies"] == {
        "train": 0,
        "test": 0,
    }
    (root / "train" / twin.name).write_bytes(twin.read_bytes())  # now in train and test
    with pytest.raises(SystemExit) as info:
        main(["dataset=earthquake", f"dataset.path={root}", cache])
    message = str(info.value.code)  # names both documents: ids and files
    assert (
        "'apws2602.txt-1-5-5-0-out.perm-1' (file test/apws2602.txt-1-5-5-0-out.perm-1)" in message
    )
    assert (
        "'apws2699.txt-1-5-5-0-out.perm-1' (file train/apws2699.txt-1-5-5-0-out.perm-1)" in message
    )


def test_nips_nseg_layout_beside_its_published_sizes(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    root = write_nseg(tmp_path / "nips", {"train": 5, "valid": 2, "test": 3})
    test_lines = (root / "test.lower").read_text(encoding="utf-8").splitlines()
    write_lines(root / "test.lower", [*test_lines, test_lines[0]])  # a repeat within test
    cache = f"+dataset.datamodule.cache_dir={tmp_path / 'c'}"
    main(["dataset=nips", f"dataset.path={root}", cache])
    card = json.loads(capsys.readouterr().out)
    assert card["dataset"] == "nips" and card["layout"] == "nseg"
    assert card["published"] == {"train": 2427, "valid": 408, "test": 377}  # not Logeswaran's
    assert card["vs_published"]["test"] == {"published": 377, "ours": 4}
    assert card["duplicates"] == {"train": 0, "valid": 0, "test": 1}
    assert card["duplicate_ids"] == {"test": [["test-1", "test-4"]]}
    write_lines(root / "val.lower", [test_lines[1], test_lines[2]])  # two test texts in valid
    with pytest.raises(SystemExit) as info:
        main(["dataset=nips", f"dataset.path={root}", cache])
    message = str(info.value.code)  # counted, and each named with file:line
    assert message.startswith("error: 2 document(s) repeat the text of a document of another")
    assert "'test-2' (file test.lower:2) in test has the same text as 'valid-1' (file " in message
    assert "'test-3' (file test.lower:3) in test has the same text as 'valid-2'" in message


def test_neither_nips_layout_exits_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["dataset=nips", f"dataset.path={tmp_path}"])
    message = str(info.value.code)
    assert "\n" not in message and "holds neither layout" in message
    assert "2013le_papers" in message and "train.lower" in message
    assert capsys.readouterr().out == ""
