"""Parameter counts of every registered preset (`models.registry`) at its published settings
(the defaults it declares, `models.registry.preset_settings`), as a Markdown table:
`orderbench params [vocab_size=20275]`.

The word embedding grows with the vocabulary, so it is listed apart from the encoders and
decoder; frozen parameters (the pretrained MiniLM) are listed apart from trainable ones.

`orderbench params markdown=docs/models.md` (`make docs`) rewrites the table of presets of
that page in place, between the lines `BEGIN` and `END` (a blank line after and before
them): a row per registered preset, its cells the preset's `summary`
(`models.registry.Summary`, declared where it is registered) and its counts. The rows keep
the page's order; a preset the page lacks is added at the end and a row of a preset no
longer registered is dropped. tests/test_docs.py holds the page's rows to `markdown_row`.
"""

import re
import sys
from pathlib import Path

from torch import nn

from models.registry import NO_DEFAULT, preset_settings, presets

BEGIN = (
    "<!-- the table of presets, written by `orderbench params markdown=docs/models.md` (make "
    "docs) from each preset's `summary` in models/presets/: edit it there -->"
)
END = "<!-- end of the table of presets -->"
HEADER = (
    "| preset | sentence encoder | paragraph encoder | decoder "
    "| trainable params (embedding + rest) | frozen |",
    "|---|---|---|---|---:|---:|",
)
ROW_NAME = re.compile(r"^\| `([^`]+)`")  # the preset a row of the table is of


def count(model: nn.Module) -> dict[str, int]:
    """-> trainable word-embedding, other trainable and frozen parameter counts."""
    embedding = getattr(model, "embedding", None)
    embedding_ids = {id(p) for p in embedding.parameters()} if embedding is not None else set()
    counts = {"embedding": 0, "network": 0, "frozen": 0}
    for parameter in model.parameters():
        if not parameter.requires_grad:
            counts["frozen"] += parameter.numel()
        elif id(parameter) in embedding_ids:
            counts["embedding"] += parameter.numel()
        else:
            counts["network"] += parameter.numel()
    return counts


def default_settings(name: str) -> dict:
    """The preset's declared settings at their defaults."""
    return {
        setting: default
        for setting, (_, default) in preset_settings(name).items()
        if default is not NO_DEFAULT
    }


def preset_counts(name: str, vocab_size: int) -> dict[str, int]:
    """`count` of the registered preset `name` built at its defaults, with the trainable
    total (`trainable`: word embedding + network)."""
    preset = presets()[name]
    counts = count(preset.build(vocab_size=vocab_size, **default_settings(name)))
    return {**counts, "trainable": counts["embedding"] + counts["network"]}


def table(vocab_size: int) -> str:
    """Markdown table of `count` for every preset built with its default settings."""
    lines = [
        "| preset | trainable total | word embedding | encoders + decoder | frozen |",
        "|---|---:|---:|---:|---:|",
    ]
    for name in presets():
        counts = preset_counts(name, vocab_size)
        cells = [counts[key] for key in ("trainable", "embedding", "network", "frozen")]
        lines.append(f"| `{name}` | " + " | ".join(f"{c:,}" for c in cells) + " |")
    return "\n".join(lines)


VOCAB_SIZE = 20275  # Brown's training vocabulary, <pad> and <unk> included


def markdown_row(name: str, vocab_size: int = VOCAB_SIZE) -> str:
    """The row of the registered preset `name` in the table of presets of docs/models.md:
    its `summary`'s cells, then its counts at its defaults (`trainable (embedding + rest)`,
    `0` when it has none; `frozen`). ValueError when it declares no summary."""
    summary = presets()[name].summary
    if summary is None:
        raise ValueError(
            f"preset {name!r} has no summary for the table of presets: register it with "
            "summary=Summary(sentences=..., paragraph=..., decoder=...) (models.registry)"
        )
    counts = preset_counts(name, vocab_size)
    trainable = counts["trainable"]
    note = f": {summary.trainable_note}" if summary.trainable_note else ""
    trainable_cell = (
        f"{trainable:,} ({counts['embedding']:,} + {counts['network']:,}{note})"
        if trainable
        else "0"
    )
    frozen_cell = f"{counts['frozen']:,}" + (
        f" ({summary.frozen_note})" if summary.frozen_note else ""
    )
    label = f"`{name}`" + (f" ({summary.label})" if summary.label else "")
    cells = [label, summary.sentences, summary.paragraph, summary.decoder]
    return "| " + " | ".join([*cells, trainable_cell, frozen_cell]) + " |"


def table_lines(text: str) -> list[str]:
    """The lines of the page `text` between `BEGIN` and `END` (ValueError without them)."""
    lines = text.splitlines()
    if BEGIN not in lines or END not in lines[lines.index(BEGIN) :]:
        raise ValueError(f"no table of presets: the lines {BEGIN!r} and {END!r} mark one")
    start = lines.index(BEGIN) + 1
    return lines[start : lines.index(END, start)]


def committed_rows(text: str) -> dict[str, str]:
    """{preset: its row} of the table of presets of the page `text`, in the page's order."""
    rows = {}
    for line in table_lines(text):
        if match := ROW_NAME.match(line):
            rows[match.group(1)] = line
    return rows


def markdown_table(vocab_size: int = VOCAB_SIZE, order: tuple[str, ...] = ()) -> list[str]:
    """The table of presets, `HEADER` and a `markdown_row` per registered preset: those of
    `order` first, in its order, then the others in registration order."""
    names = [name for name in order if name in presets()]
    names += [name for name in presets() if name not in names]
    return [*HEADER, *(markdown_row(name, vocab_size) for name in names)]


def write_markdown(path: Path, vocab_size: int = VOCAB_SIZE) -> tuple[list[str], list[str]]:
    """Rewrite the table of presets of the page `path` in place (`markdown_table`, in the
    page's order) -> (presets added, rows dropped)."""
    text = path.read_text(encoding="utf-8")
    before = list(committed_rows(text))
    table = markdown_table(vocab_size, tuple(before))
    lines = text.splitlines()
    start = lines.index(BEGIN) + 1
    lines[start : start + len(table_lines(text))] = ["", *table, ""]  # blank lines: Markdown
    path.write_text("\n".join(lines) + ("\n" if text.endswith("\n") else ""), encoding="utf-8")
    registered = presets()
    return [n for n in registered if n not in before], [n for n in before if n not in registered]


def main(vocab_size: int = VOCAB_SIZE, markdown: str | None = None) -> int:
    """Print the table, or with `markdown`, rewrite that page's table of presets
    (`write_markdown`) and say what changed (`orderbench params` parses the arguments: this
    module may not import benchmark/, so `python -m models.param_counts` takes none)."""
    if markdown is None:
        print(table(vocab_size))
        return 0
    try:
        added, dropped = write_markdown(Path(markdown), vocab_size)
    except (OSError, ValueError) as error:
        print(f"orderbench params: {error}", file=sys.stderr)
        return 2
    changes = [f"added {', '.join(added)}"] if added else []
    changes += [f"dropped {', '.join(dropped)}"] if dropped else []
    print(f"{markdown}: table of {len(presets())} presets written"
          + (f" ({'; '.join(changes)})" if changes else ""))  # fmt: skip
    return 0


if __name__ == "__main__":
    main()
