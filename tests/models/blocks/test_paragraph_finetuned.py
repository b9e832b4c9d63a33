"""The pretrained paragraph encoder (models.blocks.paragraph_transformer), the listwise head
(models.blocks.pointer_listwise) and their presets (models.families.paragraph.paragraph)."""

from __future__ import annotations

import itertools
import math

import pytest
import torch
from fixtures_minilm import needs_minilm

from models.blocks.paragraph_identity import ParagraphIdentity
from models.blocks.paragraph_transformer import PretrainedParagraphEncoder, token_caps
from models.blocks.pointer_listwise import ListwiseScoreDecoder
from models.ordering_model import OrderingModel
from models.registry import get_preset
from tests.model_batches import assert_valid_orders, random_batch

DOCS = [
    ["The committee met on Tuesday to discuss the budget.", "It agreed.", "Then it rained."],
    ["A much longer sentence, with commas, clauses and more words than the others."],
]


# -- long paragraphs -------------------------------------------------------------------


def test_paragraphs_that_fit_are_not_cut():
    assert token_caps([5, 3, 9], 17) == [5, 3, 9]
    assert token_caps([5, 3, 9], 30) == [5, 3, 9]


def test_the_longest_sentences_are_cut_first_to_the_largest_cap_that_fits():
    assert token_caps([5, 3, 9], 12) == [4, 3, 4]  # cap 4: 4 + 3 + 4 = 11; cap 5: 13
    assert token_caps([10, 10, 2], 12) == [5, 5, 2]
    for lengths, budget in (([40, 1, 7, 19], 20), ([3] * 20, 20), ([100, 90], 3)):
        caps = token_caps(lengths, budget)
        assert sum(caps) <= budget and all(1 <= c <= n for c, n in zip(caps, lengths, strict=True))
        assert sum(min(n, max(caps) + 1) for n in lengths) > budget  # the cap is the largest


def test_a_paragraph_with_more_sentences_than_tokens_is_refused():
    with pytest.raises(ValueError, match="4 sentences do not fit in 3 tokens"):
        token_caps([1, 2, 3, 4], 3)


# -- the listwise head -----------------------------------------------------------------


class FixedEncoder(torch.nn.Module):
    """Sentence vectors given by the batch's token ids (a stand-in text-free encoder)."""

    output_dim = 4

    def forward(self, words, lengths):
        return words.sum(dim=1)


def listwise_model(seed=0) -> OrderingModel:
    torch.manual_seed(seed)
    embedding = torch.nn.Embedding(30, 4)
    decoder = ListwiseScoreDecoder(4, 8, dropout=0.0)
    return OrderingModel(FixedEncoder(), ParagraphIdentity(4), decoder, embedding).eval()


def plackett_luce(scores: list[float], order: list[int]) -> float:
    """log P(order) under the Plackett-Luce model, written out."""
    total, left = 0.0, list(order)
    for chosen in order:
        total += scores[chosen] - math.log(sum(math.exp(scores[j]) for j in left))
        left.remove(chosen)
    return total


def test_the_pointer_loss_of_fixed_scores_is_listmle():
    model, batch = listwise_model(), random_batch(3, [4, 2, 3])
    with torch.no_grad():
        sentences, encoding, _ = model.encode(batch)
        scores = model.decoder.score(encoding.contexts).squeeze(-1)  # (B, N)
        got = model.log_prob(batch, batch["gold_order"])
    for b, n in enumerate(batch["n_sentences"].tolist()):
        order = batch["gold_order"][b, :n].tolist()
        assert got[b].item() == pytest.approx(plackett_luce(scores[b, :n].tolist(), order), 1e-5)


def test_decoding_sorts_by_score_greedy_and_beam_alike():
    model, batch = listwise_model(1), random_batch(4, [5, 3, 1])
    with torch.no_grad():
        _, encoding, _ = model.encode(batch)
        scores = model.decoder.score(encoding.contexts).squeeze(-1)
        greedy, beam = model.decode(batch, 1), model.decode(batch, 4)
    assert_valid_orders(greedy, batch["n_sentences"])
    assert torch.equal(greedy, beam)
    for b, n in enumerate(batch["n_sentences"].tolist()):
        expected = sorted(range(n), key=lambda j: -scores[b, j].item())
        assert greedy[b, :n].tolist() == expected


def test_the_listwise_probabilities_of_all_orders_sum_to_one():
    model, batch = listwise_model(2), random_batch(5, [4])
    orders = torch.tensor(list(itertools.permutations(range(4))))  # (24, 4)
    repeated = {key: (value.expand(len(orders), *value.shape[1:]) if torch.is_tensor(value)
                      else value * len(orders)) for key, value in batch.items()}  # fmt: skip
    with torch.no_grad():
        total = model.log_prob(repeated, orders).exp().sum().item()
    assert total == pytest.approx(1.0, 1e-5)


# -- the encoder (the pretrained MiniLM) ------------------------------------------------


@pytest.fixture(scope="module")
def encoder():
    torch.manual_seed(0)
    return PretrainedParagraphEncoder().eval()


@needs_minilm
def test_the_paragraph_is_joined_with_separators_and_every_layer_trains(encoder):
    ids, owner = encoder.joined(DOCS[0])
    pieces = [encoder.tokenizer(t, add_special_tokens=False)["input_ids"] for t in DOCS[0]]
    expected = [encoder.cls]
    for piece in pieces:
        expected += piece + [encoder.sep]
    assert ids == expected
    assert owner == [-1] + [k for k, p in enumerate(pieces) for k in [k] * len(p) + [-1]]
    pooler = {id(p) for p in encoder.model.pooler.parameters()}
    trained = [p.requires_grad for p in encoder.parameters() if id(p) not in pooler]
    assert all(trained) and not any(p.requires_grad for p in encoder.model.pooler.parameters())


@needs_minilm
def test_each_sentence_is_the_mean_of_its_own_span(encoder):
    with torch.no_grad():
        out = encoder(DOCS, 3)  # (2, 3, 384)
        for b, document in enumerate(DOCS):
            ids, owner = encoder.joined(document)
            hidden = encoder.model(input_ids=torch.tensor([ids])).last_hidden_state[0]
            for k in range(len(document)):
                span = torch.tensor(owner) == k
                assert torch.allclose(out[b, k], hidden[span].mean(0), atol=1e-5)
        assert torch.equal(out[1, 1:], torch.zeros(2, 384))  # padding sentences


@needs_minilm
def test_long_paragraphs_are_cut_to_the_limit_longest_sentence_first():
    short = PretrainedParagraphEncoder(max_tokens=16)
    ids, owner = short.joined(DOCS[0])
    assert len(ids) <= 16
    assert owner.count(1) == len(short.sentence_ids(DOCS[0][1]))  # "It agreed." stays whole
    with pytest.raises(ValueError, match="model.net.max_tokens"):
        short.joined(["One."] * 9)  # 9 sentences + 10 special tokens > 16
    with pytest.raises(ValueError, match=r"model.net.max_tokens=600 must be in 3..512"):
        PretrainedParagraphEncoder(max_tokens=600)


@needs_minilm
def test_the_sentences_see_each_other(encoder):
    """A sentence's vector depends on the others of its paragraph (unlike a sentence
    encoder), and on the presentation (the encoder has positions)."""
    with torch.no_grad():
        together = encoder([DOCS[0]], 3)[0]
        alone = encoder([[DOCS[0][1]]], 1)[0, 0]
        swapped = encoder([[DOCS[0][1], DOCS[0][0], DOCS[0][2]]], 3)[0]
    assert not torch.allclose(together[1], alone, atol=1e-3)
    assert not torch.allclose(together[1], swapped[0], atol=1e-3)


@needs_minilm
@pytest.mark.parametrize("name", ["paragraph_listmle", "paragraph_ptrnet", "paragraph_tsort"])
def test_every_head_trains_a_step_and_decodes_valid_orders(name):
    torch.manual_seed(0)
    preset = get_preset(name)
    model = preset.build(**preset.tiny)
    batch = random_batch(7, [3, 2])
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], 1e-4)
    loss = model.loss(batch)
    loss.backward()
    encoder = model.sentence_encoder.model
    assert encoder.embeddings.word_embeddings.weight.grad is not None  # every layer learns
    optimizer.step()
    model.eval()
    with torch.no_grad():
        orders = model.decode(batch, 2)
    assert_valid_orders(orders, batch["n_sentences"])
