"""How the sweep launcher (`benchmark.sweep.launcher`) ends each submitted job, with fake
submitit jobs: a job without a result never raises, its SLURM state, what to do and its logs
go to the run's failed.json, and the summary names the run INTERRUPTED with that state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hydra.core.utils import JobReturn, JobStatus
from submitit.core.utils import FailedJobError, UncompletedJobError

from benchmark.records.failure import write_failure
from benchmark.sweep.launcher import BaseSweepLauncher, job_end_detail
from benchmark.sweep.slurm_pending import pending_warning
from benchmark.sweep.summary import FAILED, INTERRUPTED, format_summary, run_state


class FakePaths:
    def __init__(self, folder: Path, job_id: str):
        self.stderr = folder / job_id / f"{job_id}_0_log.err"
        self.stdout = folder / job_id / f"{job_id}_0_log.out"


class FakeJob:
    """What `_collect` uses of a submitit job: its id, result, state and log paths."""

    def __init__(self, folder: Path, job_id: str, state: str, outcome):
        self.job_id, self.state, self.outcome = job_id, state, outcome
        self.paths = FakePaths(folder, job_id)

    def result(self):
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


class Launcher(BaseSweepLauncher):
    _EXECUTOR = "slurm"


def collect(tmp_path: Path, state: str, outcome, job_id: str = "41_1") -> tuple[Path, JobReturn]:
    run_dir = tmp_path / "synthetic/lstm_ptrnet/base/seed_1"
    run_dir.mkdir(parents=True, exist_ok=True)
    job = FakeJob(tmp_path / ".submitit", job_id, state, outcome)
    returned = Launcher()._collect(job, ["seed=1"], run_dir, "train", submitted_at=0.0)
    return run_dir, returned


@pytest.mark.parametrize("state, says", [
    ("CANCELLED by 0", "cancelled (scancel or an administrator); a relaunch resumes it"),
    ("OUT_OF_MEMORY", "raise hydra.launcher.mem_gb or lower model.batch_size"),
    ("TIMEOUT", "after hydra.launcher.max_num_timeout requeues"),
    ("PREEMPTED", "preempted and not requeued"),
    ("NODE_FAIL", "its node failed"),
    ("SPECIAL_EXIT", "ended without a result (see the logs)"),
])
def test_a_job_without_a_result_is_an_interrupted_run_with_its_slurm_state(
    tmp_path: Path, state, says
):
    uncompleted = UncompletedJobError("Job 41_1 (task: 0) has not produced any output")
    run_dir, returned = collect(tmp_path, state, uncompleted)
    assert returned.status == JobStatus.COMPLETED  # Hydra's sweeper raises on any other
    failure = json.loads((run_dir / "failed.json").read_text())
    assert failure["slurm_state"] == state.split()[0] and failure["slurm_job"] == "41_1"
    assert failure["error"] == f"SLURM job 41_1 ended {state}: {job_end_detail(state)}"
    assert says in failure["error"]
    assert failure["logs"] == [str(run_dir / "train.log"),
                               str(tmp_path / ".submitit/41_1/41_1_0_log.err"),
                               str(tmp_path / ".submitit/41_1/41_1_0_log.out")]
    summary = format_summary([run_state(run_dir)])
    assert summary.splitlines()[:3] == [
        "Sweep summary: 1 runs: 0 finished, 1 interrupted",
        f"  INTERRUPTED  {run_dir}",
        f"      SLURM job 41_1 ended {state}: {job_end_detail(state)}",
    ]
    assert "41_1_0_log.err" in summary.splitlines()[3]


def test_the_runs_own_error_of_this_launch_is_kept(tmp_path: Path):
    run_dir = tmp_path / "synthetic/lstm_ptrnet/base/seed_1"
    run_dir.mkdir(parents=True)
    write_failure(run_dir, ValueError("Invalid learning rate: -1"), [])
    job = FakeJob(tmp_path, "41_1", "CANCELLED by 0", UncompletedJobError("no output"))
    Launcher()._collect(job, [], run_dir, "train", submitted_at=0.0)
    assert run_state(run_dir).state == FAILED
    assert run_state(run_dir).failure["error"] == "ValueError: Invalid learning rate: -1"


def test_the_runs_own_record_of_the_signal_gives_way_to_the_slurm_state(tmp_path: Path):
    from benchmark.records.failure import write_interruption

    run_dir = tmp_path / "synthetic/lstm_ptrnet/base/seed_1"
    run_dir.mkdir(parents=True)
    write_interruption(run_dir, "interrupted by SIGTERM", [])  # what scancel's SIGTERM leaves
    job = FakeJob(tmp_path, "41_1", "CANCELLED by 0", UncompletedJobError("no output"))
    Launcher()._collect(job, [], run_dir, "train", submitted_at=0.0)
    state = run_state(run_dir)
    assert state.state == INTERRUPTED
    assert state.failure["error"] == (f"SLURM job 41_1 ended CANCELLED by 0: "
                                      f"{job_end_detail('CANCELLED')}")


def test_a_job_that_raised_outside_the_run_and_a_finished_job(tmp_path: Path):
    trace = ("Job (task=0) failed during processing with trace:\n" + "-" * 22 + "\n"
             "Traceback (most recent call last):\n  File x\nKeyError: 'model'\n" + "-" * 22
             + "\nYou can check full logs")
    run_dir, returned = collect(tmp_path, "FAILED", FailedJobError(trace))
    assert returned.status == JobStatus.COMPLETED
    state = run_state(run_dir)
    assert state.state == INTERRUPTED
    assert state.failure["error"].startswith("SLURM job 41_1 ended FAILED: KeyError: 'model'")

    finished = JobReturn(overrides=["seed=1"], status=JobStatus.COMPLETED, _return_value=None)
    _, returned = collect(tmp_path, "COMPLETED", finished, job_id="42_1")
    assert returned is finished


def test_submitits_refusal_to_requeue_again_is_the_time_limit(tmp_path: Path):
    run_dir = tmp_path / "synthetic/lstm_ptrnet/base/seed_1"
    run_dir.mkdir(parents=True)
    # raised by submitit's signal handler inside the training, recorded by the run itself
    write_failure(run_dir, UncompletedJobError(
        "Job not requeued because: timed-out too many times."), [])
    finished = JobReturn(overrides=[], status=JobStatus.COMPLETED, _return_value=None)
    Launcher()._collect(FakeJob(tmp_path, "43", "COMPLETED", finished), [], run_dir, "train",
                        submitted_at=0.0)
    state = run_state(run_dir)
    assert state.state == INTERRUPTED
    assert state.failure["error"] == f"SLURM job 43 ended TIMEOUT: {job_end_detail('TIMEOUT')}"


def test_jobs_held_by_the_partition_are_named_once_while_waiting(monkeypatch, caplog, tmp_path):
    import benchmark.sweep.launcher as launcher

    class Pending(FakeJob):
        polls = 0

        def done(self):
            Pending.polls += 1
            return Pending.polls > 3

    monkeypatch.setattr(launcher, "POLL_S", 0)
    monkeypatch.setattr(launcher, "PENDING_CHECK_S", 0)
    asked = []
    monkeypatch.setattr(launcher, "read_squeue", lambda ids: asked.append(ids) or [
        ("44_0", "PENDING", "PartitionConfig"), ("44_1", "PENDING", "Priority")])
    with caplog.at_level("WARNING"):
        Launcher()._wait([Pending(tmp_path, "44_0", "PENDING", None)])
    assert asked == [["44"]] * 3
    warnings = [r.message for r in caplog.records if "Reason=" in r.message]
    assert warnings == [pending_warning("PartitionConfig", ["44_0"])]


class LocalLauncher(BaseSweepLauncher):
    """A launcher with what `launch` reads of Hydra's: its config and config loader."""

    _EXECUTOR = "local"

    def __init__(self, sweep_dir: Path):
        from types import SimpleNamespace

        from omegaconf import OmegaConf

        self.config = OmegaConf.create({"hydra": {"sweep": {"dir": str(sweep_dir)},
                                                  "job": {"name": "train"}}})
        self.params = {}  # hydra.launcher: a CPU trainer's (no GPUs to place)

        def load_sweep_config(config, overrides):
            seed = overrides[0].split("=")[1]
            return OmegaConf.create({"hydra": {"sweep": {"dir": str(sweep_dir),
                                                         "subdir": f"seed_{seed}"},
                                               "job": {"name": "train"}}})

        self.hydra_context = SimpleNamespace(
            config_loader=SimpleNamespace(load_sweep_config=load_sweep_config))


def test_after_a_run_fails_on_a_full_disk_no_later_batch_is_launched(
    monkeypatch, caplog, tmp_path: Path
):
    import errno
    import os

    from benchmark.records.atomic_io import FileWriteError
    from benchmark.sweep.summary import NOT_RUN

    submitted: list[list[str]] = []

    class Executor:
        def map_array(self, launcher, overrides, *rest):
            jobs = []
            for job_overrides in overrides:
                submitted.append(job_overrides)
                run_dir = tmp_path / f"seed_{job_overrides[0].split('=')[1]}"
                run_dir.mkdir()
                full = FileWriteError(errno.ENOSPC, os.strerror(errno.ENOSPC),
                                      str(run_dir / "metrics.json"))
                write_failure(run_dir, full, [])  # what the run records on a full disk
                done = JobReturn(overrides=job_overrides, status=JobStatus.COMPLETED)
                jobs.append(FakeJob(tmp_path / ".submitit", str(len(submitted)), "", done))
            return jobs

    launcher = LocalLauncher(tmp_path)
    monkeypatch.setattr(launcher, "_executor", Executor)
    monkeypatch.setattr(launcher, "_wait", lambda jobs: None)
    first = launcher.launch([["seed=0"]], initial_job_idx=0)
    assert json.loads((tmp_path / "seed_0/failed.json").read_text())["errno"] == "ENOSPC"
    with caplog.at_level("ERROR"):
        later = launcher.launch([["seed=1"], ["seed=2"]], initial_job_idx=1)
    assert submitted == [["seed=0"]]  # the second batch got no job
    assert [r.status for r in first + later] == [JobStatus.COMPLETED] * 3
    assert [r.overrides for r in later] == [["seed=1"], ["seed=2"]]
    assert [r.message for r in caplog.records] == [
        f"2 run(s) not launched: {tmp_path / 'seed_0'} failed on a full disk (FileWriteError: "
        f"{tmp_path / 'seed_0/metrics.json'}: not written (No space left on device)); free "
        "space and relaunch the same command"
    ]
    assert [run_state(tmp_path / f"seed_{s}").state for s in (1, 2)] == [NOT_RUN] * 2


def test_a_failure_of_another_kind_does_not_stop_the_later_batches(monkeypatch, tmp_path: Path):
    submitted: list[list[str]] = []

    class Executor:
        def map_array(self, launcher, overrides, *rest):
            submitted.extend(overrides)
            for job_overrides in overrides:
                run_dir = tmp_path / f"seed_{job_overrides[0].split('=')[1]}"
                run_dir.mkdir()
                write_failure(run_dir, PermissionError(13, "Permission denied", "x"), [])
            return [FakeJob(tmp_path, "1", "", JobReturn(status=JobStatus.COMPLETED))
                    for _ in overrides]

    launcher = LocalLauncher(tmp_path)
    monkeypatch.setattr(launcher, "_executor", Executor)
    monkeypatch.setattr(launcher, "_wait", lambda jobs: None)
    launcher.launch([["seed=0"]], initial_job_idx=0)
    launcher.launch([["seed=1"]], initial_job_idx=1)
    assert submitted == [["seed=0"], ["seed=1"]]
    assert json.loads((tmp_path / "seed_1/failed.json").read_text())["errno"] == "EACCES"
