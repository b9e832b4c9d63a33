"""A pretrained encoder's shape with random weights, where its weights are not at hand (a GPU
machine lent with no network; BERT-base's weights are not on this machine): what a training
step costs depends on the shape, not on the values, so the paragraph presets' cost is
measured (`orderbench bench encoder_shape=bert-base`, the GPU check's paragraph steps) and
counted (scripts/estimate_paragraph_gpu.py) on it.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import torch

from benchmark.bench.preset import Settings
from benchmark.cli_commands import ENCODER_SHAPES

SHAPES = dict(zip(ENCODER_SHAPES, (
    "all-MiniLM-L6-v2 (6 layers, 384 wide, 12 heads): the configuration of the source",
    "BERT-base (transformers.BertConfig()'s defaults: 12 layers, 768 wide, 12 heads, "
    "110 M parameters)",
), strict=True))  # fmt: skip
SEED = 0  # the random weights'
ENCODER_KEY = re.compile(r"^\+{0,2}model\.net\.encoder=(.+)$")  # the override naming one


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


@contextmanager
def shaped_settings(settings: Settings) -> Iterator[Settings]:
    """`settings` with `++model.net.encoder=` a folder of `settings.encoder_shape`, built
    from the encoder its overrides name (else the bundled one), for as long as the context
    lasts; `settings` themselves without a shape."""
    if settings.encoder_shape is None:
        yield settings
        return
    from models.blocks.pretrained import resolve_model_path

    named = [m.group(1) for m in map(ENCODER_KEY.match, settings.overrides) if m]
    source = named[-1] if named else resolve_model_path(None)
    with tempfile.TemporaryDirectory(prefix="orderbench-shape-") as folder:
        encoder = shape_folder(settings.encoder_shape, source, Path(folder))
        yield replace(settings, overrides=(*settings.overrides, f"++model.net.encoder={encoder}"))
