"""Fabricated run directories for the leaderboard and plot tests.

`write_untrained_run` makes a finished run of a config as `benchmark.train` leaves it, with
its model untrained (no training: a second), for the tools that load a run's model.

`write_run` makes a finished run as `benchmark.train` leaves it (`metrics.json` and
`predictions.jsonl`, `.hydra/`), with predictions of a chosen quality on a fixed set of
test documents. Its figures, intervals and breakdowns come from the suite's own scoring
code, so the records have the real schema, sealed as a run seals them
(`benchmark.records.seal`; `sealed=False`: a record written before seals). A test that
changes a record as a run would have written it goes through `edit_record`, which seals
it again; one that changes it by hand (a tampered record) writes the file itself.
"""

from __future__ import annotations

import hashlib
import json
import random
import zlib
from collections.abc import Callable
from pathlib import Path

from benchmark.metrics.breakdowns import breakdowns
from benchmark.metrics.corpus import corpus_metrics
from benchmark.records.predictions_jsonl import write_predictions
from benchmark.records.run_record import RECORD_NAME, write_run_record
from benchmark.records.seal import SEAL_KEY, seal
from benchmark.stats.bootstrap import bootstrap_summary

GENRES = ("news", "fiction", "learned")
N_DOCS = 60


def documents(n_docs: int = N_DOCS, prefix: str = "doc") -> list[dict]:
    """Test documents: ids (`<prefix>-000` ...), gold orders of 2 to 14 sentences, a
    Brown-like genre."""
    return [
        {"id": f"{prefix}-{i:03d}", "gold": list(range(2 + i % 13)),
         "meta": {"genre": GENRES[i % 3]}}
        for i in range(n_docs)
    ]  # fmt: skip


def predict(docs: list[dict], quality: float, seed: int) -> list[dict]:
    """Prediction records: each document's gold order with random transpositions; fewer
    transpositions for higher `quality` (1.0 = perfect)."""
    rng = random.Random(seed)
    records = []
    for doc in docs:
        pred = list(doc["gold"])
        for _ in range(round((1 - quality) * len(pred))):
            i, j = rng.randrange(len(pred)), rng.randrange(len(pred))
            pred[i], pred[j] = pred[j], pred[i]
        records.append({**doc, "pred": pred})
    return records


def add_distractor(records: list[dict], kept_up_to: int) -> list[dict]:
    """The noise setting (`dataset.noise=1`): one distractor (-1) per document, kept by the
    prediction in documents of at most `kept_up_to` gold sentences (which then have no
    order figures) and left out in the others."""
    return [
        {**r, "noise": [-1], "pred": r["pred"] + ([-1] if len(r["gold"]) <= kept_up_to else [])}
        for r in records
    ]


def write_run(
    runs: Path,
    preset: str,
    seed: int,
    quality: float,
    dataset: str = "brown",
    variant: str = "base",
    net: dict | None = None,
    n_docs: int = N_DOCS,
    noise_kept_up_to: int | None = None,
    doc_prefix: str = "doc",
    sealed: bool = True,
) -> Path:
    """A finished run under `runs/<dataset>/<preset>/<variant>/seed_<seed>/`, tested on
    `n_docs` documents named `<doc_prefix>-000` ...; with `noise_kept_up_to`, a noise run
    (`add_distractor`); `sealed=False`: its record written before seals."""
    run_dir = runs / dataset / preset / variant / f"seed_{seed}"
    (run_dir / ".hydra").mkdir(parents=True)
    stream = zlib.crc32(f"{preset}/{variant}/{seed}".encode())
    records = predict(documents(n_docs, doc_prefix), quality, seed=stream)
    if noise_kept_up_to is not None:
        records = add_distractor(records, noise_kept_up_to)
    write_predictions(run_dir / "predictions.jsonl", records)
    test = corpus_metrics((r["gold"], r["pred"], r.get("noise")) for r in records)
    config = {"model": {"name": preset, "net": net or {}}, "dataset": {"name": dataset},
              "seed": seed, "variant": variant}
    (run_dir / ".hydra" / "config.yaml").write_text(json.dumps(config))
    write_record(run_dir, {
        "model": preset, "dataset": dataset, "variant": variant, "seed": seed,
        "split": {"test": test, "valid": test},
        "ci": {"test": bootstrap_summary(records, n_resamples=200)},
        "breakdowns": {"test": breakdowns(records)},
        "n_params": 1000 + 10 * len(preset), "train_seconds": 90.0 + seed,
        "n_docs": test["n_docs"], "n_trivial": test["n_trivial"],
        "config": config, "git_commit": "0" * 40,
    }, sealed)
    return run_dir


def write_record(run_dir: Path, record: dict, sealed: bool = True) -> Path:
    """The run's `metrics.json`, sealed over its files and parts as a run seals it
    (`sealed=False`: as written before seals)."""
    return write_run_record(run_dir, seal(record, run_dir) if sealed else record)


def edit_record(run_dir: Path, update: Callable[[dict], object]) -> dict:
    """Change a run's record as a run would have written it: `update(record)` changes it in
    place, then it is written, sealed again when it was sealed. Returns the record."""
    record = json.loads((run_dir / RECORD_NAME).read_text())
    sealed = SEAL_KEY in record
    record.pop(SEAL_KEY, None)
    update(record)
    write_record(run_dir, record, sealed)
    return record


def write_untrained_run(runs: Path, *overrides: str, sealed: bool = False) -> Path:
    """A finished run of `overrides` in the folder a launch of them works in, as
    `benchmark.train` leaves it but with its model untrained: `.hydra/config.yaml`,
    `vocab.json`, `checkpoints/best.ckpt` and a record of its resolved config and its data's
    identity, without figures; `sealed`: sealed as a run seals it."""
    import torch
    from fixtures_sweep import run_dir_for
    from omegaconf import OmegaConf

    from benchmark.config.compose import compose_config
    from benchmark.run.model_builder import build_net
    from benchmark.run.stages import build_datamodule

    args = ("logger=csv", *overrides)
    cfg = compose_config([*args, f"paths.runs={runs}"])
    run_dir = run_dir_for(runs, *args)
    (run_dir / ".hydra").mkdir(parents=True)
    (run_dir / ".hydra" / "config.yaml").write_text(OmegaConf.to_yaml(cfg))
    data = build_datamodule(compose_config([*overrides,
                                            f"+dataset.datamodule.cache_dir={runs}.cache"]))
    data.setup()
    (run_dir / "vocab.json").write_text(data.vocab.to_json())
    net = build_net(cfg, len(data.vocab), None)
    (run_dir / "checkpoints").mkdir()
    torch.save({"state_dict": {f"net.{k}": v for k, v in net.state_dict().items()},
                "epoch": 0, "global_step": 1}, run_dir / "checkpoints" / "best.ckpt")
    config = OmegaConf.to_container(cfg)
    config.pop("logger")  # an interpolation of Hydra's runtime
    config = OmegaConf.to_container(OmegaConf.create(config), resolve=True)  # as runs store it
    identity = {"data": {"name": cfg.dataset.name,
                         "documents_sha256": data.identity()["documents_sha256"]}}
    write_record(run_dir, {"config": config, "split": {"test": {}}, "identity": identity},
                 sealed)
    return run_dir


def tree_digest(folder: Path) -> dict[str, str]:
    """Every file under `folder` (relative path -> sha256 of its bytes)."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
