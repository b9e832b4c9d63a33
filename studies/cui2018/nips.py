"""results/reproduction_nips.{md,csv}: the study's NIPS page. Every row of its NIPS sweeps
(the 2018-era presets of the NIPS column of Cui et al. 2018, Table 3, and the pretrained
paragraph encoders, MiniLM and BERT-base-sized) on the SE-Graph split of the NIPS abstracts,
one set of paired tests, and the published figures each in its own convention beside ours
in the same one (`studies.cui2018.published`); what the page holds is said in this study's
README.md ("The NIPS page").

    orderbench study cui2018-nips [runs=runs] [out=results] [variant=repro_e100]
        [presentations=0] [reference=attordernet]
        (`NIPS_COMMAND` of studies/cui2018/__init__.py)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from benchmark.cli_arguments import report_error, warnings_printed
from benchmark.compare import compare_runs
from benchmark.config.identity import changed_keys, identity_config
from benchmark.presentation import PresentedDecoder, decode_presented
from benchmark.records.atomic_io import atomic_write_group
from benchmark.records.comparability import IncomparableRunsError, require_pairable
from benchmark.records.run_collection import Run, collect_runs
from benchmark.report.presentation_spread import presentation_figures, read_known
from benchmark.stats.multiple_testing import holm
from benchmark.stats.seeded_paired import SeededRow, compare_seeded, load_row, seeded_interval
from data.readers.nseg import SOURCE as NSEG_SOURCE
from studies.cui2018 import NIPS_COMMAND as COMMAND
from studies.cui2018 import NIPS_REFERENCE
from studies.cui2018.nips_cost import cost_lines, load_profile, run_cost, short_commit, shown
from studies.cui2018.nips_kept import (
    ABLATIONS_CSV,
    KEPT,
    TABLE_CSV,
    TESTS_CSV,
    Earlier,
    kept_line,
    kept_lines,
    marked,
)
from studies.cui2018.nips_presentation import PRESENTATION_CSV, presentation_lines
from studies.cui2018.published import NIPS, PEERS
from studies.cui2018.rows import ENCODER_KEY, Row, experiment_rows, preset_rows, sweep, sweep_params

DATASET = "nips"
VARIANT = "repro_e100"
MIN_RUNS = 3
N_RESAMPLES = 10_000
# figure -> (scale shown: % for the rates, its column): accuracy and LCS in the conventions
# of the published figures (docs/metrics.md, "Which paper uses which")
METRICS = {"acc": (100.0, "accuracy % per document"), "acc_pooled": (100.0, "accuracy % pooled"),
           "pmr": (100.0, "PMR %"), "tau": (1.0, "tau"), "lcs_pooled": (100.0, "LCS % pooled")}
MARKDOWN_NAME = "reproduction_nips.md"
PAGE_SWEEP = "nips"  # the 2018-era rows, in order, at the page's budget (`variant`)
# the pretrained paragraph encoders' rows, each sweep at a budget (a variant) of its own
PRETRAINED_SWEEPS = ("nips_pretrained", "nips_pretrained_mpnet")
# a pretrained sweep's parameters that every such sweep sets (the rest are named on the page)
RECIPE_KEYS = ("trainer.max_epochs", "early_stopping.patience", "model", "seed", "+reproduce",
               "+experiment", ENCODER_KEY)  # fmt: skip


@dataclass(frozen=True)
class PretrainedSweep:
    """A pretrained rows' sweep (studies/cui2018/conf/sweep/nips_pretrained*.yaml)."""

    experiment: str  # its `+experiment`: the recipe
    presets: tuple[str, ...]  # its `model` list, in order: one row each
    variant: str  # the variant of its runs: the rows' own
    max_epochs: int
    patience: int
    encoder: str | None  # its `model.net.encoder`, where it names one
    other: tuple[str, ...]  # its other settings, `key=value`

    def budget(self) -> str:
        """The page's sentence on these rows' budget."""
        encoder = f"`{ENCODER_KEY}={self.encoder}`, " if self.encoder else ""
        other = f", with {', '.join(f'`{o}`' for o in self.other)}" if self.other else ""
        return (f"budget `{self.variant}` ({encoder}`+experiment={self.experiment}`, BERSON's "
                f"published NIPS recipe{other}): at most {self.max_epochs} epochs with the "
                f"learning rate decaying to zero at the last, early stopping after "
                f"{self.patience} and selection as above")


@functools.cache
def pretrained_sweep(name: str = PRETRAINED_SWEEPS[0]) -> PretrainedSweep:
    """What a pretrained rows' sweep file says (read once)."""
    params = sweep_params(name)
    encoder = params.get(ENCODER_KEY)
    return PretrainedSweep(
        str(params["+experiment"]), tuple(row.preset for row in preset_rows(name)),
        str(sweep(name)["variant"]), int(params["trainer.max_epochs"]),
        int(params["early_stopping.patience"]), None if encoder is None else str(encoder),
        tuple(f"{key}={value}" for key, value in params.items() if key not in RECIPE_KEYS),
    )


@functools.cache
def rows() -> tuple[Row, ...]:
    """The page's rows: one per experiment of the NIPS sweep, then one per preset of each
    pretrained sweep at that sweep's variant (`studies.cui2018.rows`)."""
    return experiment_rows(PAGE_SWEEP) + tuple(
        row for name in PRETRAINED_SWEEPS for row in preset_rows(name))


def row_runs(runs: Sequence[Run], variant: str) -> dict[Row, list[Run]]:
    """The finished runs of every row (sorted by seed); a row without runs is absent."""
    found = {}
    for row in rows():
        members = [run for run in runs if run.dataset == DATASET and run.preset == row.preset
                   and run.variant == row.run_variant(variant)]  # fmt: skip
        if members:
            found[row] = sorted(members, key=lambda run: run.seed)
    return found


def comparisons(reference: str) -> list[tuple[Row, Row]]:
    """(row, the row it is compared with), in the page's order: every row against the row
    of the preset `reference`; each row of a sweep that names an encoder also against the
    row of its preset with the preset's own encoder (the MiniLM row of its head)."""
    named = next(row for row in rows() if row.preset == reference)
    pairs = []
    for row in rows():
        if row != named:
            pairs.append((row, named))
        own = next((other for other in rows() if other.preset == row.preset
                    and other.variant is not None and other.encoder is None), None)  # fmt: skip
        if row.encoder is not None and own is not None and own != named:
            pairs.append((row, own))
    return pairs


def _valid_tau(runs: Sequence[Run]) -> float:
    values = [run.record["split"].get("valid", {}).get("tau") for run in runs]
    values = [v for v in values if isinstance(v, (int, float))]
    return float(np.mean(values)) if values else math.nan


def row_entry(row: Row, runs: Sequence[Run], seeded: SeededRow, variant: str,
              n_resamples: int, profile: dict) -> dict:
    """A row's line of the table: every figure of `METRICS` (mean and std over seeds, the
    interval over seeds and documents, the paper's figure and our difference), how its runs
    stopped, their cost and commits."""
    interval = seeded_interval(seeded, n_resamples, seed=0)
    per_seed = seeded.seed_figures()  # (S, K): every seed's figures, from its predictions
    entry = {"row": row.label, "preset": row.preset, "variant": row.run_variant(variant),
             "runs": len(runs), "seeds": ",".join(str(r.seed) for r in runs),
             "valid_tau": _valid_tau(runs)}  # fmt: skip
    for metric, (scale, _) in METRICS.items():
        values = per_seed[:, seeded.keys.index(metric)] * scale
        cell = interval.get(metric, {})
        published = NIPS.get(row.paper, {}).get(metric) if row.paper else None
        mean = cell.get("mean", math.nan) * scale
        entry |= {
            f"{metric}_mean": mean,
            f"{metric}_std": float(np.std(values, ddof=1)) if len(values) > 1 else math.nan,
            f"{metric}_ci_low": cell.get("ci_low", math.nan) * scale,
            f"{metric}_ci_high": cell.get("ci_high", math.nan) * scale,
            f"{metric}_published": published,
            f"{metric}_diff": mean - published if published is not None else math.nan,
        }
    entry["stopped_by"] = ",".join(sorted({r.record.get("stopped_by", "?") for r in runs}))
    entry["best_epoch"] = float(np.mean([r.record.get("best_epoch") or 0 for r in runs]))
    entry |= run_cost(runs, profile)
    entry["commits"] = " ".join(sorted({short_commit(r.record.get("git_commit", "unknown"))
                                        for r in runs}))  # fmt: skip
    return entry | {KEPT: False}


def build(runs: Sequence[Run], variant: str = VARIANT, n_resamples: int = N_RESAMPLES,
          reference: str = NIPS_REFERENCE, earlier: Earlier | None = None,
          ) -> tuple[pd.DataFrame, dict]:  # fmt: skip
    """The table (one line per row of `rows()` with runs, or with a line of the page's
    `earlier` table where it has none: `nips_kept`) and the paired tests (`paired_tests`);
    the reference preset is checked first (a wrong key costs no bootstrap)."""
    presets = [row.preset for row in rows()]
    if reference not in presets:
        raise ValueError(f"reference={reference}: no row of the NIPS page has this preset "
                         f"(one of {', '.join(presets)})")
    earlier = earlier or Earlier.none()
    groups = row_runs(runs, variant)
    records, loaded = [], {}
    profile = load_profile()  # for the GPU estimates, read once
    for row in rows():
        if row not in groups:
            kept = kept_line(earlier.table, preset=row.preset, variant=row.run_variant(variant))
            if kept is not None:
                records.append(kept | {"row": row.label})
            continue
        loaded[row] = load_row(groups[row])
        records.append(row_entry(row, groups[row], loaded[row], variant, n_resamples, profile))
    table = pd.DataFrame(records)
    return table, paired_tests(table, groups, loaded, n_resamples, reference, earlier.tests,
                               variant)  # fmt: skip


def paired_tests(table: pd.DataFrame, groups: dict, loaded: dict, n_resamples: int,
                 preset: str, earlier: pd.DataFrame | None = None,
                 variant: str = VARIANT) -> dict:  # fmt: skip
    """Every comparison of `comparisons(preset)` whose two rows are complete: the tau
    difference, its interval and p, counting seeds and documents, computed where both rows
    have their runs here, else kept from the page's `earlier` tests (`nips_kept`); Holm's p
    over all of them. Nothing is compared before the reference row is complete."""
    complete = set() if table.empty else set(table.loc[table["runs"] >= MIN_RUNS, "row"])
    named = next(row for row in rows() if row.preset == preset)
    if named.label not in complete:
        return {"reference": None, "reference_preset": preset, "tests": []}
    earlier = pd.DataFrame() if earlier is None else earlier
    tests = []
    for row, against in comparisons(preset):
        if row.label not in complete or against.label not in complete:
            continue
        key = {"row_preset": row.preset, "row_variant": row.run_variant(variant),
               "against_preset": against.preset, "against_variant": against.run_variant(variant)}
        test = {"row": row.label, "against": against.label, **key, KEPT: False}
        if row in loaded and against in loaded:
            try:
                require_pairable(row.label, groups[row][0].record, against.label,
                                 groups[against][0].record)  # fmt: skip
                tau = compare_seeded(loaded[row], loaded[against], n_resamples)["tau"]
                test |= {k: tau[k] for k in ("diff", "ci_low", "ci_high", "p")}
            except (IncomparableRunsError, ValueError) as error:
                test["error"] = str(error)
        elif (kept := kept_line(earlier, **key)) is not None:
            test |= {k: kept[k] for k in ("diff", "ci_low", "ci_high", "p")} | {KEPT: True}
        else:
            test["error"] = "the runs of one side are not in this runs folder (no kept test)"
        tests.append(test)
    compared = [test for test in tests if "error" not in test]
    for test, p_holm in zip(compared, holm([test["p"] for test in compared]), strict=True):
        test["p_holm"] = float(p_holm)
    return {"reference": named.label, "reference_preset": preset, "tests": tests}


# keys that name a run's place rather than what it computes (left out of "what changed")
PLACE_KEYS = ("variant", "variant_tag")


def ablation_pairs(runs: Sequence[Run], variant: str = VARIANT) -> list[tuple[Run, Run]]:
    """(row run, other run): each NIPS run of a row's preset whose variant is no row's (an
    ablation: a named change, such as a longer budget as a shorter one's evidence), beside
    the run of its seed in a row of its preset: one of its own encoder first, then the one
    it differs from in the fewest keys."""
    row_keys = {(row.preset, row.run_variant(variant)) for row in rows()}
    base = {(run.preset, run.variant, run.seed): run for run in runs
            if run.dataset == DATASET and (run.preset, run.variant) in row_keys}  # fmt: skip
    pairs = []
    for run in runs:
        if run.dataset != DATASET or (run.preset, run.variant) in row_keys:
            continue
        candidates = [base[key] for row in rows() if row.preset == run.preset
                      if (key := (run.preset, row.run_variant(variant), run.seed)) in base]
        if candidates:  # min keeps the first of equals: rows in the page's order
            pairs.append((min(candidates, key=lambda row_run: (
                row_run.config_value(ENCODER_KEY) != run.config_value(ENCODER_KEY),
                len(changes(row_run, run)))), run))
    return sorted(pairs, key=lambda pair: (pair[1].preset, pair[1].variant, pair[1].seed))


def changes(base: Run, other: Run) -> list[str]:
    """The config keys where `other` differs from `base`, as `key=value` (place keys out)."""
    changed = changed_keys(identity_config(base.record["config"]),
                           identity_config(other.record["config"]))  # fmt: skip
    return [f"{key}={now!r}" for key, _, now in changed if key.split(".")[0] not in PLACE_KEYS]


def what_changed(base: Run, other: Run) -> str:
    """`changes` as the page writes them."""
    return ", ".join(changes(base, other)) or "nothing (a rerun)"


def ablation_table(runs: Sequence[Run], variant: str = VARIANT,
                   n_resamples: int = N_RESAMPLES, earlier: Earlier | None = None,
                   ) -> pd.DataFrame:  # fmt: skip
    """One row per ablation run: tau of the row's run and of the ablation on the same seed,
    their difference paired on the test documents (one run a side: documents only); then
    the ablations of the page's `earlier` table whose runs are not here (`nips_kept`)."""
    records = []
    pairs = ablation_pairs(runs, variant)
    for base, other in pairs:
        tau = compare_runs(other.path, base.path, n_resamples=n_resamples)["metrics"]["tau"]
        records.append({
            "preset": other.preset, "variant": other.variant, "seed": other.seed,
            "changed": what_changed(base, other), "base_variant": base.variant,
            "tau_base": tau["b"], "tau": tau["a"], "diff": tau["diff"],
            "ci_low": tau["ci_low"], "ci_high": tau["ci_high"], "p": tau["p_permutation"],
            KEPT: False,
        })  # fmt: skip
    live = {(other.preset, other.variant, other.seed) for _, other in pairs}
    earlier = earlier or Earlier.none()
    return pd.DataFrame(records + kept_lines(earlier.ablations, ("preset", "variant", "seed"),
                                             live))  # fmt: skip


def ablation_lines(ablations: pd.DataFrame) -> list[str]:
    """The ablation section of the page (nothing when there is no ablation run)."""
    if ablations.empty:
        return []
    lines = [
        "", "## Ablations", "",
        "Runs of a row's preset with a named change (`+ablation=...`, a key, or a budget as "
        "the evidence for a row's shorter one), beside the run of the same seed in the row of "
        "that preset and their own encoder, else the row they differ from least: tau, the "
        "difference paired on the test documents with its 95% interval and permutation p (one "
        "run a side, so document variation only; `orderbench compare` gives the same figures; "
        "† kept from the page's earlier table, its runs not in this runs folder).",
        "",
        "| preset | variant | what changed | seed | tau, row's run | tau | Δ tau [95% CI] | p |",
        "|---|---|---|---:|---:|---:|---|---:|",
    ]
    for _, r in ablations.iterrows():
        lines.append(
            f"| {r['preset']}{' †' if r.get(KEPT) else ''} | `{r['variant']}` | "
            f"`{r['changed']}` | {r['seed']} | "
            f"{r['tau_base']:.3f} | {r['tau']:.3f} | {r['diff']:+.3f} "
            f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] | {r['p']:.3g} |"
        )
    return lines



def _cell(r: pd.Series, metric: str) -> str:
    """Ours: mean ± std over seeds [interval over seeds and documents], beside the paper's
    figure of the row's model where it gives one (our difference; ✓: inside our interval).
    A figure a kept line lacks (computed since) is —; an interval it lacks is left out."""
    scale, _ = METRICS[metric]
    digits = 2 if scale == 100.0 else 3
    mean = r.get(f"{metric}_mean", math.nan)
    if pd.isna(mean):
        return "—"
    text = shown(mean, digits)
    if r["runs"] > 1:  # one seed has no spread over seeds
        text += f" ± {shown(r[f'{metric}_std'], digits)}"
    low, high = r.get(f"{metric}_ci_low", math.nan), r.get(f"{metric}_ci_high", math.nan)
    if not (pd.isna(low) or pd.isna(high)):
        text += f" [{shown(low, digits)}, {shown(high, digits)}]"
    published = r.get(f"{metric}_published")
    if published is None or pd.isna(published):
        return text
    inside = " ✓" if low <= published <= high else ""
    return f"{text} vs {shown(published, digits)} ({r[f'{metric}_diff']:+.{digits}f}{inside})"


def table_lines(table: pd.DataFrame) -> list[str]:
    """The rows (every row of `rows()`, one without a line shown as 0 runs), then the
    published figures, each in the column of its convention."""
    columns = " | ".join(name for _, name in METRICS.values())
    lines = [f"| row | runs | {columns} | stopped | best epoch |",
             "|---|---:|" + "---|" * len(METRICS) + "---|---:|"]
    by_label = {r["row"]: r for _, r in table.iterrows()}
    for row in rows():  # a row without a finished run is listed too, never left out
        r = by_label.get(row.label)
        if r is None:
            lines.append(f"| {row.label} | 0 of {MIN_RUNS} |" + " — |" * (len(METRICS) + 2))
            continue
        runs = f"{r['runs']} of {MIN_RUNS}" if r["runs"] < MIN_RUNS else str(r["runs"])
        cells = " | ".join(_cell(r, metric) for metric in METRICS)
        lines.append(f"| {marked(r)} | {runs} | {cells} | {r['stopped_by']} | "
                     f"{r['best_epoch']:.1f} |")
    lines += ["", "Published figures, each in the column of its convention (the source: the "
              "paper or log, and the evaluation code whose convention it is):", "",
              f"| published | test set | {columns} | source |",
              "|---|---|" + "---:|" * len(METRICS) + "---|"]
    for peer in PEERS:
        cells = " | ".join(peer.figures.get(metric, "—") for metric in METRICS)
        lines.append(f"| {peer.label} | {peer.on} | {cells} | {peer.source} |")
    return lines


def test_lines(tests: dict) -> list[str]:
    """The paired tests: one table, Holm over all its comparisons."""
    if tests["reference"] is None:
        return [f"The reference row (`reference={tests['reference_preset']}`) has fewer than "
                f"{MIN_RUNS} finished runs: nothing is compared yet."]
    compared = sum("error" not in test for test in tests["tests"])
    lines = [
        f"Reference: **{tests['reference']}** (`reference={tests['reference_preset']}`, named "
        "before any test figure). Tau difference of each complete row from the row it is "
        "compared with (every row with the reference; a BERT-base-sized row also with the "
        "MiniLM row of its head), paired on the test documents, counting seed and document "
        "variation (`benchmark.stats.seeded_paired`), p-values Holm-corrected over the "
        f"page's {compared} comparisons. † kept from the page's earlier table "
        "(`reproduction_nips_tests.csv`): computed while the row's runs were at hand.",
        "",
        "| row | against | Δ tau [95% CI] | p | Holm p |",
        "|---|---|---|---:|---:|",
    ]
    for test in tests["tests"]:
        name = f"{test['row']}{' †' if test[KEPT] else ''}"
        if "error" in test:
            lines.append(f"| {name} | {test['against']} | not compared: {test['error']} | | |")
            continue
        lines.append(
            f"| {name} | {test['against']} | {test['diff']:+.3f} [{test['ci_low']:+.3f}, "
            f"{test['ci_high']:+.3f}] | {test['p']:.3g} | {test['p_holm']:.3g} |"
        )
    return lines


def markdown(table: pd.DataFrame, tests: dict, variant: str, commits: Sequence[str],
             ablations: pd.DataFrame | None = None, presentation: Sequence[str] = ()) -> str:
    """The page (`presentation`: its section of `nips_presentation.presentation_lines`)."""
    budgets = "; ".join(pretrained_sweep(name).budget() for name in PRETRAINED_SWEEPS)
    kept = table[table[KEPT].astype(bool)] if KEPT in table else table.iloc[0:0]
    lines = [
        "# NIPS abstracts: Cui et al. 2018, Table 3, NIPS column, and the pretrained encoders",
        "",
        "Our runs on the NIPS abstracts of the SE-Graph split ("
        + " / ".join(f"{n:,}" for n in NSEG_SOURCE.sizes.values()) + " abstracts; "
        "`dataset=nips`, `+reproduce=nips`) beside Cui et al. 2018, Table 3 (accuracy %, tau; "
        "their split: 2,248 / 409 / 402), the log of the SE-Graph authors' code on this "
        "very split, and B-TSort's and BERSON's published NIPS figures. Budget "
        f"`{variant}`: at most 100 epochs, early stopping after 15 without a better valid tau, "
        "the same for every 2018-era preset, fixed before any test figure; 3 seeds. The "
        f"pretrained paragraph encoders: {budgets}; each chosen before any of their test "
        "figures (docs/reproduction_nips.md says why it is a fair comparison). Each cell: "
        "mean ± std over seeds [95% interval over seeds and test documents] vs the published "
        "figure of the row's model in Cui et al. 2018 (ours - published; ✓: inside our "
        "interval).",
        "",
        "**Conventions** (docs/metrics.md, \"Which paper uses which\", read from each paper's "
        "evaluation code). Accuracy *per document* is the mean over abstracts of the share of "
        "sentences at their gold position (our `acc`; ATTOrderNet's code, so Cui et al. "
        "2018's figures); *pooled*, the sentences at their gold position over all sentences "
        "of the test split (our `acc_pooled`; the code of SE-Graph, B-TSort and Re-BART). "
        "LCS *pooled*: the lengths of the longest common subsequences over all sentences "
        "(`lcs_pooled`; B-TSort's and Re-BART's code). Tau is a mean over abstracts and PMR "
        "a share of abstracts in every paper. Each published figure stands in the column of "
        "its convention, beside ours in the same one.",
        "",
        *table_lines(table),
    ]
    if not kept.empty:
        lines += ["", "† A row whose runs are not in the runs folder the page is made from "
                  "(gone with their machines before their records were archived): its line is "
                  "kept from the page's earlier table (`reproduction_nips.csv`; the figures "
                  "of its records, made at " + _commits(kept["commits"]) + "); a figure "
                  "computed since (an interval of a pooled figure, a pooled LCS) is — or left "
                  "out there."]
    lines += ["", "## Paired tests", "", *test_lines(tests)]
    lines += ablation_lines(pd.DataFrame() if ablations is None else ablations)
    lines += list(presentation)
    lines += ["", "## Cost", "", *cost_lines(table, MIN_RUNS)]
    lines += ["", "Made by `make nips` (the sweeps, then `orderbench study cui2018-nips`) at "
              + ", ".join(f"`{commit}`" for commit in commits)
              + " (`+dirty`: made from a working tree with changes not committed)."]
    return "\n".join(lines) + "\n"


def _commits(values: pd.Series) -> str:
    found = sorted({commit for value in values.dropna() for commit in str(value).split()})
    return ", ".join(f"`{commit}`" for commit in found) or "commits unrecorded"


def write(runs_dir: Path, out: Path, variant: str = VARIANT, presentations: int = 0,
          reference: str = NIPS_REFERENCE, decode=decode_presented) -> list[Path]:
    """The page and its tables in `out`, the lines of rows without runs here kept from the
    tables already there (`nips_kept`); with `presentations` N, every run of a row that
    reads the presented order is decoded again under N other presentations first, with
    `decode` (`studies.cui2018.nips_presentation`; figures an earlier page kept are reused;
    a None from `decode` leaves that run unmeasured)."""
    runs = collect_runs(runs_dir)
    earlier = Earlier.read(out)
    table, tests = build(runs, variant, reference=reference, earlier=earlier)
    if table.empty or table[KEPT].astype(bool).all():
        raise ValueError(f"{runs_dir}: no finished NIPS run of variant {variant}")
    groups = row_runs(runs, variant)
    presented = presentation_figures(groups, presentations, read_known(out / PRESENTATION_CSV),
                                     decode)
    commits = sorted({short_commit(run.record.get("git_commit", "unknown")) for run in runs
                      if run.dataset == DATASET})  # fmt: skip
    ablations = ablation_table(runs, variant, earlier=earlier)
    return atomic_write_group(out, {
        TABLE_CSV: table.to_csv(index=False, float_format="%.6g"),
        TESTS_CSV: pd.DataFrame(tests["tests"]).to_csv(index=False, float_format="%.6g"),
        ABLATIONS_CSV: ablations.to_csv(index=False, float_format="%.6g"),
        PRESENTATION_CSV: presented.to_csv(index=False, float_format="%.6g"),
        MARKDOWN_NAME: markdown(table, tests, variant, commits, ablations,
                                presentation_lines(groups, presented)),
    })  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    return COMMAND.run(argv, _write_page)


def _write_page(args: dict) -> int:
    decode = PresentedDecoder(COMMAND.prog)  # a run it cannot decode is named after the page
    try:
        with warnings_printed(COMMAND.prog):  # the runs left out, and why
            written = write(Path(args["runs"]), Path(args["out"]), args["variant"],
                            args["presentations"], args["reference"], decode)
    except (ValueError, FileNotFoundError) as error:  # no runs folder, no finished run, ...
        return report_error(COMMAND.prog, error)
    for path in written:
        print(path)
    return decode.report_failed(Path(args["out"]) / PRESENTATION_CSV)


if __name__ == "__main__":
    raise SystemExit(main())
