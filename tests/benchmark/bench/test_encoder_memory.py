"""`orderbench bench encoder-memory`: each allocator setting trained in its own process, its
peak memory and seconds beside the default's (benchmark/bench/encoder_memory.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures_minilm import needs_minilm

from benchmark.bench.encoder_memory import SETTINGS, main
from benchmark.bench.nips_like import write_nips_like
from benchmark.cli_commands import BENCH_ENCODER_MEMORY


def test_the_help_names_every_setting():
    assert BENCH_ENCODER_MEMORY.key("settings").help == ", ".join(SETTINGS)


def test_an_unknown_setting_is_refused_naming_it(tmp_path: Path):
    with pytest.raises(SystemExit, match="settings=jemalloc: not one of default"):
        main(str(tmp_path), settings=["jemalloc"])


@pytest.mark.slow
@needs_minilm
def test_each_setting_runs_in_its_own_environment(tmp_path: Path, capsys):
    """The shell's variables (`onednn16`) and the run's own `cpu_memory` (`bounded`) alike."""
    nips = write_nips_like(tmp_path / "nips", scale=0.02)
    out = tmp_path / "memory.json"
    assert main(str(nips), encoder="minilm", settings=["default", "onednn16", "bounded"],
                steps=2, out=str(out)) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [row["setting"] for row in rows] == ["default", "onednn16", "bounded"]
    assert rows[0]["memory_ratio"] == rows[0]["cpu_ratio"] == 1.0
    assert all(row["peak_rss_gib"] > 0.1 and row["step_cpu_s_mean"] > 0 for row in rows)
    assert "| onednn16" in capsys.readouterr().out
