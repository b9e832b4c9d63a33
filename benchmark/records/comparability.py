"""When the figures of two runs may be paired or pooled (docs/design.md, section 8).

A run record's `identity` (written by `benchmark.run.stages.record.run_identity`) names what its
figures depend on besides the model: the data, the evaluation protocol (the fixed
presentation of every test document: its text, permutation and distractors, seeded by the
dataset's name and `protocol_seed`; the trivial-document policy) and the training budget.

- `protocol_differences`: two runs may be *paired* on test documents only when their test
  presentation is the same; `compare`, the leaderboard and the reproduction page refuse
  otherwise, naming what differs (`IncomparableRunsError`).
- `pooling_differences`: the seeds of one row are pooled only when, beyond that, they were
  trained on the same data with the same budget (their config ids agree by construction).
- `budget_differences`: said beside a comparison (a model given more epochs is not a
  better model).
- `protocol_groups`, `protocol_labels`: runs that cannot be paired, split into groups
  that can, each named by what sets its protocol apart (the leaderboard's tables: runs of
  different protocols are never ranked in one table).

Records written before `identity` existed are compared through their config
(`dataset.name`, `protocol_seed`, `dataset.noise`, `include_trivial`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

T = TypeVar("T")
SHOWN_DIGEST = 8  # hex digits of a presentation digest in a protocol's label
PRESENTATION = "test presentation"  # the digest `protocol_of` holds beside the settings


class IncomparableRunsError(ValueError):
    """Runs whose figures cannot be paired or pooled; the message names the difference."""


def _config(record: Mapping, dotted: str):
    value = record.get("config") or {}
    for part in dotted.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def protocol_of(record: Mapping) -> dict:
    """What fixes a run's test presentation, from its `identity` (or its config)."""
    identity = record.get("identity") or {}
    protocol = identity.get("protocol") or {}
    data = identity.get("data") or {}
    return {
        "dataset.name": data.get("name", _config(record, "dataset.name")),
        "protocol_seed": protocol.get("protocol_seed", _config(record, "protocol_seed")),
        "dataset.noise": protocol.get("noise", str(_config(record, "dataset.noise") or 0)),
        "include_trivial": protocol.get("include_trivial", _config(record, "include_trivial")),
        PRESENTATION: (protocol.get("presentation_sha256") or {}).get("test"),
        # best of several test shuffles (the released ATTOrderNet code's pick on test)
        "test_shuffles": _config(record, "test_shuffles") or 1,
    }


def budget_of(record: Mapping) -> dict:
    """A run's training budget (epochs, steps, patience, selection metric, time limit)."""
    budget = (record.get("identity") or {}).get("budget")
    if budget is not None:
        return dict(budget)
    return {
        "max_epochs": _config(record, "trainer.max_epochs"),
        "max_steps": _config(record, "trainer.max_steps"),
        "patience": _config(record, "early_stopping.patience"),
        "monitor": _config(record, "early_stopping.monitor"),
        "max_time": _config(record, "trainer.max_time"),
    }


def _differences(a: Mapping, b: Mapping) -> list[str]:
    """`key: a vs b` for every key both know and disagree on (None: unknown, not compared)."""
    return [
        f"{key}: {a[key]} vs {b[key]}"
        for key in a
        if a[key] is not None and b.get(key) is not None and a[key] != b[key]
    ]


def protocol_differences(a: Mapping, b: Mapping) -> list[str]:
    """Why two run records cannot be paired on their test documents ([] when they can).
    A differing presentation digest is only named when nothing more specific explains it
    (the same name, seed and noise but other test documents)."""
    differences = _differences(protocol_of(a), protocol_of(b))
    specific = [d for d in differences if not d.startswith(PRESENTATION)]
    if specific:
        return specific
    return ["the test documents (their text or ids) differ"] if differences else []


def data_of(record: Mapping) -> dict:
    data = (record.get("identity") or {}).get("data") or {}
    return {"documents": data.get("documents_sha256")}


def budget_differences(a: Mapping, b: Mapping) -> list[str]:
    return _differences(budget_of(a), budget_of(b))


def pooling_differences(a: Mapping, b: Mapping) -> list[str]:
    """Why the seeds of two run records cannot be pooled into one row ([] when they can)."""
    documents = _differences(data_of(a), data_of(b))
    return (
        protocol_differences(a, b)
        + (["the data (documents of some split) differ"] if documents else [])
        + budget_differences(a, b)
    )


def require_pairable(label_a: str, a: Mapping, label_b: str, b: Mapping) -> None:
    """IncomparableRunsError naming both runs and the difference, unless they pair."""
    differences = protocol_differences(a, b)
    if differences:
        raise IncomparableRunsError(
            f"{label_a} and {label_b} were evaluated under different protocols "
            f"({'; '.join(differences)}), so their test figures cannot be paired"
        )


def protocol_groups(items: Sequence[T], record_of: Callable[[T], Mapping]) -> list[list[T]]:
    """`items` in groups whose records can be paired (`protocol_differences`) with the
    first of their group, in the order first met."""
    groups: list[list[T]] = []
    for item in items:
        group = next((g for g in groups if not protocol_differences(record_of(g[0]),
                                                                   record_of(item))), None)
        if group is None:
            groups.append([item])
        else:
            group.append(item)
    return groups


def _shown(key: str, value) -> str:
    return str(value)[:SHOWN_DIGEST] if key == PRESENTATION else str(value)


def protocol_labels(records: Sequence[Mapping]) -> list[str]:
    """For records of different protocols, a label each naming the settings of its
    protocol (`protocol_of`) that differ among them ("protocol_seed=1"; the presentation
    digest only when no setting explains it, as in `protocol_differences`); "" for one."""
    protocols = [protocol_of(record) for record in records]
    varying = [key for key in protocols[0] if len({repr(p[key]) for p in protocols}) > 1]
    named = [key for key in varying if key != PRESENTATION] or varying
    return [", ".join(f"{key}={_shown(key, p[key])}" for key in named) for p in protocols]
