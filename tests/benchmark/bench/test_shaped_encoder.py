"""An encoder's shape with random weights (benchmark/bench/shaped_encoder.py,
`orderbench bench encoder_shape=`): all-MiniLM-L6-v2's shape from its configuration, the
tokenizer of the source, new weights; the bench's encoder override replaced by such a folder
for the run's duration; an unknown shape refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from benchmark.bench import shaped_encoder
from benchmark.bench.gpu_kit import copy_encoder_files
from benchmark.bench.suite import parse_args
from benchmark.cli_arguments import UsageError
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
    with pytest.raises(ValueError, match="shape=gpt: not one of minilm, bert-base"):
        shaped_encoder.shape_folder("gpt", tmp_path / "kit", tmp_path / "x")


def test_the_bench_reads_a_shape_built_from_the_encoder_it_names(tmp_path: Path, monkeypatch):
    built = []

    def fake_folder(shape, source, folder):
        built.append((shape, str(source), folder))
        return str(folder)

    monkeypatch.setattr(shaped_encoder, "shape_folder", fake_folder)
    _, plain, *_ = parse_args(["presets=paragraph_listmle", "dataset=nips", "quick=true"])
    with shaped_encoder.shaped_settings(plain) as same:
        assert same is plain and not built  # no shape: the settings as given
    kit = tmp_path / "kit"
    _, settings, *_ = parse_args(["presets=paragraph_listmle", "dataset=nips", "quick=true",
                                  "encoder_shape=bert-base", f"++model.net.encoder={kit}"])
    with shaped_encoder.shaped_settings(settings) as shaped:
        folder = built[0][2]
        assert built == [("bert-base", str(kit), folder)] and folder.is_dir()
        assert shaped.overrides == (f"++model.net.encoder={kit}",
                                    f"++model.net.encoder={folder}")  # the last one counts
    assert not folder.exists()  # removed after the run
    with pytest.raises(UsageError, match="encoder_shape"):
        parse_args(["presets=paragraph_listmle", "encoder_shape=gpt"])
