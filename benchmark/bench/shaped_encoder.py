"""A pretrained encoder's shape with random weights, where its weights are not at hand (a GPU
machine lent with no network; BERT-base's weights are not on this machine): what a training
step costs depends on the shape, not on the values, so the paragraph presets' cost is
measured (`benchmark.bench.gpu_check`) and counted (scripts/estimate_paragraph_gpu.py) on it.

`python -m benchmark.bench.shaped_encoder shape=NAME source=DIR [orderbench bench keys and
overrides]`: builds the shape (`SHAPES`) with the tokenizer of DIR (an encoder folder, or the
GPU kit's `encoder/`) into a temporary folder, then runs `orderbench bench` with
`++model.net.encoder=` that folder.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import torch

SHAPES = {
    "minilm": "all-MiniLM-L6-v2 (6 layers, 384 wide, 12 heads): the configuration in source",
    "bert-base": "BERT-base (transformers.BertConfig()'s defaults: 12 layers, 768 wide, "
                 "12 heads, 110 M parameters)",
}  # fmt: skip
SEED = 0  # the random weights'


def shape_folder(shape: str, source: str | Path, folder: Path) -> str:
    """An encoder folder of `shape` with random weights and `source`'s tokenizer (the same
    uncased WordPiece vocabulary of 30,522 pieces for both shapes)."""
    from transformers import AutoConfig, AutoModel, AutoTokenizer, BertConfig

    if shape not in SHAPES:
        raise ValueError(f"shape={shape}: not one of {', '.join(SHAPES)}")
    config = AutoConfig.from_pretrained(source) if shape == "minilm" else BertConfig()
    torch.manual_seed(SEED)
    AutoModel.from_config(config).save_pretrained(folder)
    AutoTokenizer.from_pretrained(source).save_pretrained(folder)
    return str(folder)


def main(argv: Sequence[str] | None = None) -> int:
    from benchmark.bench import suite

    words = list(sys.argv[1:] if argv is None else argv)
    given = {key: value for key, _, value in (w.partition("=") for w in words[:2])}
    if given.keys() != {"shape", "source"} or given["shape"] not in SHAPES:
        print(f"error: the first two arguments are shape=({'|'.join(SHAPES)}) source=DIR; "
              f"given: {' '.join(words[:2]) or 'none'}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="orderbench-shape-") as folder:
        encoder = shape_folder(given["shape"], given["source"], Path(folder))
        return suite.main([*words[2:], f"++model.net.encoder={encoder}"])


if __name__ == "__main__":
    sys.exit(main())
