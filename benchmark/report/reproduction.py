"""results/reproduction.{md,csv}: our runs of the five models of Cui et al. 2018, Table 3,
beside the published figures (`make reproduction`, conf/sweep/reproduction.yaml).

For every cell (model x corpus x {tau, pairwise discrimination %}): mean ± std over the
runs (seeds), the percentile-bootstrap 95% interval over test documents (each run's
interval, averaged over the runs, as in the leaderboard), the Student-t interval over the
runs, the published figure and the difference (ours - published), and whether the
published figure lies inside the bootstrap interval. Runs of other variants of the same
models and corpora (ablations, 1 seed each) are listed against the reproduction run of
the same seed. The investigation (docs/reproduction.md) is appended.

    python -m benchmark.report.reproduction [--runs runs] [--out results] [--variant repro]

Published figures: Cui, Li, Chen, Zhang 2018, "Deep Attentive Sentence Ordering Network"
(EMNLP), Table 3 (Kendall's tau) and Table 5 (order discrimination accuracy, %).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from benchmark.records.run_collection import Run, collect_runs, group_runs
from benchmark.report.leaderboard import _docs_interval, summarise_row, t_interval

VARIANT = "repro"
DATASETS = ("accident", "earthquake")
MODELS = {  # preset -> the name in Cui et al. 2018, Table 3
    "lstm_ptrnet": "LSTM+PtrNet",
    "cnn_ptrnet": "CNN+PtrNet",
    "attordernet_att": "ATTOrderNet (ATT)",
    "attordernet_cnn": "ATTOrderNet (CNN)",
    "attordernet": "ATTOrderNet",
}
PAPER = {  # (preset, dataset) -> (tau, Table 3; discrimination %, Table 5)
    ("lstm_ptrnet", "accident"): (0.58, 93.7), ("lstm_ptrnet", "earthquake"): (0.85, 99.5),
    ("cnn_ptrnet", "accident"): (0.58, 93.5), ("cnn_ptrnet", "earthquake"): (0.84, 99.4),
    ("attordernet_att", "accident"): (0.59, 95.4), ("attordernet_att", "earthquake"): (0.87, 99.6),
    ("attordernet_cnn", "accident"): (0.61, 95.8), ("attordernet_cnn", "earthquake"): (0.89, 99.7),
    ("attordernet", "accident"): (0.64, 96.2), ("attordernet", "earthquake"): (0.92, 99.8),
}  # fmt: skip
METRICS = {"tau": ("tau", 1.0), "disc_acc": ("discrimination %", 100.0)}
COMMAND = (
    "ORDERBENCH_DATASETS=../shared/datasets WANDB_MODE=offline make reproduction\n"
    "# = python -m benchmark.train -m sweep=reproduction hydra/launcher=local "
    "hydra.sweeper.max_batch_size=1 cpu_threads=1\n"
    "#   python -m benchmark.report.reproduction --runs runs --out results"
)
NOTES = Path(__file__).resolve().parents[2] / "docs" / "reproduction.md"


def cell(runs: Sequence[Run], preset: str, dataset: str, metric: str) -> dict:
    """One row of reproduction.csv: our figures of `metric` over `runs` and the paper's."""
    label, scale = METRICS[metric]
    values = [run.metrics[metric] * scale for run in runs if metric in run.metrics]
    row = summarise_row(runs, [metric]) if runs else {}
    low, high = _docs_interval(runs, metric) if runs else (math.nan, math.nan)
    seeds_low, seeds_high = t_interval(values)
    paper = PAPER[(preset, dataset)][0 if metric == "tau" else 1]
    mean = row.get(f"{metric}_mean", math.nan) * scale
    return {
        "model": MODELS[preset], "preset": preset, "dataset": dataset, "metric": label,
        "n_runs": len(values), "seeds": row.get("seeds", ""),
        "mean": mean, "std": row.get(f"{metric}_std", math.nan) * scale,
        "ci_docs_low": low * scale, "ci_docs_high": high * scale,
        "ci_seeds_low": seeds_low, "ci_seeds_high": seeds_high,
        "paper": paper, "diff": mean - paper,
        "paper_in_ci": bool(low * scale <= paper <= high * scale) if values else False,
        "valid_tau": _valid(runs), "epochs": row.get("epochs", math.nan),
        "best_epoch": row.get("best_epoch", math.nan), "stopped_by": row.get("stopped_by", ""),
        "permutations": _permutations(runs) if metric == "disc_acc" else "",
    }  # fmt: skip


def _valid(runs: Sequence[Run]) -> float:
    values = [run.record["split"].get("valid", {}).get("tau") for run in runs]
    values = [v for v in values if isinstance(v, (int, float))]
    return sum(values) / len(values) if values else math.nan


def _permutations(runs: Sequence[Run]) -> str:
    """Which permutations discrimination used, and how many pairs, as the records say."""
    seen = set()
    for run in runs:
        used = (run.record.get("protocol", {}).get("discrimination", {}) or {}).get("permutations")
        pairs = run.test.get("disc_n_pairs")
        seen.add(f"{(used or {}).get('source', 'own')} ({pairs} pairs)")
    return ", ".join(sorted(seen))


def build(runs: Sequence[Run], variant: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the reproduction table, the other variants of the same presets and corpora)."""
    groups = group_runs(runs)
    rows = [
        cell(groups.get((dataset, preset, variant), []), preset, dataset, metric)
        for dataset in DATASETS for preset in MODELS for metric in METRICS
    ]  # fmt: skip
    base = {(r.dataset, r.preset, r.seed): r for r in groups_runs(groups, variant)}
    others = []
    for (dataset, preset, other), members in sorted(groups.items()):
        if other == variant or preset not in MODELS or dataset not in DATASETS:
            continue
        for run in members:
            ref = base.get((dataset, preset, run.seed))
            others.append({
                "dataset": dataset, "model": MODELS[preset], "variant": other, "seed": run.seed,
                "tau": run.metrics.get("tau", math.nan),
                "tau_repro": ref.metrics.get("tau", math.nan) if ref else math.nan,
                "disc_pct": 100 * run.metrics.get("disc_acc", math.nan),
                "disc_pct_repro": 100 * ref.metrics.get("disc_acc", math.nan) if ref else math.nan,
                "valid_tau": run.record["split"].get("valid", {}).get("tau", math.nan),
                "epochs": run.record.get("epochs"), "best_epoch": run.record.get("best_epoch"),
            })  # fmt: skip
    return pd.DataFrame(rows), pd.DataFrame(others)


def groups_runs(groups: dict, variant: str) -> list[Run]:
    return [run for (_, _, v), members in groups.items() if v == variant for run in members]


def _f(value: float, digits: int) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else (
        f"{value:.{digits}f}"
    )


def markdown(table: pd.DataFrame, others: pd.DataFrame, variant: str) -> str:
    lines = [
        "# Reproduction of Cui et al. 2018, Tables 3 and 5 (Accidents, Earthquakes)",
        "",
        "Generated by `python -m benchmark.report.reproduction` from the runs of variant "
        f"`{variant}`; do not edit by hand (the investigation below is docs/reproduction.md).",
        "",
        "Commands:",
        "",
        "```",
        COMMAND,
        "```",
        "",
        "Columns: our mean ± std over the runs (seeds 0-2, fold 0), the percentile-bootstrap "
        "95% interval over test documents (each run's, averaged over runs), the published "
        "figure, ours - published, and whether the published figure lies in our interval.",
        "",
    ]
    for label, digits in (("tau", 3), ("discrimination %", 1)):
        source = "Table 3" if label == "tau" else "Table 5"
        lines += [f"## {label} (paper: {source})", "",
                  "| model | corpus | runs | ours (mean ± std) | bootstrap 95% CI | paper | "
                  "difference | paper in CI | valid tau | epochs (best) | permutations |",
                  "|---|---|---:|---|---|---:|---:|---|---:|---|---|"]  # fmt: skip
        for _, r in table[table["metric"] == label].iterrows():
            lines.append(
                f"| {r['model']} | {r['dataset']} | {r['n_runs']} | "
                f"{_f(r['mean'], digits)} ± {_f(r['std'], digits)} | "
                f"[{_f(r['ci_docs_low'], digits)}, {_f(r['ci_docs_high'], digits)}] | "
                f"{r['paper']} | {_f(r['diff'], digits)} | {'yes' if r['paper_in_ci'] else 'no'} | "
                f"{_f(r['valid_tau'], 3)} | {_f(r['epochs'], 1)} ({_f(r['best_epoch'], 1)}) | "
                f"{r['permutations'] or '—'} |"
            )
        lines.append("")
    if len(others):
        lines += ["## Ablations (one seed each, against the reproduction run of that seed)", "",
                  "| corpus | model | variant | seed | tau | tau (repro) | disc % | disc % (repro) "
                  "| valid tau | epochs (best) |",
                  "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]  # fmt: skip
        for _, r in others.iterrows():
            lines.append(
                f"| {r['dataset']} | {r['model']} | {r['variant']} | {r['seed']} | "
                f"{_f(r['tau'], 3)} | {_f(r['tau_repro'], 3)} | {_f(r['disc_pct'], 1)} | "
                f"{_f(r['disc_pct_repro'], 1)} | {_f(r['valid_tau'], 3)} | "
                f"{r['epochs']} ({r['best_epoch']}) |"
            )
        lines.append("")
    if NOTES.exists():
        lines += ["---", "", NOTES.read_text().strip(), ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="runs")
    parser.add_argument("--out", default="results")
    parser.add_argument("--variant", default=VARIANT)
    args = parser.parse_args(argv)
    table, others = build(collect_runs(args.runs), args.variant)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "reproduction.csv", index=False)
    if len(others):
        others.to_csv(out / "reproduction_ablations.csv", index=False)
    (out / "reproduction.md").write_text(markdown(table, others, args.variant))
    print(f"wrote {out / 'reproduction.md'} and {out / 'reproduction.csv'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
