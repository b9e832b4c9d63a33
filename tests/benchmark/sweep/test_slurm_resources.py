"""The check of a sweep's request against the partition (`benchmark.sweep.slurm_resources`) on
captured `sinfo` output: the one-node cluster of scripts/local_slurm.sh, and a cluster with
CPU, GPU and unlimited partitions in the same format."""

from __future__ import annotations

import pytest

from benchmark.sweep.slurm_resources import (
    ResourceRequest,
    check_request,
    parse_gpus,
    parse_sinfo,
    parse_time_limit,
)

# `sinfo --noheader -o SINFO_FORMAT` on the one-node cluster of `make slurm-up` (2 cores)
LOCAL = "debug*|up|1:00:00|1|2|22057|(null)|idle|vm\n"
CLUSTER = """cpu*|up|2-00:00:00|10|64|256000|(null)|idle|c[01-10]
gpu|up|1-00:00:00|2|32|512000|gpu:a100:4(S:0-1)|mix|g[01-02]
gpu|up|1-00:00:00|1|32|512000|gpu:a100:4(S:0-1)|drain|g03
long|up|infinite|4|16|64000|(null)|alloc|l[1-4]
old|down|1:00:00|1|8|16000|(null)|idle|o1
"""
# conf/hydra/launcher/slurm.yaml's defaults with trainer=gpu
DEFAULTS = dict(partition=None, timeout_min=720, cpus_per_task=8, mem_gb=64, gpus_per_node=1)


def check(text: str, **request):
    return check_request(ResourceRequest(**{**DEFAULTS, **request}), parse_sinfo(text))


@pytest.mark.parametrize("text, minutes", [
    ("1:00:00", 60), ("2-00:00:00", 2880), ("30:00", 30), ("45", 45), ("1-12", 2160),
    ("1-12:30", 2190), ("10:30", 10.5),
    ("infinite", None), ("UNLIMITED", None),
])
def test_time_limits(text, minutes):
    assert parse_time_limit(text) == minutes


def test_gres_gpus():
    assert parse_gpus("(null)") == 0
    assert parse_gpus("gpu:4") == 4
    assert parse_gpus("gpu:a100:4(S:0-1),gpu:v100:2,shard:8") == 6


def test_sinfo_lines():
    local, = parse_sinfo(LOCAL)
    assert (local.partition, local.default, local.up) == ("debug", True, True)
    assert local.time_limit_min == 60
    assert (local.nodes, local.cpus, local.memory_mb, local.gpus) == (1, 2, 22057, 0)
    groups = parse_sinfo(CLUSTER)
    assert [g.partition for g in groups if g.default] == ["cpu"]
    assert [g.available for g in groups if g.partition == "gpu"] == [True, False]


def test_defaults_on_the_local_cluster_name_every_key_to_change():
    errors, warnings = check(LOCAL, gpus_per_node=None)
    assert warnings == []
    assert errors == [
        "hydra.launcher.timeout_min=720 exceeds the time limit of the default partition debug "
        "(60 min): set hydra.launcher.timeout_min<=60; a run that needs longer is requeued and "
        "resumes (hydra.launcher.max_num_timeout)",
        "hydra.launcher.cpus_per_task=8 x tasks_per_node=1 asks for 8 CPUs per node, the largest "
        "node of the default partition debug has 2: change hydra.launcher.cpus_per_task "
        "(tasks_per_node follows trainer.devices)",
        "hydra.launcher.mem_gb=64 asks for 64 GB of memory per node, the largest node of the "
        "default partition debug has 21: change hydra.launcher.mem_gb",
    ]


def test_a_request_the_local_cluster_can_give():
    assert check(LOCAL, timeout_min=30, cpus_per_task=1, mem_gb=2, gpus_per_node=None) == ([], [])
    # memory is compared in SLURM's GB (1024 MB): 21 GB fit in 22057 MB, 22 do not
    assert check(LOCAL, timeout_min=60, cpus_per_task=2, mem_gb=21, gpus_per_node=0)[0] == []
    assert check(LOCAL, timeout_min=60, cpus_per_task=2, mem_gb=22, gpus_per_node=0)[0]


def test_gpus_and_tasks_per_node():
    errors, _ = check(CLUSTER, gpus_per_node=1)  # the default partition, cpu, has no GPUs
    assert errors == [
        "hydra.launcher.gpus_per_node=1 asks for 1 GPUs per node, the largest node of the "
        "default partition cpu has 0: change trainer (e.g. trainer=cpu), trainer.devices or "
        "hydra.launcher.partition"
    ]
    assert check(CLUSTER, partition="gpu", gpus_per_node=4) == ([], [])
    errors, _ = check(CLUSTER, partition="gpu", gpus_per_node=8)
    assert len(errors) == 1 and "asks for 8 GPUs per node" in errors[0]
    errors, _ = check(CLUSTER, partition="gpu", gpus_per_node=4, tasks_per_node=4,
                      cpus_per_task=16)
    assert len(errors) == 1 and "x tasks_per_node=4 asks for 64 CPUs" in errors[0]


def test_time_limit_of_a_named_partition_and_no_limit():
    errors, _ = check(CLUSTER, partition="gpu", gpus_per_node=4, timeout_min=2000)
    assert errors == [
        "hydra.launcher.timeout_min=2000 exceeds the time limit of partition gpu (1440 min): "
        "set hydra.launcher.timeout_min<=1440; a run that needs longer is requeued and resumes "
        "(hydra.launcher.max_num_timeout)"
    ]
    assert check(CLUSTER, partition="long", gpus_per_node=None, mem_gb=32,
                 timeout_min=99999) == ([], [])


def test_nodes_that_fit_down_or_too_few():
    errors, warnings = check(CLUSTER, partition="gpu", gpus_per_node=4, nodes=3)
    assert errors == []
    assert warnings == ["the nodes of partition gpu that fit the request are down or drained "
                        "(g[01-02]:mix, g03:drain): the jobs will pend until they are back"]
    errors, _ = check(CLUSTER, partition="gpu", gpus_per_node=4, nodes=4)
    assert len(errors) == 1 and errors[0].startswith("hydra.launcher.nodes=4 (trainer.num_nodes)")
    _, warnings = check(CLUSTER, partition="old", gpus_per_node=None, timeout_min=60)
    assert warnings == ["partition old is not up (sinfo): the jobs will pend until it is"]


def test_unknown_partition_and_no_default():
    errors, _ = check(CLUSTER, partition="a100")
    assert errors == ["hydra.launcher.partition=a100: no such partition (sinfo lists cpu, gpu, "
                      "long, old)"]
    errors, _ = check(CLUSTER.replace("cpu*", "cpu"))
    assert errors == ["the cluster has no default partition: set hydra.launcher.partition to "
                      "one of cpu, gpu, long, old"]
