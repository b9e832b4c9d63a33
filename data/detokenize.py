"""Rebuild readable text from Penn/Brown-style tokens.

The double-quote tokens (two backticks, two apostrophes) become ``"``; no space before
closing punctuation (``, . ; : ? ! ) ] }``, closing quotes, clitics such as ``'s`` and
``n't``); no space after opening brackets and opening quotes; ``--`` (a dash) keeps a
space on both sides. A lone ``'`` opens a quote when none is open, a word follows and
another lone ``'`` comes later in the sentence; otherwise it closes a quote or marks a
plural possessive (``farmers' market``) and attaches to the word before it.
"""

from __future__ import annotations

OPEN_DOUBLE, CLOSE_DOUBLE = "``", "''"
NO_SPACE_BEFORE = frozenset(", . ; : ? ! ) ] } % ... 's 'S n't N'T 're 've 'll 'd 'm".split())
NO_SPACE_AFTER = frozenset("( [ { $".split())
PUNCTUATION = NO_SPACE_BEFORE | NO_SPACE_AFTER | {"--", OPEN_DOUBLE, CLOSE_DOUBLE, "'"}


def detokenize(tokens: list[str]) -> str:
    """Join ``tokens`` into one string with natural spacing and straight double quotes."""
    pieces: list[str] = []
    glue_next = False
    single_open = False
    for i, token in enumerate(tokens):
        glue_before = token in NO_SPACE_BEFORE
        glue_after = token in NO_SPACE_AFTER
        text = token
        if token == OPEN_DOUBLE:
            text, glue_after = '"', True
        elif token == CLOSE_DOUBLE:
            text, glue_before = '"', True
        elif token == "'":
            next_is_word = i + 1 < len(tokens) and tokens[i + 1] not in PUNCTUATION
            if not single_open and next_is_word and "'" in tokens[i + 1 :]:
                single_open, glue_after = True, True
            else:
                single_open, glue_before = False, True
        if pieces and not (glue_next or glue_before):
            pieces.append(" ")
        pieces.append(text)
        glue_next = glue_after
    return "".join(pieces)
