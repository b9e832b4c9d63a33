"""One measurement of training throughput through the DataModule's own loader, in the code
of a given tree: `measure([TREE, CONFIG_OVERRIDE, ...])`, run by `benchmark.bench.scale` in a
process of its own from this file's path (`PROBE_COMMAND`), so that it imports the tree's
packages, not this one's.

`benchmark.bench.scale` runs it alternately on this tree and on a reference tree (an
earlier commit checked out elsewhere, `git worktree add /tmp/before <commit>`), so two data
paths are timed in one run, on the same machine, under the same load. It imports, from the
tree given, only what every version of the suite since the paper-size presets has
(`compose_config`, `build_datamodule`, `build_task`, `training_throughput`), and prints one
JSON line: the figures of `benchmark.bench.training.training_throughput` after `WARMUP`
steps of `STEPS` (the environment variables `PROBE_STEPS` and `PROBE_WARMUP`), and the
process's CPU seconds over all of them (the same batches in every tree: on a shared machine
the steadier figure).
"""

from __future__ import annotations

import json
import os
import sys
import time


def measure(argv: list[str]) -> int:
    tree, overrides = os.path.abspath(argv[0]), argv[1:]
    sys.path.insert(0, tree)  # the tree's packages before any other copy
    os.chdir(tree)
    import pytorch_lightning as pl
    import torch

    from benchmark.bench.training import training_throughput
    from benchmark.config.compose import compose_config
    from benchmark.run.stages import build_datamodule, build_task

    torch.set_num_threads(1)
    cfg = compose_config(overrides)
    pl.seed_everything(cfg.seed, verbose=False)
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    task = build_task(cfg, datamodule)
    cpu = time.process_time()
    figures = training_throughput(
        task, datamodule, torch.device("cpu"), "32", int(os.environ.get("PROBE_STEPS", 30)),
        int(os.environ.get("PROBE_WARMUP", 3)), cfg.trainer.get("gradient_clip_val"),
    )  # fmt: skip
    cpu_seconds = time.process_time() - cpu  # warm-up included: the same batches in any tree
    print(json.dumps({"tree": tree, **figures, "cpu_seconds": round(cpu_seconds, 2)}))
    return 0


# `python -c PROBE_COMMAND <this file> TREE OVERRIDE ...`: this file's `measure` in a fresh
# process, whose sys.path holds no folder of this file (its profile.py is not the standard
# library's) before the tree's
PROBE_COMMAND = "import runpy, sys; sys.exit(runpy.run_path(sys.argv[1])['measure'](sys.argv[2:]))"
