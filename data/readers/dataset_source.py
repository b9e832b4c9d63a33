"""What a reader module declares about the published dataset it reads: one
``DatasetSource`` per dataset (where it comes from, how it must be laid out on disk, its
licence and published split sizes), written beside the reader's code as a module-level
constant, the single place for these facts. Readers raise ``source.not_found(problem)`` for
missing or mis-laid data; ``benchmark.datacard`` prints the published split sizes next to
the measured ones (from the reader's ``source``); ``data.readers.sources`` collects the rows
of every reader module; ``docs/datasets.md`` is their long form.
"""

from __future__ import annotations

from dataclasses import dataclass


class DatasetNotFoundError(FileNotFoundError):
    """A dataset is missing or not laid out as published; the message says what to fetch,
    from where, and where to put it."""


@dataclass(frozen=True)
class DatasetSource:
    """Facts about one published dataset.

    ``layout`` is relative to ``dataset.path``; ``sizes`` are the split sizes (documents)
    reported by the papers that define the benchmark version of the dataset; a dataset
    published without a validation split lists none, and its ``train`` then covers our
    train + valid (the validation split is cut from the published training set).

    A row is read by ``dataset=<name>`` unless ``config`` names another dataset config
    (one config reading several published layouts of one corpus); ``options`` are the
    overrides that select this row's layout in that config (e.g.
    ``dataset.reader.layout=nseg``).
    """

    name: str
    paper: str
    published: str
    layout: str
    licence: str
    sizes: dict[str, int]
    config: str = ""
    options: str = ""

    @property
    def dataset(self) -> str:
        """The ``dataset=`` config that reads this row's data."""
        return self.config or self.name

    def run_with(self) -> str:
        """The overrides that read this dataset from a folder."""
        options = f" {self.options}" if self.options else ""
        return f"dataset={self.dataset}{options} dataset.path=/path/to/{self.name}"

    def not_found(self, problem: str) -> DatasetNotFoundError:
        return DatasetNotFoundError(
            f"{self.name}: {problem}\n"
            f"  expected layout under dataset.path: {self.layout}\n"
            f"  published: {self.published} ({self.paper})\n"
            f"  then run with {self.run_with()}"
        )
