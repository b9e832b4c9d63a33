"""The components of a run directory's path, checked before anything is created
(docs/design.md, section 8).

A run directory is `<paths.runs>/<dataset label>/<model>/<variant>/<config id>/seed_<seed>`.
Its named components come from the config (`dataset.label`, `model.name`, `variant`); each
must be one plain folder name: not empty, no path separator, not `.` or `..`, not hidden
(a leading `.`: collectors skip hidden folders), no surrounding spaces or unprintable
character. Otherwise
`variant=../../x` or `model.name=..` would write runs outside `paths.runs`. The same holds
for `paths.dataset`, the dataset's folder (by default the label with the noise setting),
when it is set directly: `paths.dataset=../../x` would place the run beside `paths.runs`.
"""

from __future__ import annotations

from collections.abc import Mapping

from omegaconf import DictConfig, OmegaConf

PATH_COMPONENTS = ("dataset.label", "model.name", "variant")
# a component made of those above unless set directly (then checked like them)
DERIVED_COMPONENTS = ("paths.dataset",)
_MAX_LENGTH = 120


def component_problem(key: str, value) -> str | None:
    """Why `value` cannot be the path component `key`, or None."""
    if not isinstance(value, str) or not value:
        return f"{key}: must be a non-empty folder name, got {value!r}"
    if "/" in value or "\\" in value:
        return f"{key}: must be one folder name, without '/' or '\\', got {value!r}"
    if value.startswith("."):
        return f"{key}: must not start with '.' (hidden folders are not collected), got {value!r}"
    if any(not ch.isprintable() for ch in value) or value.strip() != value:
        return f"{key}: holds spaces around it or an unprintable character: {value!r}"
    if len(value) > _MAX_LENGTH:
        return f"{key}: longer than {_MAX_LENGTH} characters: {value[:40]!r}..."
    return None


def path_problems(cfg: DictConfig | Mapping) -> list[str]:
    """One line per run-directory component of `cfg` that is not a plain folder name."""
    problems = []
    for key in PATH_COMPONENTS:
        try:
            value = OmegaConf.select(cfg, key) if OmegaConf.is_config(cfg) else _get(cfg, key)
        except Exception as error:  # an interpolation that does not resolve
            problems.append(f"{key}: {str(error).splitlines()[0]}")
            continue
        if value is None and key == "dataset.label":
            continue  # a config made before labels existed: the dataset's name is checked
        problem = component_problem(_source(cfg, key), value)
        if problem:
            problems.append(problem)
    for key in DERIVED_COMPONENTS:
        value = _set_directly(cfg, key)
        if value is not None and (problem := component_problem(key, value)):
            problems.append(problem)
    return problems


def _set_directly(cfg, key: str):
    """The value of `key` when it is given as such (not an interpolation of the checked
    components), else None."""
    if not OmegaConf.is_config(cfg):
        return _get(cfg, key)
    parent, _, leaf = key.rpartition(".")
    node = OmegaConf.select(cfg, parent) if parent else cfg
    if isinstance(node, DictConfig) and leaf in node and not OmegaConf.is_interpolation(node, leaf):
        return node[leaf]
    return None


def _source(cfg, key: str) -> str:
    """`key`, with the key it takes its value from when it is a plain `${other}` reference
    (`dataset.label` is `${dataset.name}` unless set)."""
    if not OmegaConf.is_config(cfg):
        return key
    parent, _, leaf = key.rpartition(".")
    node = OmegaConf.select(cfg, parent) if parent else cfg
    if isinstance(node, DictConfig) and OmegaConf.is_interpolation(node, leaf):
        text = str(node._get_node(leaf)._value())
        if text.startswith("${") and text.endswith("}") and text.count("$") == 1:
            return f"{text[2:-1]} (via {key})"
    return key


def _get(config: Mapping, dotted: str):
    node = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping):
            return None
        node = node.get(part)
    return node
