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


@pytest.mark.parametrize("name", [n for n in COMMANDS if n != "train"])
def test_every_subcommand_has_help(name, capsys):
    try:
        status = main([name, "--help"])
    except SystemExit as done:  # argparse exits after printing its help
        status = done.code
    assert status == 0
    assert "usage" in capsys.readouterr().out


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
    assert result.stdout.startswith(f"usage: python -m {module} [OVERRIDE ...]")
