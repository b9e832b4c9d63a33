"""The `orderbench` command (benchmark/cli.py): every command in one argument style
(`key=value`, required inputs also as bare words; benchmark/cli_arguments.py), --help on each
without loading any tool, bad keys and old `--flags` refused in one line, and every entry
point of benchmark/, studies/ and models/ reachable from it."""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import subprocess
import sys
import warnings

import pytest
from repo_root import ROOT

from benchmark import cli_commands
from benchmark.cli import commands, main
from benchmark.cli_arguments import Command, Key, UsageError, warnings_printed
from benchmark.config.config_folders import group_files

TABLE = commands()
LIGHT = ("score", "predict", "leaderboard", "compare")
HEAVY = ("torch", "pandas", "scipy", "matplotlib", "pytorch_lightning", "hydra", "numpy")
GROUPS = sorted({name.split()[0] for name in TABLE if " " in name} - set(TABLE))


def test_help_lists_every_command(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in ("train", "evaluate", "score", "compare", "predict", "leaderboard", "plots",
                 "bench", "bench profile", "bench tsort", "bench scale", "bench cli",
                 "bench gpu-kit", "bench gpu-check", "datacard", "prepare", "sweep run",
                 "sweep list", "sweep summary", "params", "presets", "study cui2018",
                 "study selection-variance", "study cui2018-nips"):  # fmt: skip
        assert f"  {name} " in out
    assert main([]) == 2


def test_an_unknown_command_or_action_is_one_line(capsys):
    assert main(["trian"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'trian'" in err and err.count("\n") == 1
    assert main(["sweep", "lsit"]) == 2
    err = capsys.readouterr().err
    assert err == ("orderbench sweep: error: unknown action 'lsit'; the actions: run, list, "
                   "summary\n")


HELPS = [name.split() for name in TABLE] + [[group] for group in GROUPS]


@pytest.mark.parametrize("words", HELPS, ids=" ".join)
def test_every_command_has_help_in_one_style(words, capsys):
    assert main([*words, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: orderbench {' '.join(words)}"), out[:200]
    assert "python -m" not in out.splitlines()[0]
    if " ".join(words) not in TABLE:  # a group: the usage of each of its commands
        assert all(f"orderbench {name}" in out for name in TABLE if name.split()[0] == words[0])
    elif words != ["train"]:
        for key in TABLE[" ".join(words)].keys:  # the declaration's keys, in one style
            assert f"  {key.name}=" in out
        assert "--" not in out.split("\n\n")[0]  # no option in the usage line


def test_help_loads_no_command_module_nor_heavy_library():
    """--help is answered from the declarations (benchmark.cli_commands, the studies'
    packages), the tools' sources and conf/: none of the libraries that take seconds to
    load is imported, nor any tool."""
    calls = "".join(
        f"try:\n    main({[*words, '--help']!r})\nexcept SystemExit:\n    pass\n"
        for words in HELPS
    )
    code = (
        "import sys\nfrom benchmark.cli import main\n" + calls
        + f"loaded = [name for name in {HEAVY!r} if name in sys.modules]\n"
        + "assert not loaded, loaded\n"
        + "tools = ('benchmark.report', 'benchmark.run', 'benchmark.training', 'benchmark.bench', "
        + "'benchmark.stats', 'benchmark.metrics', 'models', 'data')\n"
        + "imported = [m for m in sys.modules if m.split('.')[0] in tools "
        + "or '.'.join(m.split('.')[:2]) in tools or m.count('.') >= 2 and "
        + "m.startswith('studies.')]\n"
        + "assert not imported, imported\n"
        + "print('nothing heavy loaded')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.endswith("nothing heavy loaded\n")


OWN_PARSERS = [name for name, command in TABLE.items() if command.call == "argv"
               and not command.target.startswith("benchmark.cli:")]  # fmt: skip


@pytest.mark.parametrize("name", OWN_PARSERS)
def test_a_tool_prints_the_help_orderbench_prints(name, capsys):
    """`python -m <module> --help` (the tool's own main) and `orderbench <name> --help`
    print the same text: both come from the one declaration."""
    command = TABLE[name]
    module, function = command.target.split(":")
    assert getattr(importlib.import_module(module), function)(["--help"]) in (0, None)
    own = capsys.readouterr().out
    assert main([*name.split(), "--help"]) == 0
    assert own == capsys.readouterr().out


# -- every entry point is a command -------------------------------------------------------
def entry_points() -> list[str]:
    """The modules of benchmark/, studies/ and models/ with a `main` function or an
    `if __name__ == "__main__":` block at their top level."""
    found = []
    for package in ("benchmark", "studies", "models"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in tree.body:
                has_main = isinstance(node, ast.FunctionDef) and node.name == "main"
                runs_as_main = (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
                                and "__main__" in ast.unparse(node.test))  # fmt: skip
                if has_main or runs_as_main:
                    found.append(".".join(path.relative_to(ROOT).with_suffix("").parts))
                    break
    return found


def test_the_entry_points_are_found():
    found = entry_points()
    for module in ("benchmark.train", "studies.cui2018.reproduction", "models.param_counts",
                   "studies.selection_variance.selection_variance", "benchmark.bench.tsort",
                   "models.registry", "benchmark.cli"):  # fmt: skip
        assert module in found


@pytest.mark.parametrize("module", entry_points())
def test_every_entry_point_is_reachable_from_orderbench(module):
    targets = {command.target.split(":")[0] for command in TABLE.values()}
    assert module == "benchmark.cli" or module in targets, (
        f"{module} has a main but no `orderbench` command runs it: declare one "
        "(benchmark/cli_commands.py, or COMMAND(S) in the study's package)"
    )


@pytest.mark.parametrize("name", sorted(TABLE))
def test_every_command_runs_a_function_that_exists(name):
    command = TABLE[name]
    module, function = command.target.split(":")
    target = getattr(importlib.import_module(module), function)
    if command.call == "keys":  # called with the parsed keys
        assert set(inspect.signature(target).parameters) == {key.name for key in command.keys}


# -- one style: bad keys, bad values, old flags --------------------------------------------
def one_error_line(capsys, name: str) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"orderbench {name}: error: "), err
    return err


@pytest.mark.parametrize("name", sorted(set(TABLE) - {"train"}))
def test_an_unknown_key_is_refused_in_one_line_naming_it(name, capsys):
    words = {"sweep run": ["smoke"], "sweep list": ["smoke"]}.get(name, [])
    assert main([*name.split(), *words, "nosuchkey=1"]) == 2
    assert "'nosuchkey'" in one_error_line(capsys, name)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["score", "f.jsonl", "bootstrap=many"], "bootstrap must be an integer >= 0, got 'many'"),
        (["score", "f.jsonl", "include_trivial=yes"],
         "include_trivial must be one of true, false, got 'yes'"),
        (["score", "f.jsonl", "seed=1", "seed=2"], "seed is given twice"),
        (["score"], "missing predictions=FILE"),
        (["score", "a.jsonl", "b.jsonl"], "unexpected argument 'b.jsonl'"),
        (["compare", "a", "b", "resamples=0"], "resamples must be an integer >= 1, got '0'"),
        (["evaluate", "run", "task=decode"], "task must be one of order, discrimination"),
        (["predict", "run"], "missing input=FILE"),
        (["leaderboard", "wandb="], "wandb has no value"),
        (["bench", "tsort", "lengths=9,3"], "lengths must be increasing"),
        (["params", "vocab_size=1"], "vocab_size must be an integer >= 2, got '1'"),
        (["sweep", "summary"], "missing runs=RUNS"),
        (["study", "selection-variance", "pairs=repro"], "'repro': expected SHORT:LONG"),
    ],
)
def test_bad_values_are_refused_in_one_line_naming_the_key(argv, message, capsys):
    name = " ".join(argv[:2]) if " ".join(argv[:2]) in TABLE else argv[0]
    assert main(argv) == 2
    assert message in one_error_line(capsys, name)


@pytest.mark.parametrize(
    "argv, hint",
    [
        (["score", "f.jsonl", "--include-trivial", "--bootstrap", "1000"],
         "--include-trivial is now written include_trivial=true"),
        (["score", "f.jsonl", "--bootstrap", "1000"], "--bootstrap is now written bootstrap=1000"),
        (["compare", "a", "b", "--json"], "--json is now written json=true"),
        (["compare", "a", "b", "--resamples=50"], "--resamples is now written resamples=50"),
        (["leaderboard", "--runs", "runs", "--out", "results"], "--runs is now written runs=runs"),
        (["plots", "--wandb"], "--wandb is now written wandb=true"),
        (["sweep", "summary", "--runs-dir", "x"], "--runs-dir is not an option"),
        (["study", "cui2018", "--compare-variant", "repro"],
         "--compare-variant is now written compare=repro"),
        (["study", "cui2018", "--cv-variant", "cv"], "--cv-variant is now written cv_variant=cv"),
        (["study", "cui2018-nips", "--runs", "runs"], "--runs is now written runs=runs"),
        (["study", "selection-variance", "--pair", "a:b"], "--pair is now written pairs=a:b"),
        (["study", "selection-variance", "--variant", "repro"],
         "--variant is now written variants=repro"),
        (["params", "--vocab-size", "100"], "--vocab-size is now written vocab_size=100"),
    ],
)
def test_old_flags_are_refused_naming_the_new_key(argv, hint, capsys):
    name = " ".join(argv[:2]) if " ".join(argv[:2]) in TABLE else argv[0]
    assert main(argv) == 2
    assert hint in one_error_line(capsys, name)


def test_required_inputs_are_bare_words_or_keys():
    compare = cli_commands.COMPARE
    assert compare.parse(["a", "b"]) == compare.parse(["run_a=a", "run_b=b"])
    assert compare.parse(["run_a=a", "b"])["run_b"] == "b"  # the next input not given
    assert compare.parse(["a", "b", "json=true", "resamples=5"]) == {
        "run_a": "a", "run_b": "b", "include_trivial": False, "resamples": 5, "seed": 0,
        "json": True,
    }  # fmt: skip
    assert cli_commands.PREDICT.parse(["run", "-"])["input"] == "-"  # standard input
    assert cli_commands.COMPARE.parse(["runs/a=1", "b"])["run_a"] == "runs/a=1"  # a path


def test_overrides_pass_on_with_the_declared_keys_apart():
    args = cli_commands.DATACARD.parse(["nips", "dataset.path=/d", "+x.y=1", "~model.embeddings"])
    assert args == {"dataset": "nips", "overrides": ["dataset.path=/d", "+x.y=1",
                                                     "~model.embeddings"]}  # fmt: skip
    assert cli_commands.dataset_overrides(args)[0] == "dataset=nips"
    run = cli_commands.SWEEP_RUN.parse(["smoke", "trainer=cpu", "--cfg", "job"])
    assert run == {"sweep": "smoke", "overrides": ["trainer=cpu", "--cfg", "job"]}


def test_a_declaration_checks_its_kinds_and_prints_defaults():
    with pytest.raises(ValueError, match="kind"):
        Key("x", "x", kind="float")
    command = Command("demo", "a demo", (
        Key("file", "a file", positional=True, required=True, metavar="FILE"),
        Key("n", "a count", 3, kind="int", minimum=1), Key("on", "a switch", False, kind="bool"),
        Key("names", "a list", [], kind="list"),
    ))  # fmt: skip
    assert command.usage() == "orderbench demo FILE [n=3] [on=false] [names=A,B]"
    assert command.parse(["f", "names=a,b", "on=true"]) == {
        "file": "f", "n": 3, "on": True, "names": ["a", "b"]}
    with pytest.raises(UsageError, match="unknown key 'm'; the keys of orderbench demo: file"):
        command.parse(["f", "m=1"])


def test_the_declared_defaults_are_the_library_s_own():
    from benchmark.bench.timing import PRECISIONS
    from benchmark.bench.tsort import LENGTHS
    from benchmark.metrics.discrimination import MAX_PERMUTATIONS
    from data.ordering_data import EVAL_SPLITS
    from models.param_counts import VOCAB_SIZE
    from studies.cui2018 import COMMAND as CUI2018
    from studies.cui2018 import NIPS_COMMAND
    from studies.cui2018.nips import VARIANT as NIPS_VARIANT
    from studies.cui2018.reproduction import ABLATION_REFERENCE, VARIANT

    assert cli_commands.EVALUATE.key("max_permutations").default == MAX_PERMUTATIONS
    assert cli_commands.SPLITS == EVAL_SPLITS and cli_commands.PRECISIONS == PRECISIONS
    assert cli_commands.BENCH_TSORT.key("lengths").default == ",".join(map(str, LENGTHS))
    assert cli_commands.PARAMS.key("vocab_size").default == VOCAB_SIZE
    assert CUI2018.key("variant").default == VARIANT
    assert CUI2018.key("ablation_reference").default == ABLATION_REFERENCE
    assert NIPS_COMMAND.key("variant").default == NIPS_VARIANT
    experiments = {path.stem for path in group_files("experiment")}
    assert set(cli_commands.PAPER_EXPERIMENTS) <= experiments


def test_light_commands_import_no_lightning():
    calls = "".join(
        f"try:\n    main([{name!r}, '--help'])\nexcept SystemExit:\n    pass\n" for name in LIGHT
    )
    code = (
        "import sys\nfrom benchmark.cli import main\n" + calls
        + "assert 'pytorch_lightning' not in sys.modules, 'Lightning imported'\n"
        + "assert 'lightning' not in sys.modules, 'Lightning imported'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]


@pytest.mark.slow
def test_train_composes_its_config_through_the_command():
    """`orderbench train` runs benchmark.train as `python -m` does (Hydra finds conf/)."""
    code = "from benchmark.cli import main\nmain(['train', 'model=han', '--cfg', 'job'])\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "_target_: models.presets.han" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("module", ["benchmark.datacard", "benchmark.prepare_data"])
def test_config_tools_answer_help_as_python_m_too(module):
    """`python -m benchmark.<tool> --help` prints the usage instead of parsing `--help` as an
    override."""
    result = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    command = {"benchmark.datacard": "datacard", "benchmark.prepare_data": "prepare"}[module]
    assert result.stdout.startswith(f"usage: orderbench {command} ")


def test_the_models_commands_print_their_tables(capsys):
    assert main(["params", "vocab_size=100"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| preset | trainable total |") and "| `lstm_ptrnet` |" in out
    assert main(["presets"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("free colours:")


def test_bench_tsort_prints_its_table(capsys):
    assert main(["bench", "tsort", "lengths=4,6", "repeats=1"]) == 0
    out = capsys.readouterr().out
    assert "| consistent, 4 " in out and "| random, 6 " in out


@pytest.mark.parametrize("name", ["leaderboard", "plots", "presentation", "study cui2018",
                                  "study cui2018-nips", "study selection-variance"])  # fmt: skip
def test_a_missing_runs_folder_is_one_line(name, tmp_path, capsys):
    assert main([*name.split(), f"runs={tmp_path / 'none'}", f"out={tmp_path / 'out'}"]) == 2
    assert "no such runs directory" in one_error_line(capsys, name)


def test_warnings_are_printed_after_the_block_also_when_it_fails(capsys):
    with pytest.raises(ValueError), warnings_printed("orderbench tool"):
        warnings.warn("two runs share a name", UserWarning, stacklevel=1)
        raise ValueError("bad input")
    assert capsys.readouterr().err == "orderbench tool: warning: two runs share a name\n"


def test_help_piped_into_a_reader_that_stops_early_ends_quietly():
    """`orderbench predict --help | head -1` once `head` has gone: no BrokenPipeError
    traceback, exit 0 (the pipe's reading end is closed before anything is written)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    code = "import sys; from benchmark.cli import main; sys.exit(main(['predict', '--help']))"
    try:
        writer = subprocess.run([sys.executable, "-c", code], stdout=write_end,
                                stderr=subprocess.PIPE, text=True)  # fmt: skip
    finally:
        os.close(write_end)
    assert writer.returncode == 0 and "Traceback" not in writer.stderr, writer.stderr
