"""Greedy and beam search: validity, exactness against brute force, tie-breaking."""


import pytest
import torch
from fixtures_search import brute_force, run

from models.search.beam_search import beam_search
from models.search.greedy_search import greedy_search
from tests.model_batches import (
    PRESETS,
    all_orders,
    assert_valid_orders,
    random_batch,
    repeat_document,
    tiny_model,
    tiny_preset,
)


def test_beam_finds_the_optimum_greedy_misses():
    # first step prefers 0 slightly, but 0 -> {1, 2} is flat while 1 -> 0 -> 2 is sharp
    table = torch.tensor([[[1.0, 0.9, -5.0], [0.0, 0.0, 0.0], [5.0, 0.0, -5.0], [0.0, 0.0, 0.0]]])
    available = torch.ones(1, 3, dtype=torch.bool)
    greedy, _ = run(greedy_search, table, available)
    beam, score = run(beam_search, table, available, beam_size=6)
    best, best_score = brute_force(table[0], 3)
    assert greedy.tolist() == [[0, 1, 2]] and beam.tolist() == [best] == [[1, 0, 2]]
    assert score.item() == pytest.approx(best_score, abs=1e-5)


def test_stub_beam_is_exact_in_a_mixed_batch():
    torch.manual_seed(0)
    sizes = [5, 2, 4, 1, 3]
    table = torch.randn(len(sizes), 6, 5) * 2  # (B, N + 1, N)
    available = torch.arange(5) < torch.tensor(sizes).unsqueeze(1)
    orders, scores = run(beam_search, table, available, beam_size=120)
    for b, size in enumerate(sizes):
        best, best_score = brute_force(table[b], size)
        assert orders[b].tolist() == best + [-1] * (5 - size)
        assert scores[b].item() == pytest.approx(best_score, abs=1e-4)


def test_ties_break_towards_lower_presented_index():
    table = torch.zeros(2, 5, 4)
    available = torch.tensor([[True] * 4, [True, True, True, False]])
    expected = [[0, 1, 2, 3], [0, 1, 2, -1]]
    assert run(greedy_search, table, available)[0].tolist() == expected
    for beam_size in (1, 2, 5, 30):
        assert run(beam_search, table, available, beam_size=beam_size)[0].tolist() == expected


SIZES = [4, 1, 5, 2, 3, 5]


def test_beam_one_equals_greedy():
    model, batch = tiny_model(seed=1), random_batch(11, SIZES)
    sentences, encoding, _ = model.encode(batch)
    mask = batch["sentence_mask"]
    memory, state = model.decoder.start(sentences, encoding, mask)
    greedy, greedy_scores = greedy_search(model.decoder, memory, state, mask)
    beam, beam_scores = beam_search(model.decoder, memory, state, mask, beam_size=1)
    assert torch.equal(greedy, beam)
    torch.testing.assert_close(greedy_scores, beam_scores)
    assert torch.equal(model.decode(batch), greedy)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_wide_beam_is_the_brute_force_argmax(seed):
    model, batch = tiny_model(seed=seed), random_batch(20 + seed, SIZES)
    orders, scores = model.search(batch, beam_size=120)  # 120 = 5!
    assert_valid_orders(orders, batch["n_sentences"])
    for b, size in enumerate(SIZES):
        candidates = all_orders(size, 5)  # (size!, N)
        log_probs = model.log_prob(repeat_document(batch, b, len(candidates)), candidates)
        assert orders[b].tolist() == candidates[log_probs.argmax()].tolist()
        torch.testing.assert_close(scores[b], log_probs.max(), atol=1e-5, rtol=0)


def test_wider_beams_never_score_below_greedy_when_exact():
    model, batch = tiny_model(seed=3), random_batch(30, SIZES)
    _, greedy_scores = model.search(batch, beam_size=1)
    _, beam_scores = model.search(batch, beam_size=120)
    assert (beam_scores >= greedy_scores - 1e-5).all()


def test_search_is_deterministic():
    model, batch = tiny_model(seed=4), random_batch(40, SIZES)
    first = model.decode(batch, beam_size=5)
    assert torch.equal(first, model.decode(batch, beam_size=5))


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_beam_one_is_greedy_and_wide_beam_is_exact(preset):
    """Beam 1 == greedy; beam >= n! (120 for n <= 5) == the brute-force argmax of log_prob."""
    model, batch = tiny_preset(preset, seed=5), random_batch(50, SIZES)
    greedy, greedy_scores = model.search(batch, beam_size=1)
    sentences, encoding, _ = model.encode(batch)
    mask = batch["sentence_mask"]
    memory, state = model.decoder.start(sentences, encoding, mask)
    with torch.no_grad():
        beam, beam_scores = beam_search(model.decoder, memory, state, mask, beam_size=1)
    assert torch.equal(greedy, beam)
    torch.testing.assert_close(greedy_scores, beam_scores)
    orders, scores = model.search(batch, beam_size=120)
    assert_valid_orders(orders, batch["n_sentences"])
    assert (scores >= greedy_scores - 1e-5).all()
    for b, size in enumerate(SIZES):
        candidates = all_orders(size, 5)  # (size!, N)
        log_probs = model.log_prob(repeat_document(batch, b, len(candidates)), candidates)
        assert orders[b].tolist() == candidates[log_probs.argmax()].tolist()
        torch.testing.assert_close(scores[b], log_probs.max(), atol=1e-5, rtol=0)
