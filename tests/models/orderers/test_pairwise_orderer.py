"""The pairwise preset (B-TSort-style, models.orderers.pairwise_orderer): its loss, its log_prob
against the explicit sum over pairs on every order of small documents, order
discrimination by that score, decoding and the refusal of the noise setting."""

import math

import pytest
import torch
import torch.nn.functional as F

from benchmark.config.checks import ConfigError
from benchmark.config.compose import compose_config
from benchmark.evaluation import discrimination
from benchmark.evaluation.discrimination import score_batch, select_rows
from benchmark.metrics.discrimination import PermutationSampler
from benchmark.run.model_builder import build_net
from models.registry import get_preset
from models.search.topological_sort import topological_order, win_order
from tests.model_batches import (
    all_orders,
    assert_valid_orders,
    random_batch,
    repeat_document,
    sub_batch,
)

SIZES = [4, 1, 3, 2]


def tiny(**overrides):
    torch.manual_seed(0)
    preset = get_preset("pairwise_tsort")
    return preset.build(vocab_size=30, **(preset.tiny | overrides)).eval()


def explicit_pair_probability(logits, a, b, direction):
    """P(a before b) by hand from the pair logits (N, N) of one document."""
    sig = lambda z: 1 / (1 + math.exp(-z))  # noqa: E731
    if direction == "presented":
        return sig(logits[a][b]) if a < b else 1 - sig(logits[b][a])
    return (sig(logits[a][b]) + 1 - sig(logits[b][a])) / 2


def explicit_score(logits, order, direction):
    """sum over k < l of log P(o_k before o_l)."""
    return sum(
        math.log(explicit_pair_probability(logits, order[k], order[l], direction))
        for k in range(len(order))
        for l in range(k + 1, len(order))  # noqa: E741
    )


@pytest.mark.parametrize("direction", ["presented", "both"])
def test_log_prob_is_the_explicit_pair_sum_on_every_order(direction):
    model, batch = tiny(pair_direction=direction), random_batch(1, SIZES)
    logits = model(batch).double().tolist()
    for b, n in enumerate(SIZES):
        orders = all_orders(n, max(SIZES))
        scores = model.log_prob(repeat_document(batch, b, len(orders)), orders)
        for order, score in zip(orders.tolist(), scores.tolist(), strict=True):
            expected = explicit_score(logits[b], order[:n], direction)
            assert score == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize("direction", ["presented", "both"])
def test_pair_probabilities_are_complementary(direction):
    model, batch = tiny(pair_direction=direction), random_batch(2, SIZES)
    probs = model.pair_log_probs(batch).exp()[0, :4, :4]
    off = ~torch.eye(4, dtype=torch.bool)
    torch.testing.assert_close((probs + probs.T)[off], torch.ones(12))


def test_discrimination_counts_permutations_scored_below_the_original():
    model, batch = tiny(), random_batch(3, SIZES)
    sampler = PermutationSampler("synthetic", "test", 0)
    records = {r["id"]: r for r in score_batch(model, batch, sampler)}
    logits = model(batch).double().tolist()
    for b, n in enumerate(SIZES):
        if n < 2:
            continue
        gold = batch["gold_order"][b, :n].tolist()
        original = explicit_score(logits[b], gold, "presented")
        permutations = sampler(batch["doc_ids"][b], n)
        # the sampler's permutations are of gold positions: map them to presented indices
        scores = [
            explicit_score(logits[b], [gold[i] for i in p], "presented") for p in permutations
        ]
        record = records[batch["doc_ids"][b]]
        assert record["n_pairs"] == len(scores)
        assert record["wins"] == sum(original > s + 1e-6 for s in scores)


def test_discrimination_encodes_each_document_once_for_the_log_prob_of_every_order():
    model, batch = tiny(), random_batch(5, SIZES)
    doc_of_row, orders = discrimination._candidate_orders(
        batch, PermutationSampler("synthetic", "test", 0)
    )
    with torch.no_grad():
        expected = model.log_prob(select_rows(batch, doc_of_row), orders)  # one row each
    encoded = []  # the size of each pass of the sentence encoder
    model.sentence_encoder.register_forward_hook(lambda m, i, out: encoded.append(out.shape))
    with torch.no_grad():
        model(batch)  # the batch encoded once, for reference
    scores = discrimination._log_probs(model, batch, doc_of_row, orders)
    assert encoded == [encoded[0]] * 2 and len(doc_of_row) > len(SIZES)
    torch.testing.assert_close(scores, expected.float(), rtol=1e-5, atol=1e-5)
    with torch.no_grad():
        passes = model.log_prob_of_rows(batch, doc_of_row, orders, rows_per_pass=2)
    assert encoded == [encoded[0]] * 3  # in passes of 2 rows: still one encoding
    torch.testing.assert_close(passes, expected, rtol=1e-5, atol=1e-5)


def test_loss_is_the_mean_pair_cross_entropy():
    model, batch = tiny(), random_batch(4, SIZES)
    logits = model(batch)
    terms = []
    for b, n in enumerate(SIZES):
        position = {s: k for k, s in enumerate(batch["gold_order"][b, :n].tolist())}
        for i in range(n):
            for j in range(n):
                if i != j:
                    label = torch.tensor(float(position[i] < position[j]))
                    terms.append(F.binary_cross_entropy_with_logits(logits[b, i, j], label))
    torch.testing.assert_close(model.loss(batch), torch.stack(terms).mean())


@pytest.mark.parametrize(
    "settings",
    [dict(), dict(cycle_rule="confidence"), dict(decoder="winsum"), dict(pair_direction="both")],
)
def test_decode_sorts_the_pair_probabilities_and_ignores_padding(settings):
    model, batch = tiny(**settings), random_batch(5, SIZES)
    orders = model.decode(batch, beam_size=4)
    assert_valid_orders(orders, batch["n_sentences"])
    probs = model.pair_log_probs(batch).exp().detach().numpy()
    for b, n in enumerate(SIZES):
        if model.decoder == "tsort":
            expected = topological_order(probs[b, :n, :n], model.cycle_rule)
        else:
            expected = win_order(probs[b, :n, :n])
        assert orders[b, :n].tolist() == expected
        alone = sub_batch(batch, b)
        assert model.decode(alone)[0].tolist() == expected
        torch.testing.assert_close(
            model.log_prob(alone, alone["gold_order"])[0],
            model.log_prob(batch, batch["gold_order"])[b],
        )


def test_gradients_reach_every_parameter():
    model = tiny().train()
    model.loss(random_batch(6, SIZES)).backward()
    for name, parameter in model.named_parameters():
        assert parameter.grad is not None and parameter.grad.abs().sum() > 0, name


def test_noise_and_bad_options_are_refused_clearly():
    cfg = compose_config(["model=pairwise_tsort", "dataset=synthetic", "dataset.noise=1"])
    with pytest.raises(ConfigError, match=r"dataset\.noise=1: model=pairwise_tsort has no pointer"):
        build_net(cfg, vocab_size=30, pretrained_embeddings=None)
    with pytest.raises(ValueError, match="model.net.decoder"):
        tiny(decoder="beam")
    with pytest.raises(ValueError, match="model.net.sentence_encoder"):
        tiny(sentence_encoder="gru")
