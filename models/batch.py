"""Validation of the batch dict that models consume (see the batch contract in the spec:
tokens (B, N, T), token_lengths (B, N), sentence_mask (B, N), n_sentences (B,),
gold_order (B, N), sentences in the presented order, real sentences first), its host side,
and the passes of bounded size in which rows of a batch are scored.

A training step reads no value of its batch on the host: on a GPU every such read waits for
the queued kernels (a host synchronisation). So a batch is *prepared* on the host before it
is moved to the device (`prepare_batch`; the harness calls it from the LightningModule's
`on_before_batch_transfer`): its values are checked there (`check_batch_values`, and the
model's own checks, e.g. that the gold order is a permutation), and the model computes
there, from the host tensors, what it would otherwise read back during the step
(`host_inputs`: length buckets on a CPU, the token ids of a model that reads raw text).
These go into the batch under `PREPARED` and travel to the device with it. A model given a
batch that was not prepared prepares it itself (`prepared`), which reads the values (a
sync on a GPU): callers outside the harness (tests, one-off scoring) get the same checks.
`check_batch`, the structure alone (keys, dtypes, shapes), reads no value.
"""

import torch
from torch import Tensor

REQUIRED_KEYS = ("tokens", "token_lengths", "sentence_mask", "n_sentences")
PREPARED = "prepared"  # the batch's host-side inputs (`prepare_batch`), a dict


def bucket(size: int, floor: int = 1) -> int:
    """The smallest power of two that is at least `size` and at least `floor`: the few
    shapes a compiled step's inputs are padded to (`prepare_batch`'s `fixed_shapes`)."""
    return max(floor, 1 << max(size - 1, 0).bit_length())


def check_batch(batch: dict) -> None:
    """Raise ValueError naming the offending key unless `batch` has the contract's keys,
    dtypes and shapes (no value is read)."""
    missing = [key for key in REQUIRED_KEYS if key not in batch]
    if missing:
        raise ValueError(f"batch is missing key(s) {missing}; has {sorted(batch)}")
    tokens, n = batch["tokens"], batch["n_sentences"]
    if tokens.dim() != 3 or tokens.dtype != torch.long:
        raise ValueError(f"batch['tokens'] must be a LongTensor (B, N, T), got {_describe(tokens)}")
    size = tokens.shape[:2]
    for key, dtype in (("token_lengths", torch.long), ("sentence_mask", torch.bool)):
        value = batch[key]
        if value.shape != size or value.dtype != dtype:
            raise ValueError(
                f"batch['{key}'] must be {dtype} {tuple(size)}, got {_describe(value)}"
            )
    if n.shape != size[:1]:
        raise ValueError(f"batch['n_sentences'] must have shape ({size[0]},), got {_describe(n)}")


def check_batch_values(batch: dict) -> None:
    """Raise ValueError naming the offending key unless the values of `batch` fit the
    contract: at least one sentence each, the mask a prefix of n_sentences, real
    sentences (only) with tokens. Reads the values: called on the host (`prepare_batch`)."""
    lengths, mask, n = batch["token_lengths"], batch["sentence_mask"], batch["n_sentences"]
    size = mask.shape
    if bool((n < 1).any()):
        raise ValueError(f"batch['n_sentences'] must be >= 1, got {n.tolist()}")
    prefix = torch.arange(size[1], device=mask.device) < n.unsqueeze(-1)  # (B, N)
    if not torch.equal(mask, prefix):
        raise ValueError("batch['sentence_mask'] must be True exactly at positions < n_sentences")
    if not torch.equal(lengths > 0, mask):
        raise ValueError(
            "batch['token_lengths'] must be >= 1 for real sentences and 0 for padding sentences"
        )


def prepare_batch(net, batch: dict, buckets: bool, fixed_shapes: bool = False) -> dict:
    """The host side of `batch` for `net` (module docstring): its structure and values
    checked, and `net.host_inputs(batch, buckets, fixed_shapes)` (where `net` has it) under
    `PREPARED`. `buckets`: whether a model may plan length buckets (the eager CPU paths; a
    GPU or a compiled step runs every sentence in one call); `fixed_shapes`: whether inputs
    of its own (a joined paragraph's tokens) are padded to a few lengths, for a compiled
    step."""
    check_batch(batch)
    check_batch_values(batch)
    host_inputs = getattr(net, "host_inputs", None)
    inputs = {} if host_inputs is None else host_inputs(batch, buckets, fixed_shapes)
    return {**batch, PREPARED: inputs}


def prepared(net, batch: dict) -> dict:
    """`batch` as `net` reads it: as given when it was prepared (only its structure checked),
    else prepared now (`prepare_batch`, length buckets where its tensors are on the CPU and
    nothing is being compiled)."""
    check_batch(batch)
    if PREPARED in batch:
        return batch
    on_cpu = batch["tokens"].device.type == "cpu"
    return prepare_batch(net, batch, on_cpu and not torch.compiler.is_compiling())


def to_device(batch: dict, device: torch.device | str | None) -> dict:
    """`batch` with its tensors moved to `device`, those of its prepared inputs too (None:
    left where they are)."""
    return batch if device is None else _moved(batch, device)


def _moved(value, device: torch.device | str):
    if isinstance(value, Tensor):
        return value.to(device)
    if isinstance(value, dict):
        return {key: _moved(item, device) for key, item in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple
        return type(value)(*(_moved(item, device) for item in value))
    if isinstance(value, (list, tuple)) and any(isinstance(item, (Tensor, dict, tuple, list))
                                                 for item in value):  # fmt: skip
        return type(value)(_moved(item, device) for item in value)
    return value


def _describe(value: Tensor) -> str:
    return f"{value.dtype} {tuple(value.shape)}" if isinstance(value, Tensor) else repr(value)


def row_passes(count: int, rows_per_pass: int | None) -> list[slice]:
    """`count` rows in passes of at most `rows_per_pass` (None: one pass), as slices."""
    step = max(1, rows_per_pass or count)
    return [slice(first, first + step) for first in range(0, count, step)]
