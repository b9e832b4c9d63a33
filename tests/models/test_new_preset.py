"""A new model family is one folder, models/families/<family>/: a module per preset,
registered with `models.registry.register_preset`, its YAML
(models/families/FAMILY/conf/model/PRESET.yaml, found by Hydra through the config-folder
plugin, hydra_plugins/orderbench_config_folders.py) and its tests under tests/. In a copy of
the repository (the files git tracks or would track) the test adds such a folder, a small
preset of existing parts, and runs there, in a subprocess, the family's own test and the
tests that go over every registered preset or every model config: they pass with no other
file edited (README.md and docs/models.md untouched). Then `make docs` (`orderbench params
markdown=docs/models.md`) adds the new preset's row, and only that, at the end of the table
of presets of docs/models.md, and the page's check passes again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from repo_root import ROOT

from models.param_counts import END

NAME = "probe_mean_ptrnet"
FAMILY = "probe"  # models/families/probe/
FAMILY_TEST = f'''"""The family's own check: its preset builds at its tiny size and decodes."""

from models.registry import get_preset, preset_settings
from tests.model_batches import random_batch


def test_{NAME}_builds_and_decodes():
    settings = {{k: v for k, (_, v) in preset_settings("{NAME}", "tiny").items()}}
    net = get_preset("{NAME}").build(vocab_size=30, **settings)
    assert net.decode(random_batch(0, [3, 5])).shape == (2, 5)
'''
MODULE = f'''"""A preset the test adds: mean-pooled LSTM sentences + Gong et al.'s Ptr-Net."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.families.ptrnet.ptrnet import pointer_network
from models.registry import Summary, register_preset

if TYPE_CHECKING:
    from torch import Tensor

    from models.ordering_model import OrderingModel


@register_preset(
    "{NAME}",
    sizes=dict(tiny=dict(embedding_dim=8, hidden_dim=10),
               toy=dict(embedding_dim=16, hidden_dim=32)),
    summary=Summary(
        sentences="LSTM, mean of its states",
        paragraph="LSTM over the shuffled sentences",
        decoder="LSTM pointer from the encoder's (h, c)",
    ),
)
def {NAME}(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    embedding_dim: int | None = None,
    hidden_dim: int = 64,
    dropout: float = 0.0,
) -> OrderingModel:
    from models.blocks.sentence_lstm import SentenceLSTM
    from models.blocks.word_embedding import word_embedding

    embedding = word_embedding(vocab_size, pretrained_embeddings, embedding_dim, dropout)
    sentences = SentenceLSTM(embedding.dim, hidden_dim, dropout=dropout, pooling="mean")
    return pointer_network(embedding, sentences, hidden_dim, None, True)
'''
CONFIG = f"""defaults:
  - /model_base@_here_: default
  - _self_

name: {NAME}
net:
  _target_: models.presets.{NAME}
  embedding_dim: ${{model.embedding_dim}}
  hidden_dim: 32
  dropout: 0.1
"""
# the fast tests that go over every registered preset or every model YAML: a whole module
# (test_registry.py, but the documented example's training run, which is not about the new
# preset), the new preset's cases of the modules parametrized by preset (its toy
# training, tests/models/test_models_training.py, is a slow check), and the checks of the pages,
# the plot colours and the sweeps that glob models/families/*/conf/model/
SELECTED = [
    "tests/models/test_registry.py", "tests/test_docs.py", "tests/models/test_models_presets.py",
    "tests/models/noise/test_noise_models.py", "tests/models/search/test_beam_search.py",
    "tests/benchmark/evaluation/test_discrimination_published.py",
    "tests/benchmark/report/test_plots.py",
    "tests/benchmark/sweep/test_sweep_config.py", "-k",
    f"({NAME} or test_registry or readme_names or table_of_presets or sweep_size "
    "or distinct_colour or (expand_to_their_jobs and paper)) and not one_file_and_one_yaml",
]  # fmt: skip


def repository_copy(target: Path) -> Path:
    """The files of the repository git tracks or would track (not the ignored: caches,
    runs, .venv), copied under `target`."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    if listed.returncode != 0:
        pytest.skip(f"not a git work tree: {listed.stderr.strip()}")
    for name in filter(None, listed.stdout.split("\0")):
        source = ROOT / name
        if source.is_file():  # not a tracked file deleted in the work tree
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def run_in(copy: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=copy, capture_output=True, text=True, timeout=1200,
        env={**os.environ, "PYTHONPATH": str(copy), "WANDB_MODE": "offline"},
    )  # fmt: skip


def passed(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    return result.stdout.strip().splitlines()[-1]


@pytest.mark.slow
def test_a_new_family_is_one_folder_and_the_tests_pass(tmp_path):
    copy = repository_copy(tmp_path / "repo")
    family = copy / "models" / "families" / FAMILY  # the one folder the family is
    for path, text in [("__init__.py", f'"""{NAME}: the test\'s family."""\n'),
                       (f"{NAME}.py", MODULE), (f"conf/model/{NAME}.yaml", CONFIG),
                       (f"tests/test_{FAMILY}.py", FAMILY_TEST)]:  # fmt: skip
        (family / path).parent.mkdir(parents=True, exist_ok=True)
        (family / path).write_text(text)
    pytest_args = ("-m", "pytest", "-q", "-p", "no:cacheprovider")
    where = run_in(copy, "-c", "import models.registry as r; print(r.__file__, *r.presets())")
    assert where.stdout.startswith(str(copy)) and NAME in where.stdout.split(), where.stderr
    own = passed(run_in(copy, *pytest_args, f"models/families/{FAMILY}"))
    assert own.startswith("1 passed"), own
    tests = run_in(copy, *pytest_args, "-rA", *SELECTED)  # -rA: a line per test passed
    summary = passed(tests)
    assert " passed" in summary and "failed" not in summary, summary
    cases = [line for line in tests.stdout.splitlines() if "::" in line and NAME in line]
    assert len(cases) >= 20 and all("PASSED" in line for line in cases), tests.stdout[-4000:]

    page = copy / "docs" / "models.md"
    before = page.read_text()
    made = run_in(copy, "-m", "benchmark.cli", "params", "markdown=docs/models.md")
    assert made.returncode == 0, made.stderr[-2000:]
    assert made.stdout.strip().endswith(f"(added {NAME})")
    rows_end = before.index(f"\n\n{END}")  # the new row comes after the last one
    row = f"| `{NAME}` | LSTM, mean of its states | LSTM over the shuffled sentences |"
    added = page.read_text()[rows_end:].split("\n")[1]
    assert page.read_text() == before[:rows_end] + "\n" + added + before[rows_end:]
    assert added.startswith(row)
    passed(run_in(copy, *pytest_args, "tests/test_docs.py", "-k", "table_of_presets"))
