"""The launch of the sweep's submitit launchers (`hydra/launcher=slurm|local`; the plugin
classes are in `hydra_plugins/orderbench_launchers.py`, where Hydra looks for them):
hydra-submitit-launcher's, made to end with the sweep summary whatever happens to the jobs.

Before submitting, a run whose directory holds a finished run of the same config
(`benchmark.run.plan`: `skip`) gets no job, and on SLURM the request is checked against
the partition (`benchmark.sweep.slurm_resources`: an error naming the `hydra.launcher` keys to
change). While waiting, jobs pending for a reason that waiting will not fix are named
(`benchmark.sweep.slurm_pending`). A job that ends without a result (scancel, out of memory,
time limit without requeue, preemption, node failure) never raises here: its SLURM state,
what to do and its logs go to the run's `failed.json` (`sweep_failure.write_job_end`; it
replaces the run's own record of the signal that stopped it, which cannot say why), the
other jobs' results are kept, and `benchmark.sweep.callback` prints the summary and exits
with status 1. A relaunch resumes those runs from `checkpoints/last.ckpt` or reruns them.
Once a run has failed on a full disk (its `failed.json` has `errno` ENOSPC or EDQUOT), the
later batches (`hydra.sweeper.max_batch_size`) are not launched: each of their runs would
fail the same way; the summary lists them where they stand (not run, or interrupted).
With `hydra.launcher.runs_per_gpu` above 1, several runs share each GPU
(`benchmark.sweep.gpu_sharing`).
"""

from __future__ import annotations

import logging
import os
import subprocess
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, JobStatus, filter_overrides
from hydra_plugins.hydra_submitit_launcher.config import BaseQueueConf
from omegaconf import DictConfig, OmegaConf

from benchmark.records.failure import (
    FAILURE_NAME,
    clear_failure,
    disk_was_full,
    read_failure,
    write_failure,
    write_job_end,
)
from benchmark.run.plan import RunConflictError, finished_with
from benchmark.run.processes import SHARED_GPU, run_alone
from benchmark.sweep.gpu_peaks import measured_peaks
from benchmark.sweep.gpu_sharing import (
    AUTO,
    RUNS_PER_GPU,
    SharingError,
    auto_runs_per_gpu,
    gpu_memory_mib,
    local_placements,
    runs_per_gpu,
    slurm_groups,
    visible_gpus,
)
from benchmark.sweep.slurm_pending import pending_warning, read_squeue, stuck_jobs
from benchmark.sweep.slurm_resources import ResourceRequest, check_request, read_sinfo

log = logging.getLogger(__name__)

POLL_S = 5  # how often the jobs' results and states are looked at
PENDING_CHECK_S = 30  # how often `squeue` is asked why jobs pend
_RESUMES = "a relaunch resumes it from checkpoints/last.ckpt (or reruns it if it has none)"
JOB_END_HINTS = {  # SLURM state of a job that ended without a result -> what to do
    "CANCELLED": f"cancelled (scancel or an administrator); {_RESUMES}",
    "OUT_OF_MEMORY": "killed for using more memory than requested: raise "
                     f"hydra.launcher.mem_gb or lower model.batch_size; {_RESUMES}",
    "TIMEOUT": "reached hydra.launcher.timeout_min and was not requeued (after "
               "hydra.launcher.max_num_timeout requeues, or without a checkpoint signal): raise "
               f"either; {_RESUMES}",
    "PREEMPTED": f"preempted and not requeued; {_RESUMES}",
    "NODE_FAIL": f"its node failed; {_RESUMES}",
    "BOOT_FAIL": f"its node failed to boot; {_RESUMES}",
    "DEADLINE": f"reached its deadline; {_RESUMES}",
    "FAILED": f"its process exited with an error outside the run (see the logs); {_RESUMES}",
}
_OTHER_END = f"ended without a result (see the logs); {_RESUMES}"
GAVE_UP = "Job not requeued because"  # submitit's error when it stops requeueing a job


def job_end_detail(state: str) -> str:
    """What a job that ended in SLURM `state` (e.g. `CANCELLED by 0`) means for its run."""
    return JOB_END_HINTS.get(state.split()[0] if state.strip() else "", _OTHER_END)


def check_partition(params: dict) -> None:
    """Log the warnings of `slurm_resources.check_request`; exit with its errors."""
    try:
        groups = read_sinfo()
    except (OSError, subprocess.SubprocessError) as error:
        log.warning("could not ask the cluster what it offers (%s): resources not checked", error)
        return
    errors, warnings = check_request(ResourceRequest.from_launcher(params), groups)
    for warning in warnings:
        log.warning(warning)
    if errors:
        raise SystemExit("The cluster cannot run these jobs as requested, nothing was submitted:\n"
                         + "\n".join(f"  {error}" for error in errors))


class _Sweep:
    """One launch: the jobs to submit, and their run directories."""

    def __init__(self, launcher: BaseSweepLauncher, job_overrides, initial_job_idx: int):
        loader = launcher.hydra_context.config_loader
        self.returns: list[JobReturn | None] = []
        self.todo: list[tuple[int, list[str], Path]] = []  # (position, overrides, run dir)
        for position, overrides in enumerate(job_overrides):
            config = loader.load_sweep_config(launcher.config, list(overrides))
            run_dir = Path(config.hydra.sweep.dir) / config.hydra.sweep.subdir
            if self._finished(run_dir, config):
                clear_failure(run_dir)  # what the job would have done
                self.returns.append(JobReturn(
                    overrides=list(overrides), cfg=config, working_dir=str(run_dir),
                    task_name=config.hydra.job.name, status=JobStatus.COMPLETED,
                ))
            else:
                self.returns.append(None)
                self.todo.append((initial_job_idx + position, list(overrides), run_dir))
        self.job_name = launcher.config.hydra.job.name

    def not_launched(self) -> list[JobReturn]:
        """The returns with the runs to do given no job (COMPLETED for Hydra's sweeper; their
        run directories tell the sweep summary where they stand)."""
        missing = [position for position, done in enumerate(self.returns) if done is None]
        for position, (_, overrides, run_dir) in zip(missing, self.todo, strict=True):
            self.returns[position] = JobReturn(overrides=overrides, working_dir=str(run_dir),
                                               task_name=self.job_name,
                                               status=JobStatus.COMPLETED)
        return self.returns

    @staticmethod
    def _finished(run_dir: Path, config: DictConfig) -> bool:
        try:
            return finished_with(run_dir, config)
        except RunConflictError:  # the job records the conflict in failed.json
            return False


class BaseSweepLauncher:
    """The launch of hydra-submitit-launcher's launchers, with the behaviour in the module
    docstring (mixed into their `SlurmLauncher` and `LocalLauncher`)."""

    _EXECUTOR: str
    _full_disk: tuple[Path, str] | None = None  # a run of an earlier batch, its error

    def launch(
        self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int
    ) -> Sequence[JobReturn]:
        sweep = _Sweep(self, job_overrides, initial_job_idx)
        skipped = len(job_overrides) - len(sweep.todo)
        log.info("%d of %d runs already finished with this config: no job for them",
                 skipped, len(job_overrides))
        if not sweep.todo:
            return sweep.returns
        if self._full_disk is not None:
            run_dir, error = self._full_disk
            log.error("%d run(s) not launched: %s failed on a full disk (%s); free space and "
                      "relaunch the same command", len(sweep.todo), run_dir, error)
            return sweep.not_launched()
        try:
            models = [run_dir.parts[-4] for _, _, run_dir in sweep.todo if len(run_dir.parts) > 4]
            plan = self._plan(len(sweep.todo), models)
        except SharingError as error:
            raise SystemExit(f"nothing was launched: {error}") from None
        if self._EXECUTOR == "slurm":  # as many tasks as a job of shared runs has
            tasks = max(len(runs) for runs, _ in plan)
            check_partition({**self.params, **({"tasks_per_node": tasks} if tasks > 1 else {})})
        sweep_dir = Path(str(self.config.hydra.sweep.dir))
        sweep_dir.mkdir(parents=True, exist_ok=True)
        if "mode" in self.config.hydra.sweep:
            os.chmod(sweep_dir, mode=int(str(self.config.hydra.sweep.mode), 8))
        for index, overrides, _ in sweep.todo:
            log.info("\t#%d : %s", index, " ".join(filter_overrides(overrides)))
        arguments = [
            (overrides, "hydra.sweep.dir", index, f"job_id_for_{index}", Singleton.get_state())
            for index, overrides, _ in sweep.todo
        ]
        submitted_at = time.time()
        jobs = self._submit(arguments, plan)
        log.info("submitted %d %s job(s): %s", len({job.job_id for job in jobs}), self._EXECUTOR,
                 ", ".join(sorted({job.job_id.split("_")[0] for job in jobs})))
        self._wait(jobs)
        for job, (index, overrides, run_dir) in zip(jobs, sweep.todo, strict=True):
            position = index - initial_job_idx
            sweep.returns[position] = self._collect(job, overrides, run_dir, sweep.job_name,
                                                    submitted_at)
            failure = self._failure_since(run_dir, submitted_at)
            if self._full_disk is None and disk_was_full(failure):
                self._full_disk = (run_dir, failure["error"])
        return sweep.returns

    def _plan(
        self, runs: int, models: list[str] = ()
    ) -> list[tuple[list[int], tuple[int, ...] | None]]:
        """The jobs that train the `runs` (of the presets `models`;
        `benchmark.sweep.gpu_sharing`): the positions of each job's runs (several on SLURM
        with `runs_per_gpu`: one task each, sharing the job's GPU) and the GPUs it sees
        (local launcher with a GPU trainer; None: as submitit gives them)."""
        gpus = self.params.get("gpus_per_node")
        if not gpus:  # a CPU trainer: nothing to place or share
            return [([run], None) for run in range(runs)]
        sharing = runs_per_gpu(self.params)
        if sharing == AUTO:
            memory = gpu_memory_mib() if self._EXECUTOR == "local" else None
            sharing, why = auto_runs_per_gpu(models, memory, measured_peaks())
            log.info(why)
        if self._EXECUTOR == "local":
            placed = local_placements(runs, visible_gpus(), gpus, sharing)
            return [([run], tuple(place)) for run, place in enumerate(placed)]
        groups = slurm_groups(runs, sharing, gpus, self.params.get("nodes") or 1)
        return [(list(group), None) for group in groups]

    def _submit(self, arguments: list[tuple], plan: list) -> list:
        """Submit the jobs of `plan` (`_plan`), alike ones together; returns each run's job
        (its task, in a job of several runs), in the order of `arguments`."""
        jobs: list = [None] * len(arguments)
        alike: dict[tuple, list[list[int]]] = {}
        for runs, gpus in plan:
            alike.setdefault((len(runs), gpus), []).append(runs)
        on_gpus = Counter(gpus for _, gpus in plan if gpus is not None)  # local: runs at once
        for (tasks, gpus), groups in alike.items():
            updates: dict = {"tasks_per_node": tasks} if tasks > 1 else {}
            shared = on_gpus[gpus] if gpus is not None else tasks  # SLURM: a task per run
            lines = [f"export {SHARED_GPU}={shared}"] if shared > 1 else []
            if gpus is not None:  # submitit would show every run the first GPUs
                lines.append(f"export CUDA_VISIBLE_DEVICES={','.join(map(str, gpus))}")
            if lines:
                updates["setup"] = [*(self.params.get("setup") or []), *lines]
            executor = self._executor(**updates)
            if tasks == 1:
                submitted = executor.map_array(self, *_columns([arguments[g[0]] for g in groups]))
            else:
                submitted = executor.map_array(
                    SharedGpuTasks(self), [[arguments[run] for run in g] for g in groups]
                )
            for group, job in zip(groups, submitted, strict=True):
                for task, run in enumerate(group):
                    jobs[run] = job.task(task) if tasks > 1 else job
        return jobs

    def _executor(self, **updates):
        """submitit's executor with `self.params` and `updates` (as hydra-submitit-launcher
        sets it up)."""
        import submitit

        params = {**self.params, **updates}
        params.pop(RUNS_PER_GPU, None)
        init = {"folder": params.pop("submitit_folder")}
        if "max_num_timeout" in params:
            init[f"{self._EXECUTOR}_max_num_timeout"] = params.pop("max_num_timeout")
        executor = submitit.AutoExecutor(cluster=self._EXECUTOR, **init)
        common = set(OmegaConf.structured(BaseQueueConf).keys())
        executor.update_parameters(**{
            key if key in common else f"{self._EXECUTOR}_{key}": value
            for key, value in params.items()
        })
        return executor

    def _wait(self, jobs) -> None:
        """Until every job has ended; on SLURM, warn once per reason that holds jobs."""
        array_ids = sorted({job.job_id.split("_")[0] for job in jobs})
        warned: set[str] = set()
        checked = time.monotonic()
        while not all(job.done() for job in jobs):
            if self._EXECUTOR == "slurm" and time.monotonic() - checked >= PENDING_CHECK_S:
                checked = time.monotonic()
                try:
                    rows = read_squeue(array_ids)
                except (OSError, subprocess.SubprocessError):
                    rows = []
                for reason, ids in stuck_jobs(rows).items():
                    if reason not in warned:
                        warned.add(reason)
                        log.warning(pending_warning(reason, ids))
            time.sleep(POLL_S)

    def _collect(self, job, overrides: list[str], run_dir: Path, job_name: str,
                 submitted_at: float) -> JobReturn:
        """The job's JobReturn, always COMPLETED for Hydra's sweeper (which raises on any
        other); a job without a result leaves its story in the run's `failed.json`."""
        from submitit.core.utils import FailedJobError, UncompletedJobError

        logs = [run_dir / f"{job_name}.log", job.paths.stderr, job.paths.stdout]
        done = JobReturn(overrides=overrides, working_dir=str(run_dir), task_name=job_name,
                         status=JobStatus.COMPLETED)
        try:
            result = job.result()
        except FailedJobError as error:  # a subclass of UncompletedJobError
            if GAVE_UP in str(error):
                write_job_end(run_dir, job.job_id, "TIMEOUT", job_end_detail("TIMEOUT"), logs)
                return done
            log.warning("%s job %s of %s failed outside the run", self._EXECUTOR, job.job_id,
                        run_dir)
            write_job_end(run_dir, job.job_id, "FAILED",
                          f"{_last_trace_line(error)} (raised outside the run; see the logs)", logs)
            return done
        except UncompletedJobError:
            state = job.state or "UNKNOWN"
            log.warning("%s job %s of %s ended %s without a result", self._EXECUTOR,
                        job.job_id, run_dir, state)
            own = self._failure_since(run_dir, submitted_at)
            slurm_knows_why = self._EXECUTOR == "slurm" and bool(own and own.get("interrupted"))
            if own is None or slurm_knows_why:  # the state says why the signal came
                write_job_end(run_dir, job.job_id, state, job_end_detail(state), logs)
            return done
        if isinstance(result, JobReturn) and result.status == JobStatus.FAILED:
            write_failure(run_dir, result._return_value, logs)
            return done
        own = self._failure_since(run_dir, submitted_at)
        if own is not None and GAVE_UP in own["error"]:
            # submitit raised its refusal to requeue inside the training, which the run
            # recorded as its own error: it is the time limit, and the run resumes
            write_job_end(run_dir, job.job_id, "TIMEOUT", job_end_detail("TIMEOUT"), logs)
        return result

    @staticmethod
    def _failure_since(run_dir: Path, since: float) -> dict | None:
        """The run's `failed.json` if the job itself wrote it during this launch."""
        path = run_dir / FAILURE_NAME
        return read_failure(run_dir) if path.is_file() and path.stat().st_mtime >= since else None


class SharedGpuTasks:
    """The function of a SLURM job whose tasks are runs sharing its GPU
    (`hydra.launcher.runs_per_gpu`): task k runs the k-th arguments with the launcher, as
    one process of its own (`benchmark.run.processes.run_alone`)."""

    def __init__(self, launcher: BaseSweepLauncher):
        self.launcher = launcher

    def __call__(self, arguments: list[tuple]) -> JobReturn:
        import submitit

        run_alone()
        return self.launcher(*arguments[submitit.JobEnvironment().global_rank])

    def checkpoint(self, arguments: list[tuple]):
        """On the time limit: requeue the whole job; each run resumes or is skipped."""
        import submitit

        return submitit.helpers.DelayedSubmission(self, arguments)


def _columns(rows: list[tuple]) -> zip:
    """The argument lists of `map_array`: one per position of the rows."""
    return zip(*rows, strict=True)


def _last_trace_line(error: Exception) -> str:
    """The exception line of submitit's FailedJobError (the end of the job's traceback)."""
    parts = str(error).split("-" * 22)
    trace = parts[1] if len(parts) > 2 else str(error)
    lines = [line for line in trace.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no trace)"
