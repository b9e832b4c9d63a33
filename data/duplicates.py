"""Documents with the same text (the same sentences in the same order, whitespace runs
counted as one space). Across splits they are an error, which counts them all and names
them: a test document that was trained on, or selected on, is no test. Within a split
they are counted and reported (the datacard shows them); published sets keep theirs as
published (Earthquakes test has two identical articles)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from data.document import Document
from data.errors import DataFormatError, location
from data.splits import SPLIT_NAMES


def text_key(document: Document) -> str:
    """SHA-256 of the document's text (sentences in order, whitespace normalised)."""
    text = [" ".join(sentence.split()) for sentence in document.sentences]
    return hashlib.sha256(json.dumps(text, ensure_ascii=False).encode("utf-8")).hexdigest()


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


def check_duplicates(splits: Mapping[str, Sequence[Document]]) -> DuplicateReport:
    """The within-split duplicates of ``splits``. When texts are in two splits, raises one
    ``DataFormatError`` that counts every such document and names the first ``MAX_NAMED``
    of them with the document they repeat (ids and files)."""
    first: dict[str, tuple[str, Document]] = {}
    by_split: dict[str, dict[str, list[str]]] = {}
    across: list[str] = []
    order = [s for s in SPLIT_NAMES if s in splits] + [s for s in splits if s not in SPLIT_NAMES]
    for split in order:
        same: dict[str, list[str]] = by_split.setdefault(split, {})
        for document in splits[split]:
            key = text_key(document)
            seen_split, seen = first.setdefault(key, (split, document))
            if seen_split != split:
                across.append(
                    f"document {describe(document)} in {split} has the same text as "
                    f"{describe(seen)} in {seen_split}"
                )
                continue
            same.setdefault(key, []).append(document.id)
    if across:
        more = len(across) - MAX_NAMED
        raise DataFormatError(
            f"{len(across)} document(s) repeat the text of a document of another split (a "
            "document may be in one split only): "
            + "; ".join(across[:MAX_NAMED])
            + (f"; and {more} more" if more > 0 else "")
        )
    return DuplicateReport(
        {split: [ids for ids in same.values() if len(ids) > 1] for split, same in by_split.items()}
    )
