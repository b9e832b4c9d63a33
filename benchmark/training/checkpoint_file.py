"""Reading a checkpoint file safely, without Lightning (the light commands use it too).

`load_checkpoint` is `torch.load` with `weights_only=True`: tensors, numbers, strings and
plain containers only. A file that holds other pickled objects (which could run code when
unpickled, e.g. a `last.ckpt` someone placed in a run folder) is refused, naming the file.
"""

from __future__ import annotations

import pickle
from pathlib import Path


class DamagedCheckpointError(ValueError):
    """A checkpoint file that cannot be loaded (truncated, not a checkpoint, unsafe)."""


def load_checkpoint(path: Path, **options) -> dict:
    """`torch.load` of a checkpoint with `weights_only=True`: tensors, numbers, strings and
    plain containers only; anything else (a pickled object that could run code) raises
    `DamagedCheckpointError` naming the file."""
    import torch  # here: the commands that never load a checkpoint start without torch

    try:
        checkpoint = torch.load(path, map_location="cpu", weights_only=True, **options)
    except pickle.UnpicklingError as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        if "weights_only" in str(error) or "Unsupported global" in str(error):
            reason = "holds pickled objects beyond tensors and plain containers; refused"
        raise DamagedCheckpointError(f"{path}: unsafe or damaged checkpoint ({reason})") from None
    except Exception as error:  # torch raises RuntimeError, EOFError ...
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise DamagedCheckpointError(f"{path}: damaged checkpoint ({reason})") from None
    if not isinstance(checkpoint, dict):
        raise DamagedCheckpointError(f"{path}: not a checkpoint (a {type(checkpoint).__name__})")
    return checkpoint
