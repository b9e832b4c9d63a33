"""Checkpoint files that survive a kill or a full disk, and are checked before use.

- `AtomicCheckpointIO`: Lightning's checkpoint writer, saving through a temporary file in
  the checkpoint's own folder, synced, then renamed (`benchmark.records.atomic_io`). Lightning's
  own writer stages the file in the system temporary folder and moves it, which is a copy
  (not atomic) when that folder is on another filesystem: a kill or a full disk then left
  a truncated `last.ckpt`.
- `checkpoint_callbacks`: `best.ckpt` (selected on valid) and `last.ckpt`, written after
  every epoch whether or not it is the best. A monitored `ModelCheckpoint(save_last=True)`
  writes `last.ckpt` only when it saves a new best, so a resume after a worse epoch went
  back to the best one and trained the epochs after it again.
- `read_checkpoint_position` / `newest_intact_checkpoint`: load a checkpoint fully before
  resuming from it; a damaged one is passed over with a warning naming the file.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from pathlib import Path

import torch
from lightning_fabric.plugins.io.torch_io import TorchCheckpointIO
from pytorch_lightning.callbacks import ModelCheckpoint

from benchmark.records.atomic_io import atomic_write_bytes

log = logging.getLogger(__name__)


class CheckpointWriteError(OSError):
    """A checkpoint could not be written (full disk ...); the file before it is kept."""


class AtomicCheckpointIO(TorchCheckpointIO):
    """`TorchCheckpointIO` whose saves are atomic in the checkpoint's own folder."""

    def save_checkpoint(self, checkpoint: dict, path, storage_options=None) -> None:
        if storage_options is not None:
            raise TypeError(f"{type(self).__name__} takes no storage_options")
        path = Path(path)
        buffer = io.BytesIO()  # serialised first: a full disk is then an OSError of its own
        torch.save(checkpoint, buffer)
        try:
            atomic_write_bytes(path, lambda handle: handle.write(buffer.getbuffer()))
        except OSError as error:
            failure = CheckpointWriteError(
                f"{path}: checkpoint not saved ({error.strerror or error}); "
                f"the {path.name} from before, if any, is intact"
            )
            failure.errno = error.errno
            raise failure from error


def checkpoint_callbacks(dirpath: Path, monitor: str) -> tuple[ModelCheckpoint, ModelCheckpoint]:
    """(best, last): `best.ckpt` when `monitor` (maximised) improves, `last.ckpt` after
    every epoch. Give Lightning both, best first (it is `trainer.checkpoint_callback`)."""
    best = ModelCheckpoint(
        dirpath=dirpath, filename="best", monitor=monitor, mode="max",
        enable_version_counter=False,  # a fresh start replaces stale files, no best-v1.ckpt
    )
    last = ModelCheckpoint(
        dirpath=dirpath, filename="last", monitor=None, save_top_k=1, every_n_epochs=1,
        enable_version_counter=False,
    )
    return best, last


class DamagedCheckpointError(ValueError):
    """A checkpoint file that cannot be loaded (truncated, not a checkpoint)."""


@dataclass(frozen=True)
class CheckpointPosition:
    """Where training stood when a checkpoint was saved."""

    path: Path
    epoch: int  # the last epoch (0-based) the checkpoint has completed
    global_step: int


def read_checkpoint_position(path: Path) -> CheckpointPosition:
    """Load `path` completely and return its epoch and step; DamagedCheckpointError
    (naming the file) when it cannot be loaded or lacks a Lightning training state."""
    path = Path(path)
    try:
        checkpoint = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as error:  # torch raises RuntimeError, EOFError, UnpicklingError ...
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise DamagedCheckpointError(f"{path}: damaged checkpoint ({reason})") from None
    missing = [key for key in ("state_dict", "epoch", "global_step") if key not in checkpoint]
    if not isinstance(checkpoint, dict) or missing:
        raise DamagedCheckpointError(f"{path}: not a training checkpoint (lacks {missing})")
    return CheckpointPosition(path, int(checkpoint["epoch"]), int(checkpoint["global_step"]))


def newest_intact_checkpoint(paths: list[Path]) -> CheckpointPosition | None:
    """The intact checkpoint among `paths` that is furthest in training (latest step,
    then latest file), or None; each damaged file gets a warning naming it."""
    intact = []
    for path in paths:
        if not Path(path).is_file():
            continue
        try:
            intact.append(read_checkpoint_position(path))
        except DamagedCheckpointError as error:
            log.warning("%s; passed over", error)
    if not intact:
        return None
    return max(intact, key=lambda p: (p.global_step, p.path.stat().st_mtime))
