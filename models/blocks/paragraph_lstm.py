"""LSTM paragraph encoder over the sentence vectors in the presented (shuffled) order.

Gong et al. (2016), "End-to-End Neural Sentence Ordering Using Pointer Network": the
Ptr-Net encoder reads the sentence vectors one by one; its per-sentence outputs are
the contexts e_j the pointer attends over, and its final (h, c) initialises the decoder
(Vinyals et al. 2015). Sequences are packed to each paragraph's length, so padding
sentences affect neither the contexts nor the final state.
"""

from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

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
        self.lstm = nn.LSTM(input_dim, hidden_dim, num_layers=num_layers, batch_first=True)

    def forward(self, sentences: Tensor, mask: Tensor) -> ParagraphEncoding:
        """sentences (B, N, d), mask (B, N) real-sentence prefix -> contexts (B, N, h),
        state (h (B, h), c (B, h))."""
        lengths = mask.sum(dim=1)  # (B,)
        packed = pack_padded_sequence(
            sentences, lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        outputs, (hidden, cell) = self.lstm(packed)  # hidden, cell (layers, B, h)
        contexts, _ = pad_packed_sequence(
            outputs, batch_first=True, total_length=sentences.shape[1]
        )  # (B, N, h), zeros at padding
        return ParagraphEncoding(contexts, (hidden[-1], cell[-1]))
