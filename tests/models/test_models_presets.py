"""Every preset through the OrderingModel interface (tiny dimensions): shapes, masking,
valid decoding of padded mixed-length batches, padding invariance, log_prob = -loss,
gradients, and the permutation symmetry of the set (self-attention) paragraph encoders."""

import random

import pytest
import torch
import torch.nn.functional as F

from benchmark.evaluation.discrimination import select_rows
from models import presets
from models.param_counts import count
from tests.model_batches import (
    PRESETS,
    SET_ENCODERS,
    all_orders,
    assert_valid_orders,
    make_batch,
    random_batch,
    random_docs,
    repeat_document,
    sub_batch,
    tiny_preset,
)

SIZES = [3, 1, 6, 2, 5]  # paragraph lengths mixed in one batch


@pytest.fixture(params=PRESETS)
def preset(request):
    return request.param


def test_forward_shape_and_masking(preset):
    model, batch = tiny_preset(preset), random_batch(1, SIZES)
    logits = model(batch)
    assert logits.shape == (5, 6, 6)
    assert torch.isfinite(logits).all()
    floor = torch.finfo(logits.dtype).min
    assert (logits[1, :, 1:] == floor).all()  # padding candidates of the 1-sentence doc
    gold = batch["gold_order"][2]
    for k in range(1, 6):
        assert (logits[2, k, gold[:k]] == floor).all()  # already placed
        assert (logits[2, k, gold[k:]] > floor).all()


@pytest.mark.parametrize("beam_size", [1, 3, 8])
def test_decode_returns_valid_permutations(preset, beam_size):
    model, batch = tiny_preset(preset), random_batch(2, SIZES)
    orders = model.decode(batch, beam_size=beam_size)
    assert orders.shape == (5, 6) and orders.dtype == torch.long
    assert_valid_orders(orders, batch["n_sentences"])


def test_single_sentence_document(preset):
    model, batch = tiny_preset(preset), make_batch([[[3, 4]]])
    assert model.decode(batch).tolist() == [[0]]
    assert model.decode(batch, beam_size=4).tolist() == [[0]]
    torch.testing.assert_close(model.log_prob(batch, batch["gold_order"]), torch.zeros(1))


def test_padding_invariance(preset):
    model, batch = tiny_preset(preset), random_batch(3, SIZES)
    logits = model(batch)
    log_probs = model.log_prob(batch, batch["gold_order"])
    decoded = {beam: model.decode(batch, beam_size=beam) for beam in (1, 4)}
    for b, size in enumerate(SIZES):
        alone = sub_batch(batch, b)
        torch.testing.assert_close(model(alone)[0], logits[b, :size, :size])
        torch.testing.assert_close(model.log_prob(alone, alone["gold_order"])[0], log_probs[b])
        for beam, orders in decoded.items():
            assert torch.equal(model.decode(alone, beam_size=beam)[0], orders[b, :size])


def test_log_prob_is_negative_per_document_loss(preset):
    model, batch = tiny_preset(preset), random_batch(4, SIZES)
    logits, gold = model(batch), batch["gold_order"]
    nll = F.cross_entropy(logits.flatten(0, 1), gold.flatten(), ignore_index=-1, reduction="none")
    per_document = nll.view(gold.shape).sum(dim=1)  # (B,)
    torch.testing.assert_close(model.log_prob(batch, gold), -per_document)
    torch.testing.assert_close(model.loss(batch), per_document.mean())


def test_log_prob_of_all_orders_sums_to_one(preset):
    model, batch = tiny_preset(preset), random_batch(5, [4])
    orders = all_orders(4, 4)  # (24, 4)
    total = model.log_prob(repeat_document(batch, 0, len(orders)), orders).exp().sum()
    torch.testing.assert_close(total, torch.tensor(1.0))


@pytest.mark.parametrize("rows_per_pass", [None, 1, 3])
def test_log_prob_of_rows_encodes_each_document_once(preset, rows_per_pass):
    model, batch = tiny_preset(preset), random_batch(7, SIZES)
    doc_of_row = torch.tensor([0, 0, 2, 4, 2, 3, 0, 4])  # (R,) any documents, repeated
    generator = torch.Generator().manual_seed(7)
    orders = torch.stack([
        F.pad(torch.randperm(SIZES[b], generator=generator), (0, 6 - SIZES[b]), value=-1)
        for b in doc_of_row.tolist()
    ])  # fmt: skip
    expected = model.log_prob(select_rows(batch, doc_of_row), orders)  # one row each
    encoded = []  # the sentences of each sentence encoder pass
    count = lambda m, i, out: encoded.append(out.shape[:-1].numel())  # noqa: E731
    model.sentence_encoder.register_forward_hook(count)
    scores = model.log_prob_of_rows(batch, doc_of_row, orders, rows_per_pass)
    assert encoded == [len(SIZES) * 6]  # the batch's B x N sentences, once
    torch.testing.assert_close(scores, expected)


def test_gradients_reach_every_trainable_parameter(preset):
    model = tiny_preset(preset).train()
    model.loss(random_batch(6, SIZES)).backward()
    trainable = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
    assert trainable
    for name, parameter in trainable:
        assert parameter.grad is not None, name
        assert parameter.grad.abs().sum() > 0, name


def two_presentations(seed, sizes):
    """The same random documents presented in two different orders: (batch, perms) x 2."""
    rng = random.Random(seed)
    docs = random_docs(rng, sizes)
    perms = [[rng.sample(range(size), size) for size in sizes] for _ in range(2)]
    return [(make_batch(docs, p), p) for p in perms]


@pytest.mark.parametrize("preset", SET_ENCODERS)
def test_paragraph_encoding_is_permutation_equivariant(preset):
    """Presenting the same sentences in another order permutes the contexts the same way
    and leaves the paragraph vector unchanged (no presented-position information)."""
    model = tiny_preset(preset)
    encodings = []
    for batch, perms in two_presentations(7, [5, 3]):
        with torch.no_grad():
            _, encoding, _ = model.encode(batch)
        by_sentence = [  # contexts in gold sentence order
            encoding.contexts[b, [perm.index(i) for i in range(len(perm))]]
            for b, perm in enumerate(perms)
        ]
        encodings.append((by_sentence, encoding.state))
    (contexts, state), (contexts_other, state_other) = encodings
    for doc, doc_other in zip(contexts, contexts_other, strict=True):
        torch.testing.assert_close(doc_other, doc)
    for vector, vector_other in zip(state, state_other, strict=True):
        torch.testing.assert_close(vector_other, vector)


@pytest.mark.parametrize("preset", SET_ENCODERS)
def test_predicted_sentences_do_not_depend_on_the_shuffle(preset):
    """With an order-free paragraph encoder the decoded order, read as gold sentence ids,
    is the same for every presentation of the same sentences."""
    model = tiny_preset(preset)
    predicted = []
    for batch, perms in two_presentations(8, [5, 4, 2]):
        orders = model.decode(batch, beam_size=8)
        predicted.append(
            [
                [perm[j] for j in row[: len(perm)]]
                for row, perm in zip(orders.tolist(), perms, strict=True)
            ]
        )
    assert predicted[0] == predicted[1]


def test_minilm_preset_needs_texts():
    model, batch = tiny_preset("minilm_ptrnet"), random_batch(9, [3])
    del batch["texts"]
    with pytest.raises(ValueError, match="texts"):
        model(batch)


def test_presets_reject_mismatched_widths():
    with pytest.raises(ValueError, match="heads: must divide hidden_dim"):
        presets.attordernet(30, embedding_dim=8, hidden_dim=12)  # 8 heads
    with pytest.raises(ValueError, match="sentence_heads: must divide embedding_dim"):
        presets.attordernet_att(30, embedding_dim=8)  # 5 word-level heads


def test_parameter_counts_split_embedding_network_and_frozen():
    lstm = tiny_preset("lstm_ptrnet")
    counts = count(lstm)
    assert counts["embedding"] == 30 * 8 and counts["frozen"] == 0
    assert counts["embedding"] + counts["network"] == sum(p.numel() for p in lstm.parameters())
    counts = count(tiny_preset("minilm_ptrnet"))
    assert counts["embedding"] == 0 and counts["frozen"] == 22_713_216  # all-MiniLM-L6-v2
