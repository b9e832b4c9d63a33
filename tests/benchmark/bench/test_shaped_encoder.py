"""An encoder's shape with random weights (benchmark/bench/shaped_encoder.py): all-MiniLM-
L6-v2's shape from its configuration, the tokenizer of the source, new weights; a bad shape
or missing arguments refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from benchmark.bench import shaped_encoder
from benchmark.bench.gpu_kit import copy_encoder_files
from models.blocks.pretrained import load_pretrained


def test_the_minilm_shape_is_the_bundled_encoders_with_new_weights(tmp_path: Path):
    copy_encoder_files(tmp_path / "kit")  # configuration and tokenizer only, as the kit has
    folder = shaped_encoder.shape_folder("minilm", tmp_path / "kit", tmp_path / "shape")
    shaped, tokenizer = load_pretrained(folder)
    bundled, bundled_tokenizer = load_pretrained(None)
    assert shaped.config.to_dict() == {**bundled.config.to_dict(),
                                       "_name_or_path": shaped.config._name_or_path,
                                       "transformers_version": shaped.config.transformers_version}
    assert sum(p.numel() for p in shaped.parameters()) == sum(
        p.numel() for p in bundled.parameters())
    assert tokenizer.get_vocab() == bundled_tokenizer.get_vocab()
    name, weight = next(iter(shaped.state_dict().items()))
    assert not torch.equal(weight, bundled.state_dict()[name])  # random, not the pretrained


def test_a_bad_shape_or_missing_arguments_are_refused_in_one_line(tmp_path: Path, capsys):
    assert shaped_encoder.main(["shape=gpt", f"source={tmp_path}"]) == 2
    assert shaped_encoder.main(["presets=paragraph_listmle"]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert errors == [
        f"error: the first two arguments are shape=(minilm|bert-base) source=DIR; given: "
        f"shape=gpt source={tmp_path}",
        "error: the first two arguments are shape=(minilm|bert-base) source=DIR; given: "
        "presets=paragraph_listmle"]
    with pytest.raises(ValueError, match="shape=gpt: not one of minilm, bert-base"):
        shaped_encoder.shape_folder("gpt", tmp_path, tmp_path / "x")
