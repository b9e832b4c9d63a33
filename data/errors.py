"""Error type for bad input data; messages name the file and line when known."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path


class DataFormatError(ValueError):
    """Malformed or invalid dataset content (bad JSON, empty document, duplicate id ...)."""


def location(path: str | Path, line: int | None = None) -> str:
    """``file:line`` (or just ``file``) for error messages."""
    return f"{path}:{line}" if line is not None else str(path)


def utf8_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of every line of a UTF-8 file, 1-based, line break kept;
    bytes that are not UTF-8 raise DataFormatError naming ``file:line`` and the column."""
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, start=1):
            try:
                yield lineno, raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise DataFormatError(
                    f"{location(path, lineno)}: not UTF-8 text ({err.reason} at byte "
                    f"{err.start + 1} of the line)"
                ) from None


def json_lines(path: str | Path) -> Iterator[tuple[int, object]]:
    """``(line number, parsed value)`` of every non-blank line of a JSON Lines file; bad JSON
    and bytes that are not UTF-8 raise DataFormatError naming ``file:line``."""
    for lineno, line in utf8_lines(path):
        if not line.strip():
            continue
        where = location(path, lineno)
        try:  # without its line break, so an error at its end is in its last column
            value = json.loads(line.rstrip("\r\n"))
        except json.JSONDecodeError as err:
            raise DataFormatError(
                f"{where}: malformed JSON ({err.msg} at column {err.colno})"
            ) from None
        yield lineno, value
