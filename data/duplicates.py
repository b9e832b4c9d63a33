"""Documents with the same text (the same sentences in the same order, whitespace runs
counted as one space). Across splits they are an error: a test document that was trained
on, or selected on, is no test. Within a split they are counted and reported (the
datacard shows them); published sets keep theirs as published (Earthquakes test has two
identical articles)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from data.document import Document
from data.errors import DataFormatError
from data.splits import SPLIT_NAMES


def text_key(document: Document) -> str:
    """SHA-256 of the document's text (sentences in order, whitespace normalised)."""
    text = [" ".join(sentence.split()) for sentence in document.sentences]
    return hashlib.sha256(json.dumps(text, ensure_ascii=False).encode("utf-8")).hexdigest()


def describe(document: Document) -> str:
    """``'<id>'`` and, when the reader recorded it, ``(file <meta.file>)``."""
    file = document.meta.get("file")
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
    """The within-split duplicates of ``splits``; raises ``DataFormatError`` naming both
    documents (ids and files) when one text is in two splits."""
    first: dict[str, tuple[str, Document]] = {}
    by_split: dict[str, dict[str, list[str]]] = {}
    order = [s for s in SPLIT_NAMES if s in splits] + [s for s in splits if s not in SPLIT_NAMES]
    for split in order:
        same: dict[str, list[str]] = by_split.setdefault(split, {})
        for document in splits[split]:
            key = text_key(document)
            seen_split, seen = first.setdefault(key, (split, document))
            if seen_split != split:
                raise DataFormatError(
                    f"document {describe(document)} in {split} has the same text as "
                    f"{describe(seen)} in {seen_split}: a document may be in one split only"
                )
            same.setdefault(key, []).append(document.id)
    return DuplicateReport(
        {split: [ids for ids in same.values() if len(ids) > 1] for split, same in by_split.items()}
    )
