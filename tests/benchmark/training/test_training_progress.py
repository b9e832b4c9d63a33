"""What ended a run's training (`stopped_by`) and the recorded environment."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from pytorch_lightning.callbacks import EarlyStopping, Timer
from pytorch_lightning.callbacks.early_stopping import EarlyStoppingReason

from benchmark.run.environment import MEMORY_VARIABLES, run_environment
from benchmark.training.progress import STOPPED_BY, best_epoch, stopped_by


def trainer(callbacks=(), epoch=8, max_epochs=8, step=100, max_steps=-1, interrupted=False):
    return SimpleNamespace(callbacks=list(callbacks), current_epoch=epoch, max_epochs=max_epochs,
                           global_step=step, max_steps=max_steps, interrupted=interrupted)


def early_stopping(reason=EarlyStoppingReason.NOT_STOPPED) -> EarlyStopping:
    callback = EarlyStopping(monitor="val/tau", mode="max", patience=2)
    callback.stopping_reason = reason
    return callback


def spent_timer() -> Timer:
    timer = Timer(duration="00:00:00:01")
    timer._start_time[next(iter(timer._start_time))] = 0.0  # started long ago, still running
    return timer


@pytest.mark.parametrize(("fake", "expected"), [
    (trainer([early_stopping()]), "max_epochs"),
    (trainer([early_stopping(EarlyStoppingReason.PATIENCE_EXHAUSTED)], epoch=4), "early_stopping"),
    (trainer([spent_timer(), early_stopping()], epoch=3), "max_time"),
    (trainer([Timer(duration=None)], epoch=3), "interrupted"),
    (trainer(epoch=2, step=50, max_steps=50), "max_steps"),
    (trainer(interrupted=True), "interrupted"),
])
def test_stopped_by_names_what_ended_training(fake, expected):
    assert stopped_by(fake, trained=True) == expected
    assert expected in STOPPED_BY


def test_an_untrained_model_and_a_missing_checkpoint():
    assert stopped_by(trainer(epoch=0), trained=False) == "untrained"
    assert best_epoch(None) is None and best_epoch("/nonexistent/best.ckpt") is None


def test_best_epoch_counts_from_one(tmp_path):
    torch.save({"epoch": 2, "state_dict": {}}, tmp_path / "best.ckpt")
    assert best_epoch(str(tmp_path / "best.ckpt")) == 3


def test_environment_records_threads_versions_and_determinism():
    environment = run_environment(torch.device("cpu"), deterministic=False)
    assert environment["threads"] == torch.get_num_threads()
    assert environment["torch"] == torch.__version__ and environment["device"] == "cpu"
    assert environment["deterministic"] is False
    assert environment["deterministic_algorithms"] == torch.are_deterministic_algorithms_enabled()


def test_environment_names_the_memory_settings_it_ran_under(monkeypatch):
    """A record's peak memory depends on the allocator variables it was launched with."""
    for name in MEMORY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    assert "memory_variables" not in run_environment(torch.device("cpu"), deterministic=False)
    monkeypatch.setenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "16")
    environment = run_environment(torch.device("cpu"), deterministic=False)
    assert environment["memory_variables"] == {"ONEDNN_PRIMITIVE_CACHE_CAPACITY": "16"}
