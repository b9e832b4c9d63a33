"""Figures and paths the documentation states are checked against the repository, so that
they cannot drift: the presets the README names are registered ones, the table of presets of
docs/models.md is the one generated from the registry (but for presets it has no row for yet),
every sweep size stated in README.md, docs/*.md or a sweep's own comment is the number of
jobs `orderbench sweep list NAME` lists, no page quotes a test count, and every file path
cited by a page, a config comment or a docstring exists."""

from __future__ import annotations

import ast
import glob
import io
import json
import os
import re
import subprocess
import sys
import tokenize
from functools import cache
from pathlib import Path

import pytest
import yaml
from repo_root import ROOT

from benchmark.config.config_folders import config_folders, group_files
from models.registry import presets

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def flat(text: str) -> str:
    """`text` with comment marks dropped and every run of whitespace one space."""
    return re.sub(r"\s+", " ", text.replace("#", " "))


# -- presets ------------------------------------------------------------------------------
def test_the_readme_names_only_registered_presets():
    """README.md's `model/` row lists no preset by hand: it names the default (the one
    conf/config.yaml picks) and says that `orderbench presets` lists them; any preset it
    names is a registered one with a config."""
    row = next(line for line in (ROOT / "README.md").read_text().splitlines()
               if line.startswith("| `model/` |"))  # fmt: skip
    named = row.split(" — ")[0]
    listed = re.findall(r"`([a-z0-9_]+)`", named)
    conf = {path.stem for path in group_files("model")}
    assert set(listed) <= conf & set(presets())
    default = yaml.safe_load((ROOT / "conf" / "config.yaml").read_text())["defaults"]
    default = next(item["model"] for item in default if isinstance(item, dict) and "model" in item)
    assert f"`{default}` (default)" in named and "`orderbench presets`" in named


def test_the_models_page_s_table_of_presets_is_the_generated_one():
    """The table of presets of docs/models.md, between its marker comments, is what
    `orderbench params markdown=docs/models.md` (`make docs`) writes from the registry.

    Policy: this fails when a row of the page differs from its generation
    (`models.param_counts.markdown_row`: the preset's `summary` and its parameter counts),
    when a row names a preset that is not registered, or when the lines between the markers
    are not the generated header and rows; it does not fail for a registered preset the
    table has no row for yet (a new model is one code file + one YAML: `make docs` adds its
    row when run)."""
    from models.param_counts import BEGIN, END, HEADER, committed_rows, markdown_row, table_lines

    text = (ROOT / "docs" / "models.md").read_text()
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    lines, rows = table_lines(text), committed_rows(text)
    assert lines == ["", *HEADER, *rows.values(), ""], "only the generated header and rows"
    assert [name for name in rows if name not in presets()] == [], (
        "rows of unregistered presets: `make docs` drops them"
    )
    generated = {name: markdown_row(name) for name in rows}
    stale = {name: (row, generated[name]) for name, row in rows.items() if row != generated[name]}
    assert stale == {}, "`make docs` rewrites these rows (committed, generated)"


# -- sweep sizes --------------------------------------------------------------------------
@cache
def sweep_sizes() -> dict[str, int]:
    """The number of jobs of every sweep of conf/sweep/, expanded as `orderbench sweep list`
    expands them (`benchmark.sweep.jobs.job_overrides`)."""
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode

    from benchmark.config.compose import CONF_DIR
    from benchmark.config.resolvers import register_resolvers
    from benchmark.sweep.jobs import job_overrides
    from benchmark.sweep.listing import sweep_names

    register_resolvers()
    GlobalHydra.instance().clear()
    sizes = {}
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3", job_name="train"):
        loader = GlobalHydra.instance().config_loader()
        for name in sweep_names():
            master = loader.load_configuration("config", [f"sweep={name}"],
                                               run_mode=RunMode.MULTIRUN)  # fmt: skip
            sizes[name] = len(job_overrides(master, loader))
    GlobalHydra.instance().clear()
    return sizes


# Every "N runs" of README.md and docs/*.md, by the words just before it (whitespace made
# single spaces): the sweep whose size it states, or None with what else it counts. A new
# statement fails `test_every_stated_sweep_size_is_the_number_of_its_jobs` until listed here.
STATEMENTS = {
    "two calibration baselines without a network (`bow_position`, `overlap_chain`): ":
        "reproduction_e100",
    "`SWEEP_REPRO=reproduction_e100_cv VARIANT=repro_e100` (": "reproduction_e100_cv",
    "`SWEEP_REPRO=reproduction_e100_released VARIANT=repro_e100` (": "reproduction_e100_released",
    "| smoke sweep (": "smoke",
    "calibration baselines × 3 seeds, at the same budget: ": "nips",
    "How far the sweep got All ": "nips",
    "WANDB_MODE=offline make reproduction` (": "reproduction_e100",
    "| ": None,  # the SLURM check that cancels one of 2 runs of 40 epochs
    "one thread per run, the ": None,  # the five models' runs of the first repro_e100 sweep
    "in 12 of the ": None,  # the same 30 runs, read on the reproduction page
    "25 of the ": None,  # the same
}  # fmt: skip
RUNS = re.compile(r"(?<![\w-])(\d[\d,]*) runs\b")


def statements(text: str) -> list[tuple[str, int]]:
    """(the words before it, on the same line of `flat` text, up to 90 characters; N) of
    every "N runs" of `text`."""
    found = []
    for match in RUNS.finditer(text):
        before = text[max(0, match.start() - 90):match.start()]
        found.append((before, int(match.group(1).replace(",", ""))))
    return found


def test_every_stated_sweep_size_is_the_number_of_its_jobs():
    sizes, unlisted, wrong = sweep_sizes(), [], []
    for page in PAGES:
        for before, count in statements(flat(page.read_text())):
            key = max((k for k in STATEMENTS if before.endswith(k)), key=len, default=None)
            if key is None:
                unlisted.append(f"{page.name}: ...{before}{count} runs")
            elif STATEMENTS[key] is not None and sizes[STATEMENTS[key]] != count:
                wrong.append(f"{page.name}: {count} runs of sweep {STATEMENTS[key]}, which has "
                             f"{sizes[STATEMENTS[key]]}")  # fmt: skip
    for path in group_files("sweep"):  # a sweep's comment states its own size
        comment = flat("\n".join(line for line in path.read_text().splitlines()
                                 if line.lstrip().startswith("#")))  # fmt: skip
        for before, count in statements(comment):
            if "30 runs in about an hour" in comment and before.endswith("machine allows for "):
                count_of = "reproduction"  # its budget's reason, about its own 30 runs
            else:
                count_of = path.stem
            if sizes[count_of] != count:
                wrong.append(f"{path.name}: {count} runs, sweep {count_of} has {sizes[count_of]}")
    assert unlisted == [], "say which sweep each count is of (STATEMENTS)"
    assert wrong == []


def test_products_that_give_a_number_of_runs_add_up():
    texts = [flat(page.read_text()) for page in [*PAGES, *group_files("sweep")]]
    pattern = re.compile(r"((?:\d+ ?[a-z ]*?[×x] ?)+\d+ ?[a-z ]*?) = (\d[\d,]*) runs")
    checked = 0
    for text in texts:
        for match in pattern.finditer(text):
            factors = [int(n) for n in re.findall(r"\d+", match.group(1))]
            product = 1
            for factor in factors:
                product *= factor
            assert product == int(match.group(2).replace(",", "")), match.group(0)
            checked += 1
    assert checked >= 4


@pytest.mark.slow
def test_the_sweep_list_command_counts_what_the_test_counts():
    result = subprocess.run(
        [sys.executable, "-m", "benchmark.cli", "sweep", "list", "smoke"], cwd=ROOT,
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.splitlines()[-1].startswith(f"sweep smoke: {sweep_sizes()['smoke']} jobs")


def test_no_page_quotes_a_test_count():
    quoted = [f"{page.name}: {match.group(0)}" for page in PAGES
              for match in re.finditer(r"\d[\d,]* tests\b", flat(page.read_text()))]
    assert quoted == []


# -- the worked example of docs/datasets.md ------------------------------------------------
def own_data_section() -> str:
    text = (ROOT / "docs" / "datasets.md").read_text()
    return text.split("## Your own data", 1)[1].split("\n## ", 1)[0]


def blocks(section: str, language: str) -> list[str]:
    """The bodies of the fenced blocks of `section` opened with ```language (```: none)."""
    found, body, opened = [], [], None
    for line in section.splitlines():
        if line.startswith("```"):
            if opened is None:
                opened, body = line[3:].strip(), []
                continue
            if opened == language:
                found.append("\n".join(body) + "\n")
            opened = None
        elif opened is not None:
            body.append(line)
    return found


@pytest.mark.slow
def test_the_own_data_example_runs_as_written(tmp_path):
    """The files, the datacard and the run of docs/datasets.md, "Your own data", as the page
    shows them (figures and times of the run aside: its lines must read the same)."""
    section = own_data_section()
    script = next(block for block in blocks(section, "bash") if "cat > my_data/" in block)
    subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, check=True)
    shown_card = json.loads(blocks(section, "json")[1])
    card = subprocess.run(
        [sys.executable, "-m", "benchmark.datacard", "dataset=jsonl", "dataset.path=my_data",
         f"+dataset.datamodule.cache_dir={tmp_path / 'cache'}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert card.returncode == 0, card.stderr[-2000:]
    assert json.loads(card.stdout) == shown_card

    command = next(block for block in blocks(section, "bash") if "orderbench train" in block)
    args = command.split("orderbench train", 1)[1].split()
    run = subprocess.run(
        [sys.executable, "-m", "benchmark.train", *args, f"paths.runs={tmp_path / 'runs'}",
         f"+dataset.datamodule.cache_dir={tmp_path / 'cache'}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=900,
        env={**os.environ, "PYTHONPATH": str(ROOT), "WANDB_MODE": "offline",
             "WANDB_DIR": str(tmp_path), "ORDERBENCH_VERBOSE": ""},
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    shown = next(block for block in blocks(section, "") if block.startswith("data jsonl"))
    printed = (run.stdout + run.stderr).splitlines()
    assert printed[:3] == shown.splitlines()[:3]  # the data, the warning, the model

    def shape(lines: list[str]) -> list[str]:
        return [re.sub(r"-?\d[\d.,]*", "N", line) for line in lines]

    assert shape(printed[3:-2]) == shape(shown.splitlines()[3:-2])
    run_dir = next((tmp_path / "runs" / "howto" / "lstm_ptrnet" / "base").glob("*/seed_0"))
    assert printed[-2] == f"run folder: {run_dir.relative_to(tmp_path)}"  # inside cwd
    record = json.loads((run_dir / "metrics.json").read_text())
    assert record["dataset"] == "howto" and record["identity"]["data"]["name"] == "jsonl"
    assert set(record["breakdowns"]["test"]["meta.topic"]) == {"kitchen", "garage"}


# -- cited paths --------------------------------------------------------------------------
CITED = re.compile(
    r"(?<![\w./-])((?:docs|conf|benchmark|scripts|models|data|tests|results|hydra_plugins)"
    r"/[A-Za-z0-9_./*-]*(?:\{[A-Za-z0-9_.,]+\}[A-Za-z0-9_.]*|[A-Za-z0-9_*/]))"
    r"|(?<![\w./-])([A-Z][A-Za-z]*\.md)\b"  # a page at the top: README.md
)
# the files the examples of a new model (docs/models.md) and of a new dataset
# (docs/datasets.md) ask to write (there once followed)
EXAMPLE_FILES = ("models/families/cnn_attention/cnn_attention.py",
                 "models/families/cnn_attention/conf/model/cnn_attention.yaml",
                 "models/families/probe/",  # the family tests/models/test_new_preset.py adds
                 "data/readers/steps.py", "conf/dataset/steps.yaml")
# cited on purpose although absent, with the reason
NOT_IN_THE_REPOSITORY = {
    "results/selection_variance.csv": "written by `orderbench study selection-variance out=FILE`",
    "docs/s": "a unit (documents per second), not a path",
    "docs/step": "a unit (documents per step), not a path",
    "data/raw/{ntsb,apws}": "docs/datasets.md: a folder of another repository (kedz/discourse)",
}


def expanded(cited: str) -> list[str]:
    """`results/reproduction.{md,csv}` -> both paths."""
    braces = re.search(r"\{([^}]*)\}", cited)
    if braces is None:
        return [cited]
    return [cited[:braces.start()] + choice + cited[braces.end():]
            for choice in braces.group(1).split(",")]  # fmt: skip


def comments_and_docstrings(path: Path) -> str:
    """The comments and docstrings of a Python file (its string literals are data)."""
    source = path.read_text(encoding="utf-8")
    parts = [token.string for token in tokenize.generate_tokens(io.StringIO(source).readline)
             if token.type == tokenize.COMMENT]  # fmt: skip
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            parts.append(ast.get_docstring(node) or "")
    return "\n".join(parts)


def citing_files() -> list[tuple[Path, str]]:
    """(file, the text of it that may cite paths): pages, configs and Makefile whole, Python
    files by their comments and docstrings."""
    files = [*PAGES, *sorted((ROOT / "results").glob("*.md")), ROOT / "Makefile",
             *(path for folder in config_folders() for path in sorted(folder.rglob("*.yaml"))),
             *sorted((ROOT / "scripts").glob("*"))]
    texts = [(path, path.read_text(encoding="utf-8")) for path in files if path.is_file()]
    for package in ("benchmark", "models", "data", "studies", "tests", "hydra_plugins"):
        for path in sorted((ROOT / package).rglob("*.py")):
            texts.append((path, comments_and_docstrings(path)))
    return texts


def ignored_by_git(paths: list[str]) -> set[str]:
    if not paths:
        return set()
    result = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=ROOT,
                            capture_output=True, text=True)  # fmt: skip
    return set(result.stdout.split())


def test_every_cited_path_exists():
    missing: dict[str, set[str]] = {}
    for path, text in citing_files():
        for match in CITED.finditer(text):
            cited = (match.group(1) or match.group(2)).rstrip(".")
            if "/" in cited and any(part.split(".")[0].isupper() for part in cited.split("/")):
                continue  # a placeholder: conf/sweep/NAME.yaml
            there = all(glob.glob(str(ROOT / one)) if "*" in one else (ROOT / one).exists()
                        for one in expanded(cited))  # fmt: skip
            if not there and cited not in NOT_IN_THE_REPOSITORY and cited not in EXAMPLE_FILES:
                missing.setdefault(cited, set()).add(str(path.relative_to(ROOT)))
    generated = ignored_by_git(sorted(missing))  # data/cache/...: made by the runs
    assert {cited: sorted(where) for cited, where in missing.items()
            if cited not in generated} == {}  # fmt: skip


@pytest.mark.parametrize("cited", sorted(NOT_IN_THE_REPOSITORY))
def test_the_paths_cited_although_absent_are_absent(cited):
    assert not any((ROOT / one).exists() for one in expanded(cited)), f"{cited} exists now"


# -- invocations --------------------------------------------------------------------------
INVOKED = re.compile(r"(?:orderbench|python -m ([\w.]+))((?: +[^\s`#]+)*)")
NOT_WORDS = {"\\", "...", "…", "=", "(=", "(", ")"}


def invocations(text: str) -> list[tuple[str, list[str]]]:
    """Each `orderbench <command> ...` or `python -m <module> ...` of `text` (a code line
    continued by `\\` joined to the next, a span in backticks or a line up to its comment):
    (what was called, its words)."""
    text = re.sub(r"\\\n\s*", " ", text)
    found = []
    for span in re.findall(r"`([^`\n]+)`", text) + re.findall(r"^\s*(.*)$", text, re.M):
        for match in INVOKED.finditer(span.split(" #")[0]):
            words = [word.rstrip(",;:)") for word in match.group(2).split()]
            found.append((match.group(1) or "orderbench", [w for w in words if w]))
    return found


def documented_calls() -> list[tuple[str, str, list[str]]]:
    """(page, the command's name, its arguments) of every documented `orderbench` command
    and `python -m` of a command's module, but train's (Hydra's own)."""
    from benchmark.cli import commands

    table = commands()
    modules = {command.target.split(":")[0]: name for name, command in table.items()}
    pages = [*PAGES, ROOT / "results" / "README.md", *sorted((ROOT / "results").glob("*.md")),
             *sorted((ROOT / "studies").rglob("*.py")), *sorted((ROOT / "benchmark").rglob("*.py"))]
    calls = []
    for page in dict.fromkeys(pages):
        for called, words in invocations(page.read_text(encoding="utf-8")):
            if called == "orderbench":
                two = " ".join(words[:2])
                name = two if two in table else (words[0] if words else "")
                words = words[len(name.split()):]
            else:
                name = modules.get(called, "")
            if name in table and name != "train" and name.split()[0] != "sweep":
                calls.append((str(page.relative_to(ROOT)), name, words))
    return calls


def placeholder(word: str, command) -> bool:
    """Whether `word` of a documented call is not an argument: `[optional ...]`, `\\`,
    `{flags}` of an f-string, `--help`, or `key=VALUE` of a key the command has, its
    value a placeholder (`bootstrap=N`, `run=$RUN`)."""
    key, equals, value = word.partition("=")
    if equals and re.fullmatch(r"[A-Z][A-Z_]*|\$\w+", value):
        return key in {one.name for one in command.keys} or bool(command.overrides)
    return (word in NOT_WORDS or word.startswith("[") or word.endswith("]") or "{" in word
            or word == "--help")  # fmt: skip


def test_every_documented_command_is_written_in_its_keys():
    """A documented call of a command names only its keys, in the one style (`key=value`,
    the inputs bare); placeholders (RUN_A, FILE, `$RUN`) stand for values."""
    from benchmark.cli import commands
    from benchmark.cli_arguments import UsageError

    table = commands()
    wrong = []
    for page, name, words in documented_calls():
        words = [word for word in words if not placeholder(word, table[name])]
        try:
            table[name].parse(words)
        except UsageError as error:
            if not str(error).startswith("missing"):  # a call shown without its inputs
                wrong.append(f"{page}: orderbench {name} {' '.join(words)}: {error}")
    assert not wrong, "\n".join(wrong)
    assert len(documented_calls()) > 20
