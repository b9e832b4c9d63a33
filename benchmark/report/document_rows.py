"""A run's test document as the reports show it one by one (the site's document browser,
the W&B predictions table): its ids, its Kendall tau and what it gets wrong."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from benchmark.metrics.order import kendall_tau

# the bits of a document's errors (its `flags`): misordered, first or last sentence wrong
WRONG, HEAD, TAIL = 1, 2, 4


def document_row(prediction: Mapping) -> dict:
    """One record of a `predictions.jsonl` (validated) as `id`, `gold`, `pred`, `noise`
    (with distractors), `tau` (None where `pred` is not a permutation of `gold`: with
    distractors) and `flags`."""
    gold, pred = list(prediction["gold"]), list(prediction["pred"])
    tau = kendall_tau(gold, pred) if sorted(pred) == sorted(gold) else None
    flags = (WRONG * (pred != gold) | HEAD * (pred[:1] != gold[:1])
             | TAIL * (pred[-1:] != gold[-1:]))  # fmt: skip
    row = {"id": prediction["id"], "gold": gold, "pred": pred, "tau": tau, "flags": flags}
    if prediction.get("noise"):
        row["noise"] = list(prediction["noise"])
    return row


def worst_first(rows: Sequence[dict]) -> list[dict]:
    """Documents by tau, lowest first (those without a tau last), then by id."""
    return sorted(rows, key=lambda r: (r["tau"] is None, r["tau"] or 0.0, r["id"]))
