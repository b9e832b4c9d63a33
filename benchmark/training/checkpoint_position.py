"""Where a checkpoint left training, read before resuming from it: `read_checkpoint_position`
loads a checkpoint fully; `newest_intact_checkpoint` passes over a damaged one with a
warning naming the file. Without Lightning (torch only once a checkpoint is loaded), so
that planning a run, or listing a sweep of them, starts at once."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from benchmark.training.checkpoint_file import DamagedCheckpointError, load_checkpoint

log = logging.getLogger(__name__)


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
