"""Brown genre subsets and the cross-domain reader: training domain for train/valid, test
domain for test, split by source text, test paragraphs identical to the in-domain subset."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures_data import write_generated_brown
from hydra.utils import instantiate

from benchmark.config.compose import compose_config
from data.readers.brown import BrownReader
from data.readers.brown_cross import BrownCrossDomainReader

FICTION = ["fiction", "mystery"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_generated_brown(
        tmp_path_factory.mktemp("brown"),
        {"news": ("a", 20), "fiction": ("k", 10), "mystery": ("l", 10), "learned": ("j", 10)},
    )


def sources(docs) -> set[str]:
    return {doc.source for doc in docs}


def test_train_valid_from_train_genres_test_from_test_genres(corpus: Path) -> None:
    splits = BrownCrossDomainReader(["news"], FICTION, path=str(corpus)).read_splits()
    assert {d.meta["genre"] for d in splits["train"] + splits["valid"]} == {"news"}
    assert {d.meta["genre"] for d in splits["test"]} == set(FICTION)
    news = BrownReader(path=str(corpus), genres=["news"]).read_splits()
    fiction = BrownReader(path=str(corpus), genres=FICTION).read_splits()
    assert [d.id for d in splits["train"]] == [d.id for d in news["train"]]
    assert [d.id for d in splits["valid"]] == [d.id for d in news["valid"]]
    assert [d.id for d in splits["test"]] == [
        d.id for d in fiction["test"]
    ]  # paired with in-domain


def test_overlapping_domains_keep_texts_apart(corpus: Path) -> None:
    splits = BrownCrossDomainReader(
        ["news", "fiction"], ["fiction"], path=str(corpus)
    ).read_splits()
    assert not sources(splits["test"]) & (sources(splits["train"]) | sources(splits["valid"]))
    assert {d.meta["genre"] for d in splits["train"]} == {"news", "fiction"}


def test_training_sample(corpus: Path) -> None:
    full = BrownCrossDomainReader(FICTION, FICTION, path=str(corpus)).read_splits()
    sample = BrownCrossDomainReader(FICTION, FICTION, train_docs=5, path=str(corpus)).read_splits()
    ids = [d.id for d in full["train"]]
    assert len(sample["train"]) == 5
    kept = [d.id for d in sample["train"]]
    assert kept == [i for i in ids if i in kept]  # a subset, in corpus order
    assert sample["valid"] == full["valid"] and sample["test"] == full["test"]
    other = BrownCrossDomainReader(FICTION, FICTION, train_docs=5, sample_seed=1, path=str(corpus))
    assert [d.id for d in other.read_splits()["train"]] != kept
    with pytest.raises(ValueError, match="training paragraphs"):
        BrownCrossDomainReader(FICTION, FICTION, train_docs=500, path=str(corpus)).read_splits()


def test_options_and_fingerprint(corpus: Path) -> None:
    reader = BrownCrossDomainReader(["news"], ["learned"], path=str(corpus), max_sentences=5)
    fingerprint = reader.fingerprint()
    assert fingerprint["brown"]["genres"] == ["learned", "news"]
    assert fingerprint["brown"]["max_sentences"] == 5
    assert fingerprint["brown_version"] == BrownReader.VERSION
    assert (
        fingerprint != BrownCrossDomainReader(["learned"], ["news"], path=str(corpus)).fingerprint()
    )
    with pytest.raises(ValueError, match="at least one genre"):
        BrownCrossDomainReader([], ["news"])
    with pytest.raises(ValueError, match="unknown Brown genres"):
        BrownCrossDomainReader(["news"], ["poetry"], path=str(corpus)).read_splits()


@pytest.mark.parametrize(
    "name, genres",
    [
        ("brown_news", ["news"]),
        ("brown_fiction", ["fiction", "mystery", "science_fiction", "adventure", "romance"]),
        ("brown_learned", ["learned"]),
    ],
)
def test_genre_subset_configs(name: str, genres: list[str]) -> None:
    cfg = compose_config([f"dataset={name}"])
    assert cfg.dataset.name == name and list(cfg.dataset.reader.genres) == genres
    assert cfg.dataset.datamodule.name == "brown"  # same fixed permutations as dataset=brown


def test_cross_config_and_brown_genre_names(corpus: Path) -> None:
    cfg = compose_config(["dataset=brown_cross", f"dataset.path={corpus}"])
    reader = instantiate(cfg.dataset.reader)
    assert reader.train_genres == ["news"] and reader.test_genres[0] == "fiction"
    assert cfg.dataset.datamodule.name == "brown"
    fiction = compose_config(["dataset=brown_fiction"]).dataset.reader.genres
    assert list(cfg.dataset.reader.test_genres) == list(fiction)
