"""Jobs pending for a reason that waiting will not fix (`benchmark.sweep.slurm_pending`), on
`squeue --noheader -o SQUEUE_FORMAT` output captured on the one-node cluster."""

from __future__ import annotations

from benchmark.sweep.slurm_pending import parse_squeue, pending_warning, stuck_jobs

# sbatch -c 8 / -t 120 / --array=0-2 on the 2-core cluster of `make slurm-up` (MaxTime 1 h);
# the last line: a sweep's array while the node was drained
SQUEUE = """1|PENDING|PartitionConfig
2|PENDING|PartitionTimeLimit
3_2|PENDING|Resources
3_0|RUNNING|None
3_1|RUNNING|None
7_[0-5]|PENDING|ReqNodeNotAvail, UnavailableNodes:vm
33_[0-1%2]|PENDING|Nodes required for job are DOWN, DRAINED or reserved for jobs in higher \
priority partitions
"""


def test_only_reasons_that_do_not_pass_are_reported():
    rows = parse_squeue(SQUEUE)
    assert rows[5] == ("7_[0-5]", "PENDING", "ReqNodeNotAvail")
    assert stuck_jobs(rows) == {
        "PartitionConfig": ["1"], "PartitionTimeLimit": ["2"],
        "ReqNodeNotAvail": ["7_[0-5]", "33_[0-1%2]"],
    }
    assert stuck_jobs(parse_squeue("3_2|PENDING|Resources\n4|PENDING|Priority\n")) == {}


def test_warning_names_the_jobs_the_reason_and_the_keys():
    warning = pending_warning("PartitionConfig", [f"9_{i}" for i in range(6)])
    assert warning.startswith("SLURM job(s) 9_0, 9_1, 9_2, 9_3 and 2 more pending with "
                              "Reason=PartitionConfig: the request exceeds what the partition "
                              "allows: lower hydra.launcher cpus_per_task, mem_gb")
    assert "will not start until that changes; scancel them" in warning
    assert "hydra.launcher.timeout_min" in pending_warning("PartitionTimeLimit", ["2"])
