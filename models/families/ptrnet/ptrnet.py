"""LSTM+PtrNet and CNN+PtrNet of Gong, Chen, Qiu and Huang (2016), "End-to-End Neural
Sentence Ordering Using Pointer Network" (arXiv:1611.04953)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from models.registry import Summary, register_preset

if TYPE_CHECKING:
    from torch import Tensor

    from models.blocks.word_embedding import WordEmbedding
    from models.interfaces import SentenceEncoder
    from models.ordering_model import OrderingModel


@dataclass(frozen=True)
class PtrNetSettings:
    """The word embedding and Ptr-Net of both presets of Gong et al. (2016); the paper gives
    no numbers, so the defaults are general-purpose (the released configuration:
    `+experiment=ptrnet_paper`)."""

    SIZES: ClassVar[dict[str, dict]] = {"toy": dict(embedding_dim=16, hidden_dim=32)}

    embedding_dim: int | None = None  # None: width of pretrained_embeddings, else 100
    hidden_dim: int = 256  # paragraph LSTM = pointer decoder units
    attention_dim: int | None = None  # pointer tanh width; None: hidden_dim
    dropout: float = 0.0  # on sentence vectors (and word vectors: word_dropout None)
    word_dropout: float | None = None  # on word vectors; None: dropout
    learned_start: bool = True  # decoder's step-0 input: learned vector, else zeros

    def embedding(self, vocab_size: int, pretrained_embeddings: Tensor | None) -> WordEmbedding:
        from models.blocks.word_embedding import word_embedding

        dropout = self.dropout if self.word_dropout is None else self.word_dropout
        return word_embedding(vocab_size, pretrained_embeddings, self.embedding_dim, dropout)

    def model(self, embedding: WordEmbedding, sentence_encoder: SentenceEncoder) -> OrderingModel:
        return pointer_network(embedding, sentence_encoder, self.hidden_dim, self.attention_dim,
                               self.learned_start)  # fmt: skip


PARAGRAPH, DECODER = "LSTM over the shuffled sentences", "LSTM pointer from the encoder's (h, c)"


@register_preset(
    "lstm_ptrnet",
    settings=PtrNetSettings,
    sizes=dict(tiny=dict(embedding_dim=8, sentence_hidden_dim=12, hidden_dim=10, attention_dim=7)),
    colour="#1f77b4",
    summary=Summary(sentences="LSTM, final state", paragraph=PARAGRAPH, decoder=DECODER),
)
def lstm_ptrnet(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    sentence_hidden_dim: int | None = None,  # sentence LSTM units; None: hidden_dim
    **shared,  # PtrNetSettings
) -> OrderingModel:
    """LSTM+PtrNet of Gong et al. (2016).

    Architecture as in the paper: pretrained word embeddings fine-tuned end to end; an
    LSTM over each sentence's words whose final hidden state is the sentence vector; a
    Ptr-Net (Vinyals et al. 2015) whose LSTM encoder reads the sentence vectors in the
    shuffled order and whose LSTM decoder, started from the encoder's final state and
    fed the previously chosen sentence's vector, points with
    u_j = v^T tanh(W1 e_j + W2 d_k). The paper optimises a regularised negative
    log-likelihood of the gold order with AdaGrad; the optimiser, its L2 weight and the
    beam width are harness/config settings, not model ones.

    Numbers: the paper gives none; the authors' released configuration
    (jingjing-gong/SentenceOrdering_PTR, final_save/config) has 100 LSTM units, 100-d
    vectors, dropout 0.1 on the sentence vectors only, AdaGrad lr 0.3 decayed x0.95 per
    epoch, L2 1e-5, batch 128: `+experiment=ptrnet_paper` (docs/models.md). The defaults
    of `PtrNetSettings` are general-purpose sizes, not published ones.
    """
    from models.blocks.sentence_lstm import SentenceLSTM

    settings = PtrNetSettings(**shared)
    embedding = settings.embedding(vocab_size, pretrained_embeddings)
    sentences = SentenceLSTM(embedding.dim, sentence_hidden_dim or settings.hidden_dim,
                             dropout=settings.dropout)  # fmt: skip
    return settings.model(embedding, sentences)


@register_preset(
    "cnn_ptrnet",
    settings=PtrNetSettings,
    sizes=dict(tiny=dict(embedding_dim=8, num_filters=12, hidden_dim=10, attention_dim=7)),
    colour="#ff7f0e",
    summary=Summary(sentences="CNN (width 3), ReLU, max over positions", paragraph=PARAGRAPH,
                    decoder=DECODER),  # fmt: skip
)
def cnn_ptrnet(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    num_filters: int | None = None,  # CNN feature maps per width; None: hidden_dim
    filter_width: int | list[int] = 3,  # words per window; several: maps of each, concatenated
    **shared,  # PtrNetSettings
) -> OrderingModel:
    """CNN+PtrNet of Gong et al. (2016): `lstm_ptrnet` with the CNN sentence model
    (convolution over word windows, ReLU, max over positions) in place of the sentence
    LSTM. The released configuration (jingjing-gong/SentenceOrdering_PTR,
    final_save/cnn/config): 512 maps of each width 3, 4 and 5, 100 Ptr-Net units
    (`+experiment=ptrnet_paper model=cnn_ptrnet`); the keyword defaults are not published."""
    from models.blocks.sentence_cnn import SentenceCNN

    settings = PtrNetSettings(**shared)
    embedding = settings.embedding(vocab_size, pretrained_embeddings)
    sentences = SentenceCNN(embedding.dim, num_filters or settings.hidden_dim, filter_width,
                            dropout=settings.dropout)  # fmt: skip
    return settings.model(embedding, sentences)


def pointer_network(
    embedding: WordEmbedding,
    sentence_encoder: SentenceEncoder,
    hidden_dim: int,
    attention_dim: int | None,
    learned_start: bool,
) -> OrderingModel:
    """Gong et al. (2016) Ptr-Net (paragraph LSTM + LSTM pointer) over any sentence encoder."""
    from models.blocks.paragraph_lstm import ParagraphLSTM
    from models.blocks.pointer_lstm import LSTMPointerDecoder
    from models.ordering_model import OrderingModel

    paragraph_encoder = ParagraphLSTM(sentence_encoder.output_dim, hidden_dim)
    decoder = LSTMPointerDecoder(
        sentence_encoder.output_dim,
        hidden_dim,
        attention_dim=attention_dim,
        learned_start=learned_start,
    )
    return OrderingModel(sentence_encoder, paragraph_encoder, decoder, embedding)
