"""The training step's loss compiled (config key `compile`) or captured as CUDA graphs (config
key `cuda_graphs`), both off by default.

At the published sizes a training step of the paper presets is a few GFLOP spread over
1,300-4,800 operators (docs/performance.md, "FLOPs per training step"): on a GPU every
operator is a kernel launch of some microseconds, so the step is bound by launches, not
arithmetic. `torch.compile` fuses the operators of the model's loss (forward, and the
backward that autograd derives from it) into few kernels; in its CUDA-graph mode
(`mode="reduce-overhead"`) it also replays a recorded sequence of kernels with one launch.
Every model's step reads no value on the host (`models.batch`), so the compiler takes it
whole but where PyTorch cannot trace a module: at an `nn.LSTM` (cuDNN's, or oneDNN's on a
CPU) the graph breaks and the LSTM runs eagerly between the graphs.

A compiled graph serves only the shapes it was compiled for (its dimensions are symbolic,
`dynamic=True`, but a loop over the sentences of a paragraph is unrolled at its length),
so each training batch is padded on the host (`prepare`) to the next power of two of
sentences, at least `SENTENCE_FLOOR` (NIPS: N in 4, 8, 16): a few graphs per corpus,
reused. A CUDA graph is recorded per shape, so with `cuda_graphs` the words are padded
too, to the next power of two of at least `TOKEN_FLOOR` (NIPS: T in 16, 32, 64), and a
model reading the joined text pads its input the same way. Padding changes
no loss: every model masks padding (tests/benchmark/training/test_cuda_graphs.py).
Dropout, though, draws its masks over the padded shapes, and the fused arithmetic rounds
otherwise, so a seed's trajectory is not the eager one's. With `compile` the step is
compiled on every device (on a CPU a C++ compiler is needed; its speed beside the eager
step: `orderbench bench compile`), and the optimiser's update too
(`benchmark.training.compiled_optimizer`). With `cuda_graphs` on a CPU there are no CUDA
graphs: the batches are padded the same way and the step runs eagerly, with the same
losses as without the switch.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.fx.experimental._config as shape_config
from torch import Tensor, nn

from data.collate import padded_to
from models.batch import PREPARED, bucket, prepare_batch

SENTENCE_FLOOR = 4  # the smallest sentence bucket
TOKEN_FLOOR = 16  # the smallest word bucket
RECOMPILE_LIMIT = 64  # graphs torch.compile keeps per function (its default, 8, is too few)
DYNAMIC = True


def bucketed(batch: dict, words: bool = True) -> dict:
    """`batch` padded to its bucket: sentences, and with `words` words, up to `bucket` of
    each."""
    sentences, tokens = batch["tokens"].shape[1:]
    return padded_to(batch, bucket(sentences, SENTENCE_FLOOR),
                     bucket(tokens, TOKEN_FLOOR) if words else tokens)  # fmt: skip


def step_inputs(batch: dict) -> dict:
    """What the compiled loss is given: the batch's tensors and its prepared inputs; lists
    (document ids, texts) would be guarded by value and recompile the loss at every batch."""
    return {key: value for key, value in batch.items()
            if isinstance(value, Tensor) or key == PREPARED}  # fmt: skip


class CompiledLoss:
    """`net.loss` of a training step with `compile` (compiled on every device) or
    `cuda_graphs` (captured as CUDA graphs on a GPU, eager on a CPU), on batches padded to a
    few shapes (module docstring). `shapes` collects the padded (B, N, T) shapes met so far."""

    def __init__(
        self, net: nn.Module, device_type: str, cuda_graphs: bool = False,
        backend: str | Callable = "inductor",
    ):  # fmt: skip
        self.net = net
        self.captures = cuda_graphs and device_type == "cuda"
        self.compiles = self.captures or not cuda_graphs
        self.shapes: set[tuple[int, int, int]] = set()
        self._loss = net.loss
        if self.compiles:
            limit = torch._dynamo.config.recompile_limit
            torch._dynamo.config.recompile_limit = max(limit, RECOMPILE_LIMIT)
            # no "duck" sizes: two dimensions that happen to be equal in the first batch (two
            # chunks of a text encoder of equal sentence counts) would be guarded as equal
            # and recompile the loss at the next batch where they are not
            shape_config.use_duck_shape = False
            mode = "reduce-overhead" if self.captures else None  # None: inductor's default
            self._loss = torch.compile(net.loss, backend=backend, mode=mode, dynamic=DYNAMIC)

    def prepare(self, batch: dict) -> dict:
        """The host side of a training batch: padded to its bucket, then prepared for the
        model (`models.batch.prepare_batch`: one call for all sentences, fixed shapes). A
        compiled step without CUDA graphs keeps its words unpadded (that dimension is
        symbolic, `dynamic=True`), a captured one pads them too: a graph is recorded per
        shape."""
        padded = bucketed(batch, words=not self.compiles or self.captures)
        return prepare_batch(self.net, padded, buckets=False, fixed_shapes=True)

    def __call__(self, batch: dict) -> Tensor:
        if PREPARED not in batch:  # not from the harness's host side (tests, a bench)
            batch = self.prepare(batch)
        self.shapes.add(tuple(batch["tokens"].shape))
        if self.captures:
            torch.compiler.cudagraph_mark_step_begin()  # a new step: last step's outputs done
        return self._loss(step_inputs(batch))
