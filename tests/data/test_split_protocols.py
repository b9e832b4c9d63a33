"""The two protocols of the Accidents/Earthquakes folds (`dataset.protocol`,
data/readers/barzilay_lapata.py): the fold assignment (disjoint, covering, identical
articles together, seeded), `published_test` as it always was, and `cross_validation`,
whose run never sees its held-out articles in training or selection (the DataModule's
splits and what its loaders yield); the training options of the released ATTOrderNet code
on the data side (`vocab_splits`, `drop_last`)."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from fixtures_readers import write_barzilay, write_barzilay_published

from benchmark.config.compose import compose_config
from benchmark.config.identity import comparable_config
from benchmark.records.run_record import write_run_record
from benchmark.run.plan import RunConflictError, plan_run
from data.datamodule import OrderingDataModule
from data.errors import DataFormatError
from data.readers.barzilay_lapata import (
    CROSS_VALIDATION,
    PUBLISHED_TEST,
    BarzilayLapataReader,
    fold_of,
    twins,
)
from data.readers.synthetic import SyntheticReader
from data.sampler import BucketBatchSampler
from data.shuffle import eval_permutation
from data.tokenize import tokenize

N_TRAIN, N_TEST = 34, 6


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_barzilay(tmp_path / "accident", n_train=N_TRAIN, n_test=N_TEST)


def reader(path: Path, protocol: str = CROSS_VALIDATION, fold: int = 0, **options):
    return BarzilayLapataReader(str(path), "accident", fold=fold, protocol=protocol, **options)


def ids(documents) -> set[str]:
    return {d.id for d in documents}


def ids_in_order(dm: OrderingDataModule, split: str) -> list[str]:
    return [d.id for d in dm.documents[split]]


def datamodule(path: Path, cache: Path, **options) -> OrderingDataModule:
    reader_options = {k: options.pop(k) for k in ("protocol", "fold") if k in options}
    dm = OrderingDataModule(
        reader=reader(path, **reader_options), name="accident", batch_size=4,
        eval_batch_size=3, cache_dir=str(cache), **options,
    )  # fmt: skip
    dm.setup("fit")
    return dm


# -- the fold assignment --------------------------------------------------------------------


def test_folds_are_disjoint_covering_balanced_and_seeded():
    names = [f"a{i:02d}" for i in range(N_TRAIN)]
    folds = fold_of(names, 10, seed=0)
    assert set(folds) == set(names) and set(folds.values()) == set(range(10))
    assert sorted(Counter(folds.values()).values()) == [3] * 6 + [4] * 4  # sizes differ by 1
    assert fold_of(list(reversed(names)), 10, seed=0) == folds  # the listing order is no input
    assert fold_of(names, 10, seed=1) != folds  # the seed is


def test_identical_articles_share_a_fold_under_both_protocols(tmp_path: Path):
    root = write_barzilay_published(tmp_path / "q", {"train": 20, "test": 2})
    source = root / "train" / "ntsb2605.txt-1-5-5-0-out.perm-1"
    for k in range(3):
        shutil.copy(source, root / "train" / f"ntsb27{k}.perm-1")
    for protocol in (PUBLISHED_TEST, CROSS_VALIDATION):
        if protocol == CROSS_VALIDATION:  # the fixture names test articles like training ones
            shutil.rmtree(root / "test")
        folds = reader(root, protocol).split_protocol()["folds"]
        copies = {folds[f"ntsb27{k}.perm-1"] for k in range(3)}
        assert copies == {folds["ntsb2605.txt-1-5-5-0-out.perm-1"]}
    documents = [d for s in reader(root).read_splits().values() for d in s]
    assert len(twins(documents)) == 3


# -- published_test: as it always was ------------------------------------------------------


def test_published_test_keeps_its_splits_and_fingerprint(corpus: Path):
    default = BarzilayLapataReader(str(corpus), "accident", fold=4)
    named = reader(corpus, PUBLISHED_TEST, fold=4)
    assert default.read_splits() == named.read_splits()
    assert "protocol" not in named.fingerprint()  # the cache entry it always had
    assert named.fingerprint() == default.fingerprint()
    splits = named.read_splits()
    folds = named.split_protocol()["folds"]
    assert ids(splits["valid"]) == {name for name, fold in folds.items() if fold == 4}
    assert ids(splits["test"]) == {f"test{i:03d}.txt" for i in range(N_TEST)}
    described = named.split_protocol()
    assert (described["valid_fold"], described["test_fold"]) == (4, None)


# -- cross_validation ------------------------------------------------------------------------


def test_each_training_article_is_tested_once_by_a_model_that_never_saw_it(corpus: Path):
    tested = Counter()
    for fold in range(10):
        cv = reader(corpus, fold=fold)
        splits = cv.read_splits()
        folds = cv.split_protocol()["folds"]
        assert ids(splits["test"]) == {n for n, f in folds.items() if f == fold}
        assert ids(splits["valid"]) == {n for n, f in folds.items() if f == (fold + 1) % 10}
        train, valid, test = (ids(splits[s]) for s in ("train", "valid", "test"))
        assert not (train & valid or train & test or valid & test)
        assert train | valid | test == set(folds)  # the test folder is not read
        tested.update(test)
        described = cv.split_protocol()
        assert (described["test_fold"], described["valid_fold"]) == (fold, (fold + 1) % 10)
    assert set(tested.values()) == {1} and len(tested) == N_TRAIN
    assert reader(corpus).fingerprint()["protocol"] == CROSS_VALIDATION


def test_a_cross_validated_run_never_trains_or_selects_on_its_held_out_articles(
    corpus: Path, tmp_path: Path
):
    dm = datamodule(corpus, tmp_path / "cache", fold=7)
    documents = dm.documents
    held_out = ids(documents["test"])
    folds = dm.stats()["split_protocol"]["folds"]
    assert held_out == {n for n, f in folds.items() if f == 7}
    assert ids(documents["valid"]) == {n for n, f in folds.items() if f == 8}
    texts = {d.sentences for d in documents["test"]}
    seen_in_training = set()
    for epoch in range(3):
        dm.set_epoch(epoch)
        for batch in dm.train_dataloader():
            seen_in_training.update(batch["doc_ids"])
    assert seen_in_training == ids(documents["train"])
    assert not seen_in_training & held_out
    assert not {d.sentences for d in [*documents["train"], *documents["valid"]]} & texts
    selected_on = {i for batch in dm.val_dataloader() for i in batch["doc_ids"]}
    assert selected_on == ids(documents["valid"]) and not selected_on & held_out
    assert {i for batch in dm.test_dataloader() for i in batch["doc_ids"]} == held_out
    # the vocabulary is the training split's: no word only a held-out article has
    train_words = {w for d in documents["train"] for s in d.sentences for w in tokenize(s)}
    assert set(dm.vocab.itos[2:]) == train_words


def test_evaluation_permutations_stay_keyed_by_split_and_article(corpus: Path, tmp_path: Path):
    """A training article's fixed test permutation under cross_validation is the one its
    id gives as a test document; its validation permutation is the same under both
    protocols (the key has no protocol or fold in it)."""
    cv = datamodule(corpus, tmp_path / "a", fold=2)
    for doc, perm in zip(cv.documents["test"], cv.eval_permutations("test"), strict=True):
        assert perm == eval_permutation("accident", "test", doc.id, len(doc), 0)
    published = datamodule(corpus, tmp_path / "b", protocol=PUBLISHED_TEST, fold=3)
    valid_cv = dict(zip(ids_in_order(cv, "valid"), cv.eval_permutations("valid"), strict=True))
    valid_pt = dict(
        zip(ids_in_order(published, "valid"), published.eval_permutations("valid"), strict=True)
    )
    assert valid_cv == valid_pt  # fold 3: validation under both (cv fold 2 -> valid fold 3)
    assert cv.cache_path != published.cache_path


def test_a_name_in_both_folders_is_refused_under_cross_validation(corpus: Path):
    shutil.copy(corpus / "test" / "test000.txt", corpus / "train" / "test000.txt")
    reader(corpus, PUBLISHED_TEST).read_splits()  # the other protocol is unaffected
    with pytest.raises(DataFormatError, match="in both train/ and test/.*test000.txt"):
        reader(corpus).read_splits()


def test_options_are_checked():
    with pytest.raises(ValueError, match="dataset.protocol must be one of"):
        BarzilayLapataReader("x", "accident", protocol="cv")
    with pytest.raises(ValueError, match="n_folds >= 3"):
        BarzilayLapataReader("x", "accident", protocol=CROSS_VALIDATION, n_folds=2, fold=1)


def test_published_permutations_of_the_held_out_fold(tmp_path: Path):
    root = write_barzilay_published(tmp_path / "a", {"train": 20}, copies=2)
    cv = reader(root, fold=5)
    test = ids(cv.read_splits()["test"])
    orders = cv.published_test_permutations()  # the copies beside the training articles
    assert set(orders) == test and all(sorted(o) == [2, 3] for o in orders.values())
    other = write_barzilay_published(tmp_path / "b", {"test": 3}, style="apws", copies=2)
    with pytest.raises(DataFormatError, match="no permutation of the .* test articles"):
        cv.published_test_permutations(other / "test")


# -- the configs -----------------------------------------------------------------------------


def test_the_protocol_is_a_named_dataset_option():
    cfg = compose_config(["+reproduce=accident_cv", "dataset.fold=3"])
    assert (cfg.dataset.protocol, cfg.dataset.reader.protocol) == (CROSS_VALIDATION,) * 2
    assert cfg.dataset.perm_path.endswith("accident_perms/train")
    default = compose_config(["+reproduce=accident"])
    assert default.dataset.reader.protocol == PUBLISHED_TEST
    assert compose_config(["+reproduce=earthquake_cv"]).dataset.protocol == CROSS_VALIDATION


def test_configs_stored_before_the_new_options_compare_equal(tmp_path: Path):
    """A finished run of the reproduction, recorded before the protocol, vocabulary,
    batching and test-loop keys existed, is still skipped by a relaunch of its sweep."""
    cfg = compose_config(["+reproduce=accident", "+experiment=attordernet_paper",
                          "variant=repro_e100"])  # fmt: skip
    new = comparable_config(cfg)
    old = comparable_config(cfg)
    del old["dataset"]["protocol"], old["dataset"]["reader"]["protocol"], old["test_shuffles"]
    del old["dataset"]["datamodule"]["vocab_splits"], old["dataset"]["datamodule"]["drop_last"]
    assert comparable_config(old) == new
    write_run_record(tmp_path, {"config": old})
    assert plan_run(tmp_path, cfg).action == "skip"
    changed = compose_config(["+reproduce=accident", "+experiment=attordernet_paper",
                              "variant=repro_e100", "dataset.protocol=cross_validation"])
    with pytest.raises(RunConflictError, match="dataset.protocol: 'published_test' -> "
                       "'cross_validation'"):  # fmt: skip
        plan_run(tmp_path, changed)


# -- vocabulary and batching of the released code ---------------------------------------------


def test_vocabulary_of_all_splits_is_an_option_with_its_own_cache_entry(
    corpus: Path, tmp_path: Path
):
    cache = tmp_path / "cache"
    own = datamodule(corpus, cache, protocol=PUBLISHED_TEST)
    released = datamodule(corpus, cache, protocol=PUBLISHED_TEST,
                          vocab_splits=["train", "valid", "test"])  # fmt: skip
    test_only = {w for w in released.vocab.itos if w.startswith("test")} - set(own.vocab.itos)
    assert test_only and not any(w.startswith("test") for w in own.vocab.itos)
    assert released.cache_path != own.cache_path
    assert released.stats()["vocab_splits"] == ["train", "valid", "test"]
    assert "vocab_splits" not in own.stats()
    assert released.documents == own.documents  # the splits are the same
    with pytest.raises(ValueError, match="vocab_splits must name splits"):
        datamodule(corpus, cache, protocol=PUBLISHED_TEST, vocab_splits=["dev"])


def test_drop_last_gives_full_batches_and_a_seeded_remainder_sits_out():
    sizes = [(3 + i % 5, 10) for i in range(23)]
    sampler = BucketBatchSampler(sizes, 4, shuffle=True, seed=1, drop_last=True)
    left_out = []
    for epoch in range(4):
        sampler.set_epoch(epoch)
        batches = list(sampler)
        assert len(batches) == len(sampler) == 5 and all(len(b) == 4 for b in batches)
        seen = [index for batch in batches for index, _ in batch]
        assert len(set(seen)) == 20
        left_out.append(set(range(23)) - set(seen))
    assert len({frozenset(s) for s in left_out}) > 1  # another remainder each epoch
    sampler.set_epoch(0)
    assert {i for b in sampler for i, _ in b} == set(range(23)) - left_out[0]  # seeded
    full = BucketBatchSampler(sizes, 4, shuffle=True, seed=1)
    assert len(full) == 6 and sum(len(b) for b in full) == 23  # the default keeps all
    with pytest.raises(ValueError, match="evaluation pass keeps every document"):
        BucketBatchSampler(sizes, 4, shuffle=False, drop_last=True)


def test_the_datamodule_drops_the_remainder_in_training_only(tmp_path: Path):
    dm = OrderingDataModule(reader=SyntheticReader(n_train=30, n_valid=9, n_test=9), name="s",
                            batch_size=8, eval_batch_size=4, cache_dir=str(tmp_path),
                            drop_last=True)  # fmt: skip
    dm.setup("fit")
    assert [len(b["doc_ids"]) for b in dm.train_dataloader()] == [8, 8, 8]
    assert sum(len(b["doc_ids"]) for b in dm.val_dataloader()) == 9
    assert dm.stats()["drop_last"] is True
