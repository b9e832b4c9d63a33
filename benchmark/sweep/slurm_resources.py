"""Whether a SLURM partition can give what `hydra.launcher` asks for, checked with `sinfo`
before a sweep submits anything.

SLURM accepts a job that no node of its partition can run and leaves it pending
(`Reason=PartitionConfig`, `PartitionTimeLimit`) without a word; this check turns that into
an error naming the `hydra.launcher` keys to change. Compared per node: CPUs
(`cpus_per_task` x `tasks_per_node`), memory (`mem_gb`, SLURM's GB = 1024 MB), GPUs
(`gpus_per_node`, from the node's `gpu` GRES); per partition: its existence, `timeout_min`
against its time limit and `nodes` against its nodes that fit. Nodes that fit but are all
down or drained give a warning (an administrator may bring them back).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass

SINFO_FORMAT = "%P|%a|%l|%D|%c|%m|%G|%t|%N"  # one line per group of alike nodes
_UNAVAILABLE_STATES = ("down", "drain", "fail", "maint", "futr", "unk", "npc", "inval")


@dataclass(frozen=True)
class NodeGroup:
    """One line of `sinfo -o SINFO_FORMAT`: alike nodes of one partition."""

    partition: str
    default: bool  # the cluster's default partition (`*` after its name)
    up: bool  # the partition's state
    time_limit_min: float | None  # None: no limit
    nodes: int
    cpus: int  # per node
    memory_mb: int  # per node (RealMemory)
    gpus: int  # per node, from the GRES
    state: str  # e.g. idle, mix, alloc, drain, down*
    nodelist: str

    @property
    def available(self) -> bool:
        return not self.state.rstrip("*~#!%$@^-").startswith(_UNAVAILABLE_STATES)


@dataclass(frozen=True)
class ResourceRequest:
    """What one job of the sweep asks for (the `hydra.launcher` values)."""

    partition: str | None
    timeout_min: float
    nodes: int = 1
    tasks_per_node: int = 1
    cpus_per_task: int | None = None
    mem_gb: float | None = None
    gpus_per_node: int | None = None

    @classmethod
    def from_launcher(cls, params: dict) -> ResourceRequest:
        return cls(
            partition=params.get("partition"),
            timeout_min=params.get("timeout_min") or 0,
            nodes=params.get("nodes") or 1,
            tasks_per_node=params.get("tasks_per_node") or 1,
            cpus_per_task=params.get("cpus_per_task"),
            mem_gb=params.get("mem_gb"),
            gpus_per_node=params.get("gpus_per_node"),
        )


def parse_time_limit(text: str) -> float | None:
    """Minutes of a SLURM time limit: `infinite`, `MM`, `MM:SS`, `HH:MM:SS`, `D-HH`,
    `D-HH:MM`, `D-HH:MM:SS` (sinfo prints `[D-]HH:MM:SS`)."""
    text = text.strip()
    if text.lower() in ("infinite", "unlimited", "n/a", "none"):
        return None
    days, _, clock = text.rpartition("-")
    parts = [float(part) for part in clock.split(":")]
    if days:  # hours first
        units = (3600, 60, 1)[: len(parts)]
    else:
        units = {1: (60,), 2: (60, 1), 3: (3600, 60, 1)}[len(parts)]
    seconds = sum(value * unit for value, unit in zip(parts, units, strict=True))
    return (float(days or 0) * 86400 + seconds) / 60


def parse_gpus(gres: str) -> int:
    """GPUs per node of a GRES string, e.g. `gpu:a100:4(S:0-1),gpu:v100:2` -> 6."""
    total = 0
    for item in re.sub(r"\([^)]*\)", "", gres).split(","):
        fields = item.strip().split(":")
        if fields[0] == "gpu" and len(fields) > 1 and fields[-1].isdigit():
            total += int(fields[-1])
    return total


def parse_sinfo(text: str) -> list[NodeGroup]:
    """The lines of `sinfo --noheader -o SINFO_FORMAT`."""
    groups = []
    for line in text.splitlines():
        if not line.strip():
            continue
        partition, avail, limit, nodes, cpus, memory, gres, state, nodelist = line.split("|")
        groups.append(NodeGroup(
            partition=partition.rstrip("*"),
            default=partition.endswith("*"),
            up=avail.strip() == "up",
            time_limit_min=parse_time_limit(limit),
            nodes=int(nodes),
            cpus=int(cpus.rstrip("+")),
            memory_mb=int(memory.rstrip("+")),
            gpus=parse_gpus(gres),
            state=state.strip(),
            nodelist=nodelist.strip(),
        ))
    return groups


def read_sinfo() -> list[NodeGroup]:
    """Every partition's node groups, from `sinfo` (raises OSError or CalledProcessError)."""
    text = subprocess.run(
        ["sinfo", "--noheader", "-o", SINFO_FORMAT],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout
    return parse_sinfo(text)


def _minutes(value: float | None) -> str:
    return "no limit" if value is None else f"{value:g} min"


def check_request(
    request: ResourceRequest, groups: list[NodeGroup]
) -> tuple[list[str], list[str]]:
    """(errors, warnings): errors for what no node of the partition can give (the jobs
    would pend forever), warnings for what may still work out."""
    partitions = sorted({group.partition for group in groups})
    if request.partition is None:
        defaults = sorted({group.partition for group in groups if group.default})
        if not defaults:
            return [f"the cluster has no default partition: set hydra.launcher.partition to one "
                    f"of {', '.join(partitions) or '(none)'}"], []
        name, key = defaults[0], "the default partition"
    else:
        name, key = request.partition, "partition"
    mine = [group for group in groups if group.partition == name]
    if not mine:
        return [f"hydra.launcher.partition={name}: no such partition (sinfo lists "
                f"{', '.join(partitions) or 'none'})"], []

    errors, warnings = [], []
    where = f"{key} {name}"
    if not any(group.up for group in mine):
        warnings.append(f"{where} is not up (sinfo): the jobs will pend until it is")
    limits = [group.time_limit_min for group in mine]
    limit = None if None in limits else max(limits)
    if limit is not None and request.timeout_min > limit:
        errors.append(
            f"hydra.launcher.timeout_min={request.timeout_min:g} exceeds the time limit of "
            f"{where} ({_minutes(limit)}): set hydra.launcher.timeout_min<={limit:g}; a run "
            "that needs longer is requeued and resumes (hydra.launcher.max_num_timeout)"
        )

    cpus = (request.cpus_per_task or 1) * request.tasks_per_node
    memory_mb = None if request.mem_gb is None else request.mem_gb * 1024
    gpus = request.gpus_per_node or 0
    needs = [  # (what a node must have, how much, the largest node's, keys to change)
        ("CPUs", cpus, max(g.cpus for g in mine),
         f"hydra.launcher.cpus_per_task={request.cpus_per_task} x "
         f"tasks_per_node={request.tasks_per_node}",
         "hydra.launcher.cpus_per_task (tasks_per_node follows trainer.devices)"),
        ("GB of memory", None if memory_mb is None else request.mem_gb,
         max(g.memory_mb for g in mine) // 1024,
         f"hydra.launcher.mem_gb={request.mem_gb}", "hydra.launcher.mem_gb"),
        ("GPUs", gpus, max(g.gpus for g in mine),
         f"hydra.launcher.gpus_per_node={request.gpus_per_node}",
         "trainer (e.g. trainer=cpu), trainer.devices or hydra.launcher.partition"),
    ]
    for what, wanted, largest, asked, keys in needs:
        if wanted is not None and wanted > largest:
            errors.append(f"{asked} asks for {wanted:g} {what} per node, the largest node of "
                          f"{where} has {largest}: change {keys}")
    if errors:
        return errors, warnings

    fitting = [
        group for group in mine
        if group.cpus >= cpus and group.gpus >= gpus
        and (memory_mb is None or group.memory_mb >= memory_mb)
    ]
    count = sum(group.nodes for group in fitting)
    if count < request.nodes:
        errors.append(
            f"hydra.launcher.nodes={request.nodes} (trainer.num_nodes): {where} has "
            f"{count} node(s) with {cpus} CPUs, {gpus} GPUs"
            f"{'' if memory_mb is None else f' and {request.mem_gb:g} GB'}: lower "
            "trainer.num_nodes or the per-node request, or pick another hydra.launcher.partition"
        )
    elif sum(group.nodes for group in fitting if group.available) < request.nodes:
        warnings.append(
            f"the nodes of {where} that fit the request are down or drained "
            f"({', '.join(g.nodelist + ':' + g.state for g in fitting)}): the jobs will pend "
            "until they are back"
        )
    return errors, warnings
