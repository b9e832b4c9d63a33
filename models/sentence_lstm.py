"""LSTM / BiLSTM sentence encoder.

Gong et al. (2016), "End-to-End Neural Sentence Ordering Using Pointer Network": an LSTM
over the words whose final hidden state is the sentence vector (`pooling="last"`).
Cui et al. (2018), "Deep Attentive Sentence Ordering Network" (ATTOrderNet), sentence
encoder: a BiLSTM (256 units per direction) whose concatenated forward/backward states
h_t = [h_t(fwd); h_t(bwd)] are averaged over the words (`bidirectional=True,
pooling="mean"`). Padding tokens never reach the LSTM; padding sentences (0 tokens) are
skipped and encoded as zero vectors.

On the CPU the LSTM runs once per group of sentences of equal length, on those sentences
without padding (`grouped_states`), not on a `PackedSequence`: the backward pass of a
packed LSTM zero-fills a gradient of the whole packed input at every time step (76% of a
profiled `lstm_ptrnet` training step), which made training steps 1.5-1.9x slower
(`docs/performance.md`). Both compute the same function with the same parameters; on a GPU
the packed call (one cuDNN kernel for all lengths) is kept (`packed_states`).
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from models.masked_ops import encode_nonempty, length_mask, masked_mean

POOLINGS = ("last", "mean")


class SentenceLSTM(nn.Module):
    def __init__(
        self,
        input_dim: int,  # word vector width
        hidden_dim: int,  # LSTM units per direction
        num_layers: int = 1,  # stacked LSTM layers
        bidirectional: bool = False,  # read the words both ways; vectors concatenate them
        dropout: float = 0.0,  # dropout on the sentence vectors
        pooling: str = "last",  # "last": final states (Gong); "mean": mean of outputs (Cui)
    ):
        super().__init__()
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
        self.pooling = pooling
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
        return self.dropout(encode_nonempty(self._encode, words, lengths, self.output_dim))

    def word_states(self, words: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
        """Non-empty sentences: words (S', T, e), lengths (S',) -> top-layer outputs
        (S', T, D) (zeros at padding) and final states (S', D), directions concatenated."""
        if words.device.type == "cpu":
            return grouped_states(self.lstm, words, lengths)
        return packed_states(self.lstm, words, lengths)

    def _encode(self, words: Tensor, lengths: Tensor) -> Tensor:
        """Non-empty sentences: words (S', T, e), lengths (S',) -> (S', output_dim)."""
        outputs, last = self.word_states(words, lengths)
        if self.pooling == "mean":
            return masked_mean(outputs, length_mask(lengths, words.shape[1]))
        return last


def packed_states(lstm: nn.LSTM, words: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
    """`SentenceLSTM.word_states` in one call of `lstm` (batch_first) on a PackedSequence."""
    packed = pack_padded_sequence(words, lengths.cpu(), batch_first=True, enforce_sorted=False)
    outputs, (hidden, _) = lstm(packed)  # hidden (layers * directions, S', H)
    padded, _ = pad_packed_sequence(outputs, batch_first=True, total_length=words.shape[1])
    return padded, final_states(lstm, hidden)  # (S', T, D), (S', D)


def grouped_states(lstm: nn.LSTM, words: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
    """`SentenceLSTM.word_states` with one call of `lstm` (batch_first) per distinct length,
    on the sentences of that length cut to it; the results are put back in input order."""
    total = words.shape[1]
    rows, outputs, finals = [], [], []
    for length in lengths.unique().tolist():
        group = (lengths == length).nonzero().squeeze(1)  # (G,) sentences of this length
        output, (hidden, _) = lstm(words.index_select(0, group)[:, :length])  # (G, L, D)
        rows.append(group)
        outputs.append(F.pad(output, (0, 0, 0, total - length)))  # (G, T, D)
        finals.append(final_states(lstm, hidden))  # (G, D)
    inverse = torch.cat(rows).argsort()  # (S',) position of each sentence in the groups
    return torch.cat(outputs).index_select(0, inverse), torch.cat(finals).index_select(0, inverse)


def final_states(lstm: nn.LSTM, hidden: Tensor) -> Tensor:
    """Final hidden states (layers * directions, S, H) -> the top layer's (S, D),
    directions concatenated."""
    directions = 2 if lstm.bidirectional else 1
    last = hidden[-directions:]  # (directions, S, H)
    return last.transpose(0, 1).reshape(hidden.shape[1], directions * lstm.hidden_size)
