"""The run configuration, checked before any data is read or any epoch is trained.

- types and ranges of the settings a run depends on (`SETTINGS`, the one table of them:
  epochs, beams, seeds, batch sizes, the DataModule's and the optimiser's settings, the
  reader's options ...): every key a constructor of the run would check (Lightning's,
  PyTorch's optimisers', the DataModule's, the vocabulary's, the reader's) is checked here
  first. A value given on the command line arrives as whatever YAML makes of it
  (`seed=abc` is the string "abc"), so each is checked here rather than failing as a
  traceback somewhere in training, or after it;
- keys added with `+` (or `++`) that nothing reads: a `+key=value` of a node that is not
  in the composed config without it (`+model.optimzer.lr=0.1`), or an argument that the
  node's `_target_` does not take (for `model.net`: not among its preset's settings). A
  `+group=option` is a config group the run chose (Hydra's `hydra.runtime.choices`), also
  one from a folder on the command line's `hydra.searchpath`; that search path is handed on
  to the second composition (`searchpath_overrides`);
- `run_setting_problems`: seeds below 2**32, a GPU trainer only where PyTorch sees a GPU,
  `variant` one folder name, `model.net._target_` a registered preset (the harness builds
  no other: `net_preset`) and its settings of the types and within the ranges that preset
  declares (`models.registry.preset_settings`, the ranges in `models.hyperparameters`),
  the published permutations' folder and the word vectors' file, all met later otherwise;
- `selection_problems`: `early_stopping.monitor` must be a valid figure the run logs and
  that is better when higher (the checkpoint with the highest value is kept): selection on
  test, or on a key nothing logs, would fail after an epoch or select on test.
The checks of the data once it is loaded are `benchmark.run.data_checks`.

Every problem is one line naming the key (or dataset and split); `ConfigError` holds them.
"""

from __future__ import annotations

import difflib
import inspect
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import InstantiationException
from hydra.utils import get_object, instantiate
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from benchmark.config.cpu_memory import SETTINGS as CPU_MEMORY_SETTINGS
from benchmark.config.resolvers import GPU_ACCELERATORS, VALID_PREFIX
from benchmark.config.run_path import path_problems
from benchmark.config.threads import AUTO, thread_count_problem
from benchmark.metrics.corpus import corpus_metric_keys
from benchmark.metrics.directions import HIGHER, direction
from data.bucketing import BUCKET_KEYS
from data.errors import DataFormatError
from data.noise import has_noise, noise_setting
from data.splits import SPLIT_NAMES
from data.tokenize import tokenizer_named
from models.hyperparameters import setting_problems
from models.registry import Preset, preset_names, preset_of, preset_settings

_ABSENT = object()


@dataclass(frozen=True)
class Check:
    """A row of SETTINGS that a type and a lower bound cannot say: `problem(value)` is what
    is wrong with a value (the line after the key), None when it is good; null passes
    when `nullable`."""

    problem: Callable[[object], str | None]
    nullable: bool = False


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not (
        isinstance(value, float) and math.isnan(value))


def _rate(closed: bool) -> Check:
    """A number in [0, 1] (`closed`) or [0, 1)."""
    bound = "1]" if closed else "1)"

    def problem(value) -> str | None:
        if _is_number(value) and 0 <= value and (value <= 1 if closed else value < 1):
            return None
        return f"expected a number in [0, {bound}, got {value!r}"

    return Check(problem)


def _betas(value) -> str | None:
    """Adam's (beta1, beta2): two numbers in [0, 1)."""
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2 \
            and all(_is_number(v) and 0 <= v < 1 for v in value):
        return None
    shown = list(value) if isinstance(value, Sequence) and not isinstance(value, str) else value
    return f"expected two numbers in [0, 1), got {shown!r}"


def _split_names(value) -> str | None:
    """`vocab_splits`: one or more of the dataset's splits (`data.processing`)."""
    if isinstance(value, Sequence) and not isinstance(value, str) and value and all(
            split in SPLIT_NAMES for split in value):
        return None
    shown = list(value) if isinstance(value, Sequence) and not isinstance(value, str) else value
    return f"expected a non-empty list of {', '.join(SPLIT_NAMES)}, got {shown!r}"


def _choice(choices: Sequence[str]) -> Check:
    """One of `choices`."""

    def problem(value) -> str | None:
        return None if value in choices else f"must be one of {', '.join(choices)}, got {value!r}"

    return Check(problem)


def _reader(node) -> str | None:
    """The reader's own checks of its options (its constructor reads no data): what it
    refuses (ValueError), else None; an argument it does not take is said by
    `key_problems`, data it cannot find when it reads."""
    if not isinstance(node, DictConfig) or "_target_" not in node:
        return None
    try:
        instantiate(node)
    except InstantiationException as error:
        cause = error.__cause__
        if isinstance(cause, ValueError) and not isinstance(cause, DataFormatError):
            return str(cause).splitlines()[0]
    except Exception:  # whatever else is said where the reader is used
        return None
    return None


# key: (kind, lower bound, null allowed), kinds int, number, bool; or a Check
SETTINGS = {
    "seed": ("int", 0, False),
    "protocol_seed": ("int", 0, False),
    "trainer.max_epochs": ("int", 1, False),  # budgets are in epochs (docs/design.md, section 5)
    "trainer.min_epochs": ("int", 0, True),
    "trainer.log_every_n_steps": ("int", 1, True),
    "trainer.gradient_clip_val": ("number", 0, True),
    "model.beam_size": ("int", 1, False),
    "model.val_beam_size": ("int", 1, False),
    "model.batch_size": ("int", 1, False),
    "model.embedding_dim": ("int", 1, True),
    "dataset.datamodule.batch_size": ("int", 1, False),
    "dataset.datamodule.eval_batch_size": ("int", 1, False),
    "bootstrap_resamples": ("int", 1, False),
    "test_shuffles": ("int", 1, False),
    "cpu_threads": ("int", 1, True),
    "cpu_memory": _choice(CPU_MEMORY_SETTINGS),
    "max_document_sentences": ("int", 2, True),
    "compile": ("bool", None, False),
    "cuda_graphs": ("bool", None, False),
    "early_stopping.patience": ("int", 0, True),
    "model.optimizer.lr": ("number", 0, False),  # inf is let through: the NaN guard stops it
    # what PyTorch's optimisers check when they are made (Adam, AdamW, Adadelta, Adagrad, SGD)
    "model.optimizer.weight_decay": ("number", 0, False),
    "model.optimizer.eps": ("number", 0, False),
    "model.optimizer.betas": Check(_betas),
    "model.optimizer.rho": _rate(closed=True),
    "model.optimizer.momentum": ("number", 0, False),
    "model.optimizer.lr_decay": ("number", 0, False),
    "model.optimizer.initial_accumulator_value": ("number", 0, False),
    # what the DataModule, its vocabulary and its loaders check (data/)
    "dataset.datamodule.min_freq": ("int", 1, False),
    "dataset.datamodule.max_vocab": ("int", 2, True),  # room for <pad> and <unk>
    "dataset.datamodule.max_sentence_tokens": ("int", 1, False),
    "dataset.datamodule.num_workers": ("int", 0, False),
    "dataset.datamodule.drop_last": ("bool", None, False),
    "dataset.datamodule.vocab_splits": Check(_split_names),
    "dataset.datamodule.bucket_by": _choice(BUCKET_KEYS),
    "dataset.reader": Check(_reader),
    # what Lightning's Trainer checks
    "trainer.accumulate_grad_batches": ("int", 1, False),
    "trainer.check_val_every_n_epoch": ("int", 1, True),
    "trainer.max_steps": ("int", -1, False),  # -1: no limit
    "trainer.num_sanity_val_steps": ("int", -1, False),  # -1: all
    "include_trivial": ("bool", None, False),
    "evaluate_discrimination": ("bool", None, False),
    "rerun": ("bool", None, False),
    "keep_last_checkpoint": ("bool", None, False),
    "verbose": ("bool", None, False),
}
# keys that code reads with `.get` and a config may lack (a `+` override may add them)
OPTIONAL_KEYS = frozenset({
    "cpu_threads", "cpu_memory", "compile", "cuda_graphs", "rerun", "keep_last_checkpoint",
    "dataset.noise",
    "model.embeddings", "max_document_sentences", "model.embedding_dim", "model.optimizer",
    "model.scheduler",
    "test_shuffles", "variant_tag", "verbose",
})
_OPTIMIZER = "model.optimizer."  # its settings are checked only when there is an optimizer
_HYDRA_ARGS = frozenset({"_target_", "_partial_", "_args_", "_recursive_", "_convert_"})
NODE_REFERENCE = re.compile(r"\$\{[^${}:]+\}")  # `${model.embedding_dim}`: another key's value


class ConfigError(ValueError):
    """A setting that cannot work; one line per problem, each naming its key."""


def _value_problem(key: str, value, rule) -> str | None:
    """What is wrong with `value` for the SETTINGS row `rule` of `key`, said with the key."""
    if isinstance(rule, Check):
        if value is None:
            return None if rule.nullable else f"{key}: must be set, got null"
        problem = rule.problem(value)
        return f"{key}: {problem}" if problem else None
    kind, low, nullable = rule
    if value is None:
        return None if nullable else f"{key}: must be set, got null"
    expected = {"int": "an integer", "number": "a number", "bool": "true or false"}[kind]
    if kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = _is_number(value)
    if ok and low is not None and value < low:
        ok = False
    if ok:
        return None
    bound = f" >= {low}" if low is not None else ""
    return f"{key}: expected {expected}{bound}, got {value!r}"


def _select(cfg: DictConfig, key: str):
    return OmegaConf.select(cfg, key, default=_ABSENT, throw_on_missing=False)


def _interpolated(cfg: DictConfig, key: str) -> bool:
    """Whether `key` takes its value from another key, `${other.key}` (checked there, not
    twice); a resolver's value (`${preset_default:}`) is one of its own, checked here."""
    parent, _, leaf = key.rpartition(".")
    node = _select(cfg, parent) if parent else cfg
    if not (isinstance(node, DictConfig) and OmegaConf.is_interpolation(node, leaf)):
        return False
    raw = OmegaConf.to_container(node, resolve=False)[leaf]
    return isinstance(raw, str) and NODE_REFERENCE.fullmatch(raw) is not None


def value_problems(cfg: DictConfig) -> list[str]:
    """One line per setting of SETTINGS (and `dataset.noise`, the tokenizer's name) with a
    bad type or range."""
    problems = []
    for key, rule in SETTINGS.items():
        try:
            value = _select(cfg, key)
        except OmegaConfBaseException as error:
            problems.append(f"{key}: {str(error).splitlines()[0]}")
            continue
        if value is _ABSENT or _interpolated(cfg, key):
            continue  # checked where it comes from
        if key.startswith(_OPTIMIZER) and _select(cfg, "model.optimizer._target_") in (
                _ABSENT, None):
            continue  # an optimizer setting without an optimizer: nothing trains
        if key == "cpu_threads" and value == AUTO:
            continue  # the cores the job was given (benchmark.config.threads)
        problem = _value_problem(key, value, rule)
        if problem is None and key == "cpu_threads":
            problem = thread_count_problem(value)
        if problem:
            problems.append(problem)
    noise = _select(cfg, "dataset.noise")
    if noise is not _ABSENT:
        try:
            noise_setting(noise)
        except ValueError as error:
            problems.append(str(error))
    tokenizer = _select(cfg, "dataset.datamodule.tokenizer")
    if tokenizer is not _ABSENT:
        try:
            tokenizer_named(tokenizer)
        except ValueError as error:
            problems.append(f"dataset.datamodule.tokenizer: {error}")
    return problems


def _accepts(target: str, name: str) -> bool:
    """Whether the callable `target` takes an argument `name` (or any, with **kwargs); a
    registered preset takes what it declares (`models.registry.Preset.takes`)."""
    if name in _HYDRA_ARGS:
        return True
    try:
        function = get_object(target)
        preset = preset_of(function)
        if preset is not None:
            return preset.takes(name)
        parameters = inspect.signature(function).parameters
    except (ValueError, TypeError, ImportError, AttributeError):
        return True  # nothing to check against
    return name in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )


def _unread_prefix(cfg: DictConfig, defaults: DictConfig, key: str) -> str | None:
    """The part of an added `key` that nothing reads, with why; None when it is read."""
    parts = key.split(".")
    node = cfg
    for i, part in enumerate(parts):
        prefix = ".".join(parts[: i + 1])
        target = node.get("_target_") if isinstance(node, DictConfig) else None
        if isinstance(target, str):
            if _accepts(target, part):
                return None  # handed to the target, which takes it
            return f"{prefix}: {target} takes no argument {part!r}"
        if prefix in OPTIONAL_KEYS:
            return None
        if _select(defaults, prefix) is _ABSENT:
            siblings = list(node.keys()) if isinstance(node, DictConfig) else []
            close = difflib.get_close_matches(part, [s for s in siblings if s != part], n=1)
            hint = f" (did you mean {'.'.join([*parts[:i], close[0]])}?)" if close else ""
            return f"{prefix}: unknown key, nothing reads it{hint}"
        node = node.get(part) if isinstance(node, DictConfig) else None
    return None


def searchpath_overrides(hydra_overrides: Iterable[str]) -> list[str]:
    """The `hydra.searchpath=[...]` among a run's Hydra overrides (HydraConfig's
    `overrides.hydra`), as given: a second composition needs them to find the groups of
    extra config folders."""
    overrides = list(hydra_overrides)
    parsed = OverridesParser.create().parse_overrides(overrides)
    return [
        text for text, override in zip(overrides, parsed, strict=True)
        if override.get_key_element() == "hydra.searchpath"
    ]


def added_keys(
    overrides: Sequence[str], choices: Iterable[str]
) -> tuple[list[str], list[str]]:
    """(the keys added by `+`/`++` value overrides, the other overrides). `choices`: the
    config groups of the composed run (keys of `hydra.runtime.choices`, `group[@package]`);
    a `+group=option` of one of them selects a config and adds no key."""
    groups = {str(choice).partition("@")[0] for choice in choices}
    added, kept = [], []
    for text, override in zip(
        overrides, OverridesParser.create().parse_overrides(list(overrides)), strict=True
    ):
        key = override.key_or_group
        if (override.is_add() or override.is_force_add()) and not key.startswith("hydra") \
                and key not in groups:
            added.append(key)
        else:
            kept.append(text)
    return added, kept


def key_problems(
    cfg: DictConfig, overrides: Sequence[str], compose, choices: Iterable[str]
) -> list[str]:
    """One line per key added by an override that nothing reads. `compose(overrides)`
    gives the config of a list of overrides (it is called once, without the added keys
    and with the `hydra.*` overrides, so on the run's search path); `choices` as for
    `added_keys`."""
    added, kept = added_keys(overrides, choices)
    if not added:
        return []
    defaults = compose(kept)
    problems = []
    for key in added:
        problem = _unread_prefix(cfg, defaults, key)
        if problem:
            problems.append(f"{problem} (override +{key})")
    return problems


def check_config(
    cfg: DictConfig, overrides: Sequence[str] = (), compose=None, choices: Iterable[str] = ()
) -> None:
    """ConfigError listing every problem of `cfg` (its command-line `overrides` too, when
    `compose` is given; `choices`: the run's config groups, `hydra.runtime.choices`),
    before anything is trained."""
    problems = value_problems(cfg) + run_setting_problems(cfg) + path_problems(cfg)
    if compose is not None:
        problems += key_problems(cfg, overrides, compose, choices)
    if problems:
        raise ConfigError("\n".join(problems))


# -- settings SETTINGS cannot judge, which the trainer, a model or the end of the run would
# meet later: seeds' upper bound, the accelerator, the variant's folder name, model.net,
# published permutations, word vectors -------------------------------------------------------
SEED_KEYS = ("seed", "protocol_seed")
SEED_LIMIT = 2**32  # numpy (so Lightning's seed_everything) takes seeds below 2**32


def _value_or_absent(cfg: DictConfig, key: str):
    """The value of `key`, or _ABSENT where it is missing or does not resolve (said by
    `value_problems`)."""
    try:
        return _select(cfg, key)
    except OmegaConfBaseException:
        return _ABSENT


def seed_problems(cfg: DictConfig) -> list[str]:
    """`seed` and `protocol_seed` at or above 2**32 (their type and lower bound: SETTINGS)."""
    problems = []
    for key in SEED_KEYS:
        value = _value_or_absent(cfg, key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= SEED_LIMIT:
            problems.append(f"{key}: expected an integer below 2**32 ({SEED_LIMIT}), got {value}")
    return problems


def accelerator_problems(cfg: DictConfig) -> list[str]:
    """A GPU trainer (`trainer=gpu`, `ddp`) on a machine where PyTorch sees no GPU."""
    accelerator = _value_or_absent(cfg, "trainer.accelerator")
    if accelerator not in GPU_ACCELERATORS:
        return []
    import torch

    if torch.cuda.is_available():
        return []
    return [
        f"trainer.accelerator: {accelerator}, but PyTorch sees no GPU on this machine "
        "(torch.cuda.is_available() is false); use trainer=cpu"
    ]


def net_preset(target) -> Preset:
    """The registered preset that `model.net._target_` names (`models.registry.preset_of`);
    ConfigError naming the key and the registered presets for anything else."""
    try:
        preset = preset_of(get_object(target)) if isinstance(target, str) and target else None
    except (ImportError, AttributeError, ValueError):
        preset = None  # cannot be imported
    if preset is None:
        raise ConfigError(
            f"model.net._target_: {target!r} is not a registered preset (a function "
            f"registered with @register_preset, models/registry.py); registered: "
            f"{', '.join(sorted(preset_names()))}"
        )
    return preset


def model_problems(cfg: DictConfig) -> list[str]:
    """`model.net._target_` that is no registered preset (`net_preset`), or `model.net`
    settings of another type or out of the range its preset takes, each naming its full key
    (`model.net.dropout`). Types and defaults are the preset's declaration
    (`models.registry.preset_settings`), the ranges `models.hyperparameters`'; a key taking
    its value from another (`${model.embedding_dim}`) is checked there, and only counts
    for what it must divide."""
    net = _value_or_absent(cfg, "model.net")
    if not isinstance(net, DictConfig):
        return []
    try:
        preset = net_preset(_value_or_absent(cfg, "model.net._target_"))
    except ConfigError as error:
        return [str(error)]
    settings, copied = {}, set()
    for key in net:
        value = _value_or_absent(cfg, f"model.net.{key}")
        if key in _HYDRA_ARGS or value is _ABSENT:
            continue
        if isinstance(value, DictConfig) and "_target_" in value:
            continue  # an object the config instantiates (a vector store): not a plain value
        try:
            settings[key] = OmegaConf.to_container(value, resolve=True) \
                if OmegaConf.is_config(value) else value
        except OmegaConfBaseException:
            continue  # said by Hydra when it instantiates the node
        if _interpolated(cfg, f"model.net.{key}"):
            copied.add(f"model.net.{key}:")
    problems = setting_problems(preset_settings(preset.name), settings, preset.divides,
                                prefix="model.net.", check_types=True)  # fmt: skip
    return [line for line in problems if not line.startswith(tuple(copied))]


PERMUTATION_CHOICES = ("own", "published")  # discrimination.permutations


def discrimination_settings_problem(cfg: DictConfig) -> str | None:
    """What makes the config's `discrimination.permutations` unusable, one line naming
    the key, or None; from the config alone (no file is read), so the config check says
    it before training, not after the test."""
    choice = cfg.get("discrimination", {}).get("permutations", "own")
    if choice not in PERMUTATION_CHOICES:
        return f"discrimination.permutations must be one of {PERMUTATION_CHOICES}, got {choice!r}"
    if choice == "own":
        return None
    folder = cfg.dataset.get("perm_path")
    if not folder:
        return (
            f"discrimination.permutations=published needs dataset.perm_path (the folder of "
            f"the published test permutation files of {cfg.dataset.name})"
        )
    if not Path(folder).is_dir():
        return f"dataset.perm_path={folder} is not a folder"
    reader = get_object(cfg.dataset.reader._target_)
    if not hasattr(reader, "published_test_permutations"):
        return (
            f"discrimination.permutations=published: the {cfg.dataset.name} reader "
            f"({reader.__name__}) reads no published permutations"
        )
    return None


def discrimination_problems(cfg: DictConfig) -> list[str]:
    """`discrimination.permutations=published` without a usable `dataset.perm_path`
    (`discrimination_settings_problem`), which order discrimination would meet only after
    the test; not when discrimination is off or skipped (distractors)."""
    if _value_or_absent(cfg, "evaluate_discrimination") is not True:
        return []
    noise = _value_or_absent(cfg, "dataset.noise")
    try:
        if noise is not _ABSENT and noise_setting(noise) != "0":
            return []
        problem = discrimination_settings_problem(cfg)
    except (OmegaConfBaseException, ValueError, ImportError, AttributeError):
        return []  # a bad noise value or reader: said elsewhere
    return [problem] if problem else []


def embedding_problems(cfg: DictConfig) -> list[str]:
    """`model.embeddings` that cannot give `model.embedding_dim`-d vectors (a GloVe file
    that is not there, kumo at another width: `data.embeddings.source_problem`)."""
    from data.embeddings import source_problem

    source = _value_or_absent(cfg, "model.embeddings")
    dim = _value_or_absent(cfg, "model.embedding_dim")
    if not isinstance(source, str) or not isinstance(dim, int) or isinstance(dim, bool):
        return []  # none, or a bad width (said by SETTINGS)
    problem = source_problem(source, dim)
    return [f"model.embeddings: {problem}"] if problem else []


def selection_problems(cfg: DictConfig) -> list[str]:
    """`early_stopping.monitor` that is not a valid figure the run logs (`val/<metric>`,
    `benchmark.metrics.corpus.corpus_metric_keys`) and better when higher: checkpoints are
    selected and training stopped on valid only (docs/design.md, section 5), keeping the
    highest value."""
    monitor = _value_or_absent(cfg, "early_stopping.monitor")
    noise = _value_or_absent(cfg, "dataset.noise")
    try:
        noisy = has_noise(noise_setting(0 if noise is _ABSENT else noise))
    except ValueError:
        return []  # a bad noise setting: said by `value_problems`
    if monitor is _ABSENT:
        return []
    logged = [f"{VALID_PREFIX}/{key}" for key in corpus_metric_keys(noisy)]
    usable = [key for key in logged if direction(key.partition("/")[2]) == HIGHER]
    if monitor in usable:
        return []
    choices = f"use one of {', '.join(usable)}"
    split = str(monitor).partition("/")[0]
    if split != VALID_PREFIX:
        reason = ("does not select on the valid split: checkpoints are selected and training "
                  "stopped on valid figures only (docs/design.md, section 5)")
    elif monitor in logged:
        reason = "is better when lower, but the checkpoint with the highest value is kept"
    else:
        reason = "is not a figure the run logs"
    return [f"early_stopping.monitor: {monitor!r} {reason}; {choices}"]


def encoder_problems(cfg: DictConfig) -> list[str]:
    """`model.net.encoder` of a pretrained preset that names no usable encoder (missing,
    unknown, empty, a folder without a model, a hub name with the hub offline:
    `models.blocks.pretrained.encoder_problem`), said before a run folder is made."""
    from models.blocks.pretrained import encoder_problem

    net = _value_or_absent(cfg, "model.net")
    if not isinstance(net, DictConfig) or "encoder" not in net:
        return []
    name = _value_or_absent(cfg, "model.net.encoder")
    if name is not None and not isinstance(name, str):
        return []  # another type: said by `model_problems`
    problem = encoder_problem(name)
    return [problem] if problem else []


def run_setting_problems(cfg: DictConfig) -> list[str]:
    """One line per problem of `seed_problems`, `accelerator_problems`, `model_problems`,
    `encoder_problems`, `discrimination_problems`, `embedding_problems` and
    `selection_problems` (the run directory's components: `benchmark.config.run_path`)."""
    return seed_problems(cfg) + accelerator_problems(cfg) + model_problems(cfg) \
        + encoder_problems(cfg) + discrimination_problems(cfg) + embedding_problems(cfg) \
        + selection_problems(cfg)
