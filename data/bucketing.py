"""What length-aware batches group documents by (`dataset.datamodule.bucket_by`): the sort
keys `data.sampler.BucketBatchSampler` sorts each pool of documents by. No torch: the config
check reads the choices before anything heavy is imported.

- `shape` (the default): sentences, then the longest truncated sentence: the padded
  (B, N, T) word-id batch of the models that encode sentence by sentence;
- `tokens`: the document's word tokens (its sentences counted whole, an empty one as one),
  then its sentences: the joined paragraph a pretrained paragraph encoder reads in one
  pass (`paragraph_*`), whose padding grows with the longest document of its batch.
"""

from __future__ import annotations

import numpy as np

BUCKET_KEYS = ("shape", "tokens")


def bucket_sizes(documents, lengths: np.ndarray, max_tokens: int, bucket_by: str) -> np.ndarray:
    """(documents, 2) int64 sort keys of `documents` (a `data.columns.SplitColumns`) with
    `lengths` sentences each, under `bucket_by` (without distractors: a batch may come out a
    sentence longer)."""
    if bucket_by not in BUCKET_KEYS:
        raise ValueError(f"bucket_by must be one of {BUCKET_KEYS}, got {bucket_by!r}")
    if bucket_by == "tokens":
        columns = [documents.document_tokens(), lengths]
    else:
        columns = [lengths, documents.longest_sentences(max_tokens)]
    return np.stack(columns, axis=1).astype(np.int64)
