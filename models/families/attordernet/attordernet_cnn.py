"""ATTOrderNet(CNN) (Cui et al. 2018): a CNN sentence encoder under the family's paragraph
encoder and pointer decoder (`AttOrderNetSettings`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.families.attordernet.settings import AttOrderNetSettings
from models.registry import Summary, register_preset

if TYPE_CHECKING:
    from torch import Tensor

    from models.ordering_model import OrderingModel


@register_preset(
    "attordernet_cnn",
    settings=AttOrderNetSettings,
    sizes=dict(tiny=dict(embedding_dim=8, num_filters=12), toy=dict(embedding_dim=16)),
    toy_lr=5e-3,
    colour="#9467bd",
    order_free=True,
    summary=Summary(
        sentences="CNN, {hidden_dim} maps, width {filter_width}",
        paragraph="as `attordernet`",
        decoder="as `attordernet`",
    ),
)
def attordernet_cnn(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    embedding_dim: int | None = None,  # None: width of pretrained_embeddings, else 100
    num_filters: int | None = None,  # CNN feature maps; None: hidden_dim (the paper's)
    filter_width: int = 4,  # words per convolution window (paper)
    **shared,  # AttOrderNetSettings
) -> OrderingModel:
    """ATTOrderNet(CNN): `attordernet` with a CNN sentence encoder (`num_filters` feature
    maps of width `filter_width`, max over positions)."""
    from models.blocks.sentence_cnn import SentenceCNN
    from models.blocks.word_embedding import word_embedding

    settings = AttOrderNetSettings(**shared)
    embedding = word_embedding(vocab_size, pretrained_embeddings, embedding_dim, settings.dropout)
    sentence_encoder = SentenceCNN(
        embedding.dim, num_filters or settings.hidden_dim, filter_width, dropout=settings.dropout
    )
    return settings.model(embedding, sentence_encoder)
