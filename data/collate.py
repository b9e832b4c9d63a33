"""The collation of presented examples (``data.example``) into the batch dict every model
consumes.

Batch (B documents, N = most sentences, T = most tokens per sentence in the batch), with
sentences in the PRESENTED (shuffled) order:

- ``tokens`` LongTensor (B, N, T): word ids, 0 = <pad>, 1 = <unk>
- ``token_lengths`` LongTensor (B, N): tokens per sentence, 0 for padding sentences
- ``sentence_mask`` BoolTensor (B, N): True for real sentences
- ``n_sentences`` LongTensor (B,)
- ``gold_order`` LongTensor (B, N): ``gold_order[b, k]`` = presented index of the sentence
  that belongs at position k; -1 beyond the document's gold sentences
- ``doc_ids`` list[str]; ``sentence_ids`` list[list[int]]: gold id of each presented sentence
- ``texts`` list[list[str]] (only when every example carries its text): the raw text of each
  presented sentence, for encoders that read text rather than word ids (pretrained MiniLM)

Sentences with a negative id (distractors, docs/design.md, section 4) are presented but take
no gold position.
"""

from __future__ import annotations

import numpy as np
import torch

from data.example import Example
from data.vocab import PAD_ID


def collate(examples: list[Example]) -> dict:
    """Pad ``examples`` into the batch dict described in the module docstring."""
    batch_size = len(examples)
    n_max = max(len(ex.sentences) for ex in examples)
    t_max = max(len(s) for ex in examples for s in ex.sentences)
    n_sentences = torch.tensor([len(ex.sentences) for ex in examples], dtype=torch.long)  # (B,)
    sentence_mask = torch.arange(n_max).unsqueeze(0) < n_sentences.unsqueeze(1)  # (B, N)
    # every real sentence's tokens in one scatter, not one small copy per sentence
    flat = [sentence for ex in examples for sentence in ex.sentences]  # S sentences
    lengths = torch.tensor([len(sentence) for sentence in flat], dtype=torch.long)  # (S,)
    slots = sentence_mask.view(-1).nonzero().squeeze(1)  # (S,) row of each in (B * N)
    token_lengths = torch.zeros(batch_size * n_max, dtype=torch.long)  # (B * N,)
    token_lengths[slots] = lengths
    starts = lengths.cumsum(0) - lengths  # (S,) offset of each sentence's first token
    rows = torch.repeat_interleave(slots, lengths)  # (total tokens,)
    columns = torch.arange(int(lengths.sum())) - torch.repeat_interleave(starts, lengths)
    tokens = torch.full((batch_size * n_max, t_max), PAD_ID, dtype=torch.long)  # (B * N, T)
    values = np.concatenate([np.asarray(sentence, dtype=np.int64) for sentence in flat])
    tokens[rows, columns] = torch.from_numpy(values)
    tokens = tokens.view(batch_size, n_max, t_max)  # (B, N, T)
    token_lengths = token_lengths.view(batch_size, n_max)  # (B, N)
    gold_order = torch.full((batch_size, n_max), -1, dtype=torch.long)  # (B, N)
    for b, ex in enumerate(examples):
        gold = sorted((i, j) for j, i in enumerate(ex.sentence_ids) if i >= 0)
        gold_order[b, : len(gold)] = torch.tensor([j for _, j in gold], dtype=torch.long)
    batch = {
        "tokens": tokens,
        "token_lengths": token_lengths,
        "sentence_mask": sentence_mask,
        "n_sentences": n_sentences,
        "gold_order": gold_order,
        "doc_ids": [ex.doc_id for ex in examples],
        "sentence_ids": [list(ex.sentence_ids) for ex in examples],
    }
    if all(ex.texts is not None for ex in examples):
        batch["texts"] = [list(ex.texts) for ex in examples]
    return batch


def padded_to(batch: dict, sentences: int, tokens: int) -> dict:
    """``batch`` with its (B, N) and (B, N, T) tensors padded up to ``sentences`` slots and
    ``tokens`` words (padding sentences and <pad> words, as ``collate`` pads); the lists
    and (B,) tensors are kept. A model's loss and orders do not change: every model masks
    padding. Sizes below the batch's own are refused."""
    n_max, t_max = batch["tokens"].shape[1:]
    if sentences < n_max or tokens < t_max:
        raise ValueError(f"cannot pad a batch of ({n_max}, {t_max}) to ({sentences}, {tokens})")
    grow_n, grow_t = sentences - n_max, tokens - t_max
    fills = {"tokens": PAD_ID, "token_lengths": 0, "sentence_mask": False, "gold_order": -1}
    padded = dict(batch)
    for key, fill in fills.items():
        value = batch.get(key)
        if value is None:
            continue
        widths = (0, grow_t, 0, grow_n) if value.dim() == 3 else (0, grow_n)
        padded[key] = torch.nn.functional.pad(value, widths, value=fill)
    return padded
