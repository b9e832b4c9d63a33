"""A dataset is one unit: its reader module declares its facts (`DatasetSource`), which
data/readers/sources.py collects and the configs and docs are held to; every published
dataset config (and layout of a config reading several) without data fails naming the
layout; a dataset from outside the repository is one reader module and one YAML (the
example of docs/datasets.md, run as written); line-file helpers."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hydra.utils import instantiate

from benchmark.config.compose import CONF_DIR, compose_config
from data.errors import DataFormatError
from data.readers.lines import nonblank_lines, read_sentence_file
from data.readers.published import PublishedReader
from data.readers.sources import SOURCES, DatasetNotFoundError, declared_sources

ROOT = CONF_DIR.parent
DOCS = ROOT / "docs" / "datasets.md"


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


def test_every_published_reader_s_facts_are_a_collected_row() -> None:
    """Each reader of a published dataset answers with the row its module declares, and
    the collection holds nothing else."""
    import data.readers.barzilay_lapata as barzilay_lapata
    import data.readers.hf as hf
    import data.readers.logeswaran as logeswaran

    readers = [cls for module in ("arxiv", "nseg", "roc", "sind")
               for cls in vars(__import__(f"data.readers.{module}", fromlist=["x"])).values()
               if isinstance(cls, type) and issubclass(cls, PublishedReader)
               and cls is not PublishedReader]  # fmt: skip
    rows = [reader.source for reader in readers]
    rows += [logeswaran.LogeswaranReader(None, corpus).source for corpus in logeswaran.LAYOUTS]
    rows += [barzilay_lapata.BarzilayLapataReader(None, c).source for c in barzilay_lapata.CORPORA]
    rows.append(hf.HFReader.source)
    assert sorted(row.name for row in rows) == sorted(SOURCES)
    assert all(row is SOURCES[row.name] for row in rows)


def test_two_rows_of_one_name_are_refused(monkeypatch) -> None:
    import data.readers.roc as roc

    monkeypatch.setattr(roc, "COPY", dataclasses.replace(roc.SOURCE, licence="another"),
                        raising=False)
    with pytest.raises(ValueError, match="dataset 'roc' is declared twice"):
        declared_sources()


def documented_dataset() -> tuple[str, str]:
    """The Python and YAML blocks of docs/datasets.md's "Adding a dataset" section."""
    section = DOCS.read_text(encoding="utf-8").split("## Adding a dataset", 1)[1]
    section = section.split("\n## ", 1)[0]
    python = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    config = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    return python, config


def write_steps(folder: Path, sizes: dict[str, int]) -> None:
    """A corpus in the example's layout: three numbered steps of a distinct task each."""
    for split, n in sizes.items():
        (folder / split).mkdir(parents=True)
        for k in range(n):
            task = f"the {split} box {k}"
            steps = [f"First open {task}.", f"Then fold {task} twice.", f"Last close {task}."]
            (folder / split / f"{split}-{k}.txt").write_text("\n".join(steps) + "\n")


@pytest.mark.slow
def test_a_new_dataset_is_one_reader_module_and_one_yaml(tmp_path: Path, monkeypatch) -> None:
    """docs/datasets.md's example, as written: its module in a package outside the
    repository, its YAML in an extra config folder (hydra.searchpath); without data it
    names its layout, with data it trains one epoch through the harness, the trained run
    loads again (`benchmark.evaluate`) and its datacard sets its declared sizes beside the
    measured ones."""
    python, config = documented_dataset()
    config = config.replace("data.readers.steps.StepsReader", "outside_data.steps.StepsReader")
    (tmp_path / "outside_data").mkdir()
    (tmp_path / "outside_data" / "__init__.py").write_text("")
    (tmp_path / "outside_data" / "steps.py").write_text(python)
    (tmp_path / "conf" / "dataset").mkdir(parents=True)
    (tmp_path / "conf" / "dataset" / "steps.yaml").write_text(config)
    monkeypatch.syspath_prepend(str(tmp_path))
    from outside_data.steps import SOURCE, StepsReader

    with pytest.raises(DatasetNotFoundError) as info:
        StepsReader(None).read_splits()
    assert SOURCE.layout in str(info.value) and "dataset.path is not set" in str(info.value)

    sizes = {"train": 24, "valid": 4, "test": 4}
    assert SOURCE.sizes == sizes
    write_steps(tmp_path / "corpus", sizes)
    common = [f"hydra.searchpath=[file://{tmp_path / 'conf'}]", "dataset=steps",
              f"dataset.path={tmp_path / 'corpus'}",
              f"+dataset.datamodule.cache_dir={tmp_path / 'cache'}"]  # fmt: skip
    env = {**os.environ, "WANDB_MODE": "offline", "PYTHONPATH": str(tmp_path)}
    trained = subprocess.run(
        [sys.executable, "-m", "benchmark.train", *common, "model=lstm_ptrnet",
         "+experiment=tiny", "trainer.max_epochs=1", "evaluate_discrimination=false",
         "logger=csv", "cpu_threads=1", f"paths.runs={tmp_path / 'runs'}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert trained.returncode == 0, trained.stderr[-4000:]
    [record_path] = (tmp_path / "runs" / "steps" / "lstm_ptrnet" / "base").glob(
        "*/seed_0/metrics.json"
    )
    record = json.loads(record_path.read_text())
    assert record["dataset"] == "steps" and record["epochs"] == 1
    assert "tau" in record["split"]["test"]

    evaluated = subprocess.run(  # the trained run loaded again, its reader from outside
        [sys.executable, "-m", "benchmark.evaluate", f"run={record_path.parent}", "task=order"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert evaluated.returncode == 0, evaluated.stderr[-4000:]
    again = json.loads(evaluated.stdout)
    assert again["n_docs"] == sizes["test"]
    assert again["tau"] == pytest.approx(record["split"]["test"]["tau"])

    carded = subprocess.run(
        [sys.executable, "-m", "benchmark.datacard", *common],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert carded.returncode == 0, carded.stderr[-4000:]
    card = json.loads(carded.stdout)
    assert card["dataset"] == "steps"
    assert {split: card["splits"][split]["n_docs"] for split in sizes} == sizes
    assert card["published"] == sizes
    assert card["vs_published"] == {s: {"published": n, "ours": n} for s, n in sizes.items()}


def test_lines_helpers(tmp_path: Path) -> None:
    path = tmp_path / "doc"
    path.write_bytes("  Caf\u00e9.\r\n\n\tTwo  \n".encode())
    assert nonblank_lines(path) == [(1, "Caf\u00e9."), (3, "Two")]
    assert read_sentence_file(path) == ("Caf\u00e9.", "Two")
    path.write_bytes(b"ok\n\xff\xfe bad\n")
    with pytest.raises(DataFormatError, match=r"doc:2: not UTF-8 text"):
        read_sentence_file(path)
