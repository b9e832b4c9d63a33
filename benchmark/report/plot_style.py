"""Shared look of the result plots: one colour per preset, metric axis labels, PNG output.

Figures are drawn on matplotlib's Agg canvas directly (no pyplot, no display, no global
backend switch), so plotting works on headless machines and inside other programs.
"""

from __future__ import annotations

import zlib
from pathlib import Path

from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from benchmark.metrics.directions import LOWER, NOT_RANKED, direction
from benchmark.metrics.registry import METRICS
from benchmark.records.atomic_io import atomic_write
from models.registry import preset_colours

# One colour per preset, the same in every plot: the registry's (`models.registry`), which
# gives a free colour to a preset that picks none; a name the registry does not know (a run
# of a preset defined elsewhere) gets a stable colour from tab20 by a hash of the name.
PRESET_COLOURS: dict[str, str] = preset_colours()
# Axis label (name and range or unit) of each metric that declares one (the registry's)
METRIC_LABELS: dict[str, str] = {m.key: m.label for m in METRICS if m.label is not None}
DPI = 120


def preset_colour(preset: str) -> str:
    """The colour of `preset` in every plot."""
    if preset in PRESET_COLOURS:
        return PRESET_COLOURS[preset]
    tab20 = colormaps["tab20"].colors
    return to_hex(tab20[zlib.crc32(preset.encode("utf-8")) % len(tab20)])


def metric_label(metric: str) -> str:
    """Axis label of `metric`, saying when lower is better or when it is not ranked."""
    label = METRIC_LABELS.get(metric, metric)
    way = direction(metric)
    return label + {LOWER: ", lower is better", NOT_RANKED: " (not ranked)"}.get(way, "")


def new_figure(panels: int, width: float = 4.2, height: float = 3.8) -> tuple[Figure, list]:
    """A figure with `panels` axes side by side, on the Agg canvas."""
    figure = Figure(figsize=(width * panels, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, panels, squeeze=False)[0]
    return figure, list(axes)


def save_png(figure: Figure, path: Path) -> Path:
    """Write `figure` to `path` as PNG atomically (temporary file + rename)."""
    return atomic_write(path, lambda tmp: figure.savefig(tmp, format="png"))
