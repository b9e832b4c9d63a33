"""PyTorch's intra-op threads for a run: the config key `cpu_threads`.

Results depend on the thread count (a matrix product splits its sums differently), so
the default (conf/config.yaml) pins one thread: a seed gives the same figures on any
machine and under any load, and the run record says how many were used. `auto` follows
the cores the job was given: the CPUs this process may run on (`os.sched_getaffinity`,
which SLURM's `--cpus-per-task`, `taskset` and container CPU sets restrict), not the
machine's count, so jobs that share a node do not oversubscribe it (docs/performance.md,
"Threads"). null leaves PyTorch's own default (every core it sees).
"""

from __future__ import annotations

import os

AUTO = "auto"


def given_cores() -> int:
    """CPUs this process may run on (its affinity mask), else the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def machine_cpus() -> int:
    """The CPUs of this machine, the most threads `cpu_threads` may ask for: more only
    slow a run down, and a number far beyond them exhausts the memory of the process."""
    return os.cpu_count() or 1


def thread_count_problem(setting) -> str | None:
    """Why an integer `cpu_threads` cannot be used here, or None."""
    if isinstance(setting, int) and not isinstance(setting, bool) and setting > machine_cpus():
        return (f"cpu_threads: expected at most {machine_cpus()} (the CPUs of this machine), got "
                f"{setting}; {AUTO} takes the cores the job was given")
    return None


def resolve_threads(setting: int | str | None) -> int | None:
    """`cpu_threads` -> the thread count to set (None: leave PyTorch's default)."""
    if setting is None:
        return None
    if setting == AUTO:
        return given_cores()
    if isinstance(setting, bool) or not isinstance(setting, int) or setting < 1:
        raise ValueError(
            f"cpu_threads: expected an integer >= 1, {AUTO!r} or null, got {setting!r}"
        )
    return setting
