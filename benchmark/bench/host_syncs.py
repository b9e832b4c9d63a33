"""Host synchronisations counted: the operators of a piece of code that make the host wait
for the device (on a GPU, every queued kernel must finish first), and the ATen operators
it runs (on a GPU, about one kernel launch each).

`HostSyncs` is a context manager made of two PyTorch modes. A dispatch mode
(`TorchDispatchMode`) sees every ATen operator: it counts them all, and as syncs those
whose result the host must read (`_local_scalar_dense`: `.item()`, `bool(tensor)`,
`int(tensor)`; `equal`, `is_nonzero`) or whose output size depends on the values
(`nonzero`, `masked_select`, `unique`, `bincount`, `repeat_interleave` without its output
size, indexing with a boolean mask). A function mode (`TorchFunctionMode`) sees the tensor
methods called from Python: `.cpu()`, `.tolist()`, `.numpy()` and `.to("cpu")`, which
copy a device tensor to the host, and `torch.tensor(data, device=...)` called by the
suite's code, which copies host data to a device and waits for it (PyTorch's own, such as
an optimiser's step count made on the host for the host, are not counted); on a CPU they
dispatch nothing, so the dispatch mode alone would miss them. Everything is counted
whatever the device, so a CPU run counts what the same code would synchronise on a GPU (a
path taken only on a GPU is counted only there). Each sync is filed under its operator
and the line of the suite's code (`models/`, `benchmark/`, `data/`) that called it.
"""

from __future__ import annotations

import traceback
from collections import Counter
from pathlib import Path

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

aten = torch.ops.aten
SYNC_OPS = frozenset({  # ATen operators whose result the host must wait for
    aten._local_scalar_dense.default, aten.is_nonzero.default, aten.equal.default,
    aten.nonzero.default, aten.masked_select.default, aten._unique.default,
    aten._unique2.default, aten.unique_dim.default, aten.unique_consecutive.default,
    aten.unique_dim_consecutive.default, aten.bincount.default,
})  # fmt: skip
MASK_INDEXED = frozenset({aten.index.Tensor, aten.index_put.default, aten.index_put_.default,
                          aten._index_put_impl_.default})  # fmt: skip
HOST_COPIES = frozenset({"cpu", "tolist", "numpy"})  # tensor methods that read it on the host
# host data copied to a device (a `device=` given): a blocking copy, the host waits for the
# stream first (PyTorch synchronises a non-pinned copy that is not `non_blocking`)
FROM_HOST = frozenset({torch.tensor, torch.as_tensor})
# (`.to("cpu")` too, where the tensor is on another device)
ROOT = Path(__file__).resolve().parents[2]  # the repository
OWN = tuple(str(ROOT / room) for room in ("models", "benchmark", "data"))
HERE = str(Path(__file__).resolve())
MODES = ("torch/overrides.py", "torch/utils/_python_dispatch.py",  # the modes' own frames
         "torch/_dynamo/eval_frame.py", "torch/_compile.py")  # and their wrappers


def _caller() -> str:
    """`path:line` of the innermost frame of the suite's code (this file left out), with the
    innermost library frame below it where the call came from a library (`torch/optim/...`)."""
    stack = [frame for frame in traceback.extract_stack() if frame.filename != HERE
             and not frame.filename.endswith(MODES)]  # fmt: skip
    own = next((f for f in reversed(stack) if f.filename.startswith(OWN)), None)
    where = f"{Path(own.filename).relative_to(ROOT)}:{own.lineno}" if own else "outside the suite"
    if stack and stack[-1] is not own:
        library = stack[-1]
        short = library.filename.split("site-packages/")[-1]
        where += f" ({short}:{library.lineno})"
    return where


def _mask_indexed(func, args: tuple) -> bool:
    """Whether an indexing operator gets a boolean (mask) index."""
    if func not in MASK_INDEXED or len(args) < 2:
        return False
    return any(isinstance(index, torch.Tensor) and index.dtype in (torch.bool, torch.uint8)
               for index in args[1] or ())  # fmt: skip


def _to_host(name: str, args: tuple, kwargs: dict) -> bool:
    """Whether a tensor method call copies the tensor to the host."""
    if name in HOST_COPIES:
        return True
    if name != "to" or not args or args[0].device.type == "cpu":  # to its own device: no copy
        return False
    targets = [*args[1:2], kwargs.get("device")]
    return any(str(target) == "cpu" or target == torch.device("cpu") for target in targets
               if isinstance(target, (str, torch.device)))  # fmt: skip


class _Dispatch(TorchDispatchMode):
    def __init__(self, owner: HostSyncs):
        super().__init__()
        self.owner = owner

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.owner.operators += 1
        if func is aten._local_scalar_dense.default and self.owner.on_host(args[0]):
            pass  # a value that lives on the host on every device
        elif func in SYNC_OPS or _mask_indexed(func, args) or (
            func is aten.repeat_interleave.Tensor and (kwargs or {}).get("output_size") is None
        ):
            self.owner.found[f"{func.__name__} @ {_caller()}"] += 1
        return func(*args, **(kwargs or {}))


class _Functions(TorchFunctionMode):
    def __init__(self, owner: HostSyncs):
        super().__init__()
        self.owner = owner

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        kwargs = kwargs or {}
        if _to_host(name, args, kwargs) and args and isinstance(args[0], torch.Tensor):
            self.owner.found[f"Tensor.{name} @ {_caller()}"] += 1
        elif func in FROM_HOST and kwargs.get("device") is not None and args and not (
            isinstance(args[0], torch.Tensor)
        ):
            where = _caller()
            if "(" not in where:  # the suite's own call (a library's host tensors: its own)
                self.owner.found[f"torch.{name} @ {where}"] += 1
        return func(*args, **kwargs)


class HostSyncs:
    """`with HostSyncs() as syncs: ...` -> `syncs.count` host synchronisations (`syncs.found`:
    how many of each, by operator and calling line) and `syncs.operators` ATen operators.
    `host`: tensors that live on the host whatever the device (an optimiser's step counts,
    which PyTorch keeps there unless `capturable` or `fused`): reading them is no sync."""

    def __init__(self, host: list[torch.Tensor] = ()):
        self.found: Counter[str] = Counter()
        self.operators = 0
        self._host = {tensor.untyped_storage().data_ptr() for tensor in host}
        self._modes = (_Functions(self), _Dispatch(self))

    def on_host(self, tensor) -> bool:
        return (isinstance(tensor, torch.Tensor) and bool(self._host)
                and tensor.untyped_storage().data_ptr() in self._host)  # fmt: skip

    @property
    def count(self) -> int:
        return sum(self.found.values())

    def __enter__(self) -> HostSyncs:
        for mode in self._modes:
            mode.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        for mode in reversed(self._modes):
            mode.__exit__(*exc)
