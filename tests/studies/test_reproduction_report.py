"""results/reproduction.{md,csv} from fabricated runs (`studies.cui2018.reproduction`)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from benchmark.records.run_collection import collect_runs
from studies.cui2018.reproduction import (
    PAPER,
    ablation_summary,
    beyond_paper,
    build,
    main,
    page_rows,
)
from studies.selection_variance.selection_variance import (
    budget_pairs,
    noise_table,
    summarise,
    valid_curve,
)
from studies.selection_variance.selection_variance import main as noise_main
from tests.fixtures_runs import edit_record, write_run


def add_discrimination(run_dir: Path, acc: float, published: bool) -> None:
    """The discrimination figures and their interval, as `benchmark.train` adds them."""
    source = {"source": "published", "n_pairs": 1986} if published else {"source": "own"}

    def update(record: dict) -> None:
        record["split"]["test"] |= {"disc_acc": acc, "disc_n_pairs": 1986, "disc_ties": 0}
        record["ci"]["test"]["disc_acc"] = {"mean": acc, "ci_low": acc - 0.01,
                                            "ci_high": acc + 0.01}
        record["protocol"] = {"discrimination": {"permutations": source}}

    edit_record(run_dir, update)


def add_training(
    run_dir: Path, curve: list[float], best: int, budget: tuple[int, int], ci: float = 0.05,
    zero_based: bool = False,
) -> None:
    """The training facts of a run as `benchmark.train` records them: the budget in the
    config, epochs / best epoch / how it stopped, the selected checkpoint's valid tau with
    its interval over the validation documents, and the per-epoch CSV log (`curve`: valid
    tau after each epoch, counted from 1, then the test row at the best epoch; with
    `zero_based`, a log of before: counted from 0, ending with the re-evaluation of the best
    epoch as one epoch more)."""
    max_epochs, patience = budget
    stopped_by = "max_epochs" if len(curve) == max_epochs else "early_stopping"
    selected = curve[best - 1]

    def update(record: dict) -> None:
        record["config"] |= {"trainer": {"max_epochs": max_epochs},
                             "early_stopping": {"patience": patience}}  # fmt: skip
        record |= {"epochs": len(curve), "best_epoch": best, "stopped_by": stopped_by}
        record["split"]["valid"] = {"tau": selected, "n_docs": 10}
        record["ci"]["valid"] = {"tau": {"mean": selected, "ci_low": selected - ci,
                                         "ci_high": selected + ci}}  # fmt: skip

    edit_record(run_dir, update)
    rows = ["epoch,step,train/loss,val/tau,test/tau"]
    first = 0 if zero_based else 1
    rows += [f"{epoch},{5 * epoch + 4},,{value}," for epoch, value in enumerate(curve, first)]
    rows += [f"{epoch},{5 * epoch + 4},1.5,," for epoch in range(first, len(curve) + first)]
    if zero_based:
        rows.append(f"{len(curve)},{5 * len(curve)},,{selected},")  # the best one again
    else:
        rows.append(f"{best},{5 * len(curve)},,,0.5")  # the test of the best checkpoint
    (run_dir / "csv").mkdir()
    (run_dir / "csv" / "metrics.csv").write_text("\n".join(rows) + "\n")


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    for seed, acc in zip((0, 1, 2), (0.90, 0.92, 0.94), strict=True):
        add_discrimination(
            write_run(tmp_path, "attordernet", seed, 0.8, "accident", "repro"), acc, True
        )
    add_discrimination(write_run(tmp_path, "attordernet", 0, 0.5, "accident", "mean_pooling"),
                       0.80, True)  # fmt: skip
    return tmp_path


def published(table):
    """The rows of the published-test protocol (the paper-setting rows have no tag)."""
    return table[(table.protocol == "published_test") & ~table.variant.str.endswith(
        ("_released", "_cui"))]  # fmt: skip


def test_cells_hold_mean_std_interval_paper_and_difference(runs: Path):
    table, others = build(collect_runs(runs), "repro")
    # rows x corpora x {tau, discrimination} x {test articles, cross-validated}
    assert len(table) == len(page_rows()) * 2 * 2 * 2
    table = published(table)
    disc = table[(table.preset == "attordernet") & (table.dataset == "accident")
                 & (table.metric == "discrimination %")].iloc[0]  # fmt: skip
    assert disc.n_runs == 3 and disc["mean"] == pytest.approx(92.0)
    assert disc["std"] == pytest.approx(2.0)
    assert disc.paper == PAPER[("attordernet", "accident")][1] == 96.2
    assert disc["diff"] == pytest.approx(92.0 - 96.2)
    assert (disc.ci_docs_low, disc.ci_docs_high) == pytest.approx((91.0, 93.0))
    assert not disc.paper_in_ci and disc.permutations == "published (1986 pairs)"
    tau = table[(table.preset == "attordernet") & (table.dataset == "accident")
                & (table.metric == "tau")].iloc[0]  # fmt: skip
    assert tau.ci_docs_low <= tau["mean"] <= tau.ci_docs_high
    assert tau["diff"] == pytest.approx(tau["mean"] - 0.64)
    empty = table[(table.preset == "lstm_ptrnet") & (table.dataset == "earthquake")].iloc[0]
    assert empty.n_runs == 0 and math.isnan(empty["mean"])
    assert list(others.variant) == ["mean_pooling"]
    assert others.iloc[0].disc_pct == pytest.approx(80.0)
    assert others.iloc[0].disc_pct_repro == pytest.approx(90.0)


def test_main_writes_markdown_and_csv(runs: Path, tmp_path: Path):
    out = tmp_path / "out"
    assert main([f"runs={runs}", f"out={out}"]) == 0
    text = (out / "reproduction.md").read_text()
    row = ("| ATTOrderNet | accident | test articles | `repro` | 3 | 92.0 ± 2.0 | [91.0, 93.0] | "
           "— | 96.2 | -4.2 | no |")  # fmt: skip
    assert row in text
    cv = "| ATTOrderNet | accident | cross-validated | `cv` | 0 of 10 folds (incomplete) |"
    assert cv in text
    assert "mean_pooling" in text and "make reproduction" in text
    assert (out / "reproduction.csv").read_text().count("\n") == 1 + len(page_rows()) * 2 * 2 * 2


SHORT = [0.50, 0.55, 0.52, 0.53, 0.54]  # valid tau per epoch: best at epoch 2, stopped at 5


@pytest.fixture
def budgets(runs: Path) -> Path:
    """`runs` with training facts: repro (10 epochs, 3 seeds) and repro_e60 (60 epochs,
    2 seeds so far, seed 0 starting with the same epochs as its repro run)."""
    for seed in (0, 1, 2):
        run_dir = runs / "accident" / "attordernet" / "repro" / f"seed_{seed}"
        curve = SHORT if seed == 0 else [0.4 + 0.02 * e for e in range(10)]
        add_training(run_dir, curve, 2 if seed == 0 else 10, (10, 3))
    add_training(runs / "accident" / "attordernet" / "mean_pooling" / "seed_0", SHORT, 2, (10, 3))
    long = [*SHORT, 0.60, 0.58, 0.62, *[0.57] * 8]  # best at epoch 8, stopped 8 later
    for seed, acc, curve in ((0, 0.95, long), (1, 0.96, [0.3, *long[1:]])):
        run_dir = write_run(runs, "attordernet", seed, 0.9, "accident", "repro_e60")
        add_discrimination(run_dir, acc, True)
        add_training(run_dir, curve, 8, (60, 8))
    return runs


def test_each_cell_has_a_row_per_budget_with_stopping_and_marked_when_short(budgets: Path):
    table, others = build(collect_runs(budgets), "repro_e60", ["repro"])
    assert len(table) == len(page_rows()) * 2 * 2 * 3  # rows x corpora x metrics x (budgets + cv)
    table = published(table)
    cell = table[(table.preset == "attordernet") & (table.dataset == "accident")
                 & (table.metric == "tau")]  # fmt: skip
    assert list(cell.variant) == ["repro_e60", "repro"]  # adjacent, the headline first
    e60, repro = cell.iloc[0], cell.iloc[1]
    assert (e60.n_runs, e60.enough_runs, repro.n_runs, repro.enough_runs) == (2, False, 3, True)
    assert e60.budget == "≤60 epochs, patience 8" and repro.budget == "≤10 epochs, patience 3"
    assert (repro.n_early_stopping, repro.n_max_epochs) == (1, 2)
    assert repro.best_epoch == pytest.approx((2 + 10 + 10) / 3)
    assert (e60.n_early_stopping, e60.n_max_epochs, e60.best_epoch) == (2, 0, 8)
    empty = table[(table.preset == "cnn_ptrnet") & (table.variant == "repro_e60")].iloc[0]
    assert empty.n_runs == 0 and not empty.enough_runs and empty.budget == e60.budget
    # ablations stay against the 10-epoch run of their seed, never against the headline
    assert list(others.variant) == ["mean_pooling"]
    assert others.iloc[0].reference == "repro"
    assert others.iloc[0].disc_pct_repro == pytest.approx(90.0)


def page_at_e60(runs: Path, out: Path) -> str:
    """The page written by the command: headline `repro_e60` beside `repro`."""
    argv = [f"runs={runs}", f"out={out}", "variant=repro_e60", "compare=repro"]
    assert main(argv) == 0
    return (out / "reproduction.md").read_text()


def test_page_shows_both_budgets_the_short_cells_and_the_selection_variance(
    budgets: Path, tmp_path: Path
):
    out = tmp_path / "out"
    text = page_at_e60(budgets, out)
    assert "| ATTOrderNet | accident | test articles | `repro_e60` | 2 (< 3) | 95.5 ± 0.7 |" in text
    assert "| ATTOrderNet | accident | test articles | `repro` | 3 | 92.0 ± 2.0 |" in text
    assert "| 1 / 2 | 8.3 (7.3) |" in text  # repro: stopped early / at max, epochs (best)
    empty = ("| CNN+PtrNet | accident | test articles | `repro_e60` | 0 (< 3) | — ± — | [—, —] | "
             "— | 93.5 | — | — |")  # fmt: skip
    assert empty in text  # shown, marked, no figures
    assert "make reproduction SWEEP_REPRO=reproduction_e60 VARIANT=repro_e60 COMPARE=repro" in text
    assert "make reproduction-report VARIANT=repro_e60 COMPARE=repro" in text
    assert "## Ablations (each against the reproduction run of its own budget)" in text
    assert "| ATTOrderNet | mean_pooling | ≤10 epochs, patience 3 | `repro` | 1 |" in text
    assert "## Selection on 10 validation articles" in text
    assert "| accident | ATTOrderNet | 0 | yes | 2 → 8 | 0.550 → 0.620 |" in text
    assert "| accident | ATTOrderNet | 1 | no |" in text  # seed 1 started otherwise
    csv = (out / "reproduction.csv").read_text()
    assert csv.count("\n") == 1 + len(page_rows()) * 2 * 2 * 3
    assert ",repro_e60,≤60 epochs, patience 8" not in csv  # quoted
    assert '"≤60 epochs, patience 8",2,False' in csv


def test_selection_variance_reads_the_log_and_counts_tied_epochs(budgets: Path):
    runs = collect_runs(budgets)
    short = next(r for r in runs if r.variant == "repro" and r.seed == 0)
    assert valid_curve(short) == pytest.approx(SHORT)  # no loss rows, no re-evaluation row
    table = noise_table(runs, ["repro", "repro_e60"])
    row = table[(table.variant == "repro") & (table.seed == 0)].iloc[0]
    # selected 0.55 with interval [0.50, 0.60]: every one of the 5 epochs lies inside it
    assert row.valid_ci_width == pytest.approx(0.10)
    assert (row.tied_epochs, row.first_tied_epoch) == (5, 1)
    assert row.median_abs_step == pytest.approx(0.02)
    assert row.early_best  # epoch 2 of a 10-epoch budget
    summary = summarise(table)
    repro = summary[summary.variant == "repro"].iloc[0]
    assert (repro.best_epochs, repro.best_epoch_range, repro.n_early_best) == ("2,10,10", 8, 1)
    pairs = budget_pairs(runs, "repro", "repro_e60")
    assert list(pairs.same_start) == [True, False]
    first = pairs.iloc[0]
    assert (first.best_epoch_short, first.best_epoch_long) == (2, 8)
    assert (first.valid_short, first.valid_long) == pytest.approx((0.55, 0.62))
    assert not first.long_in_short_ci  # 0.62 is outside [0.50, 0.60]


def test_selection_variance_reads_a_log_that_counts_epochs_from_zero(budgets: Path):
    """A log written before epochs were counted from 1 gives the same curve: its re-evaluation
    of the selected checkpoint, one epoch after the last, is not an epoch."""
    run = next(r for r in collect_runs(budgets) if r.variant == "repro" and r.seed == 0)
    curve = valid_curve(run)
    shutil.rmtree(run.path / "csv")
    add_training(run.path, SHORT, 2, (10, 3), zero_based=True)
    assert curve == pytest.approx(SHORT)
    assert valid_curve(run) == pytest.approx(SHORT)


def test_selection_variance_names_the_bad_line_of_a_log(budgets: Path):
    run_dir = budgets / "accident" / "attordernet" / "repro" / "seed_1"
    log = run_dir / "csv" / "metrics.csv"
    log.write_text(log.read_text().replace("0.42", "zero"))
    run = next(r for r in collect_runs(budgets) if r.path == run_dir)
    with pytest.raises(ValueError, match=r"metrics\.csv:3: not a number"):
        valid_curve(run)


def test_selection_variance_command_prints_cells_and_pairs_and_writes_runs(
    budgets: Path, tmp_path: Path, capsys: pytest.CaptureFixture
):
    out = tmp_path / "noise.csv"
    argv = [f"runs={budgets}", "variants=repro,repro_e60", "pairs=repro:repro_e60",
            f"out={out}"]
    assert noise_main(argv) == 0
    printed = capsys.readouterr().out
    assert "2,10,10" in printed and "repro vs repro_e60:" in printed
    assert out.read_text().count("\n") == 1 + 3 + 2  # header, repro x 3, repro_e60 x 2
    assert noise_main([f"runs={budgets}", "pairs=repro"]) == 2
    assert "expected SHORT:LONG" in capsys.readouterr().err


@pytest.fixture
def ablations(budgets: Path) -> Path:
    """`budgets` with a 2-seed ablation at the 60-epoch budget, a 1-seed ablation at a
    budget of its own (30 epochs), and two presets not in the paper at `repro_e60`: one
    on the same test documents, one on other documents."""
    for seed, acc in ((0, 0.97), (1, 0.99)):
        run_dir = write_run(budgets, "attordernet", seed, 0.7, "accident",
                            "random_vectors_e60")  # fmt: skip
        add_discrimination(run_dir, acc, True)
        add_training(run_dir, SHORT, 2, (60, 8))
    run_dir = write_run(budgets, "attordernet", 0, 0.6, "accident", "epochs30")
    add_training(run_dir, SHORT, 2, (30, 8))
    run_dir = write_run(budgets, "attordernet", 0, 0.6, "accident", "resplit_e60")
    add_training(run_dir, SHORT, 2, (60, 8))
    edit_record(run_dir, lambda record: record["config"]["dataset"].update(
        path="/work/resplit/accident"))
    run_dir = write_run(budgets, "pairwise_tsort", 0, 0.95, "accident", "repro_e60")
    add_discrimination(run_dir, 0.98, True)
    add_training(run_dir, SHORT, 2, (60, 8))
    run_dir = write_run(budgets, "minilm_finetune", 0, 0.95, "accident", "repro_e60",
                        n_docs=30)  # fmt: skip
    add_training(run_dir, SHORT, 2, (60, 8))
    return budgets


def test_ablations_are_set_against_the_run_of_their_own_budget(ablations: Path):
    runs = collect_runs(ablations)
    _, others = build(runs, "repro_e60", ["repro"])
    reference = dict(zip(others.variant, others.reference, strict=False))
    assert reference == {"random_vectors_e60": "repro_e60", "epochs30": "repro",
                         "mean_pooling": "repro", "resplit_e60": "repro_e60"}  # fmt: skip
    summary = ablation_summary(others).set_index("variant")
    rv = summary.loc["random_vectors_e60"]
    tau = {(r.variant, r.seed): r.metrics["tau"] for r in runs if r.preset == "attordernet"}
    ours = [tau[("random_vectors_e60", s)] for s in (0, 1)]
    base = [tau[("repro_e60", s)] for s in (0, 1)]
    assert (rv.n_seeds, rv.n_reference, rv.same_budget) == (2, 2, True)
    assert rv.tau_mean == pytest.approx(sum(ours) / 2)
    assert rv.tau_std == pytest.approx(abs(ours[0] - ours[1]) / math.sqrt(2))
    assert rv.tau_reference == pytest.approx(sum(base) / 2)
    assert rv.tau_diff == pytest.approx(rv.tau_mean - rv.tau_reference)
    assert rv.disc_pct_mean == pytest.approx(98.0) and rv.disc_pct_reference == pytest.approx(95.5)
    e30 = summary.loc["epochs30"]  # 30/8 matches no compared budget: the 10-epoch run
    assert (e30.reference, e30.same_budget, e30.n_seeds) == ("repro", False, 1)
    assert e30.tau_reference == pytest.approx(tau[("repro", 0)]) and math.isnan(e30.tau_std)
    assert rv.same_data and e30.same_data and not summary.loc["resplit_e60"].same_data


def test_presets_not_in_the_paper_beside_attordernet_at_the_same_variant(ablations: Path):
    runs = collect_runs(ablations)
    table = beyond_paper(runs, "repro_e60", n_resamples=200).set_index("preset")
    assert sorted(table.index) == ["minilm_finetune", "pairwise_tsort"]
    pairwise = table.loc["pairwise_tsort"]
    tau = {(r.preset, r.seed): r.metrics["tau"] for r in runs if r.variant == "repro_e60"}
    anchor = (tau[("attordernet", 0)] + tau[("attordernet", 1)]) / 2
    assert (pairwise.n_runs, pairwise.enough_runs, pairwise.anchor_runs) == (1, False, 2)
    assert pairwise.tau_mean == pytest.approx(tau[("pairwise_tsort", 0)])
    assert pairwise.tau_diff == pytest.approx(tau[("pairwise_tsort", 0)] - anchor)
    assert pairwise.disc_acc_diff == pytest.approx(98.0 - 95.5)
    assert pairwise.paired and pairwise.paired_note == "documents only (one seed); 1 vs 2 runs"
    assert 0 <= pairwise.tau_p <= 1
    assert pairwise.tau_paired_ci_low <= pairwise.tau_diff <= pairwise.tau_paired_ci_high
    assert pairwise.tau_ci_low <= pairwise.tau_mean <= pairwise.tau_ci_high
    assert pairwise.train_minutes == pytest.approx(1.5) and pairwise.best_epoch == 2
    other = table.loc["minilm_finetune"]  # scored on other documents: no paired test
    assert not other.paired and other.paired_note.startswith("unpaired")
    assert math.isnan(other.tau_p)


def test_page_has_the_ablation_rows_and_the_other_presets(ablations: Path, tmp_path: Path):
    out = tmp_path / "out"
    text = page_at_e60(ablations, out)
    assert "| random_vectors_e60 | ≤60 epochs, patience 8 | `repro_e60` | 2 |" in text
    assert "| epochs30 | ≤30 epochs, patience 8 | `repro` (other budget) | 1 |" in text
    assert "| resplit_e60 | ≤60 epochs, patience 8 | `repro_e60` (other data) | 1 |" in text
    assert "## Presets not in the paper, same data and budget" in text
    assert "| accident | pairwise_tsort | `repro_e60` | 1 (< 3) |" in text
    assert "documents only (one seed); 1 vs 2 runs |" in text and "| unpaired: " in text
    assert (out / "reproduction_other_presets.csv").read_text().count("\n") == 3
    assert (out / "reproduction_ablations.csv").read_text().count("\n") == 1 + 5


def test_the_rows_are_the_sweeps_experiments_as_the_hand_list_was():
    """The page's rows come from the experiments of its sweep (reproduction_e100.yaml), with
    the labels, run tags and published figures of the hand list they replace."""
    from studies.cui2018.reproduction import calibration

    assert [(row.label, row.preset, row.tag, row.paper) for row in page_rows()] == [
        ("LSTM+PtrNet", "lstm_ptrnet", "", "lstm_ptrnet"),
        ("CNN+PtrNet", "cnn_ptrnet", "", "cnn_ptrnet"),
        ("ATTOrderNet (ATT)", "attordernet_att", "", "attordernet_att"),
        ("ATTOrderNet (CNN)", "attordernet_cnn", "", "attordernet_cnn"),
        ("ATTOrderNet", "attordernet", "", "attordernet"),
        ("ATTOrderNet, released code", "attordernet", "_released", "attordernet"),
        ("LSTM+PtrNet, batch 16, beam 64", "lstm_ptrnet", "_cui", "lstm_ptrnet"),
        ("CNN+PtrNet, batch 16, beam 64", "cnn_ptrnet", "_cui", "cnn_ptrnet"),
        ("bag-of-words position (calibration)", "bow_position", "", None),
        ("word-overlap chain (calibration, rule)", "overlap_chain", "", None),
    ]
    assert calibration() == {"bow_position", "overlap_chain"}
