"""Jobs that pend for a reason that will not go away by waiting, from `squeue`: what a
sweep warns about while it waits (`benchmark.sweep.launcher`).

`Resources`, `Priority`, `JobArrayTaskLimit`, `BeginTime` and `Dependency` only mean
waiting in line; the reasons below mean the partition, the account or the QOS cannot run
the job as requested (or not now: nodes down), so the sweep would wait forever in silence.
"""

from __future__ import annotations

import subprocess
from collections import defaultdict

SQUEUE_FORMAT = "%i|%T|%r"
_REQUEST = "hydra.launcher cpus_per_task, mem_gb, gpus_per_node, nodes"
STUCK_REASONS = {
    "PartitionConfig": f"the request exceeds what the partition allows: lower {_REQUEST}",
    "PartitionTimeLimit": "hydra.launcher.timeout_min exceeds the partition's time limit",
    "PartitionNodeLimit": "more nodes than the partition allows: trainer.num_nodes",
    "PartitionDown": "the partition is down: another hydra.launcher.partition, or wait",
    "PartitionInactive": "the partition is inactive: another hydra.launcher.partition",
    "ReqNodeNotAvail": "the nodes it needs are down, drained or reserved (sinfo -R)",
    "NodeDown": "a node it needs is down (sinfo -R)",
    "BadConstraints": f"no node satisfies the request: {_REQUEST}, additional_parameters",
    "InvalidAccount": "hydra.launcher.account is not valid on this cluster",
    "InvalidQOS": "hydra.launcher.qos is not valid for this account",
    "QOSMaxWallDurationPerJobLimit": "hydra.launcher.timeout_min exceeds the QOS limit",
    "AssocMaxWallDurationLimit": "hydra.launcher.timeout_min exceeds the account's limit",
    "QOSMaxCpuPerJobLimit": "hydra.launcher.cpus_per_task exceeds the QOS limit",
    "QOSMaxMemoryPerJob": "hydra.launcher.mem_gb exceeds the QOS limit",
    "QOSMaxGRESPerJob": "the GPUs per job exceed the QOS limit (trainer.devices)",
}

# squeue prints the slurmctld's description instead of the reason code when it has one
DESCRIBED_REASONS = {
    "Nodes required for job are DOWN, DRAINED": "ReqNodeNotAvail",
}


def parse_squeue(text: str) -> list[tuple[str, str, str]]:
    """(job id, state, reason) per line of `squeue --noheader -o SQUEUE_FORMAT`; the reason
    is its code (`ReqNodeNotAvail, UnavailableNodes:n1` -> `ReqNodeNotAvail`; a description
    of `DESCRIBED_REASONS` -> its code)."""
    rows = []
    for line in text.splitlines():
        if line.strip():
            job_id, state, reason = line.split("|", 2)
            code = next((code for start, code in DESCRIBED_REASONS.items()
                         if reason.strip().startswith(start)), reason.split(",")[0].strip())
            rows.append((job_id.strip(), state.strip(), code))
    return rows


def stuck_jobs(rows: list[tuple[str, str, str]]) -> dict[str, list[str]]:
    """Reason -> ids of the pending jobs held by it (only the reasons of `STUCK_REASONS`)."""
    stuck = defaultdict(list)
    for job_id, state, reason in rows:
        if state == "PENDING" and reason in STUCK_REASONS:
            stuck[reason].append(job_id)
    return dict(stuck)


def pending_warning(reason: str, job_ids: list[str]) -> str:
    """One line naming the jobs, the reason and what to change."""
    shown = ", ".join(job_ids[:4]) + (f" and {len(job_ids) - 4} more" if len(job_ids) > 4 else "")
    return (f"SLURM job(s) {shown} pending with Reason={reason}: {STUCK_REASONS[reason]}. "
            "They will not start until that changes; scancel them to end the sweep with its "
            "summary, and relaunch once it is fixed.")


def read_squeue(job_ids: list[str]) -> list[tuple[str, str, str]]:
    """`squeue` rows of the given (array) job ids; raises OSError or CalledProcessError."""
    text = subprocess.run(
        ["squeue", "--noheader", "-o", SQUEUE_FORMAT, "-j", ",".join(job_ids)],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout
    return parse_squeue(text)
