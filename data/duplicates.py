"""Documents with the same text (the same sentences in the same order, whitespace runs
counted as one space). Across splits they are an error, which counts them all and names
them: a test document that was trained on, or selected on, is no test. Within a split
they are counted and reported (the datacard shows them); published sets keep theirs as
published (Earthquakes test has two identical articles).

A document's text is known by a fixed-size digest (32 bytes, ``text_digest``), so a
million documents are checked from one array of digests, sorted, without their text in
memory; only the few documents a message names are read again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from data.document import Document
from data.errors import DataFormatError, location
from data.splits import SPLIT_NAMES

DIGEST = np.dtype("S32")  # a SHA-256 digest as a numpy item


def text_digest(sentences: Sequence[str]) -> bytes:
    """SHA-256 of a document's text (sentences in order, whitespace normalised)."""
    text = [" ".join(sentence.split()) for sentence in sentences]
    return hashlib.sha256(json.dumps(text, ensure_ascii=False).encode("utf-8")).digest()


def text_key(document: Document) -> str:
    """``text_digest`` of ``document`` in hex."""
    return text_digest(document.sentences).hex()


MAX_NAMED = 10  # cross-split duplicates named in the error; the rest are counted


def describe(document: Document) -> str:
    """``'<id>'`` and, when the reader recorded them, ``(file <meta.file>)`` or
    ``(file <meta.file>:<meta.line>)``."""
    file, line = document.meta.get("file"), document.meta.get("line")
    if file and line is not None:
        file = location(file, line)
    return f"{document.id!r}" + (f" (file {file})" if file else "")


@dataclass(frozen=True)
class DuplicateReport:
    """``groups[split]``: the ids of each set of two or more documents of ``split`` with
    the same text, in reading order."""

    groups: dict[str, list[list[str]]]

    def counts(self) -> dict[str, int]:
        """Per split, the documents that repeat an earlier one (a pair counts 1)."""
        return {split: sum(len(g) - 1 for g in groups) for split, groups in self.groups.items()}


def _runs(digests: np.ndarray) -> list[np.ndarray]:
    """The positions of each set of two or more equal digests, each ascending."""
    if len(digests) < 2:
        return []
    order = np.argsort(digests, kind="stable")  # equal digests together, in reading order
    ordered = digests[order]
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        return []
    run = np.concatenate([[0], np.cumsum(~same)])  # (documents,) run of each sorted position
    repeated = np.bincount(run)[run] > 1
    members, member_runs = order[repeated], run[repeated]
    cuts = np.flatnonzero(member_runs[1:] != member_runs[:-1]) + 1
    return np.split(members, cuts)


def duplicate_report(
    digests: np.ndarray,
    split_sizes: Sequence[tuple[str, int]],
    document_at: Callable[[str, int], Document],
) -> DuplicateReport:
    """The report of documents read in the order of ``split_sizes`` (split, documents),
    ``digests[k]`` the ``text_digest`` of the k-th (``DIGEST`` items); ``document_at(split,
    row)`` reads back a document a message names. When texts are in two splits, raises
    one ``DataFormatError`` that counts every such document and names the first
    ``MAX_NAMED`` of them with the first document of that text."""
    names = [split for split, _ in split_sizes]
    ends = np.cumsum([size for _, size in split_sizes])

    def where(position: int) -> tuple[str, int]:
        k = int(np.searchsorted(ends, position, side="right"))
        return names[k], position - (int(ends[k - 1]) if k else 0)

    groups: dict[str, list[tuple[int, list[int]]]] = {split: [] for split in names}
    across: list[tuple[int, int]] = []  # (the document, the first of its text)
    for run in _runs(digests):
        first = int(run[0])
        split = where(first)[0]
        same = [int(p) for p in run if where(int(p))[0] == split]
        across += [(int(p), first) for p in run if where(int(p))[0] != split]
        if len(same) > 1:
            groups[split].append((first, same))
    if across:
        across.sort()
        named = []
        for position, first in across[:MAX_NAMED]:
            (split, row), (first_split, first_row) = where(position), where(first)
            named.append(
                f"document {describe(document_at(split, row))} in {split} has the same text "
                f"as {describe(document_at(first_split, first_row))} in {first_split}"
            )
        more = len(across) - MAX_NAMED
        raise DataFormatError(
            f"{len(across)} document(s) repeat the text of a document of another split (a "
            "document may be in one split only): "
            + "; ".join(named)
            + (f"; and {more} more" if more > 0 else "")
        )
    return DuplicateReport(
        {
            split: [[document_at(*where(p)).id for p in same] for _, same in sorted(found)]
            for split, found in groups.items()
        }
    )


def check_duplicates(splits: Mapping[str, Sequence[Document]]) -> DuplicateReport:
    """``duplicate_report`` of documents in memory: the splits of ``SPLIT_NAMES`` first,
    then any other, each in its order."""
    order = [s for s in SPLIT_NAMES if s in splits] + [s for s in splits if s not in SPLIT_NAMES]
    digests = np.array(
        [text_digest(document.sentences) for split in order for document in splits[split]],
        dtype=DIGEST,
    )
    return duplicate_report(
        digests, [(split, len(splits[split])) for split in order],
        lambda split, row: splits[split][row],
    )  # fmt: skip
