"""scripts/resplit_published.py: a seeded random re-split of the published articles."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from repo_root import ROOT

SCRIPT = ROOT / "scripts" / "resplit_published.py"


def load_script():
    spec = importlib.util.spec_from_file_location("resplit_published", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_article(folder: Path, name: str, sentences: list[str], doc_id: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"ntsb{doc_id}txt-1-{i} {text}" for i, text in enumerate(sentences)]
    (folder / name).write_text("\n".join(lines) + "\n")


@pytest.fixture
def published(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    for i in range(6):
        write_article(root / "train", f"a{i}", [f"Train {i} one.", f"Train {i} two."], f"1{i}")
    for i in range(4):
        write_article(root / "test", f"b{i}", [f"Test {i} one.", f"Test {i} two."], f"2{i}")
    # the same text as a0 under other published ids: a duplicate once ids are stripped
    write_article(root / "test", "b9", ["Train 0 one.", "Train 0 two."], "99")
    return root


def test_resplit_keeps_train_size_drops_duplicates_and_is_seeded(published, tmp_path):
    script = load_script()
    assert script.resplit(published, tmp_path / "r0", seed=0) == (6, 4, 1)
    names = {split: sorted(p.name for p in (tmp_path / "r0" / split).iterdir())
             for split in ("train", "test")}
    assert not set(names["train"]) & set(names["test"])
    assert len(names["train"]) + len(names["test"]) == 10
    # every link points at an original file
    for link in (tmp_path / "r0" / "train").iterdir():
        assert link.is_symlink() and link.resolve().parent.parent == published.resolve()
    script.resplit(published, tmp_path / "r0_again", seed=0)
    again = sorted(p.name for p in (tmp_path / "r0_again" / "train").iterdir())
    assert again == names["train"]
    script.resplit(published, tmp_path / "r1", seed=1)
    other = sorted(p.name for p in (tmp_path / "r1" / "train").iterdir())
    assert other != names["train"]  # 210 possible training sets: seeds 0 and 1 differ
