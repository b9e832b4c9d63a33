"""Base class for readers of a published dataset stored under ``dataset.path``."""

from __future__ import annotations

from pathlib import Path

from data.readers.base import OptionsReader
from data.readers.content_hash import files_sha256
from data.readers.dataset_source import DatasetSource


class PublishedReader(OptionsReader):
    """A reader with a ``path`` option and the facts of its dataset, ``source``: the
    ``DatasetSource`` its module declares (``data.readers.dataset_source``).

    Subclasses set ``source`` (a class attribute, or a property for a reader of several
    datasets) and implement ``files()`` (every file ``read_splits()`` reads, in a fixed
    order; missing ones raise ``self.source.not_found``). The fingerprint is the options
    other than ``path`` plus a hash of those files, so a moved dataset keeps its cache entry.
    """

    source: DatasetSource

    def __init__(self, path: str | None) -> None:
        self.path = None if path is None else str(path)

    def root(self) -> Path:
        """``path`` as an existing folder, or the error naming the expected layout."""
        if self.path is None:
            raise self.source.not_found("dataset.path is not set")
        root = Path(self.path).expanduser()
        if not root.is_dir():
            raise self.source.not_found(f"{root} is not a folder")
        return root

    def require_file(self, path: Path, what: str = "") -> Path:
        if not path.is_file():
            raise self.source.not_found(f"{path} is missing{what}")
        return path

    def files(self) -> list[Path]:
        raise NotImplementedError

    def size_hint(self) -> dict[str, int] | None:
        """The published split sizes (about what a copy of the dataset holds)."""
        return dict(self.source.sizes) if self.source.sizes else None

    def fingerprint(self) -> dict:
        options = {k: v for k, v in self.options().items() if k != "path"}
        return {
            "reader": self.KIND,
            "version": self.VERSION,
            **options,
            "sha256": files_sha256(self.root(), self.files()),
        }
