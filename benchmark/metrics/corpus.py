"""The metric suite: per-document scoring and corpus figures (docs/design.md, section 4).

The per-document metrics are pure functions of `(gold, pred)`, declared in
`benchmark.metrics.registry`: those of `ORDER_METRICS` need pred to hold exactly the gold
sentences; those of `NOISE_METRICS` (`pmr`, `pm_f`, `noise_acc`) accept any subset of gold +
distractors. A document is `(gold, pred)` or
`(gold, pred, noise)`, where `noise` lists its distractor ids, or is None when the
document is not in the noise setting.

Corpus figures (`corpus_metrics`, `summarise`):

- Every metric is a mean over the scored documents, except the pooled ones
  (`POOLED_METRICS`: `acc_pooled`, correct positions / sentences over the corpus, and
  `lcs_pooled`, longest common subsequences / sentences).
- Every file reports the order metrics, the pooled ones and `pm_f` (pm_f is meaningful
  without noise too: a random order scores about 0.5).
- A *noisy* file (some document has a `noise` key, even an empty one; documents without
  one count as having no distractors) also reports `noise_acc` and `n_docs_order`.
  `pmr`, `pm_f` and `noise_acc` are means over all scored documents; the other order
  metrics and the pooled ones are over the `n_docs_order` documents whose kept set
  equals the gold set (pred a permutation of gold), the only ones they are defined for.
- Trivial documents have only one possible prediction: one gold sentence and no noise
  setting. They are validated and counted as `n_trivial`; by default they are left out of
  every figure, with `include_trivial` they are scored like the others, which gives them
  perfect values (the convention of several published tables). A one-sentence document
  in the noise setting is not trivial (the model may drop it or keep a distractor).

Every corpus figure is a ratio of sums over the scored documents, sum(numer) /
sum(denom) (`ScoredCorpus.terms`), so the bootstrap and the paired tests recompute each
one exactly as here on every resample.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from benchmark.metrics.directions import LOWER_IS_BETTER as LOWER_IS_BETTER  # re-exported
from benchmark.metrics.registry import HEADLINE_ACCURACY as HEADLINE_ACCURACY  # re-exported
from benchmark.metrics.registry import NOISE_METRICS, ORDER_METRICS, POOLED_METRICS
from benchmark.metrics.sentence_ids import Ids, as_list, document_problems

# Key of the per-document record holding the number of gold sentences (a count).
N_SENTENCES = "n_sentences"

TRIVIAL_EXCLUDED = "excluded"
TRIVIAL_COUNTED_PERFECT = "counted_perfect"


def corpus_metric_keys(noisy: bool) -> list[str]:
    """The corpus metrics of a split, in report order (those the harness logs per epoch as
    `val/<key>`): the order metrics, the pooled ones, `pm_f`, and `noise_acc` with
    distractors."""
    return [*ORDER_METRICS, *POOLED_METRICS, "pm_f", *(["noise_acc"] if noisy else [])]


def trivial_policy(include_trivial: bool) -> str:
    """The name of the trivial policy recorded with the figures."""
    return TRIVIAL_COUNTED_PERFECT if include_trivial else TRIVIAL_EXCLUDED


class NoScorableDocumentsWarning(RuntimeWarning):
    """The corpus has no document to score; its metrics are NaN."""


def document_metrics(gold: Ids, pred: Ids, noise: Ids | None = None) -> dict[str, float]:
    """Every metric defined for one document, plus its gold size under `N_SENTENCES`.

    The `NOISE_METRICS` always; the `ORDER_METRICS` when pred is a permutation of gold.
    Raises ValueError with every reason when (gold, pred, noise) breaks docs/design.md, section 3.
    """
    gold, pred = as_list(gold), as_list(pred)
    if problems := document_problems(gold, pred, noise):
        raise ValueError("; ".join(problems))
    values: dict[str, float] = {N_SENTENCES: len(gold)}
    if set(pred) == set(gold):  # no repeats: pred permutes gold
        values.update({key: metric(gold, pred) for key, metric in ORDER_METRICS.items()})
    values.update({key: metric(gold, pred) for key, metric in NOISE_METRICS.items()})
    return values


def ratio(numer: np.ndarray, denom: np.ndarray) -> np.ndarray:
    """numer / denom elementwise, NaN where denom is 0 (no document behind the figure)."""
    numer, denom = np.asarray(numer, dtype=float), np.asarray(denom, dtype=float)
    out = np.full(np.broadcast(numer, denom).shape, np.nan)
    return np.divide(numer, denom, out=out, where=denom > 0)


@dataclass(frozen=True)
class ScoredCorpus:
    """Per-document metrics of a corpus, in input order, and how to aggregate them."""

    documents: tuple[dict[str, float], ...]  # `document_metrics` of every document
    trivial: tuple[bool, ...]  # one gold sentence, no noise setting
    include_trivial: bool
    noisy: bool  # some document is in the noise setting

    @property
    def counted(self) -> list[dict[str, float]]:
        """The documents the figures average over (trivial ones only if included)."""
        return [
            doc
            for doc, trivial in zip(self.documents, self.trivial, strict=True)
            if self.include_trivial or not trivial
        ]

    @property
    def n_trivial(self) -> int:
        return sum(self.trivial)

    def subset(self, indices: Iterable[int]) -> ScoredCorpus:
        """The corpus of the documents at `indices`, aggregated the same way."""
        indices = list(indices)
        return ScoredCorpus(
            tuple(self.documents[i] for i in indices),
            tuple(self.trivial[i] for i in indices),
            self.include_trivial,
            self.noisy,
        )

    def metric_keys(self) -> list[str]:
        """The corpus metric keys, in report order."""
        return corpus_metric_keys(self.noisy)

    def terms(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(keys, numer, denom): corpus figure k = sum(numer[:, k]) / sum(denom[:, k]).

        numer and denom are (D, K) over the counted documents: (value, 1) where the
        document has the metric and (0, 0) where it has not; for a pooled metric (the
        per-document figure it pools times the sentences, sentences): for `acc_pooled`
        (correct positions, sentences), for `lcs_pooled` (the LCS's length, sentences).
        """
        keys = self.metric_keys()
        counted = self.counted
        numer = np.zeros((len(counted), len(keys)))  # (D, K)
        denom = np.zeros((len(counted), len(keys)))  # (D, K)
        for d, doc in enumerate(counted):
            for k, key in enumerate(keys):
                if key in POOLED_METRICS:
                    if (pooled := POOLED_METRICS[key]) in doc:
                        size = doc[N_SENTENCES]
                        numer[d, k], denom[d, k] = round(doc[pooled] * size), size
                elif key in doc:
                    numer[d, k], denom[d, k] = doc[key], 1.0
        return keys, numer, denom

    def counts(self) -> dict[str, int]:
        """`n_docs` (documents counted) and, for a noisy corpus, `n_docs_order`."""
        counted = self.counted
        counts = {"n_docs": len(counted)}
        if self.noisy:
            counts["n_docs_order"] = sum("tau" in doc for doc in counted)
        return counts


def _score(
    items: Iterable[tuple[str, Ids, Ids, Ids | None]], include_trivial: bool
) -> ScoredCorpus:
    """Score (label, gold, pred, noise) items; errors name the document by its label."""
    documents, trivial, noisy = [], [], False
    for label, gold, pred, noise in items:
        try:
            documents.append(document_metrics(gold, pred, noise))
        except ValueError as error:
            raise ValueError(f"document {label}: {error}") from error
        trivial.append(len(gold) == 1 and noise is None)
        noisy = noisy or noise is not None
    return ScoredCorpus(tuple(documents), tuple(trivial), include_trivial, noisy)


def score_documents(documents: Iterable[Sequence], include_trivial: bool = False) -> ScoredCorpus:
    """Score `(gold, pred)` or `(gold, pred, noise)` documents; errors say `document #k`."""
    items = (
        (f"#{index}", doc[0], doc[1], doc[2] if len(doc) > 2 else None)
        for index, doc in enumerate(documents)
    )
    return _score(items, include_trivial)


def score_records(records: Iterable[Mapping], include_trivial: bool = False) -> ScoredCorpus:
    """Score prediction records (mappings with `id`, `gold`, `pred`, optional `noise`)."""
    return _score(
        ((repr(r["id"]), r["gold"], r["pred"], r.get("noise")) for r in records),
        include_trivial,
    )


def metric_means(scored: ScoredCorpus) -> dict[str, float]:
    """Every corpus metric of `scored` (NaN for a metric no document has)."""
    keys, numer, denom = scored.terms()
    values = ratio(numer.sum(axis=0), denom.sum(axis=0))  # (K,)
    return {key: float(value) for key, value in zip(keys, values, strict=True)}


def summarise(scored: ScoredCorpus) -> dict:
    """The corpus figures of a split in `metrics.json` (see the module docstring).

    Metric means, `n_docs`, `n_docs_order` (noisy corpora), `n_trivial` and
    `trivial_policy`. With no document to score, every metric is NaN and a
    `NoScorableDocumentsWarning` is issued.
    """
    if not scored.counted:
        warnings.warn(
            "no scorable documents (the corpus is empty or only has one-sentence documents "
            "excluded by the trivial policy): every metric is NaN",
            NoScorableDocumentsWarning,
            stacklevel=2,
        )
    return {
        **metric_means(scored),
        **scored.counts(),
        "n_trivial": scored.n_trivial,
        "trivial_policy": trivial_policy(scored.include_trivial),
    }


def corpus_metrics(documents: Iterable[Sequence], include_trivial: bool = False) -> dict:
    """Corpus metrics of `(gold, pred)` / `(gold, pred, noise)` documents (`summarise`).

    Raises ValueError naming the document (`document #k`) if one breaks docs/design.md, section 3.
    """
    return summarise(score_documents(documents, include_trivial))
