"""The interactive charts of the results site (`benchmark.report.site`), as Vega-Lite specs
made with Altair, and the script that draws them (Vega, Vega-Lite and Vega-Embed in one
file, from the `vl-convert-python` package: shipped inside the site, never fetched):

- `cost_chart`: test tau of each leaderboard row of one table (its 95% interval over test
  documents) against its training minutes and its parameters;
- `ablation_chart`: tau and pmr across the levels of an ablation study
  (`benchmark.report.ablations`: the levels the PNG plots draw), the seeds as dots;
- `curves_chart`: a run's figures per epoch: the CPU seconds its record holds and the
  curves of its CSV log where the run folder keeps one.

Each chart zooms and pans, names its points on hover, and saves itself as PNG or SVG from its
menu; `orderbench plots` still draws the PNGs for papers. The charts use each preset's
colour of the PNG plots (`benchmark.report.plot_style`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import altair as alt
import pandas as pd

from benchmark.records.atomic_io import atomic_write_bytes
from benchmark.records.run_collection import Run
from benchmark.report.ablation_studies import Ablation
from benchmark.report.leaderboard import RANK_METRIC, summarise_row
from benchmark.report.plot_style import metric_label, preset_colour
from benchmark.report.plots import ABLATION_METRICS, level_label
from data.paths import CACHE_ROOT

BUNDLE_CACHE = CACHE_ROOT / "site"  # the charting bundle, made once per version
WIDTH, HEIGHT = 320, 240


def _finite(value) -> float | None:
    """A figure for a chart's data: None where undefined (JSON has no NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def _colours(presets: Sequence[str]) -> alt.Scale:
    names = list(dict.fromkeys(presets))
    return alt.Scale(domain=names, range=[preset_colour(name) for name in names])


def cost_chart(rows: Sequence[Mapping]) -> dict | None:
    """Tau against training minutes and parameters, one point per leaderboard row of one
    table (`rows`: its columns); None when no row has a training time or a size."""
    data = pd.DataFrame([{
        "row": f"{row['preset']}/{row['variant']}", "preset": row["preset"],
        "tau": _finite(row[f"{RANK_METRIC}_mean"]),
        "low": _finite(row[f"{RANK_METRIC}_ci_docs_low"]),
        "high": _finite(row[f"{RANK_METRIC}_ci_docs_high"]),
        "minutes": _finite(row["train_minutes"]), "params": _finite(row["n_params"]),
        "seeds": int(row["n_seeds"]),
    } for row in rows])  # fmt: skip
    panels = []
    for column, title in (("minutes", "training minutes (wall, mean over seeds)"),
                          ("params", "parameters")):
        shown = data[data[column].notna() & (data[column] > 0) & data["tau"].notna()]
        if shown.empty:
            continue
        x = alt.X(f"{column}:Q", title=title, scale=alt.Scale(type="log"))
        colour = alt.Color("preset:N", scale=_colours(data["preset"]))
        base = alt.Chart(shown).encode(x=x, color=colour)
        y = alt.Y("low:Q", title=metric_label(RANK_METRIC), scale=alt.Scale(zero=False))
        interval = base.mark_rule().encode(y=y, y2="high:Q")
        points = base.mark_circle(size=90).encode(
            y="tau:Q",
            tooltip=["row:N", alt.Tooltip("tau:Q", format=".3f"),
                     alt.Tooltip("low:Q", title="95% CI low", format=".3f"),
                     alt.Tooltip("high:Q", title="95% CI high", format=".3f"),
                     alt.Tooltip(f"{column}:Q", format=",.4~g"), "seeds:Q"])  # fmt: skip
        zoom = alt.selection_interval(bind="scales", name=f"zoom_{column}")
        panels.append((interval + points.add_params(zoom)).properties(width=WIDTH,
                                                                       height=HEIGHT))
    if not panels:
        return None
    return alt.hconcat(*panels).to_dict()


def _level_rows(levels: Mapping[object, list[Run]]) -> tuple[list[dict], list[dict]]:
    """(one row per level and metric: mean and interval; one row per seed and metric)."""
    means, seeds = [], []
    for order, (level, runs) in enumerate(levels.items()):
        label = level_label(level)
        for metric in ABLATION_METRICS:
            row = summarise_row(runs, [metric])
            means.append({"level": label, "order": order, "metric": metric,
                          "mean": _finite(row[f"{metric}_mean"]),
                          "low": _finite(row[f"{metric}_ci_docs_low"]),
                          "high": _finite(row[f"{metric}_ci_docs_high"]),
                          "seeds": len(runs)})  # fmt: skip
            seeds += [{"level": label, "order": order, "metric": metric, "seed": run.seed,
                       "value": _finite(run.metrics.get(metric))} for run in runs]
    return means, seeds


def ablation_chart(study: Ablation, levels: Mapping[object, list[Run]]) -> dict:
    """Tau and pmr across the levels of `study` (their runs on one dataset): the mean over
    seeds with its 95% interval over test documents, a dot per seed."""
    means, seeds = _level_rows(levels)
    level_order = list(dict.fromkeys(row["level"] for row in means))
    panels = []
    for metric in ABLATION_METRICS:
        x = alt.X("level:N", title=study.axis, sort=level_order)
        y_title = metric_label(metric)
        of_metric = [row for row in means if row["metric"] == metric]
        base = alt.Chart(pd.DataFrame(of_metric)).encode(x=x)
        bars = base.mark_bar(opacity=0.75).encode(
            y=alt.Y("mean:Q", title=y_title),
            tooltip=["level:N", alt.Tooltip("mean:Q", format=".3f"),
                     alt.Tooltip("low:Q", title="95% CI low", format=".3f"),
                     alt.Tooltip("high:Q", title="95% CI high", format=".3f"), "seeds:Q"])
        rules = base.mark_rule().encode(y="low:Q", y2="high:Q")
        dots = alt.Chart(pd.DataFrame([row for row in seeds if row["metric"] == metric])
                         ).mark_circle(color="black", size=30).encode(
            x=x, y="value:Q", tooltip=["level:N", "seed:Q", alt.Tooltip("value:Q", format=".3f")])
        panels.append((bars + rules + dots).properties(width=max(160, 60 * len(level_order)),
                                                       height=HEIGHT, title=metric))
    return alt.hconcat(*panels).properties(title=study.title).to_dict()


def curves_chart(curves: Mapping[str, Mapping[int, float]], best_epoch: int | None) -> dict | None:
    """A run's figures per epoch (series -> {epoch: value}), one panel per series with its
    own scale, the selected epoch marked; None without any."""
    data = pd.DataFrame([{"series": series, "epoch": epoch, "value": value}
                         for series, values in curves.items() for epoch, value in values.items()
                         if _finite(value) is not None])  # fmt: skip
    if data.empty:
        return None
    line = alt.Chart().mark_line(point=True).encode(
        x=alt.X("epoch:Q", title="epoch", axis=alt.Axis(tickMinStep=1)),
        y=alt.Y("value:Q", title=None, scale=alt.Scale(zero=False)),
        tooltip=["series:N", "epoch:Q", alt.Tooltip("value:Q", format=",.4~g")])
    layers = [line]
    if best_epoch:
        layers.append(alt.Chart().mark_rule(strokeDash=[4, 3], color="grey").encode(
            x=alt.datum(best_epoch)))
    chart = alt.layer(*layers, data=data).properties(width=WIDTH * 2, height=110)
    return chart.facet(row=alt.Row("series:N", title=None, sort=list(curves))).resolve_scale(
        y="independent").to_dict()


def _vegalite_version() -> str:
    """The Vega-Lite version of Altair's specs, as `vl-convert-python` names its bundles."""
    import vl_convert

    wanted = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    known = vl_convert.get_vegalite_versions()
    return wanted if wanted in known else known[-1]


def bundle_name() -> str:
    """The file name of the script that draws the charts: its libraries' versions."""
    import vl_convert

    return (f"vega-{vl_convert.get_vega_version()}-lite-{_vegalite_version()}-embed-"
            f"{vl_convert.get_vega_embed_version()}.js")


def vega_bundle(previous: Path | None = None) -> bytes:
    """The script that draws the charts (`bundle_name`): Vega, Vega-Lite (the version of
    Altair's specs) and Vega-Embed, from `vl-convert-python` (two seconds to make), kept in
    the git-ignored cache (`BUNDLE_CACHE`); the file of an earlier build is taken again when
    `previous` (its assets folder) or the cache holds it."""
    import vl_convert

    name = bundle_name()
    for folder in (previous, BUNDLE_CACHE):
        if folder is not None and (folder / name).is_file():
            return (folder / name).read_bytes()
    bundle = vl_convert.javascript_bundle(vl_version=_vegalite_version()).encode("utf-8")
    try:
        atomic_write_bytes(BUNDLE_CACHE / name, lambda handle: handle.write(bundle))
    except OSError:  # a read-only checkout: made again next time
        pass
    return bundle
