"""Metrics by paragraph length and by document meta (e.g. Brown genre), for the run record.

A breakdown puts each document of a split in one bucket and reports, per bucket, the
corpus figures of its documents: `{bucket: {metric: value, ..., "n_docs": k}}` (plus
`n_docs_order` for a noisy split), computed exactly as for the whole split (same metrics,
same trivial policy; `benchmark.metrics.corpus.summarise`). Buckets without a scored document are
left out (e.g. the one-sentence bucket while trivial documents are excluded).

- Length: the number of gold sentences, in the buckets of `LENGTH_BUCKETS`
  ("2-3", "4-5", "6-8", "9-12", "13+"; "1" for one-sentence documents).
- Meta: the value of one field of the record's optional `"meta"` object; documents
  without the field go to the bucket "(none)". `breakdowns` does this for every field
  that looks categorical: scalar values with at most `MAX_META_VALUES` distinct ones
  (so a genre is broken down, a per-document title or a source file name is not).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from benchmark.metrics.corpus import ScoredCorpus, metric_means, score_records

# (lowest, highest) gold sentences of each length bucket; None: no upper bound.
LENGTH_BUCKETS: tuple[tuple[int, int | None], ...] = (
    (1, 1),
    (2, 3),
    (4, 5),
    (6, 8),
    (9, 12),
    (13, None),
)
MAX_META_VALUES = 20
MISSING = "(none)"
_SCALARS = (str, int, float, bool)
_NOT_SCALAR = object()  # stands for a list or object value in `categorical_fields`


def _label(low: int, high: int | None) -> str:
    if high is None:
        return f"{low}+"
    return str(low) if low == high else f"{low}-{high}"


LENGTH_LABELS = tuple(_label(low, high) for low, high in LENGTH_BUCKETS)


def length_bucket(n_sentences: int) -> str:
    """The length bucket of a document of `n_sentences` gold sentences."""
    for (low, high), label in zip(LENGTH_BUCKETS, LENGTH_LABELS, strict=True):
        if low <= n_sentences and (high is None or n_sentences <= high):
            return label
    raise ValueError(f"a document has at least one sentence, got {n_sentences}")


def meta_value(record: Mapping, field: str) -> str:
    """The bucket of `record` for meta field `field` (its value as text, or "(none)")."""
    value = (record.get("meta") or {}).get(field)
    return MISSING if value is None else str(value)


def group_figures(
    scored: ScoredCorpus, labels: Sequence[str], order: Callable[[str], object] = str
) -> dict[str, dict]:
    """Corpus figures per bucket; `labels[i]` is the bucket of document i of `scored`.

    Buckets come sorted by `order`; a bucket without a scored document is left out.
    """
    members: dict[str, list[int]] = {}
    for index, label in enumerate(labels):
        members.setdefault(label, []).append(index)
    figures = {}
    for label in sorted(members, key=order):
        bucket = scored.subset(members[label])
        if bucket.counted:
            figures[label] = {**metric_means(bucket), **bucket.counts()}
    return figures


def _length_labels(records: Sequence[Mapping]) -> list[str]:
    return [length_bucket(len(record["gold"])) for record in records]


def by_length(records: Iterable[Mapping], include_trivial: bool = False) -> dict[str, dict]:
    """Figures per length bucket of prediction records (`gold`, `pred`, optional `noise`)."""
    records = list(records)
    scored = score_records(records, include_trivial)
    return group_figures(scored, _length_labels(records), LENGTH_LABELS.index)


def by_meta(
    records: Iterable[Mapping], field: str, include_trivial: bool = False
) -> dict[str, dict]:
    """Figures per value of the meta field `field` of prediction records."""
    records = list(records)
    scored = score_records(records, include_trivial)
    return group_figures(scored, [meta_value(record, field) for record in records])


def categorical_fields(records: Sequence[Mapping]) -> list[str]:
    """Meta fields with scalar values only and at most `MAX_META_VALUES` distinct ones."""
    values: dict[str, set] = {}
    for record in records:
        for field, value in (record.get("meta") or {}).items():
            if value is not None:  # null: the "(none)" bucket
                values.setdefault(field, set()).add(
                    value if isinstance(value, _SCALARS) else _NOT_SCALAR
                )
    return sorted(
        field
        for field, seen in values.items()
        if _NOT_SCALAR not in seen and len(seen) <= MAX_META_VALUES
    )


def breakdowns(records: Iterable[Mapping], include_trivial: bool = False) -> dict[str, dict]:
    """`{"length": by length, "meta.<field>": by field, ...}` for the run record.

    Every categorical meta field (`categorical_fields`) gets a breakdown.
    """
    records = list(records)
    scored = score_records(records, include_trivial)
    result = {"length": group_figures(scored, _length_labels(records), LENGTH_LABELS.index)}
    for field in categorical_fields(records):
        labels = [meta_value(record, field) for record in records]
        result[f"meta.{field}"] = group_figures(scored, labels)
    return result
