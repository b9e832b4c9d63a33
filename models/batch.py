"""Validation of the batch dict that models consume (see the batch contract in the spec:
tokens (B, N, T), token_lengths (B, N), sentence_mask (B, N), n_sentences (B,),
gold_order (B, N), sentences in the presented order, real sentences first), and the
passes of bounded size in which rows of a batch are scored."""

import torch
from torch import Tensor

REQUIRED_KEYS = ("tokens", "token_lengths", "sentence_mask", "n_sentences")


def check_batch(batch: dict) -> None:
    """Raise ValueError naming the offending key unless `batch` fits the contract."""
    missing = [key for key in REQUIRED_KEYS if key not in batch]
    if missing:
        raise ValueError(f"batch is missing key(s) {missing}; has {sorted(batch)}")
    tokens, lengths = batch["tokens"], batch["token_lengths"]
    mask, n = batch["sentence_mask"], batch["n_sentences"]
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
    if bool((n < 1).any()):
        raise ValueError(f"batch['n_sentences'] must be >= 1, got {n.tolist()}")
    prefix = torch.arange(size[1], device=mask.device) < n.unsqueeze(-1)  # (B, N)
    if not torch.equal(mask, prefix):
        raise ValueError("batch['sentence_mask'] must be True exactly at positions < n_sentences")
    if not torch.equal(lengths > 0, mask):
        raise ValueError(
            "batch['token_lengths'] must be >= 1 for real sentences and 0 for padding sentences"
        )


def to_device(batch: dict, device: torch.device | str | None) -> dict:
    """`batch` with its tensors moved to `device` (None: left where they are)."""
    if device is None:
        return batch
    return {key: v.to(device) if isinstance(v, Tensor) else v for key, v in batch.items()}


def _describe(value: Tensor) -> str:
    return f"{value.dtype} {tuple(value.shape)}" if isinstance(value, Tensor) else repr(value)


def row_passes(count: int, rows_per_pass: int | None) -> list[slice]:
    """`count` rows in passes of at most `rows_per_pass` (None: one pass), as slices."""
    step = max(1, rows_per_pass or count)
    return [slice(first, first + step) for first in range(0, count, step)]
