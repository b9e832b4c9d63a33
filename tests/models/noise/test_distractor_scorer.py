"""The distractor scorer (models/noise/distractor_scorer.py): shared words against a brute-force
set computation, padding invariance, the training targets, and that it learns to single
out a sentence of another topic when function words are shared by all."""

from __future__ import annotations

import math
import random

import pytest
import torch
import torch.nn.functional as F

from data.vocab import UNK_ID
from models.noise.distractor_scorer import (
    DistractorScorer,
    distractor_loss,
    document_relative,
    shared_words,
    topic_similarities,
)
from models.noise.end_orders import distractor_classes

FIRST_WORD_ID = UNK_ID + 1  # <pad>, <unk>, then words by descending frequency


def brute_force_shared(document: list[list[int]]) -> list[list[bool]]:
    """Word t of sentence i also occurs in another sentence (ids 0 and 1 never count)."""
    return [
        [
            word >= 2 and any(word in other for j, other in enumerate(document) if j != i)
            for word in sentence
        ]
        for i, sentence in enumerate(document)
    ]


def padded_tokens(documents: list[list[list[int]]]) -> tuple[torch.Tensor, torch.Tensor]:
    """Documents of sentences of word ids -> tokens (B, N, T) and lengths (B, N)."""
    num = max(len(document) for document in documents)
    length = max(len(sentence) for document in documents for sentence in document)
    tokens = torch.zeros(len(documents), num, length, dtype=torch.long)
    lengths = torch.zeros(len(documents), num, dtype=torch.long)
    for b, document in enumerate(documents):
        for i, sentence in enumerate(document):
            tokens[b, i, : len(sentence)] = torch.tensor(sentence)
            lengths[b, i] = len(sentence)
    return tokens, lengths


def test_shared_words_match_a_brute_force_set_computation():
    rng = random.Random(0)
    for _ in range(200):
        documents = [
            [[rng.randrange(8) for _ in range(rng.randint(1, 6))] for _ in range(rng.randint(1, 5))]
            for _ in range(3)
        ]
        tokens, lengths = padded_tokens(documents)
        in_sentence = torch.arange(tokens.shape[2]) < lengths.unsqueeze(-1)
        shared = shared_words(tokens, in_sentence, FIRST_WORD_ID)
        for b, document in enumerate(documents):
            for i, expected in enumerate(brute_force_shared(document)):
                assert shared[b, i, : len(expected)].tolist() == expected
                assert not shared[b, i, len(expected) :].any()
            assert not shared[b, len(document) :].any()


def test_shared_words_hand_worked():
    # sentence 0 shares 7 with sentence 2; 1 (<unk>) never counts; 5 repeats only in itself
    tokens, lengths = padded_tokens([[[7, 1, 5, 5], [1, 9], [9, 7]]])
    in_sentence = torch.arange(4) < lengths.unsqueeze(-1)
    assert shared_words(tokens, in_sentence, FIRST_WORD_ID)[0].tolist() == [
        [True, False, False, False],
        [False, True, False, False],
        [True, True, False, False],
    ]


@pytest.mark.parametrize("word_dim", [4, None])
def test_logits_of_a_document_do_not_depend_on_padding(word_dim):
    """With word vectors, and without (topic vectors are then the sentence vectors)."""
    torch.manual_seed(0)
    scorer = DistractorScorer(context_dim=6, word_dim=word_dim, first_word_id=FIRST_WORD_ID).eval()
    nn_init_random(scorer)
    short = [[2, 3, 4], [3, 5], [6, 2, 7, 8]]
    long = [[2, 9, 10, 11, 12, 13, 14], [9, 3], [4, 4], [15, 2], [16, 3, 17]]
    embedding = torch.nn.Embedding(20, 4)
    contexts, sentences = torch.randn(1, 5, 6), torch.randn(1, 5, 3)

    def logits(documents, contexts, sentences):
        tokens, lengths = padded_tokens(documents)
        words = embedding(tokens) if word_dim else None
        return scorer(tokens, lengths, lengths > 0, contexts, words, sentences)

    alone = logits([short], contexts[:, :3], sentences[:, :3])
    padded = [F.pad(x[:, :3], (0, 0, 0, 2)) for x in (contexts, sentences)]
    batched = logits(
        [short, long],
        torch.cat([padded[0], torch.randn(1, 5, 6)]),
        torch.cat([padded[1], torch.randn(1, 5, 3)]),
    )
    torch.testing.assert_close(batched[0, :3], alone[0, :3])
    torch.testing.assert_close(batched[:, -1], alone[0, -1].expand(2))  # none
    assert batched[0, 3:5].eq(0).all()  # padding sentences


def test_topic_similarities_hand_worked():
    """Sentences (1, 0), (0, 1), (1, 1) and a padding row: the rest of the first is
    (0.5, 1), cosine 0.5 / sqrt(1.25); its closest other is (1, 1), cosine 1 / sqrt(2)."""
    topics = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [9.0, -9.0]]])
    mask = torch.tensor([[True, True, True, False]])
    to_rest, closest = topic_similarities(topics, mask)
    root2, root5 = 2**0.5, 5**0.5
    expected_rest = [1 / root5, 1 / root5, 1.0, 0.0]  # third: rest (0.5, 0.5)
    torch.testing.assert_close(to_rest, torch.tensor([expected_rest]))
    torch.testing.assert_close(closest, torch.tensor([[1 / root2, 1 / root2, 1 / root2, 0.0]]))
    alone = topic_similarities(topics[:, :1], mask[:, :1])
    assert [x.tolist() for x in alone] == [[[0.0]], [[0.0]]]  # no other sentence


def test_document_relative_centres_and_scales_over_the_real_sentences():
    values = torch.tensor([[[1.0], [2.0], [6.0], [100.0]], [[5.0], [5.0], [0.0], [0.0]]])
    mask = torch.tensor([[True, True, True, False], [True, True, False, False]])
    centred, z_scores = document_relative(values, mask)
    torch.testing.assert_close(
        centred.squeeze(-1), torch.tensor([[-2.0, -1.0, 3.0, 0], [0, 0, 0, 0]])
    )
    spread = (14 / 3) ** 0.5  # population standard deviation of 1, 2, 6
    torch.testing.assert_close(z_scores[0, :3, 0], torch.tensor([-2.0, -1.0, 3.0]) / spread)
    assert z_scores[1].eq(0).all()  # no spread: no outlier


def nn_init_random(module: torch.nn.Module) -> None:
    """Every parameter drawn at random (the scorer starts with zero context weights)."""
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.normal_()


def test_classes_are_the_presented_sentence_missing_from_the_gold_order_or_none():
    gold = torch.tensor([[2, 0, -1, -1], [1, 0, 2, -1], [0, -1, -1, -1]])
    mask = torch.tensor(
        [[True, True, True, False], [True, True, True, False]] + [[True] * 2 + [False] * 2]
    )
    assert distractor_classes(gold, mask).tolist() == [1, 4, 1]  # 4: none
    with pytest.raises(ValueError, match="document 0 of the batch has 2 distractors"):
        distractor_classes(torch.tensor([[2, -1, -1, -1]]), torch.tensor([[True] * 3 + [False]]))


def test_loss_is_the_cross_entropy_over_real_sentences_and_none():
    logits = torch.tensor([[1.0, 2.0, 99.0, 0.5], [0.0, 0.0, 0.0, 0.0]])  # (B, N + 1)
    mask = torch.tensor([[True, True, False], [True, True, True]])
    loss = distractor_loss(logits, torch.tensor([1, 3]), mask)
    first = math.log(math.exp(1.0) + math.exp(2.0) + math.exp(0.5)) - 2.0  # padding left out
    torch.testing.assert_close(loss, torch.tensor([first, math.log(4.0)]))


def topic_document(rng: random.Random, n: int, noisy: bool) -> tuple[list[list[int]], int]:
    """n + 1 sentences, all on one topic or (`noisy`) one of them, at a random slot, on
    another: each sentence has three function words (ids 2-7, shared by every topic) and
    two words of its topic (ten topics of three words each, ids 8-37). -> sentences and
    the true class: the distractor's slot, or n + 1 (none)."""
    topic, other = rng.sample(range(10), 2)

    def sentence(t: int) -> list[int]:
        words = [rng.randrange(2, 8) for _ in range(3)]
        words += [8 + 3 * t + rng.randrange(3) for _ in range(2)]
        rng.shuffle(words)
        return words

    document = [sentence(topic) for _ in range(n)]
    slot = rng.randrange(n + 1)
    document.insert(slot, sentence(other if noisy else topic))
    return document, (slot if noisy else n + 1)


def test_scorer_learns_which_sentence_is_of_another_topic_or_that_none_is():
    """As under noise=0/1: half the documents have a sentence of another topic."""
    rng, _ = random.Random(1), torch.manual_seed(1)
    scorer = DistractorScorer(context_dim=4, word_dim=8, first_word_id=FIRST_WORD_ID)
    embedding = torch.nn.Embedding(38, 8)  # fixed random word vectors

    def batch(size: int):
        pairs = [topic_document(rng, rng.randint(3, 6), rng.random() < 0.5) for _ in range(size)]
        documents, classes = zip(*pairs, strict=True)
        tokens, lengths = padded_tokens(list(documents))
        mask = lengths > 0
        classes = torch.tensor(classes)
        classes = torch.where(classes == mask.sum(dim=1), mask.shape[1], classes)  # none: N
        contexts = torch.zeros(*mask.shape, 4)
        with torch.no_grad():
            words = embedding(tokens)
        sentences = torch.zeros(*mask.shape, 3)  # unused: the scorer has word vectors
        return scorer(tokens, lengths, mask, contexts, words, sentences), classes, mask

    def accuracy(logits, classes, mask):
        allowed = F.pad(mask, (0, 1), value=True)
        return (logits.masked_fill(~allowed, -1e9).argmax(dim=1) == classes).float().mean()

    optimizer = torch.optim.Adam(scorer.parameters(), lr=0.03)
    with torch.no_grad():
        untrained = accuracy(*batch(200))
    for _ in range(200):
        logits, classes, mask = batch(32)
        optimizer.zero_grad()
        distractor_loss(logits, classes, mask).mean().backward()
        optimizer.step()
    with torch.no_grad():
        trained = accuracy(*batch(200))
    assert untrained < 0.7 < 0.9 < trained
