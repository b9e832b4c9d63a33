"""A record vouches for itself (docs/design.md, sections 3 and 8): a finished run's record
is sealed with the digests of its files and parts, and every reader checks what it uses
before trusting it; a figure out of its range is refused by every reader; one run never
writes into another; reports land whole; runs of different protocols are never ranked in
one table; a dead rerun's leftovers are said and removed; unexpected sizes, selection on
test and the last tracebacks are one line each.

First one test per case of the issue that asked for it (the case, its one line, nothing
lost, no wrong figure recorded or ranked), then the parts on their own."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from fixtures_data import small_jsonl_splits, write_jsonl_dataset
from fixtures_runs import edit_record, tree_digest, write_run, write_untrained_run
from fixtures_sweep import ROOT, error_lines, run_dir_for

from benchmark.compare import main as compare
from benchmark.config.compose import compose_config
from benchmark.config.prelaunch import prelaunch_problems
from benchmark.evaluate import main as evaluate
from benchmark.metrics.directions import range_problem
from benchmark.predict import main as predict
from benchmark.records import atomic_io
from benchmark.records.atomic_io import replace_folder
from benchmark.records.run_collection import LeftOut, RunCollectionWarning, collect_runs
from benchmark.records.run_record import RECORD_NAME
from benchmark.records.seal import (
    SEAL_KEY,
    SEALED_FILES,
    UnsealedRecordWarning,
    UntrustedRecordError,
    figure_problems,
    verify,
)
from benchmark.report.leaderboard import main as leaderboard
from benchmark.report.plots import main as plots
from benchmark.run.plan import plan_run
from benchmark.score import main as score
from benchmark.training import console
from data.readers.content_hash import file_sha256

UNTRAINED = ("dataset=synthetic", "+experiment=tiny")  # a run with an untrained model
RESAMPLES = "resamples=100"


def by_hand(run_dir: Path, update) -> None:
    """Change a run's record by hand, keeping its seal (as a user editing the file)."""
    path = run_dir / RECORD_NAME
    record = json.loads(path.read_text())
    update(record)
    path.write_text(json.dumps(record))


def one_error(capsys, tool: str) -> str:
    """The one line a tool printed on stderr, which must be its error."""
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"orderbench {tool}: error: "), err
    return err.strip()


def error_of(capsys, tool: str) -> str:
    """The one error line a report printed on stderr beside its warnings; no traceback."""
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    [line] = [line for line in err.splitlines() if line.startswith(f"orderbench {tool}: error:")]
    return line


def leaderboard_rows(runs: Path, out: Path, capsys) -> tuple[pd.DataFrame, str]:
    assert leaderboard([f"runs={runs}", f"out={out}", RESAMPLES]) == 0
    return pd.read_csv(out / "leaderboard.csv"), capsys.readouterr().err


# -- the cases ------------------------------------------------------------------------
def test_evaluate_writes_its_predictions_into_no_run_folder(tmp_path: Path, capsys):
    runs = tmp_path / "runs"
    run_a = write_untrained_run(runs, *UNTRAINED, sealed=True)
    run_b = write_untrained_run(runs, *UNTRAINED, "seed=1", sealed=True)
    before = tree_digest(run_b)
    argv = [f"run={run_a}", "task=order", "beam=1"]
    for target, said in (
        (run_b / "predictions.jsonl", f"inside the run directory {run_b}, whose files belong"),
        (run_b / "checkpoints" / "mine.jsonl", f"inside the run directory {run_b}"),
        (run_a / "predictions.jsonl", f"inside the run directory {run_a}"),
        (run_b, f"predictions={run_b}: a folder, not a file; name the file to write"),
        (tmp_path, f"predictions={tmp_path}: a folder, not a file; name the file to write"),
    ):
        assert evaluate([*argv, f"predictions={target}"]) == 2
        assert said in one_error(capsys, "evaluate")
    assert tree_digest(run_b) == before  # nothing of run B changed
    outside = tmp_path / "reevaluated" / "beam1.jsonl"
    assert evaluate([*argv, f"predictions={outside}"]) == 0
    assert outside.is_file()


def test_a_skip_checks_the_data_its_run_was_made_on(tmp_path: Path, launch):
    data = write_jsonl_dataset(tmp_path / "data", small_jsonl_splits())
    args = ("dataset=jsonl", f"dataset.path={data}", "+experiment=tiny")
    run_dir = write_untrained_run(tmp_path / "runs", *args, sealed=True)
    kept = tree_digest(run_dir)
    assert plan_run(run_dir, compose_config(["logger=csv", *args])).action == "skip"
    test = data / "test.jsonl"
    lines = test.read_text().splitlines()
    test.write_text("\n".join(lines[:5]) + "\n{garbage\n")  # cut, and a line that is no JSON
    status, stderr = launch(*args)
    [line] = error_lines(stderr)
    assert status == 1 and line.startswith(f"error: {test}:6: ")
    assert line.endswith("the run's data changed since it was made; restore it, or pass "
                         "rerun=true to train on the new data")
    test.write_text("\n".join(lines[:5]) + "\n")  # cut only: reads, other documents
    status, stderr = launch(*args)
    [line] = error_lines(stderr)
    assert status == 1 and line.startswith(f"error: {run_dir / RECORD_NAME}: the run was made on "
                                           "other data (documents sha256 ")
    assert line.endswith("now): the dataset's files changed since; pass rerun=true to train on "
                         "the new data")
    assert "run folder:" not in launch.stdout  # no old figure printed as the run's
    assert tree_digest(run_dir) == kept


def test_collecting_runs_lists_the_records_it_leaves_out(tmp_path: Path):
    """Besides its warnings, `collect_runs` names each run it left out and why (the results
    site lists them as refused)."""
    runs = tmp_path / "runs"
    write_run(runs, "han", 0, 0.7)
    bad = write_run(runs, "lstm_ptrnet", 0, 0.9)
    by_hand(bad, lambda record: record["split"]["test"].update(tau=0.95))
    left_out: list[LeftOut] = []
    with pytest.warns(RunCollectionWarning) as caught:
        kept = collect_runs(runs, left_out)
    assert [run.preset for run in kept] == ["han"]
    (item,) = left_out
    assert item.path == bad and "split changed after the run was sealed" in item.reason
    assert item.reason in [str(warning.message) for warning in caught]


def test_a_figure_out_of_its_range_is_refused_by_every_report(tmp_path: Path, capsys):
    runs = tmp_path / "runs"
    write_run(runs, "han", 0, 0.7)
    bad = write_run(runs, "lstm_ptrnet", 0, 0.9)
    by_hand(bad, lambda record: record["split"]["test"].update(tau=1.5))
    said = f"{bad / RECORD_NAME}: split.test.tau = 1.5 is outside its range [-1, 1]"
    table, err = leaderboard_rows(runs, tmp_path / "board", capsys)
    assert list(table["preset"]) == ["han"] and f"{said}; left out" in err  # never ranked
    assert plots([f"runs={runs}", f"out={tmp_path / 'plots'}"]) == 0
    assert f"{said}; left out" in capsys.readouterr().err
    assert compare([str(bad), str(runs / "brown/han/base/seed_0")]) == 2
    assert one_error(capsys, "compare").endswith(said)
    assert score([str(bad / "predictions.jsonl")]) == 2
    assert one_error(capsys, "score").endswith(said)
    old = write_run(tmp_path / "old", "han", 0, 0.7, sealed=False)  # no seal: still checked
    by_hand(old, lambda record: record["split"]["test"].update(n_docs=-3))
    with pytest.warns(RunCollectionWarning, match=r"split.test.n_docs = -3 is outside"):
        assert collect_runs(tmp_path / "old") == []


def test_a_relaunch_refuses_a_figure_out_of_its_range(tmp_path: Path, launch):
    finished = write_untrained_run(tmp_path / "runs", *UNTRAINED, sealed=True)
    by_hand(finished, lambda record: record["split"]["test"].update(tau=1.5))
    status, stderr = launch(*UNTRAINED)  # a relaunch: skipped before, printing tau 1.5000
    assert status == 1 and error_lines(stderr) == [
        f"error: {finished / RECORD_NAME}: split.test.tau = 1.5 is outside its range [-1, 1]; "
        "pass rerun=true to train the run again"
    ]
    assert "1.5" not in launch.stdout


def test_a_vocabulary_changed_after_the_run_is_refused_by_predict(tmp_path: Path, capsys):
    run_dir = write_untrained_run(tmp_path / "runs", *UNTRAINED, sealed=True)
    text = tmp_path / "in.txt"
    text.write_text("The first one.\nThe second one.\n")
    assert predict([f"run={run_dir}", f"input={text}", "beam=1"]) == 0
    capsys.readouterr()
    vocab = json.loads((run_dir / "vocab.json").read_text())
    vocab["itos"][5], vocab["itos"][6] = vocab["itos"][6], vocab["itos"][5]
    (run_dir / "vocab.json").write_text(json.dumps(vocab))
    assert predict([f"run={run_dir}", f"input={text}", "beam=1"]) == 2
    line = one_error(capsys, "predict")
    assert f"{run_dir / 'vocab.json'}: changed after the run (sha256 " in line
    assert line.endswith(f"in {RECORD_NAME})")
    assert evaluate([f"run={run_dir}", "task=order"]) == 2
    assert "vocab.json: changed after the run" in one_error(capsys, "evaluate")


def test_predictions_changed_after_the_run_are_refused_by_compare(tmp_path: Path, capsys):
    runs = tmp_path / "runs"
    a = write_run(runs, "han", 0, 0.7)
    b = write_run(runs, "lstm_ptrnet", 0, 0.9)
    predictions = b / "predictions.jsonl"
    perfect = [{**record, "pred": record["gold"]}
               for record in map(json.loads, predictions.read_text().splitlines())]
    predictions.write_text("".join(json.dumps(record) + "\n" for record in perfect))
    assert compare([str(a), str(b)]) == 2
    said = f"{predictions}: changed after the run (sha256 "
    assert said in one_error(capsys, "compare")
    assert compare([str(a), str(predictions)]) == 2  # the file named directly, too
    assert said in one_error(capsys, "compare")
    assert score([str(predictions)]) == 2 and said in one_error(capsys, "score")
    table, err = leaderboard_rows(runs, tmp_path / "board", capsys)
    assert list(table["preset"]) == ["han"] and said in err


def test_paths_dataset_cannot_place_a_run_outside_the_runs_folder(tmp_path: Path, launch):
    escape = f"escaped_{tmp_path.name}"
    status, stderr = launch(*UNTRAINED, f"paths.dataset=../../{escape}")
    assert status == 2 and error_lines(stderr) == [
        f"error: paths.dataset: must be one folder name, without '/' or '\\', got '../../{escape}'"
    ]
    assert not (tmp_path.parent / escape).exists() and not (tmp_path / "runs").exists()
    assert prelaunch_problems([*UNTRAINED, "paths.dataset=mine"]) == []  # a plain folder name


KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from benchmark.records import atomic_io
target, mode, kill_at = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
calls = []
rename, exchange = os.rename, atomic_io.exchange
def step(real):
    def stepped(*args):
        calls.append(args)
        if len(calls) == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)  # no cleanup runs
        return real(*args)
    return stepped
os.rename = step(rename)
atomic_io._remove_folder = step(atomic_io._remove_folder)
atomic_io.exchange = step(exchange) if mode == "exchange" else (lambda a, b: False)
def fill(folder):
    for name in ("leaderboard.csv", "leaderboard.md"):
        atomic_io.atomic_write_text(folder / name, f"new {name}")
atomic_io.replace_folder(target, fill, lambda name: name.startswith("leaderboard"), "leaderboard")
"""


@pytest.mark.parametrize(("mode", "steps"), [("exchange", 2), ("renames", 3)])
def test_a_killed_report_writer_leaves_the_old_files_or_the_new_never_a_mix(
    tmp_path: Path, mode: str, steps: int
):
    target = tmp_path / "leaderboard"
    names = ("leaderboard.csv", "leaderboard.md")
    old, new = ({name: f"{age} {name}" for name in names} for age in ("old", "new"))

    def fill(folder: Path) -> None:
        for name, text in old.items():
            (folder / name).write_text(text)

    for kill_at in range(1, steps + 1):
        _remove(tmp_path)
        replace_folder(target, fill, lambda name: name in names, "leaderboard")
        killed = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(target), mode,
                                 str(kill_at)], cwd=ROOT, capture_output=True)  # fmt: skip
        assert killed.returncode == -9
        found = {p.name: p.read_text() for p in target.iterdir()} if target.exists() else None
        assert found in (old, new) or (found is None and mode == "renames"), found
        finished = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(target), mode, "0"],
                                  cwd=ROOT, capture_output=True)  # fmt: skip
        assert finished.returncode == 0
        assert {p.name: p.read_text() for p in target.iterdir()} == new
        assert [p.name for p in tmp_path.iterdir()] == ["leaderboard"]  # no leftovers


def _remove(folder: Path) -> None:
    for path in folder.iterdir():
        shutil.rmtree(path)


def test_runs_of_two_protocols_are_two_tables_never_ranked_together(tmp_path: Path, capsys):
    runs = tmp_path / "runs"
    for protocol_seed in (0, 1):
        for seed in (0, 1):
            for preset, quality in (("han", 0.8), ("lstm_ptrnet", 0.4)):
                run_dir = write_run(runs / f"p{protocol_seed}", preset, seed, quality)
                edit_record(run_dir, lambda record, p=protocol_seed: record.update(
                    identity={"config_id": f"cfg{p}", "protocol": {"protocol_seed": p}}))
    table, err = leaderboard_rows(runs, tmp_path / "board", capsys)
    assert "brown: runs of 2 protocols (protocol_seed=0; protocol_seed=1), which cannot be " \
           "paired: a table each, never ranked together" in err
    assert "no complete base row" not in err
    for protocol_seed in (0, 1):
        rows = table[table["protocol"] == f"protocol_seed={protocol_seed}"]
        assert list(rows["rank"]) == [1, 2]
        assert list(rows["variant"]) == [f"base@cfg{protocol_seed}"] * 2
        assert set(rows["compared_with"].dropna()) <= {f"han/base@cfg{protocol_seed}"}
    markdown = (tmp_path / "board" / "leaderboard.md").read_text()
    assert "## brown, protocol protocol_seed=0" in markdown
    assert "## brown, protocol protocol_seed=1" in markdown


def test_a_dead_rerun_is_removed_by_the_next_launch_and_said(tmp_path: Path, launch):
    run_dir = write_untrained_run(tmp_path / "runs", *UNTRAINED, sealed=True)
    record = (run_dir / RECORD_NAME).read_bytes()
    staging = run_dir / ".rerun"
    (staging / "checkpoints").mkdir(parents=True)
    (staging / "checkpoints" / "last.ckpt").write_bytes(b"\0" * 2_600_000)  # killed mid-way
    (staging / ".hydra").mkdir()
    status, stderr = launch(*UNTRAINED)
    assert status == 0 and error_lines(stderr) == []
    said = [line for line in launch.stdout.splitlines() if ".rerun" in line]
    assert said == [f"warning: {staging}: removed the unfinished rerun a killed launch left "
                    "(2.6 MB); the finished run stands (rerun=true trains it again)"]
    assert not staging.exists() and (run_dir / RECORD_NAME).read_bytes() == record


def test_a_document_longer_than_the_limit_is_named_before_training(tmp_path: Path, launch):
    splits = small_jsonl_splits()
    splits["test"][0]["sentences"] = [f"sentence {k} of a long one ." for k in range(10_000)]
    data = write_jsonl_dataset(tmp_path / "data", splits)
    args = ("dataset=jsonl", f"dataset.path={data}", "+experiment=tiny")
    status, stderr = launch(*args)
    assert status == 2 and error_lines(stderr) == [
        "error: dataset 'jsonl': 1 document of more than max_document_sentences=200 sentences "
        "(test 'test-0': 10000); decoding grows with the square of a document's sentences or "
        "faster: set max_document_sentences=10000 to train on them anyway, or leave them out "
        "of the data"
    ]
    assert not (run_dir_for(tmp_path / "runs", "logger=csv", *args) / "checkpoints").exists()


def test_a_long_decoding_pass_says_how_far_it_is(monkeypatch):
    said, now = [], [0.0]
    progress = console.PassProgress("decoding test", 40, said.append, clock=lambda: now[0])
    for done in range(1, 41):
        now[0] += 2.0  # each batch takes 2 s
        progress.step(done)
    assert said == ["decoding test: 15 of 40 batches (38%), 30 s",
                    "decoding test: 30 of 40 batches (75%), 60 s"]
    short, now[0] = [], 0.0
    quick = console.PassProgress("decoding valid", 3, short.append, clock=lambda: now[0])
    for done in range(1, 4):
        now[0] += 1.0
        quick.step(done)
    assert short == []  # a short pass says nothing


def test_selection_on_test_is_refused_before_anything_runs(tmp_path: Path, launch):
    status, stderr = launch(*UNTRAINED, "early_stopping.monitor=test/tau")
    [line] = error_lines(stderr)
    assert status == 2 and line.startswith(
        "error: early_stopping.monitor: 'test/tau' does not select on the valid split")
    assert line.endswith("use one of val/tau, val/acc, val/pmr, val/head, val/tail, val/lcs, "
                         "val/acc_pooled, val/lcs_pooled, val/pm_f")
    assert not (tmp_path / "runs").exists()


def test_the_last_tracebacks_are_one_line_each(tmp_path: Path, launch, monkeypatch, capsys):
    status, stderr = launch(*UNTRAINED, "cpu_threads=100000")
    assert status == 2 and error_lines(stderr) == [
        f"error: cpu_threads: expected at most {os.cpu_count()} (the CPUs of this machine), "
        "got 100000; auto takes the cores the job was given"
    ]
    runs = tmp_path / "runs"
    write_run(runs, "han", 0, 0.7)
    run_dir = write_untrained_run(tmp_path / "untrained", *UNTRAINED, sealed=True)
    real_mkdir, real_open = os.mkdir, os.open

    def read_only(real):
        def refuse(path, *args, **kwargs):
            if str(path).startswith((str(runs), str(run_dir))):
                raise OSError(errno.EROFS, "Read-only file system", str(path))
            return real(path, *args, **kwargs)
        return refuse

    monkeypatch.setattr(os, "mkdir", read_only(real_mkdir))
    monkeypatch.setattr(os, "open", read_only(real_open))
    assert leaderboard([f"runs={runs}", RESAMPLES]) == 2
    assert error_of(capsys, "leaderboard").endswith(
        f"{runs / 'reports'}: not written (Read-only file system)")
    assert plots([f"runs={runs}"]) == 2
    assert error_of(capsys, "plots").endswith(
        f"{runs / 'reports' / 'plots'}: not written (Read-only file system)")
    assert evaluate([f"run={run_dir}", "task=discrimination"]) == 2
    assert one_error(capsys, "evaluate").endswith(
        f"{run_dir}: the run directory is read-only (Read-only file system), so the "
        "discrimination figures cannot be merged into its record")
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    assert evaluate([f"run={run_dir}", "task=order", f"predictions={tmp_path / 'p.jsonl'}"]) == 2
    assert one_error(capsys, "evaluate").endswith(f"cannot be written ({tmp_path} is read-only)")


# -- the seal -------------------------------------------------------------------------------
def test_a_fabricated_run_is_sealed_like_a_run(tmp_path: Path):
    run_dir = write_untrained_run(tmp_path, *UNTRAINED, sealed=True)
    record = json.loads((run_dir / RECORD_NAME).read_text())
    assert record[SEAL_KEY]["files"] == {
        name: file_sha256(run_dir / name) for name in SEALED_FILES if (run_dir / name).is_file()
    }
    assert set(record[SEAL_KEY]["record"]) == set(record) - {SEAL_KEY}
    assert verify(run_dir, record, SEALED_FILES)


def test_a_part_of_a_sealed_record_changed_by_hand_is_named(tmp_path: Path, capsys):
    runs = tmp_path / "runs"
    write_run(runs, "han", 0, 0.7)
    edited = write_run(runs, "lstm_ptrnet", 0, 0.5)
    by_hand(edited, lambda record: (record["split"]["test"].update(tau=0.99),
                                    record["config"].update(seed=7)))
    said = (f"{edited / RECORD_NAME}: config, split changed after the run was sealed (their "
            "sha256 differs from the seal)")
    with pytest.raises(UntrustedRecordError, match="config, split changed after the run"):
        verify(edited, json.loads((edited / RECORD_NAME).read_text()))
    table, err = leaderboard_rows(runs, tmp_path / "board", capsys)
    assert list(table["preset"]) == ["han"] and f"{said}; left out" in err


def test_unsealed_records_are_read_and_said_once(tmp_path: Path, capsys):
    runs = tmp_path / "runs"
    for seed in (0, 1):
        write_run(runs, "han", seed, 0.7, sealed=False)  # written before runs were sealed
        write_run(runs, "lstm_ptrnet", seed, 0.5, sealed=False)
    with pytest.warns(UnsealedRecordWarning, match="4 run records under .* are unsealed"):
        assert len(collect_runs(runs)) == 4
    table, err = leaderboard_rows(runs, tmp_path / "board", capsys)
    assert len(table) == 2 and err.count("\n") == 1 and "unsealed (written before" in err
    han, lstm = runs / "brown/han/base/seed_0", runs / "brown/lstm_ptrnet/base/seed_0"
    assert compare([str(han), str(lstm)]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and err.count("unsealed record (written before") == 2  # a run each


def test_evaluate_refuses_a_run_whose_data_changed(tmp_path: Path, capsys):
    data = write_jsonl_dataset(tmp_path / "data", small_jsonl_splits())
    run_dir = write_untrained_run(tmp_path / "runs", "dataset=jsonl", f"dataset.path={data}",
                                  "+experiment=tiny", sealed=True)
    assert evaluate([f"run={run_dir}", "task=order", "beam=1"]) == 0
    capsys.readouterr()
    test = data / "test.jsonl"
    test.write_text("".join(test.read_text().splitlines(keepends=True)[:5]))
    assert evaluate([f"run={run_dir}", "task=order", "beam=1"]) == 2
    assert one_error(capsys, "evaluate").endswith(
        "now): the dataset's files changed since; its figures cannot be computed again")


def test_every_declared_figure_has_a_range_and_counts_are_not_negative():
    assert range_problem("tau", -1.0) is None and range_problem("tau", 1.0) is None
    assert range_problem("tau", 1.5) == "outside its range [-1, 1]"
    assert range_problem("pmr", -0.01) == "outside its range [0, 1]"
    assert range_problem("coherence_L", -1) == "outside its range [0, inf)"
    assert range_problem("n_docs", -3) == "outside its range [0, inf)"
    assert range_problem("acc", None) is None and range_problem("acc", float("nan")) is None
    assert range_problem("acc", "high") == "not a number"
    record = {"split": {"test": {"tau": 0.5, "trivial_policy": "excluded"}},
              "ci": {"test": {"pmr": {"mean": 0.5, "ci_low": 0.4, "ci_high": 1.2}}},
              "random_baseline": {"figures": {"disc_ties": -1}}}
    assert figure_problems(record) == [
        "ci.test.pmr.ci_high = 1.2 is outside its range [0, 1]",
        "random_baseline.figures.disc_ties = -1 is outside its range [0, inf)",
    ]


@pytest.mark.parametrize(("monitor", "reason"), [
    ("val/coherence_L", "is better when lower, but the checkpoint with the highest value is kept"),
    ("val/bogus", "is not a figure the run logs"),
])
def test_selection_on_a_figure_the_run_cannot_select_on_is_refused(monitor: str, reason: str):
    problems = prelaunch_problems([*UNTRAINED, f"early_stopping.monitor={monitor}"])
    assert problems == [f"early_stopping.monitor: {monitor!r} {reason}; use one of val/tau, "
                        "val/acc, val/pmr, val/head, val/tail, val/lcs, val/acc_pooled, "
                        "val/lcs_pooled, val/pm_f"]
    assert prelaunch_problems([*UNTRAINED, "dataset.noise=1",
                               "early_stopping.monitor=val/noise_acc"]) == []


def test_a_report_replaces_its_own_files_and_keeps_the_others(tmp_path: Path, capsys,
                                                               monkeypatch):
    runs = tmp_path / "runs"
    write_run(runs, "han", 0, 0.7)
    results = tmp_path / "results"
    (results / "bench").mkdir(parents=True)
    (results / "README.md").write_text("keep me\n")
    (results / "bench" / "cpu.json").write_text("{}\n")
    (results / "leaderboard.md").write_text("old\n")
    inode = (results / "README.md").stat().st_ino
    assert leaderboard([f"runs={runs}", f"out={results}", RESAMPLES]) == 0
    assert (results / "leaderboard.md").read_text().startswith("# Leaderboard")
    assert (results / "README.md").read_text() == "keep me\n"
    assert (results / "README.md").stat().st_ino == inode  # carried over, not copied
    assert (results / "bench" / "cpu.json").read_text() == "{}\n"
    plots_dir = results / "plots"
    plots_dir.mkdir()
    (plots_dir / "stale.png").write_bytes(b"an earlier call's")
    assert plots([f"runs={runs}", f"out={plots_dir}"]) == 0
    assert "stale.png" not in [p.name for p in plots_dir.iterdir()]  # replaced together
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results", "runs"]  # no leftovers
    capsys.readouterr()
    monkeypatch.setattr(atomic_io, "CARRIED_AT_MOST", 1)  # a folder such as $HOME
    assert leaderboard([f"runs={runs}", f"out={results}", RESAMPLES]) == 2
    assert error_of(capsys, "leaderboard").endswith(
        f"{results}: holds more than 1 other files and folders; orderbench leaderboard "
        "replaces its folder in one step, so name a folder of the reports")
    assert (results / "README.md").read_text() == "keep me\n"
