"""Validation of a document's sentence-id lists (docs/design.md, section 3), shared by the metrics
and the predictions reader so that both reject the same inputs with the same reasons.

`gold` lists the document's sentence ids (non-negative positions) in the correct order;
`noise`, when the document is in the noise setting, lists its distractor ids (-1, -2,
...); `pred` lists the sentences the model kept, in order. Without noise (`noise` is
None) `pred` must hold exactly the ids of `gold`; with noise, any subset of gold + noise
without repeats.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

Ids = Sequence[int]


def as_list(ids: Ids) -> list:
    """Plain Python list of ids (accepts lists, tuples, numpy arrays, 1-D tensors)."""
    return ids.tolist() if hasattr(ids, "tolist") else list(ids)


def plural(word: str, ids: list) -> str:
    """`"id 3"` or `"ids 3, 5"`."""
    return f"{word}{'s' if len(ids) > 1 else ''} {', '.join(str(i) for i in ids)}"


def repeated_ids(ids: Ids) -> list:
    """Ids occurring more than once, in order of first occurrence."""
    counts = Counter(as_list(ids))
    return [i for i, c in counts.items() if c > 1]


def gold_problems(gold: Ids) -> list[str]:
    """Why `gold` is not a usable gold order for the metrics (empty list if it is)."""
    gold = as_list(gold)
    if not gold:
        return ["gold is empty: a document needs at least one sentence"]
    if repeats := repeated_ids(gold):
        return [f"gold repeats {plural('id', repeats)}"]
    return []


def pred_problems(allowed: Ids, pred: Ids, complete: bool = True) -> list[str]:
    """Why `pred` is not a valid prediction over the ids `allowed` (empty list if it is).

    With `complete`, pred must be a permutation of `allowed`; otherwise any subset of it
    without repeats (the noise setting of docs/design.md, section 3).
    """
    allowed, pred = as_list(allowed), as_list(pred)
    allowed_set, pred_set = set(allowed), set(pred)
    problems = []
    if repeats := repeated_ids(pred):
        problems.append(f"pred repeats {plural('id', repeats)}")
    if unknown := [i for i in dict.fromkeys(pred) if i not in allowed_set]:
        problems.append(f"pred has unknown {plural('id', unknown)}")
    if complete and (missing := [i for i in allowed if i not in pred_set]):
        problems.append(f"pred lacks {plural('id', missing)}")
    return problems


def document_problems(gold: Ids, pred: Ids, noise: Ids | None = None) -> list[str]:
    """Every reason why (gold, pred, noise) breaks the contract of docs/design.md, section 3.

    Gold problems come alone (a prediction cannot be judged against a broken gold); then
    noise problems, then pred problems. Empty list for a valid document.
    """
    gold = as_list(gold)
    if problems := gold_problems(gold):
        return problems
    if negative := [i for i in gold if i < 0]:
        return [f"gold has negative id {negative[0]} (negative ids are reserved for noise)"]
    if noise is None:
        problems = pred_problems(gold, pred)
        if problems and any(i < 0 for i in as_list(pred)):
            problems.append("distractor ids (< 0) need the document's 'noise' list")
        return problems
    noise = as_list(noise)
    problems = []
    if not_negative := [i for i in noise if i >= 0]:
        problems.append(f"noise id {not_negative[0]} is not negative (distractors are -1, -2, ...)")
    if repeats := repeated_ids(noise):
        problems.append(f"noise repeats {plural('id', repeats)}")
    return problems + pred_problems(gold + noise, pred, complete=False)
