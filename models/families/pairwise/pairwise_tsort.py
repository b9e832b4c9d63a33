"""Pairwise ordering with topological sort: B-TSort of Prabhumoye, Salakhutdinov and
Black (2020), "Topological Sort for Sentence Ordering" (ACL), over a bi-encoder pair
classifier (`models.orderers.pairwise_orderer`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.registry import Summary, register_preset

if TYPE_CHECKING:
    from torch import Tensor

    from models.orderers.pairwise_orderer import PairwiseOrderer

SENTENCE_ENCODERS = ("lstm", "minilm")


@register_preset(
    "pairwise_tsort",
    sizes=dict(tiny=dict(embedding_dim=8, hidden_dim=12),
               toy=dict(embedding_dim=16, hidden_dim=32)),
    toy_lr=1e-2,
    colour="#bcbd22",
    pointer=False,
    summary=Summary(
        sentences="BiLSTM 128 + 128, mean over words",
        paragraph="none: an MLP classifies every ordered pair",
        decoder="topological sort of the predicted constraints (or summed wins)",
    ),
)
def pairwise_tsort(
    vocab_size: int | None = None,  # word ids (the LSTM sentence encoder)
    pretrained_embeddings: Tensor | None = None,  # (V, e) word vectors, e.g. GloVe
    *,
    sentence_encoder: str = "lstm",  # "lstm": BiLSTM over word vectors; "minilm": frozen
    embedding_dim: int | None = None,  # None: width of pretrained_embeddings, else 100
    hidden_dim: int = 256,  # BiLSTM units (both directions together) = classifier width
    dropout: float = 0.1,  # word vectors, sentence vectors, pair features
    decoder: str = "tsort",  # "tsort" (the paper) or "winsum" (summed win probabilities)
    cycle_rule: str = "dfs",  # tsort's cycle breaking: "dfs" (authors' code) or "confidence"
    pair_direction: str = "presented",  # one classification per pair (authors'), or "both"
    minilm_store=None,  # MiniLM's vector store (as minilm_ptrnet's); None: not kept
) -> PairwiseOrderer:
    """A classifier of ordered sentence pairs trained on every pair of each document,
    decoded by a topological sort of its predicted constraints (B-TSort). The paper's
    classifier is BERT over the concatenated pair; here each sentence is encoded alone (a
    mean-pooled BiLSTM over the word vectors, or frozen MiniLM vectors) and an MLP scores
    the pair (`models.blocks.pair_classifier`): a deviation, for a CPU budget. The sizes are
    chosen, not published. It has no pointer decoder, so the noise setting's END
    (`models.noise.noise_wrapper`) cannot wrap it: the harness refuses `dataset.noise`."""
    from models.blocks.pair_classifier import PairOrderClassifier
    from models.blocks.sentence_lstm import SentenceLSTM
    from models.blocks.sentence_minilm import MiniLMSentenceEncoder
    from models.blocks.word_embedding import word_embedding
    from models.orderers.pairwise_orderer import PairwiseOrderer

    if sentence_encoder not in SENTENCE_ENCODERS:
        raise ValueError(
            f"model.net.sentence_encoder must be one of {SENTENCE_ENCODERS}, "
            f"got {sentence_encoder!r}"
        )
    if sentence_encoder == "minilm":
        embedding = None
        encoder = MiniLMSentenceEncoder(store=minilm_store)
    else:
        embedding = word_embedding(vocab_size, pretrained_embeddings, embedding_dim, dropout)
        encoder = SentenceLSTM(
            embedding.dim, hidden_dim // 2, bidirectional=True, dropout=dropout, pooling="mean"
        )
    classifier = PairOrderClassifier(encoder.output_dim, hidden_dim, dropout)
    return PairwiseOrderer(encoder, classifier, embedding, decoder, cycle_rule, pair_direction)
