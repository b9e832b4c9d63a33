"""The noise setting on the data side (docs/design.md, section 4; Wang & Wan 2019): the option, the
distractor draws and their presentation, collation and the config keys."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmark.config.checks import ConfigError, check_config
from benchmark.config.compose import compose_config
from data.collate import collate
from data.datamodule import OrderingDataModule
from data.noise import (
    Distractor,
    draw_distractors,
    has_noise,
    noise_label,
    noise_setting,
    present,
)
from data.readers.synthetic import SyntheticReader
from data.shuffle import eval_permutation


def make_dm(tmp_path: Path, noise=0, seed: int = 0, n_test: int = 25, **kwargs):
    reader = SyntheticReader(n_train=40, n_valid=20, n_test=n_test, max_sentences=6)
    dm = OrderingDataModule(
        reader=reader,
        name="toy",
        batch_size=8,
        eval_batch_size=7,
        cache_dir=str(tmp_path / "cache"),
        noise=noise,
        seed=seed,
        **kwargs,
    )
    dm.setup()
    return dm


def examples(dm: OrderingDataModule, split: str, epoch: int = 0) -> list:
    dataset = dm.datasets[split]
    return [dataset[(i, epoch)] for i in range(len(dataset))]


# -- the option ---------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "setting"), [(0, "0"), (1, "1"), ("1", "1"), ("0/1", "0/1")])
def test_noise_setting_accepts_the_three_values(value, setting):
    assert noise_setting(value) == setting
    assert has_noise(value) == (setting != "0")


@pytest.mark.parametrize("value", [2, -1, True, 0.5, "1/2", "0-1", "", None])
def test_invalid_noise_names_the_config_key(value):
    with pytest.raises(ValueError, match=r"dataset\.noise must be one of 0, 1, 0/1"):
        noise_setting(value)


def test_noise_label_names_the_setting():
    assert noise_label("brown", 0) == "brown"
    assert noise_label("brown", 1) == "brown_noise1"
    assert noise_label("brown", "0/1") == "brown_noise0-1"


@pytest.mark.parametrize(
    ("override", "value", "label", "monitor"),
    [
        ([], 0, "brown", "val/tau"),
        (["dataset.noise=1"], 1, "brown_noise1", "val/pm_f"),
        (["dataset.noise=0/1"], "0/1", "brown_noise0-1", "val/pm_f"),
        (["dataset=synthetic", "dataset.noise=0/1"], "0/1", "synthetic_noise0-1", "val/pm_f"),
    ],
)
def test_config_key_override_run_name_and_selection(override, value, label, monitor):
    cfg = compose_config(override)
    assert cfg.dataset.noise == value  # 0/1 stays a string
    assert cfg.paths.dataset == label  # the run directory's <dataset>
    assert cfg.early_stopping.monitor == monitor


def test_config_rejects_an_invalid_noise_value():
    cfg = compose_config(["dataset.noise=2"])
    with pytest.raises(ConfigError, match=r"dataset\.noise must be one of"):
        check_config(cfg)
    assert cfg.paths.dataset == "brown_noise2"  # Hydra can still name the run directory


# -- draws ----------------------------------------------------------------------------------


def test_draw_takes_another_document_and_any_slot():
    sizes = [3, 5, 2, 4]
    drawn = [draw_distractors(np.random.default_rng(k), "1", 1, sizes)[0] for k in range(400)]
    assert {d.doc for d in drawn} == {0, 2, 3}  # never the document itself
    assert all(0 <= d.sentence < sizes[d.doc] for d in drawn)
    assert {d.slot for d in drawn} == set(range(sizes[1] + 1))  # every presented slot


def test_draw_needs_two_documents():
    with pytest.raises(ValueError, match="at least two documents"):
        draw_distractors(np.random.default_rng(0), "1", 0, [3])


def test_present_inserts_the_distractor_id_at_its_slot():
    assert present([2, 0, 1], [Distractor(doc=4, sentence=0, slot=1)]) == [2, -1, 0, 1]
    assert present([2, 0, 1], []) == [2, 0, 1]


# -- the DataModule ------------------------------------------------------------------------


def test_noise_zero_presents_exactly_as_without_the_option(tmp_path):
    plain = OrderingDataModule(
        reader=SyntheticReader(n_train=40, n_valid=20, n_test=25, max_sentences=6),
        name="toy",
        cache_dir=str(tmp_path / "cache"),
    )
    plain.setup()
    zero = make_dm(tmp_path, noise=0)
    for split in ("train", "test"):
        assert examples(plain, split) == examples(zero, split)
    assert "noise" not in zero.stats()


def test_each_test_document_gets_one_distractor_from_another_document(tmp_path):
    dm = make_dm(tmp_path, noise=1)
    docs = dm.documents["test"]
    for doc, example in zip(docs, examples(dm, "test"), strict=True):
        assert sorted(example.sentence_ids) == [-1, *range(len(doc))]
        text = example.texts[example.sentence_ids.index(-1)]
        (distractor,) = dm.datasets["test"].fixed_distractors[docs.index(doc)]
        source = docs[distractor.doc]
        assert source.id != doc.id and text == source.sentences[distractor.sentence]
        gold_texts = [t for t, i in zip(example.texts, example.sentence_ids, strict=True) if i >= 0]
        assert sorted(gold_texts) == sorted(doc.sentences)
    assert dm.stats()["noise"] == "1" and dm.stats()["n_distractors"]["test"] == len(docs)


def test_distractor_is_shuffled_in_the_fixed_permutation(tmp_path):
    """The gold sentences keep the noise-free evaluation permutation; the distractor takes
    any slot, including the first and the last."""
    dm = make_dm(tmp_path, noise=1, n_test=80)
    slots = set()
    for doc, example in zip(dm.documents["test"], examples(dm, "test"), strict=True):
        kept = [i for i in example.sentence_ids if i >= 0]
        assert kept == eval_permutation("toy", "test", doc.id, len(doc), 0)
        slot = example.sentence_ids.index(-1)
        slots.add("first" if slot == 0 else "last" if slot == len(doc) else "inner")
    assert slots == {"first", "inner", "last"}


def test_test_distractors_are_fixed_for_every_model_seed_and_call(tmp_path):
    first = examples(make_dm(tmp_path, noise=1, seed=0), "test")
    assert first == examples(make_dm(tmp_path, noise=1, seed=7), "test")
    assert first == examples(make_dm(tmp_path, noise=1, seed=0), "test", epoch=3)


def test_training_distractors_are_fresh_per_epoch_and_seeded(tmp_path):
    dm = make_dm(tmp_path, noise=1)
    epoch0, epoch1 = examples(dm, "train", 0), examples(dm, "train", 1)
    assert epoch0 == examples(make_dm(tmp_path, noise=1), "train", 0)  # reproducible
    assert epoch0 != epoch1
    texts = lambda exs: [ex.texts[ex.sentence_ids.index(-1)] for ex in exs]  # noqa: E731
    changed = sum(a != b for a, b in zip(texts(epoch0), texts(epoch1), strict=True))
    assert changed > len(epoch0) // 2  # the distractor sentence itself is redrawn
    assert all(ex.sentence_ids.count(-1) == 1 for ex in epoch0)


def test_noise_zero_one_gives_about_half_the_documents_a_distractor(tmp_path):
    dm = make_dm(tmp_path, noise="0/1", n_test=200)
    share = np.mean([-1 in ex.sentence_ids for ex in examples(dm, "test")])
    assert 0.4 <= share <= 0.6
    train = np.mean([-1 in ex.sentence_ids for ex in examples(dm, "train", 2)])
    assert 0.3 <= train <= 0.7
    assert all(min(ex.sentence_ids) >= -1 for ex in examples(dm, "test"))


def test_batches_carry_distractor_ids_outside_the_gold_order(tmp_path):
    dm = make_dm(tmp_path, noise=1)
    batch = next(iter(dm.test_dataloader()))
    for b, ids in enumerate(batch["sentence_ids"]):
        n = len(ids)
        assert int(batch["n_sentences"][b]) == n and -1 in ids
        gold = batch["gold_order"][b].tolist()
        assert [ids[j] for j in gold[: n - 1]] == list(range(n - 1))  # gold ids in order
        assert gold[n - 1 :] == [-1] * (len(gold) - n + 1)
    assert len(batch["texts"][0]) == int(batch["n_sentences"][0])


def test_collate_keeps_distractors_out_of_gold(tmp_path):
    dm = make_dm(tmp_path, noise=1)
    example = dm.datasets["test"][(0, 0)]
    batch = collate([example])
    distractor = example.sentence_ids.index(-1)
    assert distractor not in batch["gold_order"][0].tolist()
    assert bool(batch["sentence_mask"][0, distractor])
