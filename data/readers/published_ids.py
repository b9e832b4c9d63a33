"""The published ids that begin every line of the Barzilay & Lapata (2008) Accidents and
Earthquakes files: ``ntsb2643txt-1-5-5-0-3 On January ...`` (Accidents: the last number is
the sentence's gold position) and ``apwsE950112.0297-0: JERUSALEM ...`` or
``apwsE9510240020-2-2-1 BC-China-Quake ...`` (Earthquakes). They are not text (and would
leak the gold order), so readers strip them."""

from __future__ import annotations

import re
from pathlib import Path

from data.errors import DataFormatError, location
from data.readers.lines import nonblank_lines

PUBLISHED_ID = re.compile(r"(?:ntsb\d+\.?txt(?:-\d+)+|apws[A-Z]?\d+(?:\.\d+)?(?:-\d+)+:?)(?=\s|$)")


def split_published_id(line: str) -> tuple[str | None, str]:
    """``(id, rest)`` of a line that begins with a published id, else ``(None, line)``."""
    match = PUBLISHED_ID.match(line)
    if match is None:
        return None, line
    return match.group(), line[match.end() :].strip()


def strip_published_ids(path: Path, lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """``lines`` (``(line number, text)`` of one file) without their published ids.

    A file without ids comes back unchanged; a file with an id on some lines only, or a
    line that is an id and nothing else, is refused naming the line."""
    parsed = [(lineno, *split_published_id(text)) for lineno, text in lines]
    first = next(((lineno, pid) for lineno, pid, _ in parsed if pid is not None), None)
    if first is None:
        return list(lines)
    for lineno, pid, text in parsed:
        if pid is None:
            raise DataFormatError(
                f"{location(path, lineno)}: no published id at the start of the line, though "
                f"line {first[0]} begins with one ({first[1]!r}); every line of a published "
                "file has one (set dataset.reader.strip_ids=false to keep lines as they are)"
            )
        if not text:
            raise DataFormatError(f"{location(path, lineno)}: published id {pid!r} and no text")
    return [(lineno, text) for lineno, _, text in parsed]


def published_sentences(path: Path, strip_ids: bool = True) -> list[tuple[int, str]]:
    """``(line number, sentence)`` of the non-blank lines of a one-sentence-per-line file,
    published ids stripped unless ``strip_ids`` is false."""
    lines = nonblank_lines(path)
    return strip_published_ids(path, lines) if strip_ids else lines
