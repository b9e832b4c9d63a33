"""Order your own sentences with a trained run: `orderbench predict RUN_DIR FILE [beam=K]
[split=auto|lines|text]` (`benchmark.cli_commands.PREDICT`).

`input` is a UTF-8 file (`-` reads standard input) holding either one sentence per line or
raw text, which is split into sentences offline (`data.sentence_split`). `split=auto`
(the default) reads one sentence per line when the input has several non-blank lines and
none of them holds more than one sentence, and raw text otherwise. The sentences are
presented to the model in the order given; the ordered text is printed the way it came
(one sentence per line, or as one paragraph). `beam` defaults to the run's test beam.

Words the run's vocabulary lacks are read as `<unk>`; a note on stderr counts them and
names the first few (`unknown_words_note`).

A finished run's record is checked first with the files the model is loaded from
(`vocab.json`, the checkpoint: `benchmark.run.finished_run`): a file changed after the run
(two words swapped in the vocabulary would order text differently, silently) is refused
in one line naming it.

Errors (a missing run directory, a run without checkpoint, a record or file that cannot be
trusted, an empty or unreadable input, a bad argument) print one line on stderr and exit
with status 2.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from benchmark.cli_arguments import UsageError, report_error, warnings_printed
from benchmark.cli_commands import PREDICT
from benchmark.run.finished_run import RunError, load_finished_run
from data.sentence_split import split_sentences

NAMED_UNKNOWN = 5  # distinct unknown words a note names


def unknown_words_note(unknown: Sequence[str], total: int) -> str | None:
    """The note on the words not in the run's vocabulary (one entry per occurrence), naming
    the first `NAMED_UNKNOWN` distinct ones; None when there are none."""
    if not unknown:
        return None
    distinct = list(dict.fromkeys(unknown))
    named = ", ".join(repr(word) for word in distinct[:NAMED_UNKNOWN])
    more = len(distinct) - NAMED_UNKNOWN
    if more > 0:
        named += f" and {more} more"
    verb = "is" if len(unknown) == 1 else "are"
    return (f"{len(unknown)} of {total} words {verb} not in the run's vocabulary (read as "
            f"<unk>): {named}")  # fmt: skip


def parse_args(argv: Sequence[str]) -> dict:
    """The arguments (`PREDICT`): `run`, `input`, `beam` (an int, or None for the run's
    own), `split`."""
    return PREDICT.parse(argv)


def read_input(source: str) -> str:
    """The text of `source` (a file path, or `-` for standard input)."""
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{source}: no such input file") from None
    except UnicodeDecodeError as error:
        raise UsageError(f"{source}: not UTF-8 text ({error.reason})") from None
    except OSError as error:
        raise UsageError(f"{source}: cannot read input ({error.strerror})") from None


def sentences_of(text: str, mode: str = "auto") -> tuple[list[str], bool]:
    """(sentences, one_per_line) of the input `text` under split `mode` (see module doc)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    one_per_line = mode == "lines" or (
        mode == "auto" and len(lines) > 1 and all(len(split_sentences(line)) == 1 for line in lines)
    )
    sentences = lines if one_per_line else split_sentences(text)
    if not sentences:
        raise UsageError("the input is empty: give one sentence per line, or raw text")
    return sentences, one_per_line


def main(argv: Sequence[str] | None = None) -> int:
    return PREDICT.run(argv, _predict, parse_args)


def _predict(args: dict) -> int:
    try:
        sentences, one_per_line = sentences_of(read_input(args["input"]), args["split"])
        with warnings_printed(PREDICT.prog, on_error=False):  # unsealed: said once
            run = load_finished_run(args["run"])
        order = run.order(sentences, args["beam"])
    except (UsageError, RunError) as error:
        return report_error(PREDICT.prog, error)
    if note := unknown_words_note(*run.unknown_words(sentences)):
        print(f"{PREDICT.prog}: note: {note}", file=sys.stderr)
    ordered = [sentences[i] for i in order]
    print("\n".join(ordered) if one_per_line else " ".join(ordered))
    return 0


if __name__ == "__main__":
    sys.exit(main())
