"""The ``Document`` record every reader produces: one paragraph with its sentences in the
gold (original) order."""

from __future__ import annotations

from dataclasses import dataclass, field

from data.errors import DataFormatError


@dataclass(frozen=True)
class Document:
    """One paragraph to be ordered.

    ``id`` is unique within its split; ``sentences`` are in gold order (sentence id =
    position); ``meta`` holds free-form JSON-serialisable information (genre, file ...);
    ``source`` names the text the paragraph comes from and is the grouping key for
    splitting (defaults to ``id``).

    Raises ``DataFormatError`` (a ``ValueError``) naming the id for an empty document,
    a non-string id, a non-string sentence or an empty (or whitespace-only) sentence.
    Readers add file:line to the message.
    """

    id: str
    sentences: tuple[str, ...]
    meta: dict = field(default_factory=dict)
    source: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise DataFormatError(f"document id must be a non-empty string, got {self.id!r}")
        if isinstance(self.sentences, str):
            raise DataFormatError(
                f"document {self.id!r}: sentences must be a list of strings, got one string"
            )
        sentences = tuple(self.sentences)
        if not sentences:
            raise DataFormatError(f"document {self.id!r} has no sentences")
        for k, sentence in enumerate(sentences):
            if not isinstance(sentence, str):
                raise DataFormatError(
                    f"document {self.id!r}: sentence {k} is {type(sentence).__name__}, "
                    "expected a string"
                )
            if not sentence.strip():
                raise DataFormatError(
                    f"document {self.id!r}: sentence {k} is empty (an empty sentence cannot "
                    "be ordered by its content)"
                )
        object.__setattr__(self, "sentences", sentences)
        if not isinstance(self.meta, dict):
            raise DataFormatError(f"document {self.id!r}: meta must be a JSON object")
        if not self.source:
            object.__setattr__(self, "source", self.id)

    def __len__(self) -> int:
        return len(self.sentences)
