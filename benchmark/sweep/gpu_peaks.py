"""The peak GPU memory of each preset, as measured on a GPU: what `runs_per_gpu: auto`
(`benchmark.sweep.gpu_sharing`) divides a GPU's memory by.

The figures come from the committed records of `make gpu-check` on a GPU
(`results/bench/gpu-check-cuda*.json`): the training and decoding peaks of each bench step
(`torch.cuda.max_memory_allocated`), and each run of its NIPS table (`gpu_peak_mib`). A
preset is keyed by its model name (`model=`); several figures of one preset (float32 and
bf16, another encoder's shape) count by the largest, so a sweep never packs more runs than
the most demanding measured configuration of it allows.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmark.config.config_folders import SOURCE_ROOT

RECORDS = "results/bench/gpu-check-cuda*.json"
# steps of records made before each step named its preset
LEGACY_STEPS = {"bench_32": "attordernet", "bench_bf16": "attordernet",
                "graphs_bench": "attordernet", "paragraph_minilm": "paragraph_listmle",
                "paragraph_bert": "paragraph_listmle"}  # fmt: skip
PEAK_KEYS = ("train_peak_memory_mib", "decode_peak_memory_mib", "gpu_peak_mib")


def measured_peaks(root: Path = SOURCE_ROOT) -> dict[str, dict]:
    """{model: {"mib": the largest peak measured, "source": its record and step}}."""
    peaks: dict[str, dict] = {}
    for path in sorted(root.glob(RECORDS)):
        try:
            steps = json.loads(path.read_text()).get("steps", {})
        except (OSError, ValueError):
            continue
        for name, step in steps.items():
            entries = [step, *step.get("runs", [])]
            for entry in entries:
                model = entry.get("preset") or entry.get("model") or LEGACY_STEPS.get(name)
                figures = [entry[key] for key in PEAK_KEYS
                           if isinstance(entry.get(key), int | float)]  # fmt: skip
                if model is None or not figures:
                    continue
                known = peaks.get(model)
                if known is None or max(figures) > known["mib"]:
                    source = f"{path.relative_to(root)} ({name})"
                    peaks[model] = {"mib": max(figures), "source": source}
    return peaks
