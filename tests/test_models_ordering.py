"""OrderingModel behaviour through the lstm_ptrnet preset (tiny dimensions)."""

from itertools import permutations

import pytest
import torch
import torch.nn.functional as F

from models.presets import lstm_ptrnet
from tests.model_batches import (
    assert_valid_orders,
    make_batch,
    random_batch,
    sub_batch,
    tiny_model,
)

SIZES = [3, 1, 6, 2, 5]  # paragraph lengths mixed in one batch


def test_forward_shape_and_masking():
    model, batch = tiny_model(), random_batch(1, SIZES)
    logits = model(batch)
    assert logits.shape == (5, 6, 6)
    assert torch.isfinite(logits).all() and not torch.isnan(logits).any()
    floor = torch.finfo(logits.dtype).min
    assert (logits[1, :, 1:] == floor).all()  # padding candidates of the 1-sentence doc
    gold = batch["gold_order"][2]
    for k in range(1, 6):
        assert (logits[2, k, gold[:k]] == floor).all()  # already placed
        assert (logits[2, k, gold[k:]] > floor).all()


@pytest.mark.parametrize("beam_size", [1, 3, 8])
def test_decode_returns_valid_permutations(beam_size):
    model, batch = tiny_model(), random_batch(2, SIZES)
    orders = model.decode(batch, beam_size=beam_size)
    assert orders.shape == (5, 6) and orders.dtype == torch.long
    assert_valid_orders(orders, batch["n_sentences"])


def test_single_sentence_document():
    model, batch = tiny_model(), make_batch([[[3, 4]]])
    assert model.decode(batch).tolist() == [[0]]
    assert model.decode(batch, beam_size=4).tolist() == [[0]]
    torch.testing.assert_close(model.log_prob(batch, batch["gold_order"]), torch.zeros(1))


def test_padding_invariance():
    model, batch = tiny_model(), random_batch(3, SIZES)
    logits = model(batch)
    log_probs = model.log_prob(batch, batch["gold_order"])
    for beam_size in (1, 4):
        decoded = model.decode(batch, beam_size=beam_size)
        for b, size in enumerate(SIZES):
            alone = sub_batch(batch, b)
            assert torch.equal(model.decode(alone, beam_size=beam_size)[0], decoded[b, :size])
    for b, size in enumerate(SIZES):
        alone = sub_batch(batch, b)
        torch.testing.assert_close(model(alone)[0], logits[b, :size, :size])
        torch.testing.assert_close(model.log_prob(alone, alone["gold_order"])[0], log_probs[b])


def test_log_prob_is_negative_per_document_loss():
    model, batch = tiny_model(), random_batch(4, SIZES)
    logits, gold = model(batch), batch["gold_order"]
    nll = F.cross_entropy(logits.flatten(0, 1), gold.flatten(), ignore_index=-1, reduction="none")
    per_document = nll.view(gold.shape).sum(dim=1)  # (B,)
    torch.testing.assert_close(model.log_prob(batch, gold), -per_document)
    torch.testing.assert_close(model.loss(batch), per_document.mean())


def test_log_prob_of_all_orders_sums_to_one():
    model, batch = tiny_model(), random_batch(5, [4])
    orders = torch.tensor(list(permutations(range(4))))  # (24, 4)
    repeated = {
        key: value.expand(24, *value.shape[1:]) if torch.is_tensor(value) else value * 24
        for key, value in batch.items()
    }
    total = model.log_prob(repeated, orders).exp().sum()
    torch.testing.assert_close(total, torch.tensor(1.0))


def test_gradients_reach_every_parameter():
    model = tiny_model().train()
    model.loss(random_batch(6, SIZES)).backward()
    for name, parameter in model.named_parameters():
        assert parameter.grad is not None, name
        assert parameter.grad.abs().sum() > 0, name


def test_pretrained_embeddings_set_the_width():
    pretrained = torch.randn(30, 5)
    model = lstm_ptrnet(vocab_size=30, pretrained_embeddings=pretrained, hidden_dim=4)
    assert model.embedding.dim == 5
    assert torch.equal(model.embedding.embedding.weight[1:], pretrained[1:])
    with pytest.raises(ValueError, match="embedding_dim=6"):
        lstm_ptrnet(vocab_size=30, pretrained_embeddings=pretrained, embedding_dim=6)


def test_bad_inputs_raise_clear_errors():
    model, batch = tiny_model(), random_batch(7, [3, 2])
    with pytest.raises(ValueError, match="not a permutation"):
        model.log_prob(batch, torch.tensor([[0, 0, 1], [1, 0, -1]]))
    with pytest.raises(ValueError, match="beam_size"):
        model.decode(batch, beam_size=0)
    with pytest.raises(ValueError, match="missing key"):
        model({key: value for key, value in batch.items() if key != "token_lengths"})
    broken = dict(batch, sentence_mask=torch.ones(2, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="sentence_mask"):
        model(broken)
