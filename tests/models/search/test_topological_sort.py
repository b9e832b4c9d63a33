"""Topological sort of pairwise constraints (models.search.topological_sort) on hand-made
graphs: acyclic ones (every rule returns a topological order), cycles (each rule's stated
way of breaking them) and the summed-win ranking."""

import itertools

import numpy as np
import pytest

from models.search.topological_sort import (
    constraint_edges,
    remove_back_edges,
    topological_order,
    win_order,
)


def from_edges(n, edges, strength=None):
    """P (n, n) with P[a, b] = strength of a -> b (default 0.9) and P[b, a] = 1 - P[a, b];
    pairs without an edge are 0.5 (no constraint)."""
    prob = np.full((n, n), 0.5)
    for a, b in edges:
        p = 0.9 if strength is None else strength[(a, b)]
        prob[a, b], prob[b, a] = p, 1 - p
    return prob


def respects(order, edges):
    position = {node: k for k, node in enumerate(order)}
    return all(position[a] < position[b] for a, b in edges)


def is_acyclic(adjacency):
    n = len(adjacency)
    return any(
        all(not adjacency[order[j], order[i]] for i in range(n) for j in range(i + 1, n))
        for order in itertools.permutations(range(n))
    )


@pytest.mark.parametrize("rule", ["dfs", "confidence"])
def test_chain_and_transitive_tournament_give_the_only_order(rule):
    gold = [3, 0, 4, 1, 2]
    chain = list(zip(gold, gold[1:], strict=False))
    assert topological_order(from_edges(5, chain), rule) == gold
    tournament = [(gold[i], gold[j]) for i in range(5) for j in range(i + 1, 5)]
    assert topological_order(from_edges(5, tournament), rule) == gold
    assert win_order(from_edges(5, tournament)) == gold


@pytest.mark.parametrize("rule", ["dfs", "confidence"])
def test_partial_order_is_respected(rule):
    edges = [(0, 3), (1, 3), (3, 2), (4, 2), (5, 0)]
    order = topological_order(from_edges(6, edges), rule)
    assert sorted(order) == list(range(6)) and respects(order, edges)


def test_confidence_rule_places_the_most_winning_free_sentence_first():
    # 0 and 1 are both free; 1 beats everyone more strongly
    prob = from_edges(3, [(0, 2), (1, 2)], {(0, 2): 0.6, (1, 2): 0.95})
    prob[0, 1], prob[1, 0] = 0.5, 0.5
    assert topological_order(prob, "confidence") == [1, 0, 2]


def test_confidence_rule_drops_the_weakest_edge_of_a_cycle():
    # 0 -> 1 (0.9), 1 -> 2 (0.8), 2 -> 0 (0.6): dropping 2 -> 0 gives 0, 1, 2
    strength = {(0, 1): 0.9, (1, 2): 0.8, (2, 0): 0.6}
    prob = from_edges(3, list(strength), strength)
    assert topological_order(prob, "confidence") == [0, 1, 2]
    strength = {(0, 1): 0.6, (1, 2): 0.8, (2, 0): 0.9}  # now 0 -> 1 is the weakest
    prob = from_edges(3, list(strength), strength)
    assert topological_order(prob, "confidence") == [1, 2, 0]


def test_dfs_rule_drops_the_back_edge_its_search_meets():
    # DFS from 0: 0 -> 1 -> 2, then 2 -> 0 closes the cycle and is removed, whatever
    # the confidences (the authors' rule)
    strength = {(0, 1): 0.6, (1, 2): 0.8, (2, 0): 0.99}
    edges = constraint_edges(from_edges(3, list(strength), strength))
    kept = remove_back_edges(edges)
    assert not kept[2, 0] and kept[0, 1] and kept[1, 2]
    assert topological_order(from_edges(3, list(strength), strength), "dfs") == [0, 1, 2]


@pytest.mark.parametrize("rule", ["dfs", "confidence"])
def test_random_tournaments_with_cycles_give_permutations(rule):
    rng = np.random.default_rng(0)
    for n in (2, 5, 9, 14):
        for _ in range(5):
            upper = rng.uniform(size=(n, n))
            prob = np.triu(upper, 1) + np.tril(1 - upper.T, -1)  # P[a,b] + P[b,a] = 1
            order = topological_order(prob, rule)
            assert sorted(order) == list(range(n))
            if rule == "dfs" and n <= 5:
                assert is_acyclic(remove_back_edges(constraint_edges(prob)))
            # an acyclic constraint graph is always respected
            edges = [tuple(e) for e in np.argwhere(constraint_edges(prob))]
            if n <= 5 and is_acyclic(constraint_edges(prob)):
                assert respects(order, edges)


def test_win_order_ranks_by_summed_probabilities_ties_by_index():
    prob = np.array([[0.0, 0.3, 0.6], [0.7, 0.0, 0.2], [0.4, 0.8, 0.0]])
    # wins: 0 -> 0.9, 1 -> 0.9, 2 -> 1.2
    assert win_order(prob) == [2, 0, 1]


def test_single_sentence_and_bad_input():
    assert topological_order(np.zeros((1, 1))) == [0]
    assert win_order(np.zeros((1, 1))) == [0]
    with pytest.raises(ValueError, match="square"):
        topological_order(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="cycle_rule"):
        topological_order(np.zeros((2, 2)), "fastest")
