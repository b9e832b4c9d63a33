"""ATTOrderNet (Cui et al. 2018): a BiLSTM sentence encoder under the family's paragraph
encoder and pointer decoder (`AttOrderNetSettings`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.families.attordernet.settings import (
    DECODER_SUMMARY,
    PARAGRAPH_SUMMARY,
    AttOrderNetSettings,
)
from models.registry import Summary, register_preset

if TYPE_CHECKING:
    from torch import Tensor

    from models.ordering_model import OrderingModel


@register_preset(
    "attordernet",
    settings=AttOrderNetSettings,
    sizes=dict(tiny=dict(embedding_dim=8, sentence_hidden_dim=6), toy=dict(embedding_dim=16)),
    toy_lr=5e-3,
    colour="#2ca02c",
    order_free=True,
    summary=Summary(
        sentences="BiLSTM, {hidden_dim} units (half per direction), last states (forward and "
                  "backward final)",
        paragraph=PARAGRAPH_SUMMARY,
        decoder=DECODER_SUMMARY,
    ),
)
def attordernet(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    embedding_dim: int | None = None,  # None: width of pretrained_embeddings, else 100
    sentence_hidden_dim: int | None = None,  # BiLSTM units per direction; None: hidden_dim/2
    sentence_pooling: str = "last",  # paper: "last" (s = h_{n_w}); deviation: "mean"
    **shared,  # AttOrderNetSettings
) -> OrderingModel:
    """ATTOrderNet: BiLSTM sentence encoder (hidden_dim / 2 units per direction) whose
    sentence vector is its last state, the forward and backward final states concatenated
    (sec. 2.1, s = h_{n_w}) -> L self-attention layers without positional encoding,
    mean-pooled to the paragraph vector v -> LSTM pointer decoder (hidden_dim units) with
    h0 = v, x0 = 0, pointing at the sentence vectors (eq. 12). The paper's training settings:
    models/families/attordernet/conf/experiment/attordernet_paper.yaml. Deviations kept as
    named options (docs/models.md): `sentence_pooling="mean"`, `pointer_keys="paragraph"`;
    the released code's `initial_cell="paragraph"` and `paragraph_norm="pre"`
    (attordernet_released.yaml beside it). The dropout is the released code's rate."""
    from models.blocks.sentence_lstm import SentenceLSTM
    from models.blocks.word_embedding import word_embedding

    settings = AttOrderNetSettings(**shared)
    embedding = word_embedding(vocab_size, pretrained_embeddings, embedding_dim, settings.dropout)
    sentence_encoder = SentenceLSTM(
        embedding.dim,
        sentence_hidden_dim or settings.hidden_dim // 2,
        bidirectional=True,
        dropout=settings.dropout,
        pooling=sentence_pooling,
    )
    return settings.model(embedding, sentence_encoder)
