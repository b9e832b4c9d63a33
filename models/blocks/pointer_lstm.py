"""LSTM pointer decoder.

Gong et al. (2016), "End-to-End Neural Sentence Ordering Using Pointer Network",
following Vinyals et al. (2015), "Pointer Networks": an LSTM whose state starts from the
paragraph encoder's final state; its input at step k is the vector of the sentence
chosen at step k-1 (a learned start vector, or zeros, at step 0); its state d_k scores
every presented sentence with the additive pointer u_j = v^T tanh(W1 e_j + W2 d_k)
(`AdditivePointer`). Already-placed and padding sentences are masked.

Started from a paragraph vector v alone (paragraph state `(v,)`), the decoder begins at
h0 = v, c0 = 0; with `learned_start=False` its step-0 input is x0 = 0. Together these are
the decoder of Cui et al. (2018), "Deep Attentive Sentence Ordering Network" (ATTOrderNet):
an LSTM pointer network (512 units) initialised from the mean-pooled paragraph vector.

Which vectors the pointer scores (`pointer_keys`): "paragraph", the paragraph encoder's
outputs e_j (Gong et al. 2016, whose Ptr-Net points at its LSTM encoder's states), or
"sentence", the sentence vectors s_j themselves (Cui et al. 2018, eq. 12:
u_j^i = g^T tanh(W1 s_j + W2 h_i), h_i the decoder state at step i). The decoder's initial
cell with a paragraph vector alone (`initial_cell`): "zeros" (c0 = 0, the paper states only
h0 = v) or "paragraph" (c0 = v, as in ATTOrderNet's released code,
hwxcby/ATTOrderNet main_file.py `LSTMStateTuple(v, v)`).

Two paths share the same weights: `teacher_forced` runs all steps at once on given
orders (training, log-probabilities); `step` runs one step for the searches.
"""

import torch
from torch import Tensor, nn

from models.blocks.eager_lstm import eager_lstm
from models.blocks.pointer_attention import AdditivePointer
from models.interfaces import ParagraphEncoding, Tensors
from models.search.candidates import mask_scores, placed_before

POINTER_KEYS = ("paragraph", "sentence")
INITIAL_CELLS = ("zeros", "paragraph")


class LSTMPointerDecoder(nn.Module):
    def __init__(
        self,
        input_dim: int,  # sentence vector width (the decoder's input)
        hidden_dim: int,  # LSTM units; must equal the paragraph encoder's state width
        context_dim: int | None = None,  # paragraph context width; None: hidden_dim
        attention_dim: int | None = None,  # pointer tanh width; None: hidden_dim
        learned_start: bool = True,  # step-0 input: learned vector (True) or zeros (False)
        pointer_keys: str = "paragraph",  # scored vectors: paragraph contexts or sentences
        initial_cell: str = "zeros",  # c0 with a paragraph vector v alone: zeros or v
    ):
        super().__init__()
        if pointer_keys not in POINTER_KEYS:
            raise ValueError(f"pointer_keys must be one of {POINTER_KEYS}, got {pointer_keys!r}")
        if initial_cell not in INITIAL_CELLS:
            raise ValueError(f"initial_cell must be one of {INITIAL_CELLS}, got {initial_cell!r}")
        self.hidden_dim = hidden_dim
        self.pointer_keys = pointer_keys
        self.initial_cell = initial_cell
        self.lstm = nn.LSTM(input_dim, hidden_dim, batch_first=True)
        key_dim = input_dim if pointer_keys == "sentence" else context_dim or hidden_dim
        self.pointer = AdditivePointer(key_dim, hidden_dim, attention_dim or hidden_dim)
        if learned_start:
            self.start_input = nn.Parameter(torch.zeros(input_dim))
        else:
            self.register_buffer("start_input", torch.zeros(input_dim), persistent=False)

    def start(
        self, sentences: Tensor, encoding: ParagraphEncoding, mask: Tensor
    ) -> tuple[Tensors, Tensors]:
        """sentences (B, N, d) -> memory (sentences, pointer keys (B, N, a)), state (h, c).

        encoding.state is an LSTM's (h, c), or (v,): h0 = v, c0 = 0 (or v, `initial_cell`).
        The pointer masks padding through `available`, so `mask` is not needed here."""
        if len(encoding.state) == 1:
            (hidden,) = encoding.state
            cell = hidden if self.initial_cell == "paragraph" else torch.zeros_like(hidden)
        else:
            hidden, cell = encoding.state
        if hidden.shape[-1] != self.hidden_dim or cell.shape[-1] != self.hidden_dim:
            raise ValueError(
                f"paragraph encoder state has width {hidden.shape[-1]}/{cell.shape[-1]}, "
                f"decoder hidden_dim is {self.hidden_dim}; set them equal"
            )
        scored = sentences if self.pointer_keys == "sentence" else encoding.contexts  # (B, N, *)
        return (sentences, self.pointer.keys(scored)), (hidden, cell)

    def step(
        self, memory: Tensors, state: Tensors, previous: Tensor | None, available: Tensor
    ) -> tuple[Tensor, Tensors]:
        """previous (R,) or None, available (R, N) -> masked scores (R, N), next (h, c)."""
        sentences, keys = memory
        hidden, cell = state
        rows, _, dim = sentences.shape
        if previous is None:
            inputs = self.start_input.expand(rows, dim)  # (R, d)
        else:
            index = previous.view(rows, 1, 1).expand(rows, 1, dim)  # (R, 1, d)
            inputs = sentences.gather(1, index).squeeze(1)  # (R, d)
        output, hidden, cell = self._recur(inputs.unsqueeze(1), hidden, cell)
        # output (R, 1, H); hidden, cell (R, H)
        scores = self.pointer(keys, output).squeeze(1)  # (R, N)
        return mask_scores(scores, available), (hidden, cell)

    def teacher_forced(
        self, memory: Tensors, state: Tensors, orders: Tensor, available: Tensor
    ) -> Tensor:
        """orders (B, N) -1 padded, available (B, N) -> masked scores (B, N, N)."""
        sentences, keys = memory
        hidden, cell = state
        batch, num, dim = sentences.shape
        previous = orders[:, :-1].clamp(min=0)  # (B, N-1) choice of steps 0..N-2
        chosen = sentences.gather(1, previous.unsqueeze(-1).expand(-1, -1, dim))  # (B, N-1, d)
        inputs = torch.cat([self.start_input.expand(batch, 1, dim), chosen], dim=1)  # (B, N, d)
        outputs, _, _ = self._recur(inputs, hidden, cell)  # (B, N, H)
        scores = self.pointer(keys, outputs)  # (B, N, N)
        allowed = available.unsqueeze(1) & ~placed_before(orders, num)  # (B, N, N)
        return mask_scores(scores, allowed)

    @eager_lstm
    def _recur(self, inputs: Tensor, hidden: Tensor, cell: Tensor) -> tuple[Tensor, ...]:
        """The LSTM over inputs (R, K, d) from (h, c) (R, H) -> outputs (R, K, H) and the
        final (h, c) (R, H)."""
        outputs, (hidden, cell) = self.lstm(inputs, (hidden.unsqueeze(0), cell.unsqueeze(0)))
        return outputs, hidden.squeeze(0), cell.squeeze(0)

    def reindex(self, tensors: Tensors, index: Tensor) -> Tensors:
        """Rows `index` (R',) of every tensor in `tensors`."""
        return tuple(tensor.index_select(0, index) for tensor in tensors)
