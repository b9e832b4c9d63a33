"""bf16 on a CPU is probed, never assumed (benchmark.config.precision)."""

from __future__ import annotations

import json

import pytest
import torch
from fixtures_sweep import run_dir_of
from fixtures_train import train

from benchmark.config import precision


@pytest.fixture
def onednn_restored():
    """Leaves torch.backends.mkldnn.enabled as the test found it."""
    before = torch.backends.mkldnn.enabled
    yield
    torch.backends.mkldnn.enabled = before


@pytest.mark.parametrize(
    ("device", "bf16", "cpu_has", "off"),
    [("cpu", True, False, True), ("cpu", True, True, False), ("cpu", False, False, False),
     ("cuda", True, False, False)],  # fmt: skip
)
def test_onednn_is_switched_off_only_for_bf16_on_a_cpu_without_it(
    monkeypatch, device, bf16, cpu_has, off
):
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: cpu_has)
    assert precision.needs_onednn_off(device, bf16) is off


def test_an_lstm_runs_under_bf16_autocast_on_any_cpu_and_the_switch_is_restored():
    torch.manual_seed(0)
    lstm, linear = torch.nn.LSTM(8, 8, batch_first=True), torch.nn.Linear(8, 8)
    words = torch.randn(2, 3, 8, requires_grad=True)
    before = torch.backends.mkldnn.enabled
    with precision.bf16_autocast("cpu", True):
        states = lstm(linear(words))[0]  # (2, 3, 8)
        assert linear(words).dtype == torch.bfloat16  # autocast is on
    states.float().sum().backward()
    assert words.grad is not None and torch.isfinite(words.grad).all()
    assert torch.backends.mkldnn.enabled == before


def test_float32_is_plain(monkeypatch):
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: False)
    before = torch.backends.mkldnn.enabled
    with precision.bf16_autocast("cpu", False):
        assert torch.backends.mkldnn.enabled == before
        assert torch.nn.Linear(4, 4)(torch.randn(1, 4)).dtype == torch.float32


def test_a_trainer_asking_for_bf16_on_a_cpu_without_it_is_told_in_one_line(
    monkeypatch, onednn_restored
):
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: False)
    note = precision.prepare_cpu_bf16("cpu", "bf16-mixed")
    assert note.startswith("trainer.precision=bf16-mixed: this CPU has no bf16 instructions")
    assert torch.backends.mkldnn.enabled is False
    assert precision.prepare_cpu_bf16("cpu", "32-true") is None
    assert precision.prepare_cpu_bf16("gpu", "bf16-mixed") is None
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: True)
    assert precision.prepare_cpu_bf16("cpu", "bf16-mixed") is None


def test_a_bf16_mixed_run_trains_and_records_on_this_cpu(tmp_path):
    """Lightning's bf16-mixed on the CPU: the LSTM+PtrNet run finishes with a record
    (on a CPU without bf16 instructions it says why it is slower)."""
    result = train(tmp_path, "model=lstm_ptrnet", "+experiment=tiny", "seed=0",
                   "+trainer.precision=bf16-mixed", "trainer.max_epochs=1")  # fmt: skip
    record = json.loads((run_dir_of(tmp_path, "synthetic/lstm_ptrnet/base") / "metrics.json")
                        .read_text())  # fmt: skip
    assert record["config"]["trainer"]["precision"] == "bf16-mixed"
    assert -1 <= record["split"]["test"]["tau"] <= 1
    if not precision.cpu_has_bf16():
        assert "this CPU has no bf16 instructions" in result.stdout + result.stderr


def test_auto_precision_is_bf16_where_the_cpu_has_it(monkeypatch):
    """`trainer.precision: auto` on a CPU: bf16 autocast where oneDNN reports bf16
    instructions, float32 elsewhere; any other value passes through."""
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: True)
    assert precision.resolve_precision("cpu", "auto") == "bf16-mixed"
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: False)
    assert precision.resolve_precision("cpu", "auto") == "32-true"
    assert precision.resolve_precision("cpu", "bf16-mixed") == "bf16-mixed"
    assert precision.resolve_precision("cpu", None) is None
