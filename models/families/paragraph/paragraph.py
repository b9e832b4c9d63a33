"""Pretrained paragraph encoders, fully fine-tuned, under three heads: the pretrained
orderers of 2020-2021 as rows beside the 2018 models.

A pretrained Transformer (by default all-MiniLM-L6-v2; `encoder` names another: `mpnet`,
a local Hugging Face folder, models.blocks.pretrained) reads the whole shuffled paragraph
at once and gives each sentence the mean of its span's output states
(`models.blocks.paragraph_transformer`); every layer trains.
Heads:

- `paragraph_listmle`: one score per sentence, trained with ListMLE and sorted (RankTxNet,
  Kumar et al. 2020; `models.blocks.pointer_listwise`): the cheapest head.
- `paragraph_ptrnet`: ATTOrderNet's self-attention paragraph encoder and LSTM pointer
  decoder over the contextual sentence vectors (the shape of BERSON, Cui et al. 2020,
  whose decoder is a pointer network; its relational pair features are not built).
- `paragraph_tsort`: a pair classifier over the same sentence vectors, decoded by a
  topological sort (B-TSort, Prabhumoye et al. 2020, `models.orderers.pairwise_orderer`).
  B-TSort's own encoder reads each pair of sentences jointly, one BERT pass per pair:
  C(n, 2) passes a paragraph, a GPU's cost, not built here.

The training recipe (AdamW, learning rate, warm-up and linear decay, batch) is the
config's: the family's models/families/paragraph/conf/model/paragraph_*.yaml hold ours,
models/families/paragraph/conf/experiment/berson_recipe.yaml the published one
(docs/models.md, "Pretrained paragraph encoders").
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from models.families.attordernet.settings import AttOrderNetSettings
from models.registry import Summary, register_preset

if TYPE_CHECKING:
    from models.blocks.paragraph_transformer import PretrainedParagraphEncoder
    from models.orderers.pairwise_orderer import PairwiseOrderer
    from models.ordering_model import OrderingModel

TINY = dict(hidden_dim=8)  # the encoder itself stays the pretrained one


@dataclass(frozen=True)
class ParagraphEncoderSettings:
    """The pretrained paragraph encoder every head reads (models.blocks.paragraph_transformer)."""

    encoder: str | None = None  # models.blocks.pretrained: a registered name or a folder
    max_tokens: int | None = None  # joined paragraph's limit; None: the encoder's positions
    fit: str = "truncate"  # longer paragraphs: the longest sentences are cut first
    encoder_lr: float | None = None  # the encoder's learning rate; None: the optimiser's
    warmup_steps: int = 0  # linear warm-up of every learning rate (optimiser steps)
    decay_epochs: int | None = None  # linear decay to 0 at the end of this epoch; None: none

    def paragraph_encoder(self) -> PretrainedParagraphEncoder:
        from models.blocks.paragraph_transformer import PretrainedParagraphEncoder

        return PretrainedParagraphEncoder(
            self.encoder, self.max_tokens, self.fit, self.encoder_lr, self.warmup_steps,
            self.decay_epochs,
        )  # fmt: skip


ENCODER_FIELDS = frozenset(field.name for field in fields(ParagraphEncoderSettings))


@dataclass(frozen=True)
class ParagraphPointerSettings(ParagraphEncoderSettings, AttOrderNetSettings):
    """The encoder's settings and ATTOrderNet's paragraph encoder and decoder."""


@register_preset(
    "paragraph_listmle",
    sizes=dict(tiny=TINY),
    colour="#393b79",
    settings=ParagraphEncoderSettings,
    summary=Summary(
        sentences=(
            "all-MiniLM-L6-v2 (`encoder`) over the whole shuffled paragraph (`[CLS] s1 "
            "[SEP] s2 ...`), every layer fine-tuned, each sentence mean-pooled over its span"
        ),
        paragraph="the same encoder: the sentences attend to each other",
        decoder="a score per sentence trained with ListMLE, sorted",
        frozen_note="the unused pooler",
    ),
)
def paragraph_listmle(
    vocab_size: int | None = None,  # unused: the encoder has its own sub-word vocabulary
    pretrained_embeddings=None,  # unused, as vocab_size
    *,
    hidden_dim: int | None = None,  # the scorer MLP's width; None: the encoder's
    dropout: float = 0.1,  # on the sentence vectors before the scorer
    **encoder,  # ParagraphEncoderSettings
) -> OrderingModel:
    """Whole-paragraph pretrained encoder -> one score per sentence (an MLP), trained with
    ListMLE (the pointer loss of fixed step scores) and decoded by sorting."""
    from models.blocks.paragraph_identity import ParagraphIdentity
    from models.blocks.pointer_listwise import ListwiseScoreDecoder
    from models.ordering_model import OrderingModel

    sentences = ParagraphEncoderSettings(**encoder).paragraph_encoder()
    decoder = ListwiseScoreDecoder(sentences.output_dim, hidden_dim or sentences.output_dim,
                                   dropout)
    return OrderingModel(sentences, ParagraphIdentity(sentences.output_dim), decoder, None)


@register_preset(
    "paragraph_ptrnet",
    sizes=dict(tiny=dict(hidden_dim=16, paragraph_layers=1, ff_dim=24)),
    colour="#637939",
    settings=ParagraphPointerSettings,
    summary=Summary(
        sentences="as `paragraph_listmle`",
        paragraph="the same encoder, then as `attordernet` (the encoder's width, d_ff 512)",
        decoder="as `attordernet` (the encoder's width)",
    ),
)
def paragraph_ptrnet(
    vocab_size: int | None = None,  # unused: the encoder has its own sub-word vocabulary
    pretrained_embeddings=None,  # unused, as vocab_size
    *,
    hidden_dim: int | None = None,  # paragraph encoder width = decoder units; None: encoder's
    ff_dim: int = 512,  # paragraph feed-forward width
    **shared,  # ParagraphPointerSettings
) -> OrderingModel:
    """Whole-paragraph pretrained encoder -> ATTOrderNet's self-attention paragraph encoder
    (no positions) and LSTM pointer decoder at the encoder's width, decoded by beam
    search."""
    sentences = ParagraphEncoderSettings(
        **{k: v for k, v in shared.items() if k in ENCODER_FIELDS}).paragraph_encoder()
    settings = ParagraphPointerSettings(
        hidden_dim=hidden_dim or sentences.output_dim, ff_dim=ff_dim, **shared)
    return settings.model(None, sentences)


@register_preset(
    "paragraph_tsort",
    sizes=dict(tiny=TINY),
    colour="#843c39",
    pointer=False,
    settings=ParagraphEncoderSettings,
    summary=Summary(
        sentences="as `paragraph_listmle`",
        paragraph="the same encoder",
        decoder="an MLP classifies every ordered pair; topological sort",
    ),
)
def paragraph_tsort(
    vocab_size: int | None = None,  # unused: the encoder has its own sub-word vocabulary
    pretrained_embeddings=None,  # unused, as vocab_size
    *,
    hidden_dim: int | None = None,  # the pair classifier's width; None: the encoder's
    dropout: float = 0.1,  # sentence vectors and pair features
    decoder: str = "tsort",  # "tsort" (B-TSort) or "winsum" (summed win probabilities)
    cycle_rule: str = "dfs",  # tsort's cycle breaking: "dfs" (B-TSort's code), "confidence"
    pair_direction: str = "presented",  # one classification per pair (B-TSort's), or "both"
    **encoder,  # ParagraphEncoderSettings
) -> PairwiseOrderer:
    """Whole-paragraph pretrained encoder -> a classifier of ordered sentence pairs over the
    contextual sentence vectors, trained on every pair, decoded by a topological sort."""
    from models.blocks.pair_classifier import PairOrderClassifier
    from models.orderers.pairwise_orderer import PairwiseOrderer

    sentences = ParagraphEncoderSettings(**encoder).paragraph_encoder()
    classifier = PairOrderClassifier(sentences.output_dim, hidden_dim or sentences.output_dim,
                                     dropout)
    return PairwiseOrderer(sentences, classifier, None, decoder, cycle_rule, pair_direction)
