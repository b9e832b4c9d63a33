"""A run's data: its DataModule built from the config, and whether the data a finished
run's record was made on is still the data its config reads (docs/design.md, section 8).

A record's `identity.data.documents_sha256` is the digest of the documents the run was
trained and tested on. A skip of the finished run (`benchmark.run.plan.finished_with`) and
a new pass over its data (`orderbench evaluate`) compare it with the documents the config
reads now (`data_change`): the skip cheaply, from the processed-data cache's manifest where
it holds the digest (`OrderingDataModule.documents_sha256`). Records made before `identity`
existed have no digest and are not compared.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hydra.utils import instantiate
from omegaconf import DictConfig

from benchmark.records.comparability import data_of
from benchmark.records.run_record import RECORD_NAME
from benchmark.records.seal import SHOWN_DIGITS
from data.noise import noise_setting

if TYPE_CHECKING:  # Lightning is imported by the DataModule itself, when one is built
    import pytorch_lightning as pl


def dataset_noise(cfg: DictConfig) -> str:
    """The run's noise setting, "0", "1" or "0/1" (configs older than the option: "0")."""
    return noise_setting(cfg.dataset.get("noise", 0))


LIGHTNING_FORM = "data.datamodule.OrderingDataModule"  # the default `dataset.datamodule`
PLAIN_FORM = "data.ordering_data.OrderingData"  # the same data without Lightning's loaders


def build_datamodule(cfg: DictConfig, loaders: bool = True) -> pl.LightningDataModule:
    """The dataset's DataModule with the protocol seeds and the noise setting; with
    `loaders=False`, for a command that only reads the data, the default DataModule's plain
    form (no Lightning import)."""
    plain = not loaders and cfg.dataset.datamodule.get("_target_") == LIGHTNING_FORM
    return instantiate(
        cfg.dataset.datamodule,
        **({"_target_": PLAIN_FORM} if plain else {}),
        reader=instantiate(cfg.dataset.reader),
        seed=cfg.seed,
        protocol_seed=cfg.protocol_seed,
        noise=dataset_noise(cfg),
    )


def recorded_documents_sha256(record: dict) -> str | None:
    """The digest of the documents a finished run was made on (None: not recorded)."""
    return data_of(record)["documents"]


def data_change(run_dir: Path, record: dict, documents_sha256: str) -> str | None:
    """One line saying that the run's record was made on other documents than those of
    `documents_sha256`, or None (the same, or not recorded)."""
    recorded = recorded_documents_sha256(record)
    if recorded is None or recorded == documents_sha256:
        return None
    return (
        f"{Path(run_dir) / RECORD_NAME}: the run was made on other data (documents sha256 "
        f"{recorded[:SHOWN_DIGITS]}... in its record, {documents_sha256[:SHOWN_DIGITS]}... "
        "now): the dataset's files changed since"
    )
