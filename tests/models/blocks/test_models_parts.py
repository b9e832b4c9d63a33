"""Unit tests of the encoder, attention and decoder parts the presets are built from."""

import math
import shutil

import pytest
import torch

from models.blocks.masked_ops import length_mask, masked_max, masked_mean
from models.blocks.pointer_lstm import LSTMPointerDecoder
from models.blocks.positional_encoding import sinusoidal_positions
from models.blocks.sentence_cnn import SentenceCNN
from models.blocks.sentence_lstm import SentenceLSTM
from models.families.attordernet.blocks.paragraph_attention import ParagraphSelfAttention
from models.families.attordernet.blocks.sentence_attention import SentenceSelfAttention
from models.families.han.blocks.gate import FusionGate
from models.families.han.blocks.han_word_attention import HANWordAttention
from models.families.han.blocks.paragraph_gated_attention import ParagraphGatedAttention
from models.families.han.blocks.pointer_relu import ReLUPointer
from models.families.han.blocks.pointer_transformer import TransformerPointerDecoder
from models.families.han.blocks.relu_attention import ReLUMultiHeadAttention
from models.interfaces import ParagraphEncoding


def test_sinusoidal_positions_follow_the_formula():
    encoding = sinusoidal_positions(7, 5)
    assert encoding.shape == (7, 5)
    for pos in (0, 3, 6):
        for i in range(5):
            angle = pos / 10000 ** (2 * (i // 2) / 5)
            expected = math.sin(angle) if i % 2 == 0 else math.cos(angle)
            assert encoding[pos, i].item() == pytest.approx(expected, abs=1e-5)


def test_masked_pooling_ignores_padding_and_zeroes_empty_rows():
    values = torch.tensor([[[1.0, -2.0], [3.0, 4.0], [100.0, 100.0]], [[5.0, 5.0]] * 3])
    mask = torch.tensor([[True, True, False], [False] * 3])
    assert masked_mean(values, mask).tolist() == [[2.0, 1.0], [0.0, 0.0]]
    assert masked_max(values, mask).tolist() == [[3.0, 4.0], [0.0, 0.0]]
    assert length_mask(torch.tensor([2, 0]), 3).tolist() == [[True, True, False], [False] * 3]


WORD_ENCODERS = {
    "cnn": lambda: SentenceCNN(4, 6, width=3),
    "bilstm_mean": lambda: SentenceLSTM(4, 3, bidirectional=True, pooling="mean"),
    "self_attention": lambda: SentenceSelfAttention(4, 2, 2, ff_dim=8, dropout=0.1),
    "han_word_attention": lambda: HANWordAttention(4, 8, heads=2, dropout=0.05),
}


@pytest.mark.parametrize("name", WORD_ENCODERS)
def test_sentence_encoders_ignore_padding_and_zero_empty_sentences(name):
    torch.manual_seed(0)
    encoder = WORD_ENCODERS[name]().eval()
    words = torch.randn(3, 5, 4)
    lengths = torch.tensor([1, 0, 5])  # a one-word sentence is shorter than the CNN window
    out = encoder(words, lengths)
    assert out.shape == (3, encoder.output_dim)
    assert torch.equal(out[1], torch.zeros(encoder.output_dim))
    assert out[0].abs().sum() > 0
    noisy = words.clone()
    noisy[0, 1:] = 100.0  # padding words of sentence 0
    torch.testing.assert_close(encoder(noisy, lengths), out)
    torch.testing.assert_close(encoder(words[:1, :1], torch.tensor([1]))[0], out[0])


def test_sentence_cnn_is_max_over_relu_windows():
    torch.manual_seed(0)
    encoder = SentenceCNN(3, 4, width=2)
    words = torch.randn(1, 3, 3)
    padded = torch.cat([torch.zeros(1, 3), words[0], torch.zeros(1, 3)])  # wide: width-1 each side
    weight, bias = encoder.convs[0].weight, encoder.convs[0].bias  # (F, e, w), (F,)
    windows = [  # (F,) per window start
        (weight * padded[p : p + 2].T.unsqueeze(0)).sum(dim=(1, 2)) + bias for p in range(4)
    ]
    expected = torch.stack(windows).relu().amax(dim=0)
    torch.testing.assert_close(encoder(words, torch.tensor([3]))[0], expected)


@pytest.mark.parametrize("plan", [None, "auto"])
def test_sentence_cnn_compiled_convolves_the_unfolded_windows_alike(plan):
    """While compiling, the convolution is a product over unfolded windows (the number of
    words stays symbolic for inductor): the vectors and gradients of the eager module."""
    torch.manual_seed(0)
    encoder = SentenceCNN(3, 4, width=[2, 3]).eval()
    words, lengths = torch.randn(5, 6, 3), torch.tensor([6, 1, 3, 0, 2])
    eager = encoder(words, lengths, None if plan is None else encoder.bucket_plan(lengths))
    torch._dynamo.reset()
    compiled = torch.compile(lambda w, n: encoder(w, n, None), backend="eager", dynamic=True)
    out = compiled(words, lengths)
    torch.testing.assert_close(out, eager, atol=1e-6, rtol=1e-5)
    grads = torch.autograd.grad(out.sum(), encoder.convs[1].weight)[0]
    expected = torch.autograd.grad(eager.sum(), encoder.convs[1].weight)[0]
    torch.testing.assert_close(grads, expected, atol=1e-5, rtol=1e-5)


@pytest.mark.slow
@pytest.mark.skipif(not any(map(shutil.which, ("g++", "c++", "clang++"))),
                    reason="inductor on a CPU needs a C++ compiler; none on PATH")
def test_sentence_cnn_compiled_by_inductor_keeps_the_words_symbolic():
    """inductor's own convolution would compile again at each number of words; the
    unfolded product does not (3 lengths, the graphs of the first)."""
    torch.manual_seed(0)
    encoder = SentenceCNN(3, 4, width=[2, 3])
    graphs = []

    def counting(graph, example_inputs):
        graphs.append(graph)
        return torch._inductor.compile(graph, example_inputs)

    torch._dynamo.reset()
    compiled = torch.compile(lambda w, n: encoder(w, n, None), backend=counting, dynamic=True)
    counts = []
    for words in (7, 11, 4):
        words_in = torch.randn(5, words, 3, requires_grad=True)  # as from an embedding
        compiled(words_in, torch.tensor([words, 1, 3, 0, 2])).sum().backward()
        counts.append(len(graphs))
    assert counts[0] > 0 and counts == counts[:1] * 3


def test_bilstm_mean_pooling_averages_both_directions():
    torch.manual_seed(0)
    encoder = SentenceLSTM(4, 3, bidirectional=True, pooling="mean")
    words = torch.randn(1, 4, 4)
    outputs, _ = encoder.lstm(words)  # (1, 4, 6) concatenated directions
    torch.testing.assert_close(encoder(words, torch.tensor([4]))[0], outputs[0].mean(dim=0))
    with pytest.raises(ValueError, match="pooling"):
        SentenceLSTM(4, 3, pooling="max")


def test_han_word_attention_pools_bilstm_states_with_a_learned_query():
    torch.manual_seed(0)
    encoder = HANWordAttention(4, 8, heads=2, dropout=0.0)
    words, lengths = torch.randn(1, 3, 4), torch.tensor([3])
    states, _ = encoder.lstm.word_states(words, lengths)  # (1, 3, 8)
    attention = encoder.attention
    query = (attention.w_q(encoder.query)).relu()  # (8,)
    keys = attention.w_k(states[0]).relu()  # (3, 8)
    values = attention.w_v(states[0]).relu()  # (3, 8)
    heads = []
    for h in range(2):
        part = slice(4 * h, 4 * h + 4)
        weights = (keys[:, part] @ query[part] / 2.0).softmax(0)  # (3,)
        heads.append(weights @ values[:, part])
    torch.testing.assert_close(encoder(words, lengths)[0], torch.cat(heads))


def test_relu_multi_head_attention_matches_the_equation():
    torch.manual_seed(0)
    attention = ReLUMultiHeadAttention(3, 4, heads=2, key_dim=5)
    queries, keys = torch.randn(1, 2, 3), torch.randn(1, 3, 5)
    allowed = torch.tensor([[[True, True, False], [True, False, False]]])
    out = attention(queries, keys, allowed)
    q = (queries[0] @ attention.w_q.weight.T + attention.w_q.bias).relu()  # (2, 4)
    k = (keys[0] @ attention.w_k.weight.T + attention.w_k.bias).relu()  # (3, 4)
    v = (keys[0] @ attention.w_v.weight.T + attention.w_v.bias).relu()  # (3, 4)
    heads = []
    for h in range(2):
        part = slice(2 * h, 2 * h + 2)
        scores = q[:, part] @ k[:, part].T / math.sqrt(2)  # (2, 3)
        scores = scores.masked_fill(~allowed[0], float("-inf"))
        heads.append(scores.softmax(-1) @ v[:, part])
    torch.testing.assert_close(out[0], torch.cat(heads, dim=-1))
    with pytest.raises(ValueError, match="divisible"):
        ReLUMultiHeadAttention(3, 5, heads=2)


def test_fusion_gate_mixes_two_inputs_by_one_gate_per_position():
    torch.manual_seed(0)
    gate = FusionGate(4)
    first, second = torch.randn(2, 3, 4), torch.randn(2, 3, 4)
    value = torch.sigmoid(
        first @ gate.w_in.weight.T + gate.w_in.bias + second @ gate.w_out.weight.T
    )
    assert value.shape == (2, 3, 1)
    expected = torch.nn.functional.layer_norm(
        value * first + (1 - value) * second, (4,), gate.norm.weight, gate.norm.bias
    )
    torch.testing.assert_close(gate(first, second), expected)


def test_relu_pointer_matches_the_equation():
    torch.manual_seed(0)
    pointer = ReLUPointer(3, 5, 4)
    contexts, queries = torch.randn(2, 6, 3), torch.randn(2, 2, 5)
    scores = pointer(pointer.keys(contexts), queries)
    assert scores.shape == (2, 2, 6)
    key = pointer.w_k(contexts[1, 4]).relu()
    query = pointer.w_q(queries[1, 0]).relu()
    torch.testing.assert_close(scores[1, 0, 4], key @ query / 2.0)


PARAGRAPH_ENCODERS = {
    "self_attention": lambda: ParagraphSelfAttention(6, 8, 2, 2, ff_dim=16, dropout=0.1),
    "gated": lambda: ParagraphGatedAttention(6, 8, num_blocks=2, heads=2, dropout=0.05),
}


@pytest.mark.parametrize("name", PARAGRAPH_ENCODERS)
def test_set_paragraph_encoders_pool_real_sentences_and_are_equivariant(name):
    torch.manual_seed(0)
    encoder = PARAGRAPH_ENCODERS[name]().eval()
    sentences = torch.randn(2, 4, 6)
    mask = torch.tensor([[True, True, True, False], [True] * 4])
    contexts, (vector,) = encoder(sentences, mask)
    assert contexts.shape == (2, 4, 8) and vector.shape == (2, 8)
    assert torch.equal(contexts[0, 3], torch.zeros(8))
    torch.testing.assert_close(vector[0], contexts[0, :3].mean(dim=0))
    alone, (vector_alone,) = encoder(sentences[:1, :3], mask[:1, :3])
    torch.testing.assert_close(alone[0], contexts[0, :3])
    torch.testing.assert_close(vector_alone[0], vector[0])
    perm = torch.tensor([2, 0, 3, 1])
    permuted, (vector_permuted,) = encoder(sentences[1:, perm], mask[1:])
    torch.testing.assert_close(permuted[0], contexts[1, perm])
    torch.testing.assert_close(vector_permuted[0], vector[1])


def test_lstm_decoder_starts_from_the_paragraph_vector():
    """State (v,) starts the LSTM at h0 = v, c0 = 0; learned_start=False feeds x0 = 0."""
    torch.manual_seed(0)
    decoder = LSTMPointerDecoder(5, 6, context_dim=6, learned_start=False)
    sentences, vector = torch.randn(1, 3, 5), torch.randn(1, 6)
    encoding = ParagraphEncoding(torch.randn(1, 3, 6), (vector,))
    available = torch.ones(1, 3, dtype=torch.bool)
    memory, (hidden, cell) = decoder.start(sentences, encoding, available)
    assert torch.equal(hidden, vector) and torch.equal(cell, torch.zeros(1, 6))
    scores, _ = decoder.step(memory, (hidden, cell), None, available)
    output, _ = decoder.lstm(torch.zeros(1, 1, 5), (vector.unsqueeze(0), torch.zeros(1, 1, 6)))
    torch.testing.assert_close(scores, decoder.pointer(memory[1], output).squeeze(1))


def _transformer_decoder_inputs():
    torch.manual_seed(0)
    decoder = TransformerPointerDecoder(8, num_layers=2, heads=2, dropout=0.05).eval()
    sentences, contexts = torch.randn(2, 4, 8), torch.randn(2, 4, 8)
    mask = torch.tensor([[True, True, True, False], [True] * 4])
    encoding = ParagraphEncoding(contexts * mask.unsqueeze(-1), (contexts.mean(1),))
    return decoder, sentences * mask.unsqueeze(-1), encoding, mask


def test_transformer_decoder_teacher_forcing_equals_cached_steps():
    decoder, sentences, encoding, mask = _transformer_decoder_inputs()
    orders = torch.tensor([[2, 0, 1, -1], [3, 1, 0, 2]])
    memory, state = decoder.start(sentences, encoding, mask)
    # per block: the self-attention's projected keys and values (R, H, k, d_k), empty
    assert [tuple(t.shape) for t in state] == [(2, 2, 0, 4)] * 4
    forced = decoder.teacher_forced(memory, state, orders, mask)
    previous, allowed = None, mask.clone()
    for k in range(4):
        scores, state = decoder.step(memory, state, previous, allowed)
        assert [tuple(t.shape) for t in state] == [(2, 2, k + 1, 4)] * 4
        rows = orders[:, k] >= 0
        torch.testing.assert_close(scores[rows], forced[rows, k])
        previous = orders[:, k].clamp(min=0)
        allowed[rows, previous[rows]] = False
    floor = torch.finfo(forced.dtype).min
    assert (forced[0, :, 3] == floor).all() and forced[0, 1, 2] == floor


def test_transformer_decoder_cache_reindexes_rows():
    decoder, sentences, encoding, mask = _transformer_decoder_inputs()
    memory, state = decoder.start(sentences, encoding, mask)
    _, state = decoder.step(memory, state, None, mask)
    swap = torch.tensor([1, 0])
    scores, _ = decoder.step(
        decoder.reindex(memory, swap),
        decoder.reindex(state, swap),
        torch.tensor([1, 2]),
        mask[swap],
    )
    direct, _ = decoder.step(memory, state, torch.tensor([2, 1]), mask)
    torch.testing.assert_close(scores, direct[swap])


def test_transformer_decoder_rejects_wrong_width():
    decoder, sentences, encoding, mask = _transformer_decoder_inputs()
    narrow = ParagraphEncoding(encoding.contexts[..., :6], encoding.state)
    with pytest.raises(ValueError, match="encoder outputs have width 6, decoder dim is 8"):
        decoder.start(sentences, narrow, mask)
    with pytest.raises(ValueError, match="sentence vectors have width 6"):
        decoder.start(sentences[..., :6], encoding, mask)
