"""The calibration baselines (models/orderers/position_regression.py,
models/orderers/overlap_chain.py):
the regression's loss, Plackett-Luce order model and sorting decoder; the rule's chain,
scores and tie-breaking, which never read the gold order."""

from __future__ import annotations

import math
import random

import pytest
import torch
import torch.nn.functional as F

from models.registry import get_preset, preset_names
from tests.model_batches import (
    all_orders,
    assert_valid_orders,
    make_batch,
    random_batch,
    repeat_document,
    sub_batch,
)

SIZES = [3, 1, 6, 2, 5]


def regressor(seed: int = 0, **settings):
    torch.manual_seed(seed)
    model = get_preset("bow_position").build(vocab_size=30, **settings)
    with torch.no_grad():
        model.weights.weight[1:].normal_()  # <pad> (row 0) stays 0
    return model.eval()


def test_both_are_registered_presets():
    assert {"bow_position", "overlap_chain"} <= set(preset_names())
    assert "overlap_chain" in preset_names(trainable=False)
    assert "bow_position" in preset_names(trainable=True)


# -- bow_position ----------------------------------------------------------------------------


def test_positions_are_a_linear_model_of_the_mean_word_weight():
    model = regressor()
    batch = make_batch([[[3, 4], [5], [3, 3, 7]]])
    theta = model.weights.weight.squeeze(-1)
    expected = [(theta[3] + theta[4]) / 2, theta[5], (2 * theta[3] + theta[7]) / 3]
    torch.testing.assert_close(model.positions(batch)[0], torch.stack(expected) + model.bias)


def test_loss_is_the_squared_error_of_relative_positions_plus_l2():
    model = regressor(l2=0.5)
    batch = make_batch([[[3], [4], [5]], [[6]]], perms=[[2, 0, 1], [0]])
    predicted = model.positions(batch)[0]  # presented: gold ids 2, 0, 1
    target = torch.tensor([1.0, 0.0, 0.5])
    penalty = 0.5 * model.weights.weight.pow(2).sum()
    expected = (predicted - target).pow(2).mean() + penalty  # the 1-sentence doc left out
    torch.testing.assert_close(model.loss(batch), expected)


def test_plackett_luce_order_model_is_normalised_and_decoding_is_its_mode():
    model = regressor(seed=1)
    batch = random_batch(5, [4])
    orders = all_orders(4, 4)
    log_probs = model.log_prob(repeat_document(batch, 0, len(orders)), orders)
    torch.testing.assert_close(log_probs.exp().sum(), torch.tensor(1.0))
    decoded = model.decode(batch)[0]
    assert decoded.tolist() == orders[log_probs.argmax()].tolist()
    positions = model.positions(batch)[0]
    assert positions[decoded].diff().ge(0).all()  # sorted by predicted position
    scores = -3 * positions  # scale 1, n - 1 = 3
    gold = batch["gold_order"][0]
    manual = sum(
        scores[gold[k]] - torch.logsumexp(scores[gold[k:]], dim=0) for k in range(4)
    )
    torch.testing.assert_close(model.log_prob(batch, batch["gold_order"])[0], manual)


def test_forward_log_prob_loss_and_padding_agree():
    model = regressor(seed=2)
    batch = random_batch(3, SIZES)
    logits, gold = model(batch), batch["gold_order"]
    nll = F.cross_entropy(logits.flatten(0, 1), gold.flatten(), ignore_index=-1, reduction="none")
    torch.testing.assert_close(model.log_prob(batch, gold), -nll.view(gold.shape).sum(dim=1))
    decoded = model.decode(batch, beam_size=4)
    assert_valid_orders(decoded, batch["n_sentences"])
    for b, size in enumerate(SIZES):
        alone = sub_batch(batch, b)
        assert torch.equal(model.decode(alone)[0], decoded[b, :size])
        torch.testing.assert_close(model.log_prob(alone, alone["gold_order"])[0],
                                   model.log_prob(batch, gold)[b])  # fmt: skip


def test_decoding_never_reads_the_gold_order():
    model = regressor(seed=3)
    batch = random_batch(4, SIZES)
    decoded = model.decode(batch)
    blind = {k: v for k, v in batch.items() if k != "gold_order"}
    assert torch.equal(model.decode(blind), decoded)


def test_the_regression_learns_rank_words():
    torch.manual_seed(0)
    model = get_preset("bow_position").build(vocab_size=12, l2=0.0)
    optimiser = torch.optim.Adam(model.parameters(), lr=5e-2)
    rng = random.Random(0)

    def batch(size):
        docs = [[[2 + k, rng.randrange(8, 12)] for k in range(rng.randint(2, 6))]
                for _ in range(size)]  # fmt: skip
        return make_batch(docs, [rng.sample(range(len(d)), len(d)) for d in docs])

    for _ in range(200):
        optimiser.zero_grad()
        model.loss(batch(32)).backward()
        optimiser.step()
    test = batch(100)
    decoded = model.decode(test)
    gold = test["gold_order"]
    assert all(decoded[b, :n].tolist() == gold[b, :n].tolist()
               for b, n in enumerate(test["n_sentences"].tolist()))  # fmt: skip


# -- overlap_chain ---------------------------------------------------------------------------


def chain(skip_top: int = 0):
    return get_preset("overlap_chain").build(skip_top=skip_top)


# a - b - c - d share words along the chain (1 = <unk> is no content word); b is the most
# central: (J(a, b) + J(b, c)) / 3 = (1/4 + 2/5) / 3 against c's (2/5 + 1/5) / 3
DOC = [[10, 11, 1], [11, 12, 13], [12, 13, 14, 15], [15, 16]]


def test_the_chain_starts_central_and_follows_the_largest_overlap():
    model = chain()
    batch = make_batch([DOC], perms=[[3, 1, 0, 2]])
    jaccard, centrality, _ = model.overlaps(batch)
    presented = {gold_id: j for j, gold_id in enumerate([3, 1, 0, 2])}
    b, c = presented[1], presented[2]
    assert jaccard[0, b, c] == pytest.approx(2 / 5)  # {11,12,13} vs {12,13,14,15}
    assert centrality[0, b] == pytest.approx((1 / 4 + 2 / 5) / 3)
    assert centrality.argmax() == b
    decoded = [[3, 1, 0, 2][j] for j in model.decode(batch)[0].tolist()]
    assert decoded == [1, 2, 3, 0]  # b, then c (2/5 > 1/4), then d (1/5), then a


def test_the_rule_ignores_the_gold_order_and_the_shuffle():
    model = chain(skip_top=3)
    rng = random.Random(0)
    docs = [[[rng.randrange(2, 30) for _ in range(5)] for _ in range(n)] for n in (6, 4, 5)]
    read = []
    for seed in range(3):
        perms = [random.Random(seed).sample(range(len(d)), len(d)) for d in docs]
        batch = make_batch(docs, perms)
        decoded = model.decode(batch)
        blind = {k: v for k, v in batch.items() if k != "gold_order"}
        assert torch.equal(model.decode(blind), decoded)
        read.append([[perm[j] for j in row[: len(perm)]]
                     for row, perm in zip(decoded.tolist(), perms, strict=True)])  # fmt: skip
    assert read[0] == read[1] == read[2]  # the same sentence ids whatever the presentation


def test_ties_go_to_centrality_then_to_the_text():
    model = chain()
    # no overlap anywhere: every score ties; the text order (sorted content ids) decides
    doc = [[20, 21], [12], [30], [15, 16]]
    for perm in ([0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1]):
        decoded = model.decode(make_batch([doc], [perm]))[0].tolist()
        assert [perm[j] for j in decoded] == [1, 3, 0, 2]  # (12), (15, 16), (20, 21), (30)


def test_scores_are_the_step_scores_summed_along_the_order():
    model = chain()
    batch = make_batch([DOC, [[10], [10, 11]]], perms=[[1, 3, 0, 2], [1, 0]])
    logits = model(batch)
    gold = batch["gold_order"]
    summed = [
        sum(float(logits[b, k, gold[b, k]]) for k in range(n))
        for b, n in enumerate(batch["n_sentences"].tolist())
    ]
    torch.testing.assert_close(model.log_prob(batch, gold), torch.tensor(summed))
    assert math.isclose(summed[1], 0.5 + 0.5)  # centrality of either, then J = 1/2
    assert not list(model.parameters())
