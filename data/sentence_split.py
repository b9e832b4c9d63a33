"""English sentence splitting for raw text (`orderbench predict`, the `hf` reader's
`sentence_splitter="rules"`), by pySBD (Sadvilkar and Neumann 2020, "PySBD: Pragmatic
Sentence Boundary Disambiguation"; the rules of the Golden Rules set: abbreviations,
initials, acronyms, decimals, quotes, ellipses). Offline: pySBD is a rule set, with no model
or data to fetch.
"""

from __future__ import annotations

from functools import lru_cache

import pysbd


@lru_cache(maxsize=1)
def _segmenter() -> pysbd.Segmenter:
    return pysbd.Segmenter(language="en", clean=False)


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, in order, stripped, with inner white space collapsed."""
    text = " ".join(text.split())
    if not text:
        return []
    return [sentence.strip() for sentence in _segmenter().segment(text) if sentence.strip()]
