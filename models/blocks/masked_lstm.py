"""An LSTM over right-padded sequences that stops at each row's length, step by step.

The recurrence of Hochreiter and Schmidhuber (1997) with the gates of PyTorch's `nn.LSTM`
(input, forget, cell, output; i_t = sigmoid(W_ii x_t + b_ii + W_hi h_{t-1} + b_hi), ...,
c_t = f_t c_{t-1} + i_t g_t, h_t = o_t tanh(c_t)), with the parameters of an `nn.LSTM` of
the same shape (the same names, `weight_ih_l0` ..., and initial values: one is built to draw
them, so a seed and a checkpoint mean the same as with `nn.LSTM`). A row's state stops
changing after its last real step, so the outputs at real positions and the final (h, c)
are those of a packed `nn.LSTM` (to float rounding), without packing, which copies the
lengths to the host at every call (on a GPU, a host synchronisation), and without an
`nn.LSTM` module, where the compiler breaks its graph: the loop over the T steps is traced
whole (one step per position; T stays small for paragraphs of sentences).
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class MaskedLSTM(nn.Module):
    def __init__(self, input_dim: int, hidden_dim: int, num_layers: int = 1):
        super().__init__()
        self.hidden_size = hidden_dim
        self.num_layers = num_layers
        initial = nn.LSTM(input_dim, hidden_dim, num_layers=num_layers, batch_first=True)
        for name, parameter in initial.named_parameters():  # weight_ih_l0, weight_hh_l0, ...
            self.register_parameter(name, parameter)

    def forward(self, inputs: Tensor, lengths: Tensor) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """inputs (B, T, d) right-padded, lengths (B,) -> top-layer outputs (B, T, H) (zeros
        at padding) and each layer's final (h, c), each (layers, B, H), at the row's last
        real step (zeros for a row of length 0)."""
        steps = inputs.shape[1]
        running = torch.arange(steps, device=inputs.device) < lengths.unsqueeze(1)  # (B, T)
        hidden, finals_h, finals_c = inputs, [], []
        for layer in range(self.num_layers):
            hidden, (h, c) = self._layer(layer, hidden, running)
            finals_h.append(h)
            finals_c.append(c)
        return hidden, (torch.stack(finals_h), torch.stack(finals_c))

    def _layer(self, layer: int, inputs: Tensor, running: Tensor):
        """One layer over inputs (B, T, I) -> outputs (B, T, H), final (h, c) (B, H)."""
        weight_hh = getattr(self, f"weight_hh_l{layer}")
        bias = getattr(self, f"bias_ih_l{layer}") + getattr(self, f"bias_hh_l{layer}")
        gates_in = F.linear(inputs, getattr(self, f"weight_ih_l{layer}"), bias)  # (B, T, 4H)
        h = inputs.new_zeros(inputs.shape[0], self.hidden_size)  # (B, H)
        c = torch.zeros_like(h)
        outputs = []
        for step in range(inputs.shape[1]):
            gates = gates_in[:, step] + F.linear(h, weight_hh)  # (B, 4H)
            i, f, g, o = gates.chunk(4, dim=1)
            cell = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            out = torch.sigmoid(o) * torch.tanh(cell)  # (B, H)
            keep = running[:, step].unsqueeze(1)  # (B, 1)
            h, c = torch.where(keep, out, h), torch.where(keep, cell, c)
            outputs.append(torch.where(keep, out, torch.zeros_like(out)))
        return torch.stack(outputs, dim=1), (h, c)
