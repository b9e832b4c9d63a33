"""LSTM paragraph encoder over the sentence vectors in the presented (shuffled) order.

Gong et al. (2016), "End-to-End Neural Sentence Ordering Using Pointer Network": the
Ptr-Net encoder reads the sentence vectors one by one; its per-sentence outputs are
the contexts e_j the pointer attends over, and its final (h, c) initialises the decoder
(Vinyals et al. 2015). Each paragraph's LSTM stops at its length (`MaskedLSTM`, the
parameters of an `nn.LSTM`), so padding sentences affect neither the contexts nor the
final state, and no length is read on the host (packing the sequences copied them there).
"""

from torch import Tensor, nn

from models.blocks.masked_lstm import MaskedLSTM
from models.interfaces import ParagraphEncoding


class ParagraphLSTM(nn.Module):
    def __init__(
        self,
        input_dim: int,  # sentence vector width
        hidden_dim: int,  # LSTM units; also the decoder's hidden size
        num_layers: int = 1,  # stacked LSTM layers; the decoder starts from the top one
    ):
        super().__init__()
        self.output_dim = hidden_dim
        self.lstm = MaskedLSTM(input_dim, hidden_dim, num_layers=num_layers)

    def forward(self, sentences: Tensor, mask: Tensor) -> ParagraphEncoding:
        """sentences (B, N, d), mask (B, N) real-sentence prefix -> contexts (B, N, h),
        state (h (B, h), c (B, h))."""
        contexts, (hidden, cell) = self.lstm(sentences, mask.sum(dim=1))  # (B, N, h) zeros at
        return ParagraphEncoding(contexts, (hidden[-1], cell[-1]))  # padding; (layers, B, h)
