"""Every error a user can meet is one line (`error: ...`) naming the file or the config
key, raised before training where it can be known before (exit status 2 for bad input or
settings), and nothing already computed is lost: missing or mis-laid data, settings out
of range (seeds, model sizes, accelerator, variant, noise), full disks, damaged caches,
records, checkpoints and vocabularies, and the arguments of the tools."""

from __future__ import annotations

import errno
import io
import json
import logging
import sys
from functools import partial
from pathlib import Path

import pytest
import torch
from fixtures_config import check_overrides
from fixtures_data import small_jsonl_splits, write_jsonl_dataset
from fixtures_runs import write_untrained_run
from fixtures_sweep import error_lines
from omegaconf import OmegaConf, open_dict

from benchmark.config.checks import ConfigError
from benchmark.config.compose import compose_config
from models.registry import preset_names

RUN_OVERRIDES = ("dataset=synthetic", "+experiment=tiny")  # of the `run_dir` fixture


def no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


check = partial(check_overrides, base=("dataset=synthetic", "+experiment=tiny"))


def refused(overrides: list[str]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        check(overrides)
    return str(caught.value).splitlines()


# -- data that is missing or mis-laid ------------------------------------------------------
@pytest.fixture
def jsonl_dir(tmp_path: Path) -> Path:
    return write_jsonl_dataset(tmp_path / "jsonl", small_jsonl_splits())


def test_a_missing_jsonl_split_is_one_line_with_status_2(launch, jsonl_dir: Path):
    (jsonl_dir / "test.jsonl").unlink()
    status, stderr = launch("dataset=jsonl", f"dataset.path={jsonl_dir}", "+experiment=tiny")
    assert status == 2
    assert error_lines(stderr) == [
        f"error: {jsonl_dir} lacks test.jsonl (dataset.path): expected a directory containing "
        'train.jsonl, valid.jsonl and test.jsonl, one JSON object per line: {"id": "doc-17", '
        '"sentences": ["First.", "Second."], "meta": {...}}'
    ]


def test_a_jsonl_dataset_without_its_path_is_one_line_with_status_2(launch):
    status, stderr = launch("dataset=jsonl", "+experiment=tiny")
    assert status == 2
    [line] = error_lines(stderr)
    assert line.startswith("error: dataset.path is not set: expected a directory containing "
                           "train.jsonl, valid.jsonl and test.jsonl")  # fmt: skip


def test_a_missing_jsonl_folder_is_one_line_with_status_2(launch, tmp_path: Path):
    status, stderr = launch("dataset=jsonl", f"dataset.path={tmp_path / 'none'}",
                            "+experiment=tiny")
    assert status == 2
    [line] = error_lines(stderr)
    assert line.startswith(f"error: dataset directory {tmp_path / 'none'} not found (dataset.path)")
    assert not (tmp_path / "runs" / "jsonl" / "lstm_ptrnet" / "base" / "seed_0" / "vocab.json"
                ).exists()


def test_missing_data_is_said_before_the_training_code_is_imported(tmp_path: Path):
    """Issue 64: the first error line within a second or two, and no run folder."""
    import subprocess

    from repo_root import ROOT

    probe = ("import sys, runpy; sys.argv = ['benchmark.train', *sys.argv[1:]]\n"
             "try:\n    runpy.run_module('benchmark.train', run_name='__main__')\n"
             "finally:\n    print(sorted(m for m in ('torch', 'pytorch_lightning') "
             "if m in sys.modules))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", probe, "dataset=jsonl",
                           f"dataset.path={tmp_path / 'none'}", f"paths.runs={tmp_path / 'runs'}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2 and done.stdout.strip() == "[]"
    [line] = error_lines(done.stderr)
    assert line.startswith(f"error: dataset directory {tmp_path / 'none'} not found")
    assert not (tmp_path / "runs").exists()


def test_a_finished_run_whose_data_moved_is_still_skipped_on_its_record(tmp_path: Path):
    from benchmark.config.prelaunch import missing_data

    cfg = compose_config(["dataset=jsonl", f"dataset.path={tmp_path / 'none'}",
                          f"paths.runs={tmp_path / 'runs'}"], return_hydra_config=True)
    assert "not found" in str(missing_data(cfg))
    run_dir = Path(OmegaConf.select(cfg, "hydra.run.dir"))
    run_dir.mkdir(parents=True)
    (run_dir / "metrics.json").write_text("{}")
    assert missing_data(cfg) is None  # the plan skips it, or says why not
    with open_dict(cfg):
        cfg.rerun = True
    assert missing_data(cfg) is not None


@pytest.mark.parametrize(("dataset", "problem"), [
    ("nips", "error: nips: {path} is not a folder"),
    ("accident", "error: accident: {path}/train is not a folder (folders there: none; name "
                 "others with dataset.reader.train_folder / test_folder)"),
])
def test_a_published_corpus_not_found_is_one_error_line_and_its_layout(
    launch, tmp_path: Path, dataset: str, problem: str
):
    path = tmp_path / "empty"
    path.mkdir()
    if dataset == "nips":
        path = tmp_path / "nonexistent"
    status, stderr = launch(f"dataset={dataset}", f"dataset.path={path}", "+experiment=tiny")
    assert status == 2
    [line] = error_lines(stderr)
    assert line.startswith(problem.format(path=path))
    if dataset == "nips":  # a reader of two layouts names both in its line
        assert "logeswaran: split/2013le_papers" in line and "nseg: train.lower" in line
        return
    assert line == problem.format(path=path)
    hints = stderr[stderr.index("error:"):].splitlines()[1:4]
    assert [line.split(":")[0] for line in hints] == [
        "  expected layout under dataset.path", "  published", "  then run with dataset=" + dataset
        + " dataset.path=/path/to/" + dataset,
    ]


def test_a_hub_dataset_that_cannot_be_loaded_offline_is_one_line(launch, monkeypatch):
    import datasets

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True)
    status, stderr = launch("dataset=hf", "dataset.path=nosuchuser/nosuchdataset",
                            "+experiment=tiny")
    assert status == 2
    [line] = error_lines(stderr)
    assert line.startswith("error: hf: cannot load 'nosuchuser/nosuchdataset'")


def test_a_configuration_name_the_dataset_lacks_is_named(jsonl_dir: Path):
    from data.readers.hf import HFReader
    from data.readers.sources import DatasetNotFoundError

    with pytest.raises(DatasetNotFoundError, match=r"dataset.reader.name='bogus'.*BuilderConfig"):
        HFReader(str(jsonl_dir), name="bogus").read_splits()


def test_prepare_says_missing_data_in_one_line(tmp_path: Path, capsys):
    from benchmark.prepare_data import main

    with pytest.raises(SystemExit) as exit:
        main(["dataset=nips", f"dataset.path={tmp_path / 'absent'}"])
    assert exit.value.code == 2
    [line] = error_lines(capsys.readouterr().err)
    assert line.startswith(f"error: nips: {tmp_path / 'absent'} is not a folder")


# -- settings out of range: refused by the config check, naming the key ---------------------
def test_dataset_noise_out_of_range_is_one_line_from_the_config_check(launch):
    [line] = refused(["dataset.noise=2"])
    assert line.startswith("dataset.noise must be one of 0, 1, 0/1") and line.endswith("got 2")
    status, stderr = launch("dataset=synthetic", "+experiment=tiny", "dataset.noise=2")
    assert status == 2 and error_lines(stderr) == [f"error: {line}"]


@pytest.mark.parametrize("override", ["dataset.datamodule.min_freq=-1",
                                      "dataset.datamodule.max_sentence_tokens=0",
                                      "model.optimizer.weight_decay=-1"])
def test_a_setting_a_constructor_checks_is_one_line_before_any_folder_is_made(
    launch, tmp_path: Path, override: str
):
    """Issue 64: these were Hydra tracebacks after the data was loaded, with a run folder."""
    key, _, value = override.partition("=")
    expected = "an integer >= 1" if key.startswith("dataset") else "a number >= 0"
    status, stderr = launch(*RUN_OVERRIDES, override)
    assert status == 2 and error_lines(stderr) == [f"error: {key}: expected {expected}, got "
                                                   f"{value}"]  # fmt: skip
    assert stderr.count("\n") == 1 and not (tmp_path / "runs").exists()


@pytest.mark.parametrize(("overrides", "message"), [
    (["+dataset.datamodule.max_vocab=1"],
     "dataset.datamodule.max_vocab: expected an integer >= 2, got 1"),
    (["dataset.datamodule.num_workers=-1"],
     "dataset.datamodule.num_workers: expected an integer >= 0, got -1"),
    (["dataset.datamodule.drop_last=yes"],
     "dataset.datamodule.drop_last: expected true or false, got 'yes'"),
    (["+dataset.datamodule.vocab_splits=[train,dev]"],
     "dataset.datamodule.vocab_splits: expected a non-empty list of train, valid, test, got "
     "['train', 'dev']"),
    (["+dataset.datamodule.vocab_splits=[]"],
     "dataset.datamodule.vocab_splits: expected a non-empty list of train, valid, test, got []"),
    (["+model.optimizer.eps=-1e-8"], "model.optimizer.eps: expected a number >= 0, got -1e-08"),
    (["+model.optimizer.betas=[0.9,1.0]"],
     "model.optimizer.betas: expected two numbers in [0, 1), got [0.9, 1.0]"),
    (["model.optimizer._target_=torch.optim.Adadelta", "+model.optimizer.rho=1.5"],
     "model.optimizer.rho: expected a number in [0, 1], got 1.5"),
    (["model.optimizer._target_=torch.optim.SGD", "+model.optimizer.momentum=-0.9"],
     "model.optimizer.momentum: expected a number >= 0, got -0.9"),
    (["+trainer.accumulate_grad_batches=0"],
     "trainer.accumulate_grad_batches: expected an integer >= 1, got 0"),
    (["+trainer.max_steps=-2"], "trainer.max_steps: expected an integer >= -1, got -2"),
    (["+dataset.reader.min_sentences=0"],
     "dataset.reader: need 1 <= min_sentences <= max_sentences <= 20, got 0..7"),
])
def test_every_setting_a_constructor_checks_is_in_the_config_check(overrides, message):
    """One table (`benchmark.config.checks.SETTINGS`) holds what the DataModule, the
    vocabulary, the loaders, PyTorch's optimisers, Lightning's Trainer and the reader would
    refuse once the run had begun."""
    assert refused(overrides) == [message]


def test_a_reader_that_cannot_find_its_data_is_left_to_the_run():
    check(["dataset=jsonl", "dataset.path=/nonexistent"])  # said when the data is read


@pytest.mark.parametrize(("override", "line"), [
    ("model=lstm_pointer", "error: model=lstm_pointer: no such option of the config group model "
                           "(did you mean model=lstm_ptrnet?); its options: attordernet, "),
    ("+experiment=tinny", "error: experiment=tinny: no such option of the config group "
                          "experiment (did you mean experiment=tiny?); its options: "),
    ("trainer.max_epoch=3", "error: Could not override 'trainer.max_epoch'. To append to your "
                            "config use +trainer.max_epoch=3"),
])
def test_a_config_that_does_not_compose_is_one_line_with_status_2(launch, tmp_path: Path,
                                                                  override: str, line: str):
    status, stderr = launch("dataset=synthetic", override)
    assert status == 2 and stderr.count("\n") == 1
    assert error_lines(stderr)[0].startswith(line)
    assert not (tmp_path / "runs").exists()


def test_an_unknown_tokenizer_is_one_line_from_the_config_check():
    [line] = refused(["dataset.datamodule.tokenizer=spaces"])
    assert line == ("dataset.datamodule.tokenizer: expected one of ['regex', 'whitespace'], "
                    "got 'spaces'")


@pytest.mark.parametrize("key", ["seed", "protocol_seed"])
def test_seeds_beyond_32_bits_are_refused_before_anything_is_made(launch, tmp_path: Path, key):
    assert refused([f"{key}=4294967296"]) == [
        f"{key}: expected an integer below 2**32 (4294967296), got 4294967296"
    ]
    check([f"{key}=4294967295"])
    status, stderr = launch("dataset=synthetic", "+experiment=tiny", f"{key}=4294967296")
    assert status == 2
    assert error_lines(stderr) == [
        f"error: {key}: expected an integer below 2**32 (4294967296), got 4294967296"
    ]
    runs = tmp_path / "runs"
    assert not list(runs.rglob("vocab.json")) and not list(runs.rglob("checkpoints"))


@pytest.mark.parametrize(("overrides", "message"), [
    (["model.net.dropout=1.0"], "model.net.dropout: expected a number in [0, 1), got 1.0"),
    (["model.net.dropout=-0.1"], "model.net.dropout: expected a number in [0, 1), got -0.1"),
    (["+model.net.word_dropout=1.5"],
     "model.net.word_dropout: expected a number in [0, 1), got 1.5"),
    (["model.net.hidden_dim=-3"], "model.net.hidden_dim: expected an integer >= 1, got -3"),
    (["model.net.hidden_dim=abc"], "model.net.hidden_dim: expected an integer >= 1, got 'abc'"),
    (["+model.net.attention_dim=0"],
     "model.net.attention_dim: expected an integer >= 1, got 0"),
    (["model=han", "model.net.heads=7"],
     "model.net.heads: must divide model.net.hidden_dim (64), got 7"),
    (["model=han", "model.net.num_blocks=0"],
     "model.net.num_blocks: expected an integer >= 1, got 0"),
    (["model=attordernet", "model.net.hidden_dim=60"],
     "model.net.heads: must divide model.net.hidden_dim (60), got 8"),
    (["model=attordernet_att", "model.net.sentence_heads=3"],
     "model.net.sentence_heads: must divide model.net.embedding_dim (40), got 3"),
    (["model=cnn_ptrnet", "model.net.filter_width=[3,0]"],
     "model.net.filter_width: expected an integer >= 1, got [3, 0]"),
])
def test_model_settings_out_of_range_name_the_full_key(overrides: list[str], message: str):
    assert refused(overrides) == [message]


@pytest.mark.parametrize(("overrides", "message"), [
    (["model=attordernet", "model.net.pointer_keys=3"],
     "model.net.pointer_keys: expected a string, got 3"),
    (["model=attordernet", "model.net.paragraph_positions=maybe"],
     "model.net.paragraph_positions: expected true or false, got 'maybe'"),
    (["model=han", "model.net.word_attention=null"],
     "model.net.word_attention: expected true or false, got None"),
    (["model=bow_position", "model.net.l2=small"], "model.net.l2: expected a number, got 'small'"),
    (["model=minilm_finetune", "model.net.encoder=7"],
     "model.net.encoder: expected a string or null, got 7"),
])
def test_model_settings_of_another_type_than_declared_name_the_full_key(
    overrides: list[str], message: str
):
    """Types come from the preset's declaration (`models.registry.preset_settings`)."""
    assert refused(overrides) == [message]


def test_a_model_target_that_is_no_registered_preset_is_one_line(launch):
    [line] = refused(["model.net._target_=torch.nn.Identity"])
    assert line.startswith("model.net._target_: 'torch.nn.Identity' is not a registered preset")
    assert line.endswith(f"registered: {', '.join(sorted(preset_names()))}")
    status, stderr = launch("dataset=synthetic", "+experiment=tiny",
                            "model.net._target_=torch.nn.Identity")
    assert status == 2 and error_lines(stderr) == [f"error: {line}"]


def test_model_settings_in_range_pass():
    check(["model.net.dropout=0.0", "+model.net.attention_dim=null"])
    check(["model=han", "model.net.heads=8"])
    check(["model=cnn_ptrnet", "model.net.filter_width=[3,4]"])
    check(["model=random"])


def test_a_preset_refuses_the_same_settings_when_built():
    from models.hyperparameters import SettingError
    from models.presets import han, lstm_ptrnet

    with pytest.raises(SettingError, match=r"^dropout: expected a number in \[0, 1\), got 1.0$"):
        lstm_ptrnet(20, hidden_dim=8, dropout=1.0)
    with pytest.raises(SettingError, match=r"^heads: must divide hidden_dim \(16\), got 3$"):
        han(20, hidden_dim=16, heads=3)


def test_model_settings_are_refused_before_any_data_is_read(launch, tmp_path: Path):
    status, stderr = launch("dataset=jsonl", f"dataset.path={tmp_path / 'none'}",
                            "+experiment=tiny", "model.net.dropout=1.0")
    assert status == 2
    assert error_lines(stderr) == ["error: model.net.dropout: expected a number in [0, 1), got 1.0"]


def test_a_gpu_trainer_without_a_gpu_is_refused_naming_the_accelerator(launch, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    message = ("trainer.accelerator: gpu, but PyTorch sees no GPU on this machine "
               "(torch.cuda.is_available() is false); use trainer=cpu")
    assert refused(["trainer=gpu"]) == [message]
    status, stderr = launch("dataset=synthetic", "+experiment=tiny", "trainer=gpu")
    assert status == 2 and error_lines(stderr) == [f"error: {message}"]
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    check(["trainer=gpu"])


@pytest.mark.parametrize("variant", ["''", "' '", "a/b", "..", ".", "null"])
def test_an_empty_or_unsafe_variant_is_refused(variant: str):
    [line] = refused([f"variant={variant}"])
    assert line.startswith("variant: ") and any(
        word in line for word in ("folder name", "spaces", "start with '.'"))


def test_a_plain_variant_passes():
    check(["variant=fold3"])
    check(["variant=repro_e60.v2"])


def test_published_permutations_without_their_folder_are_refused_before_training(tmp_path):
    assert refused(["discrimination.permutations=published"]) == [
        "discrimination.permutations=published needs dataset.perm_path (the folder of the "
        "published test permutation files of synthetic)"
    ]
    assert refused(["discrimination.permutations=mine"]) == [
        "discrimination.permutations must be one of ('own', 'published'), got 'mine'"
    ]
    from benchmark.config.checks import discrimination_problems

    cfg = compose_config(["dataset=accident", "discrimination.permutations=published",
                          f"dataset.perm_path={tmp_path / 'none'}"])
    assert discrimination_problems(cfg) == [
        f"dataset.perm_path={tmp_path / 'none'} is not a folder"
    ]
    with open_dict(cfg):
        cfg.dataset.perm_path = str(tmp_path)
    assert discrimination_problems(cfg) == []
    check(["discrimination.permutations=published", "evaluate_discrimination=false"])
    check(["discrimination.permutations=published", "dataset.noise=1"])  # skipped: not read


def test_word_vectors_that_cannot_be_had_are_refused_before_any_data_is_read(tmp_path: Path):
    assert refused([f"model.embeddings={tmp_path / 'glove.txt'}"]) == [
        f"model.embeddings: embeddings file {tmp_path / 'glove.txt'} not found"
    ]
    assert refused(["model.embeddings=kumo"]) == [
        "model.embeddings: embeddings=kumo provides 50-d vectors; got embedding_dim=40"
    ]
    (tmp_path / "glove.txt").write_text("the " + " ".join(["0.1"] * 40) + "\n")
    check([f"model.embeddings={tmp_path / 'glove.txt'}"])
    check(["model.embeddings=kumo", "model.embedding_dim=50"])


# -- full disks ----------------------------------------------------------------------------
def test_a_full_disk_names_the_file_that_was_not_written(tmp_path: Path, monkeypatch):
    import os

    from benchmark.records.atomic_io import FileWriteError, atomic_write_text
    from benchmark.train import ONE_LINE_ERRORS

    atomic_write_text(tmp_path / "metrics.json", "{}\n")
    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(FileWriteError) as caught:
        atomic_write_text(tmp_path / "metrics.json", '{"new": 1}\n')
    assert str(caught.value) == (
        f"{tmp_path / 'metrics.json'}: not written (No space left on device)"
    )
    assert caught.value.errno == errno.ENOSPC and isinstance(caught.value, ONE_LINE_ERRORS)
    monkeypatch.undo()
    assert (tmp_path / "metrics.json").read_text() == "{}\n"  # the old file, whole
    assert [p.name for p in tmp_path.iterdir()] == ["metrics.json"]


def test_a_checkpoint_on_a_full_disk_still_says_why(tmp_path: Path, monkeypatch):
    import os

    from benchmark.training.checkpoints import AtomicCheckpointIO, CheckpointWriteError

    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(CheckpointWriteError, match=r"last\.ckpt: checkpoint not saved \(No space "
                                                   r"left on device\); the last\.ckpt"):
        AtomicCheckpointIO().save_checkpoint({"epoch": 0}, tmp_path / "last.ckpt")


# -- the processed-data cache ----------------------------------------------------------------
def make_dm(cache: Path):
    from data.datamodule import OrderingDataModule
    from data.readers.synthetic import SyntheticReader

    dm = OrderingDataModule(reader=SyntheticReader(n_train=40, n_valid=10, n_test=12),
                            name="toy", batch_size=8, cache_dir=str(cache))
    dm.setup()
    return dm


def truncate(path: Path, keep: float = 0.5) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


@pytest.mark.parametrize("damage", ["truncated split", "missing split", "bad vocabulary",
                                    "lost documents"])
def test_a_damaged_cache_entry_is_removed_with_a_warning_and_rebuilt(
    tmp_path: Path, caplog, damage: str
):
    first = make_dm(tmp_path / "cache")
    entry = first.cache_path
    arrow = entry / "train" / "token_ids.arrow"
    if damage == "truncated split":
        truncate(arrow)
    elif damage == "missing split":
        arrow.unlink()
    elif damage == "bad vocabulary":
        (entry / "vocab.json").write_text('{"itos": ["<pad>", "<unk>", ')
    else:  # a whole, readable split of fewer documents than were saved
        manifest = json.loads((entry / "manifest.json").read_text())
        manifest["n_docs"]["train"] += 1
        (entry / "manifest.json").write_text(json.dumps(manifest))
    caplog.set_level(logging.INFO, logger="data.cache")
    second = make_dm(tmp_path / "cache")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].startswith(f"{entry}: damaged processed-data cache")
    assert warnings[0].endswith("removed; building it again")
    assert not second.loaded_from_cache and second.documents == first.documents
    assert make_dm(tmp_path / "cache").loaded_from_cache  # whole again
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [entry.name]


def test_a_full_disk_while_caching_names_the_file_and_keeps_the_data(
    tmp_path: Path, monkeypatch, caplog
):
    from data.vocab import Vocab

    monkeypatch.setattr(Vocab, "save", no_space)
    dm = make_dm(tmp_path / "cache")
    assert dm.cache_path is None and not dm.loaded_from_cache and len(dm.documents["train"]) == 40
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.startswith(str(tmp_path / "cache"))
    assert "/vocab.json: processed-data cache not written (No space left on device)" in warning
    assert warning.endswith("going on without it")
    assert list((tmp_path / "cache").iterdir()) == []  # no half-written entry
    dm.prepare_data()  # as Lightning does again in fit, validate and test: not built again
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1


def test_prepare_fails_when_it_cannot_cache(tmp_path: Path, monkeypatch, capsys):
    from benchmark.prepare_data import main
    from data.vocab import Vocab

    monkeypatch.setattr(Vocab, "save", no_space)
    with pytest.raises(SystemExit) as exit:
        main(["dataset=synthetic", "model.embeddings=null",
              f"+dataset.datamodule.cache_dir={tmp_path / 'cache'}"])
    assert exit.value.code == 1
    assert error_lines(capsys.readouterr().err) == [
        "error: synthetic: the processed data could not be cached"
    ]


# -- a finished run's files: record, checkpoint, vocabulary -------------------------------------
@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """A finished run as `benchmark.train` leaves it, its model untrained (no training)."""
    return write_untrained_run(tmp_path / "runs", *RUN_OVERRIDES)


def test_a_malformed_run_record_is_one_line_saying_how_to_go_on(run_dir: Path, launch):
    from benchmark.run.plan import RunConflictError, plan_run

    cfg = OmegaConf.load(run_dir / ".hydra" / "config.yaml")
    assert plan_run(run_dir, cfg).action == "skip"
    (run_dir / "metrics.json").write_text('{"config": {"seed": 0,')
    with pytest.raises(RunConflictError) as caught:
        plan_run(run_dir, cfg)
    message = str(caught.value)
    assert message.startswith(f"{run_dir / 'metrics.json'}:1: malformed run record")
    assert message.endswith("delete it to run again (resumed from the checkpoints, if any), or "
                            "pass rerun=true to train from scratch")
    (run_dir / "metrics.json").write_text("[]")
    with pytest.raises(RunConflictError, match="metrics.json: not a run record"):
        plan_run(run_dir, cfg)
    status, stderr = launch(*RUN_OVERRIDES)
    assert status == 1 and error_lines(stderr) == [
        f"error: {run_dir / 'metrics.json'}: not a run record (no config); delete it to run "
        "again (resumed from the checkpoints, if any), or pass rerun=true to train from scratch"
    ]


def test_a_damaged_checkpoint_is_one_line_in_evaluate_and_predict(run_dir: Path, tmp_path,
                                                                    capsys):
    from benchmark.evaluate import main as evaluate
    from benchmark.predict import main as predict

    best = run_dir / "checkpoints" / "best.ckpt"
    truncate(best, 0.3)
    text = tmp_path / "in.txt"
    text.write_text("The first one.\nThe second one.\n")
    assert evaluate([f"run={run_dir}", "task=order"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"orderbench evaluate: error: {best}: damaged checkpoint (")
    assert err.count("\n") == 1 and "rerun=true" in err
    assert predict([f"run={run_dir}", f"input={text}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"orderbench predict: error: {best}: damaged checkpoint (")
    assert err.count("\n") == 1


def test_a_relaunch_of_a_finished_run_warns_of_its_damaged_checkpoint(run_dir: Path, launch,
                                                                       capsys):
    from benchmark.run.finished_run import damaged_checkpoint

    best = run_dir / "checkpoints" / "best.ckpt"
    assert damaged_checkpoint(run_dir) is None
    truncate(best, 0.9)
    assert damaged_checkpoint(run_dir).startswith(f"{best}: damaged checkpoint (")
    status, stderr = launch(*RUN_OVERRIDES)
    assert status == 0 and error_lines(stderr) == []
    warnings = [line for line in launch.stdout.splitlines() if "damaged checkpoint" in line]
    assert len(warnings) == 1 and warnings[0].startswith(f"warning: {best}: damaged checkpoint (")
    assert warnings[0].endswith("pass rerun=true to train the run again")


def test_a_resume_past_a_damaged_best_checkpoint_is_refused_in_one_line(run_dir: Path, launch):
    from benchmark.run.plan import RunConflictError, comparable_config, plan_run

    folder = run_dir / "checkpoints"
    (folder / "last.ckpt").write_bytes((folder / "best.ckpt").read_bytes())
    cfg = OmegaConf.load(run_dir / ".hydra" / "config.yaml")
    (folder / "resume.json").write_text(json.dumps({"config": comparable_config(cfg),
                                                    "wandb_id": "x"}))
    (run_dir / "metrics.json").unlink()  # the run was stopped before its record
    assert plan_run(run_dir, cfg).action == "resume"
    truncate(folder / "best.ckpt")
    with pytest.raises(RunConflictError) as caught:
        plan_run(run_dir, cfg)
    assert str(caught.value).startswith(f"{folder / 'best.ckpt'}: damaged checkpoint (")
    status, stderr = launch(*RUN_OVERRIDES)
    assert status == 1 and len(error_lines(stderr)) == 1
    assert error_lines(stderr)[0].endswith(
        "the model selected on valid is lost; pass rerun=true to train the run again")


def test_a_corrupt_vocabulary_is_one_line_in_predict(run_dir: Path, tmp_path: Path, capsys):
    from benchmark.predict import main as predict

    (run_dir / "vocab.json").write_text('{"itos": ["<pad>", "<u')
    text = tmp_path / "in.txt"
    text.write_text("The first one.\nThe second one.\n")
    assert predict([f"run={run_dir}", f"input={text}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"orderbench predict: error: {run_dir / 'vocab.json'}: damaged "
                          "vocabulary (")
    assert err.count("\n") == 1 and "delete it to rebuild it from the run's dataset" in err


def test_predict_reads_standard_input_for_a_dash(run_dir: Path, monkeypatch, capsys):
    from benchmark.predict import main as predict
    from benchmark.predict import parse_args

    assert parse_args(["run=r", "input=-"])["input"] == "-"
    monkeypatch.setattr(sys, "stdin", io.StringIO("The first one.\nThe second one.\n"))
    assert predict([f"run={run_dir}", "input=-", "beam=1"]) == 0
    assert sorted(capsys.readouterr().out.splitlines()) == ["The first one.", "The second one."]


# -- sweeps --------------------------------------------------------------------------------
@pytest.mark.parametrize("action", ["list", "run"])
def test_an_unknown_sweep_is_one_line_listing_the_sweeps(action: str, capsys):
    from benchmark.cli import main

    assert main(["sweep", action, "nosuchsweep"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"orderbench sweep {action}: error: no sweep 'nosuchsweep' in "
                          "conf/sweep/ or a study's; the sweeps: ")
    assert "smoke" in err and "paper" in err and "nips" in err  # a study's sweep too


# -- slow: real trainings --------------------------------------------------------------------
@pytest.mark.slow
def test_a_full_disk_after_test_names_the_file_and_a_relaunch_only_tests(tmp_path: Path):
    import subprocess

    from fixtures_sweep import ROOT, TINY_LSTM, cli_env, run_dir_for

    full = ("import errno, runpy, sys; import benchmark.records.predictions_jsonl as p\n"
            "def full(path, text):\n"
            "    raise OSError(errno.ENOSPC, 'No space left on device')\n"
            "from benchmark.records.atomic_io import atomic_write_bytes\n"
            "p.atomic_write_text = lambda path, text: atomic_write_bytes(path, lambda h: "
            "full(path, text))\n"
            "sys.argv[0] = 'benchmark.train'\n"
            "runpy.run_module('benchmark.train', run_name='__main__', alter_sys=True)\n")
    args = [*TINY_LSTM, f"paths.runs={tmp_path}"]
    failed = subprocess.run([sys.executable, "-c", full, *args], cwd=ROOT, env=cli_env(tmp_path),
                            capture_output=True, text=True, timeout=600)
    run = run_dir_for(tmp_path, *TINY_LSTM)
    predictions = run / "predictions.jsonl"
    assert failed.returncode == 1
    assert error_lines(failed.stderr)[-1] == (
        f"error: {predictions}: not written (No space left on device)")
    assert (run / "checkpoints" / "best.ckpt").is_file()
    again = subprocess.run([sys.executable, "-m", "benchmark.train", *args], cwd=ROOT,
                           env=cli_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert predictions.is_file()
    assert not (run / "checkpoints" / "last.ckpt").exists()  # finished: best.ckpt only
    record = json.loads((run / "metrics.json").read_text())
    assert record["epochs"] == 2  # trained once: the relaunch resumed after the last epoch


# -- pretrained encoders (model.net.encoder) -----------------------------------------------
@pytest.mark.parametrize("model", ["paragraph_listmle", "paragraph_ptrnet", "paragraph_tsort",
                                   "minilm_ptrnet", "minilm_finetune"])
def test_every_pretrained_preset_takes_the_encoder_key(model):
    """`model.net.encoder=X` needs no `+`: each pretrained preset's YAML lists the key."""
    assert refused([f"model={model}", "model.net.encoder=/no/such/folder"]) == [
        "model.net.encoder=/no/such/folder: no such folder (nor a registered encoder: minilm, "
        "mpnet)"
    ]


def test_an_offline_hub_name_and_an_unfetched_encoder_are_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("ORDERBENCH_WEIGHTS", str(tmp_path / "weights"))
    [hub] = refused(["model=minilm_finetune", "model.net.encoder=bert-base-uncased"])
    assert hub.startswith("model.net.encoder=bert-base-uncased: not a registered encoder "
                          "(minilm, mpnet), not a local folder, and not in the local Hugging Face "
                          "cache; the hub is offline here")
    [mpnet] = refused(["model=paragraph_ptrnet", "model.net.encoder=mpnet"])
    assert mpnet == (f"model.net.encoder=mpnet: all-mpnet-base-v2 is not in {tmp_path}/weights "
                     "(fetch it with `make weights ENCODER=mpnet`; $ORDERBENCH_WEIGHTS moves the "
                     "folder)")
    [empty] = refused(["model=paragraph_ptrnet", "model.net.encoder=''"])
    assert empty.startswith("model.net.encoder='': name a registered encoder")


def test_a_folder_without_a_model_is_refused_before_a_run_folder(launch, tmp_path):
    folder = tmp_path / "not-a-model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    status, stderr = launch("dataset=synthetic", "+experiment=tiny", "model=paragraph_listmle",
                            f"model.net.encoder={folder}")
    assert status == 2
    assert error_lines(stderr) == [
        f"error: model.net.encoder={folder}: {folder} holds no model.safetensors"
    ]
    assert not (tmp_path / "runs").exists()


def test_bucket_by_is_one_of_its_choices():
    assert refused(["dataset.datamodule.bucket_by=words"]) == [
        "dataset.datamodule.bucket_by: must be one of shape, tokens, got 'words'"
    ]
