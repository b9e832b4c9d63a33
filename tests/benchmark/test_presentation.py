"""`orderbench presentation`: the figures and tables written together, reused by a second
call, and a run that cannot be decoded named without losing what was decoded."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from fixtures_runs import write_run

import benchmark.presentation as presentation
from benchmark.run.finished_run import RunError


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    for seed in range(2):
        write_run(root, "attordernet", seed, 0.8)
        write_run(root, "lstm_ptrnet", seed, 0.5)
    return root


def _fake(monkeypatch, calls: list, broken: str = "") -> None:
    def decode(run_dir: Path, seed: int) -> dict:
        if run_dir.name == broken:
            raise RunError(f"{run_dir}/checkpoints/best.ckpt: no checkpoint")
        calls.append((run_dir.name, seed))
        return {"tau": 0.4 + seed / 100, "pmr": 0.1, "acc": 0.3}

    monkeypatch.setattr(presentation, "decode_presented", decode)


def test_writes_figures_and_tables_and_reuses_them(runs, tmp_path, monkeypatch, capsys):
    out, calls = tmp_path / "out", []
    _fake(monkeypatch, calls)
    assert presentation.main([f"runs={runs}", f"out={out}", "presentations=2"]) == 0
    assert sorted(calls) == [(f"seed_{s}", p) for s in range(2) for p in (1, 2)]
    assert "4 presentations decoded, 4 figures" in capsys.readouterr().out
    figures = pd.read_csv(out / presentation.CSV_NAME)
    assert set(figures["row"]) == {"brown: lstm_ptrnet/base"}
    page = (out / presentation.MARKDOWN_NAME).read_text()
    assert "| brown: attordernet/base | order-free |" in page
    assert "| brown: lstm_ptrnet/base | 0 |" in page and "of 3 |" in page
    calls.clear()
    assert presentation.main([f"runs={runs}", f"out={out}", "presentations=2"]) == 0
    assert calls == [] and pd.read_csv(out / presentation.CSV_NAME).equals(figures)


def test_a_run_without_checkpoint_is_named_and_the_rest_is_kept(runs, tmp_path, monkeypatch,
                                                                capsys):
    out, calls = tmp_path / "out", []
    _fake(monkeypatch, calls, broken="seed_1")
    assert presentation.main([f"runs={runs}", f"out={out}", "presentations=2"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "seed_1/checkpoints/best.ckpt: no checkpoint" in err
    assert f"missing from {out / presentation.CSV_NAME}" in err
    assert list(pd.read_csv(out / presentation.CSV_NAME)["seed"]) == [0, 0]


def test_no_runs_folder_is_one_line(tmp_path, capsys):
    assert presentation.main([f"runs={tmp_path / 'none'}"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
