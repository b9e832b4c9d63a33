"""The leaderboard built from fabricated run records (`tests/fixtures_runs.py`)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fixtures_runs import edit_record, write_record, write_run
from scipy import stats

from benchmark.metrics.directions import LOWER_IS_BETTER
from benchmark.metrics.registry import ORDER_METRICS
from benchmark.records.run_collection import RunCollectionWarning, collect_runs
from benchmark.records.seal import SEAL_KEY
from benchmark.report.leaderboard import (
    MAIN_METRICS,
    LeaderboardWarning,
    build_leaderboard,
    main,
    t_interval,
)

RESAMPLES = 2000


def clone_run(source: Path, runs: Path, variant: str) -> Path:
    """A copy of a run under another variant: the same predictions, so a tie."""
    record = json.loads((source / "metrics.json").read_text())
    target = runs / record["dataset"] / record["model"] / variant / source.name
    target.mkdir(parents=True)
    shutil.copy(source / "predictions.jsonl", target / "predictions.jsonl")
    record.pop(SEAL_KEY)
    write_record(target, {**record, "variant": variant})
    return target


def verdict(row: pd.Series) -> str | None:
    """The row's verdict: better, worse, no_difference, reference, or None (not compared)."""
    value = row["verdict"]
    return None if pd.isna(value) else str(value)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """Brown: a strong preset with a tied copy (an ablation variant), a close one, a weak
    one and random with fewer seeds; synthetic: one run; plus an unfinished run, a
    checkpoint-only run and bad records."""
    root = tmp_path_factory.mktemp("runs")
    for seed in range(3):
        best = write_run(root, "attordernet", seed, quality=0.85)
        clone_run(best, root, "copy")
        write_run(root, "lstm_ptrnet", seed, quality=0.8)
        write_run(root, "cnn_ptrnet", seed, quality=0.3)
    for seed in range(2):
        write_run(root, "random", seed, quality=0.0)
    write_run(root, "han", 0, quality=0.7, dataset="synthetic")
    (root / "brown/han/base/seed_0/.hydra").mkdir(parents=True)  # still running
    (root / "brown/han/base/seed_1/checkpoints").mkdir(parents=True)  # crashed
    bad = root / "brown/han/bad/seed_0"
    bad.mkdir(parents=True)
    (bad / "metrics.json").write_text("{not json")
    incomplete = root / "brown/han/incomplete/seed_0"
    incomplete.mkdir(parents=True)
    (incomplete / "metrics.json").write_text(json.dumps({"model": "han", "dataset": "brown"}))
    return root


@pytest.fixture(scope="module")
def table(runs: Path) -> pd.DataFrame:
    with pytest.warns(RunCollectionWarning):
        collected = collect_runs(runs)
    with pytest.warns(LeaderboardWarning, match="synthetic: 1 seed per row"):
        return build_leaderboard(collected, n_resamples=RESAMPLES)


def test_unfinished_and_malformed_runs_are_left_out_with_a_warning_naming_them(runs: Path):
    with pytest.warns(RunCollectionWarning) as caught:
        collected = collect_runs(runs)
    messages = "\n".join(str(w.message) for w in caught)
    assert "brown/han/base/seed_0: unfinished run" in messages
    assert "brown/han/base/seed_1: unfinished run" in messages
    assert "brown/han/bad/seed_0/metrics.json:1: malformed run record" in messages
    assert "brown/han/incomplete/seed_0/metrics.json: malformed run record: missing key" in messages
    assert len(caught) == 4
    assert {run.preset for run in collected if run.dataset == "brown"} == {
        "attordernet", "lstm_ptrnet", "cnn_ptrnet", "random"
    }


def test_one_row_per_dataset_preset_variant_with_every_column(table: pd.DataFrame):
    rows = set(zip(table["dataset"], table["preset"], table["variant"], strict=True))
    assert rows == {
        ("brown", "attordernet", "base"), ("brown", "attordernet", "copy"),
        ("brown", "lstm_ptrnet", "base"), ("brown", "cnn_ptrnet", "base"),
        ("brown", "random", "base"), ("synthetic", "han", "base"),
    }
    for metric in [*ORDER_METRICS, "acc_pooled", "pm_f"]:
        assert {f"{metric}_mean", f"{metric}_std"} <= set(table.columns), metric
    for metric in MAIN_METRICS:
        for kind in ("seeds", "docs"):
            assert {f"{metric}_ci_{kind}_low", f"{metric}_ci_{kind}_high"} <= set(table.columns)
    assert {"rank", "n_seeds", "seeds", "n_docs", "n_params", "train_minutes", "epochs",
            "best_epoch", "steps", "stopped_by", "threads", "complete", "reference",
            "reference_rule", "compared_with", "tau_diff", "tau_ci_low", "tau_ci_high", "tau_p",
            "tau_p_holm", "verdict"} <= set(table.columns)
    brown = table[table["dataset"] == "brown"].set_index(["preset", "variant"])
    assert brown.loc[("attordernet", "base"), "n_seeds"] == 3
    assert brown.loc[("random", "base"), "seeds"] == "0,1"
    assert brown.loc[("attordernet", "base"), "train_minutes"] == pytest.approx(91 / 60)
    assert brown.loc[("attordernet", "base"), "n_docs"] == 60


def test_complete_rows_are_ranked_by_mean_tau_and_rows_with_fewer_seeds_shown_apart(
    table: pd.DataFrame,
):
    brown = table[table["dataset"] == "brown"]
    complete = brown[brown["complete"]]
    assert list(complete["rank"]) == list(range(1, len(complete) + 1))
    assert list(complete["tau_mean"]) == sorted(complete["tau_mean"], reverse=True)
    random = brown.iloc[-1]  # 2 seeds where the others have 3: last, unranked, unmarked
    assert random["preset"] == "random" and not random["complete"]
    assert pd.isna(random["rank"]) and verdict(random) is None and math.isnan(random["tau_p"])
    synthetic = table[table["dataset"] == "synthetic"].iloc[0]  # one seed: ranked, not compared
    assert synthetic["rank"] == 1 and verdict(synthetic) is None


def test_mean_std_and_intervals_over_seeds(runs: Path, table: pd.DataFrame):
    row = table[(table["preset"] == "lstm_ptrnet")].iloc[0]
    paths = sorted(runs.glob("brown/lstm_ptrnet/base/*/metrics.json"))
    records = [json.loads(path.read_text()) for path in paths]
    taus = [record["split"]["test"]["tau"] for record in records]
    assert row["tau_mean"] == pytest.approx(np.mean(taus))
    assert row["tau_std"] == pytest.approx(np.std(taus, ddof=1))
    assert row["tau_ci_seeds_low"] < row["tau_mean"] < row["tau_ci_seeds_high"]
    lows = [record["ci"]["test"]["tau"]["ci_low"] for record in records]
    assert row["tau_ci_docs_low"] == pytest.approx(np.mean(lows))
    single = table[table["dataset"] == "synthetic"].iloc[0]
    assert math.isnan(single["tau_std"]) and math.isnan(single["tau_ci_seeds_low"])
    assert single["tau_ci_docs_low"] <= single["tau_mean"] <= single["tau_ci_docs_high"]


def test_t_interval_is_the_student_interval_of_the_mean():
    values = [0.5, 0.6, 0.7, 0.65]
    low, high = t_interval(values)
    expected = stats.t.interval(0.95, 3, loc=np.mean(values), scale=stats.sem(values))
    assert (low, high) == pytest.approx(expected)
    assert all(math.isnan(v) for v in t_interval([0.5]))


def test_rows_are_compared_with_the_reference_chosen_on_valid_and_holm_corrected(
    table: pd.DataFrame,
):
    brown = table[table["dataset"] == "brown"].set_index(["preset", "variant"])
    assert (brown["reference"] == "attordernet/base").all()
    assert (brown["reference_rule"] == "best valid tau").all()
    assert verdict(brown.loc[("attordernet", "base")]) == "reference"
    tie = brown.loc[("attordernet", "copy")]  # an ablation: against its own base row
    assert tie["compared_with"] == "attordernet/base"
    assert tie["tau_diff"] == pytest.approx(0) and tie["tau_p"] == 1.0
    assert verdict(tie) == "no_difference"
    worse = brown.loc[("cnn_ptrnet", "base")]
    assert worse["compared_with"] == "attordernet/base"
    assert worse["tau_diff"] < 0 and worse["tau_ci_high"] < 0 and worse["tau_p_holm"] < 0.05
    assert verdict(worse) == "worse"
    tested = brown.dropna(subset=["tau_p"])
    assert len(tested) == 3  # copy, lstm_ptrnet, cnn_ptrnet
    assert (tested["tau_p_holm"] >= tested["tau_p"]).all()
    assert tested["tau_p_holm"].min() == pytest.approx(min(1, 3 * tested["tau_p"].min()))


def test_rows_without_predictions_are_not_marked(tmp_path: Path):
    for seed in range(2):
        write_run(tmp_path, "attordernet", seed, quality=0.9)
        (write_run(tmp_path, "han", seed, quality=0.5) / "predictions.jsonl").unlink()
    with pytest.warns(LeaderboardWarning, match="han/base cannot be compared"):
        table = build_leaderboard(
            collect_runs(tmp_path), n_resamples=RESAMPLES, reference="attordernet"
        )
    han = table[table["preset"] == "han"].iloc[0]
    assert verdict(han) is None and math.isnan(han["tau_p"])


def test_cli_writes_csv_and_markdown(runs: Path, tmp_path: Path, capsys):
    out = tmp_path / "results"
    assert main([f"runs={runs}", f"out={out}", f"resamples={RESAMPLES}"]) == 0
    captured = capsys.readouterr()
    assert "unfinished run" in captured.err and "malformed run record" in captured.err
    table = pd.read_csv(out / "leaderboard.csv")
    assert len(table) == 6 and table.iloc[0]["preset"] == "attordernet"
    markdown = (out / "leaderboard.md").read_text()
    assert "## brown" in markdown and "## synthetic" in markdown
    assert "| 1 | attordernet | base | 3 |" in markdown and "▼" in markdown and "ref" in markdown
    assert "Rows with fewer than 3 seeds, not ranked and not compared" in markdown
    assert not list(out.glob(".*.tmp"))


def test_markdown_bolds_the_best_mean_lower_is_better_included(runs: Path, tmp_path: Path):
    main([f"runs={runs}", f"out={tmp_path}", "resamples=100"])
    table = pd.read_csv(tmp_path / "leaderboard.csv")
    brown = table[table["dataset"] == "brown"]
    markdown = (tmp_path / "leaderboard.md").read_text()
    for metric in LOWER_IS_BETTER:
        best = brown[f"{metric}_mean"].min()
        assert f"**{best:.3f}" in markdown


def test_cli_errors(tmp_path: Path, capsys):
    assert main([f"runs={tmp_path / 'missing'}"]) == 2
    assert "no such runs directory" in capsys.readouterr().err
    assert main([f"runs={tmp_path}", f"out={tmp_path / 'out'}"]) == 2
    assert "no finished run" in capsys.readouterr().err


def test_wandb_gets_the_table_offline(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("WANDB_DIR", str(tmp_path))
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.delenv("WANDB_MODE", raising=False)  # offline is the default
    write_run(tmp_path / "runs", "attordernet", 0, quality=0.9)
    (write_run(tmp_path / "runs", "han", 0, quality=0.5) / "predictions.jsonl").unlink()
    argv = [f"runs={tmp_path / 'runs'}", f"out={tmp_path / 'out'}", "wandb=true"]
    assert main(argv) == 0
    (run,) = tmp_path.glob("wandb/offline-run-*")
    assert list(run.glob("files/media/table/leaderboard_*.table.json"))
    # beside it, the test predictions of each run that kept them: gold, predicted, tau
    (predictions,) = run.glob("files/media/table/predictions/brown/attordernet/base/seed_0*.json")
    table = json.loads(predictions.read_text())
    assert table["columns"] == ["id", "gold", "predicted", "tau"] and len(table["data"]) == 60
    taus = [row[3] for row in table["data"]]
    assert taus == sorted(taus) and taus[0] < 1.0  # worst first
    assert not list(run.glob("files/media/table/predictions/brown/han/**/*.json"))


def test_a_row_of_a_preset_without_a_base_row_is_compared_with_the_reference(tmp_path: Path):
    """The NIPS page's rows are each of a sweep's own variant (no `base` row): with a named
    reference, each is paired with it, as a base row would be."""
    for seed in range(2):
        write_run(tmp_path, "attordernet", seed, quality=0.6, variant="repro_e100")
        write_run(tmp_path, "paragraph_ptrnet", seed, quality=0.95, variant="berson_e20")
        write_run(tmp_path, "paragraph_ptrnet", seed, quality=0.9, variant="no_pretrain")
        write_run(tmp_path, "han", seed, quality=0.9, variant="base")
        write_run(tmp_path, "han", seed, quality=0.9, variant="heads_2")
    table = build_leaderboard(collect_runs(tmp_path), n_resamples=200,
                              reference="attordernet/repro_e100").set_index(["preset", "variant"])
    compared = table["compared_with"].to_dict()
    assert compared[("paragraph_ptrnet", "berson_e20")] == "attordernet/repro_e100"
    assert compared[("paragraph_ptrnet", "no_pretrain")] == "attordernet/repro_e100"
    assert compared[("han", "base")] == "attordernet/repro_e100"
    assert compared[("han", "heads_2")] == "han/base"  # an ablation: its own base row
    assert verdict(table.loc[("attordernet", "repro_e100")]) == "reference"


def test_records_without_optional_figures_still_make_a_row(tmp_path: Path):
    run_dir = write_run(tmp_path, "han", 0, quality=0.7)
    edit_record(run_dir, lambda record: (record.pop("n_params"), record.pop("ci")))
    with pytest.warns(LeaderboardWarning, match="brown: 1 seed per row"):
        table = build_leaderboard(collect_runs(tmp_path), n_resamples=100)
    row = table.iloc[0]
    assert pd.isna(row["n_params"]) and math.isnan(row["tau_ci_docs_low"])
    assert row["n_docs"] == 60 and verdict(row) is None
    assert row["stopped_by"] == "unrecorded×1" and math.isnan(row["epochs"])
    main([f"runs={tmp_path}", f"out={tmp_path / 'out'}"])
    markdown = (tmp_path / "out" / "leaderboard.md").read_text()
    line = next(line for line in markdown.splitlines() if line.startswith("| 1 | han | base | 1 |"))
    assert "**" not in line  # one row is the best of nothing


def set_record(run_dir: Path, **changes) -> None:
    edit_record(run_dir, lambda record: record.update(changes))


def test_reference_is_chosen_on_valid_not_test_or_named(tmp_path: Path):
    """han is better on test, lstm_ptrnet on valid: the reference is lstm_ptrnet."""
    for seed in range(2):
        strong = write_run(tmp_path, "han", seed, quality=0.9)
        weak = write_run(tmp_path, "lstm_ptrnet", seed, quality=0.4)
        valid = json.loads((strong / "metrics.json").read_text())["split"]["valid"]
        set_record(strong, split={**json.loads((strong / "metrics.json").read_text())["split"],
                                  "valid": {**valid, "tau": 0.1}})
        set_record(weak, split={**json.loads((weak / "metrics.json").read_text())["split"],
                                "valid": {**valid, "tau": 0.5}})
    table = build_leaderboard(collect_runs(tmp_path), n_resamples=RESAMPLES)
    assert (table["reference"] == "lstm_ptrnet/base").all()
    han = table[table["preset"] == "han"].iloc[0]
    assert han["rank"] == 1 and han["compared_with"] == "lstm_ptrnet/base"
    named = build_leaderboard(collect_runs(tmp_path), n_resamples=100, reference="han/base")
    assert (named["reference"] == "han/base").all() and (named["reference_rule"] == "named").all()


def test_training_outcome_columns_summarise_the_seeds(tmp_path: Path):
    for seed, (stopped, epochs) in enumerate(
        [("early_stopping", 5), ("early_stopping", 6), ("max_epochs", 8)]
    ):
        run_dir = write_run(tmp_path, "han", seed, quality=0.7)
        set_record(run_dir, stopped_by=stopped, epochs=epochs, best_epoch=epochs - 2,
                   steps=100 * epochs, environment={"threads": 1})
    row = build_leaderboard(collect_runs(tmp_path), n_resamples=100).iloc[0]
    assert row["stopped_by"] == "early_stopping×2,max_epochs×1"
    assert row["epochs"] == pytest.approx(19 / 3) and row["best_epoch"] == pytest.approx(13 / 3)
    assert row["steps"] == pytest.approx(1900 / 3) and row["threads"] == "1×3"
    # a run resumed with 2 threads after 2 epochs at 1 (its record's environment: the last launch)
    set_record(tmp_path / "brown/han/base/seed_2", environment={"threads": 2},
               resources={"threads_per_epoch": [None, 1, 1, 2, 2, 2, 2, 2]})
    row = build_leaderboard(collect_runs(tmp_path), n_resamples=100).iloc[0]
    assert row["threads"] == "1×2,1+2×1"


def test_figures_that_are_not_ranked_are_never_bold(tmp_path: Path):
    """Random ties every discrimination pair (disc_ties_frac 1.0): not the best of anything."""
    for seed in range(2):
        for preset, quality, ties in (("random", 0.0, 1.0), ("han", 0.8, 0.0)):
            run_dir = write_run(tmp_path / "runs", preset, seed, quality=quality)
            test = json.loads((run_dir / "metrics.json").read_text())["split"]["test"]
            set_record(run_dir, split={"test": {**test, "disc_acc": (1 - ties) * (1 - 0.1 * seed),
                                                "disc_ties_frac": ties, "disc_ties": 30},
                                       "valid": test})
    assert main([f"runs={tmp_path / 'runs'}", f"out={tmp_path / 'out'}", "resamples=100"]) == 0
    markdown = (tmp_path / "out" / "leaderboard.md").read_text()
    random = next(line for line in markdown.splitlines() if "| random |" in line)
    assert "1.000 ± 0.000" in random and "**1.000 ± 0.000**" not in random
    han = next(line for line in markdown.splitlines() if "| han |" in line)
    assert "**0.950 ± 0.071**" in han  # disc_acc: higher is better
    assert "disc_ties_frac °" in markdown and "disc_ties |" not in markdown


def test_one_seed_rows_are_ranked_with_document_intervals_and_say_what_a_test_needs(
    tmp_path: Path, capsys
):
    for preset, quality in (("lstm_ptrnet", 0.6), ("han", 0.8), ("random", 0.0)):
        write_run(tmp_path / "runs", preset, 0, quality=quality)
    out = tmp_path / "out"
    assert main([f"runs={tmp_path / 'runs'}", f"out={out}", "resamples=100"]) == 0
    err = capsys.readouterr().err
    assert "brown: 1 seed per row: 3 rows ranked by mean tau, none compared" in err
    assert "needs at least 2 seeds per row" in err
    table = pd.read_csv(out / "leaderboard.csv")
    assert list(table["preset"]) == ["han", "lstm_ptrnet", "random"]
    assert list(table["rank"]) == [1, 2, 3] and table["verdict"].isna().all()
    markdown = (out / "leaderboard.md").read_text()
    assert "| 1 | han | base | 1 |" in markdown and "| 3 | random | base | 1 |" in markdown
    assert "at least 2 seeds per row" in markdown
    han = table.iloc[0]
    interval = f"[{han['tau_ci_docs_low']:.3f}, {han['tau_ci_docs_high']:.3f}]"
    assert interval in next(line for line in markdown.splitlines() if "| 1 | han |" in line)


def test_the_default_output_is_beside_the_runs_never_the_committed_results(
    tmp_path: Path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    committed = tmp_path / "results" / "leaderboard.md"
    committed.parent.mkdir()
    committed.write_text("committed\n")
    (tmp_path / "results" / "plots").mkdir()
    (tmp_path / "results" / "plots" / "a.png").write_bytes(b"png")  # another report's
    write_run(tmp_path / "runs", "han", 0, quality=0.7)
    assert main(["resamples=100"]) == 0
    assert committed.read_text() == "committed\n"
    assert (tmp_path / "runs/reports/leaderboard.md").is_file()
    assert "runs/reports/leaderboard.csv" in capsys.readouterr().out
    assert main(["runs=runs", "out=results", "resamples=100"]) == 0  # asked for
    assert committed.read_text().startswith("# Leaderboard")
    assert (tmp_path / "results" / "plots" / "a.png").read_bytes() == b"png"  # carried over
    assert len(collect_runs(tmp_path / "runs")) == 1  # the reports folder is no run
