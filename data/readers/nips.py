"""NIPS abstracts (Logeswaran, Lee & Radev 2018) in either of their two published layouts,
the reader of ``dataset=nips``:

- ``logeswaran``: the authors' own release, ``split/`` listings and ``txt_tokenized/``
  (``data.readers.logeswaran``, with the published sizes);
- ``nseg``: the copy distributed with the SE-Graph code (Yin et al. 2019), one abstract per
  line in ``train.lower`` / ``val.lower`` / ``test.lower`` (``data.readers.nseg``, with its
  sizes).

``layout: auto`` (default) reads the layout whose files are in the folder and refuses, in
one line naming both layouts, a folder holding neither or both; ``layout: logeswaran`` or
``nseg`` reads that one only. ``resolved_layout()`` says which was read (the datacard and
the run record's data stats show it), and ``source`` is that layout's facts (its published
sizes), declared by its reader's module (``logeswaran.NIPS``, ``nseg.SOURCE``). The
dataset name stays ``nips`` either way, so both layouts share the permutation seed name
(their ids differ: listed names against ``<split>-<line>``). The fingerprint is the chosen
layout's reader's, so the processed cache of a ``logeswaran`` folder is the one it had
before this reader existed.
"""

from __future__ import annotations

from pathlib import Path

from data.document import Document
from data.readers.base import OptionsReader
from data.readers.dataset_source import DatasetNotFoundError, DatasetSource
from data.readers.logeswaran import LAYOUTS as LOGESWARAN_LAYOUTS
from data.readers.logeswaran import NIPS, LogeswaranReader
from data.readers.nseg import SEPARATOR, NsegReader
from data.readers.nseg import SOURCE as NSEG
from data.readers.published import PublishedReader

LAYOUTS = ("logeswaran", "nseg")
LAYOUT_SOURCES = {"logeswaran": NIPS, "nseg": NSEG}  # layout -> its dataset's facts


def layouts_message(problem: str) -> str:
    """One line: ``problem`` and both expected layouts, where each is published and the
    option that picks one."""
    expected = "; ".join(
        f"{layout}: {source.layout}, published: {source.published}"
        for layout, source in LAYOUT_SOURCES.items()
    )
    return (
        f"nips: {problem}; expected one of two layouts under dataset.path -- {expected}; "
        f"choose one with dataset.reader.layout={'|'.join(LAYOUTS)}"
    )


class NipsReader(OptionsReader):
    """``path``: the dataset folder; ``layout``: ``auto``, ``logeswaran`` or ``nseg``;
    ``separator``, ``split_files``, ``side_files``: the ``nseg`` options of
    ``data.readers.nseg.NsegReader`` (unused for ``logeswaran``)."""

    KIND = "nips"

    def __init__(
        self,
        path: str | None,
        layout: str = "auto",
        separator: str = SEPARATOR,
        split_files: dict[str, str] | None = None,
        side_files: dict[str, str] | None = None,
    ) -> None:
        if layout not in ("auto", *LAYOUTS):
            raise ValueError(f"layout must be auto or one of {LAYOUTS}, got {layout!r}")
        self.path = None if path is None else str(path)
        self.layout = layout
        self._nseg = NsegReader(path, separator, split_files, side_files)
        self._logeswaran = LogeswaranReader(path, "nips")
        self.separator = self._nseg.separator
        self.split_files = self._nseg.split_files
        self.side_files = self._nseg.side_files

    def _fits(self, root: Path) -> dict[str, bool]:
        """Per layout, whether any of its split files is in ``root``."""
        listings = LOGESWARAN_LAYOUTS["nips"].listings.values()
        return {
            "logeswaran": any((root / "split" / name).is_file() for name in listings),
            "nseg": any((root / name).is_file() for name in self.split_files.values()),
        }

    def resolved_layout(self) -> str:
        """The layout read: ``layout`` when given, else the one found in the folder."""
        if self.layout != "auto":
            return self.layout
        if self.path is None:
            raise DatasetNotFoundError(layouts_message("dataset.path is not set"))
        root = Path(self.path).expanduser()
        if not root.is_dir():
            raise DatasetNotFoundError(layouts_message(f"{root} is not a folder"))
        found = [layout for layout, fits in self._fits(root).items() if fits]
        if not found:
            raise DatasetNotFoundError(layouts_message(f"{root} holds neither layout"))
        if len(found) > 1:
            raise DatasetNotFoundError(
                f"nips: {root} holds both layouts (split/ listings and "
                f"{', '.join(self.split_files.values())}); choose one with "
                f"dataset.reader.layout={'|'.join(LAYOUTS)}"
            )
        return found[0]

    def reader(self) -> PublishedReader:
        """The reader of the resolved layout."""
        return self._logeswaran if self.resolved_layout() == "logeswaran" else self._nseg

    @property
    def source(self) -> DatasetSource:
        return LAYOUT_SOURCES[self.resolved_layout()]

    def files(self) -> list[Path]:
        return self.reader().files()

    def fingerprint(self) -> dict:
        return self.reader().fingerprint()

    def read_splits(self) -> dict[str, list[Document]]:
        return self.reader().read_splits()
