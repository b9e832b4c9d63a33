"""The fast paths of docs/performance.md compute what the plain ones do: beam search that
decodes only rows with a live hypothesis, the HAN decoder's cached encoder keys and values
and its cache of the placed prefix's self-attention keys and values, and the sentence LSTM
run per group of equal-length sentences."""

import random

import pytest
import torch
from fixtures_search import TransitionDecoder, brute_force, run

from models.blocks.sentence_lstm import SentenceLSTM, grouped_states, packed_states
from models.compute_paths import reference_paths
from models.families.han.blocks.pointer_transformer import TransformerPointerDecoder, by_layer
from models.interfaces import ParagraphEncoding
from models.noise.noise_wrapper import NoiseWrapper
from models.search.beam_search import beam_search
from models.search.reference_search import reference_search
from tests.model_batches import random_batch, tiny_preset

MIXED = [3, 8, 1, 5, 2, 7, 4, 6]  # lengths 1..8 in one padded batch

GO = (1, 1)  # the GO sentence: <unk> twice, as the harness builds it


class CountingDecoder(TransitionDecoder):
    """TransitionDecoder that records how many rows each step decodes."""

    def __init__(self):
        self.rows = []

    def step(self, memory, state, previous, available):
        self.rows.append(available.shape[0])
        return super().step(memory, state, previous, available)


def test_beam_decodes_only_live_rows_and_skips_the_forced_step():
    table = torch.randn(2, 6, 5)  # (B, N + 1, N)
    available = torch.arange(5) < torch.tensor([[4], [2]])  # n = 4 and 2
    decoder = CountingDecoder()
    memory, state = decoder.start(table)
    beam_search(decoder, memory, state, available, beam_size=64)
    # step 0: the empty order of both; step 1: 4 and 2 live, document 2 is forced (not
    # decoded); step 2: 4 * 3 = 12; step 3: forced for document 1
    assert decoder.rows == [2, 4, 12]


@pytest.mark.parametrize("seed", [0, 1])
def test_stub_beam_with_row_skipping_is_exact_on_lengths_1_to_6(seed):
    torch.manual_seed(seed)
    sizes = [6, 1, 4, 2, 5, 3]
    table = torch.randn(len(sizes), 7, 6) * 2  # (B, N + 1, N)
    available = torch.arange(6) < torch.tensor(sizes).unsqueeze(1)
    orders, scores = run(beam_search, table, available, beam_size=720)  # 6! keeps all
    for b, size in enumerate(sizes):
        best, best_score = brute_force(table[b], size)
        assert orders[b].tolist() == best + [-1] * (6 - size)
        assert scores[b].item() == pytest.approx(best_score, abs=1e-4)


@pytest.mark.parametrize("preset", ["lstm_ptrnet", "han"])
@pytest.mark.parametrize("beam", [2, 5, 64])
def test_beam_search_equals_reference_on_lengths_1_to_8(preset, beam):
    model, batch = tiny_preset(preset, seed=7), random_batch(8, MIXED)
    orders, scores = model.search(batch, beam)
    expected, expected_scores = reference_search(model, batch, beam)
    assert torch.equal(orders, expected)
    torch.testing.assert_close(scores, expected_scores, atol=1e-5, rtol=0)


@pytest.mark.parametrize("beam", [2, 6, 64])
def test_beam_search_with_an_end_candidate_equals_reference_on_lengths_1_to_8(beam):
    model = NoiseWrapper(tiny_preset("attordernet", seed=9), GO, count_bias=True).eval()
    batch = random_batch(10, MIXED)
    orders, scores = model.search(batch, beam)
    expected, expected_scores = reference_search(model, batch, beam)
    assert torch.equal(orders, expected)
    torch.testing.assert_close(scores, expected_scores, atol=1e-5, rtol=0)


def test_han_cached_encoder_attention_equals_the_uncached_attention():
    torch.manual_seed(0)
    decoder = TransformerPointerDecoder(8, num_layers=1, heads=2, dropout=0.05).eval()
    layer = decoder.layers[0]
    queries, contexts = torch.randn(3, 2, 8), torch.randn(3, 5, 8)
    real = torch.arange(5) < torch.tensor([[5], [2], [4]])  # (R, N)
    keys = layer.encoder_keys(contexts)
    cached = layer.encoder_attention.attend_projected(queries, *keys, real[:, None])
    direct = layer.encoder_attention(queries, contexts, real.unsqueeze(1))
    torch.testing.assert_close(cached, direct)


def _uncached_step(decoder, memory, histories, previous, available):
    """The HAN decoder step without the self-attention cache: every block re-projects the
    keys and values of its inputs at all placed positions (`histories`, (R, k, d) each)."""
    sentences, keys, real, *encoded = memory
    rows, _, dim = sentences.shape
    if previous is None:
        hidden = decoder.start_input.expand(rows, 1, dim)
    else:
        hidden = sentences.gather(1, previous.view(rows, 1, 1).expand(rows, 1, dim))
    grown = []
    for layer, history, encoder in zip(decoder.layers, histories, by_layer(encoded), strict=True):
        history = torch.cat([history, hidden], dim=1)  # (R, k + 1, d)
        grown.append(history)
        hidden = layer(hidden, layer.self_keys(history), None, encoder, real)
    scores = decoder.pointer(keys, hidden).squeeze(1)
    return scores.masked_fill(~available, torch.finfo(scores.dtype).min), grown


def test_han_self_attention_cache_equals_reprojecting_the_prefix_under_reordering():
    torch.manual_seed(0)
    decoder = TransformerPointerDecoder(8, num_layers=3, heads=2, dropout=0.05).eval()
    num, rows = 5, 3
    sentences, contexts = torch.randn(rows, num, 8), torch.randn(rows, num, 8)
    mask = torch.arange(num) < torch.tensor([[5], [4], [5]])
    encoding = ParagraphEncoding(contexts * mask.unsqueeze(-1), (contexts.mean(1),))
    memory, state = decoder.start(sentences, encoding, mask)
    projected_lengths = []
    hooks = [
        layer.self_attention.w_k.register_forward_hook(
            lambda module, inputs, output: projected_lengths.append(inputs[0].shape[1])
        )
        for layer in decoder.layers
    ]
    histories = [sentences.new_zeros(rows, 0, 8) for _ in decoder.layers]
    previous, allowed = None, mask.clone()
    for k in range(4):
        projected_lengths.clear()
        scores, state = decoder.step(memory, state, previous, allowed)
        assert projected_lengths == [1] * 3  # the new position only, in every block
        projected_lengths.clear()
        expected, histories = _uncached_step(decoder, memory, histories, previous, allowed)
        torch.testing.assert_close(scores, expected)
        assert [tuple(t.shape) for t in state] == [(rows, 2, k + 1, 4)] * 6
        order = torch.tensor([2, 0, 1]) if k % 2 == 0 else torch.tensor([1, 1, 0])  # beams
        memory, state = decoder.reindex(memory, order), decoder.reindex(state, order)
        histories = [history[order] for history in histories]
        allowed = allowed[order]
        previous = allowed.float().argmax(dim=1)  # (R,) first still available
        allowed[torch.arange(rows), previous] = False
    for hook in hooks:
        hook.remove()


def _random_words(seed, sentences=40, length=9, width=5):
    rng = random.Random(seed)
    torch.manual_seed(seed)
    lengths = torch.tensor([rng.randint(1, length) for _ in range(sentences)])
    return torch.randn(sentences, length, width, requires_grad=True), lengths


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("layers", [1, 2])
def test_grouped_sentence_lstm_equals_packed(bidirectional, layers):
    encoder = SentenceLSTM(5, 4, num_layers=layers, bidirectional=bidirectional)
    words, lengths = _random_words(layers + 2 * bidirectional)
    results = []
    for states in (packed_states, grouped_states):
        outputs, last = states(encoder.lstm, words, lengths)
        loss = (outputs * torch.linspace(-1, 1, outputs.shape[-1])).sum() + last.pow(2).sum()
        results.append((outputs, last, torch.autograd.grad(loss, [words, *encoder.parameters()])))
    (outputs, last, grads), (grouped, grouped_last, grouped_grads) = results
    torch.testing.assert_close(grouped, outputs)
    torch.testing.assert_close(grouped_last, last)
    for grad, grouped_grad in zip(grads, grouped_grads, strict=True):
        torch.testing.assert_close(grouped_grad, grad, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("pooling", ["last", "mean"])
def test_sentence_lstm_vectors_equal_the_packed_encoding(bidirectional, pooling, monkeypatch):
    encoder = SentenceLSTM(5, 4, bidirectional=bidirectional, pooling=pooling).eval()
    words, lengths = _random_words(5)
    lengths[::7] = 0  # padding sentences
    vectors = encoder(words, lengths)
    monkeypatch.setattr("models.blocks.sentence_lstm.grouped_states", packed_states)
    with reference_paths():  # the reference path, each sentence packed
        torch.testing.assert_close(vectors, encoder(words, lengths))
    assert torch.equal(vectors[lengths == 0], torch.zeros_like(vectors[lengths == 0]))
