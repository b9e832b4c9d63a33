"""`orderbench train --help`: the config groups to compose and their options, read from
the files of conf/ and of the studies' config folders (`benchmark.config.config_folders`)
without composing a config.

Hydra's own `--help` composes the whole config first (seconds) and lists every folder of
conf/ as a group, also those that are not composed on the command line: the base configs
of the datasets and presets and the ablation study definitions (`NOT_GROUPS`). Groups
missing from the defaults list of conf/config.yaml are added with `+` (`+experiment=tiny`,
`+reproduce=accident` as the sweeps `reproduction*` do). `--hydra-help` still prints Hydra's
flags, `--cfg job` the composed config.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import yaml

from benchmark.config.config_folders import CONF_DIR, config_folders, group_files

USAGE = "orderbench train [GROUP=OPTION ...] [+GROUP=OPTION ...] [KEY=VALUE ...] [FLAG ...]"
# folders of conf/ that are no group of the command line, and what they are
NOT_GROUPS = {
    "dataset_base": "the base config every conf/dataset/ file starts from",
    "model_base": "the base config every conf/model/ file starts from",
    "ablation_study": "the ablation plots' definitions (read, never composed)",
}
HYDRA_GROUPS = ("hydra/launcher",)  # Hydra's own groups this project adds options to
WIDTH = 92


def options(group: str) -> list[str]:
    """The options of `group`: its YAML files in every config folder; for `sweep`, only the
    files that define a sweep (`hydra.sweeper`), not the shared parts they include."""
    names = []
    for path in group_files(group):
        if group == "sweep" and "sweeper" not in ((_load(path) or {}).get("hydra") or {}):
            continue
        names.append(path.stem)
    return names


def _load(path: Path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def groups() -> tuple[dict[str, str | None], list[str]]:
    """({group: its default option or None}, [groups added with +]) of the command line."""
    defaults = {}
    for entry in _load(CONF_DIR / "config.yaml").get("defaults", []):
        if isinstance(entry, dict):
            defaults.update({str(key): value for key, value in entry.items()})
    folders = sorted({
        path.name for folder in config_folders() for path in folder.iterdir()
        if path.is_dir() and path.name != "hydra"
    })  # fmt: skip
    chosen = {group: defaults[group] for group in defaults if group in folders}
    chosen.update({group: None for group in HYDRA_GROUPS})
    added = [g for g in folders if g not in defaults and g not in NOT_GROUPS]
    return chosen, added


def _line(name: str, names: list[str], default: str | None = None) -> str:
    """The options of a group, wrapped; "(default X)" and "(with -m)" are never cut."""
    keep = "\u00a0"  # a space textwrap does not break at
    listed = ", ".join(names) + (f" (default{keep}{default})" if default else "")
    listed += f" (with{keep}-m)" if name == "sweep=" else ""
    return textwrap.fill(listed, WIDTH, initial_indent=f"  {name:<17}",
                         subsequent_indent=" " * 19).replace(keep, " ")


def train_help() -> str:
    """The help text of `orderbench train`."""
    chosen, added = groups()
    lines = [
        f"usage: {USAGE}",
        "",
        "Train and test one run and print its test figures; with -m, every run of a sweep",
        "(sweep=NAME, or comma-separated values). The settings come from conf/ (README,",
        '"Choosing model, dataset and seed").',
        "",
        "config groups (GROUP=OPTION):",
        *[_line(f"{group}=", options(group), default)
          for group, default in chosen.items()],
        "",
        "groups added to the config (+GROUP=OPTION):",
        *[_line(f"+{group}=", options(group)) for group in added],
        "",
        "any config value: KEY=VALUE, e.g. seed=1 trainer.max_epochs=5 dataset.noise=1",
        "",
        "flags:",
        "  -m, --multirun   run a sweep: sweep=NAME or comma-separated values",
        "  --cfg job        print the composed config and exit (--cfg hydra, --cfg all)",
        "  --info           Hydra's view of the config sources and search path",
        "  --hydra-help     Hydra's own flags",
        "",
        "folders of conf/ that are not groups:",
        *[f"  {name + '/':<17}{what}" for name, what in NOT_GROUPS.items()],
    ]
    return "\n".join(line.rstrip() for line in lines)
