"""Self-attention sentence encoder with sinusoidal word positions, mean-pooled.

Cui et al. (2018), "Deep Attentive Sentence Ordering Network", the ATTOrderNet(ATT)
variant of its experiments: the BiLSTM sentence encoder replaced by a stack of Transformer
encoder layers (Vaswani et al. 2017: multi-head self-attention + position-wise
feed-forward, each with a post-LayerNorm residual) over the word vectors plus sinusoidal
position encodings (the paper's layers and heads: `attordernet_att`'s defaults); the
sentence vector is the mean of
the top layer over the sentence's words. Padding words are masked as keys; padding
sentences give zero vectors.

On the CPU the fast path (`models.compute_paths`) runs the layers on length buckets
(`models.blocks.length_buckets`), each cut to its own longest sentence: a real word's output
does not depend on the padding after it (padded keys get zero weight, positions count
from the first word), and attention costs grow with the square of the padded length.
The layers are computed by `bucketed_layer`, the arithmetic of `nn.TransformerEncoderLayer`
written out, because its dropouts must draw the reference path's random numbers: before
the first bucket, every dropout mask of every layer is drawn at the shapes, in the order
and in the memory layout the reference draws them (attention weights (S, H, T, T); the
attention output (S, T, e), laid out (T, S, e); the feed-forward hidden (S, T, f) and
output (S, T, e)), and each bucket takes its rows of them. A seed then trains the same
model on either path (docs/performance.md). Without a plan of buckets (a GPU, a compiled
step) the same arithmetic runs on every sentence in one call, reading no length on the
host (its masks drawn at the shapes of all S sentences).
"""

import math
from typing import NamedTuple

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from models.blocks.dropout_masks import apply_mask, dropout_mask
from models.blocks.length_buckets import AUTO, BucketPlan, bucket_plan, encode_rows, plan_for
from models.blocks.masked_ops import encode_nonempty, length_mask, masked_mean
from models.blocks.positional_encoding import sinusoidal_positions
from models.compute_paths import use_reference

# one more bucket costs about as much as this many padded word positions (tuned on a CPU,
# docs/performance.md)
ATTENTION_CALL_COST = 100


class DropoutMasks(NamedTuple):
    """One layer's dropout masks, scaled by 1 / (1 - p); None where p = 0 or in eval."""

    weights: Tensor | None  # (S, H, T, T) attention weights
    attention: Tensor | None  # (S, T, e) attention output
    hidden: Tensor | None  # (S, T, f) feed-forward hidden layer
    output: Tensor | None  # (S, T, e) feed-forward output


class SentenceSelfAttention(nn.Module):
    def __init__(
        self,
        input_dim: int,  # word vector width = layer width; divisible by heads
        num_layers: int,  # Transformer encoder layers
        heads: int,  # attention heads
        ff_dim: int,  # feed-forward width
        dropout: float,  # inside the layers and on the sentence vectors
    ):
        super().__init__()
        if input_dim % heads:
            raise ValueError(f"word vector width {input_dim} is not divisible by heads={heads}")
        self.output_dim = input_dim
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(input_dim, heads, ff_dim, dropout, batch_first=True)
            for _ in range(num_layers)
        )
        self.dropout = nn.Dropout(dropout)

    def forward(
        self, words: Tensor, lengths: Tensor, plan: BucketPlan | None | str = AUTO
    ) -> Tensor:
        """words (S, T, e), lengths (S,) -> (S, e); `plan`: its length buckets
        (`models.blocks.length_buckets`; None: one call)."""
        if use_reference() or not self._layers_supported():
            return self.dropout(encode_nonempty(self._encode, words, lengths, self.output_dim))
        plan = plan_for(plan, lengths, ATTENTION_CALL_COST)
        if plan is None:
            return self.dropout(encode_rows(self._encode_at_once, words, lengths,
                                            self.output_dim, None))  # fmt: skip
        return self.dropout(self._encode_in_buckets(words, lengths, plan))

    def bucket_plan(self, lengths: Tensor) -> BucketPlan:
        """The length buckets of sentences of lengths (S,), on the host."""
        return bucket_plan(lengths, ATTENTION_CALL_COST)

    def _layers_supported(self) -> bool:
        """Whether `bucketed_layer` computes what the layers do."""
        return all(
            layer.self_attn.batch_first and layer.self_attn._qkv_same_embed_dim
            and layer.self_attn.in_proj_bias is not None and layer.self_attn.bias_k is None
            and not layer.self_attn.add_zero_attn
            for layer in self.layers
        )  # fmt: skip

    def _encode_at_once(self, words: Tensor, lengths: Tensor) -> Tensor:
        """`_encode` as one bucket of sentences of lengths (S,) >= 1: (S, T, e) -> (S, e)."""
        rows, num_words, dim = words.shape
        real = length_mask(lengths, num_words)  # (S, T)
        hidden = words + sinusoidal_positions(num_words, dim, words.device)  # (S, T, e)
        for layer in self.layers:
            hidden = bucketed_layer(layer, hidden, real, layer_masks(layer, rows, num_words, words))
        return masked_mean(hidden, real)

    def _encode_in_buckets(self, words: Tensor, lengths: Tensor, plan: BucketPlan) -> Tensor:
        """`_encode` on the length buckets of `plan`, with the reference's dropout masks:
        (S, T, e), (S,) -> (S, e), zeros for padding sentences."""
        num_words, dim = words.shape[1:]
        masks = [layer_masks(layer, len(plan.rows), num_words, words) for layer in self.layers]
        positions = sinusoidal_positions(num_words, dim, words.device)  # (T, e)
        vectors = []
        for group, at, longest in plan.buckets():
            real = length_mask(lengths.index_select(0, group), longest)  # (G, L)
            hidden = words.index_select(0, group)[:, :longest] + positions[:longest]  # (G, L, e)
            for layer, layer_mask in zip(self.layers, masks, strict=True):
                hidden = bucketed_layer(layer, hidden, real, _rows(layer_mask, at, longest))
            vectors.append(masked_mean(hidden, real))  # (G, e)
        out = words.new_zeros(words.shape[0], dim)  # (S, e)
        if not vectors:
            return out
        return out.index_copy(0, plan.rows, torch.cat(vectors).to(out.dtype))

    def _encode(self, words: Tensor, lengths: Tensor) -> Tensor:
        """Non-empty sentences: words (S', T, e), lengths (S',) -> (S', e)."""
        _, num_words, dim = words.shape
        real = length_mask(lengths, num_words)  # (S', T)
        hidden = words + sinusoidal_positions(num_words, dim, words.device)  # (S', T, e)
        for layer in self.layers:
            hidden = layer(hidden, src_key_padding_mask=~real)  # (S', T, e)
        return masked_mean(hidden, real)


def layer_masks(layer: nn.TransformerEncoderLayer, rows: int, length: int, like: Tensor):
    """The dropout masks `layer` draws in training on (rows, length) words, in its order:
    attention weights, attention output (drawn over its (T, S, e) memory layout), the
    feed-forward hidden layer, the feed-forward output."""
    if not layer.training:
        return DropoutMasks(None, None, None, None)
    attention = layer.self_attn
    heads, dim = attention.num_heads, attention.embed_dim
    weights = dropout_mask((rows, heads, length, length), attention.dropout, like)
    output = dropout_mask((length, rows, dim), layer.dropout1.p, like)  # (T, S, e)
    hidden = dropout_mask((rows, length, layer.linear1.out_features), layer.dropout.p, like)
    second = dropout_mask((rows, length, dim), layer.dropout2.p, like)
    return DropoutMasks(weights, None if output is None else output.transpose(0, 1), hidden, second)


def _rows(masks: DropoutMasks, group: Tensor, longest: int) -> DropoutMasks:
    """The masks of sentences `group` (G,), cut to their first `longest` words."""
    weights, attention, hidden, output = (
        None if mask is None else mask.index_select(0, group)[:, :longest] for mask in masks
    )
    if weights is not None:
        weights = weights[..., :longest, :longest]  # (G, H, L, L)
    return DropoutMasks(weights, attention, hidden, output)


def bucketed_layer(
    layer: nn.TransformerEncoderLayer, hidden: Tensor, real: Tensor, masks: DropoutMasks
) -> Tensor:
    """`layer(hidden, src_key_padding_mask=~real)` with the given dropout masks:
    hidden (G, L, e), real (G, L) -> (G, L, e). The attention is the arithmetic of
    `scaled_dot_product_attention` (both operands scaled by the square root of
    1 / sqrt(head width), padded keys at -inf)."""
    attention = layer.self_attn
    batch, length, dim = hidden.shape
    heads = attention.num_heads
    head_dim = dim // heads
    scale = math.sqrt(1.0 / math.sqrt(head_dim))

    def attend(x: Tensor) -> Tensor:
        packed = F.linear(x, attention.in_proj_weight, attention.in_proj_bias)  # (G, L, 3e)
        q, k, v = packed.view(batch, length, 3, heads, head_dim).permute(2, 0, 3, 1, 4)
        scores = (q * scale) @ (k.transpose(-2, -1) * scale)  # (G, H, L, L)
        scores = scores.masked_fill(~real[:, None, None, :], float("-inf"))
        weights = apply_mask(scores.softmax(dim=-1), masks.weights)  # (G, H, L, L)
        out = (weights @ v).transpose(1, 2).reshape(batch, length, dim)  # (G, L, e)
        out = F.linear(out, attention.out_proj.weight, attention.out_proj.bias)
        return apply_mask(out, masks.attention)

    def feed_forward(x: Tensor) -> Tensor:
        inner = apply_mask(layer.activation(layer.linear1(x)), masks.hidden)  # (G, L, f)
        return apply_mask(layer.linear2(inner), masks.output)  # (G, L, e)

    if layer.norm_first:
        hidden = hidden + attend(layer.norm1(hidden))
        return hidden + feed_forward(layer.norm2(hidden))
    hidden = layer.norm1(hidden + attend(hidden))
    return layer.norm2(hidden + feed_forward(hidden))
