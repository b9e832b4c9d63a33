"""The sweep and launcher configs compose: SLURM/local resources follow the trainer
profile, and each named sweep expands to the expected number of jobs."""

from __future__ import annotations

import subprocess

import pytest
import yaml
from fixtures_sweep import ROOT, train_command
from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.types import RunMode
from omegaconf.errors import InterpolationResolutionError

from benchmark.config.compose import CONF_DIR
from benchmark.config.config_folders import group_files
from benchmark.config.resolvers import register_resolvers
from benchmark.sweep.jobs import job_overrides


def launcher(*overrides: str) -> dict:
    register_resolvers()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3", job_name="train"):
        cfg = GlobalHydra.instance().config_loader().load_configuration(
            "config", list(overrides), run_mode=RunMode.MULTIRUN
        )
        return {key: cfg.hydra.launcher[key] for key in cfg.hydra.launcher}


def n_jobs(sweep: str) -> int:
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3", job_name="train"):
        loader = GlobalHydra.instance().config_loader()
        master = loader.load_configuration("config", [f"sweep={sweep}"], RunMode.MULTIRUN)
        return len(job_overrides(master, loader))


@pytest.mark.parametrize(
    ("trainer", "gpus", "tasks", "nodes"),
    [("cpu", None, 1, 1), ("gpu", 1, 1, 1), ("ddp", 4, 4, 1), ("ddp_cpu", None, 2, 1)],
)
def test_slurm_resources_follow_the_trainer_profile(trainer, gpus, tasks, nodes):
    params = launcher("hydra/launcher=slurm", f"trainer={trainer}")
    assert params["_target_"].endswith("SlurmLauncher")
    assert (params["gpus_per_node"], params["tasks_per_node"], params["nodes"]) == (
        gpus, tasks, nodes
    )
    assert params["max_num_timeout"] > 0 and params["array_parallelism"] > 0
    assert params["setup"] and "partition" in params and "account" in params


def test_local_launcher_starts_one_process_per_device():
    params = launcher("hydra/launcher=local", "trainer=ddp_cpu")
    assert params["_target_"].endswith("LocalLauncher") and params["tasks_per_node"] == 2


def test_a_device_count_the_launcher_cannot_reserve_is_named():
    with pytest.raises(InterpolationResolutionError, match="trainer.devices must be a positive"):
        launcher("hydra/launcher=slurm", "trainer.devices=auto")


@pytest.mark.slow
def test_cli_shows_the_submitit_parameters_derived_from_the_trainer_profile():
    result = subprocess.run(
        train_command("--cfg", "all", "--resolve", "hydra/launcher=slurm", "trainer=ddp",
                      "trainer.devices=8", "trainer.num_nodes=2"),
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    params = yaml.safe_load(result.stdout)["hydra"]["launcher"]
    assert (params["gpus_per_node"], params["tasks_per_node"], params["nodes"]) == (8, 8, 2)


N_PRESETS = len(group_files("model"))  # the sweeps' model: glob(*)


@pytest.mark.parametrize(
    ("sweep", "jobs"),
    [("smoke", 4), ("paper", 9 * N_PRESETS * 3), ("ablation", 186),
     ("reproduction_e100", 60), ("reproduction_e100_cv", 200),
     ("reproduction_e100_released", 54)],
)  # fmt: skip
def test_named_sweeps_expand_to_their_jobs(sweep, jobs):
    assert n_jobs(sweep) == jobs
