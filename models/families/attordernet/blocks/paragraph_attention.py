"""ATTOrderNet's self-attention paragraph encoder, mean-pooled to a paragraph vector.

Cui et al. (2018), "Deep Attentive Sentence Ordering Network", paragraph encoder: L
stacked Transformer encoder layers (Vaswani et al. 2017: multi-head self-attention and a
ReLU feed-forward network, each wrapped as LayerNorm(x + Sublayer(x)), i.e. post-LN) over
the sentence vectors, with **no positional encoding**: the presented order is a shuffle, so
the encoder treats the sentences as a set. The paragraph vector v is the mean of the top
layer over the real sentences and starts the pointer decoder (h0 = v). The paper's L, heads
and widths: `AttOrderNetSettings` (models/families/attordernet/settings.py).

Without positions and with padding masked as keys, permuting the presented sentences
permutes the contexts the same way (permutation-equivariant) and leaves v unchanged.
When the sentence vectors are narrower or wider than `model_dim`, a linear layer maps
them to it first (an addition, needed e.g. for 100-d attention sentence vectors and 8 heads).
`positions=True` adds sinusoidal encodings of the presented positions: the ablation that
shows why the paper leaves them out (the encoding then depends on the shuffle).

`norm="pre"` is the layer of the authors' released code (hwxcby/ATTOrderNet,
`common.transformer_encoder` with tensor2tensor's `layer_preprocess` "n" and
`layer_postprocess` "da"): x + Sublayer(LayerNorm(x)) in each layer, and one LayerNorm
after the last layer (pre-LN, Xiong et al. 2020); the paper describes Vaswani et al.'s
post-LN layer, the default.
"""

from torch import Tensor, nn

from models.blocks.masked_ops import masked_mean
from models.blocks.positional_encoding import sinusoidal_positions
from models.interfaces import ParagraphEncoding

NORMS = ("post", "pre")  # post: LayerNorm(x + Sublayer(x)) (paper); pre: released code


class ParagraphSelfAttention(nn.Module):
    def __init__(
        self,
        input_dim: int,  # sentence vector width
        model_dim: int | None,  # layer width = paragraph vector width; None: input_dim
        num_layers: int,  # L
        heads: int,  # attention heads
        ff_dim: int,  # feed-forward width
        dropout: float,  # inside the layers
        positions: bool = False,  # add sinusoidal presented-position encodings (ablation)
        norm: str = "post",  # "post" (paper) or "pre" + a final LayerNorm (released code)
    ):
        super().__init__()
        model_dim = model_dim or input_dim
        if model_dim % heads:
            raise ValueError(f"model_dim={model_dim} is not divisible by heads={heads}")
        if norm not in NORMS:
            raise ValueError(f"paragraph norm must be one of {NORMS}, got {norm!r}")
        self.output_dim = model_dim
        self.positions = positions
        self.project = nn.Linear(input_dim, model_dim) if model_dim != input_dim else None
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(
                model_dim, heads, ff_dim, dropout, batch_first=True, norm_first=norm == "pre"
            )
            for _ in range(num_layers)
        )
        # pre-LN leaves the residual stream unnormalised: the released code ends with a norm
        self.final_norm = nn.LayerNorm(model_dim) if norm == "pre" else None

    def forward(self, sentences: Tensor, mask: Tensor) -> ParagraphEncoding:
        """sentences (B, N, d), mask (B, N) -> contexts (B, N, m) (zeros at padding),
        state (v (B, m),)."""
        hidden = sentences if self.project is None else self.project(sentences)  # (B, N, m)
        if self.positions:
            _, num, dim = hidden.shape
            hidden = hidden + sinusoidal_positions(num, dim, hidden.device)  # (B, N, m)
        for layer in self.layers:
            hidden = layer(hidden, src_key_padding_mask=~mask)  # (B, N, m)
        if self.final_norm is not None:
            hidden = self.final_norm(hidden)  # (B, N, m)
        contexts = hidden * mask.unsqueeze(-1)  # (B, N, m)
        return ParagraphEncoding(contexts, (masked_mean(hidden, mask),))
