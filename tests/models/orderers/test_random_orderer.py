"""The `random` baseline preset."""

import math

import torch

from models import presets
from tests.model_batches import random_batch, sub_batch

SIZES = [3, 1, 6, 2, 5]


def test_random_preset_ignores_model_arguments_and_has_no_parameters():
    model = presets.random(vocab_size=100, pretrained_embeddings=None, seed=3)
    assert list(model.parameters()) == []


def test_random_decode_returns_valid_reproducible_permutations():
    model, batch = presets.random(seed=0), random_batch(0, SIZES)
    orders = model.decode(batch, beam_size=4)
    assert orders.shape == (5, 6)
    for row, size in zip(orders.tolist(), SIZES, strict=True):
        assert sorted(row[:size]) == list(range(size)) and row[size:] == [-1] * (6 - size)
    assert torch.equal(orders, model.decode(batch))
    alone = sub_batch(batch, 2)
    assert model.decode(alone)[0].tolist() == orders[2, :6].tolist()  # batching-independent


def test_random_decode_varies_with_document_and_seed():
    batch = random_batch(1, [4] * 300)
    orders = presets.random(seed=0).decode(batch)
    assert len({tuple(row) for row in orders.tolist()}) == 24  # every order of 4 shows up
    assert not torch.equal(orders, presets.random(seed=1).decode(batch))


def test_random_log_prob_and_loss():
    model, batch = presets.random(), random_batch(2, SIZES)
    expected = torch.tensor([-math.lgamma(size + 1) for size in SIZES])
    torch.testing.assert_close(model.log_prob(batch, batch["gold_order"]), expected)
    torch.testing.assert_close(model.log_prob(batch, model.decode(batch)), expected)
    torch.testing.assert_close(model.loss(batch), -expected.mean())


def test_random_forward_is_uniform_over_remaining_sentences():
    model, batch = presets.random(), random_batch(3, SIZES)
    logits = model(batch)
    assert logits.shape == (5, 6, 6) and torch.isfinite(logits).all()
    gold = batch["gold_order"]
    picked = torch.log_softmax(logits, -1).gather(2, gold.clamp(min=0).unsqueeze(-1))
    log_probs = picked.squeeze(-1).where(gold >= 0, torch.zeros(())).sum(1)
    torch.testing.assert_close(log_probs, model.log_prob(batch, gold))
