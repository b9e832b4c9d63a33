"""Order discrimination against a dataset's published permutations
(`discrimination.permutations=published`, `benchmark.evaluation.published_permutations`)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from omegaconf import OmegaConf

from benchmark.evaluation import discrimination
from benchmark.evaluation.discrimination import score_batch, select_rows
from benchmark.evaluation.published_permutations import published_permutations
from benchmark.metrics.discrimination import PermutationSampler, PublishedPermutations
from benchmark.stats.discrimination_summary import add_to_record, summarise_discrimination
from tests.fixtures_readers import (
    published_article,
    published_copy_order,
    write_barzilay_published,
)
from tests.model_batches import PRESETS, make_batch, random_batch, tiny_preset

N_TEST, COPIES = 4, 3


class PrefersCopy(torch.nn.Module):
    """log P(order) = 1 for the presented order equal to `favourite` (gold ids), else
    -(positions differing from gold): gold wins every pair but against `favourite`."""

    def __init__(self, favourite: dict[str, list[int]]):
        super().__init__()
        self.favourite = favourite
        self.scored: dict[str, list[list[int]]] = {}

    def log_prob(self, batch: dict, orders: torch.Tensor) -> torch.Tensor:
        out = []
        for b, doc_id in enumerate(batch["doc_ids"]):
            ids = [batch["sentence_ids"][b][j] for j in orders[b].tolist() if j >= 0]
            self.scored.setdefault(doc_id, []).append(ids)
            differing = sum(k != i for k, i in enumerate(ids))
            out.append(1.0 if ids == self.favourite.get(doc_id) else -float(differing))
        return torch.tensor(out)


def config(root: Path, permutations: str, perm_path: Path | None) -> OmegaConf:
    return OmegaConf.create({
        "discrimination": {"permutations": permutations},
        "dataset": {
            "name": "accident",
            "perm_path": None if perm_path is None else str(perm_path),
            "reader": {
                "_target_": "data.readers.barzilay_lapata.BarzilayLapataReader",
                "path": str(root / "accident"), "corpus": "accident", "n_folds": 2,
            },
        },
    })  # fmt: skip


@pytest.fixture
def published(tmp_path: Path) -> tuple[Path, Path]:
    """Gold articles in accident/{train,test}; their test copies alone in perms/test."""
    write_barzilay_published(tmp_path / "accident", {"train": 4, "test": N_TEST})
    write_barzilay_published(tmp_path / "perms", {"test": N_TEST}, copies=COPIES, gold=False)
    return tmp_path, tmp_path / "perms" / "test"


def test_published_permutations_are_read_as_gold_orders(published):
    root, folder = published
    source = published_permutations(config(root, "published", folder))
    assert source.describe()["n_pairs"] == N_TEST * COPIES
    name = "ntsb2601.txt-1-5-5-0-out.perm-1"
    n = len(published_article("test", 1))
    assert source(name, n) == [published_copy_order(n, c) for c in range(2, COPIES + 2)]
    assert published_permutations(config(root, "own", None)) is None


def test_gold_is_scored_against_exactly_the_published_copies(published):
    root, folder = published
    source = published_permutations(config(root, "published", folder))
    names = [f"ntsb{2600 + i}.txt-1-5-5-0-out.perm-1" for i in range(N_TEST)]
    sizes = [len(published_article("test", i)) for i in range(N_TEST)]
    docs = [[[i + 1, k + 1] for k in range(n)] for i, n in enumerate(sizes)]
    presented = [list(reversed(range(len(doc)))) for doc in docs]  # a fixed presented shuffle
    batch = make_batch(docs, presented, names)
    n3 = len(docs[3])
    model = PrefersCopy({names[3]: published_copy_order(n3, 2)})  # beats gold once
    records = score_batch(model, batch, source)
    for name, doc in zip(names, docs, strict=True):
        copies = [published_copy_order(len(doc), c) for c in range(2, COPIES + 2)]
        assert model.scored[name] == [list(range(len(doc))), *copies]
    assert [r["n_pairs"] for r in records] == [COPIES] * N_TEST
    figures, _ = summarise_discrimination(records, n_resamples=10)
    assert figures["disc_n_pairs"] == N_TEST * COPIES
    distinct = sum(  # copies that differ from gold (a rotation may give the gold order)
        published_copy_order(len(doc), c) != list(range(len(doc)))
        for doc in docs for c in range(2, COPIES + 2)
    )  # fmt: skip
    assert distinct < N_TEST * COPIES  # the fixture holds a copy equal to gold: a tie
    assert figures["disc_acc"] == pytest.approx((distinct - 1) / (N_TEST * COPIES))
    assert figures["disc_ties"] == N_TEST * COPIES - distinct
    record = {}
    add_to_record(record, "test", records, 10, 0, published=source)
    permutations = record["protocol"]["discrimination"]["permutations"]
    assert permutations["source"] == "published" and permutations["path"] == str(folder)
    add_to_record(record, "test", records, 10, 0)
    assert record["protocol"]["discrimination"]["permutations"]["source"] == "own"


def test_bad_settings_name_the_key(published):
    root, folder = published
    with pytest.raises(ValueError, match="dataset.perm_path"):
        published_permutations(config(root, "published", None))
    with pytest.raises(ValueError, match="discrimination.permutations"):
        published_permutations(config(root, "mine", folder))
    source = PublishedPermutations({"a": [[1, 0, 2]]}, "perms/")
    with pytest.raises(ValueError, match="perms/: no published permutations of document 'b'"):
        source("b", 3)
    with pytest.raises(ValueError, match="not a permutation of its 2 sentences"):
        source("a", 2)


@pytest.mark.parametrize("name", PRESETS)
def test_encoding_once_gives_the_log_probs_of_the_expanded_batch(name: str, monkeypatch):
    monkeypatch.setattr(discrimination, "TOKENS_PER_PASS", 200)  # several passes
    batch, model = random_batch(4, [3, 5, 2]), tiny_preset(name)
    doc_of_row, orders = discrimination._candidate_orders(
        batch, PermutationSampler("synthetic", "test", 0)
    )
    with torch.no_grad():
        expected = model.log_prob(select_rows(batch, doc_of_row), orders)
    torch.testing.assert_close(discrimination._log_probs(model, batch, doc_of_row, orders),
                               expected.float(), rtol=1e-5, atol=1e-5)
