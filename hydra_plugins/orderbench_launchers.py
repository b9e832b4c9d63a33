"""OrderBench's submitit launchers for Hydra (`hydra/launcher=slurm|local`, conf/hydra/launcher/):
hydra-submitit-launcher's, with the launch of `benchmark.sweep.launcher`, and their config
schemas: hydra-submitit-launcher's with `runs_per_gpu` (`benchmark.sweep.gpu_sharing`),
registered as `orderbench_local` and `orderbench_slurm`, which conf/hydra/launcher/*.yaml
extend. Hydra accepts launcher plugins only from the `hydra_plugins` namespace package, and
imports its modules before it composes a config, hence this module (installed with the
project: pyproject.toml's package list)."""

from dataclasses import dataclass
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra_plugins.hydra_submitit_launcher.config import LocalQueueConf, SlurmQueueConf
from hydra_plugins.hydra_submitit_launcher.submitit_launcher import LocalLauncher, SlurmLauncher

from benchmark.sweep.launcher import BaseSweepLauncher


class SweepSlurmLauncher(BaseSweepLauncher, SlurmLauncher):
    """`hydra/launcher=slurm`: skip finished runs, check the partition, always summarise."""


class SweepLocalLauncher(BaseSweepLauncher, LocalLauncher):
    """`hydra/launcher=local`: skip finished runs, always summarise."""


@dataclass
class SweepSlurmConf(SlurmQueueConf):
    _target_: str = "hydra_plugins.orderbench_launchers.SweepSlurmLauncher"
    runs_per_gpu: Any = "auto"  # runs sharing one GPU, one SLURM job (a task each); auto:
    # as many as its memory holds (benchmark.sweep.gpu_sharing)


@dataclass
class SweepLocalConf(LocalQueueConf):
    _target_: str = "hydra_plugins.orderbench_launchers.SweepLocalLauncher"
    runs_per_gpu: Any = "auto"  # runs placed on each visible GPU at once; auto: as many as its
    # memory holds (benchmark.sweep.gpu_sharing)


for name, schema in (("orderbench_slurm", SweepSlurmConf), ("orderbench_local", SweepLocalConf)):
    ConfigStore.instance().store(group="hydra/launcher", name=name, node=schema,
                                 provider="orderbench")
