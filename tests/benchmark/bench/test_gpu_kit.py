"""The GPU kit (`make gpu-kit`, benchmark/bench/gpu_kit.py, benchmark/bench/kit.py): its
GloVe file gives the run the very vectors `embeddings: kumo` gives, its wheels are pure
where PyPI has none for the GPU machine, the working tree is measured as it travels, and a
kit that is not one, or lacks a file, is refused in one line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

from benchmark.bench import gpu_kit, kit
from benchmark.bench.gpu_kit import (
    copy_nips,
    fetch_wheels,
    make_kit,
    working_tree_bytes,
    write_glove,
)
from benchmark.bench.kit import KitError, file_entry, read_manifest
from benchmark.bench.nips_like import nips_like_documents

WORDS = ["the", "model", "learns", "an", "order", "of", "sentences", "we", "show", "that",
         "results", "improve", "data", "network", "neural", "zzyzxq"]  # the last: no vector


def _nseg_folder(folder: Path) -> Path:
    """A small folder in the SE-Graph NIPS layout, of GloVe words (and one without)."""
    folder.mkdir(parents=True)
    for seed, name in enumerate(kit.NIPS_FILES):
        docs = nips_like_documents(40, seed, name, WORDS * 900)
        (folder / name).write_text("".join(" <eos> ".join(d["sentences"]) + "\n"
                                           for d in docs))
    return folder


@pytest.mark.slow  # the DataModule and kumo's 400,000 vectors: 10-20 s
def test_the_kits_glove_file_gives_the_runs_vectors_exactly(tmp_path: Path):
    from benchmark.config.compose import compose_config
    from benchmark.run.stages import build_datamodule
    from data.embeddings import pretrained_embeddings

    nips = _nseg_folder(tmp_path / "nips")
    glove = tmp_path / kit.GLOVE
    assert write_glove(nips, glove) == len(WORDS) - 1
    cfg = compose_config([*kit.PAPER_RUN, f"dataset.path={nips}"])
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    from_kumo, found = pretrained_embeddings(datamodule.vocab, "kumo", 50)
    from_file, found_in_file = pretrained_embeddings(datamodule.vocab, str(glove), 50)
    assert found_in_file == found == len(WORDS) - 1
    assert torch.equal(from_file, from_kumo)  # every row, the random ones included


def test_a_nips_folder_without_its_files_is_refused_in_one_line(tmp_path: Path, monkeypatch):
    (tmp_path / "nips").mkdir()
    (tmp_path / "nips/train.lower").write_text("a . <eos> b .\n")
    with pytest.raises(KitError, match=r"nips=.*/nips: no val.lower \(the SE-Graph NIPS"):
        copy_nips(str(tmp_path / "nips"), tmp_path / "kit/nips")
    monkeypatch.delenv("ORDERBENCH_DATASETS", raising=False)
    with pytest.raises(KitError, match="ORDERBENCH_DATASETS is not set; give nips=DIR"):
        copy_nips(None, tmp_path / "kit2/nips")


def test_an_existing_folder_that_is_no_kit_is_left_alone(tmp_path: Path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine/notes.txt").write_text("keep")
    with pytest.raises(KitError, match="kit=.*mine exists and is not a kit"):
        make_kit(tmp_path / "mine", "synthetic", "3.12", wheels=False)
    assert (tmp_path / "mine/notes.txt").read_text() == "keep"


def test_a_kit_that_fails_half_made_leaves_nothing_that_blocks_the_next(tmp_path, monkeypatch):
    monkeypatch.delenv("ORDERBENCH_DATASETS", raising=False)
    with pytest.raises(KitError, match="ORDERBENCH_DATASETS is not set"):
        make_kit(tmp_path / "kit", None, "3.12", wheels=False)
    assert not (tmp_path / "kit").exists()  # the next attempt is not refused
    manifest = make_kit(tmp_path / "kit", "synthetic", "3.12", wheels=False)
    assert manifest["nips"].startswith("synthetic")
    listed = {entry["path"] for entry in manifest["files"]}
    assert {f"{kit.ENCODER}/{name}{kit.PACKED}" for name in kit.ENCODER_FILES} <= listed
    weights = [path for path in listed if ".safetensors" in path or ".bin" in path]
    assert weights == [kit.WEIGHTS_FP16 + kit.PACKED]  # float16 only: float32 would not travel
    unpacked = kit.unpack_kit(tmp_path / "kit", tmp_path / "unpacked")
    assert (unpacked / kit.GLOVE).read_text().count("\n") == manifest["glove_words"]
    assert sorted(path.name for path in (unpacked / kit.DATASETS / kit.NIPS).iterdir()) == \
        sorted(kit.NIPS_FILES)
    assert (unpacked / kit.WEIGHTS_FP16).stat().st_size > 40 * 2**20


def test_the_encoder_travels_as_float16_and_is_widened_back(tmp_path: Path):
    from safetensors.torch import load_file

    from models.blocks.pretrained import resolve_model_path

    gpu_kit.write_fp16_weights(tmp_path / kit.WEIGHTS_FP16)
    (tmp_path / kit.ENCODER).mkdir()
    unpacked = kit.unpack_encoder(tmp_path, tmp_path / "encoder32")
    original = load_file(str(Path(resolve_model_path(None)) / "model.safetensors"))
    widened = load_file(str(unpacked / "model.safetensors"))
    assert widened.keys() == original.keys()
    for name, value in original.items():
        assert widened[name].dtype == torch.float32
        torch.testing.assert_close(widened[name], value.half().float(), rtol=0, atol=0)
    assert (tmp_path / kit.WEIGHTS_FP16).stat().st_size < 50 * 2**20


def test_a_kit_too_large_to_travel_is_refused(tmp_path: Path, monkeypatch):
    """Random bytes, which gzip cannot shrink, make the kit too large."""
    monkeypatch.setattr(gpu_kit, "copy_nips", lambda nips, target: target.mkdir(parents=True)
                        or (target / "train.lower").write_bytes(os.urandom(2**20)) or "here")
    monkeypatch.setattr(gpu_kit, "write_glove", lambda nips, path: path.write_text("") or 0)
    monkeypatch.setattr(gpu_kit, "copy_encoder_files", lambda target: target.mkdir())
    monkeypatch.setattr(gpu_kit, "write_fp16_weights", lambda path: path.write_bytes(b""))
    monkeypatch.setattr(gpu_kit, "working_tree_bytes", lambda root: 63.5 * 2**20)
    with pytest.raises(KitError, match=r"64.5 MiB with the working tree, more than the 64 MiB"):
        make_kit(tmp_path / "kit", "x", "3.12", wheels=False)
    monkeypatch.setattr(gpu_kit, "working_tree_bytes", lambda root: 2**20)
    manifest = make_kit(tmp_path / "kit", "x", "3.12", wheels=False)
    assert read_manifest(tmp_path / "kit") == manifest  # every listed file is there


def test_a_kit_missing_or_changing_a_file_is_refused_naming_it(tmp_path: Path):
    with pytest.raises(KitError, match=r"kit=.*: no manifest.json \(make it with `make gpu-kit`"):
        read_manifest(tmp_path)
    (tmp_path / "wheels").mkdir()
    wheel = tmp_path / "wheels/a-1-py3-none-any.whl"
    wheel.write_text("wheel")
    manifest = {"files": [file_entry(tmp_path, wheel)]}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert read_manifest(tmp_path) == manifest
    wheel.write_text("other")
    with pytest.raises(KitError, match="a-1-py3-none-any.whl: not the file .* lists"):
        read_manifest(tmp_path)
    wheel.unlink()
    with pytest.raises(KitError, match="a-1-py3-none-any.whl: listed in .* but missing"):
        read_manifest(tmp_path)


class FakePip:
    """`subprocess.run` of pip: download fails (no wheel on PyPI), `pip wheel` makes
    `built`."""

    def __init__(self, built: str):
        self.built, self.calls = built, []

    def __call__(self, argv, **kwargs):
        self.calls.append(argv[3])
        if argv[3] == "wheel":
            folder = Path(argv[argv.index("-w") + 1])
            (folder / self.built.format(name=argv[-1].split("==")[0])).write_text("")
            return subprocess.CompletedProcess(argv, 0, "", "")
        return subprocess.CompletedProcess(argv, 1, "", "No matching distribution")


def test_a_package_without_a_wheel_for_the_gpu_machine_is_built_here_if_pure(
    tmp_path: Path, monkeypatch
):
    monkeypatch.setattr(gpu_kit, "PACKAGES", {"omegaconf": "configs"})
    monkeypatch.setattr(subprocess, "run", FakePip("{name}-2.3-py3-none-any.whl"))
    assert fetch_wheels(tmp_path, "3.12") == {"omegaconf": gpu_kit.importlib.metadata.version(
        "omegaconf")}
    assert subprocess.run.calls == ["download", "wheel"]
    monkeypatch.setattr(subprocess, "run", FakePip("{name}-2.3-cp311-cp311-linux_x86_64.whl"))
    (tmp_path / "other").mkdir()
    with pytest.raises(KitError, match="omegaconf==.*: PyPI has no wheel for the GPU machine "
                                       "and the one built here is not pure Python"):
        fetch_wheels(tmp_path / "other", "3.12")


def test_the_working_tree_is_what_git_would_send(tmp_path: Path):
    if shutil.which("git") is None:
        pytest.skip("needs git")
    git = ["git", "-C", str(tmp_path)]
    subprocess.run([*git, "init", "-q"], check=True)
    (tmp_path / ".gitignore").write_text("kit/\n")  # 5 bytes
    (tmp_path / "tracked.py").write_text("x" * 100)
    subprocess.run([*git, "add", "tracked.py"], check=True)
    (tmp_path / "untracked.txt").write_text("y" * 10)
    (tmp_path / "kit").mkdir()
    (tmp_path / "kit/big.whl").write_text("z" * 1000)  # ignored: travels only when carried
    assert working_tree_bytes(tmp_path) == 100 + 10 + 5
