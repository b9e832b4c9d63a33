"""Find the finished runs under a runs directory and group them by configuration.

A finished run is a directory with a readable `metrics.json` (docs/design.md, section 3).
A directory with Hydra's `.hydra/` or a `checkpoints/` folder but no `metrics.json` is an
unfinished (running or crashed) run: it is left out with a `RunCollectionWarning` naming
it, as is a `metrics.json` that is not valid JSON or lacks the keys the leaderboard needs,
a record that cannot be trusted (a figure out of its range, a part or its
`predictions.jsonl` changed since the run sealed it: `benchmark.records.seal`; the warning
is the one line naming the file and what differs), a second record of the same (dataset,
model, variant, config, seed), and a seed that cannot be pooled with the first seed of its
row (other data, protocol or budget: `benchmark.records.comparability`). Records written
before runs were sealed are collected, their figures range-checked, and one warning
counts them (`UnsealedRecordWarning`).

A row is (dataset, model, variant). When one (dataset, model, variant) holds runs of several
configs (a `make train` and a sweep of another budget, say: their config ids differ), each
config is a row of its own, its variant shown as `variant@<config id>`.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property
from numbers import Real
from pathlib import Path

from benchmark.metrics.corpus import TRIVIAL_COUNTED_PERFECT
from benchmark.metrics.discrimination import COUNTS as DISCRIMINATION_COUNTS
from benchmark.metrics.registry import ORDER_METRICS
from benchmark.records.comparability import pooling_differences
from benchmark.records.predictions_jsonl import read_predictions
from benchmark.records.run_record import PREDICTIONS_NAME, RECORD_NAME, read_run_record
from benchmark.records.seal import UnsealedRecordWarning, UntrustedRecordError, verify

DEFAULT_VARIANT = "base"  # `variant` of conf/config.yaml: the run of a preset's own settings
RUN_MARKERS = (".hydra", "checkpoints")  # what a run directory holds before it finishes
REQUIRED_KEYS = ("model", "dataset", "seed", "split")
TEST = "test"


class RunCollectionWarning(UserWarning):
    """A run directory or record was left out (unfinished, malformed or duplicated)."""


@dataclass(frozen=True)
class LeftOut:
    """A run directory `collect_runs` left out, and why: the one line of its warning."""

    path: Path
    reason: str


@dataclass(frozen=True)
class Run:
    """One finished run: its directory and its run record. `config_label` is set when its
    (dataset, model, variant) holds several configs, to tell their rows apart."""

    path: Path
    record: dict
    config_label: str = ""

    @property
    def dataset(self) -> str:
        return str(self.record["dataset"])

    @property
    def preset(self) -> str:
        return str(self.record["model"])

    @property
    def variant(self) -> str:
        variant = str(self.record.get("variant") or DEFAULT_VARIANT)
        return f"{variant}@{self.config_label}" if self.config_label else variant

    @property
    def config_id(self) -> str:
        """The config id of the run's directory (`benchmark.config.identity.config_id`);
        for a record made before ids existed, its directory's name is not one: ""."""
        return str((self.record.get("identity") or {}).get("config_id") or "")

    @property
    def seed(self) -> int:
        return int(self.record["seed"])

    @property
    def key(self) -> tuple[str, str, str]:
        """The leaderboard row the run belongs to: (dataset, preset, variant)."""
        return self.dataset, self.preset, self.variant

    @property
    def test(self) -> dict:
        """The test-split figures of the record."""
        return self.record["split"][TEST]

    @property
    def include_trivial(self) -> bool:
        """Whether the run counted one-sentence documents as perfect."""
        return self.test.get("trivial_policy") == TRIVIAL_COUNTED_PERFECT

    @cached_property
    def metrics(self) -> dict[str, float]:
        """The numeric test metrics (counts such as `n_docs` or `disc_ties` left out)."""
        return {
            key: float(value)
            for key, value in self.test.items()
            if isinstance(value, Real)
            and not isinstance(value, bool)
            and not key.startswith("n_")
            and key not in DISCRIMINATION_COUNTS
        }

    def predictions(self) -> list[dict]:
        """The prediction records of its `predictions.jsonl` (checked against its seal when
        the run was collected); the errors of `read_predictions`."""
        return [p.to_json() for p in read_predictions(self.path / PREDICTIONS_NAME)]

    def config_value(self, dotted: str):
        """The resolved config value at `dotted` (e.g. `model.net.heads`), or None."""
        value = self.record.get("config") or {}
        for part in dotted.split("."):
            if not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        return value


def metric_order(runs: Iterable[Run]) -> list[str]:
    """Every metric of the runs: the order metrics first, then the others as first seen."""
    seen = dict.fromkeys(key for run in runs for key in run.metrics)
    first = [key for key in ORDER_METRICS if key in seen]
    return first + [key for key in seen if key not in ORDER_METRICS]


def record_problem(record: object) -> str | None:
    """Why a decoded run record cannot be used, or None."""
    if not isinstance(record, dict):
        return "not a JSON object"
    if missing := [key for key in REQUIRED_KEYS if key not in record]:
        return "missing key " + ", ".join(repr(key) for key in missing)
    split = record["split"]
    if not isinstance(split, dict) or not isinstance(split.get(TEST), dict):
        return f"no '{TEST}' figures under 'split'"
    if not isinstance(record["seed"], int) or isinstance(record["seed"], bool):
        return f"'seed' must be an integer, got {record['seed']!r}"
    tau = split[TEST].get("tau")
    if not isinstance(tau, Real) or isinstance(tau, bool) or math.isnan(tau):
        return "no test 'tau'"
    return None


def _warn(message: str, category: type[Warning] = RunCollectionWarning) -> None:
    warnings.warn(message, category, stacklevel=3)


# files only a run directory holds: its record, its config, the resume facts of its training
RUN_FILES = (RECORD_NAME, ".hydra/config.yaml", "checkpoints/resume.json")


def is_run_dir(folder: Path) -> bool:
    """Whether `folder` is a run directory, finished or not (it holds one of `RUN_FILES`)."""
    return any((folder / name).is_file() for name in RUN_FILES)


def enclosing_run_dir(path: str | Path) -> Path | None:
    """The run directory `path` lies in (or is), the innermost; None outside every one."""
    path = Path(path).resolve()
    return next((folder for folder in (path, *path.parents) if is_run_dir(folder)), None)


def _leave_out(left_out: list[LeftOut] | None, path: Path, reason: str) -> None:
    """Warn that the run at `path` is left out, and list it in `left_out` (when given)."""
    if left_out is not None:
        left_out.append(LeftOut(path, reason))
    _warn(reason)


def collect_runs(root: str | Path, left_out: list[LeftOut] | None = None) -> list[Run]:
    """Every finished run under `root`, sorted by path; warns about what it leaves out,
    and lists it in `left_out` when given (a report that names the runs it refused).

    Raises FileNotFoundError when `root` is not a directory.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no such runs directory")
    found: dict[tuple, Run] = {}
    unsealed = 0
    for directory, subdirs, files in os.walk(root):
        path = Path(directory)
        is_run = RECORD_NAME in files or any(marker in subdirs for marker in RUN_MARKERS)
        subdirs[:] = [] if is_run else sorted(d for d in subdirs if not d.startswith("."))
        if not is_run:
            continue
        if RECORD_NAME not in files:
            _leave_out(left_out, path, f"{path}: unfinished run (no {RECORD_NAME}), left out")
            continue
        try:
            record = read_run_record(path)
        except (ValueError, OSError) as error:
            _leave_out(left_out, path, f"{error}; left out")
            continue
        if problem := record_problem(record):
            _leave_out(left_out, path,
                       f"{path / RECORD_NAME}: malformed run record: {problem}; left out")
            continue
        try:
            unsealed += not verify(path, record, [PREDICTIONS_NAME])
        except UntrustedRecordError as error:
            _leave_out(left_out, path, f"{error}; left out")
            continue
        run = Run(path, record)
        seeded = (*run.key, run.config_id, run.seed)
        if seeded in found:
            name = "/".join(map(str, seeded))
            _leave_out(left_out, path,
                       f"{path}: a second run of {name} (first: {found[seeded].path}), left out")
            continue
        found[seeded] = run
    if unsealed:
        some = f"1 run record under {root} is" if unsealed == 1 else \
            f"{unsealed} run records under {root} are"
        _warn(f"{some} unsealed (written before runs were sealed): their files are not "
              "verified", UnsealedRecordWarning)
    return _poolable(_label_configs(sorted(found.values(), key=lambda run: str(run.path))),
                     left_out)


def _label_configs(runs: list[Run]) -> list[Run]:
    """`runs`, those of a (dataset, model, variant) with several config ids labelled by
    their config id (their rows stay apart)."""
    configs: dict[tuple, set[str]] = {}
    for run in runs:
        configs.setdefault(run.key, set()).add(run.config_id)
    return [
        replace(run, config_label=run.config_id or "unnamed") if len(configs[run.key]) > 1
        else run
        for run in runs
    ]


def _poolable(runs: list[Run], left_out: list[LeftOut] | None) -> list[Run]:
    """`runs` without those that cannot be pooled with the first run of their row."""
    first: dict[tuple, Run] = {}
    kept = []
    for run in runs:
        head = first.setdefault(run.key, run)
        if run is not head and (differences := pooling_differences(head.record, run.record)):
            _leave_out(left_out, run.path, f"{run.path}: cannot be pooled with {head.path} in "
                       f"one row ({'; '.join(differences)}), left out")
            continue
        kept.append(run)
    return kept


def group_runs(runs: Iterable[Run]) -> dict[tuple[str, str, str], list[Run]]:
    """Runs by leaderboard row (dataset, preset, variant), rows and seeds sorted."""
    groups: dict[tuple[str, str, str], list[Run]] = {}
    for run in runs:
        groups.setdefault(run.key, []).append(run)
    return {key: sorted(groups[key], key=lambda run: run.seed) for key in sorted(groups)}
