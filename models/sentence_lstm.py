"""LSTM sentence encoder: the sentence vector is the LSTM's final hidden state.

Gong et al. (2016), "End-to-End Neural Sentence Ordering Using Pointer Network", LSTM
sentence encoder. Sentences are packed, so padding tokens never reach the LSTM;
padding sentences (0 tokens) are skipped and encoded as zero vectors. With
`bidirectional=True` the vector is the concatenation of both directions' final states
(the BiLSTM sentence encoder of Cui et al. 2018, ATTOrderNet).
"""

from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence


class SentenceLSTM(nn.Module):
    def __init__(
        self,
        input_dim: int,  # word vector width
        hidden_dim: int,  # LSTM units per direction
        num_layers: int = 1,  # stacked LSTM layers
        bidirectional: bool = False,  # concatenate forward and backward final states
        dropout: float = 0.0,  # dropout on the sentence vectors
    ):
        super().__init__()
        self.directions = 2 if bidirectional else 1
        self.output_dim = hidden_dim * self.directions
        self.lstm = nn.LSTM(
            input_dim,
            hidden_dim,
            num_layers=num_layers,
            bidirectional=bidirectional,
            batch_first=True,
        )
        self.dropout = nn.Dropout(dropout)

    def forward(self, words: Tensor, lengths: Tensor) -> Tensor:
        """words (S, T, e) embedded tokens, lengths (S,) -> (S, output_dim)."""
        out = words.new_zeros(words.shape[0], self.output_dim)  # (S, D)
        nonempty = (lengths > 0).nonzero().squeeze(1)  # (S',) rows with >= 1 token
        if nonempty.numel() == 0:
            return out
        packed = pack_padded_sequence(
            words.index_select(0, nonempty),
            lengths.index_select(0, nonempty).cpu(),
            batch_first=True,
            enforce_sorted=False,
        )
        _, (hidden, _) = self.lstm(packed)  # hidden (layers * directions, S', H)
        last = hidden[-self.directions :]  # (directions, S', H) top layer
        vectors = last.transpose(0, 1).reshape(nonempty.numel(), self.output_dim)  # (S', D)
        return self.dropout(out.index_copy(0, nonempty, vectors))
