"""Order discrimination (`benchmark.metrics.discrimination`) and `python -m benchmark.evaluate`."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
import torch
from fixtures_runs import edit_record
from fixtures_sweep import run_dir_of
from fixtures_train import train
from omegaconf import OmegaConf

from benchmark.config.compose import compose_config
from benchmark.evaluate import main
from benchmark.evaluation import discrimination
from benchmark.evaluation.discrimination import score_batch, select_rows
from benchmark.metrics.discrimination import FIGURES, PermutationSampler
from benchmark.records.run_record import write_run_record
from benchmark.stats.discrimination_summary import add_to_record, summarise_discrimination
from models import presets
from tests.model_batches import random_batch

SIZES = [2, 1, 3, 4, 5, 8]  # n! - 1 = 1, -, 5, 23, 119, 40319
TINY = (  # a seconds-long run that still learns the synthetic order well
    "model=lstm_ptrnet", "+experiment=tiny", "logger=csv", "trainer.max_epochs=4",
    "+dataset.reader.n_train=128", "+dataset.reader.n_valid=16", "+dataset.reader.n_test=16",
    "bootstrap_resamples=10",
)


class GoldPreferring(torch.nn.Module):
    """log P(order) = -(positions where the order differs from gold): the gold order is
    the only maximum. Records every (batch, orders) it scores."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def log_prob(self, batch: dict, orders: torch.Tensor) -> torch.Tensor:
        self.calls.append((batch, orders))
        return -(orders != batch["gold_order"]).sum(dim=1).float()


# -- permutations --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8])
def test_permutations_are_distinct_non_identity_and_deterministic(n: int):
    sampler = PermutationSampler("synthetic", "test", 0)
    perms = sampler("doc-1", n)
    assert len(perms) == min(math.factorial(n) - 1, 20)
    assert len({tuple(p) for p in perms}) == len(perms)
    assert all(sorted(p) == list(range(n)) and p != list(range(n)) for p in perms)
    assert sampler("doc-1", n) == perms


def test_all_permutations_when_there_are_few():
    sampler = PermutationSampler("synthetic", "test", 0)
    assert sampler("a", 2) == [[1, 0]]
    assert len(sampler("a", 3)) == 5 and sampler("a", 3) == sampler("b", 3)
    few = PermutationSampler("synthetic", "test", 0, max_permutations=23)
    assert len(few("a", 4)) == 23  # n! - 1 = 23 <= 23: every one of them
    assert len(PermutationSampler("synthetic", "test", 0, 5)("a", 4)) == 5


def test_permutations_depend_on_dataset_split_document_and_seed():
    base = PermutationSampler("synthetic", "test", 0)("doc-1", 6)
    assert PermutationSampler("synthetic", "test", 0)("doc-2", 6) != base
    assert PermutationSampler("synthetic", "valid", 0)("doc-1", 6) != base
    assert PermutationSampler("brown", "test", 0)("doc-1", 6) != base
    assert PermutationSampler("synthetic", "test", 1)("doc-1", 6) != base
    with pytest.raises(ValueError, match="max_permutations"):
        PermutationSampler("synthetic", "test", 0, max_permutations=0)


# -- aggregation ---------------------------------------------------------------------------


def test_aggregation_counts_strict_wins_and_pools_pairs():
    records = [
        {"id": "b", "n_pairs": 20, "wins": 10, "ties": 5},
        {"id": "a", "n_pairs": 1, "wins": 1, "ties": 0},
        {"id": "c", "n_pairs": 5, "wins": 0, "ties": 5},
    ]
    figures, intervals = summarise_discrimination(records, n_resamples=200)
    assert figures == {
        "disc_acc": 11 / 26, "disc_ties": 10, "disc_ties_frac": 10 / 26,
        "disc_n_pairs": 26, "disc_n_docs": 3,
    }
    for key in ("disc_acc", "disc_ties_frac"):
        ci = intervals[key]
        assert ci["mean"] == figures[key] and ci["ci_low"] <= ci["mean"] <= ci["ci_high"]
    assert summarise_discrimination(records[::-1], n_resamples=200) == (figures, intervals)


def test_aggregation_of_nothing_is_nan():
    figures, intervals = summarise_discrimination([])
    assert math.isnan(figures["disc_acc"]) and figures["disc_n_pairs"] == 0
    assert math.isnan(intervals["disc_acc"]["ci_low"])


def test_add_to_record_keeps_the_rest_of_the_record():
    record = {"split": {"test": {"tau": 0.5}}, "ci": {"test": {"tau": {}}}, "protocol": {"a": 1}}
    result = add_to_record(record, "test", [{"id": "a", "n_pairs": 2, "wins": 1, "ties": 1}],
                           n_resamples=10, seed=0)
    assert record["split"]["test"]["tau"] == 0.5 and record["split"]["test"]["disc_acc"] == 0.5
    assert set(record["ci"]["test"]) == {"tau", "disc_acc", "disc_ties_frac"}
    assert record["protocol"]["a"] == 1 and record["protocol"]["discrimination"]
    assert result["disc_ties"] == 1 and "ci" in result


# -- scoring -------------------------------------------------------------------------------


def test_gold_preferring_model_scores_the_sampled_orders_on_the_presented_input(monkeypatch):
    monkeypatch.setattr(discrimination, "TOKENS_PER_PASS", 100)  # many small passes
    batch, model = random_batch(0, SIZES), GoldPreferring()
    sampler = PermutationSampler("synthetic", "test", 0)
    records = score_batch(model, batch, sampler)
    assert [r["id"] for r in records] == [batch["doc_ids"][b] for b in (0, 2, 3, 4, 5)]
    assert [r["n_pairs"] for r in records] == [1, 5, 20, 20, 20]
    assert all(r["wins"] == r["n_pairs"] and r["ties"] == 0 for r in records)
    assert len(model.calls) > 1
    scored = {}  # doc id -> scored orders in gold sentence ids
    for expanded, orders in model.calls:
        for b, doc_id in enumerate(expanded["doc_ids"]):
            row = batch["doc_ids"].index(doc_id)
            # the same presented input as in the batch; only the scored order differs
            assert torch.equal(expanded["tokens"][b], batch["tokens"][row])
            ids = batch["sentence_ids"][row]
            scored.setdefault(doc_id, []).append([ids[j] for j in orders[b] if j >= 0])
    for doc_id, n in zip(batch["doc_ids"], SIZES, strict=True):
        if n == 1:
            assert doc_id not in scored  # no permutation, nothing scored
        else:  # the original first, then the sampled permutations
            assert scored[doc_id] == [list(range(n)), *sampler(doc_id, n)]


def test_random_baseline_ties_every_pair():
    batch = random_batch(1, SIZES)
    records = score_batch(presets.random(), batch, PermutationSampler("synthetic", "test", 0))
    figures, _ = summarise_discrimination(records, n_resamples=10)
    assert figures["disc_acc"] == 0.0 and figures["disc_ties_frac"] == 1.0
    assert figures["disc_ties"] == figures["disc_n_pairs"] == 1 + 5 + 20 + 20 + 20


def test_select_rows_repeats_documents():
    batch = random_batch(2, [3, 2])
    picked = select_rows(batch, torch.tensor([1, 1, 0]))
    assert picked["doc_ids"] == [batch["doc_ids"][i] for i in (1, 1, 0)]
    assert torch.equal(picked["n_sentences"], torch.tensor([2, 2, 3]))


def test_documents_with_distractors_are_refused():
    batch = random_batch(3, [3, 3])
    batch["gold_order"][1, 2] = -1  # a presented sentence that takes no gold position
    with pytest.raises(ValueError, match="distractors"):
        score_batch(GoldPreferring(), batch, PermutationSampler("synthetic", "test", 0))


# -- the command line ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    train(runs, *TINY)
    return run_dir_of(runs, "synthetic/lstm_ptrnet/base")


@pytest.mark.slow
def test_training_and_the_cli_report_the_same_discrimination(run_dir: Path, capsys):
    path = run_dir / "metrics.json"
    trained = json.loads(path.read_text())
    assert trained["split"]["test"]["disc_acc"] > 0.9
    assert trained["split"]["test"]["disc_n_docs"] == trained["n_docs"]
    edit_record(run_dir, lambda record: [record["split"]["test"].pop(key) for key in FIGURES])

    assert main([f"run={run_dir}", "task=discrimination"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["disc_acc"] > 0.9 and printed["ci"]["disc_acc"]["mean"] == printed["disc_acc"]
    assert json.loads(path.read_text()) == trained  # merged back, nothing else changed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["task=discrimination"], "missing run"),
        (["run=RUN", "task=noise"], "task must be"),
        (["run=RUN", "task=discrimination", "split=train"], "split must be"),
        (["run=RUN", "task=discrimination", "max_permutations=0"], "max_permutations"),
        (["run=RUN/nowhere", "task=discrimination"], "no such run directory"),
    ],
)
def test_bad_arguments_exit_2(args: list[str], message: str, tmp_path: Path, capsys):
    args = [arg.replace("RUN", str(tmp_path)) for arg in args]
    assert main(args) == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("missing", "message"),
    [("checkpoints/best.ckpt", "no checkpoint"), ("metrics.json", "has not finished")],
)
def test_missing_checkpoint_or_record_exits_2_and_leaves_the_record(
    run_dir: Path, tmp_path: Path, missing: str, message: str, capsys
):
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns("wandb", "csv"))
    (copy / missing).unlink()
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    assert main([f"run={copy}", "task=discrimination"]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1
    assert {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()} == before


def test_cli_on_the_random_baseline_needs_no_checkpoint(tmp_path: Path, capsys):
    cfg = compose_config([
        "dataset=synthetic", "model=random", "+dataset.reader.n_train=8",
        "+dataset.reader.n_valid=4", "+dataset.reader.n_test=6", "bootstrap_resamples=10",
        f"+dataset.datamodule.cache_dir={tmp_path / 'cache'}",
    ])
    run = tmp_path / "random"
    (run / ".hydra").mkdir(parents=True)
    OmegaConf.save(cfg, run / ".hydra" / "config.yaml")
    write_run_record(run, {"split": {"test": {"tau": 0.0}}})
    assert main([f"run={run}", "task=discrimination", "max_permutations=3"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["disc_acc"] == 0.0 and printed["disc_ties_frac"] == 1.0
    assert printed["disc_ties"] == printed["disc_n_pairs"] == 6 * 3
    record = json.loads((run / "metrics.json").read_text())
    assert record["split"]["test"]["tau"] == 0.0 and record["split"]["test"]["disc_acc"] == 0.0
    assert record["protocol"]["discrimination"]["max_permutations"] == 3
