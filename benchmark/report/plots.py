"""Draw the result plots: `orderbench plots [runs=runs] [out=DIR] [wandb=true]`
(`benchmark.cli_commands.PLOTS`).

From the finished runs (`benchmark.records.run_collection`), per dataset, PNG files in the
output folder (`out`, else `<runs>/reports/plots/`: the committed `results/plots/` is
replaced only when asked). Its PNG files are replaced all in one step, so the plots of one
call land together or not at all and no plot of an earlier call stays behind
(`benchmark.records.atomic_io.replace_folder`):

- `<dataset>_main_metrics.png`: tau, pmr and acc of every preset (its `base` variant):
  bars = mean over seeds, error bars = the runs' 95% bootstrap intervals over test
  documents averaged over seeds (the leaderboard's `ci_docs`), dots = single seeds; a
  preset with fewer seeds than the others is starred (the leaderboard shows it apart);
- `<dataset>_ablation_<study>.png`: tau and pmr against each ablation study defined in an
  `ablation_study` config folder (`benchmark.report.ablation_studies`: HAN blocks, heads, dropout,
  word attention; ATTOrderNet positional encoding and its deviations from the paper;
  sentence-encoder swaps), same bars and dots, or a line over a numeric setting;
- `<dataset>_tau_by_length.png` and `<dataset>_tau_by_genre.png`: tau of every preset
  per paragraph-length bucket and per Brown genre (`benchmark.metrics.breakdowns`), the
  mean over seeds with its 95% percentile-bootstrap interval over the bucket's documents
  (the same resampled documents for every seed), from `predictions.jsonl`; runs without
  predictions are drawn from their records' breakdowns, without an interval (the title
  names them);
- the main-metrics and breakdown plots again for every other variant that is not an
  ablation study's (a sweep's label such as `smoke`, another budget), named
  `<dataset>_main_metrics_<variant>.png`, `<dataset>_tau_by_length_<variant>.png`, ...

A plot whose runs are absent is skipped with a printed note. Each preset has one colour
in every plot (`benchmark.report.plot_style.PRESET_COLOURS`).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
from matplotlib.figure import Figure

from benchmark.cli_arguments import report_error
from benchmark.cli_commands import PLOTS
from benchmark.metrics.breakdowns import LENGTH_LABELS, breakdowns, length_bucket, meta_value
from benchmark.metrics.breakdowns import MISSING as MISSING_META
from benchmark.records.atomic_io import replace_folder
from benchmark.records.run_collection import DEFAULT_VARIANT, Run
from benchmark.report.ablation_studies import Ablation, StudyDefinitionError, ablation_studies
from benchmark.report.ablations import ablation_levels, compared_levels
from benchmark.report.command_runs import Report, run_report
from benchmark.report.leaderboard import MAIN_METRICS, summarise_row
from benchmark.report.plot_style import metric_label, new_figure, preset_colour, save_png
from benchmark.report.wandb_export import log_plots
from benchmark.stats.seeded_paired import seed_mean_interval, seeded_row

PNG = ".png"
ABLATION_METRICS = ("tau", "pmr")
BREAKDOWN_METRIC = "tau"
LENGTH_FIELD = "length"
GENRE_FIELD = "meta.genre"
META_PREFIX = "meta."
ERROR_BARS = "error bars: 95% bootstrap CI over documents; dots: seeds"
BUCKET_ERROR_BARS = (
    "error bars: 95% bootstrap CI over the documents of each bar\n"
    "(the same resampled documents for every seed; seed variation not counted)"
)
BREAKDOWN_RESAMPLES = 1000
BREAKDOWN_PLOTS = (  # (breakdown field, plot name, title, x-axis label, what it needs)
    (LENGTH_FIELD, "tau_by_length", "Kendall's τ by paragraph length",
     "paragraph length (sentences)", "a length breakdown"),
    (GENRE_FIELD, "tau_by_genre", "Kendall's τ by genre", "genre",
     "a genre breakdown (documents without meta.genre)"),
)


class Bucket(NamedTuple):
    """tau of one preset on the documents of one breakdown bucket."""

    mean: float  # over seeds
    ci_low: float  # NaN: no interval
    ci_high: float
    n_docs: int


def _means_and_errors(groups: Sequence[Sequence[Run]], metric: str):
    """Seed means (G,) of `metric` per group and their error-bar lengths (2, G)."""
    rows = [summarise_row(runs, [metric]) for runs in groups]
    means = np.array([row[f"{metric}_mean"] for row in rows])  # (G,)
    bounds = np.array(
        [[row[f"{metric}_ci_docs_{side}"] for row in rows] for side in ("low", "high")]
    )  # (2, G)
    errors = np.abs(bounds - means)  # (2, G); NaN bounds draw no bar
    return means, np.nan_to_num(errors)


def _seed_dots(
    axis, positions: Sequence[float], groups: Sequence[Sequence[Run]], metric: str
) -> None:
    for position, runs in zip(positions, groups, strict=True):
        seeds = [run.metrics[metric] for run in runs if metric in run.metrics]
        axis.scatter([position] * len(seeds), seeds, color="black", s=10, zorder=3)


def _bar_panel(
    axis,
    labels: Sequence[str],
    colours: Sequence[str],
    groups: Sequence[Sequence[Run]],
    metric: str,
) -> None:
    """Bars of the seed mean of `metric` per group, CI error bars, a dot per seed."""
    means, errors = _means_and_errors(groups, metric)
    x = np.arange(len(labels))
    axis.bar(x, means, color=colours, yerr=errors, capsize=4, edgecolor="black", linewidth=0.5)
    _seed_dots(axis, x, groups, metric)
    axis.set_xticks(x, labels, rotation=25, ha="right")
    axis.set_ylabel(metric_label(metric))
    axis.axhline(0, color="grey", linewidth=0.8)
    axis.grid(axis="y", alpha=0.3)


def _line_panel(
    axis,
    values: Sequence[float],
    colour: str,
    groups: Sequence[Sequence[Run]],
    metric: str,
    label: str,
) -> None:
    """The seed mean of `metric` against a numeric setting, CI error bars, seed dots."""
    means, errors = _means_and_errors(groups, metric)
    axis.errorbar(values, means, yerr=errors, color=colour, marker="o", capsize=4)
    _seed_dots(axis, values, groups, metric)
    axis.set_xticks(values, [f"{value:g}" for value in values])
    axis.set_xlabel(label)
    axis.set_ylabel(metric_label(metric))
    axis.grid(alpha=0.3)


def variant_groups(runs: Sequence[Run]) -> dict[str, dict[str, list[Run]]]:
    """Variant -> preset -> runs for the per-variant plots: `base` first, then the other
    variants (a sweep's label such as `smoke`, another budget) by name. The runs of the
    ablation studies' variants are left out: their study's plot shows them."""
    ablated = set().union(*(study.variants for study in ablation_studies()))
    groups: dict[str, dict[str, list[Run]]] = {}
    for run in runs:
        if run.variant == DEFAULT_VARIANT or (run.preset, run.variant) not in ablated:
            groups.setdefault(run.variant, {}).setdefault(run.preset, []).append(run)
    order = sorted(groups, key=lambda variant: (variant != DEFAULT_VARIANT, variant))
    return {v: {preset: groups[v][preset] for preset in sorted(groups[v])} for v in order}


def _of_variant(dataset: str, variant: str) -> str:
    return dataset if variant == DEFAULT_VARIANT else f"{dataset}, variant {variant}"


def main_metrics_plot(
    dataset: str, groups: Mapping[str, list[Run]], variant: str = DEFAULT_VARIANT
) -> Figure:
    """Bars of the main metrics of every preset of one variant on one dataset."""
    figure, axes = new_figure(len(MAIN_METRICS))
    full = max(len(runs) for runs in groups.values())
    labels = [  # * marks a preset with fewer seeds, shown apart on the leaderboard
        f"{preset} ({len(runs)}{'*' if len(runs) < full else ''})"
        for preset, runs in groups.items()
    ]
    colours = [preset_colour(preset) for preset in groups]
    for axis, metric in zip(axes, MAIN_METRICS, strict=True):
        _bar_panel(axis, labels, colours, list(groups.values()), metric)
        axis.set_xlabel("preset (seeds)")
        axis.set_title(metric)
    apart = "; * fewer seeds: not compared" if any("*" in label for label in labels) else ""
    figure.suptitle(
        f"{_of_variant(dataset, variant)}: test metrics by preset\n"
        f"(mean over seeds; {ERROR_BARS}{apart})"
    )
    return figure


def level_label(level) -> str:
    if isinstance(level, tuple):  # (preset, value) of a study over several presets
        return f"{level[0]}: {level_label(level[1])}"
    if isinstance(level, bool):
        return "with" if level else "without"
    return str(level)


def _level_colour(study: Ablation, level) -> str:
    if study.key is None:
        return preset_colour(level)
    return preset_colour(level[0] if isinstance(level, tuple) else study.presets[0])


def ablation_plot(study: Ablation, dataset: str, levels: Mapping[object, list[Run]]) -> Figure:
    """tau and pmr across the levels of one ablation study on one dataset."""
    figure, axes = new_figure(len(ABLATION_METRICS), width=max(4.2, 0.9 * len(levels) + 1.5))
    values, groups = list(levels), list(levels.values())
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    for axis, metric in zip(axes, ABLATION_METRICS, strict=True):
        if numeric:
            _line_panel(axis, values, preset_colour(study.presets[0]), groups, metric, study.axis)
        else:
            colours = [_level_colour(study, level) for level in values]
            _bar_panel(axis, [level_label(level) for level in values], colours, groups, metric)
            axis.set_xlabel(study.axis)
        axis.set_title(metric)
    figure.suptitle(f"{dataset}: {study.title}\n({ERROR_BARS})")
    return figure


def run_breakdowns(run: Run) -> dict:
    """The test breakdowns of a run: stored in its record, else from its predictions."""
    stored = (run.record.get("breakdowns") or {}).get("test")
    if stored is not None:
        return stored
    return breakdowns(run.predictions(), run.include_trivial)


def _bucket_of(field: str, record: Mapping) -> str:
    if field == LENGTH_FIELD:
        return length_bucket(len(record["gold"]))
    return meta_value(record, field.removeprefix(META_PREFIX))


def _stored_buckets(runs: Sequence[Run], field: str) -> dict[str, Bucket]:
    """Bucket -> its tau from the records' breakdowns, averaged over seeds (no interval).

    A bucket without the figure (null in the record: under noise, no document of the
    bucket kept exactly its gold sentences) is left out for that run, as is a run with
    neither breakdowns nor readable predictions.
    """
    values: dict[str, list[float]] = {}
    sizes: dict[str, int] = {}
    for run in runs:
        try:
            stored = run_breakdowns(run)
        except (ValueError, OSError):
            continue
        for bucket, figures in stored.get(field, {}).items():
            value = figures.get(BREAKDOWN_METRIC)
            if isinstance(value, (int, float)) and not math.isnan(value):
                values.setdefault(bucket, []).append(value)
                sizes.setdefault(bucket, figures["n_docs"])
    return {
        bucket: Bucket(float(np.mean(v)), math.nan, math.nan, sizes[bucket])
        for bucket, v in values.items()
    }


def bucket_figures(runs: Sequence[Run], field: str) -> tuple[dict[str, Bucket], bool]:
    """(bucket -> tau of one preset's runs, whether it has intervals).

    From the runs' predictions: the mean over seeds of each seed's tau on the bucket's
    documents, and its 95% percentile-bootstrap interval over those documents, the same
    resampled documents for every seed (`benchmark.stats.seeded_paired.seed_mean_interval`).
    Runs without readable predictions, or seeds scored on different documents: the
    records' breakdowns, without intervals.
    """
    try:
        loaded = [run.predictions() for run in runs]
        members: dict[str, set] = {}
        for record in loaded[0]:
            members.setdefault(_bucket_of(field, record), set()).add(record["id"])
        if field != LENGTH_FIELD and set(members) == {MISSING_META}:
            return {}, False  # no document has the field
        figures = {}
        for bucket, ids in members.items():
            row = seeded_row(
                [[r for r in records if r["id"] in ids] for records in loaded],
                runs[0].include_trivial,
            )
            if row.numer.shape[1] == 0:
                continue  # only documents left out by the trivial policy
            tau = seed_mean_interval(row, BREAKDOWN_RESAMPLES)[BREAKDOWN_METRIC]
            if not math.isnan(tau["mean"]):
                figures[bucket] = Bucket(tau["mean"], tau["ci_low"], tau["ci_high"],
                                         row.numer.shape[1])
        return figures, True
    except (ValueError, OSError):  # PairingError is a ValueError
        return _stored_buckets(runs, field), False


def _bucket_order(field: str):
    return LENGTH_LABELS.index if field == LENGTH_FIELD else str


def breakdown_plot(
    dataset: str,
    groups: Mapping[str, list[Run]],
    field: str,
    title: str,
    axis_label: str,
    variant: str = DEFAULT_VARIANT,
) -> Figure | None:
    """tau per bucket of `field` for every preset, with 95% intervals over the bucket's
    documents (None when no run has that breakdown).

    Length buckets are drawn as lines in length order, other buckets as grouped bars.
    """
    figures, without_interval = {}, []
    for preset, runs in groups.items():
        buckets, with_interval = bucket_figures(runs, field)
        if buckets:
            figures[preset] = buckets
            if not with_interval:
                without_interval.append(preset)
    if not figures:
        return None
    buckets = sorted({b for per in figures.values() for b in per}, key=_bucket_order(field))
    sizes = {b: next(per[b].n_docs for per in figures.values() if b in per) for b in buckets}
    figure, (axis,) = new_figure(1, width=max(6.0, 1.1 * len(buckets) + 2), height=4.4)
    x = np.arange(len(buckets))
    width = 0.8 / len(figures)
    for k, (preset, per) in enumerate(figures.items()):
        missing = Bucket(math.nan, math.nan, math.nan, 0)
        points = [per.get(b, missing) for b in buckets]
        y = np.array([point.mean for point in points])
        bounds = np.array([[point.ci_low for point in points], [point.ci_high for point in points]])
        errors = np.nan_to_num(np.abs(bounds - y))  # (2, B); no interval: no bar
        style = {"color": preset_colour(preset), "label": preset, "capsize": 3}
        if field == LENGTH_FIELD:
            axis.errorbar(x + width * (k - (len(figures) - 1) / 2) / 4, y, yerr=errors,
                          marker="o", **style)
        else:
            axis.bar(x - 0.4 + width * (k + 0.5), y, width, yerr=errors, edgecolor="black",
                     linewidth=0.5, **style)
    axis.set_xticks(x, [f"{b}\n(n={sizes[b]})" for b in buckets])
    axis.set_xlabel(axis_label)
    axis.set_ylabel(metric_label(BREAKDOWN_METRIC))
    axis.axhline(0, color="grey", linewidth=0.8)
    axis.grid(axis="y", alpha=0.3)
    axis.legend(title="preset", fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    note = f"; no interval: {', '.join(without_interval)}" if without_interval else ""
    figure.suptitle(
        f"{_of_variant(dataset, variant)}: {title} (test documents, mean over seeds)\n"
        f"{BUCKET_ERROR_BARS}{note}",
        fontsize="medium",
    )
    return figure


ABLATION_UNSET = "needs runs at two or more settings"


def make_plots(runs: Sequence[Run], out_dir: Path) -> tuple[dict[str, Path], list[str]]:
    """Draw every plot the runs allow: ({name: PNG path}, notes on the skipped plots)."""
    written: dict[str, Path] = {}
    notes: list[str] = []

    def emit(name: str, figure: Figure | None, missing: str) -> None:
        if figure is None:
            notes.append(f"{name}: skipped, {missing}")
        else:
            written[name] = save_png(figure, out_dir / f"{name}{PNG}")

    for dataset in sorted({run.dataset for run in runs}):
        on_dataset = [run for run in runs if run.dataset == dataset]
        by_variant = variant_groups(on_dataset)
        if DEFAULT_VARIANT not in by_variant:
            notes.append(
                f"{dataset}_main_metrics: skipped, no run with variant={DEFAULT_VARIANT}"
                + (f" (drawn for {', '.join(by_variant)})" if by_variant else "")
            )
        for variant, groups in by_variant.items():
            suffix = "" if variant == DEFAULT_VARIANT else f"_{variant}"
            emit(f"{dataset}_main_metrics{suffix}", main_metrics_plot(dataset, groups, variant),
                 "")
            for field, name, title, axis_label, missing in BREAKDOWN_PLOTS:
                emit(
                    f"{dataset}_{name}{suffix}",
                    breakdown_plot(dataset, groups, field, title, axis_label, variant),
                    f"no run of variant {variant} with {missing}",
                )
        for study in ablation_studies():
            levels = ablation_levels(study, on_dataset)
            compared = compared_levels(study, levels)
            figure = ablation_plot(study, dataset, levels) if compared > 1 else None
            what = study.key or "presets " + ", ".join(study.presets)
            emit(
                f"{dataset}_ablation_{study.name}",
                figure,
                f"{ABLATION_UNSET} of {what} (found {compared})",
            )
    return written, notes


def summarised(notes: list[str]) -> list[str]:
    """The notes to print: the ablation plots that lack runs of two settings in one note
    (each is listed in `make_plots`'s notes), the others one each."""
    unset = [note.split(": skipped", 1)[0] for note in notes if ABLATION_UNSET in note]
    kept = [note for note in notes if ABLATION_UNSET not in note]
    if unset:
        kept.append(f"{len(unset)} ablation plot{'s' if len(unset) > 1 else ''} not drawn, no "
                    f"study with runs at two or more of its settings ({', '.join(unset)})")
    return kept


def main(argv: Sequence[str] | None = None) -> int:
    return run_report(PLOTS, argv, _write_plots, sub="plots")


def _write_plots(report: Report, args: dict) -> int:
    prog, runs, target = report.prog, report.runs, report.out
    try:
        ablation_studies()
    except StudyDefinitionError as error:
        return report_error(prog, error)
    drawn: dict[str, Path] = {}
    notes: list[str] = []

    def fill(folder: Path) -> None:
        made, said = make_plots(runs, folder)
        drawn.update(made)
        notes.extend(said)

    replace_folder(target, fill, own=lambda name: name.endswith(PNG), what=prog)
    written = {name: target / path.name for name, path in drawn.items()}
    for note in summarised(notes):
        print(f"{prog}: note: {note}")
    for path in written.values():
        print(path)
    if args["wandb"] and written:
        log_plots(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
