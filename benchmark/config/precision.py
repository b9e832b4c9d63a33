"""bf16 on a CPU: probed, never assumed.

oneDNN, which PyTorch's CPU build uses for the LSTM, has no bf16 LSTM kernel on a CPU
without bf16 instructions (AVX-512 BF16 or AMX; an AVX2-only CPU has neither), so under
bf16 autocast every LSTM stops with "could not create a primitive descriptor for the LSTM
forward propagation primitive". There, bf16 autocast runs with oneDNN switched off:
PyTorch's own kernels compute the same operations (the LSTM included), more slowly, and
nothing crashes. Where the CPU has bf16 instructions nothing changes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch


def cpu_has_bf16() -> bool:
    """Whether oneDNN can run bf16 kernels on this CPU (its own probe of the instructions)."""
    probe = getattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", None)
    if probe is None or not torch.backends.mkldnn.is_available():
        return False
    return bool(probe())


def needs_onednn_off(device_type: str, bf16: bool) -> bool:
    """True for bf16 on a CPU that cannot run oneDNN's bf16 kernels."""
    return bf16 and device_type == "cpu" and not cpu_has_bf16()


@contextlib.contextmanager
def bf16_autocast(device_type: str, bf16: bool) -> Iterator[None]:
    """bf16 autocast on `device_type` when `bf16` (else nothing), with oneDNN off inside it
    where the CPU has no bf16 instructions (module docstring)."""
    onednn = torch.backends.mkldnn.enabled
    if needs_onednn_off(device_type, bf16):
        torch.backends.mkldnn.enabled = False
    try:
        with torch.autocast(device_type, dtype=torch.bfloat16, enabled=bf16):
            yield
    finally:
        torch.backends.mkldnn.enabled = onednn


AUTO = "auto"  # `trainer.precision: auto`: bf16 autocast where the device computes bf16


def resolve_precision(accelerator: str | None, precision):
    """`trainer.precision: auto` -> "bf16-mixed" where the device has bf16 instructions (a
    CUDA GPU that reports bf16; a CPU with AVX-512 BF16 or AMX, oneDNN's own probe), else
    "32-true"; any other value as it is. The config keeps "auto", so runs of one row on
    machines with and without bf16 share their config id; the record's `environment`
    says which one ran."""
    if str(precision) != AUTO:
        return precision
    if accelerator in ("gpu", "cuda") or (accelerator == "auto" and torch.cuda.is_available()):
        bf16 = torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    else:
        bf16 = cpu_has_bf16()
    return "bf16-mixed" if bf16 else "32-true"


def trainer_precision_is_bf16(precision) -> bool:
    """Lightning's `trainer.precision` asks for bf16 ("bf16-mixed", "bf16-true", "bf16")."""
    return "bf16" in str(precision)


def prepare_cpu_bf16(accelerator: str, precision) -> str | None:
    """Before a Lightning run: with `trainer.precision` bf16 on a CPU without bf16
    instructions, switch oneDNN off for this process (Lightning enters autocast itself) ->
    the line to tell the user, or None when nothing changed."""
    if accelerator != "cpu" or not needs_onednn_off("cpu", trainer_precision_is_bf16(precision)):
        return None
    torch.backends.mkldnn.enabled = False
    return (
        f"trainer.precision={precision}: this CPU has no bf16 instructions, so oneDNN is off "
        "and PyTorch's own (slower) kernels run the bf16 operations"
    )
