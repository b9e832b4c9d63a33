"""How a CPU run keeps freed memory: the config key `cpu_memory`.

Batches grouped by tokens change their shapes at every step. glibc's heap keeps the freed
blocks, which the next shape rarely fits, and oneDNN caches up to 1,024 primitives, one for
each new shape. A BERT-base-sized encoder's run held 12-15 GiB that way, several times its
live tensors (docs/performance.md, "The memory of a BERT-base-sized run").

- `bounded`: oneDNN's primitive cache holds 16 entries (`ONEDNN_PRIMITIVE_CACHE_CAPACITY`),
  and glibc maps each block of 8 MiB or more on its own, so it goes back to the system when
  freed (`mallopt(M_MMAP_THRESHOLD)`, as `MALLOC_MMAP_THRESHOLD_` sets it at start-up).
- `default`: both stay as the libraries set them.

A variable already set in the environment wins over `bounded`. The settings change the
memory and none of the figures. `environment.memory_variables` in the record names the
settings in force. oneDNN reads its capacity when it makes its first primitive, so the
setting is applied before a run builds anything. Its children inherit it through the
environment.
"""

from __future__ import annotations

import ctypes
import os
import platform

BOUNDED, DEFAULT = "bounded", "default"
SETTINGS = (BOUNDED, DEFAULT)
ONEDNN_CACHE = "ONEDNN_PRIMITIVE_CACHE_CAPACITY"
MMAP_THRESHOLD = "MALLOC_MMAP_THRESHOLD_"
BOUNDED_VALUES = {ONEDNN_CACHE: "16", MMAP_THRESHOLD: str(8 * 2**20)}
_M_MMAP_THRESHOLD = -3  # glibc's <malloc.h> parameter number for mallopt


def _set_mmap_threshold(size: int) -> bool:
    """glibc's `mallopt(M_MMAP_THRESHOLD, size)` in this process; False where the C
    library is not glibc or refuses the value."""
    if platform.libc_ver()[0] != "glibc":
        return False
    try:
        return bool(ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, size))
    except (OSError, AttributeError):
        return False


def apply_cpu_memory(setting: str) -> dict[str, str]:
    """Put `setting` into effect in this process and its environment. Returns the variables
    it set. A variable the user set is left alone, and so is the malloc setting where the C
    library is not glibc."""
    if setting not in SETTINGS:
        raise ValueError(f"cpu_memory: expected one of {', '.join(SETTINGS)}, got {setting!r}")
    if setting == DEFAULT:
        return {}
    applied = {}
    for name, value in BOUNDED_VALUES.items():
        if name in os.environ:
            continue
        if name == MMAP_THRESHOLD and not _set_mmap_threshold(int(value)):
            continue
        os.environ[name] = value
        applied[name] = value
    return applied
