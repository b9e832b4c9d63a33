"""ATTOrderNet's paragraph encoder and pointer decoder (Cui et al. 2018), which every
ATTOrderNet variant shares (and the pretrained-encoder presets of the minilm, finetuned and
paragraph families take): its settings, the paper's as defaults, and the family's named
sizes. Each variant takes the fields as keyword arguments (`**shared`) and registers the
class (`settings=AttOrderNetSettings`), so the registry lists them among its settings and
its sizes (`models.registry`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from models.blocks.word_embedding import WordEmbedding
    from models.interfaces import SentenceEncoder, TextSentenceEncoder
    from models.ordering_model import OrderingModel


@dataclass(frozen=True)
class AttOrderNetSettings:
    """Paragraph encoder and decoder of every ATTOrderNet variant; the defaults are the
    paper's (the size `paper`)."""

    SIZES: ClassVar[dict[str, dict]] = {  # the settings that differ from the defaults
        "paper": {},  # Cui et al. 2018, sec. 4.2
        "cpu": dict(hidden_dim=256, ff_dim=512),  # half the widths: trains on Brown on a laptop
        # the authors' released code (hwxcby/ATTOrderNet @ ad2b44d6, save_file/lstm/config):
        # hidden_size for the sentence BiLSTM (half per direction), the paragraph attention and
        # the decoder LSTM; filter_size_attention
        "released": dict(hidden_dim=1024, ff_dim=2048),
        "tiny": dict(hidden_dim=16, ff_dim=24),  # the tests' small instances
        "toy": dict(hidden_dim=32, ff_dim=64, dropout=0.0),  # learns the tests' toy task
    }
    DIVIDES: ClassVar[tuple] = (("heads", "hidden_dim"),)  # paragraph attention heads

    hidden_dim: int = 512  # paragraph encoder width = decoder LSTM units
    paragraph_layers: int = 2  # L (per corpus: `paper_layers` of attordernet_paper.yaml)
    heads: int = 8  # paragraph attention heads
    ff_dim: int = 1024  # paragraph feed-forward width
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
        from models.blocks.pointer_lstm import LSTMPointerDecoder
        from models.families.attordernet.blocks.paragraph_attention import (
            ParagraphSelfAttention,
        )
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


# the cells of the table of presets every variant shares (`{setting}`: its default)
PARAGRAPH_SUMMARY = ("{paragraph_layers} self-attention layers, {heads} heads, d_ff {ff_dim}, "
                     "{paragraph_norm}-LN, no positions, mean-pooled to v")  # fmt: skip
DECODER_SUMMARY = "LSTM pointer ({hidden_dim}) over the sentence vectors, h0 = v, x0 = 0"
