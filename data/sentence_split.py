"""An offline, rule-based English sentence splitter for `python -m benchmark.predict`.

A sentence ends at `.`, `!`, `?` or an ellipsis, optionally followed by closing quotes or
brackets, when white space and then a capital letter, a digit or an opening quote or
bracket follow. A full stop does not end a sentence after

- a known abbreviation that is rarely sentence-final (`Mr.`, `Dr.`, `e.g.`, `No.`, ...;
  see `ABBREVIATIONS`),
- a single capital letter (initials: `J. F. Kennedy`),
- a dotted acronym (`U.S.`, `a.m.`), so "in the U.S. Army" stays whole; the price is
  that a sentence really ending in one is joined to the next.

Decimals (`3.5`) and dotted names (`example.com`) never split: no space follows the dot.
Exclamation and question marks inside a quote followed by a lower-case word (`"Stop!" he
said.`) do not split either.
"""

from __future__ import annotations

import re

# Lower-cased abbreviations (with their final dot) after which a sentence rarely ends.
ABBREVIATIONS = frozenset(
    """
    mr. mrs. ms. messrs. dr. prof. rev. hon. st. sr. jr. mt. ft.
    gen. col. lt. capt. cmdr. sgt. maj. gov. sen. rep. pres. supt.
    e.g. i.e. cf. vs. viz. al. approx. ca. no. nos. vol. vols. fig. figs. pp. p. op. ch.
    jan. feb. mar. apr. jun. jul. aug. sep. sept. oct. nov. dec.
    """.split()
)

_CANDIDATE = re.compile(
    r"(?:[.!?]+|\u2026)"  # sentence-final punctuation
    r"[\"'\u201d\u2019)\]]*"  # closing quotes / brackets
    r"\s+"  # white space
    r"(?=[\"'\u201c\u2018(\[]?[A-Z0-9])"  # then a capital or digit, maybe after an opener
)
_INITIAL = re.compile(r"[A-Z]\.")
_ACRONYM = re.compile(r"(?:[A-Za-z]\.){2,}")


def _protected(text: str, end: int) -> bool:
    """Whether the word ending just before `end` (a single full stop) is not a sentence end."""
    start = end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    word = text[start : end + 1].lstrip("\"'\u201c\u2018([")  # the word and its full stop
    return (
        word.lower() in ABBREVIATIONS
        or _INITIAL.fullmatch(word) is not None
        or _ACRONYM.fullmatch(word) is not None
    )


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, in order, stripped, with inner white space collapsed."""
    text = " ".join(text.split())
    sentences, start = [], 0
    for match in _CANDIDATE.finditer(text):
        single_stop = match.group().startswith(".") and not match.group().startswith("..")
        if single_stop and _protected(text, match.start()):
            continue
        sentences.append(text[start : match.end()].strip())
        start = match.end()
    sentences.append(text[start:].strip())
    return [sentence for sentence in sentences if sentence]
