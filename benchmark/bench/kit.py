"""What a GPU kit holds and where (`make gpu-kit` makes it, `make gpu-check` reads it;
docs/performance.md, "The GPU kit").

A GPU machine lent for a check has PyTorch, Lightning and transformers but not the rest of
what the suite imports, no network, and takes at most 64 MiB of files with the working
tree. The kit is one git-ignored folder with what it lacks:

- `wheels/`: the packages its image does not have (`manifest.json` names them and why),
  at the versions tested here;
- `datasets/nips_nseg/`: the NIPS abstracts (SE-Graph split) the check trains on, the
  folder `ORDERBENCH_DATASETS` points to there (never committed: the data owners' licence);
- `glove.6B.50d.nips.txt`: the GloVe 6B 50-d vectors of the corpus's training vocabulary,
  the very rows `embeddings: kumo` looks up, as a GloVe text file (`model.embeddings=`);
- `encoder/`: the bundled all-MiniLM-L6-v2's configuration and tokenizer: the paragraph
  benches build encoders of its shape and BERT-base's from them, with random weights
  (`benchmark.bench.shaped_encoder`);
- `encoder-model.fp16.safetensors`: its weights as float16 (45 of the 64 MiB that may
  travel; as float32 they would not fit), widened back to float32 on the GPU machine
  (`unpack_encoder`) for the NIPS table's pretrained rows: the real weights to float16
  rounding (relative error at most 2^-11);
- `manifest.json`: every file with its size and SHA-256, the commit it was made at.

Every file but the wheels travels gzip-compressed (`PACKED`: 8.6 MiB less, the working tree
growing with the results site); the check unpacks the kit into its scratch folder
(`unpack_kit`) once its manifest is checked, and reads the names above there.

Standard library only: the check reads the kit before its wheels are installed.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

KIT_DIR = Path("gpu-kit")  # beside the code, git-ignored (.gitignore)
MANIFEST = "manifest.json"
WHEELS = "wheels"
DATASETS = "datasets"  # ORDERBENCH_DATASETS on the GPU machine
NIPS = "nips_nseg"  # +reproduce=nips reads ${ORDERBENCH_DATASETS}/nips_nseg
NIPS_FILES = ("train.lower", "val.lower", "test.lower")
GLOVE = "glove.6B.50d.nips.txt"
ENCODER = "encoder"  # the bundled encoder's configuration and tokenizer files
ENCODER_FILES = ("config.json", "special_tokens_map.json", "tokenizer.json",
                 "tokenizer_config.json", "vocab.txt")  # fmt: skip
WEIGHTS_FP16 = "encoder-model.fp16.safetensors"  # the encoder's weights, float16
PACKED = ".gz"  # the suffix of a file that travels gzip-compressed
LIMIT_MIB = 64  # what may travel with the working tree to the GPU machine
# the run the kit serves: ATTOrderNet at its published sizes on the NIPS abstracts
PAPER_RUN = ("model=attordernet", "+experiment=attordernet_paper", "dataset=nips",
             "+reproduce=nips")  # fmt: skip
# the pretrained paragraph encoders' row the paragraph steps bench, on the same abstracts
PARAGRAPH_PRESET, PARAGRAPH_DATA = "paragraph_listmle", ("dataset=nips", "+reproduce=nips")


class KitError(ValueError):
    """A kit that cannot be used: the message names the folder or file."""


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_manifest(kit: Path) -> dict:
    """The kit's manifest, once every file it lists is there with its size and digest."""
    path = kit / MANIFEST
    if not path.is_file():
        raise KitError(f"kit={kit}: no {MANIFEST} (make it with `make gpu-kit`, then carry "
                       f"the folder along)")
    manifest = json.loads(path.read_text())
    for entry in manifest["files"]:
        file = kit / entry["path"]
        if not file.is_file():
            raise KitError(f"{file}: listed in {path} but missing (carry the whole kit folder)")
        if file.stat().st_size != entry["bytes"] or sha256(file) != entry["sha256"]:
            raise KitError(f"{file}: not the file {path} lists (size or SHA-256 differ)")
    return manifest


def file_entry(kit: Path, file: Path) -> dict:
    """A manifest row: the path inside the kit, its size and SHA-256."""
    return {"path": file.relative_to(kit).as_posix(), "bytes": file.stat().st_size,
            "sha256": sha256(file)}  # fmt: skip


def pack(path: Path) -> Path:
    """`path` gzip-compressed beside itself as `path` + `PACKED` (the same bytes every time:
    no name or time in the header), the original removed; returns the packed file."""
    import gzip
    import shutil

    packed = path.with_name(path.name + PACKED)
    with path.open("rb") as source, packed.open("wb") as raw, \
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as target:
        shutil.copyfileobj(source, target, 1 << 20)
    path.unlink()
    return packed


def unpack_kit(kit: Path, target: Path) -> Path:
    """The files `kit`'s manifest lists, in `target` as the check reads them: packed ones
    decompressed (their `PACKED` suffix dropped), the others (wheels) linked; returns `target`."""
    import gzip
    import shutil

    for entry in json.loads((kit / MANIFEST).read_text())["files"]:
        source, name = kit / entry["path"], entry["path"]
        file = target / (name[: -len(PACKED)] if name.endswith(PACKED) else name)
        file.parent.mkdir(parents=True, exist_ok=True)
        file.unlink(missing_ok=True)
        if name.endswith(PACKED):
            with gzip.open(source, "rb") as packed, file.open("wb") as plain:
                shutil.copyfileobj(packed, plain, 1 << 20)
        else:
            file.symlink_to(source.resolve())
    return target


def unpack_encoder(kit: Path, target: Path) -> Path:
    """The kit's encoder folder with its float16 weights widened back to float32 (the values
    the float16 rounding left) as `model.safetensors`, into `target` (on the GPU machine,
    once the check's wheels are in: it imports torch and safetensors)."""
    import shutil

    import torch
    from safetensors.torch import load_file, save_file

    shutil.copytree(kit / ENCODER, target, dirs_exist_ok=True)
    weights = load_file(str(kit / WEIGHTS_FP16))
    save_file({name: value.to(torch.float32).contiguous() for name, value in weights.items()},
              str(target / "model.safetensors"), metadata={"format": "pt"})  # fmt: skip
    return target
