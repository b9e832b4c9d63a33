"""The page of one corpus on the results site (`benchmark.report.site`): its leaderboard,
one table per protocol (rows of two protocols are never ranked together: docs/design.md,
section 3), each figure with its 95% interval, sortable by any column and filtered by
protocol and budget; the paired tests of its rows against the table's reference; the cost
and ablation charts; every run with its page; the records refused, named with the line that
says why and never shown as a result.

The figures are the leaderboard's (`benchmark.report.leaderboard.build_leaderboard`, its
columns documented there); nothing here ranks, tests or pools again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from benchmark.records.comparability import budget_differences, budget_of
from benchmark.records.run_collection import LeftOut, Run, group_runs, metric_order
from benchmark.report.ablation_studies import ablation_studies
from benchmark.report.ablations import ablation_levels, compared_levels
from benchmark.report.leaderboard import MAIN_METRICS, docs_interval
from benchmark.report.leaderboard_markdown import VERDICT_MARKS, p_value_text, params_text
from benchmark.report.plot_style import metric_label
from benchmark.report.site_charts import ablation_chart, cost_chart
from benchmark.report.site_html import (
    MISSING,
    cell,
    chart,
    digest,
    esc,
    is_missing,
    number,
    run_page,
    short_commit,
    table,
)

ONE_PROTOCOL = "the corpus's one protocol"


@dataclass(frozen=True)
class Corpus:
    """What a corpus page shows: its runs, their leaderboard, its notes and refusals."""

    dataset: str
    runs: list[Run]
    board: pd.DataFrame  # `build_leaderboard` of `runs`
    notes: list[str]  # the leaderboard's warnings for this corpus
    refused: list[LeftOut]


def budget_label(record: Mapping) -> str:
    """A run's training budget in one line (`benchmark.records.comparability.budget_of`,
    the settings it has)."""
    budget = budget_of(record)
    return ", ".join(f"{key}={value}" for key, value in budget.items()
                     if value is not None and value != -1) or "unrecorded"  # fmt: skip


def _protocol_name(label: object) -> str:
    return ONE_PROTOCOL if is_missing(label) or not label else str(label)


def _figure(row: pd.Series, runs: Sequence[Run], metric: str) -> str:
    """The cell of one figure: mean ± std over seeds and its 95% interval over test
    documents (the runs' bootstrap intervals, averaged over seeds; for a main metric the
    seeds' Student-t interval too, in its title)."""
    mean, std = row.get(f"{metric}_mean"), row.get(f"{metric}_std")
    low, high = docs_interval(runs, metric)
    text = number(mean) + ("" if is_missing(std) else f" ± {number(std)}")
    interval = MISSING if is_missing(low) else f"[{number(low)}, {number(high)}]"
    title = f"{metric_label(metric)}: 95% interval over test documents {interval}"
    if metric in MAIN_METRICS and not is_missing(row.get(f"{metric}_ci_seeds_low")):
        title += (f"; over seeds (Student t) [{number(row[f'{metric}_ci_seeds_low'])}, "
                  f"{number(row[f'{metric}_ci_seeds_high'])}]")
    return cell(f'{esc(text)}<br><small class="ci">{esc(interval)}</small>', mean, title)


def _row_attrs(row: pd.Series, budget: str) -> str:
    return (f' data-protocol="{esc(_protocol_name(row["protocol"]))}"'
            f' data-budget="{esc(budget)}"')


def _seeds(runs: Sequence[Run], root: str) -> str:
    links = " ".join(f'<a href="{esc(root + run_page(run))}">{run.seed}</a>' for run in runs)
    return cell(links, len(runs), f"{len(runs)} seeds; each links to its run's page")


def _provenance(runs: Sequence[Run]) -> list[str]:
    configs = sorted({run.config_id or MISSING for run in runs})
    commits = sorted({short_commit(run.record.get("git_commit")) for run in runs})
    data = sorted({str(((run.record.get("identity") or {}).get("data") or {})
                       .get("documents_sha256") or "") for run in runs})  # fmt: skip
    return [cell(", ".join(f"<code>{esc(c)}</code>" for c in configs), configs[0]),
            cell(", ".join(f"<code>{esc(c)}</code>" for c in commits), commits[0]),
            cell(", ".join(digest(d) for d in data), data[0])]


def _board(rows: pd.DataFrame, groups: Mapping[tuple, list[Run]], metrics: Sequence[str],
           root: str) -> str:
    """The leaderboard table of one protocol."""
    headers = [("rank", "by mean test tau, within this table; empty: fewer seeds than "
                "the table's fullest row (not ranked, not compared)"),
               ("preset", ""), ("variant", ""), ("seeds", "")]
    headers += [(metric, metric_label(metric)) for metric in metrics]
    headers += [("params", ""), ("train min", "training minutes, mean over seeds (wall)"),
                ("epochs", "mean over seeds"), ("stopped by", ""),
                ("vs", "the row this one is compared with"),
                ("Δτ [95% CI]", "tau of this row minus the compared row, paired on the test "
                 "documents, seeds and documents counted"),
                ("p (Holm)", "two-sided, Holm-adjusted over the table's comparisons"),
                ("verdict", "▲ better, ▼ worse (Holm p < 0.05), = no difference, ref"),
                ("budget", ""), ("config", "config ids"), ("commit", "git commits"),
                ("data", "documents sha256")]  # fmt: skip
    lines = []
    for _, row in rows.iterrows():
        runs = groups[(row["dataset"], row["preset"], row["variant"])]
        budget = budget_label(runs[0].record)
        rank = row["rank"]
        diff = MISSING if is_missing(row["tau_diff"]) else \
            f"{row['tau_diff']:+.3f} [{row['tau_ci_low']:+.3f}, {row['tau_ci_high']:+.3f}]"
        verdict = row["verdict"]
        cells = [cell(MISSING if pd.isna(rank) else str(rank), None if pd.isna(rank) else rank),
                 cell(esc(row["preset"]), row["preset"]), cell(esc(row["variant"]), row["variant"]),
                 _seeds(runs, root)]  # fmt: skip
        cells += [_figure(row, runs, metric) for metric in metrics]
        cells += [cell(params_text(row["n_params"]), row["n_params"]),
                  cell(number(row["train_minutes"], 1), row["train_minutes"]),
                  cell(number(row["epochs"], 1), row["epochs"]),
                  cell(esc(str(row["stopped_by"]).replace(",", ", ")), row["stopped_by"]),
                  cell(esc(row["compared_with"] if not is_missing(row["compared_with"])
                           else MISSING), row["compared_with"]),
                  cell(diff, row["tau_diff"]), cell(p_value_text(row["tau_p_holm"]),
                                                    row["tau_p_holm"]),
                  cell(VERDICT_MARKS.get(verdict, MISSING) if not is_missing(verdict)
                       else MISSING, verdict, str(verdict) if not is_missing(verdict) else ""),
                  cell(esc(budget), budget), *_provenance(runs)]  # fmt: skip
        apart = "" if row["complete"] else ' class="apart"'
        lines.append(f"<tr{_row_attrs(row, budget)}{apart}>{''.join(cells)}</tr>")
    return table(headers, lines, attrs=' data-board="1"')


def _paired(rows: pd.DataFrame, groups: Mapping[tuple, list[Run]]) -> str:
    """The paired tests of one table: each compared row against its compared row."""
    reference = rows["reference"].dropna()
    rule = rows["reference_rule"].dropna()
    said = (f"<p>Reference: <b>{esc(reference.iloc[0])}</b> ({esc(rule.iloc[0])}, fixed "
            "before any test figure was read).</p>" if len(reference) else
            f"<p>No reference row: {esc(rule.iloc[0] if len(rule) else 'none')}.</p>")
    compared = rows[rows["compared_with"].notna()]
    if compared.empty:
        return said + "<p>No row is compared.</p>"
    lines = []
    for _, row in compared.iterrows():
        runs = groups[(row["dataset"], row["preset"], row["variant"])]
        other = next((members for key, members in groups.items()
                      if f"{key[1]}/{key[2]}" == row["compared_with"]), None)  # fmt: skip
        budgets = "; ".join(budget_differences(runs[0].record, other[0].record)) if other else ""
        lines.append(
            f"<tr{_row_attrs(row, budget_label(runs[0].record))}>"
            + cell(esc(f"{row['preset']}/{row['variant']}"))
            + cell(esc(row["compared_with"]))
            + cell(f"{row['tau_diff']:+.3f}", row["tau_diff"])
            + cell(f"[{row['tau_ci_low']:+.3f}, {row['tau_ci_high']:+.3f}]", row["tau_ci_low"])
            + cell(p_value_text(row["tau_p"]), row["tau_p"])
            + cell(p_value_text(row["tau_p_holm"]), row["tau_p_holm"])
            + cell(esc(row["verdict"]), row["verdict"])
            + cell(esc(budgets or "the same"), budgets) + "</tr>")
    headers = [("row", ""), ("compared with", ""), ("Δτ", "this row minus the compared row"),
               ("95% CI", "seeds and documents counted (benchmark.stats.seeded_paired)"),
               ("p", "two-sided"), ("Holm p", "adjusted over the table's comparisons"),
               ("verdict", ""), ("budgets", "where the two rows' training budgets differ")]
    return said + table(headers, lines)


def _ablations(runs: Sequence[Run]) -> str:
    """The ablation charts the runs allow (a study with runs at two or more settings)."""
    charts = []
    for study in ablation_studies():
        levels = ablation_levels(study, runs)
        if compared_levels(study, levels) > 1:
            charts.append(chart(f"ablation-{study.name}", ablation_chart(study, levels),
                                f"{esc(study.title)}: mean over seeds, its 95% interval over "
                                "test documents, a dot per seed (ablation study "
                                f"<code>{esc(study.name)}</code>)"))
    return "".join(charts) or "<p>No ablation study has runs at two or more settings here.</p>"


def _runs_table(runs: Sequence[Run], root: str) -> str:
    lines = [
        "<tr>" + cell(f'<a href="{esc(root + run_page(run))}">{esc(run.preset)}</a>', run.preset)
        + cell(esc(run.variant), run.variant) + cell(str(run.seed), run.seed)
        + cell(number(run.metrics.get("tau")), run.metrics.get("tau"))
        + _provenance([run])[0] + _provenance([run])[1] + "</tr>"
        for run in runs
    ]
    return table([("preset", ""), ("variant", ""), ("seed", ""), ("test tau", ""),
                  ("config", ""), ("commit", "")], lines)


def refused_list(refused: Sequence[LeftOut], root_dir: str) -> str:
    """The records left out, each with the line that says why (never a figure of them)."""
    if not refused:
        return "<p>None: every record found was checked and used.</p>"
    items = "".join(f"<li class=\"refused\"><code>{esc(_relative(item.path, root_dir))}</code>: "
                    f"{esc(item.reason)}</li>" for item in refused)
    return f"<ul>{items}</ul>"


def _relative(path, root_dir: str) -> str:
    text, prefix = str(path), root_dir.rstrip("/") + "/"
    return text[len(prefix):] if text.startswith(prefix) else text


def _filters(protocols: Sequence[str], budgets: Sequence[str]) -> str:
    def select(name: str, label: str, values: Sequence[str], every: str) -> str:
        options = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
        return (f'<label>{label} <select id="{name}-filter" data-filter="{name}">'
                f'<option value="">{every}</option>{options}</select></label>')

    return ('<div class="filters">' + select("protocol", "protocol", protocols, "every protocol")
            + select("budget", "budget", budgets, "every budget") + "</div>")


def corpus_body(corpus: Corpus, root: str, runs_root: str) -> str:
    """The body of the corpus page (`root` leads from it to the site's top folder)."""
    groups = group_runs(corpus.runs)
    metrics = metric_order(corpus.runs)
    board = corpus.board
    protocols = list(dict.fromkeys(_protocol_name(p) for p in board["protocol"]))
    budgets = sorted({budget_label(run.record) for run in corpus.runs})
    documents = sorted({int(n) for n in board["n_docs"].dropna()})
    parts = [f"<p>{len(corpus.runs)} runs in {len(board)} rows; "
             f"{', '.join(map(str, documents)) or MISSING} test documents; "
             f"{len(corpus.refused)} records refused. Each figure: mean ± std over seeds, "
             "below it its 95% interval over test documents; a click on a column header "
             "sorts by it.</p>", _filters(protocols, budgets)]
    for name in protocols:
        rows = board[[_protocol_name(p) == name for p in board["protocol"]]]
        title = "Leaderboard" if name == ONE_PROTOCOL else f"Leaderboard: {name}"
        cost = cost_chart([row for _, row in rows.iterrows()])
        parts += [f'<section class="protocol" data-protocol="{esc(name)}">',
                  f"<h2>{esc(title)}</h2>", _board(rows, groups, metrics, root),
                  "<h3>Paired tests against the reference</h3>", _paired(rows, groups),
                  "<h3>Cost</h3>",
                  chart(f"cost-{protocols.index(name)}", cost,
                        "Test tau of each row (its 95% interval over test documents) against "
                        "its training minutes and its parameters") if cost else
                  "<p>No row has a training time or a size.</p>", "</section>"]
    parts += ["<h2>Ablations</h2>", _ablations(corpus.runs),
              "<h2>Runs</h2>", _runs_table(corpus.runs, root),
              "<h2>Refused records</h2>", refused_list(corpus.refused, runs_root)]
    if corpus.notes:
        parts += ["<h2>Notes</h2><ul>", *(f"<li>{esc(note)}</li>" for note in corpus.notes),
                  "</ul>"]
    return "\n".join(parts)
