"""The spread of a row's test figures over other presentations of its test documents
(benchmark/report/presentation_spread.py): only order-reading rows decoded, each
presentation once, kept figures reused, the tables' figures those of the decodes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from fixtures_runs import write_run

from benchmark.records.run_collection import collect_runs, group_runs
from benchmark.report.presentation_spread import (
    RowName,
    other_protocol_seeds,
    presentation_figures,
    row_lines,
    run_lines,
)


@pytest.fixture
def groups(tmp_path: Path) -> dict:
    runs = tmp_path / "runs"
    for seed in range(3):
        write_run(runs, "attordernet", seed, 0.8)  # registered order-free
        write_run(runs, "lstm_ptrnet", seed, 0.5)  # reads the presented order
    return {RowName(preset, preset): members
            for (_, preset, _), members in group_runs(collect_runs(runs)).items()}  # fmt: skip


def _decode(calls: list):
    def decode(run_dir: Path, seed: int) -> dict:
        calls.append((run_dir.name, seed))
        return {"tau": 0.5 + seed / 100, "pmr": 0.1, "acc": 0.3}

    return decode


def test_only_order_reading_rows_are_decoded_and_only_once(groups):
    calls = []
    figures = presentation_figures(groups, 2, pd.DataFrame(), _decode(calls))
    assert sorted(calls) == [(f"seed_{s}", p) for s in range(3) for p in (1, 2)]  # LSTM only
    assert set(figures["preset"]) == {"lstm_ptrnet"} and len(figures) == 6
    again = presentation_figures(groups, 2, figures, lambda *_: pytest.fail("decoded again"))
    assert again.equals(figures)  # kept figures are reused
    more = presentation_figures(groups, 3, figures, _decode(calls := []))
    assert sorted(calls) == [(f"seed_{s}", 3) for s in range(3)] and len(more) == 9


def test_a_run_that_cannot_be_decoded_leaves_only_its_lines_missing(groups):
    def decode(run_dir: Path, seed: int) -> dict | None:
        return None if run_dir.name == "seed_1" else {"tau": 0.4, "pmr": 0.1, "acc": 0.3}

    figures = presentation_figures(groups, 2, pd.DataFrame(), decode)
    assert sorted(set(figures["seed"])) == [0, 2] and len(figures) == 4
    lstm = groups[RowName("lstm_ptrnet", "lstm_ptrnet")]
    lstm[1].metrics["tau"] = 0.9  # not measured again: kept out of the row's fixed mean
    row = next(line for line in row_lines(groups, figures) if line.startswith("| lstm_ptrnet"))
    fixed = (lstm[0].metrics["tau"] + lstm[2].metrics["tau"]) / 2
    assert f"| 2 × 2 seeds of 3 | {fixed:.3f} | 0.400 |" in row


def test_the_other_presentations_skip_the_runs_own(groups):
    lstm = groups[RowName("lstm_ptrnet", "lstm_ptrnet")][0]
    assert other_protocol_seeds(lstm, 3) == [1, 2, 3]
    lstm.record["identity"] = {"protocol": {"protocol_seed": 2}}  # as a run records it
    assert other_protocol_seeds(lstm, 3) == [0, 1, 3]


def test_tables_hold_the_spread_and_where_the_fixed_presentation_ranks(groups):
    figures = presentation_figures(groups, 2, pd.DataFrame(), _decode([]))
    rows = "\n".join(row_lines(groups, figures))
    assert "| attordernet | order-free |" in rows
    lstm = next(line for line in rows.splitlines() if line.startswith("| lstm_ptrnet"))
    assert "| 2 × 3 seeds |" in lstm and lstm.endswith("| 0.515 | 0.0071 | 0.0100 |")
    per_run = [line for line in run_lines(groups, figures) if line.startswith("| lstm_ptrnet")]
    assert len(per_run) == 3  # the order-free row has no run lines
    for line, run in zip(per_run, groups[RowName("lstm_ptrnet", "lstm_ptrnet")], strict=True):
        fixed = run.metrics["tau"]
        rank = 1 + sum(tau > fixed for tau in (0.51, 0.52))
        assert line == (f"| lstm_ptrnet | {run.seed} | {fixed:.4f} | 0.5150 | 0.0071 | "
                        f"0.5100 to 0.5200 | {rank} of 3 |")  # fmt: skip
    assert "not measured" in "\n".join(row_lines(groups, figures.iloc[0:0]))


def test_kept_config_ids_stay_text(tmp_path):
    from benchmark.report.presentation_spread import read_known

    path = tmp_path / "kept.csv"
    path.write_text("row,preset,seed,config_id,protocol_seed,tau,pmr,acc\n"
                    "a,lstm_ptrnet,0,12345678,1,0.5,0.1,0.3\n"
                    "a,lstm_ptrnet,1,,1,0.5,0.1,0.3\n")  # fmt: skip
    assert list(read_known(path)["config_id"]) == ["12345678", ""]
