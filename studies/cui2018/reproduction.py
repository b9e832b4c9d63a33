"""results/reproduction.{md,csv}: our runs of the five models of Cui et al. 2018, Table 3,
beside the published figures, under both readings of its protocol; what the page holds, row
by row, is said in this study's README.md ("The reproduction page").

    orderbench study cui2018 [runs=runs] [out=results] [variant=repro] [compare=repro,...]
        [cv_variant=cv_e100]     (`COMMAND` of studies/cui2018/__init__.py)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import pandas as pd

from benchmark.metrics.directions import metric_range
from benchmark.records.run_collection import Run, group_runs
from benchmark.report.command_runs import collect_runs_for
from benchmark.report.cross_validation import (
    CROSS_VALIDATION,
    N_RESAMPLES,
    PoolingError,
    cross_validated_groups,
    pool_folds,
    protocol_of,
)
from benchmark.report.leaderboard import docs_interval, summarise_row, t_interval
from benchmark.stats.seeded_paired import compare_seeded, load_row
from studies.cui2018 import COMMAND
from studies.cui2018.published import MODELS, PAPER
from studies.cui2018.rows import Row, experiment_rows
from studies.selection_variance.selection_variance import (
    budget_pairs,
    noise_table,
    recorded_budget,
    summarise,
)

VARIANT = "repro"
DATASETS = ("accident", "earthquake")
PUBLISHED_TEST = "published_test"
ROWS_SWEEP = "reproduction_e100"  # the study's sweep whose experiments are the page's rows
N_FOLDS = 10  # the full cross-validation
METRICS = {"tau": ("tau", 1.0), "disc_acc": ("discrimination %", 100.0)}
MIN_RUNS = 3  # a cell with fewer finished runs is marked as provisional
ABLATION_REFERENCE = "repro"  # the variant the ablation runs were started from (10 epochs)
PAIRED_RESAMPLES = 10_000  # document resamples of the paired test of the other presets
ROOT = Path(__file__).resolve().parents[2]
SWEEPS = Path(__file__).resolve().parent / "conf" / "sweep"  # the study's own sweeps
NOTES = ROOT / "docs" / "reproduction.md"


def page_rows() -> tuple[Row, ...]:
    """The page's rows: the experiments of `ROWS_SWEEP`, in its order (`studies.cui2018.rows`);
    the same rows at every budget (a row without runs at one is shown and marked)."""
    return experiment_rows(ROWS_SWEEP)


def calibration() -> frozenset[str]:
    """The presets of the rows without a published figure (the calibration baselines)."""
    return frozenset(row.preset for row in page_rows() if row.paper is None)


def cv_variant_of(variant: str) -> str:
    """The cross-validated variant beside a headline variant: repro_e100 -> cv_e100."""
    return "cv" + variant.removeprefix("repro")


def sweep_of(variant: str) -> str:
    """The study's sweep (conf/sweep/ of this folder) that runs into `variant` (repro_e60 ->
    reproduction_e60), as the Makefile's `VARIANT` default pairs them; a placeholder when
    there is none."""
    name = "reproduction" + variant.removeprefix("repro")
    found = variant.startswith("repro") and (SWEEPS / f"{name}.yaml").is_file()
    return name if found else f"<the sweep of {variant}>"


def commands(variant: str, compare: Sequence[str], cv_variant: str | None = None) -> str:
    """The commands that make the page of `variant` beside the variants `compare` (and the
    cross-validated `cv_variant`)."""
    env = "ORDERBENCH_DATASETS=../shared/datasets WANDB_MODE=offline"
    joined = " ".join(compare)
    quoted = f'"{joined}"' if len(compare) > 1 else joined
    page = f"VARIANT={variant}" + (f" COMPARE={quoted}" if compare else "")
    sweep = sweep_of(variant)
    flags = f"variant={variant}" + (f" compare={','.join(compare)}" if compare else "")
    cv_variant = cv_variant or cv_variant_of(variant)
    cv_sweep = f"{sweep}_cv" if not sweep.startswith("<") else f"<the sweep of {cv_variant}>"
    return "\n".join([
        *(f"{env} make reproduction SWEEP_REPRO={sweep_of(v)}" for v in compare),
        f"{env} make reproduction SWEEP_REPRO={sweep} {page}",
        f"{env} make reproduction SWEEP_REPRO={cv_sweep} {page}  # cross-validated, "
        f"variant {cv_variant}_fold<k>",
        "# each = python -m benchmark.train -m sweep=SWEEP_REPRO hydra/launcher=local "
        "hydra.sweeper.max_batch_size=1 cpu_threads=1, then the page:",
        f"make reproduction-report {page}",
        f"# = orderbench study cui2018 runs=runs out=results {flags}",
    ])  # fmt: skip


def budget(runs: Sequence[Run]) -> str:
    """The epoch budget of `runs` as their configs say, e.g. "≤10 epochs, patience 3"."""
    seen = {recorded_budget(run) for run in runs}
    return "; ".join(
        f"≤{epochs} epochs, patience {wait}" if epochs is not None else "budget unrecorded"
        for epochs, wait in sorted(seen, key=str)
    )


def paper_figure(row: Row, dataset: str, metric: str) -> float:
    """The published figure the row is set beside (NaN: none)."""
    if row.paper is None:
        return math.nan
    return PAPER[(row.paper, dataset)][0 if metric == "tau" else 1]


def row_of(preset: str) -> Row:
    """The paper-setting row of one of the paper's presets."""
    return next(row for row in page_rows() if row.preset == preset and not row.tag)


def cell(
    runs: Sequence[Run], preset: str | Row, dataset: str, metric: str, variant: str = VARIANT,
    budget_label: str = "",
) -> dict:  # fmt: skip
    """One row of reproduction.csv, published-test protocol: our figures of `metric` over
    `runs` (seeds) and the paper's."""
    row_def = preset if isinstance(preset, Row) else row_of(preset)
    label, scale = METRICS[metric]
    values = [run.metrics[metric] * scale for run in runs if metric in run.metrics]
    row = summarise_row(runs, [metric]) if runs else {}
    low, high = docs_interval(runs, metric) if runs else (math.nan, math.nan)
    seeds_low, seeds_high = t_interval(values, bounds=metric_range(metric, scale))
    paper = paper_figure(row_def, dataset, metric)
    mean = row.get(f"{metric}_mean", math.nan) * scale
    stopped = [run.record.get("stopped_by") for run in runs]
    return {
        "model": row_def.label, "preset": row_def.preset, "dataset": dataset,
        "metric": label, "protocol": PUBLISHED_TEST,
        "variant": variant + row_def.tag, "budget": budget_label or budget(runs),
        "n_runs": len(values), "enough_runs": len(values) >= MIN_RUNS,
        "seeds": row.get("seeds", ""),
        "mean": mean, "std": row.get(f"{metric}_std", math.nan) * scale,
        "ci_docs_low": low * scale, "ci_docs_high": high * scale,
        "ci_seeds_low": seeds_low, "ci_seeds_high": seeds_high,
        "fold_min": math.nan, "fold_max": math.nan, "n_folds_expected": math.nan,
        "paper": paper, "diff": mean - paper,
        "paper_in_ci": bool(low * scale <= paper <= high * scale) if values else False,
        "valid_tau": _valid(runs), "epochs": row.get("epochs", math.nan),
        "best_epoch": row.get("best_epoch", math.nan), "stopped_by": row.get("stopped_by", ""),
        "n_early_stopping": stopped.count("early_stopping"),
        "n_max_epochs": stopped.count("max_epochs"),
        "permutations": _permutations(runs) if metric == "disc_acc" else "",
        "note": "",
    }  # fmt: skip


def _valid(runs: Sequence[Run]) -> float:
    values = [run.record["split"].get("valid", {}).get("tau") for run in runs]
    values = [v for v in values if isinstance(v, (int, float))]
    return sum(values) / len(values) if values else math.nan


def _source(run: Run) -> str:
    used = (run.record.get("protocol", {}).get("discrimination", {}) or {}).get("permutations")
    return (used or {}).get("source", "own")


def _permutations(runs: Sequence[Run], pooled: bool = False) -> str:
    """Which permutations discrimination used, and how many pairs, as the records say; with
    `pooled` (the folds of one cross-validated cell), the pairs summed over the runs."""
    if pooled:
        pairs = sum(int(run.test.get("disc_n_pairs") or 0) for run in runs)
        sources = ", ".join(sorted({_source(run) for run in runs}))
        return f"{sources} ({pairs} pairs over {len(runs)} folds)"
    seen = {f"{_source(run)} ({run.test.get('disc_n_pairs')} pairs)" for run in runs}
    return ", ".join(sorted(seen))


def budget_key(runs: Sequence[Run]) -> tuple | None:
    """(trainer.max_epochs, early_stopping.patience) shared by `runs`, None when they differ
    or none is recorded."""
    seen = {recorded_budget(run) for run in runs}
    return seen.pop() if len(seen) == 1 and None not in next(iter(seen)) else None


def reference_for(members: Sequence[Run], budgets: dict[str, tuple | None], fallback: str) -> str:
    """The variant among `budgets` (variant -> budget key, headline first) whose recorded
    budget equals the one of `members`, else `fallback` (the variant they were started from)."""
    own = budget_key(members)
    same = [v for v, key in budgets.items() if own is not None and key == own]
    return same[0] if same else fallback


def cv_cells(
    cv_groups: dict, row: Row, dataset: str, metric: str, cv_variant: str,
    n_resamples: int = N_RESAMPLES,
) -> list[dict]:  # fmt: skip
    """The cross-validated rows of one cell: per seed with fold runs of `cv_variant` (+ the
    row's tag), the figure pooled over their held-out articles
    (`benchmark.report.cross_validation.pool_folds`); one empty row when there is none."""
    label, scale = METRICS[metric]
    setting = cv_variant + row.tag
    found = {key[3]: members for key, members in cv_groups.items()
             if key[:3] == (dataset, row.preset, setting)}  # fmt: skip
    paper = paper_figure(row, dataset, metric)
    out = []
    for seed, members in sorted(found.items()) or [(None, [])]:
        stopped = [run.record.get("stopped_by") for run in members]
        summary = summarise_row(members, [metric]) if members else {}
        entry = {
            "model": row.label, "preset": row.preset, "dataset": dataset, "metric": label,
            "protocol": CROSS_VALIDATION, "variant": setting,
            "budget": budget(members) if members else "",
            "n_runs": len(members), "enough_runs": False,
            "seeds": "" if seed is None else str(seed),
            "mean": math.nan, "std": math.nan, "ci_docs_low": math.nan,
            "ci_docs_high": math.nan, "ci_seeds_low": math.nan, "ci_seeds_high": math.nan,
            "fold_min": math.nan, "fold_max": math.nan, "n_folds_expected": N_FOLDS,
            "paper": paper, "diff": math.nan, "paper_in_ci": False,
            "valid_tau": _valid(members), "epochs": summary.get("epochs", math.nan),
            "best_epoch": summary.get("best_epoch", math.nan),
            "stopped_by": summary.get("stopped_by", ""),
            "n_early_stopping": stopped.count("early_stopping"),
            "n_max_epochs": stopped.count("max_epochs"),
            "permutations": _permutations(members, pooled=True)
            if metric == "disc_acc" and members else "",
            "note": "",
        }  # fmt: skip
        if members:
            try:
                pooled = pool_folds(members, metric, n_resamples)
            except (PoolingError, OSError, ValueError) as error:
                entry["note"] = f"not pooled: {error}"
            else:
                low, high = pooled["ci_low"] * scale, pooled["ci_high"] * scale
                mean = pooled["pooled"] * scale
                entry |= {
                    "mean": mean, "std": pooled["fold_std"] * scale,
                    "ci_docs_low": low, "ci_docs_high": high,
                    "fold_min": pooled["fold_min"] * scale,
                    "fold_max": pooled["fold_max"] * scale,
                    "n_folds_expected": pooled["n_folds_expected"],
                    "enough_runs": pooled["complete"], "diff": mean - paper,
                    "paper_in_ci": bool(low <= paper <= high),
                    "note": f"pooled over {pooled['n_docs']} "
                    + ("pairs" if metric == "disc_acc" else "articles")
                    + f"; interval over {pooled['interval']}",
                }  # fmt: skip
        out.append(entry)
    return out


def build(
    runs: Sequence[Run], variant: str, compare: Sequence[str] = (),
    ablation_reference: str = ABLATION_REFERENCE, cv_variant: str | None = None,
    n_resamples: int = N_RESAMPLES,
) -> tuple[pd.DataFrame, pd.DataFrame]:  # fmt: skip
    """(the reproduction table: for every row of `page_rows()`, corpus and metric, the cell at
    `variant`, then at each of `compare`, then the cross-validated cell at `cv_variant`
    (default: `cv_variant_of(variant)`), on adjacent rows; the other variants of the
    paper's presets and corpora on the published test articles, one row per run beside the
    run of its seed at the reference variant: the headline/compared variant of the same
    recorded budget, else `ablation_reference`)."""
    published = [run for run in runs if protocol_of(run) != CROSS_VALIDATION]
    groups = group_runs(published)
    cv_groups = cross_validated_groups(runs)
    cv_variant = cv_variant or cv_variant_of(variant)
    budgets = list(dict.fromkeys((variant, *compare)))
    labels = {v: budget(variant_runs(groups, v)) for v in budgets}
    rows = []
    for dataset in DATASETS:
        for row in page_rows():
            for metric in METRICS:
                rows += [
                    cell(groups.get((dataset, row.preset, v + row.tag), []), row, dataset,
                         metric, v, labels[v])
                    for v in budgets
                ]  # fmt: skip
                rows += cv_cells(cv_groups, row, dataset, metric, cv_variant, n_resamples)
    keys = {v: budget_key(variant_runs(groups, v)) for v in budgets}
    tags = {row.tag for row in page_rows() if row.tag}
    tagged = {base + tag for base in (*budgets, ablation_reference) for tag in tags}
    others = []
    for (dataset, preset, other), members in sorted(groups.items()):
        if other in budgets or other == ablation_reference or other in tagged:
            continue
        if preset not in MODELS or dataset not in DATASETS:
            continue
        reference = reference_for(members, keys, ablation_reference)
        base = {run.seed: run for run in groups.get((dataset, preset, reference), [])}
        for run in members:
            ref = base.get(run.seed)
            others.append({
                "dataset": dataset, "model": MODELS[preset], "preset": preset, "variant": other,
                "seed": run.seed, "budget": budget([run]), "reference": reference,
                "same_budget": ref is not None and budget_key([run]) == budget_key([ref]),
                "same_data": ref is not None and _data(run) == _data(ref),
                "tau": run.metrics.get("tau", math.nan),
                "tau_repro": ref.metrics.get("tau", math.nan) if ref else math.nan,
                "disc_pct": 100 * run.metrics.get("disc_acc", math.nan),
                "disc_pct_repro": 100 * ref.metrics.get("disc_acc", math.nan) if ref else math.nan,
                "valid_tau": run.record["split"].get("valid", {}).get("tau", math.nan),
                "epochs": run.record.get("epochs"), "best_epoch": run.record.get("best_epoch"),
            })  # fmt: skip
    return pd.DataFrame(rows), pd.DataFrame(others)


def _data(run: Run) -> tuple:
    """What a run was tested on: the dataset's path and fold as its config says."""
    return run.config_value("dataset.path"), run.config_value("dataset.fold")


def ablation_summary(others: pd.DataFrame) -> pd.DataFrame:
    """One row per (corpus, model, variant) of `others` (of `build`): mean ± std over its
    seeds, the reference's mean over the same seeds (those it has) and the differences."""
    rows = []
    for (dataset, model, variant), seeds in others.groupby(
        ["dataset", "model", "variant"], sort=False
    ):
        paired = seeds.dropna(subset=["tau_repro"])
        row = {"dataset": dataset, "model": model, "variant": variant,
               "budget": seeds.budget.iloc[0], "reference": seeds.reference.iloc[0],
               "same_budget": bool(seeds.same_budget.all()),
               "same_data": bool(seeds.same_data.all()), "n_seeds": len(seeds),
               "seeds": ",".join(str(s) for s in seeds.seed),
               "n_reference": len(paired)}  # fmt: skip
        for metric in ("tau", "disc_pct", "valid_tau"):
            row[f"{metric}_mean"] = seeds[metric].mean()
            row[f"{metric}_std"] = seeds[metric].std(ddof=1) if len(seeds) > 1 else math.nan
        for metric in ("tau", "disc_pct"):
            row[f"{metric}_reference"] = paired[f"{metric}_repro"].mean()
            row[f"{metric}_diff"] = (paired[metric] - paired[f"{metric}_repro"]).mean()
        row["epochs"] = _joined(seeds, "epochs")
        row["best_epoch"] = _joined(seeds, "best_epoch")
        rows.append(row)
    return pd.DataFrame(rows)


def _joined(frame: pd.DataFrame, column: str) -> str:
    return ",".join("—" if pd.isna(v) else str(int(v)) for v in frame[column])


def beyond_paper(
    runs: Sequence[Run], variant: str, anchor: str = "attordernet",
    n_resamples: int = PAIRED_RESAMPLES,
) -> pd.DataFrame:  # fmt: skip
    """One row per (corpus, preset) of the presets that are not the paper's five models, at
    `variant`: their figures and the difference to `anchor` at the same variant, paired over
    the same test documents (`benchmark.stats.seeded_paired`) where the predictions allow."""
    groups = group_runs(runs)
    rows = []
    for (dataset, preset, v), members in sorted(groups.items()):
        if v != variant or preset in MODELS or preset in calibration() or dataset not in DATASETS:
            continue
        if any(protocol_of(run) == CROSS_VALIDATION for run in members):
            continue
        row = summarise_row(members, list(METRICS))
        anchor_runs = groups.get((dataset, anchor, variant), [])
        out = {"dataset": dataset, "preset": preset, "variant": variant,
               "budget": budget(members), "n_runs": len(members),
               "enough_runs": len(members) >= MIN_RUNS, "seeds": row["seeds"],
               "best_epoch": row["best_epoch"], "epochs": row["epochs"],
               "stopped_by": row["stopped_by"], "train_minutes": row["train_minutes"],
               "anchor": anchor, "anchor_runs": len(anchor_runs)}  # fmt: skip
        anchor_row = summarise_row(anchor_runs, list(METRICS)) if anchor_runs else {}
        for metric, (_, scale) in METRICS.items():
            low, high = docs_interval(members, metric)
            mean = row[f"{metric}_mean"] * scale
            out |= {f"{metric}_mean": mean, f"{metric}_std": row[f"{metric}_std"] * scale,
                    f"{metric}_ci_low": low * scale, f"{metric}_ci_high": high * scale,
                    f"{metric}_anchor": anchor_row.get(f"{metric}_mean", math.nan) * scale,
                    }  # fmt: skip
            out[f"{metric}_diff"] = mean - out[f"{metric}_anchor"]
        out |= _paired_tau(members, anchor_runs, n_resamples)
        rows.append(out)
    return pd.DataFrame(rows)


def _paired_tau(runs: Sequence[Run], anchor_runs: Sequence[Run], n_resamples: int) -> dict:
    """Tau difference `runs` - `anchor_runs` on the same test documents: interval, p-value
    and whether seeds were counted; `paired` false (with the reason) when it cannot be."""
    if not anchor_runs:
        return {"paired": False, "paired_note": "no run of the anchor", "tau_p": math.nan}
    try:
        result = compare_seeded(
            load_row(runs), load_row(anchor_runs), n_resamples, allow_one_seed=True
        )["tau"]
    except (ValueError, OSError, KeyError) as error:  # PairingError is a ValueError
        return {"paired": False, "paired_note": f"unpaired: {error}", "tau_p": math.nan}
    note = "seeds and documents" if result["seeds_counted"] else "documents only (one seed)"
    note += f"; {len(runs)} vs {len(anchor_runs)} runs"
    return {"paired": True, "paired_note": note, "tau_p": result["p"],
            "tau_paired_ci_low": result["ci_low"],
            "tau_paired_ci_high": result["ci_high"]}  # fmt: skip


def variant_runs(groups: dict, variant: str) -> list[Run]:
    """Every run of `variant` in `groups` (of `group_runs`)."""
    return [run for (_, _, v), members in groups.items() if v == variant for run in members]


def _f(value: float, digits: int) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else (
        f"{value:.{digits}f}"
    )


PROTOCOL_LABELS = {PUBLISHED_TEST: "test articles", CROSS_VALIDATION: "cross-validated"}


def _runs_label(r: pd.Series) -> str:
    """Seeds of a published-test cell, folds of a cross-validated one, marked when short."""
    if r["protocol"] != CROSS_VALIDATION:
        return str(r["n_runs"]) if r["enough_runs"] else f"{r['n_runs']} (< {MIN_RUNS})"
    expected = int(r["n_folds_expected"]) if not pd.isna(r["n_folds_expected"]) else N_FOLDS
    label = f"{r['n_runs']} folds" if r["enough_runs"] else (
        f"{r['n_runs']} of {expected} folds (incomplete)"
    )
    return label + (" (not pooled)" if str(r["note"]).startswith("not pooled") else "")


def _cell_line(r: pd.Series, digits: int) -> str:
    inside = "—" if not r["n_runs"] or pd.isna(r["paper"]) else (
        "yes" if r["paper_in_ci"] else "no"
    )
    paper = "—" if pd.isna(r["paper"]) else f"{r['paper']}"
    spread = "—" if pd.isna(r["fold_min"]) else (
        f"{_f(r['fold_min'], digits)}–{_f(r['fold_max'], digits)}"
    )
    return (
        f"| {r['model']} | {r['dataset']} | {PROTOCOL_LABELS[r['protocol']]} | "
        f"`{r['variant']}` | {_runs_label(r)} | "
        f"{_f(r['mean'], digits)} ± {_f(r['std'], digits)} | "
        f"[{_f(r['ci_docs_low'], digits)}, {_f(r['ci_docs_high'], digits)}] | {spread} | "
        f"{paper} | {_f(r['diff'], digits)} | {inside} | "
        f"{_f(r['valid_tau'], 3)} | {r['n_early_stopping']} / {r['n_max_epochs']} | "
        f"{_f(r['epochs'], 1)} ({_f(r['best_epoch'], 1)}) | {r['permutations'] or '—'} |"
    )


def _noise_lines(runs: Sequence[Run], budgets: Sequence[str]) -> list[str]:
    """The selection-variance section: valid figures of every budget, then budget pairs."""
    table = noise_table(runs, budgets)
    if table.empty:
        return []
    table = table[table.preset.isin(MODELS) & table.dataset.isin(DATASETS)]
    summary = summarise(table)
    docs = "/".join(str(int(n)) for n in sorted(table.n_valid_docs.dropna().unique())) or "?"
    lines = [
        f"## Selection on {docs} validation articles (valid figures only)", "",
        f"Early stopping and the tested checkpoint follow valid tau on fold 0 ({docs} articles). "
        "Per cell, over its runs: the mean width of the selected checkpoint's bootstrap 95% "
        "interval over the validation articles, the median change of valid tau from one "
        "epoch to the next, the mean number of trained epochs whose valid tau lies inside "
        "that interval (tied with the selection on these articles), the selected epoch of "
        "each seed, and how many runs selected an epoch in the first third of the budget "
        "(`orderbench study selection-variance`).", "",
        "| corpus | model | variant | runs | valid CI width | median epoch step "
        "| epochs tied / trained | best epoch per seed | best in first third |",
        "|---|---|---|---:|---:|---:|---|---|---:|",
    ]  # fmt: skip
    for _, r in summary.iterrows():
        lines.append(
            f"| {r['dataset']} | {MODELS[r['preset']]} | `{r['variant']}` | {r['n_runs']} | "
            f"{_f(r['valid_ci_width'], 3)} | {_f(r['median_abs_step'], 3)} | "
            f"{_f(r['tied_epochs'], 1)} / {_f(r['epochs'], 1)} | {r['best_epochs']} | "
            f"{r['n_early_best']} of {r['n_runs']} |"
        )
    lines.append("")
    for short, long in zip(budgets[1:], [budgets[0]] * len(budgets), strict=False):
        pairs = budget_pairs(runs, short, long)
        if pairs.empty:
            continue
        lines += [
            f"Same seed at `{short}` and `{long}`: where the longer run trained through the "
            "same epochs first (`same start`), the two selections differ only in how long "
            "the search went on; test tau of both selected checkpoints as recorded (reported, "
            "not used to choose).", "",
            f"| corpus | model | seed | same start | best epoch ({short} → {long}) "
            f"| valid tau | {short} valid CI | {long} inside it | test tau | test difference |",
            "|---|---|---:|---|---|---|---|---|---|---:|",
        ]  # fmt: skip
        for _, p in pairs.iterrows():
            lines.append(
                f"| {p['dataset']} | {MODELS.get(p['preset'], p['preset'])} | {p['seed']} | "
                f"{'yes' if p['same_start'] else 'no'} | "
                f"{_f(p['best_epoch_short'], 0)} → {_f(p['best_epoch_long'], 0)} | "
                f"{_f(p['valid_short'], 3)} → {_f(p['valid_long'], 3)} | "
                f"{p['valid_ci_short']} | {'yes' if p['long_in_short_ci'] else 'no'} | "
                f"{_f(p['test_tau_short'], 3)} → {_f(p['test_tau_long'], 3)} | "
                f"{_f(p['test_tau_diff'], 3)} |"
            )
        lines.append("")
    return lines


def markdown(
    table: pd.DataFrame, others: pd.DataFrame, variant: str, compare: Sequence[str] = (),
    noise: Sequence[str] = (), ablation_reference: str = ABLATION_REFERENCE,
    beyond: pd.DataFrame | None = None, cv_variant: str | None = None,
) -> str:  # fmt: skip
    """The page; `noise`: the lines of the selection-variance section (`_noise_lines`);
    `beyond`: the presets not in the paper (`beyond_paper`); `cv_variant`: the
    cross-validated variant (default `cv_variant_of(variant)`)."""
    cv_variant = cv_variant or cv_variant_of(variant)
    shown = [*dict.fromkeys((variant, *compare)), cv_variant]
    budgets = table[table.variant.isin(shown) & (table.budget != "")].drop_duplicates(
        "variant"
    )[["variant", "budget"]]
    missing = [v for v in shown if v not in set(budgets.variant)]
    budgets = pd.concat([budgets, pd.DataFrame({"variant": missing, "budget": ""})])
    lines = [
        "# Reproduction of Cui et al. 2018, Tables 3 and 5 (Accidents, Earthquakes)",
        "",
        "Generated by `orderbench study cui2018` from the runs of variant "
        f"`{variant}`" + (", beside " + ", ".join(f"`{v}`" for v in compare) if compare else "")
        + "; do not edit by hand (the investigation below is docs/reproduction.md).",
        "",
        "Budgets (the same for every model; best valid checkpoint tested):",
        "",
        *(f"- `{b.variant}`: {b.budget or 'no finished run yet'}" for b in budgets.itertuples()),
        "",
        "Commands:",
        "",
        "```",
        commands(variant, compare, cv_variant),
        "```",
        "",
        "Two protocols, both readings of Cui et al. 2018, sec. 3.1 (\"10-fold cross "
        "validation on the training data\"; `dataset.protocol`, docs/datasets.md): "
        "**test articles** (`published_test`): trained on nine folds of the training "
        "articles, selected on fold 0, scored on the published test articles; "
        "**cross-validated** (`cross_validation`): fold k of the training articles is scored "
        "by a model trained on eight other folds and selected on fold k + 1, folds 0-9 "
        "pooled, so every training article is scored once (seed 0; "
        "`benchmark.report.cross_validation`). The paper's figure is beside both: which one "
        "it is, is the question.",
        "",
        "Rows: the five models of Table 3 at their paper settings; ATTOrderNet at the "
        "released code's settings (`+experiment=attordernet_released`) and LSTM/CNN+PtrNet "
        "at batch 16 and beam 64 (`+experiment=*_ptrnet_cui`, our reading of how Cui et al. "
        "ran them), beside the paper's figure of their model; two calibration baselines "
        "without a network and without a published figure (`bow_position`: a bag-of-words "
        "regression of each sentence's position; `overlap_chain`: a word-overlap rule, "
        "nothing learnt; docs/models.md).",
        "",
        "Columns, test articles: our mean ± std over the runs (seeds 0-2, fold 0), the "
        "percentile-bootstrap 95% interval over test documents (each run's, averaged over "
        "runs). Cross-validated: the figure pooled over the held-out articles of the folds "
        "(discrimination: pooled pairs) ± the std of the ten fold figures, the two-stage "
        "bootstrap 95% interval over folds and articles (discrimination: over folds), and the "
        "range of the fold figures. Then the published figure, ours - published, whether the "
        "published figure lies in our interval, the mean valid tau, how many runs stopped by "
        "early stopping / at the epoch limit, and the mean epochs trained (mean best epoch). "
        "Each cell has one row per budget and protocol. "
        f"`(< {MIN_RUNS})`: fewer than {MIN_RUNS} finished runs so far; `of 10 folds "
        "(incomplete)`: fewer than ten folds, pooled over those there are; both provisional; "
        "`—`: no finished run (or no published figure).",
        "",
    ]  # fmt: skip
    for label, digits in (("tau", 3), ("discrimination %", 1)):
        source = "Table 3" if label == "tau" else "Table 5"
        lines += [f"## {label} (paper: {source})", "",
                  "| model | corpus | protocol | variant | runs | ours (mean ± std) | "
                  "bootstrap 95% CI | fold range | paper | difference | paper in CI | "
                  "valid tau | stopped early / max | epochs (best) | permutations |",
                  "|---|---|---|---|---:|---|---|---|---:|---:|---|---:|---|---|---|"]  # fmt: skip
        part = table[table["metric"] == label]
        lines += [_cell_line(r, digits) for _, r in part.iterrows()]
        problems = [r for _, r in part.iterrows() if str(r.get("note", "")).startswith("not")]
        lines += [f"- {r['model']}, {r['dataset']}, `{r['variant']}`: {r['note']}"
                  for r in problems]  # fmt: skip
        lines.append("")
    if len(others):
        lines += _ablation_lines(ablation_summary(others), ablation_reference)
    if beyond is not None and len(beyond):
        lines += _beyond_lines(beyond)
    lines += list(noise)
    if NOTES.exists():
        lines += ["---", "", NOTES.read_text().strip(), ""]
    return "\n".join(lines)


def _ablation_lines(summary: pd.DataFrame, fallback: str) -> list[str]:
    """The ablation section: one row per (corpus, model, variant) against its reference."""
    lines = [
        "## Ablations (each against the reproduction run of its own budget)", "",
        "Each ablation changes one setting of the paper preset. Its reference is the "
        "headline or compared variant whose recorded budget (trainer.max_epochs, "
        "early_stopping.patience) is the ablation's; an ablation whose budget matches none "
        f"is set against `{fallback}`, the variant it was started from (marked "
        "`other budget`); `other data`: the ablation was tested on other documents "
        "(dataset.path or fold differ, e.g. a re-split), so its difference is not paired. "
        "Figures: mean ± std over the ablation's seeds; the reference's "
        "mean over the same seeds; the difference is the mean of the per-seed differences "
        "(`reproduction_ablations.csv`: every seed).", "",
        "| corpus | model | variant | budget | reference | seeds | tau | tau (reference) "
        "| tau diff | disc % | disc % (reference) | disc diff | valid tau | epochs (best) |",
        "|---|---|---|---|---|---:|---|---:|---:|---|---:|---:|---:|---|",
    ]  # fmt: skip
    for _, r in summary.iterrows():
        reference = f"`{r['reference']}`" + ("" if r["same_budget"] else " (other budget)") + (
            "" if r["same_data"] else " (other data)"
        )
        seeds = str(r["n_seeds"]) + (
            "" if r["n_reference"] == r["n_seeds"] else f" ({r['n_reference']} with reference)"
        )
        lines.append(
            f"| {r['dataset']} | {r['model']} | {r['variant']} | {r['budget']} | {reference} | "
            f"{seeds} | {_pm(r, 'tau', 3)} | {_f(r['tau_reference'], 3)} | "
            f"{_f(r['tau_diff'], 3)} | {_pm(r, 'disc_pct', 1)} | "
            f"{_f(r['disc_pct_reference'], 1)} | {_f(r['disc_pct_diff'], 1)} | "
            f"{_f(r['valid_tau_mean'], 3)} | {r['epochs']} ({r['best_epoch']}) |"
        )
    return [*lines, ""]


def _pm(r: pd.Series, metric: str, digits: int) -> str:
    """mean ± std of `metric` in `r`; the mean alone for one value."""
    std = r[f"{metric}_std"]
    mean = _f(r[f"{metric}_mean"], digits)
    return mean if pd.isna(std) else f"{mean} ± {_f(std, digits)}"


def _beyond_lines(beyond: pd.DataFrame) -> list[str]:
    """The section of the presets not in the paper, at the headline variant."""
    anchor = MODELS.get(beyond.anchor.iloc[0], beyond.anchor.iloc[0])
    lines = [
        "## Presets not in the paper, same data and budget", "",
        "Presets of the suite that Cui et al. 2018 do not have, trained on the same splits "
        f"with the same budget and selection; no published figure (the papers of these "
        f"models do not report these corpora). Difference: ours - {anchor} at the same "
        "variant (mean over runs); p: two-sided test of the tau difference on the same test "
        "documents (`benchmark.stats.seeded_paired`: seeds and documents where both sides "
        "have two seeds or more, else documents only), unpaired where the predictions do "
        f"not pair (then no p). `(< {MIN_RUNS})`: fewer than {MIN_RUNS} runs, provisional.",
        "",
        "| corpus | model | variant | runs | tau | tau bootstrap 95% CI | disc % "
        "| disc bootstrap 95% CI | epochs (best) | stopped by | train min | "
        f"tau − {anchor} | tau diff 95% CI | p | disc % − {anchor} | test |",
        "|---|---|---|---:|---|---|---|---|---|---|---:|---:|---|---:|---:|---|",
    ]  # fmt: skip
    for _, r in beyond.iterrows():
        runs = str(r["n_runs"]) if r["enough_runs"] else f"{r['n_runs']} (< {MIN_RUNS})"
        paired = r["paired"]
        interval = (f"[{_f(r['tau_paired_ci_low'], 3)}, {_f(r['tau_paired_ci_high'], 3)}]"
                    if paired else "—")  # fmt: skip
        lines.append(
            f"| {r['dataset']} | {r['preset']} | `{r['variant']}` | {runs} | "
            f"{_pm(r, 'tau', 3)} | [{_f(r['tau_ci_low'], 3)}, {_f(r['tau_ci_high'], 3)}] | "
            f"{_pm(r, 'disc_acc', 1)} | "
            f"[{_f(r['disc_acc_ci_low'], 1)}, {_f(r['disc_acc_ci_high'], 1)}] | "
            f"{_f(r['epochs'], 1)} ({_f(r['best_epoch'], 1)}) | {r['stopped_by'] or '—'} | "
            f"{_f(r['train_minutes'], 1)} | {_f(r['tau_diff'], 3)} | {interval} | "
            f"{_f(r['tau_p'], 3) if paired else '—'} | {_f(r['disc_acc_diff'], 1)} | "
            f"{r['paired_note']} |"
        )
    return [*lines, ""]


def budget_of(table: pd.DataFrame, variant: str) -> str:
    """The budget label of `variant` in `table`, else the reference budget of the sweep."""
    rows = table[(table.variant == variant) & (table.budget != "")]
    return rows.budget.iloc[0] if len(rows) else "≤10 epochs, patience 3"


def main(argv: Sequence[str] | None = None) -> int:
    return COMMAND.run(argv, _write_page)


def _write_page(keys: dict) -> int:
    args = SimpleNamespace(**keys)
    compare = [v for v in dict.fromkeys(args.compare) if v != args.variant]
    runs = collect_runs_for(COMMAND.prog, args.runs)  # printing the runs left out, and why
    table, others = build(runs, args.variant, compare, args.ablation_reference, args.cv_variant)
    noise = _noise_lines(runs, [args.variant, *compare])
    beyond = beyond_paper(runs, args.variant)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "reproduction.csv", index=False)
    if len(others):
        others.to_csv(out / "reproduction_ablations.csv", index=False)
    if len(beyond):
        beyond.to_csv(out / "reproduction_other_presets.csv", index=False)
    (out / "reproduction.md").write_text(
        markdown(table, others, args.variant, compare, noise, args.ablation_reference, beyond,
                 args.cv_variant)
    )
    print(f"wrote {out / 'reproduction.md'} and {out / 'reproduction.csv'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
