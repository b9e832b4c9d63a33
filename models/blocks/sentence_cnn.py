"""CNN sentence encoder: a wide convolution over the words, ReLU, max over time.

Gong et al. (2016), "End-to-End Neural Sentence Ordering Using Pointer Network", CNN
sentence model (the convolutional sentence encoder of Kim 2014: one layer of feature maps
over sliding windows of word vectors, max-pooled over positions). Cui et al. (2018),
ATTOrderNet(CNN) variant: 512 feature maps of width 4.

The convolution is "wide" (width - 1 zero words on each side), so a sentence shorter
than the filter still has windows; only windows touching a real word are pooled, and
padding words are zeroed first, so padding never changes a vector. Padding sentences
(0 tokens) give zero vectors. Several widths (Gong et al.'s released code uses 3, 4 and 5)
give `num_filters` maps of each, concatenated.

On the CPU the sentences run in length buckets (`models.blocks.length_buckets`), each cut to its
own longest sentence, instead of all padded to the batch's longest (the reference path of
`models.compute_paths`): a sentence's vector does not depend on the padding after it, and
half the positions of NIPS-like batches were padding. Without a plan of buckets (a GPU, a
compiled step) every sentence runs in one call, reading no length on the host. The fast
path also pools before the ReLU: ReLU is nondecreasing, so max_t ReLU(x_t) =
ReLU(max_t x_t), and the gradient is the same (it reaches the largest x_t when that is
positive, nothing otherwise), while the ReLU and its backward run on (S, F) instead of
(S, F, T) (docs/performance.md).

Compiled (`torch.compile`, the config key `compile`), the convolution is the same sum
written as a matrix product over the unfolded windows (`convolved`): inductor's convolution
fixes the number of words, so every batch length would compile the step again, while the
product keeps that dimension symbolic (equal up to float rounding; tested).
"""

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.blocks.length_buckets import (
    AUTO,
    BucketPlan,
    bucket_plan,
    encode_rows,
    encode_sentences,
)
from models.blocks.masked_ops import length_mask, masked_max

# one more convolution call costs about as much as this many padded sentence positions
# (tuned on a CPU: docs/performance.md)
CNN_CALL_COST = 50


def convolved(conv: nn.Conv1d, words: Tensor) -> Tensor:
    """`conv` over words (S, T, e) -> (S, F, W = T + width - 1) for a wide convolution
    (padding width - 1); while compiling, as a product of the unfolded windows (S, W, e x
    width) with the filters (module docstring)."""
    if not torch.compiler.is_compiling():
        return conv(words.transpose(1, 2))
    width = conv.kernel_size[0]
    windows = F.pad(words, (0, 0, width - 1, width - 1)).unfold(1, width, 1)  # (S, W, e, w)
    features = windows.flatten(2) @ conv.weight.flatten(1).T  # (S, W, F)
    if conv.bias is not None:
        features = features + conv.bias
    return features.transpose(1, 2)  # (S, F, W)


class SentenceCNN(nn.Module):
    def __init__(
        self,
        input_dim: int,  # word vector width
        num_filters: int,  # feature maps per width
        width: int | Sequence[int] = 3,  # words per window; several: one convolution each
        dropout: float = 0.0,  # dropout on the sentence vectors
    ):
        super().__init__()
        self.widths = (int(width),) if isinstance(width, int) else tuple(int(w) for w in width)
        if not self.widths or min(self.widths) < 1:
            raise ValueError(f"filter widths must be >= 1, got {width!r}")
        self.output_dim = num_filters * len(self.widths)
        self.convs = nn.ModuleList(
            nn.Conv1d(input_dim, num_filters, w, padding=w - 1) for w in self.widths
        )
        self.dropout = nn.Dropout(dropout)

    def forward(
        self, words: Tensor, lengths: Tensor, plan: BucketPlan | None | str = AUTO
    ) -> Tensor:
        """words (S, T, e), lengths (S,) -> (S, num_filters); `plan`: its length buckets
        (`models.blocks.length_buckets`; None: one call)."""
        return self.dropout(encode_sentences(self._encode, self._in_buckets, words, lengths,
                                             self.output_dim, plan, CNN_CALL_COST))  # fmt: skip

    def _in_buckets(self, words: Tensor, lengths: Tensor, plan: BucketPlan | None) -> Tensor:
        return encode_rows(self._encode_pooling_first, words, lengths, self.output_dim, plan)

    def bucket_plan(self, lengths: Tensor) -> BucketPlan:
        """The length buckets of sentences of lengths (S,), on the host."""
        return bucket_plan(lengths, CNN_CALL_COST)

    def _encode_pooling_first(self, words: Tensor, lengths: Tensor) -> Tensor:
        """`_encode` with the max over windows taken before the ReLU, on the (S', F, W)
        layout of the convolution: (S', T, e), (S',) -> (S', F x widths)."""
        num_words = words.shape[1]
        words = words * length_mask(lengths, num_words).unsqueeze(-1)  # (S', T, e) pad = 0
        pooled = []
        for width, conv in zip(self.widths, self.convs, strict=True):
            features = convolved(conv, words)  # (S', F, W = T + width - 1)
            windows = length_mask(lengths + width - 1, num_words + width - 1)  # (S', W)
            floor = torch.finfo(features.dtype).min
            best = features.masked_fill(~windows.unsqueeze(1), floor).amax(dim=-1)  # (S', F)
            pooled.append(best.relu())
        return torch.cat(pooled, dim=-1)  # (S', F x widths)

    def _encode(self, words: Tensor, lengths: Tensor) -> Tensor:
        """Non-empty sentences: words (S', T, e), lengths (S',) -> (S', F x widths)."""
        num_words = words.shape[1]
        words = words * length_mask(lengths, num_words).unsqueeze(-1)  # (S', T, e) pad = 0
        pooled = []
        for width, conv in zip(self.widths, self.convs, strict=True):
            features = convolved(conv, words).relu()  # (S', F, T + width - 1)
            windows = length_mask(lengths + width - 1, num_words + width - 1)  # (S', W)
            pooled.append(masked_max(features.transpose(1, 2), windows))  # (S', F)
        return torch.cat(pooled, dim=-1)  # (S', F x widths)
