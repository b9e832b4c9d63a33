"""The cross-validated figure (`benchmark.report.cross_validation`): the ten fold runs of one
(model, corpus, seed) pooled over their held-out articles, the fold spread, the two-stage
interval, refusals naming what differs; its cells on the reproduction page; seed intervals
clipped to the metric's range."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from fixtures_runs import edit_record, write_run

from benchmark.metrics.corpus import score_records
from benchmark.metrics.directions import metric_range
from benchmark.records.predictions_jsonl import read_predictions
from benchmark.records.run_collection import collect_runs
from benchmark.report.cross_validation import (
    PoolingError,
    check_poolable,
    cross_validated_groups,
    fold_documents,
    pool_folds,
)
from benchmark.report.leaderboard import t_interval
from studies.cui2018.reproduction import build, cell, main

SIZES = [6, 5, 5, 4, 6, 5, 4, 5, 6, 4]  # held-out articles per fold


def patch_record(run_dir: Path, update) -> None:
    edit_record(run_dir, update)


def cv_run(
    root: Path, fold: int, preset: str = "attordernet", seed: int = 0, quality: float = 0.7,
    tag: str = "", heads: int = 8, protocol: str = "cross_validation",
    disc: tuple[float, int] | None = None,
) -> Path:  # fmt: skip
    """A finished fold run as the cross-validated sweep writes it."""
    run_dir = write_run(root, preset, seed, quality + 0.02 * fold, "accident",
                        f"cv_e100{tag}_fold{fold}", net={"heads": heads},
                        n_docs=SIZES[fold], doc_prefix=f"train{fold}")  # fmt: skip

    def update(record):
        config = record["config"]
        config["dataset"] |= {"protocol": protocol, "fold": fold,
                              "reader": {"fold": fold, "n_folds": 10, "protocol": protocol}}
        config |= {"trainer": {"max_epochs": 100}, "early_stopping": {"patience": 15}}
        if disc is not None:
            record["split"]["test"] |= {"disc_acc": disc[0], "disc_n_pairs": disc[1]}

    patch_record(run_dir, update)
    return run_dir


@pytest.fixture
def folds(tmp_path: Path) -> Path:
    for fold in range(10):
        cv_run(tmp_path, fold, disc=(0.8 + 0.01 * fold, 20 * SIZES[fold]))
    return tmp_path


def per_document_tau(run) -> list[float]:
    records = [p.to_json() for p in read_predictions(run.path / "predictions.jsonl")]
    scored = score_records(records)
    return [doc["tau"] for doc in scored.counted]


def test_the_pooled_figure_counts_every_held_out_article_once(folds: Path):
    runs = collect_runs(folds)
    pooled = pool_folds(runs, "tau", n_resamples=300)
    taus = [per_document_tau(run) for run in sorted(runs, key=lambda r: r.record["config"]
                                                      ["dataset"]["fold"])]  # fmt: skip
    everything = [t for fold in taus for t in fold]
    assert pooled["n_docs"] == len(everything) == sum(SIZES) - sum(n // 13 for n in SIZES)
    assert pooled["pooled"] == pytest.approx(np.mean(everything))
    assert pooled["fold_means"] == pytest.approx([np.mean(t) for t in taus])
    assert (pooled["fold_min"], pooled["fold_max"]) == pytest.approx(
        (min(map(np.mean, taus)), max(map(np.mean, taus))))
    assert pooled["fold_std"] == pytest.approx(np.std([np.mean(t) for t in taus], ddof=1))
    assert pooled["ci_low"] < pooled["pooled"] < pooled["ci_high"]
    assert pooled["complete"] and pooled["folds"] == list(range(10))
    assert pooled["interval"] == "folds and articles"
    again = pool_folds(list(reversed(runs)), "tau", n_resamples=300)
    assert (again["ci_low"], again["ci_high"]) == (pooled["ci_low"], pooled["ci_high"])


def test_the_interval_counts_the_folds_as_well_as_the_articles(folds: Path):
    """Resampling folds too (the fold models differ) widens the interval over the one that
    resamples the articles of a fixed set of folds."""
    runs = collect_runs(folds)
    both = pool_folds(runs, "tau", n_resamples=400)
    parts = [fold_documents(run, "tau")[:2] for run in runs]
    articles_only = []
    rng = np.random.default_rng(0)
    numer = np.concatenate([n for n, _ in parts])
    for _ in range(400):
        counts = [rng.multinomial(len(n), np.full(len(n), 1 / len(n))) for n, _ in parts]
        articles_only.append(sum(c @ n for c, (n, _) in zip(counts, parts, strict=True))
                             / len(numer))  # fmt: skip
    low, high = np.quantile(articles_only, [0.025, 0.975])
    assert both["ci_high"] - both["ci_low"] >= 0.9 * (high - low)


def test_discrimination_pools_pairs_over_the_folds(folds: Path):
    pooled = pool_folds(collect_runs(folds), "disc_acc", n_resamples=200)
    wins = sum((0.8 + 0.01 * k) * 20 * n for k, n in enumerate(SIZES))
    assert pooled["pooled"] == pytest.approx(wins / (20 * sum(SIZES)))
    assert pooled["n_docs"] == 20 * sum(SIZES) and pooled["interval"] == "folds"
    assert pooled["fold_min"] == pytest.approx(0.80) and pooled["fold_max"] == pytest.approx(0.89)


def test_incomplete_folds_are_pooled_and_marked(tmp_path: Path):
    for fold in (0, 2, 5):
        cv_run(tmp_path, fold)
    pooled = pool_folds(collect_runs(tmp_path), "tau", n_resamples=100)
    assert (pooled["n_folds"], pooled["n_folds_expected"], pooled["complete"]) == (3, 10, False)


def test_folds_of_other_settings_seeds_or_protocols_are_refused(tmp_path: Path):
    for fold in range(3):
        cv_run(tmp_path / "a", fold)
    other_heads = cv_run(tmp_path / "b", 3, heads=4)
    other_seed = cv_run(tmp_path / "c", 3, seed=1)
    published = cv_run(tmp_path / "d", 3, protocol="published_test")
    base = collect_runs(tmp_path / "a")
    with pytest.raises(PoolingError, match=r"differ beyond the fold: model\.net\.heads: 8 -> 4"):
        check_poolable([*base, *collect_runs(other_heads.parents[3])])
    with pytest.raises(PoolingError, match="different seeds"):
        check_poolable([*base, *collect_runs(other_seed.parents[3])])
    with pytest.raises(PoolingError, match="dataset.protocol is 'published_test'"):
        check_poolable([*base, *collect_runs(published.parents[3])])
    twice = cv_run(tmp_path / "e", 1)
    with pytest.raises(PoolingError, match="fold 1 is given twice"):
        check_poolable([*base, *collect_runs(twice.parents[3])])
    assert len(base) == 3
    check_poolable(base)  # the three folds alone pool


def test_an_article_held_out_by_two_folds_is_refused(tmp_path: Path):
    cv_run(tmp_path, 0)
    run_dir = cv_run(tmp_path, 1)
    predictions = run_dir / "predictions.jsonl"
    predictions.write_text(predictions.read_text().replace("train1-", "train0-"))
    edit_record(run_dir, lambda record: None)  # as the run would have sealed it
    with pytest.raises(PoolingError, match="held out by fold 0 and fold 1"):
        pool_folds(collect_runs(tmp_path), "tau", n_resamples=50)


def test_groups_are_the_fold_sets_of_one_setting(tmp_path: Path):
    for fold in range(2):
        cv_run(tmp_path, fold)
        cv_run(tmp_path, fold, tag="_released")
    groups = cross_validated_groups(collect_runs(tmp_path))
    assert sorted(groups) == [("accident", "attordernet", "cv_e100", 0),
                              ("accident", "attordernet", "cv_e100_released", 0)]  # fmt: skip
    assert [len(runs) for runs in groups.values()] == [2, 2]


# -- the reproduction page ------------------------------------------------------------------


def test_the_page_has_a_cross_validated_cell_beside_the_test_articles(folds: Path, tmp_path):
    for fold in range(7):
        cv_run(folds, fold, preset="cnn_ptrnet", quality=0.5)
    table, others = build(collect_runs(folds), "repro_e100", n_resamples=200)
    assert others.empty  # fold runs are no ablations
    cv = table[(table.protocol == "cross_validation") & (table.dataset == "accident")]
    att = cv[(cv.preset == "attordernet") & (cv.variant == "cv_e100") & (cv.metric == "tau")]
    att = att.iloc[0]
    pooled = pool_folds(collect_runs(folds)[:10], "tau", n_resamples=200)
    assert (att.n_runs, att.enough_runs) == (10, True)
    assert att["mean"] == pytest.approx(pooled["pooled"])
    assert att["diff"] == pytest.approx(pooled["pooled"] - 0.64)
    assert att.fold_min <= att["mean"] <= att.fold_max
    cnn = cv[(cv.preset == "cnn_ptrnet") & (cv.variant == "cv_e100")].iloc[0]
    assert (cnn.n_runs, cnn.enough_runs) == (7, False)
    out = tmp_path / "out"
    assert main([f"runs={folds}", f"out={out}", "variant=repro_e100"]) == 0
    text = (out / "reproduction.md").read_text()
    cv = "| accident | cross-validated |"
    assert f"| ATTOrderNet {cv} `cv_e100` | 10 folds |" in text
    assert f"| CNN+PtrNet {cv} `cv_e100` | 7 of 10 folds (incomplete) |" in text
    assert f"| ATTOrderNet, released code {cv} `cv_e100_released` | 0 of 10 folds" in text
    assert "| bag-of-words position (calibration) | earthquake | test articles |" in text
    assert "make reproduction SWEEP_REPRO=reproduction_e100_cv" in text


def test_a_fold_set_that_does_not_pool_is_shown_with_the_reason(folds: Path, tmp_path: Path):
    fold3 = folds / "accident" / "attordernet" / "cv_e100_fold3" / "seed_0"
    patch_record(fold3, lambda r: r["config"]["model"]["net"].update(heads=4))  # another setting
    table, _ = build(collect_runs(folds), "repro_e100", n_resamples=50)
    att = table[(table.protocol == "cross_validation") & (table.preset == "attordernet")
                & (table.variant == "cv_e100") & (table.metric == "tau")].iloc[0]  # fmt: skip
    assert att.note.startswith("not pooled:") and math.isnan(att["mean"])


# -- seed intervals in the metric's range ---------------------------------------------------


def test_seed_intervals_are_clipped_to_the_metric_range(tmp_path: Path):
    low, high = t_interval([99.0, 100.0, 98.5], bounds=metric_range("disc_acc", 100.0))
    assert high == 100.0 and low < 99.0
    assert t_interval([0.9, 1.0, 0.95])[1] > 1.0  # unclipped without bounds
    assert t_interval([0.9, 1.0, 0.95], bounds=metric_range("tau"))[1] == 1.0
    assert metric_range("coherence_L") == (0.0, math.inf)
    for seed, acc in zip((0, 1, 2), (0.99, 1.0, 0.985), strict=True):
        run_dir = write_run(tmp_path, "attordernet", seed, 0.9, "earthquake", "repro_e100")
        patch_record(run_dir, lambda r, a=acc: r["split"]["test"].update(disc_acc=a))
    runs = collect_runs(tmp_path)
    row = cell(runs, "attordernet", "earthquake", "disc_acc", "repro_e100")
    assert row["ci_seeds_high"] == 100.0 and row["ci_seeds_low"] < row["mean"]
