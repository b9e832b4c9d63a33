"""The preset registry (models/registry.py): every list of presets is the registry's, the
harness builds only registered presets and reads their settings from it, and the example
of docs/models.md, "Adding a model", registers and trains as written (with and without
noise). The import rules of models/ are tests/test_wings.py's."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
import torch
import yaml
from fixtures_sweep import run_dir_of
from repo_root import ROOT

from benchmark.config.config_folders import group_files
from models.noise.noise_wrapper import NoiseWrapper
from models.registry import get_preset, preset_names, presets, register_preset

DOCS = ROOT / "docs" / "models.md"


def documented_example() -> tuple[str, str]:
    """The Python and YAML blocks of docs/models.md's "Adding a model" section."""
    section = DOCS.read_text(encoding="utf-8").split("## Adding a model", 1)[1]
    python = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    config = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    return python, config


def test_the_registry_and_every_preset_s_settings_are_read_without_torch():
    """Every module of models/presets/ imports what it builds inside its functions, so
    listing the presets and reading their declared settings (the config check,
    `${preset_default:}`, `sweep list`) imports no torch; building one does."""
    script = (
        "import sys\n"
        "from models.registry import presets, preset_settings\n"
        "names = list(presets())\n"
        "settings = {name: preset_settings(name) for name in names}\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'transformers'))\n"
        "print(len(names), loaded[:5])\n"
        "presets()[names[0]].build(vocab_size=30)\n"
        "print('torch' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    listed, built = result.stdout.strip().splitlines()
    assert listed == f"{len(presets())} []", listed
    assert built == "True"


def test_every_model_config_names_a_registered_preset_and_back():
    """The model YAMLs (models/families/*/conf/model/*.yaml) <-> the registry: no preset
    without a config, none unregistered."""
    targets = {}
    for path in group_files("model"):
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
        targets[config["name"]] = config["net"]["_target_"]
    assert set(targets) == set(path.stem for path in group_files("model"))
    registered = presets()
    assert set(targets) == set(registered)
    for name, target in targets.items():
        module, function = target.rsplit(".", 1)
        preset = registered[name]
        assert getattr(importlib.import_module(module), function) is preset.build, name


def test_the_harness_builds_only_registered_presets():
    """`model.net._target_` must name a registered preset: the config check refuses any other
    callable (naming the key and the registered presets) and so does the builder."""
    from benchmark.config.checks import ConfigError, check_config, model_problems
    from benchmark.config.compose import compose_config
    from benchmark.run.model_builder import build_net

    no_preset = "models.blocks.word_embedding.word_embedding"  # a function, not a preset
    for target in ("torch.nn.Identity", "models.nowhere.preset", no_preset):
        cfg = compose_config(["dataset=synthetic", f"model.net._target_={target}"])
        [line] = model_problems(cfg)
        assert line.startswith(f"model.net._target_: {target!r} is not a registered preset")
        assert line.endswith(f"registered: {', '.join(sorted(preset_names()))}")
        with pytest.raises(ConfigError, match="is not a registered preset"):
            check_config(cfg)
        with pytest.raises(ConfigError, match="is not a registered preset"):
            build_net(cfg, 30, None)
    for path in group_files("model"):  # every shipped config
        assert model_problems(compose_config(["dataset=synthetic", f"model={path.stem}"])) == []


def test_a_family_s_settings_are_declared_once():
    """The ATTOrderNet variants take the fields of `AttOrderNetSettings` through `**shared`;
    the registry lists them with their annotations and defaults after the variant's own
    arguments (a variant's own default first), and the functions' signatures are their own."""
    import inspect
    from dataclasses import fields

    from models.families.attordernet.settings import AttOrderNetSettings
    from models.registry import NO_DEFAULT, preset_settings

    types = typing.get_type_hints(AttOrderNetSettings)
    shared = {f.name: (types[f.name], f.default) for f in fields(AttOrderNetSettings)}
    for name in ("attordernet", "attordernet_att", "attordernet_cnn"):
        declared = preset_settings(name)
        assert {k: declared[k] for k in shared} == shared, name
        assert "**shared" in str(inspect.signature(get_preset(name).build)), name
    minilm = preset_settings("minilm_ptrnet")
    assert minilm["hidden_dim"] == (int | None, None) and minilm["heads"] == (int, 8)
    assert list(minilm)[:4] == ["encoder", "hidden_dim", "minilm_batch_size", "minilm_store"]
    assert preset_settings("lstm_ptrnet")["word_dropout"] == (float | None, None)
    assert preset_settings("random") == {"seed": (int, 0)}
    assert "vocab_size" not in preset_settings("pairwise_tsort")
    assert preset_settings("overlap_chain")["skip_top"] == (int, 100)
    assert get_preset("random").takes("anything")  # a baseline ignoring other settings
    assert not get_preset("attordernet").takes("anything")
    assert get_preset("attordernet").takes("ff_dim") and get_preset("han").takes("vocab_size")
    assert NO_DEFAULT is inspect.Parameter.empty


def test_a_settings_class_must_be_a_dataclass_taken_through_kwargs(restored_registry):
    from models.families.attordernet.settings import AttOrderNetSettings

    with pytest.raises(ValueError, match="settings must be a dataclass"):
        register_preset("no_dataclass", settings=dict)(lambda vocab_size, **shared: None)
    with pytest.raises(ValueError, match=r"needs \*\*kwargs"):
        register_preset("no_kwargs", settings=AttOrderNetSettings)(lambda vocab_size: None)


def test_a_family_s_named_sizes_are_its_settings_at_other_defaults(restored_registry):
    """A settings dataclass names sizes (`SIZES`) and head/width pairs (`DIVIDES`) once for
    every preset registering it; a preset keeps the size settings it takes, adds its own,
    and reads them as defaults (`preset_settings(name, size)`); a summary's `{setting}` is
    that setting's declared default."""
    from models.registry import Summary, preset_settings

    @dataclass(frozen=True)
    class Shared:
        SIZES: ClassVar[dict] = {"small": {"width": 4, "depth": 1}, "tiny": {"width": 2}}
        DIVIDES: ClassVar[tuple] = (("heads", "width"),)
        width: int = 8
        heads: int = 2

    def sized(vocab_size: int, *, extra: int = 1, **shared):
        return torch.nn.Linear(Shared(**shared).width, extra)

    summary = Summary(sentences="{width} wide", paragraph="{extra} more", decoder="none")
    register_preset("sized", settings=Shared, sizes={"tiny": {"extra": 3}}, summary=summary,
                    divides=((2, "width"),))(sized)  # fmt: skip
    preset = get_preset("sized")
    assert preset.sizes == {"small": {"width": 4}, "tiny": {"width": 2, "extra": 3}}  # no depth
    assert preset.tiny == {"width": 2, "extra": 3} and preset.toy is None
    assert preset.divides == (("heads", "width"), (2, "width"))
    assert (preset.summary.sentences, preset.summary.paragraph) == ("8 wide", "1 more")
    assert preset_settings("sized", "small") == {"extra": (int, 1), "width": (int, 4),
                                                 "heads": (int, 2)}  # fmt: skip
    assert preset_settings("sized")["width"] == (int, 8)
    with pytest.raises(KeyError, match="preset 'sized' has no size 'huge'; its sizes: small, tiny"):
        preset_settings("sized", "huge")
    with pytest.raises(ValueError, match="size 'tiny' sets 'depth', no setting of it"):
        register_preset("oversized", sizes={"tiny": {"depth": 2}})(sized)
    wrong = Summary(sentences="{depth} deep", paragraph="", decoder="")
    with pytest.raises(ValueError, match=r"summary sentences: \{depth\} is no declared setting"):
        register_preset("misdescribed", settings=Shared, summary=wrong)(sized)


def test_registry_entries_build_tiny_models_and_refuse_a_second_function():
    for name in preset_names():
        model = get_preset(name).build(vocab_size=30, **get_preset(name).tiny)
        learns = any(p.requires_grad for p in model.parameters())
        assert learns == get_preset(name).trainable, name  # its kind says what it has
    assert set(preset_names(trainable=False)) == {"random", "overlap_chain"}
    assert (get_preset("random").kind, get_preset("overlap_chain").kind) == ("baseline", "rule")
    with pytest.raises(ValueError, match="kind must be one of"):
        register_preset("no_kind", kind="heuristic")(lambda vocab_size: None)
    with pytest.raises(ValueError, match="already registered"):
        register_preset("lstm_ptrnet")(lambda vocab_size: None)
    with pytest.raises(KeyError, match="no preset 'nope'"):
        get_preset("nope")


@pytest.fixture
def restored_registry(monkeypatch):
    """The registry as it is, restored after the test (a throwaway preset leaves no trace)."""
    from models import registry

    monkeypatch.setattr(registry, "_PRESETS", registry.presets())  # every module imported
    return registry


def import_documented_example(tmp_path: Path, monkeypatch) -> None:
    """docs/models.md's preset, as written, imported from a throwaway package."""
    python, _ = documented_example()
    package = tmp_path / "throwaway_models"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "cnn_attention.py").write_text(python)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("throwaway_models", "throwaway_models.cnn_attention"):  # imported afresh
        monkeypatch.delitem(sys.modules, name, raising=False)
    __import__("throwaway_models.cnn_attention")


def test_the_documented_example_registers_and_trains_under_noise(
    tmp_path, monkeypatch, restored_registry
):
    """The docs' preset is listed by the registry with its tiny settings and learns a step
    in the noise wrapper (plain torch)."""
    import_documented_example(tmp_path, monkeypatch)
    preset = get_preset("cnn_attention")
    from tests.model_batches import noisy_batch

    model = NoiseWrapper(preset.build(vocab_size=30, **preset.tiny), (1, 1))
    loss = model.loss(noisy_batch(0))
    loss.backward()
    assert torch.isfinite(loss)
    assert all(p.grad is not None for p in model.parameters() if p.requires_grad)


def test_the_documented_example_gets_a_colour_of_its_own(tmp_path, monkeypatch, restored_registry):
    """Followed verbatim, the example adds a preset whose plot colour no other has (the
    plots' check, tests/benchmark/report/test_plots.py), given from the free colours."""
    restored_registry._PRESETS.pop("cnn_attention", None)  # there when followed already
    free = restored_registry.free_colours()
    import_documented_example(tmp_path, monkeypatch)
    colours = restored_registry.preset_colours()
    assert len(set(colours.values())) == len(colours)
    assert colours["cnn_attention"] in free
    assert colours["cnn_attention"] not in restored_registry.free_colours()


def test_the_documented_table_row_is_the_one_make_docs_writes_for_the_example(
    tmp_path, monkeypatch, restored_registry
):
    """The row docs/models.md shows `make docs` adding to its table of presets for the
    example is `models.param_counts.markdown_row` of it: its summary and its counts."""
    from models.param_counts import markdown_row

    section = DOCS.read_text(encoding="utf-8").split("## Adding a model", 1)[1]
    row = re.search(r"```text\n(\| `cnn_attention` \|.*)\n```", section).group(1)
    import_documented_example(tmp_path, monkeypatch)
    assert row == markdown_row("cnn_attention")


def test_make_docs_keeps_the_page_s_order_adds_new_presets_and_drops_unregistered_ones(
    tmp_path, monkeypatch, restored_registry
):
    """`orderbench params markdown=PAGE` rewrites only the lines between the markers: the
    rows in the page's order, regenerated, a new preset's row last, a row of a preset no
    longer registered dropped; a preset without a summary is refused, naming it."""
    from models import param_counts
    from models.registry import Summary

    monkeypatch.setattr(restored_registry, "_PRESETS", {})  # only the presets below
    for name in ("kept_b", "kept_a", "added"):
        summary = Summary(sentences=f"{name} sentences", paragraph="none", decoder="sorted")
        register_preset(name, summary=summary)(lambda vocab_size, **_: torch.nn.Linear(2, 3))
    page = tmp_path / "page.md"
    rows = ["| `kept_a` | old | | | 1 | 0 |", "| `gone` | x | | | 1 | 0 |", "| `kept_b` | y |"]
    page.write_text("\n".join(["# Page", param_counts.BEGIN, "", "| preset |", "|---|", *rows,
                                "", param_counts.END, "after", ""]))  # fmt: skip
    assert param_counts.main(markdown=str(page)) == 0
    lines = page.read_text().splitlines()
    assert lines[:3] + lines[-2:] == ["# Page", param_counts.BEGIN, "", param_counts.END, "after"]
    assert lines[3:-3] == [
        *param_counts.HEADER,
        "| `kept_a` | kept_a sentences | none | sorted | 9 (0 + 9) | 0 |",
        "| `kept_b` | kept_b sentences | none | sorted | 9 (0 + 9) | 0 |",
        "| `added` | added sentences | none | sorted | 9 (0 + 9) | 0 |",
    ]
    assert lines[-3] == "" and page.read_text().endswith("after\n")
    written = page.read_text()
    register_preset("bare")(lambda vocab_size, **_: torch.nn.Linear(2, 3))
    assert param_counts.main(markdown=str(page)) == 2
    assert page.read_text() == written
    with pytest.raises(ValueError, match="preset 'bare' has no summary"):
        param_counts.markdown_row("bare")
    with pytest.raises(ValueError, match="summary must be a Summary"):
        register_preset("untyped", summary=("a", "b", "c"))(lambda vocab_size: None)


def test_a_preset_without_a_colour_is_given_a_free_one_and_keeps_it(restored_registry):
    picked = {name: p.colour for name, p in presets().items() if p.colour}
    register_preset("zz_first")(lambda vocab_size: None)
    register_preset("aa_second")(lambda vocab_size: None)
    colours = restored_registry.preset_colours()
    assert {name: colours[name] for name in picked} == picked  # picked colours stay
    assert len(set(colours.values())) == len(colours)
    assert {colours["zz_first"], colours["aa_second"]} <= set(restored_registry.PALETTE)
    assert restored_registry.preset_colours() == colours  # the same in every plot


def test_a_colour_another_preset_has_is_refused(restored_registry):
    taken = get_preset("minilm_finetune").colour
    refused = f"colour {taken} is already taken by preset 'minilm_finetune'"
    with pytest.raises(ValueError, match=refused):
        register_preset("copycat", colour=taken)(lambda vocab_size: None)


def test_the_registry_lists_colours_summaries_and_free_ones():
    result = subprocess.run([sys.executable, "-m", "models.registry"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:4] == ["preset", "kind", "colour", "chosen"]  # a header
    assert lines[-1].startswith("free colours: #")
    assert {line.split()[0] for line in lines[1:-1]} == set(presets())
    lstm = next(line for line in lines if line.startswith("lstm_ptrnet "))
    summary = "LSTM, final state | LSTM over the shuffled sentences | LSTM pointer from the"
    assert lstm.endswith(f"  {summary} encoder's (h, c)")  # its summary, on one line


@pytest.mark.slow
@pytest.mark.parametrize("noise", ["0", pytest.param("1", marks=pytest.mark.slow)])
def test_a_new_model_is_one_file_and_one_yaml(tmp_path, noise):
    """docs/models.md's example, as written: its code in a package outside the repository
    and its YAML in an extra config folder (hydra.searchpath), trained through the harness
    on the synthetic data."""
    python, config = documented_example()
    config = config.replace(
        "models.presets.cnn_attention", "extra.cnn_attention.cnn_attention"
    )
    (tmp_path / "extra").mkdir()
    (tmp_path / "extra" / "__init__.py").write_text("")
    (tmp_path / "extra" / "cnn_attention.py").write_text(python)
    (tmp_path / "conf" / "model").mkdir(parents=True)
    (tmp_path / "conf" / "model" / "cnn_attention.yaml").write_text(config)
    runs = tmp_path / "runs"
    result = subprocess.run(
        [
            sys.executable, "-m", "benchmark.train",
            "model=cnn_attention", "dataset=synthetic", "+experiment=tiny",
            f"dataset.noise={noise}", f"hydra.searchpath=[file://{tmp_path / 'conf'}]",
            "trainer.max_epochs=1", "evaluate_discrimination=false", "logger=csv",
            "cpu_threads=1", f"paths.runs={runs}",
        ],
        cwd=ROOT,
        env={**os.environ, "WANDB_MODE": "offline", "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=900,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    dataset = "synthetic" if noise == "0" else "synthetic_noise1"
    run_dir = run_dir_of(runs, f"{dataset}/cnn_attention/base")
    record = json.loads((run_dir / "metrics.json").read_text())
    assert record["model"] == "cnn_attention"
    metric = "noise_acc" if noise == "1" else "tau"
    assert metric in record["split"]["test"]
