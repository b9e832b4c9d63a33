"""`orderbench bench compile` (benchmark/bench/compile.py): its record holds, per target,
the graphs and breaks, the recompilations, the host syncs and operators of a step and the
eager seconds a step; an unknown target is refused in one line. Tiny sizes: NIPS-like
abstracts, a few steps, the compiler tracing only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.bench import compile as bench_compile
from benchmark.records.run_record import git_commit


def test_the_record_holds_every_figure_of_each_target(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setattr(bench_compile, "_found_nips", lambda: None)  # NIPS-like abstracts
    out = tmp_path / "compile.json"
    code = bench_compile.main(["targets=lstm_ptrnet", "steps=3", "compiled=false",
                               "isolate=false", f"out={out}"])  # fmt: skip
    assert code == 0
    record = json.loads(out.read_text())
    assert record["data"] == "NIPS-like synthetic abstracts"
    assert record["commit"] == git_commit()  # the code measured
    result = record["targets"]["lstm_ptrnet"]
    assert result["eager"]["host_syncs"] == 0 and result["eager"]["operators_per_step"] > 100
    assert result["eager"]["buckets"] == "length buckets planned on the host"
    explained = result["explain"]
    assert explained["graphs"] > explained["breaks"] >= 2
    assert explained["breaks_outside_lstm"] == 0  # the sentence LSTM and the decoder's
    compiled = result["compiled"]
    assert compiled["backend"] == "eager" and compiled["steps"] == 3
    assert compiled["recompiling_steps"] == len(compiled["recompiled_at"])
    assert 0 < result["padding"]["tokens"] < 1
    assert "| lstm_ptrnet | " in capsys.readouterr().out


def test_an_unknown_target_is_refused_in_one_line(capsys):
    assert bench_compile.main(["targets=lstm_ptrnet,nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("orderbench bench compile: error: unknown target(s) ['nope']")


@pytest.mark.parametrize("reason, allowed", [
    ("Skip inlining `torch.compiler.disable()`d function\n ... (reason: nn.LSTM runs "
     "eagerly: the compiler does not trace it)", True),
    ("Attempted to wrap RNN, GRU, or LSTM", True),
    ("Data-dependent branching", False),
])  # fmt: skip
def test_only_a_break_at_an_lstm_is_allowed(reason, allowed):
    assert bench_compile.lstm_break(reason) == allowed
