"""A run's settings, read once from its checked config into a frozen `RunSpec` that the
stages read (docs/design.md, section 8): `benchmark.run.stages.run` turns the Hydra config
into a spec before anything is built, and `build`, `fit`, `evaluate` and `record` take the
spec, never the config. What is computed from several keys is computed here, once: the
noise setting, the preset, the config id, the thread count, the Trainer's precision on
this machine, the budget, the noise model's options.

The resolved config stays inside the spec, read-only (`config`), for the builders shared
with the other tools (`benchmark.run.run_data.build_datamodule`,
`benchmark.run.model_builder.build_model`: they instantiate Hydra nodes) and for the record,
which keeps it whole.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from omegaconf import DictConfig, OmegaConf

from benchmark.config.cpu_memory import DEFAULT as DEFAULT_CPU_MEMORY
from benchmark.config.identity import config_id
from benchmark.config.precision import resolve_precision
from benchmark.config.threads import resolve_threads
from benchmark.run.model_builder import configured_preset, noise_options
from benchmark.run.run_data import dataset_noise
from benchmark.training.console import is_verbose
from data.noise import has_noise, noise_label
from models.registry import Preset


@dataclass(frozen=True)
class RunSpec:
    """What the stages of one launch read (module docstring)."""

    config: DictConfig  # the resolved config, read-only
    config_id: str
    preset: Preset  # the registered preset of `model.net`
    noise: str  # "0", "1" or "0/1" (`dataset.noise`)
    noise_options: MappingProxyType  # the END wrapper's options (`noise_model`)
    dataset_name: str  # seeds the fixed presentation
    dataset_label: str  # the run's folder and report name, with its noise setting
    model_name: str
    variant: str
    seed: int
    protocol_seed: int
    cpu_memory: str  # how freed memory is kept (`benchmark.config.cpu_memory`)
    threads: int | None  # PyTorch threads (`cpu_threads` resolved); None: PyTorch's
    precision: Any  # `trainer.precision`, `auto` resolved here; None: Lightning's default
    accelerator: str | None
    deterministic: Any
    processes: int  # devices x nodes sharing an epoch
    accumulate: int  # batches per optimiser step
    max_epochs: int | None
    monitor: str  # the valid figure that selects the checkpoint
    patience: int | None  # early stopping; 0 or None: off
    max_time: Any  # a wall-clock limit, only on request
    val_beam_size: int
    beam_size: int
    include_trivial: bool
    bootstrap_resamples: int
    test_shuffles: int
    compile: bool
    cuda_graphs: bool
    evaluate_discrimination: bool
    keep_last_checkpoint: bool
    max_document_sentences: int | None
    verbose: bool
    min_freq: int | None
    embeddings: str | None

    @property
    def noisy(self) -> bool:
        return has_noise(self.noise)

    @property
    def budget(self) -> dict:
        """What bounds training: epochs or steps, early stopping and its metric, and a
        wall-clock limit if one was set (which makes figures depend on the machine)."""
        trainer = self.config.trainer
        return {"max_epochs": self.max_epochs, "max_steps": trainer.get("max_steps", -1),
                "patience": self.patience, "monitor": self.monitor, "max_time": self.max_time}


def read_spec(cfg: DictConfig) -> RunSpec:
    """The frozen spec of a checked config (`benchmark.config.checks.check_config` first)."""
    config = copy.deepcopy(cfg)  # its interpolations and resolvers kept
    OmegaConf.set_readonly(config, True)
    trainer = cfg.trainer
    devices, nodes = trainer.get("devices", 1), trainer.get("num_nodes", 1)
    noise = dataset_noise(cfg)
    return RunSpec(
        config=config,
        config_id=config_id(cfg),
        preset=configured_preset(cfg),
        noise=noise,
        noise_options=MappingProxyType(noise_options(cfg)),
        dataset_name=cfg.dataset.name,
        dataset_label=noise_label(cfg.dataset.label, noise),
        model_name=cfg.model.name,
        variant=cfg.variant,
        seed=int(cfg.seed),
        protocol_seed=int(cfg.protocol_seed),
        cpu_memory=cfg.get("cpu_memory", DEFAULT_CPU_MEMORY),  # a config older than the key
        threads=resolve_threads(cfg.get("cpu_threads")),
        precision=resolve_precision(trainer.get("accelerator"), trainer.get("precision")),
        accelerator=trainer.get("accelerator"),
        deterministic=trainer.get("deterministic"),
        processes=(devices if isinstance(devices, int) else 1) * (nodes or 1),
        accumulate=int(trainer.get("accumulate_grad_batches") or 1),
        max_epochs=trainer.get("max_epochs"),
        monitor=cfg.early_stopping.monitor,
        patience=cfg.early_stopping.patience,
        max_time=trainer.get("max_time"),
        val_beam_size=cfg.model.val_beam_size,
        beam_size=cfg.model.beam_size,
        include_trivial=bool(cfg.include_trivial),
        bootstrap_resamples=int(cfg.bootstrap_resamples),
        test_shuffles=int(cfg.get("test_shuffles", 1)),  # > 1: a pick on test, off by default
        compile=bool(cfg.get("compile", False)),
        cuda_graphs=bool(cfg.get("cuda_graphs", False)),
        evaluate_discrimination=bool(cfg.evaluate_discrimination),
        keep_last_checkpoint=bool(cfg.get("keep_last_checkpoint", False)),
        max_document_sentences=cfg.get("max_document_sentences"),
        verbose=is_verbose(cfg),
        min_freq=cfg.dataset.datamodule.get("min_freq"),
        embeddings=cfg.model.get("embeddings"),
    )
