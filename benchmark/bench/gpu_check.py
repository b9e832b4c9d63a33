"""`orderbench bench gpu-check` (`make gpu-check`): the suite's GPU path measured in one
command, on a machine lent for minutes, from a kit made here (`make gpu-kit`,
`benchmark.bench.kit`); `device=cpu` is its dry run, in small.

It checks the kit, installs its wheels into the scratch folder (no network; the machine's
own packages are kept), then runs each step as a process of its own under a hard time
cap, within a budget for all (`minutes`): a step that fails, crashes or runs out of time is
recorded as such and the next one runs. After every step the record (one JSON file) is
written again, beside the log of every step's output, into `out` ($OUT on the device
tool's machine: the files come back). The steps, each at the device's `Profile` (on a GPU,
unless `steps=` names others: the three benches of the compiled paths' speed, then the
NIPS table in the time they leave of the 9 minutes; the dry run: every step):

1. `install`: the wheels, then the imports the suite needs and their versions, and the
   kit's all-MiniLM-L6-v2 widened back to float32 (`kit.unpack_encoder`);
2. `nips_table`: the NIPS page's rows, 2018-era and pretrained (the sweeps `nips` and
   `nips_pretrained`, 3 seeds each on a GPU, 39 runs), trained at once within the step's
   time (`benchmark.sweep.timed_table`: planned longest first over the runs that share the
   GPU, `runs_per_gpu: auto`; each run's `trainer.max_time` ends it before the deadline;
   a run the budget stops or cannot start is said so): every row's test tau beside the
   CPU row's interval, written as `gpu-check-<device>-table.md` beside the record too;
3. `bench_32`, `bench_bf16`: `orderbench bench` of `attordernet` at the published sizes
   (`+experiment=attordernet_paper`) on the NIPS abstracts, float32 and bf16 autocast:
   training and beam-64 decoding documents/s, peak GPU memory;
4. `paragraph_minilm`, `paragraph_bert`: `orderbench bench` of `paragraph_listmle` on the
   same abstracts with an encoder of all-MiniLM-L6-v2's shape (float32, as its NIPS runs
   train) and of BERT-base's (the profile's `bert_precision`), random weights
   (`encoder_shape=`, `benchmark.bench.shaped_encoder`), the step captured as CUDA graphs
   (`cuda_graphs=true`): a step's cost does not depend on the weights' values;
5. `nips_run`: one `attordernet_paper` NIPS run at the published budget (100 epochs at
   most, early stopping after 15), its test tau beside the CPU runs' (their row of
   results/reproduction_nips.csv); a run the check's cap stops early says so (`stopped_by`);
6. `ddp`, `bf16_mixed`: `trainer=ddp` with one process, and `trainer.precision=bf16-mixed`,
   for a few steps each;
7. `runs_alone`, `runs_shared`: the same short run alone, then `runs` of them at once on
   one GPU through the local launcher (`hydra.launcher.runs_per_gpu`): training
   documents/s of each, and of all together;
8. `graphs_bench`, `graphs_run`: `cuda_graphs=true` (`benchmark.training.cuda_graphs`): the
   bench's training figures with it (same batches as `bench_32`), and a short run.

Standard library only until the wheels are in: the steps import the suite.
"""
from __future__ import annotations

import csv
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmark.bench.kit import (
    DATASETS,
    ENCODER,
    GLOVE,
    PAPER_RUN,
    PARAGRAPH_DATA,
    PARAGRAPH_PRESET,
    WEIGHTS_FP16,
    WHEELS,
    KitError,
    read_manifest,
    unpack_kit,
)
from benchmark.cli_arguments import error_lines
from benchmark.cli_commands import BENCH_GPU_CHECK
from benchmark.config.config_folders import SOURCE_ROOT as ROOT  # the repository
from benchmark.records.run_record import git_commit

CPU_RUNS = ROOT / "results/reproduction_nips.csv"  # the CPU runs of the NIPS sweep
CPU_ROW = {"preset": "attordernet", "variant": "repro_e100"}  # their ATTOrderNet row
MIN_STEP_S = 20  # a step with less time left is skipped, not started
TABLE_MARGIN_S = 20  # of the table step's cap: its table and record once its runs end
TABLE_CODE = ("import sys; from benchmark.sweep.timed_table import run_table; "
              "sys.exit(run_table(sys.argv[1]))")  # the step's process
RUN_KEYS = ("status", "why", "test_tau", "epochs", "best_epoch", "stopped_by", "cut",
            "train_seconds", "docs_per_s", "gpu_peak_mib", "precision", "seconds")  # fmt: skip
STOP_GRACE_S = 15  # after SIGTERM, before SIGKILL
RUN_RESERVE_S = 60  # of the NIPS run's cap: start-up, test decoding, discrimination, record
IMPORTS = ("hydra", "omegaconf", "datasets", "submitit", "hydra_plugins.hydra_submitit_launcher",
           "pytorch_lightning", "torch", "benchmark.train", "benchmark.bench.suite")  # fmt: skip


@dataclass(frozen=True)
class Profile:
    """What the check runs on one device: trainers, sizes and each step's cap (seconds)."""

    minutes: int  # the budget of all steps
    steps: tuple[str, ...]  # the steps run when none are named, in this order
    table: tuple[str, ...]  # the NIPS table's runs: their trainer and sizes
    table_seeds: tuple[int, ...]  # the seeds of each of its rows
    table_slots: int | str  # its runs at once ("auto": as many as the GPU's memory holds)
    runs: int  # runs at once in `runs_shared`
    trainer: str  # the one-device trainer profile
    ddp: tuple[str, ...]  # the DDP step's trainer, one process
    bench: tuple[str, ...]  # `orderbench bench` sizes
    paragraph: tuple[str, ...]  # `orderbench bench` sizes of the paragraph steps
    bert_precision: str  # the BERT-base paragraph step's `orderbench bench` precision
    nips: tuple[str, ...]  # the NIPS run's budget, beyond the published one
    short: tuple[str, ...]  # a few training steps, valid and test cut short
    caps: dict[str, int] = field(default_factory=dict)


CUDA = Profile(
    minutes=9, steps=("graphs_bench", "paragraph_minilm", "paragraph_bert", "nips_table"),
    table=("trainer=gpu",), table_seeds=(0, 1, 2), table_slots="auto",
    runs=4, trainer="gpu", ddp=("trainer=ddp", "trainer.devices=1"),
    bench=("warmup=30", "steps=30", "beams=1,64", "lengths=5,10,20", "decode_docs=256",
           "reference_docs=4", "repeats=3"),
    paragraph=("warmup=10", "steps=40", "beams=1", "lengths=5,10,20", "decode_docs=256",
               "reference_docs=2", "repeats=3"),
    bert_precision="bf16",  # autocast, as a cluster trains it
    nips=(),
    short=("trainer.max_epochs=1", "+trainer.limit_train_batches=60",
           "+trainer.limit_val_batches=4", "+trainer.limit_test_batches=4",
           "evaluate_discrimination=false"),
    caps={"install": 60, "nips_table": 540, "bench_32": 60, "bench_bf16": 60,
          "paragraph_minilm": 60, "paragraph_bert": 75, "nips_run": 240, "ddp": 45,
          "bf16_mixed": 45, "runs_alone": 50, "runs_shared": 70, "graphs_bench": 70,
          "graphs_run": 90},
)  # fmt: skip
CPU_EVAL = ("+trainer.limit_val_batches=1", "+trainer.limit_test_batches=1",
            "dataset.datamodule.eval_batch_size=16", "model.beam_size=4")  # fmt: skip
CPU = Profile(
    minutes=20, steps=(), table=("trainer=cpu", "+trainer.limit_train_batches=2",
                                 "trainer.max_epochs=1", *CPU_EVAL),
    table_seeds=(0,), table_slots=2,
    runs=2, trainer="cpu", ddp=("trainer=ddp_cpu", "trainer.devices=1"),
    bench=("quick=true",), paragraph=("quick=true", "beams=1"),
    bert_precision="32",  # without bf16 instructions a BERT-base bf16 step takes minutes
    nips=("trainer.max_epochs=2", "+trainer.limit_train_batches=2", *CPU_EVAL),
    short=("trainer.max_epochs=1", "+trainer.limit_train_batches=1", *CPU_EVAL,
           "evaluate_discrimination=false"),
    caps={"install": 90, "nips_table": 420, "bench_32": 150, "bench_bf16": 240,
          "paragraph_minilm": 150, "paragraph_bert": 300, "nips_run": 150, "ddp": 150,
          "bf16_mixed": 240, "runs_alone": 150, "runs_shared": 180, "graphs_bench": 150,
          "graphs_run": 150},
)  # fmt: skip
PROFILES = {"cuda": CUDA, "cpu": CPU}


@dataclass
class Check:
    """One check's settings, folders and time."""

    device: str
    profile: Profile
    kit: Path
    out: Path
    scratch: Path
    runs: int
    deadline: float  # time.monotonic() by which every step has ended
    record: dict = field(default_factory=dict)

    @property
    def site(self) -> Path:
        return self.scratch / "site"  # the installed wheels

    @property
    def encoder(self) -> Path:
        return self.scratch / "encoder"  # the kit's encoder, its weights widened to float32

    @property
    def stem(self) -> str:
        return f"gpu-check-{self.device}"

    @property
    def log(self) -> Path:
        return self.out / f"{self.stem}.log"

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def env(self) -> dict:
        """The steps' environment: the wheels and the code importable, the kit's data."""
        env = dict(os.environ)
        paths = [str(self.site), str(ROOT), *filter(None, [env.get("PYTHONPATH")])]
        env.update(PYTHONPATH=os.pathsep.join(paths), PYTHONUNBUFFERED="1",
                   WANDB_MODE="offline", ORDERBENCH_DATASETS=str(self.kit / DATASETS))
        if self.device == "cpu":
            env.update(OMP_NUM_THREADS="1", CUDA_VISIBLE_DEVICES="")
        return env

    def runs_dir(self, step: str) -> Path:
        return self.scratch / "runs" / step

    def paper_run(self) -> list[str]:
        """The kit's run (`kit.PAPER_RUN`) with the kit's word vectors."""
        return [*PAPER_RUN, f"model.embeddings={(self.kit / GLOVE).resolve()}"]

    def run_overrides(self, step: str) -> list[str]:
        """The kit's run with a CSV log, in the step's own runs folder."""
        return [*self.paper_run(), "logger=csv", f"paths.runs={self.runs_dir(step)}"]

    def bench(self, step: str, *keys: str) -> list[str]:
        """`orderbench bench` of the kit's run (its model the preset, its `dataset=` the
        bench's) at the profile's sizes, the record in scratch."""
        model, *overrides = self.paper_run()
        return self._bench(step, model.split("=")[1], [*self.profile.bench, *keys, *overrides])

    def paragraph_bench(self, step: str, shape: str, *keys: str) -> list[str]:
        """`orderbench bench` of `PARAGRAPH_PRESET` on the kit's abstracts with an encoder
        of `shape` and random weights, built from the kit's tokenizer and configuration."""
        encoder = (self.kit / ENCODER).resolve()
        return self._bench(step, PARAGRAPH_PRESET,
                           [*self.profile.paragraph, f"encoder_shape={shape}", *keys,
                            *PARAGRAPH_DATA, f"++model.net.encoder={encoder}"])  # fmt: skip

    def _bench(self, step: str, preset: str, keys: list[str]) -> list[str]:
        return [sys.executable, "-m", "benchmark.bench.suite", f"device={self.device}",
                f"presets={preset}", "paper=false", "isolate=false",
                f"out={self.scratch / f'{step}.json'}", *keys]

    def train(self, step: str, *overrides: str, multirun: bool = False) -> list[str]:
        """`benchmark.train` of the kit's run with `overrides` (a sweep with `multirun`)."""
        return [sys.executable, "-m", "benchmark.train", *(["-m"] if multirun else []),
                *self.run_overrides(step), *overrides]


@dataclass(frozen=True)
class Step:
    """A command (argv, from the check and the step's cap) and what to read off it."""

    name: str
    what: str
    command: Callable[[Check, float], list[str]]
    figures: Callable[[Check], dict]


def main(argv: Sequence[str] | None = None) -> int:
    return BENCH_GPU_CHECK.run(argv, _check)


def _check(args: dict) -> int:
    device = args["device"]
    profile = PROFILES[device]
    out = Path(args["out"] or os.environ.get("OUT") or "results/bench")
    scratch = Path(args["scratch"] or tempfile.mkdtemp(prefix="orderbench-gpu-check-"))
    chosen = [name for name in args["steps"] or profile.steps or [step.name for step in STEPS]
              if name != "install"]  # fmt: skip
    if unknown := sorted(set(chosen) - {step.name for step in STEPS}):
        return _refuse(f"steps: unknown {unknown}; the steps: install, "
                       f"{', '.join(step.name for step in STEPS)}")
    kit = Path(args["kit"]).resolve()  # the steps run in the code's folder
    try:
        manifest = read_manifest(kit)
    except KitError as error:
        return _refuse(error)
    machine = probe_machine()
    if device == "cuda" and not machine.get("cuda"):
        why = machine.get("error") or "no CUDA device"
        return _refuse(f"device=cuda but PyTorch sees no GPU here ({why}); the dry run on a "
                       "CPU is device=cpu")
    kit = unpack_kit(kit, scratch.resolve() / "kit")  # the files as the steps read them
    minutes = args["minutes"] or profile.minutes
    check = Check(device, profile, kit, out.resolve(), scratch.resolve(),
                  args["runs"] or profile.runs, time.monotonic() + 60 * minutes)  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    check.log.write_text("")
    check.record = {
        "check": "benchmark.bench.gpu_check", "device": device, "commit": commit(manifest),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "budget_s": 60 * minutes,
        "runs_shared": check.runs, "machine": machine,
        "kit": {key: manifest[key] for key in ("made_at", "python", "packages", "nips",
                                               "glove_words", "kit_bytes")},
        "steps": {},
    }  # fmt: skip
    started = time.monotonic()
    check.record["steps"]["install"] = install(check)
    check.record["summary"] = summary(check.record["steps"])
    write_record(check, started)
    steps = {step.name: step for step in STEPS}
    for name in chosen:
        check.record["steps"][name] = run_step(check, steps[name])
        check.record["summary"] = summary(check.record["steps"])
        write_record(check, started)
    if not args["scratch"]:
        shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(check.record["summary"], indent=2))
    print(f"written: {out / (check.stem + '.json')}, {check.log}", file=sys.stderr)
    return 0 if all(step["status"] == "ok" for step in check.record["steps"].values()) else 1


def _refuse(error: Exception | str) -> int:
    print(error_lines(error if isinstance(error, Exception) else ValueError(error)),
          file=sys.stderr)
    return 2


def probe_machine() -> dict:
    """The machine as PyTorch sees it (in a process of its own: no CUDA state here)."""
    script = (
        "import json, os, platform, torch\n"
        "m = {'python': platform.python_version(), 'torch': torch.__version__, "
        "'cuda': torch.cuda.is_available(), 'cuda_version': torch.version.cuda, "
        "'cores': os.cpu_count()}\n"
        "if m['cuda']:\n"
        "    p = torch.cuda.get_device_properties(0)\n"
        "    m.update(gpu=p.name, gpus=torch.cuda.device_count(), "
        "gpu_memory_mib=p.total_memory // 2**20, bf16=torch.cuda.is_bf16_supported())\n"
        "print(json.dumps(m))\n"
    )
    try:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        machine = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as error:
        return {"cuda": False, "error": f"{type(error).__name__}: {error}"}
    smi = shutil.which("nvidia-smi")
    if smi and machine["cuda"]:
        query = [smi, "--query-gpu=driver_version", "--format=csv,noheader"]
        done = subprocess.run(query, capture_output=True, text=True)
        machine["driver"] = done.stdout.strip().splitlines()[0] if done.stdout.strip() else None
    return machine


def commit(manifest: dict) -> str:
    """The commit of the code here (`+dirty` when the tree differs from it: a device tool may
    send a newer tree with an older .git), else (no .git travelled) the one the kit was made
    at; the kit's own commit is recorded beside it (`kit.made_at`)."""
    found = git_commit(ROOT)
    return f"{manifest['made_at']} (the kit's)" if found == "unknown" else found


# -- running --------------------------------------------------------------------------------
def run_process(check: Check, name: str, argv: list[str], cap: float) -> dict:
    """`argv` with the check's environment, its output appended to the log, stopped (its
    whole process group) at `cap` seconds; -> status, seconds, cap, command, error."""
    with check.log.open("a") as log:
        log.write(f"\n===== {name}: {shlex.join(argv)}\n")
        log.flush()
        offset = log.tell()
        started = time.monotonic()
        process = subprocess.Popen(argv, cwd=ROOT, env=check.env(), stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        try:
            code = process.wait(timeout=cap)
            status = "ok" if code == 0 else "failed"
        except subprocess.TimeoutExpired:
            stop(process)
            code, status = None, "timed_out"
        seconds = time.monotonic() - started
        log.write(f"===== {name}: {status} after {seconds:.1f} s\n")
    result = {"status": status, "seconds": round(seconds, 1), "cap_s": round(cap),
              "command": shlex.join(argv)}  # fmt: skip
    if status == "failed":
        result.update(exit_code=code, error=last_error(check.log, offset))
    elif status == "timed_out":
        result["error"] = f"stopped at its cap of {cap:.0f} s"
    return result


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to the process group (runs record an interruption), SIGKILL if it lingers."""
    for sig, wait in ((signal.SIGTERM, STOP_GRACE_S), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def last_error(log: Path, offset: int) -> str:
    """The step's last error line (`error:`, or an exception's), else its last lines."""
    with log.open() as file:
        file.seek(offset)
        lines = [line.strip() for line in file.read().splitlines() if line.strip()]
    lines = [line for line in lines
             if not line.startswith(("=====", "Set the environment variable HYDRA_FULL_ERROR"))]
    errors = [line for line in lines
              if "error:" in line or re.match(r"[\w.]*(Error|Exception)\b", line)]
    return (errors[-1:] or [" | ".join(lines[-3:]) or "(no output)"])[0][:500]


def run_step(check: Check, step: Step) -> dict:
    """One step within its cap and the time left; its figures, also after a failure."""
    cap = min(check.profile.caps[step.name], check.left())
    if cap < MIN_STEP_S:
        return {"status": "skipped", "what": step.what,
                "error": f"the check's budget is spent ({max(cap, 0):.0f} s left)"}
    print(f"gpu-check: {step.name} (at most {cap:.0f} s) ...", file=sys.stderr, flush=True)
    result = {"what": step.what, **run_process(check, step.name, step.command(check, cap), cap)}
    try:
        result.update(step.figures(check))
    except (OSError, ValueError, KeyError, IndexError, TypeError) as error:
        result["figures_error"] = f"{type(error).__name__}: {error}"
    return result


def install(check: Check) -> dict:
    """The kit's wheels into the scratch folder (each alone if together they fail: a dry run
    on another Python skips those made for the GPU machine's), then the imports."""
    print("gpu-check: install ...", file=sys.stderr, flush=True)
    wheels = sorted(str(path) for path in (check.kit / WHEELS).glob("*.whl"))
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
           "--no-compile", "--no-cache-dir", "--upgrade", "--target", str(check.site)]  # fmt: skip
    cap = check.profile.caps["install"]
    result = run_process(check, "install", [*pip, *wheels], cap) if wheels else {
        "status": "ok", "seconds": 0.0}
    skipped = []
    if result["status"] == "failed":
        for wheel in wheels:
            alone = run_process(check, "install", [*pip, wheel], cap)
            if alone["status"] != "ok":
                skipped.append(Path(wheel).name)
        if check.device == "cuda" or len(skipped) == len(wheels):
            result["not_installed"] = skipped
        else:
            result = {"status": "ok", "seconds": result["seconds"],
                      "not_installed_here": skipped,
                      "why": f"made for Python {check.record['kit']['python']}; this dry run "
                             "uses this machine's own"}  # fmt: skip
    found = check.scratch / "imports.json"
    script = ("from benchmark.bench.gpu_check import probe_imports; "
              f"probe_imports({list(check.record['kit']['packages'])!r}, {str(check.site)!r}, "
              f"{str(found)!r})")  # fmt: skip
    imports = run_process(check, "imports", [sys.executable, "-c", script], 120)
    result["imports"] = imports["status"]
    if found.is_file():
        result.update(json.loads(found.read_text()))
    if imports["status"] != "ok":
        result["status"], result["error"] = "failed", imports.get("error")
    elif (check.kit / WEIGHTS_FP16).is_file():  # the NIPS table's pretrained encoder
        unpack = ("from pathlib import Path; from benchmark.bench.kit import unpack_encoder; "
                  f"unpack_encoder(Path({str(check.kit)!r}), Path({str(check.encoder)!r}))")
        unpacked = run_process(check, "encoder", [sys.executable, "-c", unpack], 120)
        result["encoder"] = unpacked["status"]
        if unpacked["status"] != "ok":
            result["status"], result["error"] = "failed", unpacked.get("error")
    result["wheels"] = [Path(wheel).name for wheel in wheels]
    return result


def probe_imports(packages: list[str], site: str, out: str) -> None:
    """(In the steps' environment) import `IMPORTS`, then write to `out` the kit packages'
    versions, the modules that came from the kit (`site`), and the requirements of the kit
    packages that this machine's own packages do not meet (a lead when an import fails)."""
    import importlib
    import importlib.metadata as metadata

    from packaging.requirements import Requirement

    unmet = []
    for package in packages:
        for text in metadata.requires(package) or []:
            requirement = Requirement(text)
            if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
                continue
            try:
                version = metadata.version(requirement.name)
            except metadata.PackageNotFoundError:
                version = None
            if version is None or not requirement.specifier.contains(version, prereleases=True):
                unmet.append(f"{package} needs {requirement}, here {version or 'none'}")
    found: dict = {"versions": {package: metadata.version(package) for package in packages},
                   "unmet_requirements": unmet}  # fmt: skip
    modules = []
    try:
        modules = [importlib.import_module(name) for name in IMPORTS]
    except Exception as error:  # recorded with the requirements, then the step fails
        found["import_error"] = f"{type(error).__name__}: {error}"
    found["from_kit"] = sorted(module.__name__ for module in modules
                               if (module.__file__ or "").startswith(site))  # fmt: skip
    Path(out).write_text(json.dumps(found))
    if "import_error" in found:
        raise SystemExit(found["import_error"])


def write_record(check: Check, started: float) -> None:
    """The record as it stands, replacing the last one whole."""
    check.record["seconds"] = round(time.monotonic() - started, 1)
    path = check.out / f"{check.stem}.json"
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(check.record, indent=2) + "\n")
    os.replace(partial, path)


# -- the steps' commands and figures --------------------------------------------------------
def _max_time(cap: float) -> str:
    """`trainer.max_time` (DD:HH:MM:SS) that leaves `RUN_RESERVE_S` of `cap` to the rest."""
    seconds = max(int(cap) - RUN_RESERVE_S, 30)
    return f"00:{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def bench_figures(name: str, preset: str = "attordernet") -> Callable[[Check], dict]:
    """The bench record's figures of the preset: training, decoding, memory, graphs."""

    def figures(check: Check) -> dict:
        record = json.loads((check.scratch / f"{name}.json").read_text())
        result = record["presets"][preset]
        if result.get("status") != "ok":
            return {"bench": result}
        train, decode = result["train"], result["decode"]
        widest = str(max(map(int, decode["by_beam"])))
        return {
            "gpu": record["machine"].get("gpu"),
            "preset": preset,  # what the peaks below bound (benchmark.sweep.gpu_peaks)
            "train_docs_per_s": train["docs_per_s"],
            "train_step_ms": train["step_ms"],
            "precision": record["settings"]["precision"],
            "train_peak_memory_mib": train["peak_memory_mb"],
            f"decode_beam{widest}_docs_per_s": decode["by_beam"][widest]["docs_per_s"],
            "decode_beam1_docs_per_s": decode["by_beam"]["1"]["docs_per_s"],
            "decode_peak_memory_mib": decode["peak_memory_mb"],
            "parameters": result["trainable_params"],
            **({"cuda_graphs": train["cuda_graphs"]} if "cuda_graphs" in train else {}),
        }

    return figures


def run_records(check: Check, step: str) -> list[dict]:
    """The run records (metrics.json) the step's runs wrote, by seed."""
    paths = sorted(check.runs_dir(step).rglob("metrics.json"))
    return sorted((json.loads(path.read_text()) for path in paths), key=lambda r: r["seed"])


def run_figures(record: dict) -> dict:
    """What a run record says of the training and the test."""
    config, test = record["config"], record["split"]["test"]
    return {
        "device": record["environment"].get("device_name"),
        "precision": config["trainer"].get("precision"),
        "strategy": str(config["trainer"].get("strategy")),
        "epochs": record["epochs"], "best_epoch": record["best_epoch"],
        "stopped_by": record["stopped_by"], "steps": record["steps"],
        "train_seconds": round(record["train_seconds"], 1),
        "docs_per_s": round(record["steps"] * config["model"]["batch_size"]
                            / max(record["train_seconds"], 1e-9), 1),
        "valid_tau": round(record["split"]["valid"]["tau"], 4),
        "test_tau": round(test["tau"], 4),
        "test_tau_ci": [round(record["ci"]["test"]["tau"][end], 4)
                        for end in ("ci_low", "ci_high")],
        "test_acc": round(test["acc"], 4), "test_pmr": round(test["pmr"], 4),
    }  # fmt: skip


def one_run(step: str) -> Callable[[Check], dict]:
    def figures(check: Check) -> dict:
        records = run_records(check, step)
        return run_figures(records[0]) if records else {"run": "no run record written"}

    return figures


def nips_figures(check: Check) -> dict:
    """The NIPS run's figures beside the CPU runs' ATTOrderNet row."""
    result = one_run("nips_run")(check)
    with CPU_RUNS.open(newline="") as file:
        row = next(row for row in csv.DictReader(file)
                   if all(row[key] == value for key, value in CPU_ROW.items()))  # fmt: skip
    cpu = {"runs": int(row["runs"]), "tau_mean": round(float(row["tau_mean"]), 4),
           "tau_std": round(float(row["tau_std"]), 4), "source": str(CPU_RUNS.relative_to(ROOT))}
    result["cpu_runs"] = cpu
    if "test_tau" in result:
        result["test_tau_minus_cpu"] = round(result["test_tau"] - cpu["tau_mean"], 4)
    return result


def sharing_figures(step: str) -> Callable[[Check], dict]:
    def figures(check: Check) -> dict:
        runs = [run_figures(record) for record in run_records(check, step)]
        return {"runs_finished": len(runs),
                "docs_per_s_each": [run["docs_per_s"] for run in runs],
                "docs_per_s_together": round(sum(run["docs_per_s"] for run in runs), 1)}

    return figures


def table_command(check: Check, cap: float) -> list[str]:
    """The NIPS table (`benchmark.sweep.timed_table`) within the step's cap: its settings
    written to scratch, its record read back by `table_figures`."""
    profile = check.profile
    encoder = check.encoder if check.encoder.is_dir() else None
    settings = {
        "scratch": str(check.scratch), "budget_s": max(cap - TABLE_MARGIN_S, MIN_STEP_S),
        "slots": profile.table_slots, "seeds": list(profile.table_seeds),
        "device_args": list(profile.table), "glove": str((check.kit / GLOVE).resolve()),
        "encoder": str(encoder) if encoder else None, "log": str(check.log),
        "encoder_note": "all-MiniLM-L6-v2 of the kit: its weights carried as float16, "
                        "widened to float32" if encoder else None,
        "out": str(check.scratch / "nips_table.json"),
    }  # fmt: skip
    path = check.scratch / "nips_table.settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2))
    return [sys.executable, "-c", TABLE_CODE, str(path)]


def table_figures(check: Check) -> dict:
    """The table's record: its plan, every row beside the CPU row, every run; and the
    table as Markdown beside the check's record (`gpu-check-<device>-table.md`)."""
    record = json.loads((check.scratch / "nips_table.json").read_text())
    (check.out / f"{check.stem}-table.md").write_text(record["markdown"] + "\n")
    rows = record["rows"]
    return {
        "plan": {key: record[key] for key in ("jobs", "slots", "slots_why", "budget_s",
                                                "predicted_s", "device_args", "encoder")},
        "table_seconds": record["seconds"],
        "runs_done": sum(row["done"] for row in rows),
        "runs_planned": sum(row["planned"] for row in rows),
        "runs_cut_by_budget": sum(row["cut_by_budget"] for row in rows),
        "rows_inside_cpu_interval": sum(row["inside"] is True for row in rows),
        "rows": rows,
        "runs": [{key: run["result"].get(key) for key in RUN_KEYS} | {
            "row": run["row"], "seed": run["seed"], "model": run["model"],
            "estimate_s": run["estimate_s"]} for run in record["runs"]],
    }  # fmt: skip


def summary(steps: dict) -> dict:
    """The figures to read first, from the steps that have them."""
    out: dict = {name: step["status"] for name, step in steps.items()}
    for name in ("bench_32", "bench_bf16", "paragraph_minilm", "paragraph_bert", "graphs_bench"):
        if "train_docs_per_s" in steps.get(name, {}):
            step = steps[name]
            widest = max((key for key in step if key.startswith("decode_beam")),
                         key=lambda key: int(key.split("_")[1][4:]))  # fmt: skip
            out[f"{name}: train docs/s, {widest}, train peak MiB"] = [
                step["train_docs_per_s"], step[widest], step["train_peak_memory_mib"]]
    if "graphs_bench" in steps and "bench_32" in steps:
        eager, graphs = steps["bench_32"], steps["graphs_bench"]
        if "train_docs_per_s" in eager and "train_docs_per_s" in graphs:
            out["graphs_bench / bench_32, training docs/s"] = round(
                graphs["train_docs_per_s"] / eager["train_docs_per_s"], 2)
    nips = steps.get("nips_run", {})
    if "test_tau" in nips:
        cpu = nips["cpu_runs"]
        out["nips test tau (CPU runs)"] = (f"{nips['test_tau']} ({cpu['tau_mean']} ± "
                                           f"{cpu['tau_std']}, {cpu['runs']} runs); stopped by "
                                           f"{nips['stopped_by']} at epoch {nips['epochs']}")
    table = steps.get("nips_table", {})
    if "runs_done" in table:
        out["nips table: runs done of planned (cut by the budget), rows inside the CPU "
            "interval, seconds"] = [table["runs_done"], table["runs_planned"],
                                    table["runs_cut_by_budget"],
                                    table["rows_inside_cpu_interval"], table["table_seconds"]]
    alone, shared = steps.get("runs_alone", {}), steps.get("runs_shared", {})
    if alone.get("docs_per_s_together") and shared.get("docs_per_s_together"):
        out["runs together / alone, training docs/s"] = round(
            shared["docs_per_s_together"] / alone["docs_per_s_together"], 2)
    return out


STEPS = (
    Step("nips_table", "the NIPS page's rows (the sweeps nips and nips_pretrained) trained "
         "at once within the step's time, beside the CPU rows", table_command, table_figures),
    Step("bench_32", "the bench of attordernet at the published sizes, float32",
         lambda check, cap: check.bench("bench_32", "precision=32"), bench_figures("bench_32")),
    Step("bench_bf16", "the bench of attordernet at the published sizes, bf16 autocast",
         lambda check, cap: check.bench("bench_bf16", "precision=bf16"),
         bench_figures("bench_bf16")),
    Step("paragraph_minilm", f"the bench of {PARAGRAPH_PRESET}, all-MiniLM-L6-v2's shape, float32",
         lambda check, cap: check.paragraph_bench("paragraph_minilm", "minilm", "precision=32",
                                                  "cuda_graphs=true"),
         bench_figures("paragraph_minilm", PARAGRAPH_PRESET)),
    Step("paragraph_bert", f"the bench of {PARAGRAPH_PRESET}, BERT-base's shape, at the "
         "profile's bert_precision",
         lambda check, cap: check.paragraph_bench(
             "paragraph_bert", "bert-base", f"precision={check.profile.bert_precision}",
             "cuda_graphs=true"),
         bench_figures("paragraph_bert", PARAGRAPH_PRESET)),
    Step("nips_run", "attordernet_paper on NIPS at the published budget",
         lambda check, cap: check.train("nips_run", f"trainer={check.profile.trainer}",
                                        f"trainer.max_time={_max_time(cap)}",
                                        *check.profile.nips),
         nips_figures),
    Step("ddp", "trainer=ddp, one process, a few steps",
         lambda check, cap: check.train("ddp", *check.profile.ddp, *check.profile.short),
         one_run("ddp")),
    Step("bf16_mixed", "trainer.precision=bf16-mixed, a few steps",
         lambda check, cap: check.train("bf16_mixed", f"trainer={check.profile.trainer}",
                                        "++trainer.precision=bf16-mixed",
                                        *check.profile.short),
         one_run("bf16_mixed")),
    Step("runs_alone", "one short run through the local launcher",
         lambda check, cap: check.train("runs_alone", "hydra/launcher=local",
                                        f"trainer={check.profile.trainer}", "seed=0",
                                        "hydra.sweeper.max_batch_size=1", *check.profile.short,
                                        multirun=True),
         sharing_figures("runs_alone")),
    Step("runs_shared", "the same run, several at once sharing the GPU",
         lambda check, cap: check.train(
             "runs_shared", "hydra/launcher=local", f"trainer={check.profile.trainer}",
             f"seed={','.join(map(str, range(check.runs)))}",
             f"hydra.sweeper.max_batch_size={check.runs}",
             f"hydra.launcher.runs_per_gpu={check.runs}", *check.profile.short, multirun=True),
         sharing_figures("runs_shared")),
    Step("graphs_bench", "the bench's training with cuda_graphs=true",
         lambda check, cap: check.bench("graphs_bench", "precision=32", "cuda_graphs=true"),
         bench_figures("graphs_bench")),
    Step("graphs_run", "a short run with cuda_graphs=true",
         lambda check, cap: check.train("graphs_run", f"trainer={check.profile.trainer}",
                                        "cuda_graphs=true", *check.profile.short),
         one_run("graphs_run")),
)


if __name__ == "__main__":
    sys.exit(main())
