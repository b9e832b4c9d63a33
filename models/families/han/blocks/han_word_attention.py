"""Word-level multi-head attention sentence encoder of the hierarchical attention network.

Wang and Wan (2019), "Hierarchical Attention Networks for Sentence Ordering" (AAAI), word
encoder: a BiLSTM reads the words of one sentence (d/2 units per direction); a learned
word-level query vector u attends over its outputs H with multi-head attention with ReLU
projections (`ReLUMultiHeadAttention`), and the sentence vector is
    s = MultiHead(u, H) = [head_1; ...; head_H],
an attention-weighted summary of the words, as in the word-level attention of hierarchical
attention networks (Yang et al. 2016), here multi-headed. Padding words are masked as keys;
padding sentences give zero vectors. Without the attention (`han(word_attention=False)`),
the sentence vector is the BiLSTM's final states.

On the CPU the fast path (`models.compute_paths`) runs the BiLSTM and the attention on
length buckets (`models.blocks.length_buckets`,
`models.blocks.sentence_lstm.bucket_states`), each cut to its longest sentence, so the key
and value projections skip the padding (about half
of NIPS-like batches); the attention dropout's mask is drawn once at the reference's
shape (`models.blocks.dropout_masks`) and each bucket takes its rows (docs/performance.md).
Without a plan of buckets (a GPU, a compiled step) every sentence runs in one call, reading
no length on the host.
"""

import torch
from torch import Tensor, nn

from models.blocks.dropout_masks import dropout_mask
from models.blocks.eager_lstm import eager_lstm
from models.blocks.length_buckets import AUTO, BucketPlan, encode_rows, encode_sentences
from models.blocks.masked_ops import length_mask
from models.blocks.sentence_lstm import (
    LSTM_CALL_COST,
    SentenceLSTM,
    bucket_states,
    splits_by_direction,
)
from models.families.han.blocks.relu_attention import ReLUMultiHeadAttention


class HANWordAttention(nn.Module):
    def __init__(
        self,
        input_dim: int,  # word vector width
        model_dim: int,  # d: BiLSTM output = sentence vector width; even, divisible by heads
        heads: int,  # H (the paper's: the han preset's default)
        dropout: float,  # on attention weights and sentence vectors
        lstm_layers: int = 1,  # stacked BiLSTM layers
    ):
        super().__init__()
        if model_dim % 2:
            raise ValueError(f"model_dim={model_dim} must be even (two LSTM directions)")
        self.output_dim = model_dim
        self.lstm = SentenceLSTM(input_dim, model_dim // 2, lstm_layers, bidirectional=True)
        self.query = nn.Parameter(torch.randn(model_dim) * model_dim**-0.5)  # u
        self.attention = ReLUMultiHeadAttention(model_dim, model_dim, heads, dropout)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self, words: Tensor, lengths: Tensor, plan: BucketPlan | None | str = AUTO
    ) -> Tensor:
        """words (S, T, e), lengths (S,) -> (S, model_dim); `plan`: its length buckets
        (`models.blocks.length_buckets`; None: one call)."""
        return self.dropout(encode_sentences(self._encode, self._in_buckets, words, lengths,
                                             self.output_dim, plan, LSTM_CALL_COST))  # fmt: skip

    def _in_buckets(self, words: Tensor, lengths: Tensor, plan: BucketPlan | None) -> Tensor:
        if plan is None:
            return encode_rows(self._encode_all, words, lengths, self.output_dim, None)
        return self._encode_in_buckets(words, lengths, plan)

    def bucket_plan(self, lengths: Tensor) -> BucketPlan:
        """The length buckets of sentences of lengths (S,), on the host."""
        return self.lstm.bucket_plan(lengths)

    def _encode_all(self, words: Tensor, lengths: Tensor) -> Tensor:
        """`_encode` in one call on sentences of lengths (S,) >= 1: (S, T, e) -> (S, d)."""
        states, _ = self.lstm.states(words, lengths, None)  # H (S, T, d)
        real = length_mask(lengths, words.shape[1])  # (S, T)
        query = self.query.expand(words.shape[0], 1, self.output_dim)  # (S, 1, d)
        return self.attention(query, states, real.unsqueeze(1)).squeeze(1)  # (S, d)

    @eager_lstm
    def _encode_in_buckets(self, words: Tensor, lengths: Tensor, plan: BucketPlan) -> Tensor:
        """`_encode` on the length buckets of `plan`, with the reference's attention
        dropout mask: (S, T, e), (S,) -> (S, model_dim), zeros for padding sentences (an
        LSTM that cannot run by direction: `_encode_all`)."""
        if not splits_by_direction(self.lstm.lstm):
            return encode_rows(self._encode_all, words, lengths, self.output_dim, None)
        num_words = words.shape[1]
        p = self.attention.dropout.p if self.attention.dropout.training else 0.0
        mask = dropout_mask((len(plan.rows), self.attention.heads, 1, num_words), p, words)
        vectors = []
        for group, positions, longest in plan.buckets():
            group_lengths = lengths.index_select(0, group)  # (G,)
            states, _ = bucket_states(
                self.lstm.lstm, words.index_select(0, group)[:, :longest], group_lengths
            )  # H (G, L, d)
            real = length_mask(group_lengths, longest)  # (G, L)
            query = self.query.expand(len(group), 1, self.output_dim)  # (G, 1, d)
            group_mask = None if mask is None else mask.index_select(0, positions)[..., :longest]
            attended = self.attention(query, states, real.unsqueeze(1), group_mask)  # (G, 1, d)
            vectors.append(attended.squeeze(1))
        out = words.new_zeros(words.shape[0], self.output_dim)  # (S, d)
        if not vectors:
            return out
        return out.index_copy(0, plan.rows, torch.cat(vectors).to(out.dtype))

    def _encode(self, words: Tensor, lengths: Tensor) -> Tensor:
        """Non-empty sentences: words (S', T, e), lengths (S',) -> (S', model_dim)."""
        states, _ = self.lstm.word_states(words, lengths)  # H (S', T, d)
        rows, num_words, dim = states.shape
        real = length_mask(lengths, num_words)  # (S', T)
        query = self.query.expand(rows, 1, dim)  # (S', 1, d)
        return self.attention(query, states, real.unsqueeze(1)).squeeze(1)  # (S', d)
