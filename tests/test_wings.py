"""The import rules (docs/architecture.md): the library's packages depend one way, data <-
models <- benchmark <- studies (data/ and models/ import nothing of another package; a
model family's tests, run whole, may); benchmark/'s rooms depend one way: metrics <-
records <- stats <- config <- evaluation <- training <- run <- sweep, report, bench; no
room imports the command-line tools at benchmark/'s top, only their helpers: cli_arguments
(the key=value parser) and cli_commands (the commands' declarations)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from repo_root import ROOT

BENCHMARK = ROOT / "benchmark"
# what each wing may import from benchmark/, besides itself
FLOORS = ("metrics", "records", "stats", "config", "evaluation", "training", "run")
ALLOWED = {
    **{room: set(FLOORS[:floor]) for floor, room in enumerate(FLOORS)},
    "sweep": {*FLOORS, "cli_arguments", "cli_commands"},
    "report": {*FLOORS, "cli_arguments", "cli_commands"},
    "bench": {*FLOORS, "cli_arguments", "cli_commands"},
}


def top_imports(path: Path) -> set[str]:
    """The top-level package of every absolute import in the file."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", ["data", "models"])
def test_data_and_models_import_no_other_package_of_the_library(package):
    library = {"data", "models", "benchmark", "studies"}
    wrong = {
        str(path.relative_to(ROOT)): sorted(top_imports(path) & library - {package})
        for path in sorted((ROOT / package).rglob("*.py"))
        if "tests" not in path.relative_to(ROOT).parts  # a family's tests run it whole
    }
    assert {path: names for path, names in wrong.items() if names} == {}


def benchmark_imports(path: Path) -> set[str]:
    """The first name under `benchmark.` of every import in the file."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
            if node.module == "benchmark":
                modules = [f"benchmark.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        names.update(m.split(".")[1] for m in modules if m.startswith("benchmark."))
    return names


def test_every_wing_is_listed():
    wings = {p.name for p in BENCHMARK.iterdir() if (p / "__init__.py").exists()}
    assert wings == set(ALLOWED)


@pytest.mark.parametrize("wing", sorted(ALLOWED))
def test_wing_imports_run_one_way(wing):
    wrong = {
        f"{path.relative_to(BENCHMARK)} imports benchmark.{name}"
        for path in (BENCHMARK / wing).rglob("*.py")
        for name in benchmark_imports(path) - ALLOWED[wing] - {wing}
    }
    assert not wrong, sorted(wrong)


def test_no_library_module_imports_a_study():
    """studies/ is built on the library (benchmark, models, data); the library never
    depends on a study (docs/architecture.md)."""
    root = BENCHMARK.parent
    wrong = []
    for package in ("benchmark", "models", "data"):
        for path in (root / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = ([node.module] if isinstance(node, ast.ImportFrom) and node.module
                         else [a.name for a in node.names] if isinstance(node, ast.Import)
                         else [])
                wrong += [f"{path.relative_to(root)} imports {n}" for n in names
                          if n == "studies" or n.startswith("studies.")]
    assert not wrong, wrong
