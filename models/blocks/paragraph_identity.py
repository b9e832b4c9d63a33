"""No paragraph encoder: for sentence vectors that are already contextual (a pretrained
Transformer that read the whole paragraph, `models.blocks.paragraph_transformer`)."""

from torch import Tensor, nn

from models.blocks.masked_ops import masked_mean
from models.interfaces import ParagraphEncoding


class ParagraphIdentity(nn.Module):
    """No paragraph encoder: the contexts are the sentence vectors themselves (already
    contextual), the state their mean."""

    def __init__(self, input_dim: int):
        super().__init__()
        self.output_dim = input_dim

    def forward(self, sentences: Tensor, mask: Tensor) -> ParagraphEncoding:
        """sentences (B, N, d), mask (B, N) -> contexts (B, N, d), state (mean (B, d),)."""
        return ParagraphEncoding(sentences, (masked_mean(sentences, mask),))
