"""Decoding throughput and how decoding time scales with paragraph length and beam width.

Decoding is the model's own batched search (`OrderingModel.search`: greedy at beam 1,
else beam search over all documents and beams at once), timed end to end: sentence and
paragraph encoding plus the N decoder steps. Beam search costs one decoder step on B*K
rows per output step, each scoring N candidates, over N steps, so its time should grow
no faster than K * N^2 (the HAN decoder's self-attention over the placed prefix is
within that too); `scaling` reports the measured ratios against those bounds.
"""

from __future__ import annotations

import torch
from torch import Tensor

from benchmark.bench_inputs import synthetic_batch
from benchmark.bench_machine import peak_memory_mb, reset_peak_memory
from benchmark.bench_timing import autocast, seconds
from models.batch import to_device


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
    ratios to the first point and their bounds (n/n0)^2 and K/K0. Also returns, by beam,
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
        "length": _growth(lengths, [times[n, widest] for n in lengths], lambda r: r**2),
        "beam": _growth(beams, [times[length, beam] for beam in beams], lambda r: r),
    }
    figures["length"]["beam"], figures["beam"]["length"] = widest, length
    return figures, results, batches[length]


def _growth(points: list[int], times: list[float], bound) -> dict:
    """Times per point, their ratios to the first, and `bound`(point / first point)."""
    first = points[0]
    return {
        "ms_per_doc": {str(p): round(t, 3) for p, t in zip(points, times, strict=True)},
        "ratio": {str(p): round(t / times[0], 2) for p, t in zip(points, times, strict=True)},
        "bound": {str(p): round(bound(p / first), 2) for p in points},
        "within_bound": all(
            t / times[0] <= bound(p / first) for p, t in zip(points, times, strict=True)
        ),
    }
