"""What a run prints: a few lines a researcher reads, not the libraries' chatter.

By default (`verbose=false`) a run prints one line on its data and model, one line per
training epoch (`EpochLines`: epoch, mean train loss, the valid selection figure, time),
warnings, and a closing summary (`summary_lines`: the test figures with their bootstrap
intervals beside a random order of the same test presentation, and the run folder). The
libraries' console output is silenced (`quiet_libraries`): the W&B banner and summary,
Lightning's device lines, tips, model summary and progress bars, deprecation and
`PossibleUserWarning` warnings, its note that the LightningModule's
`on_before_batch_transfer` serves the DataModule's batches (by design: `models/batch.py`),
and the `[time][logger][LEVEL]` prefix of the job log.
`verbose=true` (or the environment variable `ORDERBENCH_VERBOSE=1`) leaves all of it as the
libraries print it. The run's `train.log` gets the full job log either way.

Epochs are counted from 1 everywhere (docs/design.md, section 8): epoch k is the k-th
training epoch, and its valid figures are those of the model after it.
"""

from __future__ import annotations

import logging
import math
import os
import time
import warnings
from collections.abc import Mapping
from pathlib import Path

import pytorch_lightning as pl
from pytorch_lightning.callbacks import Callback, RichProgressBar

from benchmark.config.resolvers import VALID_PREFIX
from benchmark.metrics.registry import HEADLINE

VERBOSE_ENV = "ORDERBENCH_VERBOSE"
# the libraries' loggers that print device lines, tips, checkpoint restores and seeds
LIBRARY_LOGGERS = ("pytorch_lightning", "lightning", "lightning_fabric", "lightning.pytorch",
                   "lightning.fabric")  # fmt: skip
# our own INFO lines that the data line of `data_line` says in short
FOLDED_LOGGERS = ("data.cache", "data.processing", "data.ordering_data", "data.embeddings")
# packages whose INFO lines reach the quiet console (others: warnings and errors only)
OWN_PACKAGES = ("benchmark", "data", "models", "hydra_plugins", "__main__")
SUMMARY_METRICS = (*HEADLINE, "disc_acc")
NOISE_METRICS = ("pm_f", "noise_acc")  # with distractors (dataset.noise), after tau, pmr, acc

log = logging.getLogger(__name__)


def is_verbose(cfg: Mapping | None = None) -> bool:
    """`verbose` of the config, or `ORDERBENCH_VERBOSE` set to anything but 0/false/no."""
    if cfg is not None and bool(cfg.get("verbose", False)):
        return True
    return os.environ.get(VERBOSE_ENV, "").strip().lower() not in ("", "0", "false", "no")


class ConsoleFormatter(logging.Formatter):
    """The message alone; warnings and errors say so."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        if record.levelno >= logging.ERROR:
            return f"error: {text}"
        if record.levelno >= logging.WARNING:
            return f"warning: {text}"
        return text


class QuietFilter(logging.Filter):
    """Warnings and errors of any logger; INFO of the project's own loggers, except those
    the data line already says (`FOLDED_LOGGERS`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING:
            return True
        name = record.name
        if any(name == f or name.startswith(f + ".") for f in FOLDED_LOGGERS):
            return False
        return any(name == p or name.startswith(p + ".") for p in OWN_PACKAGES)


def _console_handlers() -> list[logging.Handler]:
    return [
        handler for handler in logging.getLogger().handlers
        if isinstance(handler, logging.StreamHandler)
        and not isinstance(handler, logging.FileHandler)
    ]  # fmt: skip


def quiet_libraries(verbose: bool, wandb: bool = False) -> None:
    """Silence the libraries' console output unless `verbose` (see the module docstring).
    Call it before W&B and the Trainer start; the job log's file handlers are untouched.
    `wandb`: the run logs to W&B (its terminal output is silenced from now on)."""
    if verbose:
        return
    os.environ.setdefault("WANDB_SILENT", "true")  # banner, advert and closing summary
    if wandb:
        _silence_wandb_now()
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    for category in (DeprecationWarning, FutureWarning):
        warnings.filterwarnings("ignore", category=category)
    try:
        from pytorch_lightning.utilities.warnings import PossibleUserWarning
    except ImportError:  # pragma: no cover - an older Lightning
        PossibleUserWarning = UserWarning  # noqa: N806
    warnings.filterwarnings("ignore", category=PossibleUserWarning)
    # the batch's host side is the LightningModule's hook by design (models/batch.py)
    warnings.filterwarnings("ignore", message=r"You have overridden `on_before_batch_transfer`")
    for handler in _console_handlers():
        handler.setFormatter(ConsoleFormatter("%(message)s"))
        if not any(isinstance(f, QuietFilter) for f in handler.filters):
            handler.addFilter(QuietFilter())


def _silence_wandb_now() -> None:
    """W&B reads `WANDB_SILENT` only in `wandb.init`; Lightning's logger builds W&B settings
    before that, and W&B warns then (about its `anonymous` setting) unless already told."""
    try:
        import wandb
        from wandb.errors import term
    except ImportError:  # no W&B: nothing to silence
        return
    term.termsetup(wandb.Settings(silent=True), None)


def uses_wandb(logger_cfgs: Mapping | None) -> bool:
    """Whether the config's loggers (`cfg.logger`) include W&B's."""
    return any(
        "wandb" in str((logger or {}).get("_target_", "")).lower()
        for logger in (logger_cfgs or {}).values()
    )


def data_line(name: str, label: str, stats: Mapping, min_freq, embeddings) -> str:
    """One line on the data a run trains on: its name (and the label it is filed under,
    where that differs), documents per split, vocabulary."""
    docs = stats.get("n_docs", {})
    counts = " / ".join(f"{docs.get(split, 0):,}" for split in ("train", "valid", "test"))
    filed = f" (filed as {label})" if label != name else ""
    line = f"data {name}{filed}: {counts} documents (train / valid / test)"
    if stats.get("vocab_size"):
        line += f", vocabulary {stats['vocab_size']:,} words"
        if min_freq is not None:
            line += f" (min_freq {min_freq}, with <pad> and <unk>)"
        if embeddings and stats.get("n_pretrained_found") is not None:
            line += f", {stats['n_pretrained_found']:,} with {embeddings} vectors"
    return line


def model_line(name: str, n_params: int, max_epochs, monitor: str, patience,
               steps_per_epoch: int | None) -> str:
    """One line on the model and its budget."""
    size = f"{n_params / 1e6:.1f}M" if n_params >= 1e5 else f"{n_params:,}"
    line = f"model {name}: {size} parameters"
    if steps_per_epoch is None:
        return line + ", nothing to train"
    stop = f" with early stopping (patience {patience})" if patience else ""
    steps = f"{steps_per_epoch:,} step{'s' if steps_per_epoch != 1 else ''}"
    epochs = f"{max_epochs} epoch{'s' if max_epochs != 1 else ''}"
    return f"{line}, up to {epochs} of {steps}, selected on {monitor}{stop}"


def _figure(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    text = f"{value:.4f}"
    return "0.0000" if text == "-0.0000" else text  # a figure rounded to zero has no sign


class EpochLines(Callback):
    """One console line per training epoch: `epoch 3/8  train loss 1.234  valid tau
    0.3175 (best)  11 s`. The loss is the mean over the epoch's optimiser steps; `(best)`
    marks a new best of the selection figure `monitor` (higher is better)."""

    def __init__(self, monitor: str) -> None:
        self.monitor = monitor
        self.best: float | None = None
        self._loss_sum, self._batches, self._started = 0.0, 0, 0.0

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        for callback in trainer.checkpoint_callbacks:  # a resumed run: the best so far
            score = getattr(callback, "best_model_score", None)
            if getattr(callback, "monitor", None) == self.monitor and score is not None:
                self.best = float(score)

    def on_train_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._loss_sum, self._batches, self._started = 0.0, 0, time.monotonic()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        loss = outputs.get("loss") if isinstance(outputs, Mapping) else outputs
        if loss is not None:
            self._loss_sum += float(loss.detach())
            self._batches += 1

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if not trainer.is_global_zero:
            return
        epoch = trainer.current_epoch + 1  # counted from 1
        loss = self._loss_sum / self._batches if self._batches else math.nan
        value = trainer.callback_metrics.get(self.monitor)
        value = float(value) if value is not None else None
        mark = ""
        if value is not None and not math.isnan(value) and (self.best is None or value > self.best):
            self.best, mark = value, " (best)"
        metric = self.monitor.removeprefix(f"{VALID_PREFIX}/")
        total = trainer.max_epochs if trainer.max_epochs not in (None, -1) else "?"
        log.info("epoch %d/%s  train loss %.4f  valid %s %s%s  %.0f s", epoch, total, loss,
                 metric, _figure(value), mark, time.monotonic() - self._started)


class EpochBar(RichProgressBar):
    """Lightning's progress bar (`verbose=true`), its epochs counted from 1 like the rest."""

    def _get_train_description(self, current_epoch: int) -> str:
        text = f"Epoch {current_epoch + 1}"
        if self.trainer.max_epochs not in (None, -1):
            text += f"/{self.trainer.max_epochs}"
        return f"{text:{len(self.validation_description)}}"


PROGRESS_SECONDS = 30.0  # a pass over a split that takes longer says how far it is


class PassProgress:
    """How far a long pass over a split is, one line at most every `PROGRESS_SECONDS`:
    `decoding test: 12 of 40 batches (30%), 65 s`, handed to `emit` (the console log by
    default); a pass shorter than that says nothing. `clock` gives the time in seconds."""

    def __init__(self, what: str, total: int | None, emit=None, clock=time.monotonic) -> None:
        self.what, self.total, self.clock = what, total, clock
        self.emit = emit or log.info
        self.started = self.said = clock()

    def step(self, done: int) -> None:
        """`done` batches of the pass are finished."""
        now = self.clock()
        if now - self.said < PROGRESS_SECONDS:
            return
        self.said = now
        share = f" ({100 * done / self.total:.0f}%)" if self.total else ""
        of = f" of {self.total}" if self.total else ""
        self.emit(f"{self.what}: {done}{of} batches{share}, {now - self.started:.0f} s")


class DecodingProgress(Callback):
    """`PassProgress` of the valid and test decoding of a run, whose progress bars are off
    on the quiet console: a test split of long documents takes minutes."""

    def __init__(self) -> None:
        self.progress: PassProgress | None = None

    @staticmethod
    def _total(batches) -> int | None:
        total = sum(batches) if isinstance(batches, (list, tuple)) else batches
        return int(total) if isinstance(total, (int, float)) and math.isfinite(total) else None

    def on_validation_epoch_start(self, trainer: pl.Trainer, pl_module) -> None:
        self.progress = PassProgress("decoding valid", self._total(trainer.num_val_batches))

    def on_test_epoch_start(self, trainer: pl.Trainer, pl_module) -> None:
        self.progress = PassProgress("decoding test", self._total(trainer.num_test_batches))

    def _step(self, trainer: pl.Trainer, batch_idx: int) -> None:
        if self.progress is not None and trainer.is_global_zero:
            self.progress.step(batch_idx + 1)

    def on_validation_batch_end(self, trainer, pl_module, outputs, batch, batch_idx,
                                dataloader_idx: int = 0) -> None:  # fmt: skip
        self._step(trainer, batch_idx)

    def on_test_batch_end(self, trainer, pl_module, outputs, batch, batch_idx,
                          dataloader_idx: int = 0) -> None:  # fmt: skip
        self._step(trainer, batch_idx)


def progress_bars(verbose: bool, enabled: bool) -> list[Callback]:
    """The progress callback to add to a Trainer: Lightning's bar (from 1) when `verbose` and
    the bar is `enabled` and rich is installed; else the lines of a long decoding pass
    (`DecodingProgress`)."""
    if not (verbose and enabled):
        return [DecodingProgress()]
    try:
        import rich  # noqa: F401
    except ImportError:  # Lightning's own text bar then, counting from 0
        return []
    return [EpochBar()]


def _interval(ci: Mapping | None) -> str:
    if not ci or ci.get("ci_low") is None or ci.get("ci_high") is None:
        return ""
    return f"[{ci['ci_low']:.4f}, {ci['ci_high']:.4f}]"


def shown_path(path: Path | str) -> str:
    """`path` relative to the working directory when it lies inside it."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def summary_lines(record: Mapping, run_dir: Path | str) -> list[str]:
    """The closing block of a run: what was selected, the test figures with their 95%
    bootstrap intervals (`ci.test`) beside the random order of the same test presentation
    (`random_baseline`), and the run folder."""
    lines = []
    test = (record.get("split") or {}).get("test") or {}
    ci = (record.get("ci") or {}).get("test") or {}
    valid = (record.get("split") or {}).get("valid") or {}
    config = record.get("config") or {}
    monitor = str(((config.get("early_stopping") or {}).get("monitor")) or f"{VALID_PREFIX}/tau")
    selected = monitor.removeprefix(f"{VALID_PREFIX}/")
    if record.get("stopped_by") == "untrained":
        lines.append(f"untrained ({record.get('model')}): valid {selected} "
                     f"{_figure(valid.get(selected))}")  # fmt: skip
    else:
        minutes, seconds = divmod(round(record.get("train_seconds") or 0), 60)
        lines.append(
            f"selected epoch {record.get('best_epoch')} of {record.get('epochs')} "
            f"({record.get('stopped_by')}): valid {selected} {_figure(valid.get(selected))}; "
            f"trained {minutes} min {seconds:02d} s, {record.get('steps', 0):,} steps"
        )
    beam = (record.get("protocol") or {}).get("test_beam_size")
    baseline = record.get("random_baseline") or {}
    base_figures, base_ci = baseline.get("figures") or {}, baseline.get("ci") or {}
    head = f"test: {test.get('n_docs', 0):,} documents" + (f", beam {beam}" if beam else "")
    right = "random order, same presentation" if baseline else ""
    lines.append(f"{head:<32} {'value':>7}  {'95% CI':<18}  {right}".rstrip())
    shown = list(SUMMARY_METRICS)
    if "noise_acc" in test:
        shown[3:3] = NOISE_METRICS
    for metric in shown:
        if metric not in test:
            continue
        other = ""
        if metric in base_figures:
            other = f"{_figure(base_figures[metric]):>7}  {_interval(base_ci.get(metric))}"
        lines.append(f"  {metric:<30} {_figure(test[metric]):>7}  "
                     f"{_interval(ci.get(metric)):<18}  {other}".rstrip())  # fmt: skip
    if record.get("model") == "random":
        lines.append("  (this run is the random baseline)")
    elif not baseline and "noise_acc" not in test:
        lines.append("  (a record made before runs measured the random baseline: "
                     "rerun=true measures it)")
    lines.append(f"run folder: {shown_path(run_dir)}")
    return lines
