"""The training step captured as CUDA graphs (config key `cuda_graphs`, off by default).

At the published sizes a training step of the paper presets is a few GFLOP spread over
1,300-4,800 operators (docs/performance.md, "FLOPs per training step"): on a GPU every
operator is a kernel launch of some microseconds, so the step is bound by launches, not
arithmetic. A CUDA graph replays a recorded sequence of kernels with one launch, but only
for the shapes it was recorded with, and every batch has its own shape (B, N, T). So with
`cuda_graphs: true` each training batch is padded up to fixed shapes, the next power of
two of sentences (at least `SENTENCE_FLOOR`) and of words (at least `TOKEN_FLOOR`): a few
buckets per corpus (NIPS: N in 4, 8, 16 and T in 16, 32, 64). The model's loss (forward,
and the backward that autograd derives from it) is compiled by `torch.compile` in its
CUDA-graph mode (`mode="reduce-overhead"`, static shapes): one graph per bucket, recorded
at the bucket's first batch; parts the compiler cannot trace (cuDNN's packed LSTM, say) run
eagerly between the graphs. The optimiser's update is not captured (`compile: true`
compiles it).

Padding changes no loss: every model masks padding sentences and words
(tests/benchmark/training/test_cuda_graphs.py). Dropout, though, draws its masks over the
padded shapes, so a seed's trajectory is not the unpadded one's. On a CPU there are no CUDA
graphs: the batches are padded the same way and the step runs eagerly, with the same losses
as without the switch.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from data.collate import padded_to

SENTENCE_FLOOR = 4  # the smallest sentence bucket
TOKEN_FLOOR = 16  # the smallest word bucket
RECOMPILE_LIMIT = 64  # graphs torch.compile keeps per function (its default, 8, is too few)


def bucket(size: int, floor: int) -> int:
    """The smallest power of two that is at least `size` and at least `floor`."""
    return max(floor, 1 << max(size - 1, 0).bit_length())


def bucketed(batch: dict) -> dict:
    """`batch` padded to its bucket: sentences and words up to `bucket` of each."""
    sentences, tokens = batch["tokens"].shape[1:]
    return padded_to(batch, bucket(sentences, SENTENCE_FLOOR), bucket(tokens, TOKEN_FLOOR))


def reads_text(net: nn.Module) -> bool:
    """Whether a sentence encoder of `net` reads the sentences' raw text (a model part
    without a word embedding: the MiniLM and paragraph-encoder presets)."""
    return any(getattr(module, "embedding", False) is None for module in net.modules())


class CapturedLoss:
    """`net.loss` on bucketed batches: compiled into CUDA graphs on a GPU, eager on a CPU
    (module docstring). `shapes` collects the padded (B, N, T) shapes met so far: one graph
    each on a GPU. A model that reads raw text is refused: its input has no shape."""

    def __init__(self, net: nn.Module, device_type: str):
        if reads_text(net):
            raise ValueError(
                "cuda_graphs=true: this model reads the sentences' raw text, which has no "
                "fixed shape to capture; set cuda_graphs=false"
            )
        self.captures = device_type == "cuda"
        self.shapes: set[tuple[int, int, int]] = set()
        self._loss = net.loss
        if self.captures:
            limit = torch._dynamo.config.recompile_limit
            torch._dynamo.config.recompile_limit = max(limit, RECOMPILE_LIMIT)
            self._loss = torch.compile(net.loss, mode="reduce-overhead", dynamic=False)

    def __call__(self, batch: dict) -> Tensor:
        padded = bucketed(batch)
        self.shapes.add(tuple(padded["tokens"].shape))
        # only tensors reach the loss: lists (document ids, texts) would be guarded by
        # value and recompile the compiled loss at every batch
        tensors = {key: value for key, value in padded.items() if isinstance(value, Tensor)}
        if self.captures:
            torch.compiler.cudagraph_mark_step_begin()  # a new step: last step's outputs done
        return self._loss(tensors)
