"""`orderbench archive`: the finished runs' records and predictions copied to a folder the
reports read as they read the runs, nothing untrusted copied, nothing replaced silently."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from fixtures_runs import write_run

from benchmark.records.run_record import PREDICTIONS_NAME, RECORD_NAME
from benchmark.report.archive import ARCHIVED_FILES, archive_runs
from benchmark.report.archive import main as archive
from benchmark.report.leaderboard import main as leaderboard


def _runs(tmp_path):
    runs = tmp_path / "runs"
    for seed in (0, 1):
        write_run(runs, "lstm_ptrnet", seed, 0.6)
        write_run(runs, "attordernet", seed, 0.8)
    return runs


def _leaderboard(runs, out):
    assert leaderboard([f"runs={runs}", f"out={out}", "resamples=100"]) == 0
    return pd.read_csv(out / "leaderboard.csv")


def test_archive_holds_what_the_reports_read_and_gives_the_same_table(tmp_path, capsys):
    runs, kept = _runs(tmp_path), tmp_path / "kept"
    assert archive([str(runs), str(kept)]) == 0
    assert "4 runs archived" in capsys.readouterr().out
    folders = sorted(p.parent for p in kept.rglob(RECORD_NAME))
    assert [f.relative_to(kept) for f in folders] == sorted(
        p.parent.relative_to(runs) for p in runs.rglob(RECORD_NAME))
    assert all(sorted(p.name for p in f.iterdir()) == sorted(ARCHIVED_FILES) for f in folders)
    from_runs = _leaderboard(runs, tmp_path / "a")
    from_archive = _leaderboard(kept, tmp_path / "b")
    pd.testing.assert_frame_equal(from_runs, from_archive)


def test_archive_again_keeps_what_is_there_and_adds_new_runs(tmp_path):
    runs, kept = _runs(tmp_path), tmp_path / "kept"
    new, already = archive_runs(runs, kept)
    assert (len(new), len(already)) == (4, 0)
    write_run(runs, "lstm_ptrnet", 2, 0.6)
    new, already = archive_runs(runs, kept)
    assert (len(new), len(already)) == (1, 4)
    assert new[0].name == "seed_2"


def test_archive_leaves_out_a_changed_run_with_its_warning(tmp_path, capsys):
    runs, kept = _runs(tmp_path), tmp_path / "kept"
    changed = runs / "brown/lstm_ptrnet/base/seed_1" / PREDICTIONS_NAME
    changed.write_text(changed.read_text().replace('"pred": [1, 0', '"pred": [0, 1', 1))
    assert archive([str(runs), str(kept)]) == 0
    err = capsys.readouterr().err
    assert f"{changed}" in err and "warning" in err
    assert not (kept / "brown/lstm_ptrnet/base/seed_1").exists()
    assert (kept / "brown/lstm_ptrnet/base/seed_0" / RECORD_NAME).is_file()


def test_archive_refuses_another_run_at_the_same_path_before_copying(tmp_path, capsys):
    runs, kept = _runs(tmp_path), tmp_path / "kept"
    other = tmp_path / "other"
    write_run(other, "lstm_ptrnet", 0, 0.3)
    assert archive([str(other), str(kept)]) == 0
    capsys.readouterr()
    before = (kept / "brown/lstm_ptrnet/base/seed_0" / RECORD_NAME).read_bytes()
    assert archive([str(runs), str(kept)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "brown/lstm_ptrnet/base/seed_0/metrics.json: differs" in err[0]
    assert (kept / "brown/lstm_ptrnet/base/seed_0" / RECORD_NAME).read_bytes() == before
    assert not (kept / "brown/attordernet").exists()  # nothing copied


@pytest.mark.parametrize("inside", ["runs", "runs/brown/archive"])
def test_archive_inside_the_runs_is_refused(tmp_path, capsys, inside):
    runs = _runs(tmp_path)
    assert archive([str(runs), str(tmp_path / inside)]) == 2
    assert "inside runs=" in capsys.readouterr().err


@pytest.mark.parametrize("out", ["kept", "kept/below"])
def test_archive_into_a_file_is_one_line_naming_it(tmp_path, capsys, out):
    runs = _runs(tmp_path)
    (tmp_path / "kept").write_text("not a folder\n")
    assert archive([str(runs), str(tmp_path / out)]) == 2
    assert capsys.readouterr().err == (
        f"orderbench archive: error: out={tmp_path / out}: {tmp_path / 'kept'} is a file, not "
        "a folder; give a folder (it is made if it does not exist)\n")
    assert (tmp_path / "kept").read_text() == "not a folder\n"


def test_a_file_where_a_run_s_folder_goes_is_named_before_anything_is_copied(tmp_path, capsys):
    runs, kept = _runs(tmp_path), tmp_path / "kept"
    (kept / "brown").mkdir(parents=True)
    (kept / "brown" / "lstm_ptrnet").write_text("")
    assert archive([str(runs), str(kept)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"orderbench archive: error: {kept / 'brown' / 'lstm_ptrnet'}: a file "
                           "where the archive needs a folder for the run brown/")
    assert not (kept / "brown" / "attordernet").exists()  # nothing copied


def test_an_archived_record_still_vouches_for_itself(tmp_path, capsys):
    runs, kept = _runs(tmp_path), tmp_path / "kept"
    archive_runs(runs, kept)
    record = kept / "brown/attordernet/base/seed_0" / RECORD_NAME
    data = json.loads(record.read_text())
    data["split"]["test"]["tau"] = 0.99
    record.write_text(json.dumps(data))
    assert leaderboard([f"runs={kept}", f"out={tmp_path / 'c'}", "resamples=100"]) == 0
    assert f"{record}" in capsys.readouterr().err
