"""The NIPS page of the Cui et al. 2018 study (studies/cui2018/nips.py) on fabricated runs:
published figures beside ours in their conventions, intervals over seeds and documents, the
named reference, one Holm-corrected family of tests, lines kept for rows whose runs are
gone, the cost table, short rows marked; and the committed page against its records."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from fixtures_runs import edit_record, write_run

from benchmark.config.compose import compose_config
from benchmark.records.run_collection import collect_runs
from studies.cui2018.nips import build, markdown, write
from studies.cui2018.published import NIPS, NSEG


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    for seed in range(3):
        write_run(root, "attordernet", seed, 0.8, dataset="nips", variant="repro_e100")
        write_run(root, "lstm_ptrnet", seed, 0.5, dataset="nips", variant="repro_e100_cui")
    write_run(root, "han", 0, 0.6, dataset="nips", variant="repro_e100")  # one seed only
    write_run(root, "attordernet", 0, 0.1, dataset="brown", variant="repro_e100")  # not NIPS
    return root


def test_rows_hold_ours_beside_the_published_figures(runs: Path):
    table, tests = build(collect_runs(runs), n_resamples=200)
    assert list(table["row"]) == ["LSTM+PtrNet, batch 16, beam 64", "ATTOrderNet",
                                  "HAN (Wang and Wan 2019)"]  # fmt: skip
    attordernet = table.set_index("row").loc["ATTOrderNet"]
    assert attordernet["runs"] == 3 and attordernet["tau_published"] == NIPS["attordernet"]["tau"]
    assert attordernet["acc_diff"] == pytest.approx(attordernet["acc_mean"] - 56.09)
    assert attordernet["tau_ci_low"] <= attordernet["tau_mean"] <= attordernet["tau_ci_high"]
    assert 0 <= attordernet["acc_ci_low"] and attordernet["acc_ci_high"] <= 100
    han = table.set_index("row").loc["HAN (Wang and Wan 2019)"]
    assert pd.isna(han["tau_published"]) and han["runs"] == 1
    # the named reference (ATTOrderNet by default) against the complete rows; HAN (1 run) is
    # left out
    assert tests["reference"] == "ATTOrderNet"
    (only,) = tests["tests"]
    assert (only["row"], only["against"]) == ("LSTM+PtrNet, batch 16, beam 64", "ATTOrderNet")
    assert only["diff"] < 0 and 0 <= only["p"] <= only["p_holm"] <= 1


def test_the_reference_is_the_named_row_not_the_best_one(runs: Path):
    """A complete row better than ATTOrderNet is paired against it, not made the reference;
    a named reference short of its seeds compares nothing; an unknown one names its key."""
    for seed in range(3):
        write_run(runs, "paragraph_listmle", seed, 0.95, dataset="nips", variant="berson_e20")
    table, tests = build(collect_runs(runs), n_resamples=200)
    assert tests["reference"] == "ATTOrderNet"
    by_row = {test["row"]: test for test in tests["tests"]}
    assert by_row["pretrained paragraph encoder + ListMLE"]["diff"] > 0
    _, tests = build(collect_runs(runs), n_resamples=200, reference="han")  # 1 run of 3
    assert tests["reference"] is None and tests["tests"] == []
    page = markdown(table, tests, "repro_e100", ["0" * 40])
    assert "The reference row (`reference=han`) has fewer than 3 finished runs" in page
    with pytest.raises(ValueError, match="reference=bert: no row of the NIPS page"):
        build(collect_runs(runs), n_resamples=200, reference="bert")


def test_a_pretrained_row_takes_the_runs_of_its_own_sweeps_budget(runs: Path):
    """The pretrained rows' runs are those of their sweep's variant (berson_e20); a run of the
    same preset at the page's headline budget is no row's run (an ablation of it)."""
    write_run(runs, "paragraph_listmle", 0, 0.9, dataset="nips", variant="berson_e20")
    write_run(runs, "paragraph_listmle", 0, 0.7, dataset="nips", variant="repro_e100")
    table, tests = build(collect_runs(runs), n_resamples=200)
    listmle = table.set_index("row").loc["pretrained paragraph encoder + ListMLE"]
    assert listmle["runs"] == 1 and listmle["variant"] == "berson_e20"
    assert listmle["tau_mean"] == pytest.approx(0.9, abs=0.2)
    page = markdown(table, tests, "repro_e100", ["0" * 40])
    assert "budget `berson_e20` (`+experiment=berson_recipe`" in page
    assert "at most 20 epochs" in page


def test_the_page_marks_short_rows_and_states_the_cost(runs: Path, tmp_path: Path):
    table, tests = build(collect_runs(runs), n_resamples=200)
    page = markdown(table, tests, "repro_e100", ["0" * 40])
    assert "| HAN (Wang and Wan 2019) | 1 of 3 |" in page
    assert "| MiniLM, top layer fine-tuned | 0 of 3 | — |" in page  # no run: listed, not left out
    assert f"| {NSEG.figures['tau']} |" in page and "≈" in page  # fabricated: no CPU count
    assert "Holm" in page
    # a row short of its seeds is marked in the cost table, has no spread over seeds and is
    # never the cheapest row to reach the SE-Graph log, however high its one seed
    write_run(runs, "paragraph_ptrnet", 0, 0.99, dataset="nips", variant="berson_e20")
    table, tests = build(collect_runs(runs), n_resamples=200)
    page = markdown(table, tests, "repro_e100", ["0" * 40])
    pointer = "pretrained paragraph encoder + pointer"
    [cells] = [line for line in page.splitlines() if line.startswith(f"| {pointer} | 1 of 3 |")]
    assert "±" not in cells
    assert f"| {pointer} (1 of 3 seeds) |" in page
    assert table.set_index("row").loc[pointer, "tau_mean"] > NSEG.figure("tau")
    assert "No complete row reaches the SE-Graph log's tau 0.7506 on average." in page
    written = write(runs, tmp_path / "out")
    assert sorted(p.name for p in written) == [
        "reproduction_nips.csv", "reproduction_nips.md", "reproduction_nips_ablations.csv",
        "reproduction_nips_presentation.csv", "reproduction_nips_tests.csv",
    ]
    page = (tmp_path / "out" / "reproduction_nips.md").read_text()
    assert "| ATTOrderNet | order-free |" in page  # registry: no decoding needed
    assert "| LSTM+PtrNet, batch 16, beam 64 | not measured |" in page  # presentations=0


def test_the_cost_table_says_when_rows_were_timed_on_different_cpus(runs: Path):
    """CPU seconds of different CPU models are not one unit: the cost table counts the
    models of each row's records, and the cheapest-row line says when it ranks across them."""

    def timed_on(run_dir: Path, cpu: str) -> None:
        edit_record(run_dir, lambda record: record.setdefault("environment", {}).update(
            device_name=cpu))

    for seed in range(3):
        timed_on(runs / "nips" / "attordernet" / "repro_e100" / f"seed_{seed}", "CPU A")
    page = markdown(*build(collect_runs(runs), n_resamples=200), "repro_e100", ["0" * 40])
    [attordernet] = [line for line in page.splitlines() if line.startswith("| ATTOrderNet | 0.")]
    assert attordernet.endswith("| 1 |")
    assert "not one unit" not in page  # one CPU model only
    for seed in range(3):
        run_dir = write_run(runs, "paragraph_listmle", seed, 0.95, dataset="nips",
                            variant="berson_e20")  # fmt: skip
        timed_on(run_dir, "CPU B" if seed else "CPU A")
    page = markdown(*build(collect_runs(runs), n_resamples=200), "repro_e100", ["0" * 40])
    [listmle] = [line for line in page.splitlines()
                 if line.startswith("| pretrained paragraph encoder + ListMLE | 0.")]
    assert listmle.endswith("| 2 |")
    assert "were timed on 2 CPU models (CPU A; CPU B): their CPU seconds are not one" in page


def test_the_cost_table_marks_a_peak_reached_under_memory_variables(runs: Path):
    """The allocator variables a run was launched with change its peak memory: a row whose
    seeds name some (`environment.memory_variables`) has its peak marked and explained."""

    def measured(run_dir: Path, **memory: str) -> None:
        def update(record: dict) -> None:
            record["epochs"], record["best_epoch"] = 2, 1
            record["resources"] = {"cpu_seconds_per_epoch": [10.0, 10.0], "peak_rss_mb": 1000.0,
                                   "cpu_seconds_to_selected": 10.0, "train_cpu_seconds": 20.0}
            record.setdefault("environment", {})["device_name"] = "CPU A"
            if memory:
                record["environment"]["memory_variables"] = memory
        edit_record(run_dir, update)

    for seed in range(3):
        measured(runs / "nips" / "attordernet" / "repro_e100" / f"seed_{seed}")
    page = markdown(*build(collect_runs(runs), n_resamples=200), "repro_e100", ["0" * 40])
    assert "‡" not in page
    measured(runs / "nips" / "attordernet" / "repro_e100" / "seed_2",
             ONEDNN_PRIMITIVE_CACHE_CAPACITY="16")
    page = markdown(*build(collect_runs(runs), n_resamples=200), "repro_e100", ["0" * 40])
    [attordernet] = [line for line in page.splitlines() if line.startswith("| ATTOrderNet | 0.")]
    assert "| 1000 ‡ |" in attordernet
    assert "‡: a peak of seeds of which some or all ran under bounded memory settings" in page


def test_the_page_section_holds_the_spread_of_the_order_reading_rows(runs: Path):
    from benchmark.report.presentation_spread import presentation_figures
    from studies.cui2018.nips import row_runs
    from studies.cui2018.nips_presentation import presentation_lines

    groups = row_runs(collect_runs(runs), "repro_e100")
    figures = presentation_figures(groups, 2, pd.DataFrame(),
                                   lambda _, seed: {"tau": 0.5 + seed / 100, "pmr": 0.1,
                                                    "acc": 0.3})  # fmt: skip
    lines = presentation_lines(groups, figures)
    assert lines[:2] == ["", "## Presentation"]
    lstm = next(line for line in lines if line.startswith("| LSTM+PtrNet"))
    assert "| 2 × 3 seeds |" in lstm and lstm.endswith("| 0.515 | 0.0071 | 0.0100 |")


def test_an_ablation_run_is_set_beside_the_rows_run_of_its_seed(runs: Path):
    from studies.cui2018.nips import ablation_lines, ablation_table

    write_run(runs, "attordernet", 1, 0.6, dataset="nips", variant="widths_e100",
              net={"hidden_dim": 1024})
    write_run(runs, "attordernet", 0, 0.9, dataset="brown", variant="widths_e100")  # not NIPS
    write_run(runs, "han", 1, 0.6, dataset="nips", variant="blocks_e100")  # no han seed 1 row run
    (row,) = ablation_table(collect_runs(runs), n_resamples=200).to_dict("records")
    assert (row["preset"], row["variant"], row["seed"]) == ("attordernet", "widths_e100", 1)
    assert row["base_variant"] == "repro_e100" and row["changed"] == "model.net.hidden_dim=1024"
    assert row["diff"] == pytest.approx(row["tau"] - row["tau_base"]) and row["diff"] < 0
    assert row["ci_low"] <= row["diff"] <= row["ci_high"] and 0 <= row["p"] <= 1
    [line] = [line for line in ablation_lines(pd.DataFrame([row])) if "widths_e100" in line]
    assert line.startswith("| attordernet | `widths_e100` | `model.net.hidden_dim=1024` | 1 |")


def test_a_longer_budgets_run_is_the_evidence_beside_the_row_of_its_own_encoder(runs: Path):
    """The 20-epoch mpnet run that named the shorter budget is paired with the mpnet row's
    run of its seed (one key apart), not with the MiniLM row's (the encoder apart too)."""
    from studies.cui2018.nips import ablation_table

    mpnet = {"encoder": "mpnet", "decay_epochs": 10}
    write_run(runs, "paragraph_ptrnet", 0, 0.9, dataset="nips", variant="berson_e20",
              net={"decay_epochs": 20})
    write_run(runs, "paragraph_ptrnet", 0, 0.95, dataset="nips", variant="berson_e20_mpnet",
              net={**mpnet, "decay_epochs": 20})
    (alone,) = ablation_table(collect_runs(runs), n_resamples=200).to_dict("records")
    assert alone["base_variant"] == "berson_e20"  # the only row run of its seed so far
    assert alone["changed"] == "model.net.encoder='mpnet'"
    write_run(runs, "paragraph_ptrnet", 0, 0.97, dataset="nips", variant="berson_e10_mpnet",
              net=mpnet)
    (row,) = ablation_table(collect_runs(runs), n_resamples=200).to_dict("records")
    assert (row["variant"], row["base_variant"]) == ("berson_e20_mpnet", "berson_e10_mpnet")
    assert row["changed"] == "model.net.decay_epochs=20"


def test_the_gpu_figure_is_an_estimate_from_the_profile_scaled_to_the_run():
    from benchmark.records.run_collection import Run
    from studies.cui2018.nips_cost import LAUNCH_SECONDS, gpu_training_seconds, short_commit

    # the profiled experiment is found by the preset its record names (`model`)
    profile = {"experiments": {"lstm_ptrnet_paper": {"model": "lstm_ptrnet", "flops_per_step": {
        "total": 128e9, "docs_per_step": 128.0, "aten_ops": 1000}}}}  # fmt: skip
    record = {"model": "lstm_ptrnet", "steps": 10, "config": {"model": {"batch_size": 16}},
              "dataset": "nips", "variant": "repro_e100_cui", "seed": 0}  # fmt: skip
    run = Run(Path("x"), record)
    # per step: 1000 launches + 16e9 FLOPs (the profile's 128 documents scaled to 16)
    assert gpu_training_seconds(run, profile) == pytest.approx(
        10 * (1000 * LAUNCH_SECONDS + 16e9 / 20e12))
    assert pd.isna(gpu_training_seconds(Run(Path("y"), {**record, "model": "bow_position"}),
                                        profile))  # fmt: skip
    assert short_commit("9da4f509fa22cc9c2af5aa834a27f77eaf8c6756+dirty") == "9da4f509fa22+dirty"
    assert short_commit("96cf71962150234ea2b911cb9f915a36c3a5d2b7") == "96cf71962150"


def test_the_rows_are_the_sweeps_experiments_and_every_label_is_of_one():
    """The page's rows come from the NIPS sweep's experiment list and each pretrained sweep's
    presets (each written once), 13 with runs today and the three BERT-base-sized ones; a
    label for a row no sweep runs would be stale."""
    from studies.cui2018.nips import PAGE_SWEEP, pretrained_sweep, rows
    from studies.cui2018.rows import LABELS, listed, sweep_params

    experiments = listed(sweep_params(PAGE_SWEEP)["+experiment"])
    minilm, mpnet = pretrained_sweep("nips_pretrained"), pretrained_sweep("nips_pretrained_mpnet")
    assert len(experiments) == 10 and minilm.presets == ("paragraph_listmle", "paragraph_ptrnet",
                                                         "paragraph_tsort")
    assert len(rows()) == 16 and len({row.label for row in rows()}) == 16
    assert set(LABELS) <= set(experiments) | set(minilm.presets) | {
        "attordernet_released"}  # the reproduction page's row
    first = [(r.preset, r.tag) for r in rows()][:2]
    assert first == [("lstm_ptrnet", "_cui"), ("cnn_ptrnet", "_cui")]
    assert (minilm.variant, mpnet.variant, mpnet.encoder) == ("berson_e20", "berson_e10_mpnet",
                                                              "mpnet")
    assert [(r.preset, r.run_variant("repro_e100")) for r in rows()[10:13]] == [
        (preset, minilm.variant) for preset in minilm.presets]
    assert [(r.preset, r.encoder) for r in rows()[13:]] == [
        (preset, "mpnet") for preset in mpnet.presets]
    assert rows()[13].label == "pretrained paragraph encoder + pointer, all-mpnet-base-v2"
    assert rows()[0].run_variant("repro_e100") == "repro_e100_cui"
    # a row's preset is the model name its runs record
    assert tuple(str(compose_config([f"model={p}"]).model.name) for p in minilm.presets) \
        == minilm.presets
    assert {r.preset for r in rows() if r.paper} == {
        "lstm_ptrnet", "cnn_ptrnet", "attordernet", "attordernet_att", "attordernet_cnn",
    }


def test_a_pretrained_paragraph_row_takes_its_own_encoders_count():
    from benchmark.records.run_collection import Run
    from studies.cui2018.nips_cost import LAUNCH_SECONDS, bert_base_lines, gpu_training_seconds

    minilm = {"preset": "paragraph_listmle", "encoder": "all-MiniLM-L6-v2 (bundled)",
              "train_flops_per_doc": 2e9, "aten_ops_per_step": 3000}  # fmt: skip
    bert = {**minilm, "encoder": "BERT-base shape (BertConfig defaults, random weights)",
            "train_flops_per_doc": 16e9, "parameters": 110e6,
            "estimate": {"gpu_minutes_20_epochs": 10.4, "training_state_gib": 1.6}}  # fmt: skip
    profile = {"paragraph": {"encoders": [minilm, bert]}}
    record = {"model": "paragraph_listmle", "steps": 100, "dataset": "nips", "seed": 0,
              "config": {"model": {"batch_size": 8, "net": {}}}}  # fmt: skip
    expected = 100 * (3000 * LAUNCH_SECONDS + 8 * 2e9 / 20e12)  # the bundled encoder's count
    assert gpu_training_seconds(Run(Path("x"), record), profile) == pytest.approx(expected)
    other = {**record, "config": {"model": {"batch_size": 8, "net": {"encoder": "/elsewhere"}}}}
    assert pd.isna(gpu_training_seconds(Run(Path("y"), other), profile))  # not counted
    line = " ".join(bert_base_lines(profile))
    assert "110 M parameters" in line and "8.0 times MiniLM's" in line and "10 GPU minutes" in line
    assert "Measured since" not in line  # no GPU check committed in this profile
    assert bert_base_lines({}) == []
    # another head's count: its BERT-base figure joins the line; the ratio stays its own head's
    profile["paragraph"]["encoders"] += [
        {**minilm, "preset": "paragraph_ptrnet", "train_flops_per_doc": 4e9},
        {**bert, "preset": "paragraph_ptrnet", "estimate": {"gpu_minutes_20_epochs": 12.2}}]
    line = " ".join(bert_base_lines(profile))
    assert "8.0 times MiniLM's" in line
    assert "with the other heads: `paragraph_ptrnet` 12 GPU minutes" in line
    bert["train_batches"], bert["estimate"]["gpu_seconds_per_epoch"] = 300, 30.0
    profile["paragraph"]["constants"] = {"epochs": 20}
    profile["gpu_check"] = {"steps": {"paragraph_bert": {
        "status": "ok", "gpu": "NVIDIA H200", "precision": "bf16", "train_step_ms": 200.0,
        "train_peak_memory_mib": 3584.0}}}  # fmt: skip
    measured = " ".join(bert_base_lines(profile))
    assert ("200 ms a training step, so 60 s an epoch of training and **about 20 GPU minutes "
            "for 20 epochs**, 2.0 times the estimate's epoch; 3.5 GiB") in measured
    assert "one NVIDIA H200" in measured and "precision bf16" in measured


def test_a_run_that_cannot_be_decoded_again_is_named_after_the_page(runs: Path, tmp_path: Path,
                                                                    monkeypatch, capsys):
    import benchmark.presentation as presentation
    from benchmark.run.finished_run import RunError
    from studies.cui2018.nips import main

    def decode(run_dir: Path, seed: int) -> dict:
        if run_dir.name == "seed_1":  # an archived record: no checkpoint to decode from
            raise RunError(f"{run_dir}: no checkpoint")
        return {"tau": 0.4 + seed / 100, "pmr": 0.1, "acc": 0.3}

    monkeypatch.setattr(presentation, "decode_presented", decode)
    out = tmp_path / "out"
    assert main([f"runs={runs}", f"out={out}", "presentations=2"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "seed_1: no checkpoint" in err
    assert f"missing from {out / 'reproduction_nips_presentation.csv'}" in err
    page = (out / "reproduction_nips.md").read_text()  # written all the same
    assert "| LSTM+PtrNet, batch 16, beam 64 | 2 × 2 seeds of 3 |" in page


def test_every_published_figure_stands_in_the_column_of_its_convention(runs: Path):
    """Ours in both accuracies and the pooled LCS (the pooled ones over all test sentences,
    as SE-Graph's, B-TSort's and Re-BART's code count them); each published figure in the
    column of its convention."""
    from benchmark.metrics.order import lcs_ratio, position_accuracy
    from studies.cui2018.nips import METRICS
    from studies.cui2018.published import BTSORT

    table, tests = build(collect_runs(runs), n_resamples=200)
    run = collect_runs(runs / "nips" / "attordernet")[0]  # seed 0
    records = run.predictions()
    sentences = sum(len(r["gold"]) for r in records)
    right = sum(round(position_accuracy(r["gold"], r["pred"]) * len(r["gold"])) for r in records)
    common = sum(round(lcs_ratio(r["gold"], r["pred"]) * len(r["gold"])) for r in records)
    row = table.set_index("row").loc["ATTOrderNet"]
    seed_0 = load_seed_figures(runs / "nips" / "attordernet")
    assert seed_0["acc_pooled"] == pytest.approx(right / sentences)
    assert seed_0["lcs_pooled"] == pytest.approx(common / sentences)
    assert row["acc_pooled_ci_low"] <= row["acc_pooled_mean"] <= row["acc_pooled_ci_high"]
    page = markdown(table, tests, "repro_e100", ["0" * 40])
    header = next(line for line in page.splitlines() if line.startswith("| published |"))
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    btsort = next(line for line in page.splitlines() if line.startswith(f"| {BTSORT.label} |"))
    cells = dict(zip(columns, [cell.strip() for cell in btsort.strip("|").split("|")],
                     strict=True))  # fmt: skip
    assert cells["accuracy % pooled"] == "61.48" and cells["LCS % pooled"] == "83.45"
    assert cells["accuracy % per document"] == "—"  # B-TSort pools; no per-document figure
    assert [name for _, name in METRICS.values()] == columns[2:-1]
    seg = next(line for line in page.splitlines() if line.startswith(f"| {NSEG.label} |"))
    assert "| this split | — | 57.56 | 24.40 | 0.7506 | — |" in seg


def load_seed_figures(row_dir: Path) -> dict[str, float]:
    """Seed 0's corpus figures of a row, from its predictions (`seeded_paired.load_row`)."""
    from benchmark.stats.seeded_paired import load_row

    seeded = load_row(sorted(collect_runs(row_dir), key=lambda run: run.seed))
    return dict(zip(seeded.keys, seeded.seed_figures()[0], strict=True))


def test_a_row_whose_runs_are_gone_keeps_its_line_its_test_and_its_ablations(runs: Path,
                                                                             tmp_path: Path):
    """Made again from a runs folder without a row's runs, the page keeps that row's line,
    its paired test and its ablation from its earlier tables, marked †, and Holm covers the
    kept and the new tests together; a row with a run here is computed, never kept."""
    import shutil

    from benchmark.stats.multiple_testing import holm
    from studies.cui2018.nips_kept import Earlier

    write_run(runs, "lstm_ptrnet", 0, 0.55, dataset="nips", variant="cui_no_vectors_e100")
    out = tmp_path / "out"
    write(runs, out)
    before = pd.read_csv(out / "reproduction_nips.csv").set_index("row")
    lstm = "LSTM+PtrNet, batch 16, beam 64"
    [before_test] = pd.read_csv(out / "reproduction_nips_tests.csv").to_dict("records")
    shutil.rmtree(runs / "nips" / "lstm_ptrnet")  # its machine is gone
    for seed in range(3):
        write_run(runs, "paragraph_listmle", seed, 0.95, dataset="nips", variant="berson_e20")
    write(runs, out)
    after = pd.read_csv(out / "reproduction_nips.csv").set_index("row")
    assert after.loc[lstm, "kept"] and not after.loc["ATTOrderNet", "kept"]
    for column in ("tau_mean", "tau_ci_low", "acc_mean", "pmr_std", "acc_pooled_mean"):
        assert after.loc[lstm, column] == pytest.approx(before.loc[lstm, column])
    tests = pd.read_csv(out / "reproduction_nips_tests.csv").set_index("row")
    assert tests.loc[lstm, "kept"] and tests.loc[lstm, "p"] == pytest.approx(before_test["p"])
    assert list(tests.index) == [lstm, "pretrained paragraph encoder + ListMLE"]
    assert list(tests["p_holm"]) == pytest.approx(holm(list(tests["p"])))  # one family
    page = (out / "reproduction_nips.md").read_text()
    assert f"| {lstm} † | 3 |" in page and f"| {lstm} † | ATTOrderNet |" in page
    assert "| lstm_ptrnet † | `cui_no_vectors_e100` |" in page
    assert "`0000000000" in page.split("† A row whose runs")[1]  # the kept line's commits
    # a run of the row again: the row is computed from it (1 of 3), not kept
    write_run(runs, "lstm_ptrnet", 0, 0.5, dataset="nips", variant="repro_e100_cui")
    table, tests = build(collect_runs(runs), n_resamples=200, earlier=Earlier.read(out))
    row = table.set_index("row").loc[lstm]
    assert row["runs"] == 1 and not row["kept"]
    assert lstm not in {test["row"] for test in tests["tests"]}  # short: not compared


def test_a_bert_base_row_is_paired_with_attordernet_and_the_minilm_row_of_its_head(runs: Path):
    """The BERT-base-sized rows (nips_pretrained_mpnet.yaml) are compared with the reference
    and with the MiniLM row of the same head, in the one Holm family of the page."""
    for seed in range(3):
        write_run(runs, "paragraph_ptrnet", seed, 0.9, dataset="nips", variant="berson_e20")
        write_run(runs, "paragraph_ptrnet", seed, 0.97, dataset="nips",
                  variant="berson_e10_mpnet", net={"encoder": "mpnet"})
    table, tests = build(collect_runs(runs), n_resamples=200)
    mpnet = "pretrained paragraph encoder + pointer, all-mpnet-base-v2"
    pairs = [(test["row"], test["against"]) for test in tests["tests"]]
    assert pairs == [("LSTM+PtrNet, batch 16, beam 64", "ATTOrderNet"),
                     ("pretrained paragraph encoder + pointer", "ATTOrderNet"),
                     (mpnet, "ATTOrderNet"),
                     (mpnet, "pretrained paragraph encoder + pointer")]  # fmt: skip
    assert all(test["p"] <= test["p_holm"] for test in tests["tests"])
    assert table.set_index("row").loc[mpnet, "variant"] == "berson_e10_mpnet"
    page = markdown(table, tests, "repro_e100", ["0" * 40])
    assert "Holm-corrected over the page's 4 comparisons" in page
    assert f"| {mpnet} | pretrained paragraph encoder + pointer | +" in page
    assert "| pretrained paragraph encoder + ListMLE, all-mpnet-base-v2 | 0 of 3 |" in page


def test_the_committed_table_agrees_with_the_records_of_its_runs():
    """results/reproduction_nips.csv: each row computed from archived records has their mean
    tau, accuracy and PMR; each kept row (its runs gone) the means of the leaderboard of the
    same runs (results/nips/leaderboard.csv)."""
    from tests.repo_root import ROOT

    table = pd.read_csv(ROOT / "results" / "reproduction_nips.csv")
    board = pd.read_csv(ROOT / "results" / "nips" / "leaderboard.csv")
    records = collect_runs(ROOT / "results" / "nips_paragraph" / "records")
    assert len(table) == 14 and table["kept"].sum() == 9  # every row complete at 3 seeds
    for _, row in table.iterrows():
        if row["kept"]:
            means = board[(board["preset"] == row["preset"])
                          & (board["variant"] == row["variant"])].iloc[0]  # fmt: skip
            expected = {m: means[f"{m}_mean"] for m in ("tau", "acc", "pmr", "acc_pooled")}
        else:
            runs = [run for run in records
                    if (run.preset, run.variant) == (row["preset"], row["variant"])]
            assert len(runs) == row["runs"] == 3
            expected = {m: sum(run.metrics[m] for run in runs) / len(runs)
                        for m in ("tau", "acc", "pmr")}  # fmt: skip
        for metric, value in expected.items():
            scale = 1.0 if metric == "tau" else 100.0
            assert row[f"{metric}_mean"] == pytest.approx(value * scale, rel=1e-5), metric


@pytest.mark.slow
def test_the_committed_page_is_what_its_records_and_kept_lines_make(tmp_path: Path):
    """The committed NIPS page made again from the archived records and the kept lines beside
    it gives every figure of its tables as committed (~30 s: the paired bootstraps)."""
    import shutil

    from studies.cui2018.nips_kept import ABLATIONS_CSV, TABLE_CSV, TESTS_CSV
    from studies.cui2018.nips_presentation import PRESENTATION_CSV
    from tests.repo_root import ROOT

    results, out = ROOT / "results", tmp_path / "out"
    out.mkdir()
    for name in (TABLE_CSV, TESTS_CSV, ABLATIONS_CSV, PRESENTATION_CSV):
        shutil.copy(results / name, out / name)
    write(results / "nips_paragraph" / "records", out)
    for name in (TABLE_CSV, TESTS_CSV, ABLATIONS_CSV):
        committed, made = pd.read_csv(results / name), pd.read_csv(out / name)
        pd.testing.assert_frame_equal(made, committed, check_exact=False, rtol=1e-5)


def test_the_recipe_s_warm_up_is_two_epochs_of_the_nips_training_split():
    """berson_recipe.yaml's 608 warm-up steps are 10 % of its 20 epochs of the NIPS training
    split at batch 8, the split's size read where it is written once (data/readers/nseg.py)."""
    import math

    from data.readers.nseg import SOURCE

    cfg = compose_config(["+experiment=berson_recipe", "+reproduce=nips"])
    steps_per_epoch = math.ceil(SOURCE.sizes["train"] / cfg.model.batch_size)
    assert cfg.model.net.warmup_steps == round(0.1 * cfg.trainer.max_epochs * steps_per_epoch)
