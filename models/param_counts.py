"""Parameter counts of every registered preset (`models.registry`) at its published settings
(the defaults it declares, `models.registry.preset_settings`), as a Markdown table for
docs/models.md: `orderbench params [vocab_size=20275]`.

The word embedding grows with the vocabulary, so it is listed apart from the encoders and
decoder; frozen parameters (the pretrained MiniLM) are listed apart from trainable ones.
"""

from torch import nn

from models.registry import NO_DEFAULT, preset_settings, presets


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


def table(vocab_size: int) -> str:
    """Markdown table of `count` for every preset built with its default settings."""
    lines = [
        "| preset | trainable total | word embedding | encoders + decoder | frozen |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, preset in presets().items():
        counts = count(preset.build(vocab_size=vocab_size, **default_settings(name)))
        trainable = counts["embedding"] + counts["network"]
        cells = [trainable, counts["embedding"], counts["network"], counts["frozen"]]
        lines.append(f"| `{name}` | " + " | ".join(f"{c:,}" for c in cells) + " |")
    return "\n".join(lines)


VOCAB_SIZE = 20275  # Brown's training vocabulary, <pad> and <unk> included


def main(vocab_size: int = VOCAB_SIZE) -> None:
    """Print the table (`orderbench params` parses its arguments: this module may not import
    benchmark/, so `python -m models.param_counts` takes none)."""
    print(table(vocab_size))


if __name__ == "__main__":
    main()
