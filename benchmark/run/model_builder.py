"""The network of a run from its config, without Lightning: the model preset
(`cfg.model.net`), wrapped for the noise setting when `dataset.noise` is 1 or 0/1.

Only registered presets are built (`models.registry`): `model.net._target_` names the
preset's function, found in the registry (`benchmark.config.checks.net_preset`, which the
config check runs first); the other keys of `model.net` are its settings, objects among them
(`_target_` nodes) instantiated by Hydra.

In the noise setting every trainable model is wrapped in `models.noise.noise_wrapper`: END is
the GO slot of Wang and Wan's released code; `noise_model.count_bias` and
`noise_model.distractor_scorer` switch on our own mechanisms (docs/metrics.md, "Noise
robustness"). The random baseline is left unwrapped: it keeps every sentence.
"""

from __future__ import annotations

import torch
from hydra.utils import instantiate
from omegaconf import DictConfig

from benchmark.config.checks import ConfigError, net_preset
from benchmark.run.run_data import dataset_noise
from data.embeddings import pretrained_embeddings
from data.noise import has_noise
from data.vocab import UNK_ID, Vocab
from models.noise.noise_wrapper import NoiseWrapper
from models.registry import Preset

GO_TOKENS = (UNK_ID, UNK_ID)  # the GO sentence: our vocabularies have no GO and EOS words
NOISE_OPTIONS = ("count_bias", "distractor_scorer")  # keys of `noise_model`, off by default


def noise_options(cfg: DictConfig) -> dict[str, bool]:
    """`noise_model` of the config -> the wrapper's options (configs without it: all off).
    ValueError naming an unknown key."""
    given = dict(cfg.get("noise_model") or {})
    unknown = sorted(set(given) - set(NOISE_OPTIONS))
    if unknown:
        raise ValueError(
            f"config key noise_model.{unknown[0]} is unknown; known: {', '.join(NOISE_OPTIONS)}"
        )
    return {key: bool(given.get(key, False)) for key in NOISE_OPTIONS}


def word_vectors(cfg: DictConfig, vocab: Vocab) -> tuple[torch.Tensor | None, int]:
    """The model's initial word vectors for `vocab` (`cfg.model.embeddings`: kumo, a GloVe
    text file or null; `data.embeddings`) and how many vocabulary words had one; (None, 0)
    for a model without pretrained vectors. Rows of words without a vector are drawn from
    `cfg.seed`."""
    source = cfg.model.get("embeddings")
    if source is None:
        return None, 0
    return pretrained_embeddings(
        vocab, str(source), int(cfg.model.get("embedding_dim", 50)), int(cfg.seed)
    )


def build_model(cfg: DictConfig, vocab: Vocab) -> tuple[torch.nn.Module, int]:
    """(the model of `cfg` for `vocab`, with its word vectors; the number of vocabulary
    words that had a pretrained vector)."""
    vectors, found = word_vectors(cfg, vocab)
    return build_net(cfg, len(vocab), vectors), found


def configured_preset(cfg: DictConfig) -> Preset:
    """The registered preset `cfg.model.net._target_` names (its kind says whether the
    harness trains it); ConfigError for anything else."""
    return net_preset(cfg.model.net.get("_target_"))


def build_net(cfg: DictConfig, vocab_size: int, pretrained_embeddings) -> torch.nn.Module:
    """The registered preset `cfg.model.net` names, built with its settings, wrapped with
    the authors' END in the noise setting (a preset with nothing to train stays as it is);
    ConfigError for a `_target_` that is not a registered preset."""
    preset = configured_preset(cfg)
    settings = instantiate(cfg.model.net, _partial_=True).keywords  # nested objects built
    net = preset.build(
        **{**settings, "vocab_size": vocab_size, "pretrained_embeddings": pretrained_embeddings}
    )
    if not has_noise(dataset_noise(cfg)) or not preset.trainable:
        return net
    if not (hasattr(net, "encode") and hasattr(net, "decoder")):
        raise ConfigError(
            f"dataset.noise={cfg.dataset.noise}: model={cfg.model.name} has no pointer decoder "
            "to point at END (models/noise/noise_wrapper.py wraps models with encode() and a "
            "decoder)"
        )
    return NoiseWrapper(net, GO_TOKENS, first_word_id=UNK_ID + 1, **noise_options(cfg))
