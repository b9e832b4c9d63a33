"""The calls that run an `nn.LSTM`, kept out of the compiler's graphs.

PyTorch's compiler does not trace `nn.LSTM` (TorchDynamo breaks its graph at any access to
one, `torch._dynamo.config.allow_rnn`); the fused kernels it would run are cuDNN's on a GPU
and oneDNN's on a CPU anyway. So each method of this package that reads an LSTM is wrapped
by `eager_lstm`: the compiled step breaks at that call, which is named in the break's
reason (`EAGER_LSTM`), runs it eagerly and resumes the next graph after it; no other break
is expected in a training step (`orderbench bench compile` checks it).
"""

from collections.abc import Callable

import torch

EAGER_LSTM = "nn.LSTM runs eagerly: the compiler does not trace it"


def eager_lstm(function: Callable) -> Callable:
    """`function` (which runs an nn.LSTM) left out of compiled graphs, the break named."""
    return torch.compiler.disable(function, reason=EAGER_LSTM)
