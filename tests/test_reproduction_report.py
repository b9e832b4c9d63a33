"""results/reproduction.{md,csv} from fabricated runs (`benchmark.report.reproduction`)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from benchmark.records.run_collection import collect_runs
from benchmark.report.reproduction import PAPER, build, main
from tests.fixtures_runs import write_run


def add_discrimination(run_dir: Path, acc: float, published: bool) -> None:
    """The discrimination figures and their interval, as `benchmark.train` adds them."""
    path = run_dir / "metrics.json"
    record = json.loads(path.read_text())
    record["split"]["test"] |= {"disc_acc": acc, "disc_n_pairs": 1986, "disc_ties": 0}
    record["ci"]["test"]["disc_acc"] = {"mean": acc, "ci_low": acc - 0.01, "ci_high": acc + 0.01}
    source = {"source": "published", "n_pairs": 1986} if published else {"source": "own"}
    record["protocol"] = {"discrimination": {"permutations": source}}
    path.write_text(json.dumps(record))


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    for seed, acc in zip((0, 1, 2), (0.90, 0.92, 0.94), strict=True):
        add_discrimination(
            write_run(tmp_path, "attordernet", seed, 0.8, "accident", "repro"), acc, True
        )
    add_discrimination(write_run(tmp_path, "attordernet", 0, 0.5, "accident", "mean_pooling"),
                       0.80, True)  # fmt: skip
    return tmp_path


def test_cells_hold_mean_std_interval_paper_and_difference(runs: Path):
    table, others = build(collect_runs(runs), "repro")
    assert len(table) == 5 * 2 * 2  # models x corpora x {tau, discrimination}
    disc = table[(table.preset == "attordernet") & (table.dataset == "accident")
                 & (table.metric == "discrimination %")].iloc[0]  # fmt: skip
    assert disc.n_runs == 3 and disc["mean"] == pytest.approx(92.0)
    assert disc["std"] == pytest.approx(2.0)
    assert disc.paper == PAPER[("attordernet", "accident")][1] == 96.2
    assert disc["diff"] == pytest.approx(92.0 - 96.2)
    assert (disc.ci_docs_low, disc.ci_docs_high) == pytest.approx((91.0, 93.0))
    assert not disc.paper_in_ci and disc.permutations == "published (1986 pairs)"
    tau = table[(table.preset == "attordernet") & (table.dataset == "accident")
                & (table.metric == "tau")].iloc[0]  # fmt: skip
    assert tau.ci_docs_low <= tau["mean"] <= tau.ci_docs_high
    assert tau["diff"] == pytest.approx(tau["mean"] - 0.64)
    empty = table[(table.preset == "lstm_ptrnet") & (table.dataset == "earthquake")].iloc[0]
    assert empty.n_runs == 0 and math.isnan(empty["mean"])
    assert list(others.variant) == ["mean_pooling"]
    assert others.iloc[0].disc_pct == pytest.approx(80.0)
    assert others.iloc[0].disc_pct_repro == pytest.approx(90.0)


def test_main_writes_markdown_and_csv(runs: Path, tmp_path: Path):
    out = tmp_path / "out"
    assert main(["--runs", str(runs), "--out", str(out)]) == 0
    text = (out / "reproduction.md").read_text()
    assert "| ATTOrderNet | accident | 3 | 92.0 ± 2.0 | [91.0, 93.0] | 96.2 | -4.2 | no |" in text
    assert "mean_pooling" in text and "make reproduction" in text
    assert (out / "reproduction.csv").read_text().count("\n") == 21
