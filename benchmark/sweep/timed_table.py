"""The NIPS table trained on one machine within a time budget: a sweep with a deadline, the
`nips_table` step of `orderbench bench gpu-check` (`benchmark.bench.gpu_check`), run in the
step's own process (`run_table`).

The rows are the NIPS page's (docs/reproduction_nips.md): the jobs of the sweeps `SWEEPS`
(studies/cui2018/conf/sweep/: the 2018-era rows at the published budget, 100 epochs and
early stopping after 15, and the three pretrained paragraph encoders at BERSON's 20-epoch
recipe), each job with the sweep's own settings (`sweep=<name>` and its overrides, so its
config is the sweep job's but for the trainer), on the kit's NIPS abstracts, its GloVe
vectors and its all-MiniLM-L6-v2 (`benchmark.bench.kit.unpack_encoder`: the weights travel
as float16 and are widened back, a rounding the record names), order discrimination off
(the table compares test tau); the pretrained rows in bf16 autocast where the device has it
(`trainer.precision=auto`).

Plan: each job's expected seconds (`estimate`: the CPU row's GPU estimate of
results/reproduction_nips.csv where it has one, else its measured CPU seconds times the
median GPU/CPU ratio of the rows that have both; plus start-up and test), the jobs longest
first (LPT) over the slots, the runs that share the device at once (`slots: auto`: on a
GPU `runs_per_gpu: auto`'s count, `benchmark.sweep.gpu_sharing`), the predicted end (runs
sharing the device slowed by `SHARED_EFFICIENCY`) printed and recorded beside the budget.
The estimates are the CPU rows' own GPU estimates, not measurements: the record of a run
of the check is what says how long each run took. Every job is
started while time is left, each with `trainer.max_time` ending it before the deadline;
a run that the budget stops is tested as it stands and marked `cut by the budget`, a job
that cannot start is listed as `not run`: nothing is left out silently.

Then the table: every row's runs, their test tau (mean and spread over the seeds run)
beside the CPU row's mean and 95% interval (`inside`: the mean of the runs done falls in
it), epochs, what stopped them, training seconds, documents a second and peak GPU memory.
"""

from __future__ import annotations

import csv
import json
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchmark.config.config_folders import SOURCE_ROOT as ROOT
from benchmark.sweep.gpu_peaks import measured_peaks
from benchmark.sweep.gpu_sharing import AUTO, auto_runs_per_gpu, gpu_memory_mib

SWEEPS = ("nips", "nips_pretrained")  # the NIPS page's rows, as `make nips` runs them
CPU_ROWS = ("results/reproduction_nips.csv",)  # the NIPS page: every row, 2018-era and pretrained
START_S = 40  # a run's start-up, test decoding and record on top of its training
MIN_RUN_S = 45  # a job with less time left is not started
RESERVE_S = 30  # of a run's allowance: its test and record after training stops
POLL_S = 2
DEFAULT_ESTIMATE_S = 300  # a row with neither a GPU estimate nor CPU seconds
# each run's speed when runs share a GPU, against alone: 4 runs at once made 3.26 times one
# run's documents on an H200 (docs/performance.md), assumed for any number from two
SHARED_EFFICIENCY = 3.26 / 4


@dataclass
class Job:
    """One run of the table: a sweep job and what is known of its cost."""

    sweep: str
    overrides: list[str]
    preset: str
    variant: str
    seed: int
    row: str
    estimate_s: float = 0.0
    uses_glove: bool = False
    uses_encoder: bool = False
    result: dict = field(default_factory=dict)


def nips_jobs(seeds: list[int]) -> list[Job]:
    """The jobs of `SWEEPS` of the given seeds, each with its preset, variant and row."""
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode

    from benchmark.config.config_folders import CONF_DIR
    from benchmark.config.resolvers import register_resolvers
    from benchmark.sweep.jobs import sweep_jobs

    register_resolvers()
    jobs = []
    for sweep in SWEEPS:
        GlobalHydra.instance().clear()
        with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3",
                                   job_name="train"):  # fmt: skip
            loader = GlobalHydra.instance().config_loader()
            master = loader.load_configuration("config", [f"sweep={sweep}"],
                                               run_mode=RunMode.MULTIRUN)  # fmt: skip
            for job in sweep_jobs(master, loader):
                if job.config is None:
                    raise ValueError(f"sweep {sweep}: a job does not compose ({job.error})")
                config = job.config
                if int(config.seed) not in seeds:
                    continue
                net = config.model.get("net") or {}
                jobs.append(Job(
                    sweep, list(job.overrides), str(config.model.name), str(config.variant),
                    int(config.seed), f"{config.model.name}/{config.variant}",
                    uses_glove=config.model.get("embeddings") is not None,
                    uses_encoder="encoder" in net,
                ))  # fmt: skip
    GlobalHydra.instance().clear()
    return jobs


def cpu_rows(root: Path = ROOT) -> dict[str, dict]:
    """The NIPS page's CPU rows by `preset/variant` (their figures and costs)."""
    rows = {}
    for name in CPU_ROWS:
        with (root / name).open(newline="") as file:
            for row in csv.DictReader(file):
                rows[f"{row['preset']}/{row['variant']}"] = {**row, "source": name}
    return rows


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text not in (None, "") else None
    except ValueError:
        return None


def estimate(row: dict | None, ratio: float) -> float:
    """Expected seconds of one run of `row` on the device (module docstring)."""
    if row is None:
        return DEFAULT_ESTIMATE_S + START_S
    if row.get("stopped_by") == "untrained":
        return START_S  # a rule: test decoding only
    gpu = _number(row.get("gpu_s_estimate"))
    if gpu is not None:
        return gpu + START_S
    cpu, runs = _number(row.get("cpu_s_total")), _number(row.get("runs")) or 1.0
    return (cpu / runs * ratio if cpu else DEFAULT_ESTIMATE_S) + START_S


def gpu_cpu_ratio(rows: dict[str, dict]) -> float:
    """The median over the rows with both of (GPU estimate) / (CPU seconds of a run)."""
    ratios = [gpu / (cpu / (_number(row.get("runs")) or 1.0))
              for row in rows.values()
              if (gpu := _number(row.get("gpu_s_estimate"))) and (cpu := _number(row.get("cpu_s_total")))]  # noqa: E501
    return statistics.median(ratios) if ratios else 0.05


def plan(jobs: list[Job], slots: int) -> tuple[list[Job], float]:
    """The jobs longest first (LPT), and the predicted end of all over `slots` slots, each
    run slowed by sharing the device (`SHARED_EFFICIENCY`, from two runs at once on)."""
    ordered = sorted(jobs, key=lambda job: job.estimate_s, reverse=True)
    ends = [0.0] * max(1, slots)
    for job in ordered:
        slot = ends.index(min(ends))
        ends[slot] += job.estimate_s
    return ordered, max(ends) / (SHARED_EFFICIENCY if slots > 1 else 1.0)


def max_time(seconds: float) -> str:
    """`trainer.max_time` (DD:HH:MM:SS) of `seconds`."""
    seconds = max(int(seconds), 30)
    return f"00:{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def job_command(job: Job, runs_dir: Path, allowance: float, device_args: list[str],
                glove: Path | None, encoder: Path | None) -> list[str]:
    """`benchmark.train` of one job, its trainer's time ending `RESERVE_S` before its
    allowance; a pretrained encoder's row in bf16 autocast where the device has it."""
    command = [sys.executable, "-m", "benchmark.train", f"sweep={job.sweep}", *job.overrides,
               f"paths.runs={runs_dir}", "logger=csv", "evaluate_discrimination=false",
               f"trainer.max_time={max_time(allowance - RESERVE_S)}", *device_args]  # fmt: skip
    if job.uses_glove and glove is not None:
        command.append(f"model.embeddings={glove}")
    if job.uses_encoder and encoder is not None:
        command.append(f"model.net.encoder={encoder}")
    if job.uses_encoder:
        command.append("++trainer.precision=auto")
        if job.preset == "minilm_finetune":
            command.append("++model.net.encoder_store=null")  # runs at once: no shared store
    return command


def run_jobs(jobs: list[Job], slots: int, deadline: float, command, log: Path) -> None:
    """The jobs, `slots` at a time, each started while `MIN_RUN_S` are left before
    `deadline` (time.monotonic()); their status into `job.result`."""
    waiting, running = list(jobs), []
    with log.open("a") as output:
        while waiting or running:
            for job, process, started in list(running):
                if process.poll() is not None:
                    job.result.update(status="ok" if process.returncode == 0 else "failed",
                                      seconds=round(time.monotonic() - started, 1))  # fmt: skip
                    running.remove((job, process, started))
            while waiting and len(running) < slots:
                job = waiting.pop(0)
                left = deadline - time.monotonic()
                if left < MIN_RUN_S:
                    job.result.update(status="not run",
                                      why=f"the budget was spent ({max(left, 0):.0f} s left)")
                    continue
                argv = command(job, left)
                output.write(f"\n===== {job.row} seed {job.seed}: {' '.join(argv)}\n")
                output.flush()
                process = subprocess.Popen(argv, cwd=ROOT, stdout=output,
                                           stderr=subprocess.STDOUT)  # fmt: skip
                job.result.update(allowance_s=round(left))
                running.append((job, process, time.monotonic()))
            time.sleep(POLL_S)


def read_results(jobs: list[Job], runs_dir: Path) -> None:
    """Each job's run record (test tau, epochs, what stopped it, seconds, memory)."""
    records = {}
    for path in runs_dir.rglob("metrics.json"):
        record = json.loads(path.read_text())
        key = (str(record["config"]["model"]["name"]), str(record["variant"]), int(record["seed"]))
        records[key] = record
    for job in jobs:
        record = records.get((job.preset, job.variant, job.seed))
        if record is None:
            continue
        resources = record.get("resources", {})
        test = record["split"]["test"]
        job.result.update(
            test_tau=round(test["tau"], 4), epochs=record["epochs"],
            best_epoch=record["best_epoch"], stopped_by=record["stopped_by"],
            train_seconds=round(record["train_seconds"], 1),
            docs_per_s=round(record["steps"] * record["config"]["model"]["batch_size"]
                             / max(record["train_seconds"], 1e-9), 1),
            gpu_peak_mib=resources.get("gpu_peak_mib"),
            precision=record.get("environment", {}).get("precision"),
        )  # fmt: skip
        if record["stopped_by"] == "max_time":
            job.result["cut"] = "cut by the budget: tested as it stood"


def table(jobs: list[Job], rows: dict[str, dict]) -> tuple[list[dict], str]:
    """Per row: the runs done, their test tau beside the CPU row's; and as Markdown."""
    out, lines = [], [
        "| row | runs done | test tau (GPU) | CPU row: tau [95% interval] | inside | epochs | "
        "stopped by | train s | docs/s | peak GPU MiB |",
        "|---|---:|---|---|---|---|---|---:|---:|---:|",
    ]
    for row in dict.fromkeys(job.row for job in jobs):
        mine = [job for job in jobs if job.row == row]
        done = [job.result for job in mine if "test_tau" in job.result]
        cpu = rows.get(row, {})
        taus = [result["test_tau"] for result in done]
        mean = round(statistics.mean(taus), 4) if taus else None
        low, high = _number(cpu.get("tau_ci_low")), _number(cpu.get("tau_ci_high"))
        entry = {
            "row": row, "planned": len(mine), "done": len(done),
            "not_done": [f"seed {job.seed}: {job.result.get('why') or job.result.get('status')}"
                         for job in mine if "test_tau" not in job.result],
            "cut_by_budget": sum("cut" in result for result in done),
            "test_tau": taus, "test_tau_mean": mean,
            "test_tau_std": round(statistics.stdev(taus), 4) if len(taus) > 1 else None,
            "cpu": {"tau_mean": _number(cpu.get("tau_mean")), "ci": [low, high],
                    "runs": cpu.get("runs"), "source": cpu.get("source")},
            "inside": None if mean is None or low is None else low <= mean <= high,
        }  # fmt: skip
        out.append(entry)
        spread = f" ± {entry['test_tau_std']}" if entry["test_tau_std"] is not None else ""
        shown = f"{mean}{spread}" if mean is not None else "—"
        ci = f"{entry['cpu']['tau_mean']} [{low}, {high}]" if low is not None else "—"
        lines.append(
            f"| {row} | {len(done)} of {len(mine)}"
            + (f" ({entry['cut_by_budget']} cut)" if entry["cut_by_budget"] else "")
            + f" | {shown} | {ci} | {entry['inside']} | "
            + ", ".join(str(r["epochs"]) for r in done) + " | "
            + ", ".join(sorted({str(r["stopped_by"]) for r in done})) + " | "
            + ", ".join(str(r["train_seconds"]) for r in done) + " | "
            + ", ".join(str(r["docs_per_s"]) for r in done) + " | "
            + ", ".join(str(r.get("gpu_peak_mib")) for r in done) + " |"
        )  # fmt: skip
    return out, "\n".join(lines)


def run_table(path: str) -> int:
    """The step, its settings the JSON file `path` written by the check (scratch, budget_s,
    slots, seeds, device_args, glove, encoder, log, out) -> its exit status."""
    settings = json.loads(Path(path).read_text())
    started = time.monotonic()
    deadline = started + settings["budget_s"]
    scratch = Path(settings["scratch"])
    encoder = Path(settings["encoder"]) if settings.get("encoder") else None
    glove = Path(settings["glove"]) if settings.get("glove") else None
    runs_dir = scratch / "runs" / "nips_table"
    log = Path(settings["log"])
    prepare = [sys.executable, "-m", "benchmark.prepare_data", "nips", "+reproduce=nips"]
    with log.open("a") as output:  # the data cache once, before the runs read it at once
        subprocess.run(prepare, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, check=True)
    rows = cpu_rows()
    ratio = gpu_cpu_ratio(rows)
    jobs = nips_jobs(settings["seeds"])
    for job in jobs:
        job.estimate_s = round(estimate(rows.get(job.row), ratio), 1)
    slots, why = settings["slots"], "as given"
    if slots == AUTO:
        slots, why = auto_runs_per_gpu([job.preset for job in jobs], gpu_memory_mib(),
                                       measured_peaks())  # fmt: skip
    ordered, predicted = plan(jobs, slots)
    record = {"slots": slots, "slots_why": why, "budget_s": settings["budget_s"],
              "predicted_s": round(predicted), "gpu_cpu_ratio": round(ratio, 4),
              "jobs": len(jobs), "device_args": settings["device_args"],
              "encoder": settings.get("encoder_note") or "the installed one"}  # fmt: skip
    print(f"timed table: {len(jobs)} runs, {slots} at once: predicted "
          f"{predicted:.0f} s of {settings['budget_s']:.0f} s", file=sys.stderr, flush=True)

    def command(job: Job, left: float) -> list[str]:
        return job_command(job, runs_dir, left, settings["device_args"], glove, encoder)

    run_jobs(ordered, slots, deadline, command, log)
    read_results(jobs, runs_dir)
    rows_out, markdown = table(jobs, rows)
    record.update(seconds=round(time.monotonic() - started, 1), rows=rows_out,
                  runs=[{**asdict(job), "model": job.preset} for job in jobs],
                  markdown=markdown)  # fmt: skip
    Path(settings["out"]).write_text(json.dumps(record, indent=2) + "\n")
    print(markdown)
    return 0 if all("test_tau" in job.result for job in jobs) else 1
