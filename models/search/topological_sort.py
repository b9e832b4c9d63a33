"""Orders from pairwise precedence probabilities: topological sort of the predicted
constraints, and ranking by summed win probabilities.

B-TSort (Prabhumoye, Salakhutdinov and Black 2020, "Topological Sort for Sentence
Ordering", ACL) predicts for every pair of sentences which comes first, draws an edge
a -> b for each prediction "a before b", and returns a topological order of that graph.
A classifier's predictions need not be consistent (a -> b -> c -> a), so the graph may
hold cycles; the paper does not say how they are broken. Two rules are offered:

- `"dfs"` (the authors' released code, `topological_sort.py`): a depth-first search that
  meets an edge to a node still on its stack (a back edge) deletes that edge, until no
  cycle is left; the order is then the reverse post-order of a depth-first search started
  from the nodes in index order (here the presented, shuffled, order: no gold leak).
  Which edge of a cycle goes depends on the search order, not on the confidences.
- `"confidence"` (ours): Kahn's algorithm that, among the sentences with no unplaced
  predecessor, places the one with the largest summed win probability over the unplaced
  sentences; when none is free (every unplaced sentence has an unplaced predecessor: a
  cycle), it places the sentence whose incoming constraints from unplaced sentences are
  weakest, sum over those of P(u before v) - threshold, i.e. it drops the least
  confident constraints of the cycle. On an acyclic graph both rules return a
  topological order; on a complete acyclic graph (a transitive tournament) the same one.

`win_order` is the alternative decoder: sentences ranked by sum_b P(a before b),
descending (a Borda count; it needs no graph and has no cycles to break).

Ties are broken by the lower index, so results are deterministic. Every function takes
one document's (n, n) matrix P with P[a, b] = P(a before b); the diagonal is ignored.
"""

from __future__ import annotations

import numpy as np

CYCLE_RULES = ("dfs", "confidence")


def constraint_edges(prob: np.ndarray, threshold: float = 0.5) -> np.ndarray:
    """prob (n, n) -> adjacency (n, n) bool: edge a -> b where P(a before b) > threshold."""
    edges = prob > threshold
    np.fill_diagonal(edges, False)
    return edges


def topological_order(
    prob: np.ndarray, cycle_rule: str = "dfs", threshold: float = 0.5
) -> list[int]:
    """prob (n, n) -> an order of 0..n-1 respecting the constraints P > threshold, cycles
    broken by `cycle_rule` ("dfs": the authors' code; "confidence": ours)."""
    prob = np.asarray(prob, dtype=np.float64)
    if prob.ndim != 2 or prob.shape[0] != prob.shape[1]:
        raise ValueError(f"prob must be a square (n, n) matrix, got shape {prob.shape}")
    if cycle_rule == "dfs":
        return _dfs_order(constraint_edges(prob, threshold))
    if cycle_rule == "confidence":
        return _confidence_order(prob, threshold)
    raise ValueError(f"cycle_rule must be one of {CYCLE_RULES}, got {cycle_rule!r}")


def win_order(prob: np.ndarray) -> list[int]:
    """prob (n, n) -> sentences by summed win probability sum_b P(a before b), descending."""
    prob = np.asarray(prob, dtype=np.float64).copy()
    np.fill_diagonal(prob, 0.0)
    wins = prob.sum(axis=1)  # (n,)
    return [int(a) for a in np.lexsort((np.arange(len(wins)), -wins))]


def remove_back_edges(edges: np.ndarray) -> np.ndarray:
    """adjacency (n, n) -> a copy without the back edges of depth-first searches started
    in index order, repeated until acyclic (the authors' rule: one edge per cycle found)."""
    edges = edges.copy()
    while (edge := _find_back_edge(edges)) is not None:
        edges[edge] = False
    return edges


def _find_back_edge(edges: np.ndarray) -> tuple[int, int] | None:
    """The first back edge (u, v) met by a depth-first search in index order, or None."""
    n = len(edges)
    state = np.zeros(n, dtype=np.int8)  # 0 unvisited, 1 on the stack, 2 done
    for root in range(n):
        if state[root]:
            continue
        state[root] = 1
        stack = [(root, iter(np.flatnonzero(edges[root])))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state[child] == 1:
                return node, int(child)
            elif state[child] == 0:
                state[child] = 1
                stack.append((int(child), iter(np.flatnonzero(edges[child]))))
    return None


def _dfs_order(edges: np.ndarray) -> list[int]:
    """Reverse post-order of depth-first searches in index order over the graph made
    acyclic by `remove_back_edges`."""
    edges = remove_back_edges(edges)
    n = len(edges)
    visited = np.zeros(n, dtype=bool)
    post: list[int] = []
    for root in range(n):
        if visited[root]:
            continue
        visited[root] = True
        stack = [(root, iter(np.flatnonzero(edges[root])))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                post.append(node)
                stack.pop()
            elif not visited[child]:
                visited[child] = True
                stack.append((int(child), iter(np.flatnonzero(edges[child]))))
    return post[::-1]


def _confidence_order(prob: np.ndarray, threshold: float) -> list[int]:
    """Kahn's algorithm choosing among free sentences by summed win probability; with no
    free sentence, the one whose incoming constraints are weakest (see the module)."""
    n = len(prob)
    edges = constraint_edges(prob, threshold)
    margin = np.where(edges, prob - threshold, 0.0)  # (n, n) strength of each constraint
    wins = np.where(np.eye(n, dtype=bool), 0.0, prob)  # (n, n)
    unplaced = np.ones(n, dtype=bool)
    order: list[int] = []
    for _ in range(n):
        incoming = (edges & unplaced[:, None]).sum(axis=0)  # (n,) unplaced predecessors
        win = (wins * unplaced[None, :]).sum(axis=1)  # (n,) over unplaced rivals
        free = unplaced & (incoming == 0)
        if free.any():
            candidates = np.flatnonzero(free)
            pick = candidates[np.lexsort((candidates, -win[candidates]))[0]]
        else:
            candidates = np.flatnonzero(unplaced)
            broken = (margin * unplaced[:, None]).sum(axis=0)[candidates]  # (c,)
            pick = candidates[np.lexsort((candidates, -win[candidates], broken))[0]]
        order.append(int(pick))
        unplaced[pick] = False
    return order
