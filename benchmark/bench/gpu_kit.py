"""`orderbench bench gpu-kit` (`make gpu-kit`): gather what a GPU machine lacks for
`orderbench bench gpu-check` into one git-ignored folder (`benchmark.bench.kit`: what it
holds), within what may travel with the working tree, and print how to run the check there.

- wheels of `PACKAGES` at the versions installed here (what the check imports that the
  machine's image lacks; W&B is not among them: the check logs to CSV), for the machine's
  Python on manylinux x86-64, from PyPI; a package PyPI has no such wheel of is built here
  if it is pure Python (antlr4-python3-runtime 4.9.3 comes as source only);
- the NIPS abstracts (`nips=`: the SE-Graph copy, `$ORDERBENCH_DATASETS/nips_nseg`; or
  `synthetic`, NIPS-like abstracts of GloVe words for a dry run where the corpus is not at
  hand);
- the GloVe 6B 50-d vectors of the run's vocabulary (built by the DataModule from the
  training split, exactly as the run builds it), in the vocabulary's order, each value the
  float32 `embeddings: kumo` reads: the run's word vectors are the same;
- the bundled all-MiniLM-L6-v2's configuration and tokenizer files, of which the paragraph
  benches build encoders with random weights, and its weights as float16 (as float32 they
  would not travel), which the NIPS table's pretrained rows train from;
- `manifest.json`, checked by the GPU check before anything else.

Refuses, in one line, a `kit` folder that exists and is not a kit, a NIPS folder without
its files, a wheel it cannot get, and a kit that with the working tree (git's tracked and
untracked-not-ignored files) exceeds `LIMIT_MIB`.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmark.bench.kit import (
    DATASETS,
    ENCODER,
    ENCODER_FILES,
    GLOVE,
    KIT_DIR,
    LIMIT_MIB,
    MANIFEST,
    NIPS,
    NIPS_FILES,
    PAPER_RUN,
    WEIGHTS_FP16,
    WHEELS,
    KitError,
    file_entry,
    pack,
)
from benchmark.bench.nips_like import SPLIT_SIZES, VOCABULARY, nips_like_documents
from benchmark.cli_arguments import error_lines
from benchmark.cli_commands import BENCH_GPU_KIT
from benchmark.config.config_folders import SOURCE_ROOT as ROOT  # the repository
from benchmark.records.run_record import git_commit

PACKAGES = {  # what the check imports that the GPU image lacks -> why
    "hydra-core": "composes every config (benchmark.train, the bench)",
    "omegaconf": "Hydra's configs",
    "antlr4-python3-runtime": "Hydra's override grammar",
    "datasets": "the processed-data cache (data/cache.py)",
    "dill": "datasets",
    "multiprocess": "datasets",
    "submitit": "hydra/launcher=local: the concurrent runs",
    "hydra-submitit-launcher": "hydra/launcher=local",
}
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64",
             "manylinux2014_x86_64", "manylinux1_x86_64")  # fmt: skip
CHECK_COMMAND = "PYTHONUNBUFFERED=1 python3 -m benchmark.bench.gpu_check out=$OUT"


def main(argv: Sequence[str] | None = None) -> int:
    return BENCH_GPU_KIT.run(argv, _make)


def _make(args: dict) -> int:
    try:
        manifest = make_kit(Path(args["kit"]), args["nips"], args["python"], args["wheels"])
    except KitError as error:
        print(error_lines(error), file=sys.stderr)
        return 2
    print(summary(Path(args["kit"]), manifest))
    return 0


def make_kit(kit: Path, nips: str | None, python: str, wheels: bool) -> dict:
    """Fill `kit` (emptied first) and write its manifest; returns the manifest. A kit that
    fails half-made is removed, so that it does not block the next attempt."""
    if kit.exists() and any(kit.iterdir()) and not (kit / MANIFEST).is_file():
        raise KitError(f"kit={kit} exists and is not a kit (no {MANIFEST}): name another folder")
    shutil.rmtree(kit, ignore_errors=True)
    try:
        return _fill_kit(kit, nips, python, wheels)
    except BaseException:
        if not (kit / MANIFEST).is_file():
            shutil.rmtree(kit, ignore_errors=True)
        raise


def _fill_kit(kit: Path, nips: str | None, python: str, wheels: bool) -> dict:
    (kit / WHEELS).mkdir(parents=True)
    nips_dir = kit / DATASETS / NIPS
    source = copy_nips(nips, nips_dir)
    words = write_glove(nips_dir, kit / GLOVE)
    copy_encoder_files(kit / ENCODER)
    write_fp16_weights(kit / WEIGHTS_FP16)
    packages = fetch_wheels(kit / WHEELS, python) if wheels else {}
    files = sorted(path if path.is_relative_to(kit / WHEELS) else pack(path)
                   for path in sorted(kit.rglob("*")) if path.is_file())  # fmt: skip
    manifest = {
        "made_at": git_commit(ROOT),
        "python": python,
        "packages": packages,
        "nips": source,
        "glove_words": words,
        "files": [file_entry(kit, path) for path in files],
    }
    manifest["kit_bytes"] = sum(entry["bytes"] for entry in manifest["files"])
    manifest["working_tree_bytes"] = working_tree_bytes(ROOT)
    (kit / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    total = manifest["kit_bytes"] + manifest["working_tree_bytes"]
    if total > LIMIT_MIB * 2**20:
        raise KitError(f"kit={kit}: {total / 2**20:.1f} MiB with the working tree, more than "
                       f"the {LIMIT_MIB} MiB that may travel")
    return manifest


def copy_nips(nips: str | None, target: Path) -> str:
    """The NIPS split files into `target` (`nips`: their folder, or `synthetic`); returns
    where they came from."""
    target.mkdir(parents=True)
    if nips == "synthetic":
        words = _glove_words(VOCABULARY)
        for offset, (name, size) in enumerate(zip(NIPS_FILES, SPLIT_SIZES.values(),
                                                  strict=True)):  # fmt: skip
            documents = nips_like_documents(size, offset, name, words)
            lines = "".join(" <eos> ".join(doc["sentences"]) + "\n" for doc in documents)
            (target / name).write_text(lines)
        return "synthetic: NIPS-like abstracts of GloVe words (benchmark/bench/nips_like.py)"
    if nips is None:
        if "ORDERBENCH_DATASETS" not in os.environ:
            raise KitError("nips: ORDERBENCH_DATASETS is not set; give nips=DIR (the SE-Graph "
                           "NIPS folder) or nips=synthetic for a dry run")
        nips = str(Path(os.environ["ORDERBENCH_DATASETS"]) / NIPS)
    for name in NIPS_FILES:
        if not (Path(nips) / name).is_file():
            raise KitError(f"nips={nips}: no {name} (the SE-Graph NIPS layout: "
                           f"{', '.join(NIPS_FILES)})")
        shutil.copyfile(Path(nips) / name, target / name)
    return str(Path(nips).resolve())


def copy_encoder_files(target: Path) -> None:
    """The bundled encoder's configuration and tokenizer (`ENCODER_FILES`) into `target`."""
    from models.blocks.pretrained import resolve_model_path

    source = Path(resolve_model_path(None))
    target.mkdir(parents=True)
    for name in ENCODER_FILES:
        shutil.copyfile(source / name, target / name)


def write_fp16_weights(path: Path) -> None:
    """The bundled encoder's weights (float32 safetensors) as float16, to `path`."""
    import torch
    from safetensors.torch import load_file, save_file

    from models.blocks.pretrained import resolve_model_path

    weights = load_file(str(Path(resolve_model_path(None)) / "model.safetensors"))
    save_file({name: value.to(torch.float16).contiguous() for name, value in weights.items()},
              str(path), metadata={"format": "pt"})  # fmt: skip


def _glove_words(count: int) -> list[str]:
    from data.embeddings import kumo_words

    return kumo_words(count)


def write_glove(nips_dir: Path, path: Path) -> int:
    """The GloVe vectors of the vocabulary the kit's run builds from `nips_dir`, as a GloVe
    text file in vocabulary order; returns how many words it holds."""
    from benchmark.config.compose import compose_config
    from benchmark.run.stages import build_datamodule
    from data.embeddings import kumo_vectors

    cfg = compose_config([*PAPER_RUN, f"dataset.path={nips_dir.resolve()}"])
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    words = datamodule.vocab.itos
    found = kumo_vectors(words)
    with path.open("w", encoding="utf-8") as file:
        for row, vector in found.items():
            values = " ".join(np.format_float_positional(value, unique=True, trim="0")
                              for value in vector)  # fmt: skip
            file.write(f"{words[row]} {values}\n")
    return len(found)


def fetch_wheels(folder: Path, python: str) -> dict:
    """A wheel of each of `PACKAGES`, at its version here, for CPython `python` on
    manylinux x86-64 (built here when PyPI has none and the package is pure Python);
    returns {package: version}."""
    versions = {}
    for package in PACKAGES:
        try:
            version = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            raise KitError(f"{package}: not installed here (make setup)") from None
        pinned = f"{package}=={version}"
        download = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--only-binary=:all:", "--python-version", python, "--implementation", "cp",
                    *(f"--platform={platform}" for platform in PLATFORMS), "-d", str(folder),
                    pinned]  # fmt: skip
        if subprocess.run(download, capture_output=True, text=True).returncode != 0:
            _build_pure_wheel(pinned, folder)
        versions[package] = version
    return versions


def _build_pure_wheel(pinned: str, folder: Path) -> None:
    """`pinned` built into a wheel here, which must be pure Python (any Python, any
    machine); else a KitError."""
    before = set(folder.iterdir())
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                            "-w", str(folder), pinned], capture_output=True, text=True)
    new = sorted(set(folder.iterdir()) - before)
    if built.returncode != 0 or not new:
        last = (built.stderr.strip().splitlines() or ["no wheel built"])[-1]
        raise KitError(f"{pinned}: no wheel for the GPU machine on PyPI, and none built here "
                       f"({last})")
    if not all(path.name.endswith(("-py3-none-any.whl", "-py2.py3-none-any.whl"))
               for path in new):  # fmt: skip
        raise KitError(f"{pinned}: PyPI has no wheel for the GPU machine and the one built "
                       f"here is not pure Python ({new[0].name})")


def working_tree_bytes(root: Path) -> int:
    """Bytes of what travels with a checkout: tracked and untracked-not-ignored files."""
    listing = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    listed = subprocess.run(listing, cwd=root, capture_output=True, text=True, check=True).stdout
    paths = {root / name for name in listed.split("\0") if name}
    return sum(path.lstat().st_size for path in paths if path.exists() or path.is_symlink())


def _mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"


def summary(kit: Path, manifest: dict) -> str:
    """What the kit holds, its size and the working tree's, and how to run the check."""
    parts: dict[str, int] = {}
    for entry in manifest["files"]:
        top = entry["path"].split("/")[0]
        parts[top] = parts.get(top, 0) + entry["bytes"]
    wheels = ", ".join(f"{name} {version}" for name, version in manifest["packages"].items())
    total = manifest["kit_bytes"] + manifest["working_tree_bytes"]
    command = CHECK_COMMAND + ("" if kit == KIT_DIR else f" kit={kit}")
    return "\n".join([
        f"{kit}: {_mib(manifest['kit_bytes'])} in {len(manifest['files'])} files",
        *(f"  {name:<24} {_mib(size)}" for name, size in sorted(parts.items())),
        f"  wheels: {wheels or 'none'}",
        f"  NIPS: {manifest['nips']}; GloVe: {manifest['glove_words']:,} words",
        f"working tree: {_mib(manifest['working_tree_bytes'])}; with the kit {_mib(total)} of "
        f"{LIMIT_MIB} MiB",
        "",
        "On the GPU machine (the device tool's run, timeout_s=600):",
        f"  carry: {json.dumps([str(kit)])}",
        f"  command: {command}",
        "Here, its dry run: make gpu-check DEVICE=cpu",
    ])


if __name__ == "__main__":
    sys.exit(main())
