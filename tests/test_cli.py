"""The `orderbench` command (benchmark/cli.py): the subcommands, --help on each, and no
Lightning in the light ones."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmark.cli import COMMANDS, main

LIGHT = ("score", "predict", "leaderboard", "compare")


def test_help_lists_every_subcommand(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in ("train", "evaluate", "score", "compare", "predict", "leaderboard", "plots",
                 "bench", "datacard", "sweep"):  # fmt: skip
        assert f"  {name} " in out
    assert main([]) == 2


def test_an_unknown_command_is_one_clear_error(capsys):
    assert main(["trian"]) == 2
    assert "unknown command 'trian'" in capsys.readouterr().err


HELPS = [[name] for name in COMMANDS if name != "sweep"] + [
    ["sweep"], ["sweep", "run"], ["sweep", "list"], ["sweep", "summary"]
]
HEAVY = ("torch", "pandas", "scipy", "matplotlib", "pytorch_lightning", "hydra", "numpy")


@pytest.mark.parametrize("words", HELPS, ids=" ".join)
def test_every_command_has_help_in_one_style(words, capsys):
    assert main([*words, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: orderbench {' '.join(words)} "), out[:200]
    assert "python -m" not in out.splitlines()[0]


def test_help_loads_no_command_module_nor_heavy_library():
    """--help is answered from benchmark.cli_parsers, the tools' sources and conf/: none of
    the libraries that take seconds to load is imported."""
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
        + "or '.'.join(m.split('.')[:2]) in tools]\n"
        + "assert not imported, imported\n"
        + "print('nothing heavy loaded')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.endswith("nothing heavy loaded\n")


def test_the_help_of_key_value_tools_is_their_own():
    """The help read from the source is what the module prints itself."""
    from benchmark import evaluate
    from benchmark.cli import key_value_help
    from benchmark.cli_options import help_text
    from benchmark.metrics.discrimination import MAX_PERMUTATIONS

    assert key_value_help("benchmark.evaluate") == help_text(evaluate.USAGE, evaluate.__doc__)
    assert f"[max_permutations={MAX_PERMUTATIONS}]" in evaluate.USAGE


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


def test_train_composes_its_config_through_the_command():
    """`orderbench train` runs benchmark.train as `python -m` does (Hydra finds conf/)."""
    code = "from benchmark.cli import main\nmain(['train', 'model=han', '--cfg', 'job'])\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "_target_: models.presets.han" in result.stdout


@pytest.mark.parametrize("module", ["benchmark.datacard", "benchmark.prepare_data"])
def test_config_tools_answer_help_as_python_m_too(module):
    """`python -m benchmark.<tool> --help` prints the usage instead of parsing `--help` as an
    override."""
    result = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    command = {"benchmark.datacard": "datacard", "benchmark.prepare_data": "prepare"}[module]
    assert result.stdout.startswith(f"usage: orderbench {command} ")
