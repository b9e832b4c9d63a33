"""Nothing lost under faults (issue 19): damaged checkpoints, two launches in one run
directory, NaN and bad input files, each met by a clear message and, where work was done,
by keeping it (bad configurations: tests/benchmark/config/test_config_checks.py). The slow
checks train tiny runs in subprocesses."""

from __future__ import annotations

import csv
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from fixtures_sweep import ROOT, TINY_LSTM, cli_env, run_dir_for, run_train, train_command

from benchmark.records.atomic_io import atomic_write_text
from benchmark.records.json_values import dumps
from benchmark.records.run_record import read_run_record, write_run_record
from benchmark.run.lock import LOCK_NAME, RunLock, RunLockedError, take_run_lock
from benchmark.training.checkpoint_file import DamagedCheckpointError
from benchmark.training.checkpoint_position import read_checkpoint_position
from data.errors import DataFormatError
from data.readers.jsonl import read_jsonl
from models.search.beam_search import beam_search
from models.search.candidates import validate_orders
from models.search.greedy_search import greedy_search


# -- bad input files: file:line -----------------------------------------------------------
def test_non_utf8_bytes_in_a_jsonl_file_name_file_and_line(tmp_path: Path):
    path = tmp_path / "train.jsonl"
    path.write_bytes(b'{"id": "a", "sentences": ["One.", "Two."]}\n'
                     b'{"id": "b", "sentences": ["Caf\xe9 ", "Two."]}\n')
    with pytest.raises(DataFormatError, match=r"train\.jsonl:2: not UTF-8 text"):
        read_jsonl(path)


@pytest.mark.parametrize("empty", ["", "   "])
def test_an_empty_sentence_names_file_and_line(tmp_path: Path, empty: str):
    path = tmp_path / "valid.jsonl"
    path.write_text('{"id": "a", "sentences": ["One.", "Two."]}\n'
                    + json.dumps({"id": "b", "sentences": ["One.", empty]}) + "\n")
    with pytest.raises(DataFormatError, match=r"valid\.jsonl:2: document 'b': sentence 1 is empty"):
        read_jsonl(path)


# -- JSON and file modes ------------------------------------------------------------------
def test_metrics_json_holds_null_where_a_figure_is_nan(tmp_path: Path):
    write_run_record(tmp_path, {"split": {"test": {"tau": float("nan"), "ci": [float("inf"), 1]}}})
    text = (tmp_path / "metrics.json").read_text()
    assert "NaN" not in text and "Infinity" not in text
    json.loads(text, parse_constant=lambda name: pytest.fail(f"bare {name} in metrics.json"))
    assert read_run_record(tmp_path)["split"]["test"] == {"tau": None, "ci": [None, 1]}
    assert dumps({"x": float("-inf")}) == '{"x": null}'


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_outputs_respect_the_umask(tmp_path: Path, umask: int):
    old = os.umask(umask)
    try:
        atomic_write_text(tmp_path / "out.json", "{}\n")
    finally:
        os.umask(old)
    assert (tmp_path / "out.json").stat().st_mode & 0o777 == 0o666 & ~umask


# -- checkpoints --------------------------------------------------------------------------
def test_a_truncated_checkpoint_is_named_as_damaged(tmp_path: Path):
    path = tmp_path / "last.ckpt"
    torch.save({"state_dict": {"w": torch.zeros(1000)}, "epoch": 3, "global_step": 40}, path)
    assert read_checkpoint_position(path).epoch == 3
    path.write_bytes(path.read_bytes()[:2000])
    with pytest.raises(DamagedCheckpointError, match=r"last\.ckpt: damaged checkpoint"):
        read_checkpoint_position(path)


# -- NaN: decoding never emits an invalid order -------------------------------------------
class NaNDecoder:
    """A decoder whose every score is NaN (a diverged model)."""

    def step(self, memory, state, previous, available):
        return torch.full(available.shape, float("nan")), state

    def reindex(self, tensors, index):
        return tensors


@pytest.mark.parametrize("beam", [1, 4])
def test_nan_scores_still_give_valid_orders(beam: int):
    available = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])
    if beam == 1:
        orders, _ = greedy_search(NaNDecoder(), None, None, available)
    else:
        orders, _ = beam_search(NaNDecoder(), None, None, available, beam)
    validate_orders(orders, available.sum(dim=1))


def test_a_non_finite_loss_is_named_at_its_own_step_when_the_guard_reads_it():
    """The NaN guard keeps the first non-finite loss on the device and reads it every
    `log_every_n_steps` batches (a read per step would make the host wait for a GPU)."""
    from types import SimpleNamespace

    from benchmark.training.finite_guard import FiniteGuard, NonFiniteError

    guard = FiniteGuard()
    trainer = SimpleNamespace(global_step=0, current_epoch=1, log_every_n_steps=4,
                              world_size=1)  # fmt: skip
    losses = [1.0, 2.0, float("inf"), float("nan")]
    for index, value in enumerate(losses[:3]):
        trainer.global_step = 10 + index
        guard.on_train_batch_end(trainer, None, torch.tensor(value), None, index)  # no read
    trainer.global_step = 13
    with pytest.raises(NonFiniteError, match=r"train/loss is inf at step 12, epoch 2 \(batch 2\)"):
        guard.on_train_batch_end(trainer, None, torch.tensor(losses[3]), None, 3)
    fine = FiniteGuard()
    fine.on_train_batch_end(trainer, None, torch.tensor(1.0), None, 0)
    fine.on_train_epoch_end(trainer, None)  # read at the epoch's end: nothing to say


# -- one launch per run directory ---------------------------------------------------------
HOLD = "from benchmark.run.lock import RunLock; import sys, time; " \
       "RunLock.acquire(sys.argv[1]); " \
       "print('held', flush=True); time.sleep(600)"


def hold_lock(run_dir: Path) -> subprocess.Popen:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(run_dir)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_second_lock_is_refused_naming_the_holder_and_a_dead_ones_is_taken_over(
    tmp_path: Path, caplog
):
    holder = hold_lock(tmp_path)
    try:
        with pytest.raises(RunLockedError, match=rf"in use by pid {holder.pid} on "
                                                 rf"{socket.gethostname()} since"):
            RunLock.acquire(tmp_path)
    finally:
        holder.kill()
        holder.wait()
    with RunLock.acquire(tmp_path) as lock:  # its holder is gone
        assert json.loads(lock.path.read_text())["pid"] == os.getpid()
    assert f"taking over the lock left by pid {holder.pid}" in caplog.text
    assert not (tmp_path / LOCK_NAME).exists()  # removed on release


def test_a_stale_lock_file_without_flock_is_judged_by_its_pid(tmp_path: Path, monkeypatch):
    import benchmark.run.lock as run_lock

    monkeypatch.setattr(run_lock, "fcntl", None)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    host = socket.gethostname()
    (tmp_path / LOCK_NAME).write_text(json.dumps({"pid": int(dead), "host": host}))
    RunLock.acquire(tmp_path).release()
    (tmp_path / LOCK_NAME).write_text(json.dumps({"pid": os.getpid(), "host": host}))
    with pytest.raises(RunLockedError):
        RunLock.acquire(tmp_path)


def test_only_rank_zero_takes_the_lock(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert take_run_lock(tmp_path) is None and not (tmp_path / LOCK_NAME).exists()


@pytest.mark.slow
def test_a_launch_into_a_locked_run_directory_is_refused_in_one_line(tmp_path: Path):
    run_dir = run_dir_for(tmp_path, *TINY_LSTM)
    holder = hold_lock(run_dir)
    try:
        result = run_train(tmp_path, *TINY_LSTM)
    finally:
        holder.kill()
        holder.wait()
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith(
        f"error: {run_dir} is in use by pid {holder.pid}")
    assert not (run_dir / "checkpoints").exists()
    assert not (run_dir / "failed.json").exists()  # the holder's run did not fail


# -- slow: real trainings -----------------------------------------------------------------
@pytest.mark.slow
def test_an_infinite_learning_rate_stops_within_the_first_epoch_naming_nan(tmp_path: Path):
    result = run_train(tmp_path, *TINY_LSTM, "model.optimizer.lr=inf")
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: train/loss is NaN at step ")
    assert ", epoch 1 (" in last  # epochs count from 1, as on the console
    run_dir = run_dir_for(tmp_path, *TINY_LSTM, "model.optimizer.lr=inf")
    failure = json.loads((run_dir / "failed.json").read_text())
    assert failure["error"].startswith("NonFiniteError: train/loss is NaN")
    assert not (run_dir / "metrics.json").exists()


@pytest.mark.slow
def test_two_concurrent_launches_one_refuses(tmp_path: Path):
    slow = (*TINY_LSTM, "trainer.max_epochs=400")  # runs long enough to meet the second
    first = subprocess.Popen(train_command(*slow, f"paths.runs={tmp_path}"), cwd=ROOT,
                             env=cli_env(tmp_path), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        while not (run_dir_for(tmp_path, *slow) / "checkpoints" / "last.ckpt").exists():
            assert first.poll() is None, "the first launch ended early"
            time.sleep(0.1)
        second = run_train(tmp_path, *slow)
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    assert second.returncode == 1 and f"in use by pid {first.pid}" in second.stderr


EPOCHS = 6
# lr=0: valid tau never improves after epoch 0, so every later epoch is a non-best one
NON_BEST = (*(arg for arg in TINY_LSTM if "n_train" not in arg), "+dataset.reader.n_train=1200",
            f"trainer.max_epochs={EPOCHS}", "model.optimizer.lr=0.0")


def kill_after_epoch(runs: Path, epoch: int) -> int:
    """Start the run, kill it once `last.ckpt` holds `epoch` or later; that epoch."""
    process = subprocess.Popen(
        train_command(*NON_BEST, f"paths.runs={runs}"), cwd=ROOT, env=cli_env(runs),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    last = run_dir_for(runs, *NON_BEST) / "checkpoints" / "last.ckpt"
    try:
        deadline, seen = time.monotonic() + 600, None
        while True:
            assert process.poll() is None, "the run ended before it was killed"
            assert time.monotonic() < deadline, f"no checkpoint of epoch {epoch} after 600 s"
            if last.exists() and last.stat().st_mtime_ns != seen:
                seen = last.stat().st_mtime_ns
                if read_checkpoint_position(last).epoch >= epoch:  # atomic: always whole
                    break
            time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    return read_checkpoint_position(last).epoch


def csv_epochs(run_dir: Path) -> list[int]:
    """The epoch of every row of the CSV log holding a valid figure."""
    with open(run_dir / "csv" / "metrics.csv", newline="") as handle:
        return [int(row["epoch"]) for row in csv.DictReader(handle) if row.get("val/tau")]


@pytest.mark.slow
def test_resume_after_a_non_best_epoch_continues_from_that_epoch(tmp_path: Path):
    """Issue 16 item 1: `last.ckpt` is written after every epoch, not only after a new
    best, and the CSV log keeps the epochs before the resume, each once."""
    killed_at = kill_after_epoch(tmp_path, epoch=1)
    run = run_dir_for(tmp_path, *NON_BEST)
    best = read_checkpoint_position(run / "checkpoints" / "best.ckpt")
    assert best.epoch == 0 < killed_at  # the last epoch saved was not the best one

    result = run_train(tmp_path, *NON_BEST)
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"resuming from {run / 'checkpoints' / 'last.ckpt'}" in result.stdout
    record = json.loads((run / "metrics.json").read_text())
    assert record["epochs"] == EPOCHS
    # each training epoch once, counted from 1; the selected model's validation is no epoch
    assert csv_epochs(run) == list(range(1, EPOCHS + 1))


@pytest.mark.slow
def test_a_truncated_last_ckpt_resumes_from_the_newest_intact_checkpoint(tmp_path: Path):
    kill_after_epoch(tmp_path, epoch=1)
    run = run_dir_for(tmp_path, *NON_BEST)
    last = run / "checkpoints" / "last.ckpt"
    last.write_bytes(last.read_bytes()[: last.stat().st_size // 3])  # full disk, old writer

    result = run_train(tmp_path, *NON_BEST, "keep_last_checkpoint=true")  # to read it after
    assert result.returncode == 0, result.stderr[-3000:]
    output = result.stdout + result.stderr
    assert f"{last}: damaged checkpoint" in output and "Traceback" not in output
    assert f"resuming from {run / 'checkpoints' / 'best.ckpt'}" in output
    assert json.loads((run / "metrics.json").read_text())["epochs"] == EPOCHS
    assert csv_epochs(run) == list(range(1, EPOCHS + 1))
    assert read_checkpoint_position(last).epoch == EPOCHS - 1  # written whole again


# -- discrimination memory bounded for long documents -------------------------------------
def test_discrimination_scores_long_documents_in_bounded_passes_with_the_same_result(
    monkeypatch,
):
    from model_batches import make_batch

    import benchmark.evaluation.discrimination as discrimination
    from models.presets import lstm_ptrnet

    assert discrimination.rows_per_pass(500, 20) == 1  # was 52: all 21 orders at once
    assert discrimination.rows_per_pass(10, 30) == discrimination.TOKENS_PER_PASS // 300
    torch.manual_seed(0)
    model = lstm_ptrnet(vocab_size=50, hidden_dim=16).eval()
    generator = torch.Generator().manual_seed(0)
    batch = make_batch([[torch.randint(1, 50, (5,), generator=generator).tolist()
                         for _ in range(n)] for n in (30, 6, 3)])
    rows, orders = discrimination._candidate_orders(
        batch, discrimination.PermutationSampler("toy", "test", 0))
    whole = discrimination._log_probs(model, batch, rows, orders)
    monkeypatch.setattr(discrimination, "PAIRS_PER_PASS", 30 * 30 * 2)  # two rows a pass
    assert discrimination.rows_per_pass(30, 5) == 2
    assert torch.allclose(discrimination._log_probs(model, batch, rows, orders), whole)


# -- a read-only runs directory -----------------------------------------------------------
def test_a_read_only_run_directory_lets_hydra_write_nothing_there(tmp_path: Path, monkeypatch):
    import benchmark.config.prelaunch as access

    args = ["dataset=synthetic", "+experiment=tiny", f"paths.runs={tmp_path}"]
    run_dir = run_dir_for(tmp_path, *args[:-1])
    access.check_creatable(args)  # writable: nothing to say
    monkeypatch.setattr(access, "_writable", lambda path: False)
    with pytest.raises(access.UnwritableRunsError, match=f"{run_dir}: cannot create"):
        access.check_creatable(args)
    run_dir.mkdir(parents=True)
    access.check_creatable(args)  # exists: Hydra writes nothing into it (conf/config.yaml)
    access.check_creatable(["-m", *args])  # left to Hydra


def test_the_lock_of_a_read_only_run_directory_is_one_line(tmp_path: Path, monkeypatch):
    import errno

    from benchmark.run.lock import ReadOnlyRunError

    def refuse(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(ReadOnlyRunError, match=f"{tmp_path}: the run directory is read-only"):
        take_run_lock(tmp_path)


def test_a_requeued_slurm_job_takes_over_its_own_lock_from_another_node(
    tmp_path: Path, monkeypatch
):
    monkeypatch.setenv("SLURM_JOB_ID", "4242")
    holder = hold_lock(tmp_path)  # the same job id, as before a requeue
    try:
        with pytest.raises(RunLockedError):  # same host: a live process of this job
            RunLock.acquire(tmp_path)
        text = json.loads((tmp_path / LOCK_NAME).read_text())
        assert text["slurm_job"] == "4242"
        (tmp_path / LOCK_NAME).write_text(json.dumps({**text, "host": "node-that-died"}))
        with RunLock.acquire(tmp_path) as lock:  # its earlier allocation, on another node
            assert json.loads(lock.path.read_text())["pid"] == os.getpid()
    finally:
        holder.kill()
        holder.wait()


def test_a_full_disk_keeps_the_previous_checkpoint_whole(tmp_path: Path, monkeypatch):
    import errno

    from benchmark.training.checkpoints import AtomicCheckpointIO, CheckpointWriteError

    path, io = tmp_path / "last.ckpt", AtomicCheckpointIO()
    io.save_checkpoint({"state_dict": {}, "epoch": 1, "global_step": 8}, path)

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(CheckpointWriteError, match=r"last\.ckpt: checkpoint not saved \(No space"):
        io.save_checkpoint({"state_dict": {}, "epoch": 2, "global_step": 12}, path)
    monkeypatch.undo()
    assert read_checkpoint_position(path).epoch == 1
    assert [p.name for p in tmp_path.iterdir()] == ["last.ckpt"]  # no temporary file left


def test_the_csv_log_keeps_the_epochs_a_resumed_checkpoint_completed(tmp_path: Path):
    """Epochs counted from 1 (docs/design.md, section 8): a checkpoint of Lightning's epoch
    index 1 has completed epochs 1 and 2."""
    from benchmark.training.checkpoint_position import CheckpointPosition
    from benchmark.training.csv_log import trim_metrics_csv

    path = tmp_path / "metrics.csv"
    path.write_text("epoch,step,train/loss,val/tau\r\n1,3,0.9,\r\n1,3,,0.1\r\n2,7,0.8,\r\n"
                    "2,7,,0.2\r\n3,9,0.7,\r\n")  # killed during epoch 3
    header = trim_metrics_csv(str(path), CheckpointPosition(tmp_path, epoch=1, global_step=7))
    assert header == ["epoch", "step", "train/loss", "val/tau"]
    with open(path, newline="") as handle:
        assert [row["epoch"] for row in csv.DictReader(handle)] == ["1", "1", "2", "2"]
    assert trim_metrics_csv(str(path), None) == [] and not path.exists()  # a fresh start


def test_a_resumed_log_that_counts_epochs_from_zero_is_renumbered(tmp_path: Path):
    from benchmark.training.checkpoint_position import CheckpointPosition
    from benchmark.training.csv_log import trim_metrics_csv

    path = tmp_path / "metrics.csv"
    path.write_text("epoch,step,train/loss,val/tau\r\n0,3,0.9,\r\n0,3,,0.1\r\n1,7,0.8,\r\n"
                    "1,7,,0.2\r\n2,9,0.7,\r\n")  # written before, killed during epoch 2
    trim_metrics_csv(str(path), CheckpointPosition(tmp_path, epoch=1, global_step=7))
    with open(path, newline="") as handle:
        assert [row["epoch"] for row in csv.DictReader(handle)] == ["1", "1", "2", "2"]
