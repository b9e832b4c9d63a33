"""Skip, resume or start fresh: the config comparison and the plan of a launched run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from omegaconf import OmegaConf

from benchmark.config.identity import comparable_config, config_differences
from benchmark.records.run_record import write_run_record
from benchmark.run.folder import RERUN_DIR
from benchmark.run.plan import RunConflictError, plan_run


def config(**changes):
    cfg = OmegaConf.create(
        {
            "seed": 0,
            "rerun": False,
            "model": {"name": "lstm_ptrnet", "net": {"hidden_dim": 64}},
            "dataset": {"name": "synthetic", "datamodule": {"name": "${dataset.name}",
                                                            "num_workers": 0}},
            "trainer": {"max_epochs": 2, "enable_progress_bar": True},
            "paths": {"runs": "runs"},
            "logger": {"csv": {"save_dir": "${hydra:runtime.output_dir}"}},
        }
    )
    for key, value in changes.items():
        OmegaConf.update(cfg, key.replace("__", "."), value)
    return cfg


def finish(run_dir: Path, cfg) -> None:
    resolved = {**comparable_config(cfg), "paths": {"runs": "elsewhere"}}
    write_run_record(run_dir, {"config": resolved})


def save_checkpoint(path: Path, epoch: int, global_step: int) -> None:
    """A checkpoint with the keys a resume reads (weights do not matter here)."""
    torch.save({"state_dict": {}, "epoch": epoch, "global_step": global_step}, path)


def start_training(run_dir: Path, cfg, wandb_id: str = "abc123") -> None:
    checkpoints = run_dir / "checkpoints"
    checkpoints.mkdir(parents=True)
    save_checkpoint(checkpoints / "last.ckpt", epoch=2, global_step=12)
    info = {"config": comparable_config(cfg), "wandb_id": wandb_id}
    (checkpoints / "resume.json").write_text(json.dumps(info))


def test_comparable_config_drops_paths_logging_and_display_without_resolving_them():
    plain = comparable_config(config())
    assert "paths" not in plain and "logger" not in plain and "rerun" not in plain
    assert "enable_progress_bar" not in plain["trainer"]
    assert "num_workers" not in plain["dataset"]["datamodule"]
    assert plain["dataset"]["datamodule"]["name"] == "synthetic"  # resolved


def test_config_differences_name_every_dotted_key():
    old = {"model": {"net": {"hidden_dim": 64}}, "seed": 0}
    new = {"model": {"net": {"hidden_dim": 128, "dropout": 0.1}}, "seed": 0}
    assert config_differences(old, new) == [
        "model.net.dropout: '<absent>' -> 0.1",
        "model.net.hidden_dim: 64 -> 128",
    ]
    assert config_differences(new, new) == []


def test_a_new_run_directory_starts_fresh_with_a_new_wandb_id(tmp_path: Path):
    first, second = plan_run(tmp_path, config()), plan_run(tmp_path, config())
    assert first.action == second.action == "fresh" and first.ckpt_path is None
    assert first.wandb_id != second.wandb_id


def test_a_finished_run_with_the_same_config_is_skipped(tmp_path: Path):
    finish(tmp_path, config())
    relaunch = config(paths__runs="/moved", trainer__enable_progress_bar=False)
    assert plan_run(tmp_path, relaunch).action == "skip"


def test_a_finished_run_with_another_config_is_a_conflict_naming_the_key(tmp_path: Path):
    """(A folder named by another config's id: copied by hand.)"""
    finish(tmp_path, config())
    with pytest.raises(RunConflictError, match=r"trainer.max_epochs: 2 -> 3.*rerun=true"):
        plan_run(tmp_path, config(trainer__max_epochs=3))
    rerun = plan_run(tmp_path, config(trainer__max_epochs=3, rerun=True))
    assert rerun.action == "fresh" and rerun.work_dir == tmp_path / RERUN_DIR


def test_an_interrupted_training_resumes_from_last_ckpt_with_its_wandb_id(tmp_path: Path):
    start_training(tmp_path, config(), wandb_id="run-7")
    plan = plan_run(tmp_path, config())
    assert plan.action == "resume" and plan.wandb_id == "run-7"
    assert plan.ckpt_path == tmp_path / "checkpoints" / "last.ckpt"
    assert (plan.resume_from.epoch, plan.resume_from.global_step) == (2, 12)


def test_a_truncated_last_ckpt_falls_back_to_the_best_with_a_warning_naming_it(
    tmp_path: Path, caplog
):
    start_training(tmp_path, config(), wandb_id="run-7")
    last, best = tmp_path / "checkpoints" / "last.ckpt", tmp_path / "checkpoints" / "best.ckpt"
    save_checkpoint(best, epoch=1, global_step=8)
    last.write_bytes(last.read_bytes()[:300])  # a kill or a full disk during the save
    plan = plan_run(tmp_path, config())
    assert plan.action == "resume" and plan.ckpt_path == best and plan.wandb_id == "run-7"
    assert plan.resume_from.epoch == 1
    assert f"{last}: damaged checkpoint" in caplog.text


def test_with_no_intact_checkpoint_the_run_starts_afresh(tmp_path: Path, caplog):
    start_training(tmp_path, config())
    (tmp_path / "checkpoints" / "last.ckpt").write_bytes(b"PK\x03\x04 not a checkpoint")
    plan = plan_run(tmp_path, config())
    assert plan.action == "fresh" and plan.ckpt_path is None
    assert "no intact checkpoint" in caplog.text


def test_a_checkpoint_of_another_config_is_never_resumed(tmp_path: Path):
    start_training(tmp_path, config())
    with pytest.raises(RunConflictError, match=r"last.ckpt.*model.net.hidden_dim: 64 -> 32"):
        plan_run(tmp_path, config(model__net__hidden_dim=32))


def test_a_checkpoint_without_resume_info_is_a_conflict(tmp_path: Path):
    start_training(tmp_path, config())
    (tmp_path / "checkpoints" / "resume.json").unlink()
    with pytest.raises(RunConflictError, match="resume.json"):
        plan_run(tmp_path, config())
