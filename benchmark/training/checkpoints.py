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
- Which checkpoint a run resumes from: `benchmark.training.checkpoint_position` (without
  Lightning, so that listing a sweep does not import it).

Every checkpoint is loaded with `weights_only=True` (`benchmark.training.checkpoint_file`): a
file holding pickled objects beyond tensors and plain containers is refused, never executed.
"""

from __future__ import annotations

import io
from pathlib import Path

import torch
from lightning_fabric.plugins.io.torch_io import TorchCheckpointIO
from pytorch_lightning.callbacks import ModelCheckpoint

from benchmark.records.atomic_io import atomic_write_bytes


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
