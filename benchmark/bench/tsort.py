"""The cost of decoding pairwise constraints (models.search.topological_sort) against the number
of sentences n, for the pairwise preset's decoders: topological sort with the authors'
cycle rule ("dfs": delete the back edges depth-first searches meet, one search per edge)
and with ours ("confidence": Kahn's algorithm, weakest constraints dropped), and the
summed-win ranking.

Two kinds of synthetic precedence matrices P (P[a, b] + P[b, a] = 1): `consistent`, a
trained-looking classifier (P from the gap between gold positions, 10% of the pairs
flipped, so a few cycles) and `random` (a uniform random tournament: cycles everywhere,
the worst case of the dfs rule). Times are medians over repeats, in milliseconds per
document, single-threaded Python + NumPy; no figure is checked against a bound.
`orderbench bench tsort` prints the table (`benchmark.cli_commands.BENCH_TSORT`);
`orderbench bench` adds it to its record when a pairwise preset is benched.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

import numpy as np

from benchmark.bench.table import markdown_table
from benchmark.cli_arguments import UsageError
from benchmark.cli_commands import BENCH_TSORT
from models.search.topological_sort import (
    constraint_edges,
    remove_back_edges,
    topological_order,
    win_order,
)

LENGTHS = (5, 10, 20, 50, 100)
DECODERS = {
    "tsort dfs": lambda prob: topological_order(prob, "dfs"),
    "tsort confidence": lambda prob: topological_order(prob, "confidence"),
    "winsum": win_order,
}
FLIP = 0.1  # share of the pairs a `consistent` matrix gets wrong


def precedence_matrix(n: int, kind: str, rng: np.random.Generator) -> np.ndarray:
    """A synthetic (n, n) P of `kind` "consistent" or "random"."""
    if kind == "random":
        upper = rng.uniform(size=(n, n))
    else:
        rank = rng.permutation(n)
        gap = rank[None, :] - rank[:, None]  # (n, n) > 0 where a comes before b
        upper = 1 / (1 + np.exp(-gap / 2.0))
        flip = rng.uniform(size=(n, n)) < FLIP
        upper = np.where(flip, 1 - upper, upper)
    return np.triu(upper, 1) + np.tril(1 - upper.T, -1)


def tsort_timings(lengths=LENGTHS, repeats: int = 3, seed: int = 0) -> dict:
    """{kind: {n: {decoder: ms, "back_edges": edges the dfs rule deletes}}}."""
    rng = np.random.default_rng(seed)
    result: dict = {}
    for kind in ("consistent", "random"):
        result[kind] = {}
        for n in lengths:
            prob = precedence_matrix(n, kind, rng)
            edges = constraint_edges(prob)
            figures = {"back_edges": int(edges.sum() - remove_back_edges(edges).sum())}
            for name, decode in DECODERS.items():
                times = []
                for _ in range(repeats):
                    start = time.perf_counter()
                    decode(prob)
                    times.append(time.perf_counter() - start)
                figures[name] = round(1000 * float(np.median(times)), 3)
            result[kind][str(n)] = figures
    return result


def tsort_table(timings: dict) -> str:
    """The timings as one Markdown table (rows: kind and n)."""
    headers = ["graph, n", *(f"{name} ms" for name in DECODERS), "dfs back edges"]
    rows = [
        [f"{kind}, {n}", *(f"{figures[name]:.3f}" for name in DECODERS), str(figures["back_edges"])]
        for kind, by_n in timings.items()
        for n, figures in by_n.items()
    ]
    return markdown_table(headers, rows)


def main(argv: Sequence[str] | None = None) -> int:
    return BENCH_TSORT.run(argv, _print_timings, _parse)


def _parse(argv: Sequence[str]) -> dict:
    """The keys, `lengths` as a list of increasing integers >= 2."""
    args = BENCH_TSORT.parse(argv)
    lengths = [int(n) for n in args["lengths"].split(",") if n.isdigit() and int(n) >= 2]
    if ",".join(map(str, lengths)) != args["lengths"] or lengths != sorted(set(lengths)):
        raise UsageError(f"lengths must be increasing integers >= 2, comma-separated, "
                         f"got {args['lengths']!r}")
    return args | {"lengths": lengths}


def _print_timings(args: dict) -> int:
    print(tsort_table(tsort_timings(args["lengths"], args["repeats"], args["seed"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
