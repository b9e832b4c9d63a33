"""Every result plot drawn from fabricated run records (`tests/fixtures_runs.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fixtures_runs import edit_record, write_run
from matplotlib.container import ErrorbarContainer
from PIL import Image

from benchmark.metrics.breakdowns import length_bucket
from benchmark.records.run_collection import collect_runs
from benchmark.report.ablation_studies import ablation_studies
from benchmark.report.ablations import ablation_levels, compared_levels, factor_value
from benchmark.report.plot_style import PRESET_COLOURS, preset_colour
from benchmark.report.plots import (
    breakdown_plot,
    bucket_figures,
    main,
    make_plots,
    run_breakdowns,
)
from benchmark.stats.bootstrap import bootstrap_summary

HAN_BASE = {"_target_": "models.presets.han", "num_blocks": 3, "heads": 4, "dropout": 0.05}
HAN_ABLATIONS = (  # variant -> overrides of the base settings, as an ablation sweep makes
    ("blocks_1", {"num_blocks": 1}), ("blocks_2", {"num_blocks": 2}),
    ("heads_2", {"heads": 2}), ("heads_8", {"heads": 8}),
    ("dropout_0.0", {"dropout": 0.0}), ("dropout_0.2", {"dropout": 0.2}),
    ("no_word_attention", {"word_attention": False}),
)
# variant -> the one setting it changes (models/families/attordernet/conf/ablation/)
ATTORDERNET_DEVIATIONS = (
    ("mean_pooling", {"sentence_pooling": "mean"}),
    ("paragraph_keys", {"pointer_keys": "paragraph"}),
    ("released_cell", {"initial_cell": "paragraph"}),
    ("released_prenorm", {"paragraph_norm": "pre"}),
    ("released_ff", {"ff_dim": 2048}),
    ("released_width", {"hidden_dim": 1024}),
)
RELEASED_RUN_SETTINGS = (  # variant -> a setting of the run config outside model.net
    ("released_vocab", "dataset.datamodule.vocab_splits", ["train", "valid", "test"]),
    ("released_drop_last", "dataset.datamodule.drop_last", True),
    ("released_select_pmr", "early_stopping.monitor", "val/pmr"),
    ("released_test_loop", "test_shuffles", 20),
    ("released_lr_decay", "model.scheduler", {
        "_target_": "torch.optim.lr_scheduler.ExponentialLR", "_partial_": True, "gamma": 0.95}),
)


def set_config(run_dir: Path, dotted: str, value) -> None:
    """Put `value` at `dotted` in the run record's config."""

    def update(record: dict) -> None:
        *parents, leaf = dotted.split(".")
        node = record["config"]
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value

    edit_record(run_dir, update)


def study(name: str):
    return next(study for study in ablation_studies() if study.name == name)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """Every preset (2 seeds) and every ablation study (1 seed) on brown."""
    root = tmp_path_factory.mktemp("runs")
    for seed in range(2):
        for preset, quality in (("random", 0.0), ("lstm_ptrnet", 0.7), ("cnn_ptrnet", 0.65),
                                ("attordernet", 0.8), ("attordernet_att", 0.75),
                                ("attordernet_cnn", 0.7), ("minilm_ptrnet", 0.8)):
            write_run(root, preset, seed, quality, net={"_target_": f"models.presets.{preset}"})
        # the base HAN config leaves word_attention out: the preset's default (True) counts
        write_run(root, "han", seed, 0.8, net=HAN_BASE)
    for variant, overrides in HAN_ABLATIONS:
        write_run(root, "han", 0, 0.6, variant=variant, net={**HAN_BASE, **overrides})
    for preset in ("attordernet", "attordernet_att"):
        write_run(root, preset, 0, 0.6, variant="positions",
                  net={"_target_": f"models.presets.{preset}", "paragraph_positions": True})
    for variant, setting in ATTORDERNET_DEVIATIONS:
        write_run(root, "attordernet", 0, 0.7, variant=variant,
                  net={"_target_": "models.presets.attordernet", **setting})
    write_run(root, "attordernet_cnn", 0, 0.65, variant="released_cnn_widths",
              net={"_target_": "models.presets.attordernet_cnn", "filter_width": [4, 5]})
    for variant, key, value in RELEASED_RUN_SETTINGS:
        run_dir = write_run(root, "attordernet", 0, 0.7, variant=variant,
                            net={"_target_": "models.presets.attordernet"})
        set_config(run_dir, key, value)
    for run_dir in root.glob("brown/*/*/seed_*"):  # as every run records it
        if json.loads((run_dir / "metrics.json").read_text())["variant"] != "released_select_pmr":
            set_config(run_dir, "early_stopping.monitor", "val/tau")
    # a variant of no ablation file (e.g. another budget): in no ablation study
    write_run(root, "attordernet", 0, 0.2, variant="epochs30",
              net={"_target_": "models.presets.attordernet"})
    return root


@pytest.fixture(scope="module")
def plots(runs: Path, tmp_path_factory) -> tuple[dict[str, Path], list[str]]:
    return make_plots(collect_runs(runs), tmp_path_factory.mktemp("plots"))


@pytest.mark.slow
def test_every_plot_is_drawn(plots):
    written, notes = plots
    expected = {"brown_main_metrics", "brown_tau_by_length", "brown_tau_by_genre"} | {
        f"brown_ablation_{study.name}" for study in ablation_studies()
    } | {  # the variant of no ablation study gets the per-variant plots of its own
        "brown_main_metrics_epochs30", "brown_tau_by_length_epochs30",
        "brown_tau_by_genre_epochs30",
    }
    assert set(written) == expected
    assert notes == []


@pytest.mark.slow
def test_plot_files_are_valid_non_trivial_png_images(plots):
    for name, path in plots[0].items():
        assert path.name == f"{name}.png"
        assert path.stat().st_size > 10_000, name
        with Image.open(path) as image:
            image.verify()
        with Image.open(path) as image:
            assert image.format == "PNG"
            assert image.width >= 400 and image.height >= 300, name
            assert len(image.getcolors(maxcolors=1 << 20) or range(1 << 20)) > 10, name


def test_one_factor_studies_keep_other_factors_at_the_base_setting(runs: Path):
    brown = collect_runs(runs)
    blocks = study("han_blocks")
    levels = ablation_levels(blocks, brown)
    assert list(levels) == [1, 2, 3]
    assert [len(group) for group in levels.values()] == [1, 1, 2]  # base runs: 2 seeds
    words = study("han_word_attention")
    assert {value: len(group) for value, group in ablation_levels(words, brown).items()} == {
        False: 1, True: 2
    }
    dropout = study("han_dropout")
    assert list(ablation_levels(dropout, brown)) == [0.0, 0.05, 0.2]


def test_a_one_factor_study_over_several_presets_pairs_preset_and_value(runs: Path):
    positions = study("attordernet_positions")
    levels = ablation_levels(positions, collect_runs(runs))
    assert list(levels) == [
        ("attordernet", False), ("attordernet", True),
        ("attordernet_att", False), ("attordernet_att", True), ("attordernet_cnn", False),
    ]
    assert compared_levels(positions, levels) == 2
    # the deviation runs of attordernet differ in another studied setting: left out
    assert len(levels[("attordernet", False)]) == 2  # the base runs, 2 seeds
    only_base = {level: group for level, group in levels.items() if level[1] is False}
    assert compared_levels(positions, only_base) == 1


def test_a_deviation_study_sets_the_paper_setting_against_the_deviation(runs: Path):
    levels = ablation_levels(study("attordernet_sentence_pooling"), collect_runs(runs))
    # base runs at the preset's default; the other deviations and `epochs30` are left out
    assert {value: len(group) for value, group in levels.items()} == {"last": 2, "mean": 1}


def test_missing_config_values_fall_back_to_the_preset_default(runs: Path):
    han = next(run for run in collect_runs(runs) if run.preset == "han")
    assert han.config_value("model.net.word_attention") is None
    assert factor_value(han, "model.net.word_attention") is True
    assert factor_value(han, "model.net.no_such_setting") is None


def test_preset_studies_use_base_variants_in_table_order(runs: Path):
    swap = study("attordernet_sentence_encoder")
    levels = ablation_levels(swap, collect_runs(runs))
    assert list(levels) == list(swap.presets)
    assert all(run.variant == "base" for group in levels.values() for run in group)


def test_breakdowns_come_from_the_record_or_else_from_the_predictions(tmp_path: Path):
    run_dir = write_run(tmp_path, "han", 0, 0.7)
    stored = json.loads((run_dir / "metrics.json").read_text())
    (run,) = collect_runs(tmp_path)
    assert run_breakdowns(run) == stored["breakdowns"]["test"]
    edit_record(run_dir, lambda record: record.pop("breakdowns"))
    (run,) = collect_runs(tmp_path)
    recomputed = run_breakdowns(run)
    assert recomputed["length"].keys() == stored["breakdowns"]["test"]["length"].keys()
    assert recomputed["meta.genre"]["news"]["tau"] == pytest.approx(
        stored["breakdowns"]["test"]["meta.genre"]["news"]["tau"]
    )


def test_plots_without_their_runs_are_skipped_with_a_note(tmp_path: Path):
    write_run(tmp_path / "runs", "lstm_ptrnet", 0, 0.7, variant="ablation_only")
    # han_blocks_1.yaml (models/families/han/conf/ablation/): a study's
    write_run(tmp_path / "runs", "han", 0, 0.7, variant="blocks_1")
    (tmp_path / "runs/brown/lstm_ptrnet/ablation_only/seed_0/predictions.jsonl").unlink()
    edit_record(tmp_path / "runs/brown/lstm_ptrnet/ablation_only/seed_0",
                lambda record: record.pop("breakdowns"))
    written, notes = make_plots(collect_runs(tmp_path / "runs"), tmp_path / "plots")
    assert set(written) == {"brown_main_metrics_ablation_only"}
    assert ("brown_main_metrics: skipped, no run with variant=base (drawn for ablation_only)"
            in notes)
    assert any(note.startswith("brown_ablation_han_blocks: skipped") for note in notes)
    assert any(note.startswith("brown_tau_by_genre_ablation_only: skipped") for note in notes)


def test_a_noise_run_with_buckets_without_order_figures_is_plotted(tmp_path: Path):
    """Under `dataset.noise=1` a bucket whose documents all keep a distractor has no tau
    (null in the record): its point is left out, the plots are drawn."""
    for seed in range(2):
        write_run(tmp_path / "runs", "han", seed, 0.8, dataset="brown_noise1", noise_kept_up_to=3)
    (run, _) = collect_runs(tmp_path / "runs")
    assert run.record["breakdowns"]["test"]["length"]["2-3"]["tau"] is None
    written, _ = make_plots(collect_runs(tmp_path / "runs"), tmp_path / "plots")
    assert {"brown_noise1_main_metrics", "brown_noise1_tau_by_length",
            "brown_noise1_tau_by_genre"} <= set(written)


def test_runs_of_any_variant_are_plotted(tmp_path: Path):
    """A smoke sweep's runs (variant `smoke`, no `base` run) get their own plots."""
    for seed in range(2):
        for preset, quality in (("lstm_ptrnet", 0.7), ("random", 0.0)):
            write_run(tmp_path / "runs", preset, seed, quality, dataset="synthetic",
                      variant="smoke")
    written, _ = make_plots(collect_runs(tmp_path / "runs"), tmp_path / "plots")
    assert {"synthetic_main_metrics_smoke", "synthetic_tau_by_length_smoke",
            "synthetic_tau_by_genre_smoke"} <= set(written)
    assert not {"synthetic_main_metrics", "synthetic_tau_by_length"} & set(written)


def error_bars(figure) -> list[np.ndarray]:
    """The half-lengths of every drawn error bar of a one-axis figure."""
    (axis,) = figure.axes
    lengths = []
    for container in axis.containers:
        if isinstance(container, ErrorbarContainer):
            (segments,) = container.lines[2]
            lengths += [np.ptp(np.asarray(s)[:, 1]) for s in segments.get_segments()]
    return lengths


@pytest.mark.parametrize("field", ["length", "meta.genre"])
def test_every_breakdown_bar_has_an_interval_over_its_documents(tmp_path: Path, field: str):
    for seed in range(2):
        write_run(tmp_path / "runs", "han", seed, 0.7)
    write_run(tmp_path / "runs", "lstm_ptrnet", 0, 0.6)
    runs = collect_runs(tmp_path / "runs")
    han = [run for run in runs if run.preset == "han"]
    figures, with_interval = bucket_figures(han, field)
    assert with_interval
    stored = [run.record["breakdowns"]["test"][field] for run in han]
    for bucket, figure in figures.items():
        assert figure.mean == pytest.approx(np.mean([s[bucket]["tau"] for s in stored]))
        assert figure.ci_low < figure.mean < figure.ci_high, bucket
        assert figure.n_docs == stored[0][bucket]["n_docs"]
    # one seed: the bootstrap of the bucket's documents, as the run's own intervals are made
    (lstm,) = [run for run in runs if run.preset == "lstm_ptrnet"]
    records = lstm.predictions()
    bucket = next(iter(bucket_figures([lstm], field)[0]))
    members = [r for r in records if bucket == (
        length_bucket(len(r["gold"])) if field == "length" else r["meta"]["genre"])]
    expected = bootstrap_summary(members, n_resamples=1000)["tau"]
    (figure,) = [bucket_figures([lstm], field)[0][bucket]]
    assert (figure.ci_low, figure.ci_high) == pytest.approx(
        (expected["ci_low"], expected["ci_high"]))
    groups = {"han": han, "lstm_ptrnet": [lstm]}
    drawn = breakdown_plot("brown", groups, field, "tau", "bucket")
    lengths = error_bars(drawn)
    assert len(lengths) == sum(len(bucket_figures(g, field)[0]) for g in groups.values())
    assert all(length > 0 for length in lengths)
    assert "bootstrap CI over the documents of each bar" in drawn.get_suptitle()


def test_the_default_output_is_beside_the_runs_never_the_committed_plots(
    tmp_path: Path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    committed = tmp_path / "results/plots/brown_main_metrics.png"
    committed.parent.mkdir(parents=True)
    committed.write_bytes(b"committed")
    write_run(tmp_path / "runs", "han", 0, 0.7)
    assert main([]) == 0
    assert committed.read_bytes() == b"committed"
    assert (tmp_path / "runs/reports/plots/brown_main_metrics.png").is_file()


def test_each_preset_keeps_one_distinct_colour():
    assert len(set(PRESET_COLOURS.values())) == len(PRESET_COLOURS)
    assert preset_colour("my_new_model") == preset_colour("my_new_model")
    assert preset_colour("han") == PRESET_COLOURS["han"]


def test_cli_with_offline_wandb_images(tmp_path: Path, capsys, monkeypatch):
    monkeypatch.setenv("WANDB_DIR", str(tmp_path))
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.delenv("WANDB_MODE", raising=False)  # offline is the default
    write_run(tmp_path / "runs", "han", 0, 0.7)
    argv = [f"runs={tmp_path / 'runs'}", f"out={tmp_path / 'plots'}", "wandb=true"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    (summary,) = [line for line in printed.splitlines() if "ablation plot" in line]
    assert "note: " in summary and "brown_ablation_han_blocks" in summary
    assert str(tmp_path / "plots" / "brown_main_metrics.png") in printed
    (run,) = tmp_path.glob("wandb/offline-run-*")
    images = {path.name.split("_0_")[0] for path in run.glob("files/media/images/plots/*.png")}
    assert images == {"brown_main_metrics", "brown_tau_by_length", "brown_tau_by_genre"}
    assert main([f"runs={tmp_path / 'missing'}"]) == 2
    assert "no such runs directory" in capsys.readouterr().err
