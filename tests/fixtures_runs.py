"""Fabricated run directories for the leaderboard and plot tests.

`write_run` makes a finished run as `benchmark.train` leaves it (`metrics.json` and
`predictions.jsonl`, `.hydra/`), with predictions of a chosen quality on a fixed set of
test documents. Its figures, intervals and breakdowns come from the suite's own scoring
code, so the records have the real schema.
"""

from __future__ import annotations

import json
import random
import zlib
from pathlib import Path

from benchmark.metrics.breakdowns import breakdowns
from benchmark.metrics.corpus import corpus_metrics
from benchmark.records.predictions import write_predictions
from benchmark.records.run_record import write_run_record
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
) -> Path:
    """A finished run under `runs/<dataset>/<preset>/<variant>/seed_<seed>/`, tested on
    `n_docs` documents named `<doc_prefix>-000` ...; with `noise_kept_up_to`, a noise run
    (`add_distractor`)."""
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
    write_run_record(run_dir, {
        "model": preset, "dataset": dataset, "variant": variant, "seed": seed,
        "split": {"test": test, "valid": test},
        "ci": {"test": bootstrap_summary(records, n_resamples=200)},
        "breakdowns": {"test": breakdowns(records)},
        "n_params": 1000 + 10 * len(preset), "train_seconds": 90.0 + seed,
        "n_docs": test["n_docs"], "n_trivial": test["n_trivial"],
        "config": config, "git_commit": "0" * 40,
    })
    return run_dir
