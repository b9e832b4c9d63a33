"""The dataset table (data/readers/sources.py) against the configs and docs; every
published dataset config (and layout of a config reading several) without data fails
naming the layout; line-file helpers."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra.utils import instantiate

from benchmark.config.compose import CONF_DIR, compose_config
from data.errors import DataFormatError
from data.readers.lines import nonblank_lines, read_sentence_file
from data.readers.sources import SOURCES, DatasetNotFoundError

DOCS = CONF_DIR.parent / "docs" / "datasets.md"


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_config_without_data_names_layout_and_source(name: str) -> None:
    source = SOURCES[name]  # read by dataset=<source.dataset> with source.options
    cfg = compose_config([f"dataset={source.dataset}", *source.options.split()])
    assert cfg.dataset.name == source.dataset and cfg.dataset.path is None
    with pytest.raises(DatasetNotFoundError) as info:
        instantiate(cfg.dataset.reader).read_splits()
    message = str(info.value)
    assert "dataset.path is not set" in message
    assert SOURCES[name].layout in message and SOURCES[name].published in message


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_docs_give_every_dataset_and_published_size(name: str) -> None:
    docs = DOCS.read_text(encoding="utf-8")
    assert f"`dataset={SOURCES[name].dataset}`" in docs
    if SOURCES[name].options:
        assert f"`{SOURCES[name].options}`" in docs
    for size in SOURCES[name].sizes.values():
        assert f"{size:,}" in docs


def test_lines_helpers(tmp_path: Path) -> None:
    path = tmp_path / "doc"
    path.write_bytes("  Caf\u00e9.\r\n\n\tTwo  \n".encode())
    assert nonblank_lines(path) == [(1, "Caf\u00e9."), (3, "Two")]
    assert read_sentence_file(path) == ("Caf\u00e9.", "Two")
    path.write_bytes(b"ok\n\xff\xfe bad\n")
    with pytest.raises(DataFormatError, match=r"doc:2: not UTF-8 text"):
        read_sentence_file(path)
