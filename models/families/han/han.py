"""Hierarchical attention network of Wang and Wan (2019), "Hierarchical Attention Networks
for Sentence Ordering" (AAAI)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.registry import Summary, register_preset

if TYPE_CHECKING:
    from torch import Tensor

    from models.ordering_model import OrderingModel


@register_preset(
    "han",
    sizes=dict(tiny=dict(embedding_dim=8, hidden_dim=16, num_blocks=2, word_lstm_layers=1),
               toy=dict(embedding_dim=16, hidden_dim=32, word_lstm_layers=1, dropout=0.0)),
    toy_lr=5e-3,
    colour="#8c564b",
    order_free=True,
    divides=(("heads", "hidden_dim"), (2, "hidden_dim")),  # word BiLSTM: d/2 per direction
    summary=Summary(
        sentences="BiLSTM + word-level multi-head attention (ReLU projections, learned query)",
        paragraph="M = {num_blocks} gated self-attention blocks, H = {heads}",
        decoder=(
            "gated Transformer decoder (masked self-attention + attention over the "
            "encoder) + ReLU pointer"
        ),
    ),
)
def han(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    embedding_dim: int | None = None,  # None: width of pretrained_embeddings, else 100
    hidden_dim: int = 512,  # d: width of every layer (BiLSTM 256 per direction)
    num_blocks: int = 3,  # M gated self-attention blocks (paper: 3)
    heads: int = 4,  # H, every attention layer (paper: 4)
    decoder_layers: int | None = None,  # decoder blocks; None: num_blocks
    word_lstm_layers: int = 2,  # stacked word BiLSTM layers
    dropout: float = 0.05,  # everywhere (paper: 0.05)
    word_attention: bool = True,  # False: sentence vector = BiLSTM final states (ablation)
) -> OrderingModel:
    """Hierarchical attention network of Wang and Wan (2019), "Hierarchical Attention
    Networks for Sentence Ordering" (AAAI): word encoder (BiLSTM + multi-head attention
    with ReLU projections and a learned query) -> M gated self-attention blocks over the
    sentences (F = LayerNorm(G E + (1 - G) C), G = sigmoid(E W_in + C W_out)) -> decoder
    blocks (masked self-attention over the placed sentences and attention over the encoder,
    gated) and the pointer softmax(ReLU(D W_Q) ReLU(E W_K)^T / sqrt(d)), decoded with
    beam search.

    M = 3, H = 4 and dropout 0.05 are the paper's. d = 512, two word BiLSTM layers and
    as many decoder blocks as encoder blocks follow the authors' public code, where the
    paper's values were not at hand. `word_attention=False` is the ablation "HAN without
    word attention": the sentence vector is the BiLSTM's final states."""
    from models.blocks.sentence_lstm import SentenceLSTM
    from models.blocks.word_embedding import word_embedding
    from models.families.han.blocks.han_word_attention import HANWordAttention
    from models.families.han.blocks.paragraph_gated_attention import ParagraphGatedAttention
    from models.families.han.blocks.pointer_transformer import TransformerPointerDecoder
    from models.ordering_model import OrderingModel

    embedding = word_embedding(vocab_size, pretrained_embeddings, embedding_dim, dropout)
    if word_attention:
        sentence_encoder = HANWordAttention(
            embedding.dim, hidden_dim, heads, dropout, lstm_layers=word_lstm_layers
        )
    else:
        sentence_encoder = SentenceLSTM(
            embedding.dim, hidden_dim // 2, word_lstm_layers, bidirectional=True, dropout=dropout
        )
    paragraph_encoder = ParagraphGatedAttention(
        sentence_encoder.output_dim, hidden_dim, num_blocks, heads, dropout
    )
    decoder = TransformerPointerDecoder(hidden_dim, decoder_layers or num_blocks, heads, dropout)
    return OrderingModel(sentence_encoder, paragraph_encoder, decoder, embedding)
