"""Lower-cased regex word/punctuation tokenizer.

Splits English clitics the way GloVe's tokenizer does (``don't`` -> ``do n't``,
``Atlanta's`` -> ``atlanta 's``), keeps abbreviations with inner dots (``u.s.``),
decimals and hyphenated words (``3.5``, ``free-for-all``), dashes (``--``) and ellipses
together, and makes every other non-space character a token of its own.
"""

from __future__ import annotations

import re

TOKENIZER_VERSION = 1  # bump when the pattern changes (invalidates the processed cache)
_TOKEN = re.compile(
    r"(?:[a-z]\.){2,}"  # abbreviations: u.s., e.g.
    r"|\w+(?=n't\b)|n't\b"  # did|n't
    r"|'(?:s|re|ve|ll|d|m)\b"  # 's 're 've 'll 'd 'm
    r"|\w+(?:[-.]\w+)*"  # words, numbers, hyphenated words
    r"|--+|\.{2,}"  # dashes, ellipses
    r"|\S"  # any other single character
)


def tokenize(text: str) -> list[str]:
    """Lower-cased tokens of ``text`` (possibly empty)."""
    return _TOKEN.findall(text.lower())
