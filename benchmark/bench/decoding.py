"""Decoding throughput and how decoding time scales with paragraph length and beam width.

Decoding is the model's own batched search (`OrderingModel.search`: greedy at beam 1,
else beam search over all documents and beams at once), timed end to end: sentence and
paragraph encoding plus the N decoder steps. Beam search costs one decoder step on B*K
rows per output step, each scoring N candidates, over N steps, so its time should grow
no faster than K * N^2 (the HAN decoder's self-attention over the placed prefix is
within that too). `scaling` reports, per axis, the times, their ratios to the first point,
the local growth exponent between consecutive points, log(t2/t1) / log(x2/x1), and the
check: the least-squares slope of log time against log n (log K) over the points after
the first must not exceed 2 (1 for the beam) by more than `EXPONENT_TOLERANCE`. The first
point is left out of the fit because there fixed costs dominate (encoding, Python and
operator dispatch, and beams that never fill: at n = 5 a beam of 64 decodes 86 rows per
paragraph, not 320), so ratios to it overstate the growth; the exponent over the upper
range is what the asymptotic bound speaks about.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from benchmark.bench.inputs import synthetic_batch
from benchmark.bench.machine import peak_memory_mb, reset_peak_memory
from benchmark.bench.timing import autocast, seconds
from models.batch import to_device

EXPONENT_TOLERANCE = 0.2  # timing noise on a shared, loaded machine


def decode_throughput(
    net, batches: list[dict], beams: list[int], device: torch.device, precision: str, repeats: int
) -> tuple[dict, dict[int, list[Tensor]]]:
    """Documents per second through `net.decode` over `batches` at each beam width, the
    phase's peak memory, and the predicted orders (beam -> one (B, N) tensor per batch)."""
    net = net.to(device).eval()
    batches = [to_device(batch, device) for batch in batches]
    docs = sum(len(batch["n_sentences"]) for batch in batches)
    reset_peak_memory(device)
    figures, orders = {}, {}
    for beam in beams:

        def run(beam=beam):
            with autocast(device, precision):
                return [net.decode(batch, beam) for batch in batches]

        orders[beam] = run()  # warm-up
        time = seconds(run, device, repeats)
        figures[str(beam)] = {
            "docs_per_s": round(docs / time, 1),
            "ms_per_doc": round(1000 * time / docs, 3),
        }
    return {"docs": docs, "by_beam": figures, "peak_memory_mb": peak_memory_mb(device)}, orders


def timed_search(
    net, batch: dict, beam: int, device: torch.device, precision: str, repeats: int
) -> tuple[float, Tensor, Tensor]:
    """Milliseconds per document of `net.search(batch, beam)` (after a warm-up), and the
    search's orders (B, N) and log-probabilities (B,)."""

    def run():
        with autocast(device, precision):
            return net.search(batch, beam)

    orders, scores = run()  # warm-up
    time = seconds(run, device, repeats)
    return 1000 * time / len(batch["n_sentences"]), orders, scores


def scaling(
    net,
    vocab,
    lengths: list[int],
    beams: list[int],
    length: int,
    docs: int,
    device: torch.device,
    precision: str,
    repeats: int,
) -> tuple[dict, dict[int, tuple[float, Tensor, Tensor]], dict]:
    """Search time per document of `docs` synthetic paragraphs as they grow (`lengths`,
    at the widest beam) and as the beam grows (`beams`, at `length` sentences), with the
    growth figures of `_growth` against the exponents 2 (length) and 1 (beam). Also
    returns, by beam,
    the searches' (milliseconds per document, orders, scores) at `length` sentences,
    and that batch."""
    net = net.to(device).eval()
    widest = max(beams)
    batches = {n: to_device(synthetic_batch(vocab, docs, n), device) for n in {*lengths, length}}
    times, results = {}, {}
    points = [(n, widest) for n in lengths] + [(length, beam) for beam in beams]
    for n, beam in dict.fromkeys(points):  # each point once, in order
        times[n, beam], orders, scores = timed_search(
            net, batches[n], beam, device, precision, repeats
        )
        if n == length:
            results[beam] = (times[n, beam], orders, scores)
    figures = {
        "docs": docs,
        "length": _growth(lengths, [times[n, widest] for n in lengths], 2),
        "beam": _growth(beams, [times[length, beam] for beam in beams], 1),
    }
    figures["length"]["beam"], figures["beam"]["length"] = widest, length
    return figures, results, batches[length]


def _growth(points: list[int], times: list[float], exponent: int) -> dict:
    """Times per point; their ratios to the first with the bound (point / first)^exponent
    (`within_ratio_bound`, for reference: dominated by the first point's fixed costs);
    the local exponent between consecutive points; and the check, `within_bound`: the
    least-squares log-log slope over the points after the first (all of them when there
    are only two) at most `exponent` + `EXPONENT_TOLERANCE` (None: a single point)."""
    first, fit = points[0], slice(1 if len(points) > 2 else 0, None)
    pairs = list(zip(points, times, strict=True))
    slope = _slope(points[fit], times[fit])
    limit = exponent + EXPONENT_TOLERANCE
    return {
        "ms_per_doc": {str(p): round(t, 3) for p, t in pairs},
        "ratio": {str(p): round(t / times[0], 2) for p, t in pairs},
        "bound": {str(p): round((p / first) ** exponent, 2) for p in points},
        "within_ratio_bound": all(t / times[0] <= (p / first) ** exponent for p, t in pairs),
        "local_exponent": {
            f"{p1}-{p2}": round(math.log(t2 / t1) / math.log(p2 / p1), 2)
            for (p1, t1), (p2, t2) in zip(pairs, pairs[1:], strict=False)
        },
        "fit_points": points[fit],
        "exponent": None if slope is None else round(slope, 2),
        "exponent_bound": exponent,
        "exponent_limit": round(limit, 2),
        "within_bound": None if slope is None else slope <= limit,
    }


def _slope(points: list[int], times: list[float]) -> float | None:
    """Least-squares slope of log(time) against log(point); None for fewer than 2 points."""
    if len(points) < 2:
        return None
    xs, ys = [math.log(p) for p in points], [math.log(t) for t in times]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread
