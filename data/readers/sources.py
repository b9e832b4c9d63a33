"""Every published dataset's facts, collected from the reader modules that declare them.

A dataset is one reader module in ``data/readers/`` and one YAML in ``conf/dataset/``; the
module declares its dataset's facts beside its code, as a module-level
``DatasetSource`` (``data.readers.dataset_source``: layout, where it is published, licence,
published split sizes), and its reader's ``source`` is that row. ``SOURCES`` gathers every
module-level ``DatasetSource`` of the modules of ``data.readers`` by name, on first use (so
importing this module reads no reader); two different rows with one name are an error.
A reader from outside the package is read through its own ``source`` (the datacard asks
the reader first).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, Mapping

from data.readers.dataset_source import DatasetNotFoundError, DatasetSource

__all__ = ["SOURCES", "DatasetNotFoundError", "DatasetSource", "declared_sources"]


def declared_sources() -> dict[str, DatasetSource]:
    """``{name: row}`` of every module-level ``DatasetSource`` in the modules of
    ``data.readers``, modules by name, rows in declaration order; ValueError naming both
    modules when two different rows share a name."""
    import data.readers

    rows: dict[str, DatasetSource] = {}
    where: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(data.readers.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"data.readers.{info.name}")
        for value in vars(module).values():
            if not isinstance(value, DatasetSource):
                continue
            known = rows.get(value.name)
            if known is not None and known != value:
                raise ValueError(
                    f"dataset {value.name!r} is declared twice: in {where[value.name]} and "
                    f"in {module.__name__}"
                )
            if known is None:
                rows[value.name], where[value.name] = value, module.__name__
    return rows


class _Collected(Mapping):
    """The rows of ``declared_sources()``, collected once, on first use."""

    def __init__(self) -> None:
        self._rows: dict[str, DatasetSource] | None = None

    def _collected(self) -> dict[str, DatasetSource]:
        if self._rows is None:
            self._rows = declared_sources()
        return self._rows

    def __getitem__(self, name: str) -> DatasetSource:
        return self._collected()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._collected())

    def __len__(self) -> int:
        return len(self._collected())

    def __repr__(self) -> str:
        return f"SOURCES({', '.join(self)})"


SOURCES: Mapping[str, DatasetSource] = _Collected()
