"""LSTM / BiLSTM sentence encoder.

Gong et al. (2016), "End-to-End Neural Sentence Ordering Using Pointer Network": an LSTM
over the words whose final hidden state is the sentence vector (`pooling="last"`).
Cui et al. (2018), "Deep Attentive Sentence Ordering Network" (ATTOrderNet), sentence
encoder: a BiLSTM (256 units per direction) whose concatenated forward/backward states
h_t = [h_t(fwd); h_t(bwd)] are averaged over the words (`bidirectional=True,
pooling="mean"`). Padding tokens never reach the LSTM; padding sentences (0 tokens) are
skipped and encoded as zero vectors.

On the CPU the LSTM runs on a few length buckets (`sentence_states` with a plan of
`models.blocks.length_buckets`, made on the host): sentences sorted by length, each bucket
cut to its longest sentence and right-padded, one call per layer and direction
(`bucket_states`); the backward direction reads each sentence reversed within its own
length, so padding only ever follows the real words and never reaches a state that is
used. This replaced one call per distinct length (`grouped_states`, kept as the reference
path of `models.compute_paths`), whose many small calls cost 2-3x more at the published
sizes; that in turn replaced a `PackedSequence`, whose backward pass zero-fills a gradient
of the whole packed input at every time step (docs/performance.md). Without a plan (a GPU,
a compiled step) all sentences run as one bucket, padding sentences at length 1 and zeroed:
no length is read on the host, where packing (`packed_states`, the reference on a GPU)
copied them there at every step. All compute the same function with the same parameters.
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from models.blocks.eager_lstm import eager_lstm
from models.blocks.length_buckets import AUTO, BucketPlan, bucket_plan, plan_for, reversal_index
from models.blocks.masked_ops import length_mask, masked_mean
from models.compute_paths import use_reference

POOLINGS = ("last", "mean")
# one more LSTM call costs about as much as this many padded token steps (tuned on a CPU,
# docs/performance.md)
LSTM_CALL_COST = 100


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

    def forward(
        self, words: Tensor, lengths: Tensor, plan: BucketPlan | None | str = AUTO
    ) -> Tensor:
        """words (S, T, e) embedded tokens, lengths (S,) -> (S, output_dim); `plan`: its
        length buckets (`models.blocks.length_buckets`; None: one call)."""
        mean = self.pooling == "mean"
        outputs, last = self.states(words, lengths, plan, outputs=mean)
        if mean:
            return self.dropout(masked_mean(outputs, length_mask(lengths, words.shape[1])))
        return self.dropout(last)

    def bucket_plan(self, lengths: Tensor) -> BucketPlan:
        """The length buckets of sentences of lengths (S,), on the host."""
        return bucket_plan(lengths, LSTM_CALL_COST)

    @eager_lstm
    def states(
        self, words: Tensor, lengths: Tensor, plan: BucketPlan | None | str = AUTO,
        outputs: bool = True,
    ) -> tuple[Tensor | None, Tensor]:  # fmt: skip
        """Every sentence: words (S, T, e), lengths (S,) -> top-layer outputs (S, T, D)
        (zeros at padding; None when not `outputs`) and final states (S, D), zeros for
        padding sentences: `sentence_states`, or the reference paths (`word_states`)."""
        if use_reference() or not splits_by_direction(self.lstm):
            real = (lengths > 0).nonzero().squeeze(1)  # (S',)
            hidden, last = self.word_states(words.index_select(0, real),
                                            lengths.index_select(0, real))  # fmt: skip
            full = words.new_zeros(words.shape[0], self.output_dim)  # (S, D)
            last = full.index_copy(0, real, last.to(full.dtype))
            if not outputs:
                return None, last
            shape = (words.shape[0], *hidden.shape[1:])
            return words.new_zeros(shape).index_copy(0, real, hidden.to(words.dtype)), last
        plan = plan_for(plan, lengths, LSTM_CALL_COST)
        return sentence_states(self.lstm, words, lengths, plan, outputs)

    def word_states(self, words: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
        """The reference paths, non-empty sentences: words (S', T, e), lengths (S',) ->
        top-layer outputs (S', T, D) (zeros at padding) and final states (S', D),
        directions concatenated: packed on a GPU, one call per length on a CPU."""
        if words.device.type != "cpu":
            return packed_states(self.lstm, words, lengths)
        return grouped_states(self.lstm, words, lengths)


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


def splits_by_direction(lstm: nn.LSTM) -> bool:
    """Whether `bucketed_states` computes what `lstm` does: no projection, and no dropout
    between layers while training (its random draws would differ)."""
    dropout = lstm.dropout if lstm.training and lstm.num_layers > 1 else 0.0
    return lstm.proj_size == 0 and dropout == 0.0


def sentence_states(
    lstm: nn.LSTM, words: Tensor, lengths: Tensor, plan: BucketPlan | None,
    outputs: bool = True,
) -> tuple[Tensor | None, Tensor]:  # fmt: skip
    """Every sentence: words (S, T, e), lengths (S,) (0: a padding sentence) -> top-layer
    outputs (S, T, D) (zeros at padding; None when not `outputs`) and final states (S, D),
    directions concatenated, zeros for padding sentences: `bucket_states` on each bucket
    of `plan`, the results put back in input order, or with no plan on all sentences at
    once (padding sentences read at length 1, then zeroed)."""
    rows, total = words.shape[:2]
    width = lstm.hidden_size * (2 if lstm.bidirectional else 1)  # D
    if plan is None:
        states, last = bucket_states(lstm, words, lengths.clamp(min=1), outputs)
        real = lengths > 0  # (S,)
        last = torch.where(real.unsqueeze(-1), last, torch.zeros_like(last))
        if outputs:
            states = torch.where(real.view(-1, 1, 1), states, torch.zeros_like(states))
        return states, last
    hidden, finals = [], []
    for group, _, longest in plan.buckets():
        states, final = bucket_states(
            lstm, words.index_select(0, group)[:, :longest], lengths.index_select(0, group),
            outputs,
        )  # (G, L, D) or None, (G, D)
        if outputs:
            hidden.append(F.pad(states, (0, 0, 0, total - longest)))  # (G, T, D)
        finals.append(final)
    last = words.new_zeros(rows, width)  # (S, D)
    states = words.new_zeros(rows, total, width) if outputs else None  # (S, T, D)
    if not finals:
        return states, last
    last = last.index_copy(0, plan.rows, torch.cat(finals).to(last.dtype))
    if outputs:
        states = states.index_copy(0, plan.rows, torch.cat(hidden).to(states.dtype))
    return states, last


def bucket_states(
    lstm: nn.LSTM, words: Tensor, lengths: Tensor, outputs: bool = True
) -> tuple[Tensor | None, Tensor]:
    """One bucket: words (G, L, e) right-padded, L the longest of lengths (G,) -> top-layer
    outputs (G, L, D) (zeros at padding; None when not `outputs`) and final states (G, D),
    directions concatenated. Each layer and direction is one call of `torch.lstm`; the
    backward direction reads each sentence reversed within its length, so padding only
    ever follows the real words, and each direction's final state is its output at its
    last real step."""
    longest = words.shape[1]
    reverse = reversal_index(lengths, longest).unsqueeze(-1)  # (G, L, 1)
    last = (lengths - 1).view(-1, 1, 1).expand(-1, 1, lstm.hidden_size)  # (G, 1, H)
    hidden = words
    for layer in range(lstm.num_layers):
        read = []  # each direction's outputs in its own reading order
        for direction in range(2 if lstm.bidirectional else 1):
            inputs = hidden if direction == 0 else _gather_steps(hidden, reverse)
            read.append(_one_direction(lstm, layer, direction, inputs))  # (G, L, H)
        if layer == lstm.num_layers - 1:
            final = torch.cat([out.gather(1, last).squeeze(1) for out in read], dim=-1)
            if not outputs:
                return None, final  # (G, D)
        directions = [read[0], *(_gather_steps(out, reverse) for out in read[1:])]
        hidden = torch.cat(directions, dim=-1)  # (G, L, D); beyond a length: unused
    real = length_mask(lengths, longest).unsqueeze(-1)  # (G, L, 1)
    return hidden * real, final  # (G, L, D), (G, D)


def _gather_steps(values: Tensor, index: Tensor) -> Tensor:
    """values (G, L, D), index (G, L, 1) -> values[g, index[g, t]] (G, L, D)."""
    return values.gather(1, index.expand(-1, -1, values.shape[-1]))


def _one_direction(lstm: nn.LSTM, layer: int, direction: int, inputs: Tensor) -> Tensor:
    """One layer and direction of `lstm` run forwards over inputs (G, L, I), from zero
    states -> outputs (G, L, H)."""
    suffix = f"_l{layer}" + ("_reverse" if direction else "")
    names = ["weight_ih", "weight_hh"] + (["bias_ih", "bias_hh"] if lstm.bias else [])
    weights = [getattr(lstm, name + suffix) for name in names]
    zeros = inputs.new_zeros(1, inputs.shape[0], lstm.hidden_size)  # (1, G, H)
    output, _, _ = torch.lstm(
        inputs, (zeros, zeros), weights, lstm.bias, 1, 0.0, lstm.training, False, True
    )
    return output


def final_states(lstm: nn.LSTM, hidden: Tensor) -> Tensor:
    """Final hidden states (layers * directions, S, H) -> the top layer's (S, D),
    directions concatenated."""
    directions = 2 if lstm.bidirectional else 1
    last = hidden[-directions:]  # (directions, S, H)
    return last.transpose(0, 1).reshape(hidden.shape[1], directions * lstm.hidden_size)
