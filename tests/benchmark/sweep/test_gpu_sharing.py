"""Several runs per GPU (`hydra.launcher.runs_per_gpu`, benchmark/sweep/gpu_sharing.py), on
the CPU: where the local launcher places each run (its CUDA_VISIBLE_DEVICES, set through
submitit's own setup lines), how the SLURM launcher groups runs into jobs of one GPU with a
task per run, and that such a task trains as one process, not as a rank of the job."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchmark.run import processes
from benchmark.sweep import gpu_sharing
from benchmark.sweep.gpu_peaks import measured_peaks
from benchmark.sweep.gpu_sharing import (
    SharingError,
    auto_runs_per_gpu,
    local_placements,
    runs_per_gpu,
    slurm_groups,
    visible_gpus,
)
from benchmark.sweep.launcher import BaseSweepLauncher, SharedGpuTasks
from benchmark.sweep.summary import RunState, format_summary
from hydra_plugins.orderbench_launchers import SweepLocalConf, SweepSlurmConf


def test_the_local_launcher_deals_the_runs_of_a_batch_to_the_gpus():
    assert local_placements(4, [0, 1], 1, 2) == [[0], [0], [1], [1]]
    assert local_placements(3, [0, 1, 2], 1, 1) == [[0], [1], [2]]
    assert local_placements(2, [4, 5, 6, 7], 2, 1) == [[4, 5], [6, 7]]  # trainer.devices=2
    assert local_placements(1, [3], 1, 4) == [[3]]


def test_a_batch_larger_than_the_gpus_times_runs_per_gpu_is_refused_in_one_line():
    with pytest.raises(SharingError) as refused:
        local_placements(3, [0], 1, 2)
    assert str(refused.value) == (
        "3 runs at once (hydra.sweeper.max_batch_size) need 2 GPU(s) at "
        "hydra.launcher.runs_per_gpu=2 and 1 per run (trainer.devices); 1 visible (0): lower "
        "hydra.sweeper.max_batch_size or raise hydra.launcher.runs_per_gpu"
    )
    with pytest.raises(SharingError, match="1 visible"):
        local_placements(2, [0], 2, 4)  # a run of 2 GPUs fits nowhere


def test_visible_gpus_follow_cuda_visible_devices():
    assert visible_gpus({"CUDA_VISIBLE_DEVICES": "2,3"}) == [2, 3]
    assert visible_gpus({"CUDA_VISIBLE_DEVICES": ""}) == []
    assert visible_gpus({}, count=2) == [0, 1]
    with pytest.raises(SharingError, match="CUDA_VISIBLE_DEVICES=GPU-1a2b: .* not UUIDs"):
        visible_gpus({"CUDA_VISIBLE_DEVICES": "GPU-1a2b"})


def test_slurm_groups_runs_into_jobs_of_one_gpu():
    assert slurm_groups(5, 2, 1, 1) == [range(0, 2), range(2, 4), range(4, 5)]
    assert slurm_groups(2, 1, 1, 1) == [range(0, 1), range(1, 2)]
    assert slurm_groups(2, 3, None, 1) == [range(0, 1), range(1, 2)]  # CPU: nothing to share
    with pytest.raises(SharingError, match="runs_per_gpu=2: runs share a GPU one process each, "
                                           "but each run asks for 2 GPU"):
        slurm_groups(4, 2, 2, 1)


@pytest.mark.parametrize("value", [0, -1, True, "2"])
def test_runs_per_gpu_must_be_a_positive_integer_or_auto(value):
    with pytest.raises(SharingError, match=f"must be an integer >= 1 or auto, got {value!r}"):
        runs_per_gpu({"runs_per_gpu": value})
    assert runs_per_gpu({}) == 1
    assert runs_per_gpu({"runs_per_gpu": "auto"}) == "auto"


def test_the_launcher_schemas_add_runs_per_gpu_auto_by_default():
    assert SweepLocalConf().runs_per_gpu == SweepSlurmConf().runs_per_gpu == "auto"


PEAKS = {"attordernet": {"mib": 523.2, "source": "a record"},
         "paragraph_listmle": {"mib": 3581.4, "source": "another"}}  # fmt: skip


def test_auto_packs_what_the_largest_measured_peak_allows():
    assert auto_runs_per_gpu(["attordernet"], 81_559, PEAKS, cores=16)[0] == 8  # the cap
    assert auto_runs_per_gpu(["attordernet"], 81_559, PEAKS, cores=3)[0] == 3  # a core each
    count, why = auto_runs_per_gpu(["attordernet", "paragraph_listmle"], 16_000, PEAKS, 16)
    assert count == 3 and "paragraph_listmle, 3581 MiB: another" in why  # 13,600 // 3,581
    count, why = auto_runs_per_gpu(["han"], 16_000, PEAKS, 16)  # never measured
    assert count == int(16_000 * gpu_sharing.MEMORY_SHARE // gpu_sharing.UNMEASURED_MIB)
    assert "never measured on a GPU" in why
    assert auto_runs_per_gpu(["attordernet"], None, PEAKS)[0] == 1  # no GPU seen (SLURM)


def test_the_peaks_are_read_from_the_gpu_check_records(tmp_path: Path):
    bench = tmp_path / "results" / "bench"
    bench.mkdir(parents=True)
    (bench / "gpu-check-cuda-x.json").write_text(json.dumps({"steps": {
        "bench_32": {"train_peak_memory_mib": 300.0, "decode_peak_memory_mib": 500.0},
        "nips_table": {"runs": [{"model": "han", "gpu_peak_mib": 900.5},
                                {"model": "han", "gpu_peak_mib": 700.0}]},
    }}))  # fmt: skip
    peaks = measured_peaks(tmp_path)
    assert peaks["attordernet"]["mib"] == 500.0 and peaks["han"]["mib"] == 900.5
    assert peaks["han"]["source"] == "results/bench/gpu-check-cuda-x.json (nips_table)"
    assert set(measured_peaks()) >= {"attordernet", "paragraph_listmle"}  # the committed ones


def test_the_summary_counts_the_runs_that_shared_a_gpu(tmp_path: Path):
    states = [RunState(tmp_path / str(k), "finished", shared=shared)
              for k, shared in enumerate([4, 4, None, 2])]  # fmt: skip
    assert "GPU sharing: 1 run(s) ran 2 to a GPU, 2 run(s) ran 4 to a GPU" in format_summary(states)


class RecordingExecutor:
    """`map_array` of a fake submitit executor: records its updates and the runs."""

    submitted: list = []

    def __init__(self, **updates):
        self.updates = updates

    def map_array(self, function, *columns):
        runs = list(zip(*columns, strict=True)) if len(columns) > 1 else list(columns[0])
        RecordingExecutor.submitted.append((self.updates, type(function).__name__, runs))
        array = len(RecordingExecutor.submitted)
        return [FakeJob(f"{array}_{element}") for element in range(len(runs))]


class FakeJob:
    def __init__(self, job_id: str):
        self.job_id = job_id

    def task(self, task: int):
        return (self.job_id, task)


class Launcher(BaseSweepLauncher):
    def __init__(self, executor: str, **params):
        self._EXECUTOR = executor
        self.params = params


def _arguments(count):
    return [([f"seed={seed}"], "hydra.sweep.dir", seed, f"job_id_for_{seed}", None)
            for seed in range(count)]


def test_local_runs_on_a_gpu_trainer_see_their_own_gpus(monkeypatch):
    RecordingExecutor.submitted = []
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    launcher = Launcher("local", gpus_per_node=1, runs_per_gpu=2)
    monkeypatch.setattr(launcher, "_executor", RecordingExecutor)
    jobs = launcher._submit(_arguments(4), launcher._plan(4))
    shared = "export ORDERBENCH_RUNS_PER_GPU=2"  # the runs' records keep it
    assert RecordingExecutor.submitted == [
        ({"setup": [shared, "export CUDA_VISIBLE_DEVICES=0"]}, "Launcher", _arguments(4)[:2]),
        ({"setup": [shared, "export CUDA_VISIBLE_DEVICES=1"]}, "Launcher", _arguments(4)[2:]),
    ]
    assert [job.job_id for job in jobs] == ["1_0", "1_1", "2_0", "2_1"]


def test_a_cpu_trainer_is_submitted_as_before(monkeypatch):
    RecordingExecutor.submitted = []
    for executor in ("local", "slurm"):
        launcher = Launcher(executor, gpus_per_node=None, runs_per_gpu=4)
        monkeypatch.setattr(launcher, "_executor", RecordingExecutor)
        launcher._submit(_arguments(3), launcher._plan(3))
    assert RecordingExecutor.submitted == [({}, "Launcher", _arguments(3))] * 2


def test_slurm_shares_a_gpu_between_the_tasks_of_one_job(monkeypatch):
    RecordingExecutor.submitted = []
    launcher = Launcher("slurm", gpus_per_node=1, nodes=1, runs_per_gpu=2)
    monkeypatch.setattr(launcher, "_executor", RecordingExecutor)
    jobs = launcher._submit(_arguments(5), launcher._plan(5))
    arguments = _arguments(5)
    assert RecordingExecutor.submitted == [
        ({"tasks_per_node": 2, "setup": ["export ORDERBENCH_RUNS_PER_GPU=2"]},
         "SharedGpuTasks", [arguments[0:2], arguments[2:4]]),
        ({}, "Launcher", [arguments[4]]),  # alone: nothing to say
    ]
    assert jobs[:4] == [("1_0", 0), ("1_0", 1), ("1_1", 0), ("1_1", 1)]  # each run: its task
    assert jobs[4].job_id == "2_0"


def test_a_shared_task_runs_its_own_arguments_as_one_run(monkeypatch):
    import submitit

    called = []
    launcher = Launcher("slurm")
    monkeypatch.setattr(Launcher, "__call__", lambda self, *arguments: called.append(arguments),
                        raising=False)
    monkeypatch.setattr(submitit, "JobEnvironment", lambda: type("Env", (), {"global_rank": 1}))
    monkeypatch.setattr("benchmark.sweep.launcher.run_alone", lambda: called.append("alone"))
    SharedGpuTasks(launcher)(_arguments(2))
    assert called == ["alone", _arguments(2)[1]]
    again = SharedGpuTasks(launcher).checkpoint(_arguments(2))
    assert again.args == (_arguments(2),)  # the requeued job runs every task again


def test_a_run_in_a_shared_slurm_job_trains_as_one_process(monkeypatch):
    """Task 1 of a job of two shared runs: without `run_alone`, Lightning takes SLURM's two
    tasks for the ranks of one DDP run and the task for rank 1."""
    import pytorch_lightning as pl
    from pytorch_lightning.utilities.rank_zero import rank_zero_only

    for key, value in {"SLURM_NTASKS": "2", "SLURM_NTASKS_PER_NODE": "2", "SLURM_PROCID": "1",
                       "SLURM_LOCALID": "1", "SLURM_NODEID": "0", "SLURM_JOB_NAME": "train",
                       "SLURM_JOB_ID": "7", "SLURM_NNODES": "1"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv(processes.ONE_RUN_PER_TASK, "0")  # restored (unset) afterwards
    monkeypatch.setattr(rank_zero_only, "rank", 1)  # as Lightning, imported in task 1, has it

    def trainer():
        return pl.Trainer(accelerator="cpu", devices=1, strategy="ddp", logger=False,
                          plugins=processes.one_process_environment())

    assert (trainer().world_size, trainer().global_rank) == (2, 1)
    processes.run_alone()
    assert (trainer().world_size, trainer().global_rank, rank_zero_only.rank) == (1, 0, 0)


def test_the_setup_line_decides_what_a_local_job_sees(tmp_path: Path):
    """The real submitit local executor: the export after submitit's own
    CUDA_VISIBLE_DEVICES (the first GPUs) is what the job sees."""
    launcher = Launcher("local", submitit_folder=str(tmp_path / "%j"), timeout_min=1,
                        gpus_per_node=1, tasks_per_node=1, nodes=1, name="probe",
                        stderr_to_stdout=False, runs_per_gpu=2)
    executor = launcher._executor(setup=["export CUDA_VISIBLE_DEVICES=3"])
    job = executor.submit(lambda: os.environ.get("CUDA_VISIBLE_DEVICES"))  # the job's own
    assert job.result() == "3"


def test_the_module_names_the_launcher_key():
    assert gpu_sharing.RUNS_PER_GPU in SweepLocalConf.__dataclass_fields__
