"""Runs for the results site's tests (`orderbench site`): fabricated runs
(`fixtures_runs.write_run`) on a small JSONL corpus whose sentences the site can read, under
two protocols, with a row of another budget and a record tampered with after its run.

- protocol seed 0, budget of 3 epochs: `attordernet`, `lstm_ptrnet`, `cnn_ptrnet` (3 seeds);
  `attordernet/long` (3 seeds) of 5 epochs;
- protocol seed 1, 5 epochs: `lstm_ptrnet/ps1`, `han/ps1` (2 seeds);
- `han/tampered`: its test tau edited by hand after the run sealed it (`TAMPERED_TAU`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from fixtures_runs import documents, edit_record, write_run

from benchmark.records.run_record import RECORD_NAME
from data.processing import documents_sha256
from data.readers import materialise, split_documents
from data.readers.jsonl import JsonlReader

DATASET = "toy"
TAMPERED_TAU = 0.987654
JSONL_READER = "data.readers.jsonl.JsonlReader"


def sentence(doc_id: str, k: int) -> str:
    """The text of sentence `k` (its gold position) of document `doc_id`."""
    return f"In {doc_id}, this is sentence number {k}."


def write_corpus(folder: Path, n_docs: int) -> str:
    """A JSONL corpus (docs/design.md, section 3) whose test split holds the documents of
    `fixtures_runs.documents(n_docs)`; returns its documents' sha256."""
    folder.mkdir(parents=True, exist_ok=True)
    splits = {"train": [f"train-{i}" for i in range(3)], "valid": ["valid-0"],
              "test": [doc["id"] for doc in documents(n_docs)]}  # fmt: skip
    sizes = {doc["id"]: len(doc["gold"]) for doc in documents(n_docs)}
    for split, ids in splits.items():
        lines = [json.dumps({"id": doc_id, "sentences": [sentence(doc_id, k)
                                                           for k in range(sizes.get(doc_id, 3))]})
                 for doc_id in ids]  # fmt: skip
        (folder / f"{split}.jsonl").write_text("\n".join(lines) + "\n")
    return documents_sha256(materialise(split_documents(JsonlReader(str(folder)))))


def config_id(variant: str, protocol_seed: int, max_epochs: int) -> str:
    """A fabricated run's config id: 8 hex digits of what sets its config apart."""
    return hashlib.sha256(f"{variant}/{protocol_seed}/{max_epochs}".encode()).hexdigest()[:8]


def on_corpus(run_dir: Path, corpus: Path, digest: str, protocol_seed: int = 0,
              max_epochs: int = 3) -> Path:
    """Make a fabricated run one of `corpus` (its reader in the config, the digest of its
    documents in `identity`), with its protocol seed, budget and a config id; sealed again."""
    def update(record: dict) -> None:
        record["config"]["dataset"]["reader"] = {"_target_": JSONL_READER, "path": str(corpus)}
        record["identity"] = {
            "config_id": config_id(record["variant"], protocol_seed, max_epochs),
            "data": {"name": record["dataset"], "documents_sha256": digest},
            "protocol": {"protocol_seed": protocol_seed, "noise": "0", "include_trivial": False},
            "budget": {"max_epochs": max_epochs, "max_steps": -1, "patience": 2,
                       "monitor": "val/tau", "max_time": None},
        }  # fmt: skip

    edit_record(run_dir, update)
    return run_dir


def write_site_runs(root: Path, n_docs: int = 60) -> Path:
    """The runs of the module docstring under `root/runs` (the corpus in `root/corpus`)."""
    runs, corpus = root / "runs", root / "corpus"
    digest = write_corpus(corpus, n_docs)
    for seed in range(3):
        for preset, quality, variant, epochs in (("attordernet", 0.85, "base", 3),
                                                 ("lstm_ptrnet", 0.8, "base", 3),
                                                 ("cnn_ptrnet", 0.3, "base", 3),
                                                 ("attordernet", 0.86, "long", 5)):
            on_corpus(write_run(runs, preset, seed, quality, dataset=DATASET, variant=variant,
                                n_docs=n_docs), corpus, digest, 0, epochs)
    for seed in range(2):
        for preset, quality in (("lstm_ptrnet", 0.7), ("han", 0.5)):
            on_corpus(write_run(runs, preset, seed, quality, dataset=DATASET, variant="ps1",
                                n_docs=n_docs), corpus, digest, 1, 5)
    tampered = on_corpus(write_run(runs, "han", 0, 0.6, dataset=DATASET, variant="tampered",
                                   n_docs=n_docs), corpus, digest)
    record = json.loads((tampered / RECORD_NAME).read_text())
    record["split"]["test"]["tau"] = TAMPERED_TAU  # by hand, after the run: not sealed again
    (tampered / RECORD_NAME).write_text(json.dumps(record, indent=2))
    return runs
