"""Measured throughput of the model presets: `orderbench bench [key=value ...]`
(`benchmark.cli_commands.BENCH`).

For each preset at the sizes `orderbench train` uses (models/families/*/conf/model/*.yaml), on one
device: training throughput on the real data path (documents and tokens per second, the
share of time spent loading data, peak memory), decoding throughput on a sample of the
test split at each beam width, how search time grows with paragraph length and beam width
(its log-log growth exponent over the upper range against 2 for n and 1 for K), and the
speed-up of the batched beam search over a one-document-at-a-time reference
(`models.search.reference_search`), whose orders must be identical. Each preset runs in a fresh
process, so its peak memory is its own. Then the paper-size presets
(`models/families/*/conf/experiment/*_paper.yaml`) on NIPS-like documents at
`paper_threads` threads: their training throughput on the fast compute paths against the
reference paths, both in one process, alternating, as ratios (`benchmark.bench.paper`);
their losses must agree.

Prints the tables and writes the record (machine, load average before and after, settings,
figures) atomically to `out`, after each preset. Exits 1 if the batched and reference
orders differ anywhere or a preset fails (the others still run), 2 on bad arguments.
`quick=true` uses tiny sizes, for tests and smoke checks. With a pairwise preset, the
pairwise decoders' cost against n follows (`orderbench bench tsort`); where the training
time of the paper-size presets goes is `orderbench bench profile`.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from multiprocessing import get_context
from pathlib import Path

import torch

from benchmark.bench.machine import load_average, machine_info
from benchmark.bench.paper import compare_paths, paper_table
from benchmark.bench.preset import Settings, bench_preset, preset_overrides
from benchmark.bench.shaped_encoder import shaped_settings
from benchmark.bench.table import reference_table, scaling_table, throughput_table
from benchmark.bench.tsort import tsort_table, tsort_timings
from benchmark.cli_arguments import UsageError, unknown_key
from benchmark.cli_commands import BENCH, FULL, QUICK
from benchmark.config.compose import COMPOSE_ERRORS, compose_config, compose_error
from benchmark.config.config_folders import group_files
from benchmark.records.atomic_io import atomic_write_text
from models.registry import get_preset, preset_names

PAPER_SCALE = {False: 1.0, True: 0.05}  # NIPS-like split sizes (quick: a twentieth)
LOSS_TOLERANCE = 1e-4  # largest relative loss difference of the two paths: equal outputs
SPEEDUP_TARGET = 20.0  # batched over reference, widest beam, `length`-sentence paragraphs


def parse_args(argv: Sequence[str]) -> tuple[list[str], Settings, Path, bool, dict | None]:
    """The arguments (`BENCH`) -> presets, settings, output path, isolate, and the
    paper-size comparison's settings (None: not run)."""
    given = BENCH.parse(argv)
    for word in given["overrides"]:  # a config key is dotted, or added (+) or removed (~)
        name = word.partition("=")[0]
        if not (name.startswith(("+", "~")) or "." in name):
            raise UsageError(unknown_key(BENCH, name, word))
    quick = given["quick"]
    args = {**given, **{key: given[key] if given[key] is not None else value
                        for key, value in (QUICK if quick else FULL).items()}}  # fmt: skip
    known = [path.stem for path in group_files("model")]
    presets = args["presets"] or known
    if unknown := [preset for preset in presets if preset not in known]:
        raise UsageError(f"unknown preset(s) {unknown}; known: {', '.join(known)}")
    device = args["device"] or ("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise UsageError("device=cuda but PyTorch sees no GPU")
    settings = Settings(
        dataset=args["dataset"],
        device=device,
        precision=args["precision"],
        threads=args["threads"],
        steps=args["steps"],
        warmup=args["warmup"],
        beams=_int_list("beams", args["beams"]),
        lengths=_int_list("lengths", args["lengths"]),
        length=args["length"],
        docs=args["docs"],
        decode_docs=args["decode_docs"],
        reference_docs=args["reference_docs"],
        repeats=args["repeats"],
        overrides=tuple(args["overrides"]),
        cuda_graphs=args["cuda_graphs"],
        encoder_shape=args["encoder_shape"],
    )
    if settings.overrides:  # refused here, in one line, rather than per preset
        for preset in presets:
            try:
                compose_config(preset_overrides(preset, settings))
            except COMPOSE_ERRORS as error:
                raise UsageError(f"{preset}: {compose_error(error)}") from None
    out = Path(args["out"] or f"results/bench/{device}{'-quick' if quick else ''}.json")
    paper = None
    if args["paper"]:
        experiments = args["paper_experiments"]
        known = [path.stem for path in group_files("experiment")]
        if unknown := [name for name in experiments if name not in known]:
            raise UsageError(f"unknown paper experiment(s) {unknown}; known: {', '.join(known)}")
        paper = {
            "experiments": experiments,
            "steps": args["paper_steps"],
            "repeats": args["paper_repeats"],
            "threads": args["paper_threads"],
            "compiled": args["paper_compile"],
            "scale": PAPER_SCALE[quick],
        }
    return presets, settings, out, args["isolate"], paper


def _int_list(key: str, value: str) -> list[int]:
    """'1,4,16' -> [1, 4, 16], each an integer >= 1, increasing."""
    if not all(item.isdigit() and int(item) >= 1 for item in value.split(",")):
        raise UsageError(f"{key} must be integers >= 1, comma-separated, got {value!r}")
    numbers = [int(item) for item in value.split(",")]
    if numbers != sorted(set(numbers)):
        raise UsageError(f"{key} must be increasing, got {value!r}")
    return numbers


def run_preset(preset: str, settings: Settings, isolate: bool) -> dict:
    """`bench_preset`, in a fresh process when `isolate`; a preset that fails is recorded
    as {"status": "failed", "error": ...} (traceback on stderr) and the others still run."""
    try:
        if not isolate:
            return bench_preset(preset, settings)
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
            return pool.submit(bench_preset, preset, settings).result()
    except Exception as error:
        traceback.print_exc()
        return {"status": "failed", "error": f"{type(error).__name__}: {error}"}


def _compare_paths(experiment: str, paper: dict, settings: Settings) -> dict:
    """`compare_paths` at the comparison's thread count (in its own process when
    isolated)."""
    torch.set_num_threads(paper["threads"])
    return compare_paths(
        experiment, paper["steps"], paper["repeats"], settings.device, settings.precision,
        scale=paper["scale"], compiled=paper["compiled"],
    )  # fmt: skip


def run_paper(experiment: str, paper: dict, settings: Settings, isolate: bool) -> dict:
    """`_compare_paths`, in a fresh process when `isolate`; a failure is recorded as
    {"status": "failed", "error": ...} and the others still run."""
    try:
        if not isolate:
            threads = torch.get_num_threads()
            try:
                return _compare_paths(experiment, paper, settings)
            finally:
                torch.set_num_threads(threads)
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
            return pool.submit(_compare_paths, experiment, paper, settings).result()
    except Exception as error:
        traceback.print_exc()
        return {"status": "failed", "error": f"{type(error).__name__}: {error}"}


def checks(record: dict) -> dict:
    """Identical orders everywhere; the speed-up at the widest beam against the target;
    whether search time grew no faster than n^2 and K: the fitted log-log exponent over
    the points after the first at most 2 (length) and 1 (beam), plus the tolerance
    (`bench_decoding.EXPONENT_TOLERANCE`)."""
    settings, results = record["settings"], record["presets"]
    widest = str(max(settings["beams"]))
    compared = {name: res["reference"] for name, res in results.items() if "reference" in res}
    mismatches = 0
    for reference in compared.values():
        mismatches += sum(figures["mismatches"] for figures in reference["by_beam"].values())
        mismatches += sum(reference["test_sample"]["mismatches"].values())
    speedups = {name: ref["by_beam"][widest]["speedup"] for name, ref in compared.items()}
    paper = {name: res for name, res in record.get("paper", {}).items() if res["status"] == "ok"}
    return {
        "mismatches": mismatches,
        "paper_speedups": {name: res["speedup_wall"] for name, res in paper.items()},
        "paper_equal_outputs": {
            name: res["max_loss_relative_difference"] <= LOSS_TOLERANCE
            for name, res in paper.items()
        },
        "speedup_target": SPEEDUP_TARGET,
        f"speedup_beam{widest}_n{settings['length']}": speedups,
        "speedup_met": {name: speedup >= SPEEDUP_TARGET for name, speedup in speedups.items()},
        "scaling_within_bounds": {
            name: {axis: result["scaling"][axis]["within_bound"] for axis in ("length", "beam")}
            for name, result in results.items()
            if "scaling" in result
        },
        "scaling_exponents": {
            name: {axis: result["scaling"][axis]["exponent"] for axis in ("length", "beam")}
            for name, result in results.items()
            if "scaling" in result
        },
    }


def report(record: dict) -> str:
    """The tables and the checks, for the terminal."""
    machine, settings = record["machine"], record["settings"]
    lines = [
        f"{machine['cpu']}, {machine['cores']} cores, torch {machine['torch']}, "
        f"device {machine['device']}, precision {settings['precision']}; load average "
        f"{machine['load_average_before']} before, {machine['load_average_after']} after",
        "",
        "Training (real data path) and decoding (test sample) throughput:",
        throughput_table(record),
        "",
        f"Search time per document, synthetic paragraphs ({settings['docs']} per batch), "
        f"by length at beam {max(settings['beams'])} and by beam at n = {settings['length']}; "
        "in brackets the local growth exponent log(t2/t1)/log(x2/x1) from the previous "
        "point; the exponent column is the least-squares log-log slope over the points "
        "after the first, checked against 2 (n) and 1 (K) plus the tolerance:",
        scaling_table(record),
        "",
        f"Batched search vs the one-document reference (n = {settings['length']}):",
        reference_table(record),
    ]
    lines += [
        f"{result['status']} {name}: {result.get('reason') or result.get('error')}"
        for name, result in record["presets"].items()
        if result["status"] != "ok"
    ]
    if "paper" in record:
        paper = record["settings"]["paper"]
        lines += [
            "",
            f"Training at the published sizes on NIPS-like documents, {paper['threads']} "
            f"thread(s), {paper['steps']} batches per path: reference compute paths against "
            "the fast ones in one process, alternating; speed-ups are medians over "
            f"{paper['repeats']} repeats (docs/s from the median wall time):",
            paper_table(record["paper"]),
        ]
    if "topological_sort" in record:
        lines += [
            "",
            "Pairwise decoders against n, ms per document (benchmark.bench.tsort):",
            tsort_table(record["topological_sort"]),
        ]
    lines.append("checks: " + json.dumps(record["checks"]))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    return BENCH.run(argv, lambda parsed: _bench(*parsed), parse_args)


def _bench(presets, settings, out, isolate, paper) -> int:
    """Time `presets` (and the paper experiments of `paper`), write the record to `out`; with
    `encoder_shape`, with an encoder of that shape built for the run."""
    with shaped_settings(settings) as shaped:
        return _bench_with(presets, shaped, out, isolate, paper)


def _bench_with(presets, settings, out, isolate, paper) -> int:
    if settings.threads:
        torch.set_num_threads(settings.threads)
    device = torch.device(settings.device)
    record = {
        "machine": {**machine_info(device), "load_average_before": load_average()},
        "settings": {**asdict(settings), "presets": presets, "isolate": isolate, "paper": paper},
        "presets": {},
    }
    started = time.perf_counter()
    for preset in presets:
        print(f"bench: {preset} ...", file=sys.stderr, flush=True)
        record["presets"][preset] = run_preset(preset, settings, isolate)
        record["machine"]["load_average_after"] = load_average()
        record["seconds"] = round(time.perf_counter() - started, 1)
        record["complete"] = len(record["presets"]) == len(presets)
        record["checks"] = checks(record)
        atomic_write_text(out, json.dumps(record, indent=2) + "\n")  # kept if a later one dies
    for experiment in paper["experiments"] if paper else []:
        print(f"bench: {experiment} (reference vs fast paths) ...", file=sys.stderr, flush=True)
        record.setdefault("paper", {})[experiment] = run_paper(experiment, paper, settings, isolate)
        record["machine"]["load_average_after"] = load_average()
        record["checks"] = checks(record)
        atomic_write_text(out, json.dumps(record, indent=2) + "\n")
    if any(not get_preset(preset).pointer for preset in presets if preset in preset_names()):
        record["topological_sort"] = tsort_timings(repeats=settings.repeats)  # pairwise decoders
        atomic_write_text(out, json.dumps(record, indent=2) + "\n")
    print(report(record))
    print(f"written: {out}", file=sys.stderr)
    return _status(record)


def _status(record: dict) -> int:
    """1 (with the reasons on stderr) if orders differed or a preset failed, else 0."""
    problems = [
        f"{name} failed ({result['error']})"
        for name, result in [*record["presets"].items(), *record.get("paper", {}).items()]
        if result["status"] == "failed"
    ]
    problems += [
        f"{name}: the fast and reference paths' losses differ by more than {LOSS_TOLERANCE}"
        for name, equal in record["checks"].get("paper_equal_outputs", {}).items()
        if not equal
    ]
    if record["checks"]["mismatches"]:
        problems.insert(
            0,
            f"{record['checks']['mismatches']} documents decoded differently by the batched "
            "and the reference search (see the tables)",
        )
    for problem in problems:
        print(f"{BENCH.prog}: error: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
