"""The one loader of a trained run: its model rebuilt from its run folder, to order new
sentences (`orderbench predict`) or to score a split again (`orderbench evaluate`).

A run folder (docs/design.md, section 8) holds everything needed: the config (the
`config` of `metrics.json` once the run finished, else `.hydra/config.yaml`), the
checkpoint selected on valid (`checkpoints/best.ckpt`; a model with nothing to train, such
as `random`, needs none) and the word vocabulary, read from `vocab.json` when the run saved
one, else rebuilt from the config through the dataset's DataModule (the processed-data
cache makes this cheap). Sentences are tokenised and batched exactly as in training
(`data.tokenize`, `data.collate`); `FinishedRun.datamodule` rebuilds the run's data with
its protocol for a new pass over a split.

A finished run's record is checked before anything of the run is trusted
(`benchmark.records.seal`): its figures, its config and the files the model is loaded from
(`vocab.json` and the checkpoint) as sealed when the run finished; a vocabulary rebuilt
because `vocab.json` is gone must be the sealed one; the data of a new pass must be the
documents the run was made on (`benchmark.run.run_data.data_change`). Any difference is a
`RunError` naming the file and what differs.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import torch
from hydra.errors import InstantiationException
from omegaconf import DictConfig, OmegaConf
from torch import nn

from benchmark.config.checks import ConfigError
from benchmark.records.run_record import RECORD_NAME, SELECTED_CHECKPOINT, VOCAB_NAME
from benchmark.records.seal import read_verified_record, sealed_digest, text_sha256
from benchmark.run.model_builder import build_net, configured_preset
from benchmark.run.plan import RETRAIN
from benchmark.run.run_data import build_datamodule, data_change
from benchmark.training.checkpoint_file import DamagedCheckpointError, load_checkpoint
from data.collate import collate
from data.example import make_example
from data.tokenize import DEFAULT_TOKENIZER, tokenizer_named
from data.vocab import UNK_ID, Vocab

CONFIG_PATH = Path(".hydra") / "config.yaml"
CHECKPOINT_PATH = Path(SELECTED_CHECKPOINT)
NET_PREFIX = "net."  # the LightningModule's attribute holding the model


class RunError(ValueError):
    """A run directory cannot give a usable model (missing, unfinished, inconsistent)."""


@dataclass
class FinishedRun:
    """A trained ordering model with the vocabulary and settings it was trained with."""

    config: DictConfig
    net: nn.Module
    vocab: Vocab
    max_tokens: int  # sentences are truncated to this many tokens, as in training
    run_dir: Path
    record: dict | None = None  # its verified record (None: the run has not finished)

    def datamodule(self, stage: str = "test", protocol_seed: int | None = None):
        """The run's DataModule (its data, protocol seeds and noise setting), set up; the
        documents must be those the run was made on. With `protocol_seed`, valid and test
        are presented as that protocol seed presents them."""
        config = self.config
        if protocol_seed is not None:
            config = OmegaConf.merge(config, {"protocol_seed": protocol_seed})
        try:
            datamodule = build_datamodule(config)
            datamodule.setup(stage)
        except (InstantiationException, OSError, ValueError) as error:
            raise RunError(f"{self.run_dir}: cannot rebuild the run's data: {error}") from None
        if self.record is not None and (
            change := data_change(self.run_dir, self.record, datamodule.documents_sha256())
        ):
            raise RunError(f"{change}; its figures cannot be computed again")
        return datamodule

    @cached_property
    def tokenize(self) -> Callable[[str], list[str]]:
        """The run's tokenizer (`dataset.datamodule.tokenizer`; runs stored before the key
        existed used the default), looked up once."""
        return tokenizer_named(self.config.dataset.datamodule.get("tokenizer", DEFAULT_TOKENIZER))

    @property
    def default_beam_size(self) -> int:
        """The beam width the run used on test."""
        return int(self.config.model.beam_size)

    def unknown_words(self, sentences: list[str]) -> tuple[list[str], int]:
        """(the words of `sentences` not in the vocabulary, one entry per occurrence, in
        order; the number of words), as the model reads them (`data.tokenize`)."""
        tokens = [token for sentence in sentences for token in self.tokenize(sentence)]
        ids = self.vocab.encode(tokens)
        return [token for token, i in zip(tokens, ids, strict=True) if i == UNK_ID], len(ids)

    @torch.no_grad()
    def order(self, sentences: list[str], beam_size: int | None = None) -> list[int]:
        """The predicted order of `sentences`, as indices into the list (a model trained
        with distractors, `dataset.noise`, may leave some out)."""
        if not sentences:
            raise ValueError("nothing to order: no sentences")
        token_ids = [self.vocab.encode(self.tokenize(sentence)) for sentence in sentences]
        presented = list(range(len(sentences)))  # sentences as given; ids only label them
        example = make_example("input", token_ids, presented, self.max_tokens, sentences)
        batch = collate([example])  # texts included, for encoders that read raw text
        beam = self.default_beam_size if beam_size is None else beam_size
        orders = self.net.decode(batch, beam_size=beam)  # (1, N) presented indices
        return [j for j in orders[0, : len(sentences)].tolist() if j >= 0]




def _reason(error: BaseException) -> str:
    """The first sentence of an error's message (its type when it has none): torch's
    goes on for lines about what may have damaged the file."""
    text = str(error).strip()
    return text.splitlines()[0].split(". ")[0] if text else type(error).__name__


def load_weights(checkpoint: Path) -> dict:
    """The `state_dict` of `checkpoint` (loaded with `weights_only=True`); RunError naming
    the file when it cannot be read (truncated, not a checkpoint, unsafe)."""
    try:
        state = load_checkpoint(checkpoint)
    except DamagedCheckpointError as error:
        raise RunError(f"{_reason(error)}; {RETRAIN}") from None
    if "state_dict" not in state:
        raise RunError(f"{checkpoint}: not a training checkpoint (no state_dict); {RETRAIN}")
    return state["state_dict"]


def damaged_checkpoint(run_dir: Path) -> str | None:
    """What is wrong with a run's `checkpoints/best.ckpt`, seen without loading the
    weights (its zip directory is checked: a truncated file has none), or None when it is
    intact or absent (a model with nothing to train has none)."""
    checkpoint = Path(run_dir) / CHECKPOINT_PATH
    if not checkpoint.is_file():
        return None
    try:
        with zipfile.ZipFile(checkpoint) as archive:
            if not any(name.endswith("/data.pkl") for name in archive.namelist()):
                raise zipfile.BadZipFile("no data.pkl in it")
    except (OSError, zipfile.BadZipFile) as error:
        return f"{checkpoint}: damaged checkpoint ({_reason(error)})"
    return None


def finished_record(run_dir: Path) -> dict | None:
    """The run's record, verified with the files its model is loaded from (`vocab.json`
    and the checkpoint: `benchmark.records.seal.read_verified_record`); None before the run
    finished. RunError naming the file and what differs."""
    if not (run_dir / RECORD_NAME).is_file():
        return None
    try:
        return read_verified_record(run_dir, [VOCAB_NAME, SELECTED_CHECKPOINT])
    except (OSError, ValueError) as error:  # unreadable, malformed or untrusted
        raise RunError(str(error)) from None


def run_config(run_dir: Path, record: dict | None) -> DictConfig:
    """The config of the run's record when it finished (the one its model was selected
    with; a refused or later launch may have rewritten `.hydra/`), else of its last launch
    (`.hydra/config.yaml`)."""
    if record is not None and isinstance(record.get("config"), dict):
        return OmegaConf.create(record["config"])
    if (run_dir / CONFIG_PATH).is_file():
        return OmegaConf.load(run_dir / CONFIG_PATH)
    raise RunError(f"{run_dir}: not a run directory (no {CONFIG_PATH} and no {RECORD_NAME})")


def _load_vocab(run_dir: Path, config: DictConfig, record: dict | None) -> Vocab:
    """`vocab.json`, else the vocabulary rebuilt from the run's dataset, which must be the
    one a sealed record names."""
    if (run_dir / VOCAB_NAME).is_file():
        try:
            return Vocab.load(run_dir / VOCAB_NAME)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise RunError(
                f"{run_dir / VOCAB_NAME}: damaged vocabulary ({_reason(error)}); delete it "
                "to rebuild it from the run's dataset"
            ) from None
    try:
        datamodule = build_datamodule(config)
        datamodule.setup()
    except (InstantiationException, OSError, ValueError) as error:
        raise RunError(
            f"{run_dir}: no {VOCAB_NAME}, and the vocabulary cannot be rebuilt from the run's "
            f"dataset: {error}"
        ) from None
    sealed = sealed_digest(record or {}, VOCAB_NAME)
    if sealed is not None and text_sha256(datamodule.vocab.to_json()) != sealed:
        raise RunError(
            f"{run_dir}: no {VOCAB_NAME}, and the vocabulary rebuilt from the run's dataset "
            f"is not the one sealed in {RECORD_NAME} (the dataset changed since the run)"
        )
    return datamodule.vocab


def _load_net(run_dir: Path, config: DictConfig, vocab: Vocab) -> nn.Module:
    """The run's model with the weights of its selected checkpoint (a model with nothing
    to train has none and needs none)."""
    # A stand-in of the trained width when the run used word vectors, so the model is built
    # exactly as in training; the checkpoint overwrites it.
    pretrained = (
        torch.zeros(len(vocab), int(config.model.embedding_dim))
        if config.model.get("embeddings")
        else None
    )
    try:
        net = build_net(config, len(vocab), pretrained)
        trainable = configured_preset(config).trainable
    except ConfigError as error:  # e.g. a record made before its preset's module moved
        raise RunError(f"{run_dir}: its config no longer builds a model: {error}") from None
    if not trainable:
        return net.eval()
    checkpoint = run_dir / CHECKPOINT_PATH
    if not checkpoint.is_file():
        raise RunError(
            f"{run_dir}: no checkpoint ({CHECKPOINT_PATH}): the run has not saved a model "
            "yet, or it is an archived record (`orderbench archive` keeps none)"
        )
    state = load_weights(checkpoint)
    weights = {k[len(NET_PREFIX) :]: v for k, v in state.items() if k.startswith(NET_PREFIX)}
    try:
        net.load_state_dict(weights)
    except RuntimeError as error:
        first = str(error).strip().splitlines()[0]
        raise RunError(
            f"{checkpoint}: does not fit the run's config and vocabulary: {first}"
        ) from None
    return net.eval()


def load_finished_run(run_dir: str | Path, finished: bool = False) -> FinishedRun:
    """The model of `run_dir`; with `finished`, the run must have its record (a split is
    scored again only for a finished run). RunError says what is missing."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunError(f"{run_dir}: no such run directory")
    if finished and not (run_dir / RECORD_NAME).is_file():
        raise RunError(f"{run_dir}: no {RECORD_NAME}: the run has not finished")
    record = finished_record(run_dir)
    config = run_config(run_dir, record)
    vocab = _load_vocab(run_dir, config, record)
    net = _load_net(run_dir, config, vocab)
    return FinishedRun(
        config, net, vocab, int(config.dataset.datamodule.max_sentence_tokens), run_dir, record
    )
