"""Error type for bad input data; messages name the file and line when known."""

from __future__ import annotations

from pathlib import Path


class DataFormatError(ValueError):
    """Malformed or invalid dataset content (bad JSON, empty document, duplicate id ...)."""


def location(path: str | Path, line: int | None = None) -> str:
    """``file:line`` (or just ``file``) for error messages."""
    return f"{path}:{line}" if line is not None else str(path)
