"""The training fast paths (docs/performance.md, "Training at the published sizes") compute
what their reference paths (`models.compute_paths.reference_paths`) do: the same loss,
gradients and decoded orders for every preset, in training mode with dropout drawing the
same random numbers, and per part on mixed lengths."""

import random

import pytest
import torch

import models.blocks.sentence_lstm as sentence_lstm
from models.blocks.length_buckets import bucket_plan, length_buckets, reversal_index
from models.blocks.sentence_cnn import SentenceCNN
from models.blocks.sentence_lstm import SentenceLSTM, grouped_states, sentence_states
from models.compute_paths import reference_paths, use_reference
from models.families.attordernet.blocks.sentence_attention import SentenceSelfAttention
from models.families.han.blocks.han_word_attention import HANWordAttention
from tests.model_batches import PRESETS, random_batch, tiny_preset

MIXED = [3, 8, 1, 5, 2, 7, 4, 6]  # paragraph lengths 1..8 in one padded batch


def _random_words(seed, sentences=40, length=9, width=5):
    rng = random.Random(seed)
    torch.manual_seed(seed)
    lengths = torch.tensor([rng.randint(1, length) for _ in range(sentences)])
    return torch.randn(sentences, length, width, requires_grad=True), lengths


def bucketed_states(lstm, words, lengths, outputs=True):
    """`sentence_states` on the length buckets planned for `lengths`."""
    plan = bucket_plan(lengths, sentence_lstm.LSTM_CALL_COST)
    return sentence_states(lstm, words, lengths, plan, outputs)


def test_reference_paths_switch_and_restore():
    assert not use_reference()
    with reference_paths():
        assert use_reference()
        with reference_paths(False):
            assert not use_reference()
        assert use_reference()
    assert not use_reference()


@pytest.mark.parametrize("call_cost", [0, 3, 20, 1e9])
def test_length_buckets_cover_every_sentence_once_in_increasing_length(call_cost):
    lengths = torch.tensor([5, 1, 9, 5, 3, 3, 12, 1, 7, 9])
    groups = length_buckets(lengths, call_cost)
    rows = torch.cat([group for group, _ in groups])
    assert sorted(rows.tolist()) == list(range(len(lengths)))
    assert lengths[rows].tolist() == sorted(lengths.tolist())
    for group, longest in groups:
        assert longest == int(lengths[group].max())
    distinct = len(set(lengths.tolist()))
    expected = {0: distinct, 1e9: 1}.get(call_cost)  # free calls: one per length
    if expected is not None:
        assert len(groups) == expected


def test_reversal_index_reverses_each_prefix_and_keeps_padding():
    index = reversal_index(torch.tensor([3, 1, 4]), 5)
    assert index.tolist() == [[2, 1, 0, 3, 4], [0, 1, 2, 3, 4], [3, 2, 1, 0, 4]]
    assert torch.equal(index.gather(1, index), torch.arange(5).expand(3, 5))  # involution


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("layers", [1, 2])
@pytest.mark.parametrize("bias", [True, False])
def test_bucketed_sentence_lstm_equals_grouped(bidirectional, layers, bias):
    encoder = SentenceLSTM(5, 4, num_layers=layers, bidirectional=bidirectional).train()
    if not bias:
        encoder.lstm = torch.nn.LSTM(5, 4, layers, bias=False, bidirectional=bidirectional,
                                     batch_first=True)  # fmt: skip
    words, lengths = _random_words(layers + 2 * bidirectional)
    results = []
    for states in (grouped_states, bucketed_states):
        outputs, last = states(encoder.lstm, words, lengths)
        loss = (outputs * torch.linspace(-1, 1, outputs.shape[-1])).sum() + last.pow(2).sum()
        results.append((outputs, last, torch.autograd.grad(loss, [words, *encoder.parameters()])))
    (outputs, last, grads), (bucketed, bucketed_last, bucketed_grads) = results
    torch.testing.assert_close(bucketed, outputs)
    assert torch.equal(bucketed[outputs == 0], outputs[outputs == 0])  # zeros at padding
    torch.testing.assert_close(bucketed_last, last)
    no_outputs, final_only = bucketed_states(encoder.lstm, words, lengths, outputs=False)
    assert no_outputs is None and torch.equal(final_only, bucketed_last)
    for grad, bucketed_grad in zip(grads, bucketed_grads, strict=True):
        torch.testing.assert_close(bucketed_grad, grad, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("call_cost", [0, 7, 1e9])
def test_sentence_lstm_vectors_do_not_depend_on_the_buckets(call_cost, monkeypatch):
    encoder = SentenceLSTM(5, 4, bidirectional=True, pooling="mean").eval()
    words, lengths = _random_words(3)
    lengths[::6] = 0  # padding sentences
    expected = encoder(words, lengths)
    monkeypatch.setattr(sentence_lstm, "LSTM_CALL_COST", call_cost)
    torch.testing.assert_close(encoder(words, lengths), expected)
    with reference_paths():
        torch.testing.assert_close(encoder(words, lengths), expected)


def test_a_plan_covers_the_sentences_with_tokens_once_by_increasing_length():
    lengths = torch.tensor([5, 0, 9, 5, 3, 0, 12, 1])
    plan = bucket_plan(lengths, 3)
    assert sorted(plan.rows.tolist()) == [0, 2, 3, 4, 6, 7]  # no padding sentence
    assert lengths[plan.rows].tolist() == sorted(lengths[lengths > 0].tolist())
    assert sum(plan.sizes) == 6 and list(plan.longest) == sorted(plan.longest)
    nonempty = (lengths > 0).nonzero().squeeze(1)
    assert torch.equal(nonempty[plan.positions], plan.rows)  # positions among those rows
    empty = bucket_plan(torch.zeros(3, dtype=torch.long), 3)
    assert empty.sizes == () and len(empty.rows) == 0


ONE_CALL = {  # each bucketed encoder, in eval mode (no dropout)
    "lstm_last": lambda: SentenceLSTM(5, 4, bidirectional=True),
    "lstm_mean": lambda: SentenceLSTM(5, 4, num_layers=2, bidirectional=True, pooling="mean"),
    "cnn": lambda: SentenceCNN(5, 6, (2, 3)),
    "attention": lambda: SentenceSelfAttention(5, num_layers=2, heads=1, ff_dim=7, dropout=0.1),
    "han": lambda: HANWordAttention(5, 8, heads=2, dropout=0.05, lstm_layers=2),
}


@pytest.mark.parametrize("name", ONE_CALL)
def test_one_call_for_every_sentence_gives_the_buckets_vectors_and_gradients(name):
    """Without a plan (a GPU, a compiled step) an encoder runs every sentence at once,
    padding sentences included (zeros): the same vectors and gradients as its buckets."""
    torch.manual_seed(0)
    encoder = ONE_CALL[name]().eval()
    words, lengths = _random_words(7)
    lengths[::5] = 0  # padding sentences
    results = []
    for plan in (encoder.bucket_plan(lengths), None):
        vectors = encoder(words, lengths, plan)
        loss = (vectors * torch.linspace(-1, 1, vectors.shape[-1])).sum()
        results.append((vectors, torch.autograd.grad(loss, [words, *encoder.parameters()])))
    (bucketed, grads), (at_once, at_once_grads) = results
    torch.testing.assert_close(at_once, bucketed, atol=1e-5, rtol=1e-5)
    assert not at_once[lengths == 0].any()
    for grad, expected in zip(at_once_grads, grads, strict=True):
        torch.testing.assert_close(grad, expected, atol=1e-5, rtol=1e-4)


def _loss_and_grads(model, batch, seed):
    model.zero_grad(set_to_none=True)
    torch.manual_seed(seed)
    loss = model.loss(batch)
    loss.backward()
    return loss.detach(), {name: p.grad.clone() for name, p in model.named_parameters()
                           if p.grad is not None}  # fmt: skip


@pytest.mark.parametrize("preset", PRESETS)
def test_fast_paths_give_the_reference_loss_gradients_and_orders(preset):
    model = tiny_preset(preset, seed=11, dropout=0.3)
    batch = random_batch(12, MIXED, max_tokens=9)
    model.train()  # dropout on: both paths must draw the same random numbers
    loss, grads = _loss_and_grads(model, batch, seed=5)
    with reference_paths():
        expected, expected_grads = _loss_and_grads(model, batch, seed=5)
    torch.testing.assert_close(loss, expected, atol=1e-5, rtol=1e-5)
    assert grads.keys() == expected_grads.keys()
    for name, grad in grads.items():
        torch.testing.assert_close(grad, expected_grads[name], atol=1e-5, rtol=1e-4, msg=name)
    model.eval()
    for beam in (1, 4):
        orders, scores = model.search(batch, beam)
        with reference_paths():
            expected_orders, expected_scores = model.search(batch, beam)
        assert torch.equal(orders, expected_orders)
        torch.testing.assert_close(scores, expected_scores, atol=1e-5, rtol=1e-5)


def _outputs_and_grads(module, words, lengths, seed):
    torch.manual_seed(seed)
    vectors = module(words, lengths)
    loss = (vectors * torch.linspace(-1, 1, vectors.shape[-1])).sum()
    return vectors, torch.autograd.grad(loss, [words, *module.parameters()])


def _assert_paths_agree(module, words, lengths):
    fast, fast_grads = _outputs_and_grads(module, words, lengths, seed=2)
    with reference_paths():
        expected, expected_grads = _outputs_and_grads(module, words, lengths, seed=2)
    torch.testing.assert_close(fast, expected, atol=1e-5, rtol=1e-5)
    for grad, expected_grad in zip(fast_grads, expected_grads, strict=True):
        torch.testing.assert_close(grad, expected_grad, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("widths", [3, (2, 3, 5)])
def test_bucketed_cnn_pooling_before_the_relu_equals_the_reference(widths):
    torch.manual_seed(0)
    encoder = SentenceCNN(5, 6, widths, dropout=0.2).train()
    words, lengths = _random_words(8)  # sentences of 1..9 words, some shorter than a window
    lengths[::9] = 0  # padding sentences
    _assert_paths_agree(encoder, words, lengths)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("training", [True, False])
def test_bucketed_self_attention_equals_the_reference(norm_first, training):
    torch.manual_seed(0)
    encoder = SentenceSelfAttention(10, num_layers=2, heads=2, ff_dim=12, dropout=0.3)
    for layer in encoder.layers:
        layer.norm_first = norm_first
    encoder.train(training)
    words, lengths = _random_words(4, width=10)
    _assert_paths_agree(encoder, words, lengths)


def test_two_layer_han_word_encoder_paths_agree():
    torch.manual_seed(0)
    encoder = HANWordAttention(6, 8, heads=2, dropout=0.3, lstm_layers=2).train()
    words, lengths = _random_words(6, width=6)
    _assert_paths_agree(encoder, words, lengths)
