"""ATTOrderNet of Cui, Li, Chen and Zhang (2018), "Deep Attentive Sentence Ordering
Network" (EMNLP), with its three sentence encoders (BiLSTM, self-attention, CNN).

The variants differ in the sentence encoder only; what they share (self-attention
paragraph encoder, LSTM pointer decoder and their settings) is `AttOrderNetSettings`,
whose fields every variant takes as keyword arguments (`**shared`); each registers it
(`settings=AttOrderNetSettings`), so the registry lists those fields among the variant's
settings (`models.registry.preset_settings`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from models.registry import Summary, register_preset

if TYPE_CHECKING:
    from torch import Tensor

    from models.blocks.word_embedding import WordEmbedding
    from models.interfaces import SentenceEncoder, TextSentenceEncoder
    from models.ordering_model import OrderingModel

# a small paragraph encoder and decoder for the tests (vocabulary of 30 word ids)
TINY = dict(hidden_dim=16, ff_dim=24)
TOY = dict(hidden_dim=32, ff_dim=64, dropout=0.0)
HEADS_DIVIDE = (("heads", "hidden_dim"),)  # paragraph attention (models.hyperparameters)


@dataclass(frozen=True)
class AttOrderNetSettings:
    """Paragraph encoder and decoder of every ATTOrderNet variant (paper's defaults)."""

    hidden_dim: int = 512  # paragraph encoder width = decoder LSTM units (paper: 512)
    paragraph_layers: int = 2  # L (paper: 2; 6 for AAN; 4 for NSF and arXiv)
    heads: int = 8  # paragraph attention heads (paper: 8)
    ff_dim: int = 1024  # paragraph feed-forward width (paper: 1024)
    attention_dim: int | None = None  # pointer tanh width; None: hidden_dim
    dropout: float = 0.1  # word vectors, sentence vectors, attention layers (released code)
    paragraph_positions: bool = False  # ablation: encode the presented (shuffled) positions
    pointer_keys: str = "sentence"  # paper eq. 12: "sentence"; deviation: "paragraph"
    initial_cell: str = "zeros"  # decoder c0 = 0; released code: "paragraph" (c0 = v)
    paragraph_norm: str = "post"  # paper: post-LN layers; released code: "pre" + final norm

    def model(
        self,
        embedding: WordEmbedding | None,
        sentence_encoder: SentenceEncoder | TextSentenceEncoder,
    ) -> OrderingModel:
        """Self-attention paragraph encoder (no positions, mean-pooled v) + LSTM pointer
        decoder started at h0 = v with x0 = 0, pointing at `pointer_keys` (eq. 12:
        u_j^i = g^T tanh(W1 s_j + W2 h_i), the sentence vectors s_j), over
        `sentence_encoder`."""
        from models.blocks.paragraph_attention import ParagraphSelfAttention
        from models.blocks.pointer_lstm import LSTMPointerDecoder
        from models.ordering_model import OrderingModel

        paragraph_encoder = ParagraphSelfAttention(
            sentence_encoder.output_dim,
            self.hidden_dim,
            self.paragraph_layers,
            self.heads,
            self.ff_dim,
            self.dropout,
            self.paragraph_positions,
            self.paragraph_norm,
        )
        decoder = LSTMPointerDecoder(
            sentence_encoder.output_dim,
            self.hidden_dim,
            attention_dim=self.attention_dim,
            learned_start=False,
            pointer_keys=self.pointer_keys,
            initial_cell=self.initial_cell,
        )
        return OrderingModel(sentence_encoder, paragraph_encoder, decoder, embedding)


@register_preset(
    "attordernet",
    sizes=dict(tiny=dict(embedding_dim=8, sentence_hidden_dim=6) | TINY,
               toy=dict(embedding_dim=16) | TOY),
    toy_lr=5e-3,
    colour="#2ca02c",
    order_free=True,
    divides=HEADS_DIVIDE,
    settings=AttOrderNetSettings,
    summary=Summary(
        sentences="BiLSTM 256 + 256, last states (forward and backward final)",
        paragraph=(
            "2 self-attention layers, 8 heads, d_ff 1024, post-LN, no positions, mean-pooled to v"
        ),
        decoder="LSTM pointer (512) over the sentence vectors, h0 = v, x0 = 0",
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
    """ATTOrderNet: BiLSTM sentence encoder (256 units per direction) whose sentence vector
    is its last state, the forward and backward final states concatenated (sec. 2.1,
    s = h_{n_w}) -> L self-attention layers without positional encoding, mean-pooled to
    the paragraph vector v -> LSTM pointer decoder (512 units) with h0 = v, x0 = 0,
    pointing at the sentence vectors (eq. 12). Training settings (GloVe-100d, Adadelta lr
    1.0 rho 0.95 eps 1e-6, batch 16, L2 1e-5, beam 64, no gradient clipping) live in
    conf/experiment/attordernet_paper.yaml. Deviations kept as named options
    (docs/models.md): `sentence_pooling="mean"`, `pointer_keys="paragraph"`; the released
    code's `initial_cell="paragraph"` and `paragraph_norm="pre"`
    (conf/experiment/attordernet_released.yaml). Dropout 0.1 is the released code's rate."""
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


@register_preset(
    "attordernet_att",
    sizes=dict(tiny=dict(embedding_dim=10, sentence_layers=2, sentence_ff_dim=16) | TINY,
               toy=dict(embedding_dim=20) | TOY),
    toy_lr=5e-3,
    colour="#d62728",
    order_free=True,
    divides=(*HEADS_DIVIDE, ("sentence_heads", "embedding_dim")),
    settings=AttOrderNetSettings,
    summary=Summary(
        sentences="4 self-attention layers, 5 heads, sinusoidal positions, mean over words",
        paragraph="as `attordernet`",
        decoder="as `attordernet`",
    ),
)
def attordernet_att(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    embedding_dim: int | None = None,  # None: width of pretrained_embeddings, else 100
    sentence_layers: int = 4,  # word-level self-attention layers (paper: 4)
    sentence_heads: int = 5,  # word-level heads (paper: 5); must divide embedding_dim
    sentence_ff_dim: int | None = None,  # word-level feed-forward width; None: 4 x word width
    **shared,  # AttOrderNetSettings
) -> OrderingModel:
    """ATTOrderNet(ATT): `attordernet` with the BiLSTM sentence encoder replaced by 4
    self-attention layers (5 heads) over the word vectors with sinusoidal positions,
    mean-pooled. The sentence vectors keep the word width, and a linear layer maps them to
    the paragraph width; the word-level feed-forward width (4 x the word width, Vaswani et
    al.'s ratio) is chosen."""
    from models.blocks.sentence_attention import SentenceSelfAttention
    from models.blocks.word_embedding import word_embedding

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


@register_preset(
    "attordernet_cnn",
    sizes=dict(tiny=dict(embedding_dim=8, num_filters=12) | TINY, toy=dict(embedding_dim=16) | TOY),
    toy_lr=5e-3,
    colour="#9467bd",
    order_free=True,
    divides=HEADS_DIVIDE,
    settings=AttOrderNetSettings,
    summary=Summary(
        sentences="CNN, 512 maps, width 4",
        paragraph="as `attordernet`",
        decoder="as `attordernet`",
    ),
)
def attordernet_cnn(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    embedding_dim: int | None = None,  # None: width of pretrained_embeddings, else 100
    num_filters: int | None = None,  # CNN feature maps (paper: 512); None: hidden_dim
    filter_width: int = 4,  # words per convolution window (paper: 4)
    **shared,  # AttOrderNetSettings
) -> OrderingModel:
    """ATTOrderNet(CNN): `attordernet` with a CNN sentence encoder (512 feature maps of
    width 4, max over positions)."""
    from models.blocks.sentence_cnn import SentenceCNN
    from models.blocks.word_embedding import word_embedding

    settings = AttOrderNetSettings(**shared)
    embedding = word_embedding(vocab_size, pretrained_embeddings, embedding_dim, settings.dropout)
    sentence_encoder = SentenceCNN(
        embedding.dim, num_filters or settings.hidden_dim, filter_width, dropout=settings.dropout
    )
    return settings.model(embedding, sentence_encoder)
