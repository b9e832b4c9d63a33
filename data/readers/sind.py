"""SIND: the stories of VIST, Huang et al. (2016), "Visual Storytelling" (NAACL), in the
published story-in-sequence JSON.

Under ``dataset.path`` (or its ``sis/`` folder): ``train.story-in-sequence.json``,
``val.story-in-sequence.json`` (our ``valid``) and ``test.story-in-sequence.json``. Each
holds ``"annotations"``: a list of one-element lists, one per sentence, with
``story_id``, ``worker_arranged_photo_order`` (the sentence's position in its story),
``original_text`` (as the worker wrote it) and ``text`` (lower-cased, tokenised, names
replaced by placeholders). A story is the sentences sharing a ``story_id``, ordered by
``worker_arranged_photo_order``; ``text_field`` picks which text is kept. Ids are the
story ids, stories keep their first-appearance order, ``source`` is the album (VIST's
splits are by album) and ``meta = {"album_id"}``.

``layout: arxiv`` reads instead the text files ATTOrderNet's release ships (Cui et al. 2018):
``train.txt``, ``valid.txt``, ``test.txt`` in the arXiv-abstract layout of
``data.readers.arxiv`` (stories separated by a whitespace-only line, two header lines, five
lower-cased ``text`` sentences with name placeholders); ids ``<split>-<k>``, no album, so
``source`` is the id. The published valid/test hold 4,990 / 5,055 stories.
"""

from __future__ import annotations

import json
from pathlib import Path

from data.document import Document
from data.errors import DataFormatError
from data.readers.arxiv import read_documents
from data.readers.dataset_source import DatasetSource
from data.readers.published import PublishedReader
from data.splits import SPLIT_NAMES

SOURCE = DatasetSource(
    name="sind",
    paper="Huang et al. 2016, Visual Storytelling (NAACL); SIND = VIST stories",
    published=(
        "https://visionandlanguage.net/VIST/dataset.html (the Stories of "
        "Images-in-Sequence annotations)"
    ),
    layout=(
        "train.story-in-sequence.json, val.story-in-sequence.json, "
        "test.story-in-sequence.json (directly or in sis/)"
    ),
    licence="VIST annotations, terms on the VIST page (Flickr images not needed)",
    sizes={"train": 40155, "valid": 4990, "test": 5055},
)

FILES = {"train": "train", "valid": "val", "test": "test"}
SUFFIX = ".story-in-sequence.json"
TEXT_FIELDS = ("original_text", "text")
KEYS = ("story_id", "album_id", "worker_arranged_photo_order")
LAYOUTS = ("vist", "arxiv")
ARXIV_LAYOUT = (
    " (dataset.reader.layout=arxiv: train.txt, valid.txt and test.txt, blank-line separated "
    "stories with two header lines, as in ATTOrderNet's release)"
)


def _annotation(entry: object, where: str, text_field: str) -> dict:
    record = entry[0] if isinstance(entry, list) and len(entry) == 1 else entry
    if not isinstance(record, dict):
        raise DataFormatError(f"{where}: expected [{{...}}], got {json.dumps(entry)[:80]}")
    missing = [key for key in (*KEYS, text_field) if key not in record]
    if missing:
        raise DataFormatError(f"{where}: missing key(s) {missing}")
    if not isinstance(record["worker_arranged_photo_order"], int):
        raise DataFormatError(f"{where}: worker_arranged_photo_order must be an integer")
    return record


def read_stories(path: Path, text_field: str) -> list[Document]:
    """The stories of one story-in-sequence file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise DataFormatError(f"{path}:{err.lineno}: malformed JSON ({err.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("annotations"), list):
        raise DataFormatError(f"{path}: expected an object with an 'annotations' list")
    stories: dict[str, list[dict]] = {}
    for k, entry in enumerate(data["annotations"]):
        record = _annotation(entry, f"{path}: annotations[{k}]", text_field)
        stories.setdefault(str(record["story_id"]), []).append(record)
    documents = []
    for story_id, records in stories.items():
        records.sort(key=lambda r: r["worker_arranged_photo_order"])
        positions = [r["worker_arranged_photo_order"] for r in records]
        if len(set(positions)) != len(positions):
            raise DataFormatError(
                f"{path}: story {story_id!r} repeats a worker_arranged_photo_order: {positions}"
            )
        albums = {str(r["album_id"]) for r in records}
        if len(albums) != 1:
            raise DataFormatError(f"{path}: story {story_id!r} spans albums {sorted(albums)}")
        (album,) = albums
        try:
            sentences = [r[text_field] for r in records]
            documents.append(Document(story_id, sentences, {"album_id": album}, album))
        except DataFormatError as err:
            raise DataFormatError(f"{path}: {err}") from None
    if not documents:
        raise DataFormatError(f"{path}: no stories")
    return documents


class SindReader(PublishedReader):
    """``path``: the folder with the three story-in-sequence files (or their ``sis/``
    parent); ``text_field``: ``original_text`` (default) or ``text``; ``layout``: ``vist``
    (the JSON files, default) or ``arxiv`` (see the module docstring)."""

    KIND = "sind"
    source = SOURCE

    def __init__(
        self, path: str | None, text_field: str = "original_text", layout: str = "vist"
    ) -> None:
        if text_field not in TEXT_FIELDS:
            raise ValueError(f"text_field must be one of {TEXT_FIELDS}, got {text_field!r}")
        if layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
        super().__init__(path)
        self.text_field = text_field
        self.layout = layout

    def file(self, split: str) -> Path:
        """The file of ``split`` (``train``, ``valid`` or ``test``)."""
        root = self.root()
        if self.layout == "arxiv":
            return self.require_file(root / f"{split}.txt", ARXIV_LAYOUT)
        folder = root / "sis" if (root / "sis" / f"train{SUFFIX}").is_file() else root
        return self.require_file(folder / f"{FILES[split]}{SUFFIX}")

    def files(self) -> list[Path]:
        return [self.file(split) for split in SPLIT_NAMES]

    def read_split(self, split: str) -> list[Document]:
        """The stories of one split (the other files need not exist)."""
        path = self.file(split)
        if self.layout == "vist":
            return read_stories(path, self.text_field)
        documents = read_documents(split, path)
        if not documents:
            raise DataFormatError(f"{path}: no stories")
        return documents

    def read_splits(self) -> dict[str, list[Document]]:
        self.files()  # every file is there before any is read
        return {split: self.read_split(split) for split in SPLIT_NAMES}
