"""Memory and time of the data path as the corpus grows: `orderbench bench scale`
(`make bench-scale`).

For each size, a seeded corpus shaped like abstracts (`benchmark.bench.abstracts_like`:
7.5 sentences of about 17 tokens, a 30,000-word vocabulary) is written as JSONL under
`folder` (never in the repository), then three commands run, each in processes of its
own, with one PyTorch thread:

- `orderbench prepare dataset=jsonl` into an empty cache: its wall time and peak resident
  set (the kernel's `ru_maxrss` of the process); then the check a run makes of the entry
  each time it maps it, beside the mapping itself (`benchmark/bench/cache_check.py`);
- a training process, `python -m benchmark.train` with `lstm_ptrnet` (no word vectors)
  for `steps` steps (one epoch cut to `steps` batches, then two batches each of
  validation and test, no order discrimination), reading the entry just made: its peak
  resident set, its peak proportional set size (PSS, `/proc/<pid>/smaps_rollup`, sampled
  every 0.5 s, with the part of it that is the process's own heap, anonymous memory: the
  rest is mapped files, the data columns among them) and its training documents/s
  (`steps` x batch size / the record's `train_seconds`, which include the two validation
  batches);
- the same with `trainer=ddp_cpu` (two processes): the peak of the ranks' summed PSS (a
  page the ranks share counts once in the sum), against one process's peak PSS.

With `nips=DIR` (the NIPS abstracts, `dataset=nips` layout `nseg`) it also times training
at the paper's settings (`+experiment=attordernet_paper`, one thread) through the
DataModule's loader (`benchmark/bench/throughput_probe.py`), and with `reference=TREE` the
same in the code of another tree (an earlier commit), alternating the two `repeats` times,
and prints the ratio of the medians (of documents/s, and of the CPU time of the same
batches, the steadier on a shared machine). Nothing is asserted: the figures are printed (and
written to `out` as JSON); docs/performance.md, "A million documents", has them.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmark.bench.abstracts_like import write_abstracts_like
from benchmark.bench.cache_check import check_seconds
from benchmark.bench.machine import load_average
from benchmark.bench.table import markdown_table
from benchmark.bench.throughput_probe import PROBE_COMMAND
from benchmark.cli_arguments import UsageError
from benchmark.cli_commands import BENCH_SCALE
from benchmark.config.config_folders import SOURCE_ROOT as ROOT  # the repository

PROBE = Path(__file__).with_name("throughput_probe.py")
SAMPLE_SECONDS = 0.5  # a sample reads /proc: about 1% of a core at this pace
ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "WANDB_MODE": "offline"}
TRAIN_MODEL = ["model=lstm_ptrnet", "model.embeddings=null", "cpu_threads=1", "logger=csv",
               "evaluate_discrimination=false", "trainer.max_epochs=1",
               "+trainer.limit_val_batches=2", "+trainer.limit_test_batches=2"]  # fmt: skip
GB = 1024**3


@dataclass
class Measured:
    """One command: its wall time, the CPU time of its own process, the peak resident set
    of its own process (bytes), and the peaks over its process tree (sampled) of the summed
    PSS, of the summed anonymous memory (each process's own heap; the rest of the PSS is
    mapped files, among them the shared data columns) and of each process's RSS. On a
    shared machine the CPU time is the steadier."""

    seconds: float
    cpu_seconds: float
    peak_rss: int
    peak_pss_sum: int
    peak_anon_sum: int
    peak_rss_each: int
    processes: int  # the most processes of the tree seen at once


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _tree(pid: int) -> list[int]:
    tree, frontier = [pid], [pid]
    while frontier:
        frontier = [child for parent in frontier for child in _children(parent)]
        tree += frontier
    return tree


def _memory(pid: int) -> tuple[int, int, int]:
    """(RSS, PSS, anonymous) in bytes of a process (zeros once it is gone)."""
    figures = {"Rss:": 0, "Pss:": 0, "Anonymous:": 0}
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            name, *value = line.split()
            if name in figures:
                figures[name] = int(value[0]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return figures["Rss:"], figures["Pss:"], figures["Anonymous:"]


def measure(command: Sequence[str], log: Path) -> Measured:
    """Run `command` from the repository root (output to `log`), sampling its tree."""
    env = {**os.environ, **ENV}
    start = time.perf_counter()
    peak_pss = peak_anon = peak_rss_each = most = 0
    with open(log, "w") as out:
        process = subprocess.Popen(list(command), cwd=ROOT, env=env, stdout=out,
                                   stderr=subprocess.STDOUT)  # fmt: skip
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            tree = _tree(process.pid)
            figures = [_memory(p) for p in tree]
            peak_pss = max(peak_pss, sum(pss for _, pss, _ in figures))
            peak_anon = max(peak_anon, sum(anon for _, _, anon in figures))
            peak_rss_each = max([peak_rss_each, *(rss for rss, _, _ in figures)])
            most = max(most, len(tree))
            time.sleep(SAMPLE_SECONDS)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if process.returncode:
        tail = log.read_text(errors="replace").splitlines()[-15:]
        raise RuntimeError(f"{' '.join(command[:4])} ... failed ({process.returncode}), "
                           f"{log}:\n" + "\n".join(tail))  # fmt: skip
    return Measured(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, peak_pss,
                    peak_anon, peak_rss_each, most)  # fmt: skip


def _record(runs: Path) -> dict:
    [path] = runs.rglob("metrics.json")
    return json.loads(path.read_text())


def measure_size(size: int, args: dict) -> dict:
    """Prepare, train and train under DDP on a corpus of `size` documents."""
    folder: Path = args["folder"]
    corpus = write_abstracts_like(folder / f"abstracts-{size}-seed{args['seed']}", size,
                                  args["seed"])  # fmt: skip
    cache, logs = folder / f"cache-{size}", folder / "logs"
    shutil.rmtree(cache, ignore_errors=True)
    logs.mkdir(parents=True, exist_ok=True)
    data = [f"dataset.path={corpus}", f"+dataset.datamodule.cache_dir={cache}"]
    python = sys.executable
    figures: dict = {"documents": size}
    prepared = measure([python, "-m", "benchmark.prepare_data", "dataset=jsonl", *data,
                        "model.embeddings=null"], logs / f"prepare-{size}.log")  # fmt: skip
    figures["prepare"] = asdict(prepared)
    figures["cache_bytes"] = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())
    [entry] = [p for p in cache.iterdir() if not p.name.startswith(".")]
    figures["cache_check"] = check_seconds(entry)
    for trainer in ("cpu", "ddp_cpu") if args["ddp"] else ("cpu",):
        runs = folder / f"runs-{size}-{trainer}"
        shutil.rmtree(runs, ignore_errors=True)
        trained = measure(
            [python, "-m", "benchmark.train", "dataset=jsonl", *data, *TRAIN_MODEL,
             f"trainer={trainer}", f"+trainer.limit_train_batches={args['steps']}",
             f"paths.runs={runs}"],
            logs / f"train-{size}-{trainer}.log",
        )  # fmt: skip
        record = _record(runs)
        documents = args["steps"] * record["config"]["model"]["batch_size"]  # per process
        ranks = record["config"]["trainer"]["devices"]
        figures[trainer] = {
            **asdict(trained),
            "train_seconds": record["train_seconds"],
            "docs_per_s": round(ranks * documents / record["train_seconds"], 1),  # all ranks
        }
    if not args["keep"]:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(corpus, ignore_errors=True)
    return figures


def nips_throughput(args: dict) -> dict:
    """Paper-size training through the DataModule on NIPS, in this tree and (alternating)
    the reference tree: the medians of `repeats` probes each and their ratio."""
    trees = {"this": ROOT}
    if args["reference"] is not None:
        trees["reference"] = args["reference"].resolve()
    env = {**os.environ, **ENV, "PROBE_STEPS": str(args["nips_steps"]), "PROBE_WARMUP": "3"}
    figures: dict[str, list[dict]] = {name: [] for name in trees}
    for repeat in range(args["repeats"]):
        order = list(trees) if repeat % 2 == 0 else list(trees)[::-1]
        for name in order:
            overrides = ["+reproduce=nips", f"+experiment={args['experiment']}",
                         f"dataset.path={args['nips']}",
                         f"+dataset.datamodule.cache_dir={args['folder'] / f'nips-cache-{name}'}"]
            done = subprocess.run(
                [sys.executable, "-c", PROBE_COMMAND, str(PROBE), str(trees[name]), *overrides],
                cwd=ROOT, env=env, capture_output=True, text=True,
            )  # fmt: skip
            if done.returncode:
                raise RuntimeError(f"the throughput probe in {trees[name]} failed:\n"
                                   + done.stderr[-3000:])  # fmt: skip
            figures[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    summary = {
        name: {key: statistics.median(run[key] for run in runs)
               for key in ("docs_per_s", "load_ms", "step_ms", "cpu_seconds")}
        for name, runs in figures.items()
    }  # fmt: skip
    result = {"experiment": args["experiment"], "steps": args["nips_steps"],
              "repeats": args["repeats"], "median": summary, "runs": figures}  # fmt: skip
    if "reference" in summary:
        this, reference = summary["this"], summary["reference"]
        result["ratio"] = round(this["docs_per_s"] / reference["docs_per_s"], 3)
        result["cpu_ratio"] = round(reference["cpu_seconds"] / this["cpu_seconds"], 3)
    return result


def _gb(value: float) -> str:
    return f"{value / GB:.2f}"


def scale_table(sizes: list[dict]) -> str:
    headers = ["documents", "prepare s (CPU s)", "prepare peak RSS GB", "cache GB",
               "map / check CPU s (file digests + documents' digest)",
               "training peak RSS GB", "training docs/s", "one process PSS GB (own heap)",
               "ddp_cpu 2 ranks summed PSS GB (own heaps)", "ddp / one"]  # fmt: skip
    rows = []
    for figures in sizes:
        cpu, ddp = figures["cpu"], figures.get("ddp_cpu")
        check = {part: cell["cpu_seconds"] for part, cell in figures["cache_check"].items()}
        rows.append([
            f"{figures['documents']:,}",
            f"{figures['prepare']['seconds']:.0f} ({figures['prepare']['cpu_seconds']:.0f})",
            _gb(figures["prepare"]["peak_rss"]), _gb(figures["cache_bytes"]),
            f"{check['map']:.2f} / {check['file_digests'] + check['documents_digest']:.2f} "
            f"({check['file_digests']:.2f} + {check['documents_digest']:.2f})",
            _gb(cpu["peak_rss"]), f"{cpu['docs_per_s']:.0f}",
            f"{_gb(cpu['peak_pss_sum'])} ({_gb(cpu['peak_anon_sum'])})",
            f"{_gb(ddp['peak_pss_sum'])} ({_gb(ddp['peak_anon_sum'])})" if ddp else "—",
            f"{ddp['peak_pss_sum'] / cpu['peak_pss_sum']:.2f}" if ddp else "—",
        ])  # fmt: skip
    return markdown_table(headers, rows)


def main(argv: Sequence[str] | None = None) -> int:
    return BENCH_SCALE.run(argv, _run, _parse)


def _parse(argv: Sequence[str]) -> dict:
    args = BENCH_SCALE.parse(argv)
    try:
        sizes = [int(size) for size in args["sizes"]]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 10:
        raise UsageError(f"sizes must be numbers of documents >= 10, got {args['sizes']}")
    folder = Path(args["folder"]).expanduser().resolve()
    if folder == ROOT or ROOT in folder.parents:
        raise UsageError(f"folder={folder} is inside the repository; the corpora go elsewhere")
    reference = args["reference"]
    if reference is not None and not (Path(reference) / "benchmark" / "train.py").is_file():
        raise UsageError(f"reference={reference} is not a tree of this suite (no benchmark/)")
    if reference is not None and args["nips"] is None:
        raise UsageError("reference= compares training on NIPS: give nips=DIR too")
    return args | {"sizes": sizes, "folder": folder,
                   "reference": None if reference is None else Path(reference)}  # fmt: skip


def _run(args: dict) -> int:
    args["folder"].mkdir(parents=True, exist_ok=True)
    record: dict = {"load_average_before": load_average(), "steps": args["steps"],
                    "seed": args["seed"], "sizes": []}  # fmt: skip
    for size in args["sizes"]:
        print(f"{size:,} documents ...", file=sys.stderr, flush=True)
        record["sizes"].append(measure_size(size, args))
    print(scale_table(record["sizes"]))
    if args["nips"] is not None:
        print("NIPS, paper settings ...", file=sys.stderr, flush=True)
        record["nips"] = nips_throughput(args)
        median = record["nips"]["median"]
        for name, figures in median.items():
            print(f"NIPS {args['experiment']}, {name} tree: {figures['docs_per_s']:.1f} "
                  f"documents/s (loading {figures['load_ms']:.2f} ms a step; "
                  f"{figures['cpu_seconds']:.1f} CPU s)")
        if "ratio" in record["nips"]:
            print(f"throughput ratio this / reference: {record['nips']['ratio']:.3f} "
                  f"(wall); {record['nips']['cpu_ratio']:.3f} (CPU time of the same "
                  "batches)")
    record["load_average_after"] = load_average()
    if args["out"] is not None:
        Path(args["out"]).write_text(json.dumps(record, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
