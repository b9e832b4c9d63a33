"""The submitit job this process runs in, if any (`hydra/launcher=slurm|local`).

A job with several tasks (`tasks_per_node` = `trainer.devices`) already has one process
per device; exporting the torch.distributed variables of its tasks makes Lightning use
those processes instead of re-launching the command line (which, in a submitit job, is
submitit's own). In a job whose tasks are runs sharing one GPU
(`hydra.launcher.runs_per_gpu`, `benchmark.sweep.gpu_sharing`) each task is a run of its
own (`run_alone`): one process, whose Trainer is given Lightning's one-process environment
(`one_process_environment`) where it would take SLURM's tasks for its ranks (a DDP run of
world size = the job's runs), and whose rank-zero-only functions (loggers, messages) run
though SLURM numbers the task above 0.
"""

from __future__ import annotations

import os
from pathlib import Path

from omegaconf import DictConfig

ONE_RUN_PER_TASK = "ORDERBENCH_ONE_RUN_PER_TASK"  # set by a task that is a run of its own
SHARED_GPU = "ORDERBENCH_RUNS_PER_GPU"  # how many runs share this run's GPU (the launcher's)


def run_alone() -> None:
    """Make this task of a shared job a run of its own (module docstring)."""
    os.environ[ONE_RUN_PER_TASK] = "1"
    from pytorch_lightning.utilities.rank_zero import rank_zero_only

    rank_zero_only.rank = 0  # Lightning read SLURM_PROCID when it was imported


def one_run_per_task() -> bool:
    """Whether this process is one of several runs of one job, each a process of its own."""
    return os.environ.get(ONE_RUN_PER_TASK) == "1"


def one_process_environment() -> list:
    """The Trainer's plugins for a run that is a task of a shared job: Lightning's own
    one-process environment (not SLURM's, whose task count is the job's runs); else none."""
    if not one_run_per_task():
        return []
    from pytorch_lightning.plugins.environments import LightningEnvironment

    return [LightningEnvironment()]


def submitit_job():
    """The `submitit.JobEnvironment` of this process, or None outside a submitit job."""
    if "SUBMITIT_FOLDER" not in os.environ or "SUBMITIT_EXECUTOR" not in os.environ:
        return None
    import submitit

    return submitit.JobEnvironment()


def submitit_logs() -> list[Path]:
    """The stderr and stdout files of this submitit task (none outside submitit)."""
    job = submitit_job()
    return [] if job is None else [job.paths.stderr, job.paths.stdout]


def prepare_processes(cfg: DictConfig, multirun: bool) -> None:
    """Export the ranks of a multi-task submitit job; refuse multi-process training where
    Lightning would have to re-launch the command line (a multirun, a submitit job)."""
    job = submitit_job()
    if job is not None and job.num_tasks > 1 and not one_run_per_task():
        import submitit

        submitit.helpers.TorchDistributedEnvironment().export(set_cuda_visible_devices=False)
        return
    devices, nodes = cfg.trainer.get("devices", 1), cfg.trainer.get("num_nodes", 1)
    external = "LOCAL_RANK" in os.environ  # processes started by torchrun or Lightning
    if (devices, nodes) != (1, 1) and (multirun or job is not None) and not external:
        raise RuntimeError(
            f"trainer.devices={devices} x trainer.num_nodes={nodes} processes cannot be "
            "started by Lightning inside a multirun or a one-task submitit job: launch the "
            "sweep with hydra/launcher=local or hydra/launcher=slurm (one task per device)"
        )
