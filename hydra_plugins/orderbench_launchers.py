"""OrderBench's submitit launchers for Hydra (`hydra/launcher=slurm|local`, conf/hydra/launcher/):
hydra-submitit-launcher's, with the launch of `benchmark.sweep.launcher`. Hydra accepts
launcher plugins only from the `hydra_plugins` namespace package, hence this module
(installed with the project: pyproject.toml's package list)."""

from hydra_plugins.hydra_submitit_launcher.submitit_launcher import LocalLauncher, SlurmLauncher

from benchmark.sweep.launcher import BaseSweepLauncher


class SweepSlurmLauncher(BaseSweepLauncher, SlurmLauncher):
    """`hydra/launcher=slurm`: skip finished runs, check the partition, always summarise."""


class SweepLocalLauncher(BaseSweepLauncher, LocalLauncher):
    """`hydra/launcher=local`: skip finished runs, always summarise."""
