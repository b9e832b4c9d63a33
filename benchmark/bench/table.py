"""The benchmark record as readable tables (Markdown, padded to line up on a terminal)."""

from __future__ import annotations

from collections.abc import Sequence


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table, columns padded to a common width: the first left-aligned, the
    others (figures) right-aligned."""
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        cells = zip(cells, widths, strict=True)
        padded = [c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(cells)]
        return "| " + " | ".join(padded) + " |"

    rule = "|:" + "-" * (widths[0] + 1) + "|" + "|".join("-" * (w + 1) + ":" for w in widths[1:])
    return "\n".join([line(headers), rule + "|", *(line(row) for row in rows)])


def _number(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def throughput_table(record: dict) -> str:
    """Training and decoding throughput, data-loading share and peak memory per preset."""
    beams = record["settings"]["beams"]
    headers = [
        "preset",
        "trainable params",
        "train docs/s",
        "train tok/s",
        "step ms",
        "loading",
        "train MiB",
        *(f"decode docs/s b{beam}" for beam in beams),
        "decode MiB",
    ]
    rows = []
    for preset, result in record["presets"].items():
        if result["status"] != "ok":
            continue
        train = result.get("train", {})
        by_beam = result["decode"]["by_beam"]
        rows.append(
            [
                preset,
                f"{result['trainable_params'] / 1e6:.2f}M",
                _number(train.get("docs_per_s")),
                _number(train.get("tokens_per_s"), 0),
                _number(train.get("step_ms")),
                "—" if not train else f"{100 * train['load_share']:.1f}%",
                _number(train.get("peak_memory_mb"), 0),
                *(_number(by_beam.get(str(beam), {}).get("docs_per_s")) for beam in beams),
                _number(result["decode"]["peak_memory_mb"], 0),
            ]
        )
    return markdown_table(headers, rows)


def scaling_table(record: dict) -> str:
    """Search time per document as paragraphs and beams grow: at each point the time and
    the local growth exponent from the previous point; per axis the fitted exponent over
    the points after the first against its limit."""
    settings = record["settings"]
    lengths, beams = settings["lengths"], settings["beams"]
    headers = [
        "preset",
        *(f"n={n} ms (exp)" for n in lengths),
        "n exponent (limit)",
        *(f"b={beam} ms (exp)" for beam in beams),
        "K exponent (limit)",
    ]
    rows = []
    for preset, result in record["presets"].items():
        if "scaling" in result:
            growth = result["scaling"]
            rows.append(
                [
                    preset,
                    *_points(growth["length"], lengths),
                    _exponent(growth["length"]),
                    *_points(growth["beam"], beams),
                    _exponent(growth["beam"]),
                ]
            )
    return markdown_table(headers, rows)


def _points(growth: dict, points: Sequence[int]) -> list[str]:
    """'ms' at the first point, 'ms (local exponent from the previous point)' after it."""
    cells = [f"{growth['ms_per_doc'][str(points[0])]:.2f}"]
    for previous, point in zip(points, points[1:], strict=False):
        local = growth["local_exponent"][f"{previous}-{point}"]
        cells.append(f"{growth['ms_per_doc'][str(point)]:.2f} ({local:.2f})")
    return cells


def _exponent(growth: dict) -> str:
    """'slope (limit) ok|OVER' of the fitted exponent, '—' when there is none."""
    if growth["exponent"] is None:
        return "—"
    verdict = "ok" if growth["within_bound"] else "OVER"
    return f"{growth['exponent']:.2f} ({growth['exponent_limit']:g}) {verdict}"


def reference_table(record: dict) -> str:
    """Batched search against the one-document reference, per preset and beam."""
    headers = [
        "preset",
        "beam",
        "reference ms/doc",
        "batched ms/doc",
        "speed-up",
        "mismatches (synthetic)",
        "mismatches (test sample)",
    ]
    rows = []
    for preset, result in record["presets"].items():
        if "reference" not in result:
            continue
        reference = result["reference"]
        for beam, figures in reference["by_beam"].items():
            rows.append(
                [
                    preset,
                    beam,
                    _number(figures["reference_ms_per_doc"], 2),
                    _number(figures["batched_ms_per_doc"], 2),
                    f"{figures['speedup']:.1f}x",
                    f"{figures['mismatches']}/{reference['docs']}",
                    f"{reference['test_sample']['mismatches'][beam]}/"
                    f"{reference['test_sample']['docs']}",
                ]
            )
    return markdown_table(headers, rows)
