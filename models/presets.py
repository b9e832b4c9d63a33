"""Named models: plain functions composing the building blocks with published settings.

Every preset takes `vocab_size` and `pretrained_embeddings` ((V, d) tensor or None)
plus keyword hyperparameters, and returns a module with the OrderingModel interface
(forward / loss / log_prob / decode). Hydra configs point at these with `_target_`.
"""

from torch import Tensor

from models.interfaces import SentenceEncoder
from models.ordering_model import OrderingModel
from models.paragraph_lstm import ParagraphLSTM
from models.pointer_lstm import LSTMPointerDecoder
from models.random_baseline import RandomOrderer
from models.sentence_lstm import SentenceLSTM
from models.word_embedding import WordEmbedding

DEFAULT_EMBEDDING_DIM = 100  # width when no pretrained vectors are given (GloVe-100d size)


def lstm_ptrnet(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    embedding_dim: int | None = None,  # None: width of pretrained_embeddings, else 100
    sentence_hidden_dim: int = 256,  # sentence LSTM units
    hidden_dim: int = 256,  # paragraph LSTM = pointer decoder units
    attention_dim: int | None = None,  # pointer tanh width; None: hidden_dim
    dropout: float = 0.0,  # on word vectors and on sentence vectors
    learned_start: bool = True,  # decoder's step-0 input: learned vector, else zeros
) -> OrderingModel:
    """LSTM+PtrNet of Gong, Chen, Qiu and Huang (2016), "End-to-End Neural Sentence
    Ordering Using Pointer Network" (arXiv:1611.04953).

    Architecture as in the paper: pretrained word embeddings fine-tuned end to end; an
    LSTM over each sentence's words whose final hidden state is the sentence vector; a
    Ptr-Net (Vinyals et al. 2015) whose LSTM encoder reads the sentence vectors in the
    shuffled order and whose LSTM decoder, started from the encoder's final state and
    fed the previously chosen sentence's vector, points with
    u_j = v^T tanh(W1 e_j + W2 d_k). The paper optimises a regularised negative
    log-likelihood of the gold order with AdaGrad; the optimiser, its L2 weight and the
    beam width are harness/config settings, not model ones.

    Numbers: the stored copies of the paper available when this was written gave its
    architecture and training method but not its numeric settings, so the sizes here
    are chosen, not published: 100-d embeddings (the GloVe width Cui et al. 2018 use on
    the same datasets), 256 LSTM units throughout, attention width = hidden width
    (square W1, W2 as in Vinyals et al. 2015), no dropout. Override them in the config
    when reproducing a specific table.
    """
    embedding = _embedding(vocab_size, pretrained_embeddings, embedding_dim, dropout)
    sentence_encoder = SentenceLSTM(embedding.dim, sentence_hidden_dim, dropout=dropout)
    return _pointer_network(embedding, sentence_encoder, hidden_dim, attention_dim, learned_start)


def random(seed: int = 0, **_) -> RandomOrderer:
    """Uniform random permutation baseline; other preset arguments are ignored."""
    return RandomOrderer(seed=seed)


def _embedding(
    vocab_size: int, pretrained: Tensor | None, dim: int | None, dropout: float
) -> WordEmbedding:
    if pretrained is not None and dim is not None and pretrained.shape[-1] != dim:
        raise ValueError(
            f"embedding_dim={dim} but pretrained_embeddings have width {pretrained.shape[-1]}"
        )
    if dim is None:
        dim = DEFAULT_EMBEDDING_DIM if pretrained is None else pretrained.shape[-1]
    return WordEmbedding(vocab_size, dim, pretrained=pretrained, dropout=dropout)


def _pointer_network(
    embedding: WordEmbedding,
    sentence_encoder: SentenceEncoder,
    hidden_dim: int,
    attention_dim: int | None,
    learned_start: bool,
) -> OrderingModel:
    """Gong et al. (2016) Ptr-Net (paragraph LSTM + LSTM pointer) over any sentence encoder."""
    paragraph_encoder = ParagraphLSTM(sentence_encoder.output_dim, hidden_dim)
    decoder = LSTMPointerDecoder(
        sentence_encoder.output_dim,
        hidden_dim,
        attention_dim=attention_dim,
        learned_start=learned_start,
    )
    return OrderingModel(sentence_encoder, paragraph_encoder, decoder, embedding)
