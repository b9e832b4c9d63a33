"""The published archive layout of the Barzilay & Lapata (2008) corpora: each article
``<name>.perm-1`` (gold order) with its permuted copies ``<name>.perm-2``, ``.perm-3`` ...
beside it (Earthquakes test files end ``.perm-1-p``). ``scan_folder`` tells the articles
from the copies (and refuses copies whose gold file is missing); ``permutation_orders``
maps every copy back to the gold positions of its article's sentences, giving the
published permutations that the order-discrimination tables score (Cui et al. 2018,
Table 5: 1,986 Accidents test pairs)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from data.document import Document
from data.errors import DataFormatError, location
from data.readers.dataset_source import DatasetSource

PERM_NAME = re.compile(r"^(?P<article>.+)\.perm-(?P<n>\d+)(?P<tail>.*)$")


def article_key(name: str) -> tuple[str, int]:
    """``(article, N)`` of a file name ``<article>.perm-N[...]``; ``(name, 1)`` otherwise."""
    match = PERM_NAME.match(name)
    return (match["article"], int(match["n"])) if match else (name, 1)


@dataclass(frozen=True)
class PublishedFolder:
    """The files of one split folder: ``articles`` (gold order) and ``copies`` (the
    published permutations, ``*.perm-N`` with N >= 2), both in name order."""

    articles: list[Path]
    copies: list[Path]


def scan_folder(
    directory: Path, pattern: str, source: DatasetSource, need_gold: bool = True
) -> PublishedFolder:
    """Files of ``directory`` matching ``pattern`` (hidden ones skipped), articles apart
    from permutation copies. With ``need_gold``, copies of an article whose ``.perm-1`` is
    not there are refused (``source.not_found``, naming the layout)."""
    if not directory.is_dir():
        raise source.not_found(f"{directory} is not a folder")
    files = sorted(p for p in directory.glob(pattern) if p.is_file() and not p.name.startswith("."))
    if not files:
        raise source.not_found(f"{directory} holds no file matching {pattern!r}")
    copies = [p for p in files if article_key(p.name)[1] >= 2]
    articles = [p for p in files if article_key(p.name)[1] < 2]
    if need_gold and copies:
        gold = {article_key(p.name)[0] for p in articles}
        orphans = sorted({article_key(p.name)[0] for p in copies} - gold)
        if orphans:
            raise source.not_found(
                f"{directory} is in the published archive layout (each article "
                f"<name>.perm-1 with its permuted copies <name>.perm-N beside it) but holds "
                f"{len(copies)} copies of {len(orphans)} articles without their gold-order "
                f"file (e.g. {orphans[0]}.perm-1 is missing): the copies are not articles. "
                "Point dataset.path at a folder holding the gold articles, or put their "
                "*.perm-1 files beside the copies"
            )
    return PublishedFolder(articles, copies)


def gold_order(path: Path, document: Document, lines: list[tuple[int, str]]) -> list[int]:
    """Gold position of every sentence of ``path`` (a permutation of ``document``), found
    by its text; a sentence repeated in the article takes its positions in turn."""
    free: dict[str, list[int]] = {}
    for position, sentence in enumerate(document.sentences):
        free.setdefault(sentence, []).append(position)
    order = []
    for lineno, text in lines:
        if not free.get(text):
            raise DataFormatError(
                f"{location(path, lineno)}: sentence not in article {document.id!r} "
                "(or more often than there)"
            )
        order.append(free[text].pop(0))
    if len(order) != len(document):
        raise DataFormatError(
            f"{path}: {len(order)} sentences, article {document.id!r} has {len(document)}"
        )
    return order


def permutation_orders(
    articles: list[Path],
    documents: list[Document],
    copies: list[Path],
    read: Callable[[Path], list[tuple[int, str]]],
) -> dict[str, dict[int, list[int]]]:
    """``{document id: {N: gold order of copy .perm-N}}`` (by N; the published sets miss
    some N) for the ``documents`` read from ``articles``; ``read(path)`` gives a copy's
    ``(line number, sentence)`` lines."""
    by_article = {article_key(p.name)[0]: doc for p, doc in zip(articles, documents, strict=True)}
    orders: dict[str, dict[int, list[int]]] = {doc.id: {} for doc in documents}
    for path in sorted(copies, key=lambda p: article_key(p.name)):
        article, number = article_key(path.name)
        if article not in by_article:
            raise DataFormatError(f"{path}: permutation of {article!r}, not a test article")
        document = by_article[article]
        if number in orders[document.id]:
            raise DataFormatError(f"{path}: a second .perm-{number} of {article!r}")
        orders[document.id][number] = gold_order(path, document, read(path))
    return orders
