"""A run's data, checked once it is loaded and before anything is trained (the config was
checked before any data was read: `benchmark.config.checks`):

- `check_scorable_splits`: a valid or test split where no document can be scored (all of
  one sentence, left out by the trivial policy) would give NaN figures and select an
  arbitrary checkpoint;
- `check_document_sizes`: documents longer than `max_document_sentences` are named, with
  what to set: decoding them takes time and memory the user did not expect.

Each refusal is a `ConfigError` of one line naming the dataset and split or the key to set.
"""

from __future__ import annotations

from benchmark.config.checks import ConfigError


def check_document_sizes(dataset: str, documents: dict, limit: int | None) -> None:
    """ConfigError naming the documents of more than `limit` sentences (None: no limit),
    and what to set to train on them anyway. Sizes come from the columns' sentence counts
    (no document is read unless named)."""
    if limit is None:
        return
    long = []  # (split, index, sentences)
    for split, docs in documents.items():
        counts = getattr(docs, "sentence_counts", None)
        sizes = [len(doc) for doc in docs] if counts is None else counts.tolist()
        long += [(split, i, n) for i, n in enumerate(sizes) if n > limit]
    if not long:
        return
    longest = max(n for _, _, n in long)
    named = ", ".join(f"{split} {documents[split][i].id!r}: {n}"
                      for split, i, n in long[:_NAMED_DOCS])  # fmt: skip
    more = f" and {len(long) - _NAMED_DOCS} more" if len(long) > _NAMED_DOCS else ""
    raise ConfigError(
        f"dataset {dataset!r}: {len(long)} document{'s' if len(long) > 1 else ''} of more than "
        f"max_document_sentences={limit} sentences ({named}{more}); decoding grows with the "
        f"square of a document's sentences or faster: set max_document_sentences={longest} "
        "to train on them anyway, or leave them out of the data"
    )


_NAMED_DOCS = 3  # long documents a refusal names


def check_scorable_splits(dataset: str, documents: dict, include_trivial: bool,
                          noisy: bool) -> None:
    """ConfigError when a valid or test split has no document its figures can count: all
    of one sentence, left out by the trivial policy (`include_trivial=false`)."""
    if include_trivial or noisy:
        return
    for split in ("valid", "test"):
        docs = documents.get(split) or []
        if docs and all(len(doc) < 2 for doc in docs):
            raise ConfigError(
                f"dataset {dataset!r}, split {split!r}: all {len(docs)} documents have one "
                "sentence, so no figure can be computed (include_trivial=true counts them)"
            )
