"""ATTOrderNet(ATT) (Cui et al. 2018): a self-attention sentence encoder under the family's
paragraph encoder and pointer decoder (`AttOrderNetSettings`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.families.attordernet.settings import AttOrderNetSettings
from models.registry import Summary, register_preset

if TYPE_CHECKING:
    from torch import Tensor

    from models.ordering_model import OrderingModel


@register_preset(
    "attordernet_att",
    settings=AttOrderNetSettings,
    sizes=dict(tiny=dict(embedding_dim=10, sentence_layers=2, sentence_ff_dim=16),
               toy=dict(embedding_dim=20)),  # fmt: skip
    toy_lr=5e-3,
    colour="#d62728",
    order_free=True,
    divides=(("sentence_heads", "embedding_dim"),),
    summary=Summary(
        sentences="{sentence_layers} self-attention layers, {sentence_heads} heads, sinusoidal "
                  "positions, mean over words",
        paragraph="as `attordernet`",
        decoder="as `attordernet`",
    ),
)
def attordernet_att(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    embedding_dim: int | None = None,  # None: width of pretrained_embeddings, else 100
    sentence_layers: int = 4,  # word-level self-attention layers (paper)
    sentence_heads: int = 5,  # word-level heads (paper); must divide embedding_dim
    sentence_ff_dim: int | None = None,  # word-level feed-forward width; None: 4 x word width
    **shared,  # AttOrderNetSettings
) -> OrderingModel:
    """ATTOrderNet(ATT): `attordernet` with the BiLSTM sentence encoder replaced by
    `sentence_layers` self-attention layers over the word vectors with sinusoidal positions,
    mean-pooled. The sentence vectors keep the word width, and a linear layer maps them to
    the paragraph width; the word-level feed-forward width (4 x the word width, Vaswani et
    al.'s ratio) is chosen."""
    from models.blocks.word_embedding import word_embedding
    from models.families.attordernet.blocks.sentence_attention import SentenceSelfAttention

    settings = AttOrderNetSettings(**shared)
    embedding = word_embedding(vocab_size, pretrained_embeddings, embedding_dim, settings.dropout)
    sentence_encoder = SentenceSelfAttention(
        embedding.dim,
        sentence_layers,
        sentence_heads,
        sentence_ff_dim or 4 * embedding.dim,
        settings.dropout,
    )
    return settings.model(embedding, sentence_encoder)
