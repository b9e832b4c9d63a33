"""The GPU check's orchestration (benchmark/bench/gpu_check.py) with stand-in steps: each
step runs under its own cap, a step that fails, crashes or outlives its cap is recorded
as such and the next one still runs, the record is written after every step, and bad
input (no kit, no GPU for device=cuda, an unknown step) is refused in one line."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from benchmark.bench import gpu_check, kit
from benchmark.bench.gpu_check import Check, Step, run_step, summary


def _kit(tmp_path: Path) -> Path:
    kit = tmp_path / "kit"
    (kit / "wheels").mkdir(parents=True, exist_ok=True)
    (kit / "manifest.json").write_text(json.dumps({
        "made_at": "abc", "python": "3.12", "packages": {}, "nips": "synthetic",
        "glove_words": 0, "kit_bytes": 0, "files": []}))
    return kit


def _python(code: str):
    return lambda check, cap: [sys.executable, "-c", code]


STEPS = (
    Step("fine", "prints", _python("print('fine')"), lambda check: {"figure": 1}),
    Step("broken", "fails with the suite's error line",
         _python("import sys; print('working'); print('orderbench x: error: a bad key', "
                 "file=sys.stderr); sys.exit(2)"),
         lambda check: json.loads((check.scratch / "absent.json").read_text())),
    Step("stuck", "outlives its cap", _python("import time; time.sleep(60)"), lambda check: {}),
    Step("after", "still runs", _python("print('after')"), lambda check: {"figure": 2}),
)


@pytest.fixture
def stand_ins(monkeypatch):
    caps = {"install": 5, "fine": 30, "broken": 30, "stuck": 2, "after": 30}
    monkeypatch.setattr(gpu_check, "STEPS", STEPS)
    monkeypatch.setitem(gpu_check.PROFILES, "cpu", replace(gpu_check.CPU, caps=caps))
    monkeypatch.setitem(gpu_check.PROFILES, "cuda", replace(gpu_check.CUDA, steps=()))
    monkeypatch.setattr(gpu_check, "MIN_STEP_S", 1)
    monkeypatch.setattr(gpu_check, "STOP_GRACE_S", 2)
    monkeypatch.setattr(gpu_check, "install", lambda check: {"status": "ok"})
    monkeypatch.setattr(gpu_check, "probe_machine", lambda: {"cuda": False})


def test_each_step_is_recorded_and_a_failing_one_does_not_stop_the_next(
    tmp_path: Path, stand_ins, capsys
):
    out = tmp_path / "out"
    started = time.monotonic()
    code = gpu_check.main(["device=cpu", f"kit={_kit(tmp_path)}", f"out={out}",
                           f"scratch={tmp_path / 'scratch'}"])
    assert code == 1
    assert time.monotonic() - started < 25  # the stuck step was stopped at its cap
    record = json.loads((out / "gpu-check-cpu.json").read_text())
    steps = record["steps"]
    assert {name: step["status"] for name, step in steps.items()} == {
        "install": "ok", "fine": "ok", "broken": "failed", "stuck": "timed_out", "after": "ok"}
    assert steps["fine"]["figure"] == 1 and steps["after"]["figure"] == 2
    assert steps["broken"]["error"] == "orderbench x: error: a bad key"
    assert steps["broken"]["exit_code"] == 2
    assert steps["broken"]["figures_error"].startswith("FileNotFoundError")
    assert steps["stuck"]["error"] == "stopped at its cap of 2 s"
    assert record["summary"]["after"] == "ok" and record["kit"]["made_at"] == "abc"
    log = (out / "gpu-check-cpu.log").read_text()
    assert "===== broken: failed" in log and "working" in log and "===== after: ok" in log
    assert json.loads(capsys.readouterr().out) == record["summary"]


def test_a_step_is_skipped_once_the_budget_is_spent(tmp_path: Path):
    check = Check("cpu", gpu_check.CPU, tmp_path, tmp_path, tmp_path, 2,
                  deadline=time.monotonic() + 5)  # fmt: skip
    skipped = run_step(check, gpu_check.STEPS[0])
    assert skipped["status"] == "skipped"
    assert skipped["error"].startswith("the check's budget is spent (")


def test_bad_input_is_refused_in_one_line(tmp_path: Path, stand_ins, capsys):
    assert gpu_check.main(["device=cpu", f"kit={tmp_path / 'none'}"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: kit={tmp_path / 'none'}: no manifest.json (make it with `make gpu-kit`, then "
        "carry the folder along)"]
    assert gpu_check.main(["device=cuda", f"kit={_kit(tmp_path)}"]) == 2
    assert capsys.readouterr().err.startswith(
        "error: device=cuda but PyTorch sees no GPU here (no CUDA device)")
    assert gpu_check.main(["device=cpu", f"kit={_kit(tmp_path)}", "steps=fine,nope"]) == 2
    assert "error: steps: unknown ['nope']" in capsys.readouterr().err


def test_the_summary_sets_the_gpu_figures_beside_their_references():
    steps = {
        "bench_32": {"status": "ok", "train_docs_per_s": 400.0, "decode_beam64_docs_per_s": 90.0,
                     "decode_beam1_docs_per_s": 900.0, "train_peak_memory_mib": 1200.0},
        "graphs_bench": {"status": "ok", "train_docs_per_s": 1000.0,
                         "decode_beam1_docs_per_s": 900.0, "train_peak_memory_mib": 1300.0},
        "nips_run": {"status": "ok", "test_tau": 0.741, "stopped_by": "early_stopping",
                     "epochs": 27, "cpu_runs": {"tau_mean": 0.738, "tau_std": 0.004, "runs": 3}},
        "runs_alone": {"status": "ok", "docs_per_s_together": 300.0},
        "runs_shared": {"status": "ok", "docs_per_s_together": 840.0},
    }
    figures = summary(steps)
    assert figures["bench_32: train docs/s, decode_beam64_docs_per_s, train peak MiB"] == [
        400.0, 90.0, 1200.0]
    assert figures["graphs_bench / bench_32, training docs/s"] == 2.5
    assert figures["runs together / alone, training docs/s"] == 2.8
    assert figures["nips test tau (CPU runs)"] == (
        "0.741 (0.738 ± 0.004, 3 runs); stopped by early_stopping at epoch 27")


def test_the_cpu_runs_the_nips_run_is_set_beside_are_the_committed_ones():
    import csv

    with gpu_check.CPU_RUNS.open(newline="") as file:
        rows = [row for row in csv.DictReader(file)
                if all(row[key] == value for key, value in gpu_check.CPU_ROW.items())]
    assert len(rows) == 1 and rows[0]["row"] == "ATTOrderNet"
    assert round(float(rows[0]["tau_mean"]), 3) == 0.738


def test_the_nips_runs_time_cap_leaves_room_for_its_test():
    assert gpu_check._max_time(280) == "00:00:03:40"
    assert gpu_check._max_time(20) == "00:00:00:30"


@pytest.mark.slow  # minutes: real runs of the paper preset on the CPU
def test_the_dry_run_trains_with_a_kit_on_the_cpu(tmp_path: Path):
    """A kit of NIPS-like abstracts without wheels (this machine's packages), then the dry
    run's NIPS run and a run with `cuda_graphs=true`, through the real harness."""
    from benchmark.bench.gpu_kit import make_kit

    make_kit(tmp_path / "kit", "synthetic", "3.12", wheels=False)
    out = tmp_path / "out"
    code = gpu_check.main(["device=cpu", f"kit={tmp_path / 'kit'}", f"out={out}",
                           "steps=nips_run,graphs_run"])
    record = json.loads((out / "gpu-check-cpu.json").read_text())
    assert code == 0, record
    nips, graphs = record["steps"]["nips_run"], record["steps"]["graphs_run"]
    assert (nips["status"], nips["epochs"], nips["stopped_by"]) == ("ok", 2, "max_epochs")
    assert -1 <= nips["test_tau"] <= 1 and nips["cpu_runs"]["runs"] == 3
    assert graphs["status"] == "ok" and graphs["steps"] == 1


@pytest.mark.parametrize("device", ["cuda", "cpu"])
def test_every_steps_command_is_one_its_tool_accepts(device, tmp_path: Path, monkeypatch):
    """Each step's command line, as the check builds it, parses and composes (the bench's
    arguments, the training run's Hydra overrides), on either device's profile."""
    import torch

    from benchmark.bench.suite import parse_args

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # as on the GPU machine
    from benchmark.config.compose import compose_config

    check = Check(device, gpu_check.PROFILES[device], tmp_path / "kit", tmp_path, tmp_path,
                  gpu_check.PROFILES[device].runs, deadline=time.monotonic() + 600)
    for step in gpu_check.STEPS:
        argv = step.command(check, check.profile.caps[step.name])
        # a sweep (-m) composes as its first run
        module, arguments = argv[2], [word.split(",")[0] for word in argv[3:] if word != "-m"]
        if argv[1] == "-c" and "timed_table" in argv[2]:  # its runs: the sweeps' jobs (below)
            settings = json.loads(Path(argv[3]).read_text())
            assert settings["seeds"] == list(check.profile.table_seeds)
            assert settings["device_args"][0] == f"trainer={check.profile.trainer}"
            assert settings["budget_s"] < check.profile.caps["nips_table"]
            continue
        if module == "benchmark.bench.suite":
            presets, settings, *_ = parse_args(arguments)
            assert settings.device == device, step.name
            if step.name.startswith("paragraph_"):  # an encoder of a shape, from the kit's
                assert presets == [kit.PARAGRAPH_PRESET], step.name
                assert settings.encoder_shape in {"minilm", "bert-base"}, step.name
                assert settings.overrides[-1] == (
                    f"++model.net.encoder={(tmp_path / 'kit' / kit.ENCODER).resolve()}")
            else:
                assert presets == ["attordernet"] and settings.encoder_shape is None, step.name
        else:
            assert module == "benchmark.train", step.name
            cfg = compose_config(arguments, return_hydra_config=True)
            assert cfg.model.name == "attordernet" and cfg.logger.keys() == {"csv"}, step.name
            assert cfg.trainer.max_epochs in (1, 2, 100), step.name


def test_a_table_runs_commands_compose_as_the_sweeps_jobs(tmp_path: Path):
    """The NIPS table's runs (benchmark/sweep/timed_table.py): the jobs of the sweeps `nips`
    and `nips_pretrained` of the seeds asked, each command composing to its job's model and
    variant, with the kit's word vectors or encoder and the device's trainer."""
    from benchmark.config.compose import compose_config
    from benchmark.sweep import timed_table

    jobs = timed_table.nips_jobs([0])
    assert len(jobs) == 13  # the NIPS page's rows, one seed each
    assert {job.sweep for job in jobs} == set(timed_table.SWEEPS)
    glove, encoder = tmp_path / "glove.txt", tmp_path / "encoder"
    for job in (jobs[0], jobs[-1]):  # a 2018-era row, a pretrained one
        argv = timed_table.job_command(job, tmp_path / "runs", 300, ["trainer=gpu"], glove,
                                       encoder)  # fmt: skip
        assert argv[2] == "benchmark.train" and "trainer.max_time=00:00:04:30" in argv
        config = compose_config([word for word in argv[3:] if not word.startswith(
            ("model.embeddings=", "model.net.encoder="))])  # fmt: skip
        assert (config.model.name, config.variant) == (job.preset, job.variant)
        assert config.trainer.accelerator == "gpu" and not config.evaluate_discrimination
        assert (f"model.embeddings={glove}" in argv) == job.uses_glove
        assert (f"model.net.encoder={encoder}" in argv) == job.uses_encoder


def test_every_row_of_the_table_has_its_cpu_row_on_the_nips_page():
    """The committed CPU rows (`CPU_ROWS`) are read as the GPU machine reads them, and each
    job of the table finds its row there (its estimate and the interval it is set beside)."""
    from benchmark.sweep import timed_table

    rows = timed_table.cpu_rows()
    assert {f"{job.preset}/{job.variant}" for job in timed_table.nips_jobs([0])} <= rows.keys()


def test_the_table_plans_longest_first_and_names_what_did_not_run(tmp_path: Path):
    from benchmark.sweep import timed_table

    jobs = [timed_table.Job("s", [], "p", "v", seed, "p/v", estimate_s=cost)
            for seed, cost in enumerate([10, 30, 20])]  # fmt: skip
    ordered, predicted = timed_table.plan(jobs, 2)
    assert [job.estimate_s for job in ordered] == [30, 20, 10]
    assert predicted == pytest.approx(30 / timed_table.SHARED_EFFICIENCY)
    log = tmp_path / "log"
    timed_table.run_jobs(ordered, 1, time.monotonic() + timed_table.MIN_RUN_S + 3,
                         lambda job, left: [sys.executable, "-c", "import time; time.sleep(4)"],
                         log)  # fmt: skip
    assert ordered[0].result["status"] == "ok"  # started in time
    assert [job.result["status"] for job in ordered[1:]] == ["not run", "not run"]
    assert ordered[1].result["why"].startswith("the budget was spent")
    rows, markdown = timed_table.table(jobs, {})
    assert rows[0]["done"] == 0 and len(rows[0]["not_done"]) == 3 and "| p/v | 0 of 3" in markdown


def test_the_record_names_the_code_that_ran(monkeypatch):
    """A tree that differs from the .git beside it is marked (a device tool may send a newer
    tree with an older .git); with no .git, the kit's commit stands in, said to be the kit's."""
    monkeypatch.setattr(gpu_check, "git_commit", lambda root: "b49c280+dirty")
    assert gpu_check.commit({"made_at": "5da4e30"}) == "b49c280+dirty"
    monkeypatch.setattr(gpu_check, "git_commit", lambda root: "unknown")
    assert gpu_check.commit({"made_at": "5da4e30"}) == "5da4e30 (the kit's)"
