"""Unit tests of the model building blocks (embedding, encoders, pointer, decoder)."""

import pytest
import torch

from models.blocks.paragraph_lstm import ParagraphLSTM
from models.blocks.pointer_attention import AdditivePointer
from models.blocks.pointer_lstm import LSTMPointerDecoder
from models.blocks.sentence_lstm import SentenceLSTM
from models.blocks.word_embedding import WordEmbedding
from models.interfaces import ParagraphEncoding
from models.search.candidates import placed_before, validate_orders


def test_word_embedding_initialises_from_pretrained_and_keeps_rows_trainable():
    pretrained = torch.randn(7, 4)
    layer = WordEmbedding(7, 4, pretrained=pretrained)
    assert torch.equal(layer.embedding.weight[1:], pretrained[1:])
    assert torch.equal(layer.embedding.weight[0], torch.zeros(4))  # <pad>
    assert layer.embedding.weight.requires_grad
    layer(torch.tensor([[1, 2, 0]])).sum().backward()
    assert layer.embedding.weight.grad[1:3].abs().sum() > 0
    assert layer(torch.tensor([[1, 2, 3]])).shape == (1, 3, 4)


def test_word_embedding_rejects_wrong_pretrained_shape():
    with pytest.raises(ValueError, match=r"\(vocab_size, dim\) = \(7, 5\)"):
        WordEmbedding(7, 5, pretrained=torch.randn(7, 4))


@pytest.mark.parametrize("bidirectional", [False, True])
def test_sentence_lstm_ignores_padding_and_zeroes_empty_sentences(bidirectional):
    torch.manual_seed(0)
    encoder = SentenceLSTM(4, 6, bidirectional=bidirectional)
    words = torch.randn(3, 5, 4)
    lengths = torch.tensor([2, 0, 5])
    out = encoder(words, lengths)
    assert out.shape == (3, 12 if bidirectional else 6) and encoder.output_dim == out.shape[1]
    assert torch.equal(out[1], torch.zeros(out.shape[1]))
    noisy = words.clone()
    noisy[0, 2:] = 100.0  # padding positions of sentence 0
    torch.testing.assert_close(encoder(noisy, lengths), out)
    alone = encoder(words[:1, :2], torch.tensor([2]))
    torch.testing.assert_close(alone[0], out[0])


def test_sentence_lstm_vector_is_final_hidden_state():
    torch.manual_seed(0)
    encoder = SentenceLSTM(4, 6)
    words = torch.randn(1, 3, 4)
    outputs, _ = encoder.lstm(words)  # unidirectional: last output == final hidden state
    torch.testing.assert_close(encoder(words, torch.tensor([3]))[0], outputs[0, -1])


def test_paragraph_lstm_respects_lengths():
    torch.manual_seed(0)
    encoder = ParagraphLSTM(5, 7)
    sentences = torch.randn(2, 4, 5)
    mask = torch.tensor([[True, True, False, False], [True] * 4])
    contexts, (hidden, cell) = encoder(sentences, mask)
    assert contexts.shape == (2, 4, 7) and hidden.shape == cell.shape == (2, 7)
    assert torch.equal(contexts[0, 2:], torch.zeros(2, 7))
    alone, (h_alone, c_alone) = encoder(sentences[:1, :2], mask[:1, :2])
    torch.testing.assert_close(contexts[0, :2], alone[0])
    torch.testing.assert_close(hidden[0], h_alone[0])
    torch.testing.assert_close(cell[0], c_alone[0])
    torch.testing.assert_close(contexts[0, 1], hidden[0])  # last real output = final state


def test_additive_pointer_matches_equation():
    torch.manual_seed(0)
    pointer = AdditivePointer(3, 4, 5)
    contexts, queries = torch.randn(2, 6, 3), torch.randn(2, 2, 4)
    scores = pointer(pointer.keys(contexts), queries)
    assert scores.shape == (2, 2, 6)
    w1, w2, v = pointer.w1.weight, pointer.w2.weight, pointer.v.weight[0]
    expected = v @ torch.tanh(w1 @ contexts[1, 4] + w2 @ queries[1, 0])
    torch.testing.assert_close(scores[1, 0, 4], expected)


def _decoder_inputs(batch=2, num=4, dim=5, hidden=6):
    torch.manual_seed(0)
    sentences = torch.randn(batch, num, dim)
    encoding = ParagraphEncoding(
        torch.randn(batch, num, hidden), (torch.randn(batch, hidden), torch.randn(batch, hidden))
    )
    return sentences, encoding


def test_teacher_forcing_equals_stepwise_decoding():
    sentences, encoding = _decoder_inputs()
    decoder = LSTMPointerDecoder(5, 6, attention_dim=3)
    with torch.no_grad():
        decoder.start_input.normal_()
    orders = torch.tensor([[2, 0, 1, -1], [3, 1, 0, 2]])
    available = torch.tensor([[True, True, True, False], [True] * 4])
    memory, state = decoder.start(sentences, encoding, available)
    forced = decoder.teacher_forced(memory, state, orders, available)
    assert forced.shape == (2, 4, 4)
    previous, allowed = None, available.clone()
    for k in range(4):
        scores, state = decoder.step(memory, state, previous, allowed)
        rows = orders[:, k] >= 0
        torch.testing.assert_close(scores[rows], forced[rows, k])
        previous = orders[:, k].clamp(min=0)
        allowed[rows, previous[rows]] = False


def test_teacher_forcing_masks_placed_and_padding_finitely():
    sentences, encoding = _decoder_inputs()
    decoder = LSTMPointerDecoder(5, 6)
    orders = torch.tensor([[2, 0, 1, -1], [3, 1, 0, 2]])
    available = torch.tensor([[True, True, True, False], [True] * 4])
    memory, state = decoder.start(sentences, encoding, available)
    scores = decoder.teacher_forced(memory, state, orders, available)
    floor = torch.finfo(scores.dtype).min
    assert torch.isfinite(scores).all()
    assert (scores[0, :, 3] == floor).all()  # padding candidate
    assert scores[0, 1, 2] == floor and scores[0, 2, 0] == floor  # already placed
    assert (scores[0, 3] == floor).all()  # row k >= n: nothing left, still finite
    assert torch.isfinite(torch.log_softmax(scores, -1)).all()


def test_decoder_rejects_state_of_wrong_width():
    sentences, encoding = _decoder_inputs(hidden=6)
    with pytest.raises(ValueError, match="hidden_dim is 8"):
        LSTMPointerDecoder(5, 8, context_dim=6).start(sentences, encoding, None)


def test_zero_start_vector_is_a_buffer():
    decoder = LSTMPointerDecoder(5, 6, learned_start=False)
    assert "start_input" not in dict(decoder.named_parameters())
    assert torch.equal(decoder.start_input, torch.zeros(5))


def test_placed_before_is_an_exclusive_prefix():
    mask = placed_before(torch.tensor([[1, 2, 0], [1, 0, -1]]), 3)
    assert mask[0].tolist() == [
        [False, False, False],
        [False, True, False],
        [False, True, True],
    ]
    assert mask[1, 2].tolist() == [True, True, False]


@pytest.mark.parametrize(
    "orders", [[[0, 0, -1]], [[0, 2, -1]], [[0, -1, 1]], [[1, 0, 2]], [[-1, -1, -1]]]
)
def test_validate_orders_rejects_non_permutations(orders):
    with pytest.raises(ValueError, match=r"orders\[0\]"):
        validate_orders(torch.tensor(orders), torch.tensor([2]))
    validate_orders(torch.tensor([[1, 0, -1]]), torch.tensor([2]))
