"""How long the commands that do not train take to answer: `orderbench bench cli`.

Each command runs as a user types it, `python -m benchmark.cli <command>` in a process of
its own with one PyTorch thread, `repeats` times; printed is the median wall time and the
median CPU time (user + system of the process and its children, the steadier figure on a
shared machine). With `reference=TREE` (another checkout of the suite, e.g. an earlier
commit) the same commands run in that tree too, alternating with this one, and the ratio of
the medians is printed beside them. The commands that read a finished run (`score`,
`compare`, `predict`) use `run=RUN_DIR`; without one they are left out, and the table says
so. The `train` rows give bad input (a setting out of range, an option no config group
has) and are timed to their first error line on standard error (`error: ...`, or Hydra's
`Error ...`), whatever the tree does after it; their runs go to a temporary folder.
`only=train,score` times only the commands whose label starts with one of those words.
Nothing is asserted; docs/performance.md, "Commands that do not train", has figures.
"""

from __future__ import annotations

import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmark.cli_commands import BENCH_CLI
from benchmark.config.config_folders import SOURCE_ROOT as ROOT  # the repository

SENTENCES = ("He opened the door.", "The room was dark.", "He switched on the light.",
             "There was nobody inside.")  # fmt: skip
BAD_INPUT = (("dataset.datamodule.min_freq=-1",), ("dataset.datamodule.max_sentence_tokens=0",),
             ("model.optimizer.weight_decay=-1",), ("model=lstm_pointer",), ("seed=-1",),
             ("dataset=jsonl", "dataset.path=/nonexistent"))  # else dataset=synthetic
FIRST_ERROR = re.compile(r"(error: |Error )")  # our one line, or Hydra's first line


def commands(run: Path | None, sentences: Path, runs: Path) -> dict[str, list[str] | None]:
    """The timed commands by label (None: left out, it needs a finished run); the `train`
    ones give bad input, timed to their first error line."""
    with_run = run is not None
    bad = {
        f"train {' '.join(overrides)}": [
            "train", *(() if overrides[0].startswith("dataset=") else ("dataset=synthetic",)),
            "logger=csv", f"paths.runs={runs}", *overrides]
        for overrides in BAD_INPUT
    }  # fmt: skip
    return {
        "--help": ["--help"],
        "presets": ["presets"],
        "sweep list smoke": ["sweep", "list", "smoke"],
        "score": ["score", str(run / "predictions.jsonl")] if with_run else None,
        "compare": ["compare", str(run), str(run), "resamples=1000"] if with_run else None,
        "params": ["params"],
        "datacard brown": ["datacard", "brown"],
        "predict (4 sentences)": ["predict", str(run), str(sentences)] if with_run else None,
        **bad,
    }


def timed(tree: Path, argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `orderbench` command run in `tree`; a `train`
    command (bad input) is timed to its first error line, and must fail."""
    env = {
        **os.environ,
        "PYTHONPATH": str(tree),
        "OMP_NUM_THREADS": "1",
        "HF_HUB_OFFLINE": "1",
        "WANDB_MODE": os.environ.get("WANDB_MODE", "offline"),
    }
    bad_input = argv[0] == "train"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "benchmark.cli", *argv], cwd=tree,
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)  # fmt: skip
    wall, lines = None, []
    for line in process.stderr:
        lines.append(line)
        if bad_input and wall is None and FIRST_ERROR.match(line):
            wall = time.perf_counter() - started
    process.wait()
    wall = wall if wall is not None else time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if (process.returncode != 0) != bad_input:
        last = ("".join(lines).strip().splitlines() or ["(nothing on stderr)"])[-1]
        raise RuntimeError(f"orderbench {' '.join(argv)} ended with status "
                           f"{process.returncode} in {tree}: {last}")  # fmt: skip
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _cell(values: list[tuple[float, float]]) -> tuple[float, float]:
    return (statistics.median(v[0] for v in values), statistics.median(v[1] for v in values))


def main(argv=None) -> int:
    return BENCH_CLI.run(argv, _bench)


def _bench(args: dict) -> int:
    run = Path(args["run"]).resolve() if args["run"] else None
    reference = Path(args["reference"]).resolve() if args["reference"] else None
    trees = {"this": ROOT, **({"reference": reference} if reference else {})}
    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="orderbench-cli-") as folder:
        sentences = Path(folder) / "sentences.txt"
        sentences.write_text("\n".join(SENTENCES) + "\n", "utf-8")
        for label, argv in commands(run, sentences, Path(folder) / "runs").items():
            if args["only"] and label.split()[0] not in args["only"]:
                continue
            if argv is None:
                figures[label] = None
                continue
            taken = {name: [] for name in trees}
            for _ in range(args["repeats"]):
                for name, tree in trees.items():
                    taken[name].append(timed(tree, argv))
            figures[label] = {name: _cell(values) for name, values in taken.items()}
            print(f"{label}: " + ", ".join(f"{name} {w:.2f} s ({c:.2f} s CPU)"
                                           for name, (w, c) in figures[label].items()),
                  file=sys.stderr, flush=True)  # fmt: skip
    print(table(figures, reference is not None))
    if args["out"]:
        Path(args["out"]).write_text(json.dumps(
            {"repeats": args["repeats"], "load_average": os.getloadavg(), "commands": figures},
            indent=2) + "\n", "utf-8")  # fmt: skip
    return 0


def table(figures: dict[str, dict | None], with_reference: bool) -> str:
    """The Markdown table of the medians (and, with a reference tree, the ratios)."""
    head = "| command | wall s | CPU s |"
    rule = "|:--|--:|--:|"
    if with_reference:
        head += " reference wall s | reference CPU s | CPU this / reference |"
        rule += "--:|--:|--:|"
    rows = [head, rule]
    for label, cell in figures.items():
        if cell is None:
            rows.append(
                f"| {label} | left out: needs run=RUN_DIR |" + " |" * (4 if with_reference else 1)
            )
            continue
        wall, cpu = cell["this"]
        row = f"| {label} | {wall:.2f} | {cpu:.2f} |"
        if with_reference:
            ref_wall, ref_cpu = cell["reference"]
            row += f" {ref_wall:.2f} | {ref_cpu:.2f} | {cpu / ref_cpu:.2f} |"
        rows.append(row)
    return "\n".join(rows)
