"""Lower-cased tokenizers of sentence text (`dataset.datamodule.tokenizer`).

- ``regex`` (the default): splits English clitics the way GloVe's tokenizer does
  (``don't`` -> ``do n't``, ``Atlanta's`` -> ``atlanta 's``), keeps abbreviations with
  inner dots (``u.s.``), decimals and hyphenated words (``3.5``, ``free-for-all``), dashes
  (``--``) and ellipses together, and makes every other non-space character a token of
  its own.
- ``whitespace``: the tokens of a corpus that comes tokenised (the NIPS/AAN/NSF abstracts
  of the SE-Graph copies): split at white space only, so ``face/image`` or ``intra-``
  stay one token as the corpus has them (``regex`` splits them further).
"""

from __future__ import annotations

import re
from collections.abc import Callable

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


def split_at_whitespace(text: str) -> list[str]:
    """Lower-cased white-space-separated tokens of an already tokenised ``text``."""
    return text.lower().split()


TOKENIZERS = {"regex": tokenize, "whitespace": split_at_whitespace}
DEFAULT_TOKENIZER = "regex"


def tokenizer_named(name: str) -> Callable[[str], list[str]]:
    """The tokenizer called `name` (`TOKENIZERS`); ValueError naming the choices."""
    if name not in TOKENIZERS:
        raise ValueError(f"expected one of {sorted(TOKENIZERS)}, got {name!r}")
    return TOKENIZERS[name]
