"""LSTM / BiLSTM sentence encoder.

Gong et al. (2016), "End-to-End Neural Sentence Ordering Using Pointer Network": an LSTM
over the words whose final hidden state is the sentence vector (`pooling="last"`).
Cui et al. (2018), "Deep Attentive Sentence Ordering Network" (ATTOrderNet), sentence
encoder: a BiLSTM (256 units per direction) whose concatenated forward/backward states
h_t = [h_t(fwd); h_t(bwd)] are averaged over the words (`bidirectional=True,
pooling="mean"`). Sentences are packed, so padding tokens never reach the LSTM; padding
sentences (0 tokens) are skipped and encoded as zero vectors.
"""

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
        packed = pack_padded_sequence(words, lengths.cpu(), batch_first=True, enforce_sorted=False)
        outputs, (hidden, _) = self.lstm(packed)  # hidden (layers * directions, S', H)
        padded, _ = pad_packed_sequence(
            outputs, batch_first=True, total_length=words.shape[1]
        )  # (S', T, D)
        last = hidden[-self.directions :]  # (directions, S', H) top layer
        return padded, last.transpose(0, 1).reshape(words.shape[0], self.output_dim)  # (S', D)

    def _encode(self, words: Tensor, lengths: Tensor) -> Tensor:
        """Non-empty sentences: words (S', T, e), lengths (S',) -> (S', output_dim)."""
        outputs, last = self.word_states(words, lengths)
        if self.pooling == "mean":
            return masked_mean(outputs, length_mask(lengths, words.shape[1]))
        return last
