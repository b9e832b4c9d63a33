"""The rows of the study's pages, read from its sweeps (`conf/sweep/` of this folder), and
each row's label, written once for both pages.

A row is an experiment of a sweep's `+experiment` list (its preset and run tag from the
composed experiment; its runs are those of the page's budget, e.g. `repro_e100` + tag) or a
preset of a sweep's `model` list (its runs are those of that sweep's own `variant`, with the
sweep's `model.net.encoder` where it names one). A row whose preset is one of the paper's
models is set beside that model's published figure.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import yaml

from studies.cui2018.published import MODELS

SWEEPS = Path(__file__).resolve().parent / "conf" / "sweep"
ENCODER_KEY = "model.net.encoder"  # a sweep's pretrained encoder, where it names one

LABELS = {  # an experiment of a sweep, or a preset of a `model` list -> its row's label; the
    # paper-setting experiments of the paper's models take their names in Cui et al. (MODELS)
    "attordernet_released": "ATTOrderNet, released code",
    "lstm_ptrnet_cui": "LSTM+PtrNet, batch 16, beam 64",
    "cnn_ptrnet_cui": "CNN+PtrNet, batch 16, beam 64",
    "han_paper": "HAN (Wang and Wan 2019)",
    "preset_minilm_finetune": "MiniLM, top layer fine-tuned",
    "preset_pairwise_tsort": "pairwise + topological sort",
    "calibration_bow_position": "bag-of-words position (calibration)",
    "calibration_overlap_chain": "word-overlap chain (calibration, rule)",
    "paragraph_listmle": "pretrained paragraph encoder + ListMLE",
    "paragraph_ptrnet": "pretrained paragraph encoder + pointer",
    "paragraph_tsort": "pretrained paragraph encoder + topological sort",
}


@dataclass(frozen=True)
class Row:
    """One row of the tables: a preset at one setting (its run label ends with `tag`) and
    the preset whose published figure it is set beside (None: no published figure);
    `variant`: the row's own run variant, for a row of a sweep with a budget of its own
    (None: the page's variant + `tag`); `encoder`: the pretrained encoder its sweep names
    (None: the preset's own)."""

    label: str
    preset: str
    tag: str = ""
    paper: str | None = None
    variant: str | None = None
    encoder: str | None = None

    def run_variant(self, headline: str) -> str:
        """The variant of this row's runs on a page whose budget is `headline`."""
        return self.variant if self.variant is not None else headline + self.tag


def listed(value) -> list[str]:
    """A sweep parameter's comma-separated values."""
    return [name.strip() for name in str(value).split(",")]


@functools.cache
def sweep(name: str) -> dict:
    """The study's sweep `conf/sweep/<name>.yaml`, as its file says."""
    return yaml.safe_load((SWEEPS / f"{name}.yaml").read_text(encoding="utf-8"))


def sweep_params(name: str) -> dict:
    """The sweep's `hydra.sweeper.params`."""
    return sweep(name)["hydra"]["sweeper"]["params"]


@functools.cache
def experiment_rows(name: str) -> tuple[Row, ...]:
    """One row per experiment of the sweep's `+experiment` list, in its order."""
    from benchmark.config.compose import compose_config  # Hydra: only when rows are asked

    found = []
    for experiment in listed(sweep_params(name)["+experiment"]):
        cfg = compose_config([f"+experiment={experiment}"])
        preset, tag = str(cfg.model.name), str(cfg.get("variant_tag") or "")
        label = LABELS.get(experiment) or MODELS.get(preset, preset)
        found.append(Row(label, preset, tag, preset if preset in MODELS else None))
    return tuple(found)


@functools.cache
def preset_rows(name: str) -> tuple[Row, ...]:
    """One row per preset of the sweep's `model` list, in its order, at its own variant."""
    params = sweep_params(name)
    encoder = params.get(ENCODER_KEY)
    encoder = None if encoder is None else str(encoder)
    return tuple(Row(label(preset, encoder), preset, variant=str(sweep(name)["variant"]),
                     encoder=encoder)
                 for preset in listed(params["model"]))  # fmt: skip


def label(preset: str, encoder: str | None = None) -> str:
    """A preset row's label, with the model folder of its encoder where its sweep names one
    (a registered name, `models.blocks.pretrained.ENCODERS`, or the name as written)."""
    from models.blocks.pretrained import ENCODERS  # standard library only

    own = LABELS.get(preset, preset)
    if encoder is None:
        return own
    return f"{own}, {ENCODERS[encoder].folder if encoder in ENCODERS else encoder}"
