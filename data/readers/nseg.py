"""NIPS abstracts in the one-abstract-per-line layout distributed with the SE-Graph code of
Yin et al. (2019), "Graph-based Neural Sentence Ordering" (IJCAI), DeepLearnXMU/NSEG
``nips/``, and used again by later work (BERSON, Cui et al. 2020). The abstracts are those
of Logeswaran et al. (2018); the split differs slightly (docs/datasets.md).

Under ``dataset.path``: one file per split (``split_files``, by default ``train.lower``,
``val.lower``, ``test.lower``), one abstract per line, lower-cased and tokenised, its
sentences joined by ``separator`` (``<eos>``). The sentences are the pieces between
separators with the whitespace around them stripped, so the separator never stays in the
text. A blank line (an empty document), an empty piece (two separators with nothing
between them, or one at either end of the line) and bytes that are not UTF-8 fail with one
line naming ``file:line``.

Ids are ``<split>-<line>`` (``test-266``: line 266 of the test file, 1-based): they depend
on the split and the line only, never on the folder, the machine or the text, and they
seed the fixed valid/test permutations (``data/shuffle.py``; the evaluation protocol of
docs/design.md). ``meta`` is ``{"corpus":
"nips", "file": <file name>, "line": <line>}``.

NSEG also ships ``train.eg``, ``val.eg``, ``test.eg``: one line per abstract listing its
entities, ``entity:i-r|j-r ...`` (the entity occurs in sentence ``i``, 0-based, in
syntactic role ``r``), which only its graph model reads. They are ignored unless
``side_files`` maps each split to such a file; each line then goes, as it is, into the
document's ``meta["side"]`` (the files must have one line per abstract) and into the
fingerprint.
"""

from __future__ import annotations

from pathlib import Path

from data.document import Document
from data.errors import DataFormatError, location
from data.readers.dataset_source import DatasetSource
from data.readers.lines import numbered_lines
from data.readers.published import PublishedReader
from data.splits import SPLIT_NAMES

SOURCE = DatasetSource(
    name="nips_nseg",
    paper=(
        "Yin et al. 2019, Graph-based Neural Sentence Ordering (IJCAI); the NIPS "
        "abstracts of Logeswaran et al. 2018 as distributed with that code"
    ),
    published="https://github.com/DeepLearnXMU/NSEG (folder nips/)",
    layout=(
        "train.lower, val.lower, test.lower (one abstract per line, sentences joined "
        "by ' <eos> '; train.eg, val.eg, test.eg beside them are not read)"
    ),
    licence="NIPS proceedings abstracts; research use, terms of the authors",
    sizes={"train": 2427, "valid": 408, "test": 377},
    config="nips",  # read by dataset=nips (data.readers.nips), with the option below
    options="dataset.reader.layout=nseg",
)

SEPARATOR = "<eos>"
SPLIT_FILES = {"train": "train.lower", "valid": "val.lower", "test": "test.lower"}
SIDE_FILES = {"train": "train.eg", "valid": "val.eg", "test": "test.eg"}  # NSEG's, not read


def split_mapping(value: object, option: str) -> dict[str, str]:
    """``value`` (a mapping, e.g. a Hydra ``DictConfig``) as a plain ``{split: file name}``
    over the three splits with three different files, else ``ValueError`` naming ``option``."""
    mapping = {str(k): str(v) for k, v in dict(value).items()}
    if sorted(mapping) != sorted(SPLIT_NAMES) or len(set(mapping.values())) != len(SPLIT_NAMES):
        raise ValueError(
            f"{option} maps {list(SPLIT_NAMES)} to three different files, got {mapping}"
        )
    return mapping


def split_sentences(line: str, separator: str, where: str) -> list[str]:
    """The sentences of one line: the pieces between ``separator``, stripped; an empty line
    or piece raises ``DataFormatError`` naming ``where`` (``file:line``)."""
    if not line.strip():
        raise DataFormatError(f"{where}: empty line (expected one document per line)")
    pieces = [piece.strip() for piece in line.split(separator)]
    for k, piece in enumerate(pieces):
        if not piece:
            raise DataFormatError(
                f"{where}: sentence {k + 1} of {len(pieces)} is empty (nothing between two "
                f"{separator!r} separators, or one at an end of the line)"
            )
    return pieces


def read_documents(path: Path, split: str, separator: str) -> list[Document]:
    """The documents of one split file, one per line (``meta`` as in the module docstring)."""
    documents = [
        Document(
            id=f"{split}-{lineno}",
            sentences=split_sentences(line, separator, location(path, lineno)),
            meta={"corpus": "nips", "file": path.name, "line": lineno},
        )
        for lineno, line in numbered_lines(path)
    ]
    if not documents:
        raise DataFormatError(f"{location(path)}: no documents (expected one per line)")
    return documents


def side_lines(path: Path, n_documents: int, documents_file: Path) -> list[str]:
    """The lines of a side file, which must have one per document of ``documents_file``."""
    lines = [line for _, line in numbered_lines(path)]
    if len(lines) != n_documents:
        raise DataFormatError(
            f"{location(path)}: {len(lines)} lines, but {documents_file.name} holds "
            f"{n_documents} documents (a side file has one line per document)"
        )
    return lines


class NsegReader(PublishedReader):
    """``path``: the folder of the split files; ``separator``: the string between the
    sentences of a line; ``split_files``: split -> file name; ``side_files``: ``None``
    (ignored, default) or split -> side file name (see the module docstring)."""

    KIND = "nips_nseg"
    source = SOURCE

    def __init__(
        self,
        path: str | None,
        separator: str = SEPARATOR,
        split_files: dict[str, str] | None = None,
        side_files: dict[str, str] | None = None,
    ) -> None:
        if not separator:
            raise ValueError("separator must be a non-empty string")
        super().__init__(path)
        self.separator = str(separator)
        self.split_files = split_mapping(split_files or SPLIT_FILES, "split_files")
        self.side_files = None if side_files is None else split_mapping(side_files, "side_files")

    def split_file(self, split: str) -> Path:
        return self.require_file(self.root() / self.split_files[split], f" (the {split} split)")

    def side_file(self, split: str) -> Path:
        assert self.side_files is not None
        return self.require_file(
            self.root() / self.side_files[split], f" (the {split} side file, side_files)"
        )

    def files(self) -> list[Path]:
        files = [self.split_file(split) for split in SPLIT_NAMES]
        if self.side_files is not None:
            files += [self.side_file(split) for split in SPLIT_NAMES]
        return files

    def read_split(self, split: str) -> list[Document]:
        """The documents of one split (the other files need not exist)."""
        path = self.split_file(split)
        documents = read_documents(path, split, self.separator)
        if self.side_files is None:
            return documents
        side = side_lines(self.side_file(split), len(documents), path)
        return [
            Document(doc.id, doc.sentences, {**doc.meta, "side": line}, doc.source)
            for doc, line in zip(documents, side, strict=True)
        ]

    def read_splits(self) -> dict[str, list[Document]]:
        self.files()  # every file is there before any is read
        return {split: self.read_split(split) for split in SPLIT_NAMES}
