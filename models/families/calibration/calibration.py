"""Calibration baselines that need no neural network (docs/models.md, "Calibration
baselines"): what a table's figures mean next to a model that reads each sentence's words
alone (`bow_position`: a regression of the relative position, trained by the harness like
every preset) and a rule that learns nothing (`overlap_chain`: word overlap of neighbours)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.registry import Summary, register_preset

if TYPE_CHECKING:
    from torch import Tensor

    from models.orderers.overlap_chain import OverlapChain
    from models.orderers.position_regression import PositionRegressor


@register_preset(
    "bow_position",
    sizes=dict(tiny=dict(l2=1e-3), toy=dict(l2=0.0)),
    toy_lr=5e-2,
    colour="#c49c94",
    pointer=False,
    summary=Summary(
        sentences="bag of words (length-normalised counts)",
        paragraph="none",
        decoder="linear regression of the relative position, sorted",
        label="calibration",
        trainable_note="one weight per word and a bias",
    ),
)
def bow_position(
    vocab_size: int,
    pretrained_embeddings: Tensor | None = None,  # unused: a weight per word, not a vector
    *,
    l2: float = 1e-4,  # ridge penalty on the word weights
    pl_scale: float = 1.0,  # Plackett-Luce scores in predicted sentences (log_prob only)
    **_,  # the shared preset settings (hidden_dim, dropout ...) do not apply
) -> PositionRegressor:
    """Bag-of-words linear regression of k / (n - 1), squared error + L2, decoded by sorting
    the predicted positions; log_prob is a Plackett-Luce score over them
    (`models.orderers.position_regression`). Ours, a calibration baseline, not a published
    model."""
    from models.orderers.position_regression import PositionRegressor

    return PositionRegressor(vocab_size, l2=l2, pl_scale=pl_scale)


@register_preset(
    "overlap_chain",
    colour="#7f7f7f",
    kind="rule",
    pointer=False,
    summary=Summary(
        sentences="set of content words",
        paragraph="none",
        decoder="greedy chain of word overlap from the most central sentence (a rule)",
        label="calibration",
    ),
)
def overlap_chain(skip_top: int = 100, **_) -> OverlapChain:
    """Greedy chain of content-word overlap from the most central sentence, no learning
    (`models.orderers.overlap_chain`); other preset arguments are ignored. Ours, a calibration
    baseline; `skip_top` (the most frequent training words left out) is fixed a priori."""
    from models.orderers.overlap_chain import OverlapChain

    return OverlapChain(skip_top=skip_top)
