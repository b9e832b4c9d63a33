"""A fine-tuned pretrained Transformer sentence encoder (by default all-MiniLM-L6-v2)
under ATTOrderNet's paragraph encoder and pointer decoder (Cui et al. 2018), in the
manner of the BERT-based orderers (Cui, Jiang, Li and Zhang 2020, BERSON)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.families.attordernet.settings import AttOrderNetSettings
from models.registry import Summary, register_preset

if TYPE_CHECKING:
    from torch import Tensor

    from models.blocks.pretrained import VectorStores
    from models.ordering_model import OrderingModel


@register_preset(
    "minilm_finetune",
    sizes=dict(tiny=dict(hidden_dim=16, paragraph_layers=1, ff_dim=24, train_layers=1)),
    colour="#17becf",
    order_free=True,
    settings=AttOrderNetSettings,
    summary=Summary(
        sentences=(
            "all-MiniLM-L6-v2 (`encoder`), top layer fine-tuned (`train_layers: 1`), "
            "mean-pooled"
        ),
        paragraph="as `attordernet`, the encoder's width",
        decoder="as `attordernet`, the encoder's width",
    ),
)
def minilm_finetune(
    vocab_size: int | None = None,  # unused: the encoder has its own sub-word vocabulary
    pretrained_embeddings: Tensor | None = None,  # unused, as vocab_size
    *,
    encoder: str | None = None,  # models.blocks.pretrained: a registered name or a folder
    train_layers: int | None = 1,  # top encoder layers that train; None: all (GPU setting)
    cache_frozen: bool = True,  # frozen layers' outputs computed once per sentence
    max_tokens: int = 128,  # sub-word tokens per sentence
    encoder_batch_size: int = 128,  # sentences per encoder pass (length-sorted chunks)
    encoder_store: VectorStores | None = None,  # frozen states kept across runs; None: not kept
    encoder_lr: float | None = 2e-5,  # the encoder's learning rate; None: the optimiser's
    warmup_steps: int = 0,  # linear warm-up of every learning rate, in optimiser steps
    hidden_dim: int | None = None,  # paragraph encoder width = decoder units; None: encoder's
    **shared,  # AttOrderNetSettings but paragraph_positions
) -> OrderingModel:
    """Sentence vectors = mean-pooled outputs of a pretrained Transformer whose top
    `train_layers` layers are fine-tuned with the ordering loss (at `encoder_lr`), the
    rest frozen and, with `cache_frozen`, run once per distinct sentence (and kept in
    `encoder_store` across runs); then
    ATTOrderNet's self-attention paragraph encoder and LSTM pointer decoder. Reads
    batch["texts"]; needs the optional `minilm` extra for the default encoder."""
    from models.blocks.sentence_transformer_finetuned import FineTunedSentenceEncoder

    if shared.get("paragraph_positions"):
        raise ValueError("minilm_finetune has no paragraph_positions option")
    sentence_encoder = FineTunedSentenceEncoder(
        encoder,
        train_layers=train_layers,
        cache_frozen=cache_frozen,
        max_tokens=max_tokens,
        batch_size=encoder_batch_size,
        learning_rate=encoder_lr,
        warmup_steps=warmup_steps,
        store=encoder_store,
    )
    settings = AttOrderNetSettings(hidden_dim=hidden_dim or sentence_encoder.output_dim, **shared)
    return settings.model(None, sentence_encoder)
