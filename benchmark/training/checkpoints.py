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
- `FolderCheckpoint`: a `ModelCheckpoint` that belongs to its folder. Lightning restores the
  absolute `best_model_path` stored in `last.ckpt`, so a run folder copied or moved and then
  relaunched validated and tested the *original* folder's `best.ckpt`; here the stored paths
  are mapped into the folder the callback writes to, and a path outside it is dropped.
- `read_checkpoint_position` / `newest_intact_checkpoint`: load a checkpoint fully before
  resuming from it; a damaged one is passed over with a warning naming the file.

Every checkpoint is loaded with `weights_only=True` (`benchmark.training.checkpoint_file`): a
file holding pickled objects beyond tensors and plain containers is refused, never executed.
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
from benchmark.training.checkpoint_file import DamagedCheckpointError, load_checkpoint

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


_STORED_PATHS = ("best_model_path", "kth_best_model_path", "last_model_path")


class FolderCheckpoint(ModelCheckpoint):
    """`ModelCheckpoint` whose restored state names files of its own `dirpath` only."""

    def load_state_dict(self, state_dict: dict) -> None:
        stored = state_dict.get("dirpath")
        if stored is None or self.dirpath is None:
            return super().load_state_dict(state_dict)
        state = dict(state_dict, dirpath=self.dirpath)  # the same run, wherever it lies now
        for key in _STORED_PATHS:
            state[key] = self._relocated(state_dict.get(key) or "", stored)
        state["best_k_models"] = {
            self._relocated(path, stored): score
            for path, score in (state_dict.get("best_k_models") or {}).items()
            if self._relocated(path, stored)
        }
        super().load_state_dict(state)

    def _relocated(self, path: str, stored_dir: str) -> str:
        """`path` (a file of `stored_dir`) as the same file in this callback's folder; ""
        for a path outside `stored_dir`, which is never used."""
        if not path or Path(path).parent != Path(stored_dir):
            return ""
        return str(Path(self.dirpath) / Path(path).name)


def checkpoint_callbacks(dirpath: Path, monitor: str) -> tuple[ModelCheckpoint, ModelCheckpoint]:
    """(best, last): `best.ckpt` when `monitor` (maximised) improves, `last.ckpt` after
    every epoch. Give Lightning both, best first (it is `trainer.checkpoint_callback`)."""
    best = FolderCheckpoint(
        dirpath=dirpath, filename="best", monitor=monitor, mode="max",
        enable_version_counter=False,  # a fresh start replaces stale files, no best-v1.ckpt
    )
    last = FolderCheckpoint(
        dirpath=dirpath, filename="last", monitor=None, save_top_k=1, every_n_epochs=1,
        enable_version_counter=False,
    )
    return best, last


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
    checkpoint = load_checkpoint(path)
    missing = [key for key in ("state_dict", "epoch", "global_step") if key not in checkpoint]
    if missing:
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
