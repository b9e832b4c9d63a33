"""Every preset in the noise setting (docs/design.md, section 4; Wang & Wan 2019), wrapped in
`models.noise.noise_wrapper` with the authors' END (a GO slot encoded with the sentences) and with
our options (count bias, distractor scorer): valid greedy and beam decoding, log_prob =
the searches' scores = minus the teacher-forced NLL (with the scorer the loss adds its
cross-entropy), exact wide beams, a proper distribution over every output."""

from __future__ import annotations

import math
from itertools import permutations

import pytest
import torch
import torch.nn.functional as F
from fixtures_minilm import HAS_MINILM, SKIP_REASON

from data.vocab import UNK_ID
from models import presets
from models.batch import check_batch
from models.noise.end_orders import complete_orders
from models.noise.end_shifts import END, unplaced_posteriors
from models.noise.noise_wrapper import NoiseWrapper
from models.search.beam_search import beam_search
from models.search.greedy_search import greedy_search
from tests.model_batches import NOISY_SIZES, PRESETS, noisy_batch, repeat_document, tiny_preset

GO = (UNK_ID, UNK_ID)
OPTIONS = {  # the authors' END alone, and with both of our options
    "go_end": {},
    "scorer_count": dict(count_bias=True, distractor_scorer=True),
}


def needs(preset: str) -> None:
    if preset == "minilm_ptrnet" and not HAS_MINILM:
        pytest.skip(SKIP_REASON)


def end_model(preset: str, seed: int = 0, options: str = "scorer_count"):
    """A tiny preset in the noise wrapper; with the options, its per-count END biases and
    its distractor scorer's read of the contexts drawn at random (not zero, as at
    initialisation)."""
    needs(preset)
    model = NoiseWrapper(
        tiny_preset(preset, seed=seed), GO, first_word_id=UNK_ID + 1, **OPTIONS[options]
    ).eval()
    with torch.no_grad():
        if model.count_bias is not None:
            model.count_bias.normal_(std=2.0)
        if model.scorer is not None:
            model.scorer.context.weight.normal_(std=1.0)
    return model


def outputs(n: int) -> list[list[int]]:
    """Every prediction over n presented sentences: each ordered subset (the kept ones)."""
    return [list(p) for k in range(n + 1) for p in permutations(range(n), k)]


def padded(orders: list[list[int]], width: int) -> torch.Tensor:
    return torch.tensor([order + [-1] * (width - len(order)) for order in orders])


def assert_valid_kept_orders(orders: torch.Tensor, n: torch.Tensor) -> None:
    """Each row: distinct presented indices < n, then -1 padding only."""
    for row, size in zip(orders.tolist(), n.tolist(), strict=True):
        kept = [j for j in row if j >= 0]
        assert row == kept + [-1] * (len(row) - len(kept))
        assert len(set(kept)) == len(kept) and all(j < size for j in kept)


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("beam_size", [1, 4])
def test_every_preset_decodes_valid_predictions_scored_by_log_prob(preset, beam_size, options):
    model, batch = end_model(preset, options=options), noisy_batch(1)
    orders, scores = model.search(batch, beam_size=beam_size)
    assert orders.shape == batch["gold_order"].shape
    assert_valid_kept_orders(orders, batch["n_sentences"])
    with torch.no_grad():
        torch.testing.assert_close(model.log_prob(batch, orders), scores, atol=1e-5, rtol=0)
    assert torch.equal(model.decode(batch, beam_size=beam_size), orders)


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("preset", PRESETS)
def test_log_prob_of_gold_then_end_is_minus_the_teacher_forced_nll(preset, options):
    """log_prob (the searches' distribution) is minus the cross-entropy of `model(batch)`
    over the slots (END = slot 0, sentence j = slot j + 1). The loss is that NLL; with the
    scorer, the NLL without the sentences' distractor shifts (END keeps its) plus the
    scorer's cross-entropy against the distractor's id (or none)."""
    model, batch = end_model(preset, seed=2, options=options), noisy_batch(2)
    gold = batch["gold_order"]
    num = gold.shape[1]
    with torch.no_grad():
        log_prob = model.log_prob(batch, gold)  # END implied after the gold sentences
        explicit = model.log_prob(batch, complete_orders(gold, batch["n_sentences"], num))
        target = model.slot_orders(batch, gold)  # (B, N + 1) gold + 1, END (0)
        logits = model(batch)  # (B, N + 1, N + 1)
        nll = F.cross_entropy(logits.transpose(1, 2), target, ignore_index=-1, reduction="none")
        loss = model.loss(batch)
    assert logits.shape == (len(gold), num + 1, num + 1)
    n_gold = (gold >= 0).sum(dim=1)
    assert target[torch.arange(len(gold)), n_gold].eq(END).all()  # END right after gold
    torch.testing.assert_close(explicit, log_prob)
    torch.testing.assert_close(-nll.sum(dim=1), log_prob, atol=1e-5, rtol=1e-5)
    if model.scorer is None:
        torch.testing.assert_close(loss, nll.sum(dim=1).mean())
        return
    slotted = model.with_go_slot(batch)
    distractor = model.start(batch)[0][-1]  # (B, N + 1) the scorer's logits, none last
    detection = []  # (B,) minus log softmax of the true class over real sentences and none
    for row, ids in zip(distractor.tolist(), batch["sentence_ids"], strict=True):
        allowed = row[: len(ids)] + row[-1:]  # real sentences, then none
        true = ids.index(-1) if -1 in ids else len(ids)
        detection.append(math.log(sum(math.exp(x) for x in allowed)) - allowed[true])
    detection = torch.tensor(detection)
    with torch.no_grad():
        pointer = model._teacher_forced(slotted, target, shift_sentences=False)[0]  # as trained
    pointer_nll = F.cross_entropy(
        pointer.transpose(1, 2), target, ignore_index=-1, reduction="none"
    )
    torch.testing.assert_close(loss, (detection + pointer_nll.sum(dim=1)).mean())
    assert not torch.allclose(pointer, logits)  # the scorer does change the searches' scores


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("preset", PRESETS)
def test_wide_beam_is_the_brute_force_argmax_over_every_output(preset, options):
    """Every ordered subset followed by END is an output; they sum to probability 1, and a
    beam as wide as their number (65 for 4 sentences) finds the most probable one."""
    model, batch = end_model(preset, seed=3, options=options), noisy_batch(3)
    num = batch["gold_order"].shape[1]
    orders, scores = model.search(batch, beam_size=65)
    _, greedy_scores = model.search(batch, beam_size=1)
    assert (scores >= greedy_scores - 1e-5).all()
    for b, size in enumerate(NOISY_SIZES):
        candidates = outputs(size)
        with torch.no_grad():
            log_probs = model.log_prob(
                repeat_document(batch, b, len(candidates)), padded(candidates, num)
            )
        torch.testing.assert_close(log_probs.logsumexp(0), torch.tensor(0.0), atol=1e-4, rtol=0)
        best = candidates[int(log_probs.argmax())]
        assert orders[b].tolist() == best + [-1] * (num - len(best))
        torch.testing.assert_close(scores[b], log_probs.max(), atol=1e-5, rtol=0)


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("preset", PRESETS)
def test_beam_one_equals_greedy_with_end(preset, options):
    model = end_model(preset, seed=4, options=options)
    batch = noisy_batch(4, [5, 3, 4], [True, False, True])
    with torch.no_grad():
        memory, state, candidates = model.start(batch)
        greedy = greedy_search(model.pointer_decoder, memory, state, candidates, END)
        beam = beam_search(model.pointer_decoder, memory, state, candidates, 1, END)
    assert torch.equal(greedy[0], beam[0])
    torch.testing.assert_close(greedy[1], beam[1])


class EndBias(torch.nn.Module):
    """A pointer whose END score (slot 0) is shifted by `bias`."""

    def __init__(self, pointer, bias: float):
        super().__init__()
        self.pointer, self.bias = pointer, bias

    def keys(self, contexts):
        return self.pointer.keys(contexts)

    def forward(self, keys, queries):
        scores = self.pointer(keys, queries)  # (B, M, N + 1)
        return torch.cat([scores[..., :1] + self.bias, scores[..., 1:]], dim=-1)


@pytest.mark.parametrize("beam_size", [1, 3])
def test_end_stops_at_once_or_never_as_its_score_says(beam_size):
    """END is a candidate from the first step on: a strongly preferred END keeps nothing,
    a strongly avoided one keeps every presented sentence."""
    batch = noisy_batch(5)
    for bias, expected in ((1e3, torch.zeros_like(batch["n_sentences"])), (-1e3, None)):
        model = end_model("lstm_ptrnet", options="go_end")
        model.model.decoder.pointer = EndBias(model.model.decoder.pointer, bias)
        kept = (model.decode(batch, beam_size=beam_size) >= 0).sum(dim=1)
        assert torch.equal(kept, batch["n_sentences"] if expected is None else expected)


@pytest.mark.parametrize(
    "orders",
    [
        [[0, 0, -1, -1, -1]],  # repeat
        [[0, 4, 1, -1, -1]],  # END before a kept sentence
        [[0, -1, 1, -1, -1]],  # kept sentence after padding
        [[0, -1, 4, -1, -1]],  # END after padding
        [[0, 4, 4, -1, -1]],  # two ENDs
        [[3, -1, -1, -1, -1]],  # beyond n = 3
        [[0, 1, 2, -1, -1, -1]],  # longer than N + 1
    ],
)
def test_invalid_end_orders_are_rejected(orders):
    with pytest.raises(ValueError, match=r"orders"):
        complete_orders(torch.tensor(orders), torch.tensor([3]), 4)


def test_complete_orders_adds_end_after_the_kept_sentences():
    completed = complete_orders(torch.tensor([[2, 0, -1], [1, 3, -1], [-1, -1, -1]]),
                                torch.tensor([3, 4, 2]), 4)  # fmt: skip
    assert completed.tolist() == [
        [2, 0, 4, -1, -1],
        [1, 3, 4, -1, -1],
        [4, -1, -1, -1, -1],
    ]


@pytest.mark.parametrize("preset", PRESETS)
def test_the_go_slot_is_a_sentence_of_the_batch_and_the_default_adds_no_parameter(preset):
    """The authors' END: slot 0 holds the GO sentence, encoded by the wrapped model like the
    others; by default the wrapper has exactly the wrapped model's parameters, and our
    options add the count biases and the scorer."""
    default = end_model(preset, seed=6, options="go_end")
    with_options = end_model(preset, seed=6)
    inner = {f"model.{key}" for key in default.model.state_dict()}
    assert set(default.state_dict()) == inner
    added = set(with_options.state_dict()) - inner
    assert "count_bias" in added and all(k.startswith(("count_bias", "scorer.")) for k in added)
    batch = noisy_batch(6)
    slotted = default.with_go_slot(batch)
    check_batch(slotted)
    assert slotted["tokens"][:, 0, :2].eq(UNK_ID).all()
    assert torch.equal(slotted["n_sentences"], batch["n_sentences"] + 1)
    assert torch.equal(slotted["tokens"][:, 1:, : batch["tokens"].shape[2]], batch["tokens"])
    assert all(texts[0] == default.go_text for texts in slotted["texts"])


def test_the_random_baseline_cannot_be_wrapped_and_keeps_every_presented_sentence():
    with pytest.raises(TypeError, match="RandomOrderer"):
        NoiseWrapper(presets.random(seed=0), GO)
    model, batch = presets.random(seed=0), noisy_batch(7)
    orders = model.decode(batch)
    for row, size in zip(orders.tolist(), batch["n_sentences"].tolist(), strict=True):
        assert sorted(row[:size]) == list(range(size)) and row[size:] == [-1] * (len(row) - size)


@pytest.mark.parametrize("beam_size", [1, 3])
def test_end_sees_how_many_presented_sentences_are_unplaced(beam_size):
    """With END's bias high for one unplaced sentence and low for every other count, the
    model stops exactly when one presented sentence is left (the `noise=1` pattern)."""
    model = end_model("lstm_ptrnet", options="go_end")
    model = NoiseWrapper(model.model, GO, count_bias=True)
    batch = noisy_batch(6)
    with torch.no_grad():
        model.count_bias.fill_(-50.0)
        model.count_bias[1] = 50.0
    kept = (model.decode(batch, beam_size=beam_size) >= 0).sum(dim=1)
    assert torch.equal(kept, batch["n_sentences"] - 1)


@pytest.mark.parametrize("preset", ["lstm_ptrnet", "han"])
def test_end_odds_against_the_last_sentence_are_the_same_in_training_and_search(preset):
    """With r the scorer's softmax over the unplaced sentences U and none: searches add
    log(1 - r_j) to sentence j and the sum over U of log r_i to END; training adds to END
    that sum minus, with one sentence left, its log(1 - r_j). So END's score minus sentence
    j's differs between the two by log(1 - r_j) with two or more left, by nothing with one."""
    model, batch = end_model(preset, seed=3), noisy_batch(3)
    slotted = model.with_go_slot(batch)
    orders = slotted["gold_order"]  # (B, N + 1) in slots, END = 0
    with torch.no_grad():
        searched = model._teacher_forced(slotted, orders, True)[0]  # (B, N + 1, N + 1)
        trained, distractor = model._teacher_forced(slotted, orders, shift_sentences=False)
    checked = 0
    for b, n in enumerate(batch["n_sentences"].tolist()):
        unplaced = list(range(n))
        for k in range(n):
            weights = {i: math.exp(distractor[b, i]) for i in unplaced}
            pool = sum(weights.values()) + math.exp(distractor[b, -1])  # unplaced and none
            for j in unplaced:
                expected = 0.0 if len(unplaced) == 1 else math.log(1 - weights[j] / pool)
                difference = (trained[b, k, END] - trained[b, k, j + 1]) - (
                    searched[b, k, END] - searched[b, k, j + 1]
                )
                torch.testing.assert_close(float(difference), expected, atol=1e-4, rtol=1e-4)
                checked += len(unplaced) == 1
            if orders[b, k] == END:
                break
            unplaced.remove(int(orders[b, k]) - 1)
    assert checked == len(batch["n_sentences"])  # each document reaches one left


def test_unplaced_posteriors_hand_worked():
    """Logits log 1, log 2, log 3 (sentences) and log 4 (none), sentence 1 placed: r over
    {0, 2, none} is 1/8, 3/8, 4/8."""
    distractor = torch.log(torch.tensor([[1.0, 2.0, 3.0, 4.0]]))
    foreign, genuine = unplaced_posteriors(distractor, torch.tensor([[True, False, True]]))
    torch.testing.assert_close(foreign[0, [0, 2]].exp(), torch.tensor([1 / 8, 3 / 8]))
    torch.testing.assert_close(genuine[0, [0, 2]].exp(), torch.tensor([7 / 8, 5 / 8]))


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("beam_size", [1, 3])
def test_a_sure_distractor_scorer_makes_every_search_drop_exactly_the_distractors(
    preset, beam_size, monkeypatch
):
    """Distractor logits of +30 for the distractors, -30 for the gold sentences and 0 for
    none (so log-odds e = +-30): END
    loses while a gold sentence is unplaced and wins once only distractors are left, so
    the kept sentences are exactly the gold ones (documents without a distractor keep all)."""
    model, batch = end_model(preset, seed=8), noisy_batch(8)
    num = batch["sentence_mask"].shape[1]
    is_noise = torch.tensor([ids + [0] * (num - len(ids)) for ids in batch["sentence_ids"]]) < 0
    sure = torch.cat([is_noise.float() * 60.0 - 30.0, torch.zeros(len(is_noise), 1)], dim=1)
    monkeypatch.setattr(model, "_distractor_logits", lambda batch, *encoded: sure)
    with torch.no_grad():
        model.count_bias.zero_()
        orders = model.decode(batch, beam_size=beam_size)
    for row, ids in zip(orders.tolist(), batch["sentence_ids"], strict=True):
        assert sorted(ids[j] for j in row if j >= 0) == sorted(i for i in ids if i >= 0)
