"""Plain-text files read line by line: listings (one name per line) and documents with one
sentence per line, the format of the Logeswaran et al. 2018 abstracts and of the
Barzilay & Lapata 2008 articles. UTF-8; errors name the file (and line)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from data.errors import DataFormatError, location, utf8_lines


def numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of every line, without its line break (1-based numbers);
    bytes that are not UTF-8 are refused naming ``file:line``."""
    for lineno, line in utf8_lines(path):
        yield lineno, line.rstrip("\r\n")


def nonblank_lines(path: Path) -> list[tuple[int, str]]:
    """``(line number, stripped text)`` of the non-blank lines."""
    return [(lineno, line.strip()) for lineno, line in numbered_lines(path) if line.strip()]


def read_sentence_file(path: Path) -> tuple[str, ...]:
    """A document stored as one sentence per line (blank lines ignored)."""
    sentences = tuple(text for _, text in nonblank_lines(path))
    if not sentences:
        raise DataFormatError(f"{location(path)}: no sentences (expected one per line)")
    return sentences
