"""`make sweep` on a real SLURM cluster: `make slurm-test` stands up the one-node cluster of
scripts/local_slurm.sh (root) and runs these checks with ORDERBENCH_SLURM=1; elsewhere they
skip. Every run is tiny (synthetic data, 1 CPU, 2 GB), so a 2-core machine runs them.

- Defaults the partition cannot give: an error naming the keys, no job.
- The smoke sweep finishes; the same command again submits no job.
- `scancel` of a running job: the sweep ends with the summary (INTERRUPTED, CANCELLED) and
  status 1 while the other run finishes; the relaunch resumes and finishes it.
- A run with a 3-minute time limit that needs longer is requeued, resumes from its
  `last.ckpt` and reaches its last epoch; `csv/metrics.csv` holds every epoch once.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from fixtures_sweep import ROOT, cli_env, run_dir_of


def _cluster_up() -> bool:
    if os.environ.get("ORDERBENCH_SLURM") != "1" or shutil.which("sinfo") is None:
        return False
    return subprocess.run(["sinfo", "--noheader"], capture_output=True).returncode == 0


pytestmark = [
    pytest.mark.slow,
    pytest.mark.slurm,
    pytest.mark.skipif(not _cluster_up(), reason="needs a SLURM cluster: run `make slurm-test` "
                       "(as root: it stands one up) or set ORDERBENCH_SLURM=1 where sinfo works"),
]

# what the one-node cluster can give: 1 CPU and 2 GB per run, well within its time limit
SMALL = ("cpu_threads=1", "hydra.launcher.cpus_per_task=1", "hydra.launcher.mem_gb=2",
         "hydra.launcher.timeout_min=30")
# one LSTM+PtrNet run per seed of the smoke sweep, long enough to be caught running
LONGER = ("hydra.sweeper.params.model=lstm_ptrnet", "dataset.reader.n_train=1000",
          "trainer.max_epochs=40")


def sweep_command(runs: Path, *args: str) -> list[str]:
    """`make sweep SWEEP=smoke TRAINER=cpu ARGS=...` into `runs`."""
    arguments = " ".join([*args, f"paths.runs={runs}"])
    return ["make", "--no-print-directory", "sweep", "SWEEP=smoke", "TRAINER=cpu",
            f"ARGS={arguments}"]


def make_sweep(runs: Path, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    started = time.monotonic()
    result = subprocess.run(sweep_command(runs, *args), cwd=ROOT, env=cli_env(runs),
                            capture_output=True, text=True, timeout=timeout)
    print(f"make sweep {' '.join(args)}: {time.monotonic() - started:.0f} s, "
          f"status {result.returncode}")
    return result


def job_folders(runs: Path) -> set[str]:
    """submitit's folder of every job submitted into `runs`: `<array id>_<index>` per array
    task (the folder `<array id>` beside them holds the submission), `<id>` for a lone job."""
    folder = runs / ".submitit"
    names = {path.name for path in folder.iterdir() if re.fullmatch(r"\d+(_\d+)?", path.name)
             and path.is_dir()} if folder.is_dir() else set()
    return {name for name in names
            if "_" in name or not any(other.startswith(f"{name}_") for other in names)}


def csv_curves(run_dir: Path) -> tuple[Counter, Counter]:
    """(epoch -> validation rows, step -> training-loss rows) of the run's CSV curves."""
    with open(run_dir / "csv" / "metrics.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return (Counter(int(row["epoch"]) for row in rows if row.get("val/tau")),
            Counter(int(row["step"]) for row in rows if row.get("train/loss")))


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(1)


def test_requests_the_partition_cannot_give_stop_before_submitting(tmp_path: Path):
    result = make_sweep(tmp_path)  # slurm.yaml's defaults: 720 minutes, 8 CPUs, 64 GB
    assert result.returncode != 0
    assert "nothing was submitted" in result.stderr, result.stderr[-3000:]
    assert "hydra.launcher.timeout_min=720 exceeds the time limit" in result.stderr
    assert not job_folders(tmp_path)


def test_smoke_sweep_finishes_and_a_rerun_submits_no_job(tmp_path: Path):
    result = make_sweep(tmp_path, *SMALL)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Sweep summary: 4 runs: 4 finished (4 in this sweep, 0 before)" in result.stdout
    assert len(list(tmp_path.rglob("metrics.json"))) == 4
    jobs = job_folders(tmp_path)
    assert len(jobs) == 4

    result = make_sweep(tmp_path, *SMALL)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "4 of 4 runs already finished with this config: no job for them" in result.stdout
    assert "4 runs: 4 finished (0 in this sweep, 4 before)" in result.stdout
    assert job_folders(tmp_path) == jobs


def test_cancelled_job_ends_the_sweep_with_the_summary_and_the_relaunch_finishes_it(
    tmp_path: Path,
):
    args = (*SMALL, *LONGER, "variant=cancel")
    started = time.monotonic()
    sweep = subprocess.Popen(sweep_command(tmp_path, *args), cwd=ROOT, env=cli_env(tmp_path),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # cancel seed 1's job (array task 1) once it has a checkpoint to resume from
        wait_for(lambda: any(tmp_path.glob("synthetic/lstm_ptrnet/cancel/*/seed_1/checkpoints/"
                                           "last.ckpt"))
                 and any(name.endswith("_1") for name in job_folders(tmp_path)),
                 timeout=300, what="seed 1's first last.ckpt")
        job_id = next(name for name in job_folders(tmp_path) if name.endswith("_1"))
        subprocess.run(["scancel", job_id], check=True)
        out, err = sweep.communicate(timeout=600)
    finally:
        if sweep.poll() is None:
            sweep.kill()
    print(f"make sweep with {job_id} cancelled: {time.monotonic() - started:.0f} s")
    cancelled = run_dir_of(tmp_path, "synthetic/lstm_ptrnet/cancel", 1)
    assert sweep.returncode != 0
    assert "sweep] Error 1" in err  # make: the sweep's own exit status is 1
    assert "Traceback" not in err, err[-3000:]
    assert "Sweep summary: 2 runs: 1 finished (1 in this sweep, 0 before), 1 interrupted" in out
    assert f"  INTERRUPTED  {cancelled}\n      SLURM job {job_id} ended CANCELLED" in out, out
    assert f".submitit/{job_id}/{job_id}_0_log.err" in out
    assert "1 of 2 runs did not finish" in err
    assert (run_dir_of(tmp_path, "synthetic/lstm_ptrnet/cancel", 0) / "metrics.json").is_file()

    result = make_sweep(tmp_path, *args)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "1 of 2 runs already finished with this config: no job for them" in result.stdout
    assert "2 runs: 2 finished (1 in this sweep, 1 before)" in result.stdout
    assert "resuming from" in (cancelled / "train.log").read_text()
    assert not (cancelled / "failed.json").exists()


def test_time_limited_run_is_requeued_and_reaches_its_last_epoch(tmp_path: Path):
    epochs = 400  # about 0.7 CPU s an epoch here: past the first time-limit signal (2 min)
    args = (*SMALL, "hydra.launcher.timeout_min=3", "hydra.launcher.signal_delay_s=60",
            "hydra.launcher.max_num_timeout=8", "hydra.sweeper.params.model=lstm_ptrnet",
            "hydra.sweeper.params.seed=0", "dataset.reader.n_train=2000",
            f"trainer.max_epochs={epochs}", "variant=timelimit")
    result = make_sweep(tmp_path, *args, timeout=1800)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    run_dir = run_dir_of(tmp_path, "synthetic/lstm_ptrnet/timelimit", 0)
    (job_id,) = job_folders(tmp_path)
    requeues = subprocess.run(["sacct", "-n", "-X", "-D", "-P", "-o", "State", "-j", job_id],
                              capture_output=True, text=True, check=True).stdout.split()
    print(f"job {job_id}: {' -> '.join(requeues)}")
    assert requeues.count("REQUEUED") + requeues.count("TIMEOUT") >= 1, requeues
    assert "resuming from" in (run_dir / "train.log").read_text()
    record = json.loads((run_dir / "metrics.json").read_text())
    assert record["epochs"] == epochs
    validations, losses = csv_curves(run_dir)
    # one validation per training epoch, counted from 1 (the selected checkpoint's is no row)
    assert validations == Counter(range(1, epochs + 1)), validations
    assert max(losses.values()) == 1  # no training step logged twice
