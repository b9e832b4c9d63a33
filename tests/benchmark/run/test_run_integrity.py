"""A run's result is the run's own (docs/design.md, section 8): its folder is named by
what changes its figures, it resumes and evaluates as itself wherever it lies, a refused
launch changes nothing, a failed rerun keeps the finished record, checkpoints are loaded
without running pickled code, path components are plain folder names, and a signal ends a
launch with a non-zero status as a resumable interruption."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from fixtures_data import write_jsonl_dataset
from fixtures_runs import tree_digest
from fixtures_sweep import ROOT, TINY_LSTM, cli_env, run_dir_of, run_train, train_command

from benchmark.config.compose import compose_config
from benchmark.config.identity import config_id
from benchmark.config.prelaunch import prelaunch_problems
from benchmark.records.seal import SEAL_KEY, SEALED_FILES, verify
from benchmark.run.folder import RERUN_DIR, commit_rerun, finish_pending_rerun
from benchmark.run.lock import RunLock, RunLockedError
from benchmark.sweep.summary import INTERRUPTED, run_state
from benchmark.training.checkpoint_file import DamagedCheckpointError
from benchmark.training.checkpoint_position import read_checkpoint_position
from data.readers.content_hash import file_sha256

ROW = "synthetic/lstm_ptrnet/base"
FINISHED = (*TINY_LSTM, "trainer.max_epochs=3", "evaluate_discrimination=false")


def record(run_dir: Path) -> dict:
    return json.loads((run_dir / "metrics.json").read_text())


# -- the config id: what names a run directory ------------------------------------------------


def _id(*overrides: str) -> str:
    return config_id(compose_config(list(overrides)))


def test_the_config_id_follows_what_changes_the_result(tmp_path: Path):
    default = _id()
    assert _id("seed=3") == default  # the seed is a folder of its own
    assert _id("trainer.max_epochs=3") != default  # `make train` and a 3-epoch sweep
    assert _id("model.optimizer.lr=0.01") != default
    assert _id("protocol_seed=1") != default
    assert _id("dataset.label=mine") == default  # a label, not the protocol
    assert _id("paths.runs=/elsewhere", "cpu_threads=2") == default
    first, second = tmp_path / "a" / "data", tmp_path / "b" / "data"
    for folder in (first, second):
        folder.mkdir(parents=True)
    jsonl = ("dataset=jsonl",)
    assert _id(*jsonl, f"dataset.path={first}") != _id(*jsonl, f"dataset.path={second}")
    relative = os.path.relpath(first, ROOT)
    os.chdir(ROOT)
    assert _id(*jsonl, f"dataset.path={relative}") == _id(*jsonl, f"dataset.path={first}")


def test_the_config_id_ignores_where_the_code_lives():
    """The same preset named through another module path (here the module that defines it
    rather than the package that hands it on) keeps the config id."""
    cfg = compose_config([])
    assert cfg.model.net._target_ == "models.presets.lstm_ptrnet"
    moved = compose_config(["model.net._target_=models.families.ptrnet.ptrnet.lstm_ptrnet"])
    assert config_id(moved) == config_id(cfg)


@pytest.mark.slow
def test_unsafe_path_components_are_refused_before_any_folder_exists(tmp_path: Path):
    for override, key in (
        ("variant=../../../../x", "variant"), ("variant=", "variant"),
        ("model.name=..", "model.name"), ("dataset.name=../..", "dataset.name"),
        ("dataset.label=.hidden", "dataset.label"), ("seed=-1", "seed"),
    ):
        problems = prelaunch_problems(["dataset=synthetic", override])
        assert problems and problems[0].startswith(key), (override, problems)
    result = run_train(tmp_path / "runs", *TINY_LSTM, "variant=../../escape")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: variant: must be one folder name, without '/' or '\\', got '../../escape'"
    ]  # once: one check of the run directory's components
    assert not (tmp_path / "runs").exists() and not (tmp_path / "escape").exists()


# -- a run is its folder ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A finished tiny run (3 epochs), shared read-only by the tests below (they copy it).
    It keeps `last.ckpt`, as a run killed after its last epoch and before its record has it."""
    runs = tmp_path_factory.mktemp("finished")
    result = run_train(runs, *FINISHED, "keep_last_checkpoint=true")
    assert result.returncode == 0, result.stderr[-3000:]
    return runs


@pytest.mark.slow
def test_a_copied_or_moved_run_resumes_and_evaluates_as_itself(finished: Path, tmp_path: Path):
    original = run_dir_of(finished, ROW)
    expected = record(original)["split"]
    copy = tmp_path / "copy"
    shutil.copytree(finished, copy)
    copied = run_dir_of(copy, ROW)
    (copied / "metrics.json").unlink()
    (copied / "predictions.jsonl").unlink()
    stale = copied / "checkpoints" / ".best.ckpt.0123abcd.tmp"  # left by a killed writer
    stale.write_bytes(b"x" * 100)
    moved = tmp_path / "moved"
    shutil.move(str(copy), moved)  # the original folder name is gone too
    result = run_train(moved, *FINISHED)
    assert result.returncode == 0, result.stderr[-3000:]
    relaunched = run_dir_of(moved, ROW)
    assert record(relaunched)["split"]["test"]["tau"] == expected["test"]["tau"]
    assert record(relaunched)["split"]["valid"]["tau"] == expected["valid"]["tau"]
    assert record(relaunched)["best_checkpoint"] == "checkpoints/best.ckpt"
    assert not (relaunched / "checkpoints" / stale.name).exists()
    evaluated = subprocess.run(
        [str(Path(os.sys.executable).parent / "orderbench"), "evaluate", f"run={relaunched}",
         "task=order"], cwd=ROOT, env=cli_env(moved), capture_output=True, text=True,
    )
    assert evaluated.returncode == 0, evaluated.stderr
    assert json.loads(evaluated.stdout)["tau"] == expected["test"]["tau"]


@pytest.mark.slow
def test_a_finished_run_seals_its_record_with_its_files(finished: Path):
    run_dir = run_dir_of(finished, ROW)
    stored = record(run_dir)
    assert stored[SEAL_KEY]["files"] == {name: file_sha256(run_dir / name) for name in SEALED_FILES}
    assert set(stored[SEAL_KEY]["record"]) == set(stored) - {SEAL_KEY}
    assert verify(run_dir, stored, SEALED_FILES)  # every part and file as sealed


@pytest.mark.slow
def test_a_finished_run_keeps_its_selected_checkpoint_and_drops_the_resume_one(tmp_path: Path):
    one_epoch = (*TINY_LSTM, "trainer.max_epochs=1", "evaluate_discrimination=false")
    result = run_train(tmp_path, *one_epoch)
    assert result.returncode == 0, result.stderr[-3000:]
    run_dir = run_dir_of(tmp_path, ROW)
    assert (run_dir / record(run_dir)["best_checkpoint"]).is_file()
    assert not (run_dir / "checkpoints" / "last.ckpt").exists()  # only a resume reads it
    again = run_train(tmp_path, *one_epoch, "keep_last_checkpoint=true")  # not in the id
    assert again.returncode == 0 and "skipped" in again.stdout + again.stderr
    assert _id("keep_last_checkpoint=true") == _id()


@pytest.mark.slow
def test_a_refused_launch_leaves_the_folder_byte_identical(finished: Path, tmp_path: Path):
    runs = tmp_path / "runs"
    shutil.copytree(finished, runs)
    run_dir = run_dir_of(runs, ROW)
    before = tree_digest(run_dir)
    with RunLock.acquire(run_dir):  # another launch trains there
        locked = run_train(runs, *FINISHED, "rerun=true")
    assert locked.returncode == 1 and "is in use by" in locked.stderr
    assert tree_digest(run_dir) == before
    stored = record(run_dir)  # a hand-edited record: the folder's name says another config
    stored["config"]["model"]["beam_size"] = 7
    (run_dir / "metrics.json").write_text(json.dumps(stored))
    before = tree_digest(run_dir)
    conflict = run_train(runs, *FINISHED)
    assert conflict.returncode == 1 and "model.beam_size: 7 -> " in conflict.stderr
    assert tree_digest(run_dir) == before


@pytest.mark.slow
def test_a_failed_rerun_keeps_the_finished_record(tmp_path: Path):
    data = write_jsonl_dataset(tmp_path / "data", {
        split: [{"id": f"{split}-{i}", "sentences": [f"{split} {i} s{k} ." for k in range(4)]}
                for i in range(12)]
        for split in ("train", "valid", "test")
    })
    args = ("dataset=jsonl", f"dataset.path={data}", "+experiment=tiny", "logger=csv",
            "trainer.max_epochs=1", "evaluate_discrimination=false")
    runs = tmp_path / "runs"
    assert run_train(runs, *args).returncode == 0
    run_dir = run_dir_of(runs, "jsonl/lstm_ptrnet/base")
    kept = {name: (run_dir / name).read_bytes() for name in ("metrics.json", "predictions.jsonl")}
    test_file = Path(data) / "test.jsonl"
    good = test_file.read_text()
    test_file.write_text(good + "{not json\n")  # the new run fails while reading its data
    failed = run_train(runs, *args, "rerun=true")
    assert failed.returncode != 0
    assert {n: (run_dir / n).read_bytes() for n in kept} == kept
    assert run_state(run_dir).state == "failed"
    refused = run_train(runs, *args)  # the original command: its data changed since the run
    assert refused.returncode == 1 and f"error: {test_file}:13: " in refused.stderr
    assert {n: (run_dir / n).read_bytes() for n in kept} == kept
    test_file.write_text(good)
    skipped = run_train(runs, *args)  # the data it was made on: skipped, the old record
    assert skipped.returncode == 0 and "skipped" in skipped.stdout + skipped.stderr
    rerun = run_train(runs, *args, "rerun=true")
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert record(run_dir)["finished_at"] >= json.loads(kept["metrics.json"])["finished_at"]
    assert not (run_dir / RERUN_DIR).exists() and not (run_dir / "failed.json").exists()


def test_an_interrupted_replacement_is_finished_by_the_next_launch(tmp_path: Path):
    run_dir = tmp_path / "run"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "metrics.json").write_text('{"old": true}')
    (run_dir / "checkpoints" / "best.ckpt").write_text("old")
    staging = run_dir / RERUN_DIR
    (staging / "checkpoints").mkdir(parents=True)
    (staging / "checkpoints" / "best.ckpt").write_text("new")
    (staging / "predictions.jsonl").write_text("new")
    assert not finish_pending_rerun(run_dir)  # not complete: nothing moves
    assert (run_dir / "checkpoints" / "best.ckpt").read_text() == "old"
    (staging / "metrics.json").write_text('{"new": true}')
    shutil.move(str(staging / "checkpoints"), run_dir / "checkpoints.moved")  # half-moved
    shutil.rmtree(run_dir / "checkpoints")
    (run_dir / "checkpoints.moved").rename(run_dir / "checkpoints")
    assert finish_pending_rerun(run_dir)
    assert json.loads((run_dir / "metrics.json").read_text()) == {"new": True}
    assert (run_dir / "predictions.jsonl").read_text() == "new"
    assert (run_dir / "checkpoints" / "best.ckpt").read_text() == "new"
    assert not staging.exists()
    commit_rerun(run_dir) if staging.exists() else None


# -- safe loading -------------------------------------------------------------------------------


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")  # the payload's own
def test_a_pickled_payload_in_a_checkpoint_is_refused_and_never_run(tmp_path: Path):
    marker = tmp_path / "payload-ran"
    checkpoint = tmp_path / "last.ckpt"
    with open(checkpoint, "wb") as handle:
        pickle.dump({"state_dict": {}, "epoch": 0, "global_step": 1,
                     "x": _Payload(marker)}, handle)
    with pytest.raises(DamagedCheckpointError, match="pickled objects beyond tensors"):
        read_checkpoint_position(checkpoint)
    assert not marker.exists()


def test_the_run_lock_never_follows_a_symbolic_link(tmp_path: Path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "run.lock").symlink_to(target)
    with pytest.raises(RunLockedError, match="symbolic link"):
        RunLock.acquire(run_dir)
    assert target.read_text() == "keep me"


# -- exit status --------------------------------------------------------------------------------


@pytest.mark.slow
def test_sigterm_exits_non_zero_and_the_run_is_interrupted_and_resumable(tmp_path: Path):
    args = (*TINY_LSTM, "trainer.max_epochs=40", "evaluate_discrimination=false")
    process = subprocess.Popen(
        train_command(*args, f"paths.runs={tmp_path}"), cwd=ROOT, env=cli_env(tmp_path),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 300
    while not list(tmp_path.glob(f"{ROW}/*/seed_0/checkpoints/last.ckpt")):
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 128 + signal.SIGTERM, stderr[-2000:]
    assert "interrupted by SIGTERM" in stderr
    run_dir = run_dir_of(tmp_path, ROW)
    assert run_state(run_dir).state == INTERRUPTED
    assert not (run_dir / "metrics.json").exists()
    resumed = run_train(tmp_path, *args[:-2], "trainer.max_epochs=40",
                        "evaluate_discrimination=false")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "resuming from" in resumed.stdout + resumed.stderr
    assert record(run_dir)["epochs"] == 40
    assert not (run_dir / "failed.json").exists()


@pytest.mark.parametrize(("overrides", "pinned"), [
    ([], "3c8f0670"),
    (["model=attordernet", "dataset=synthetic"], "6a63f745"),
])
def test_existing_run_folders_keep_their_config_id(overrides: list[str], pinned: str):
    """A new config key changes the config id of every run, so a relaunched sweep would
    train everything again: give the key a default that keeps the old behaviour and list it
    in `config_diff.ADDED_DEFAULTS` (then the id leaves it out at that default)."""
    assert _id(*overrides) == pinned
