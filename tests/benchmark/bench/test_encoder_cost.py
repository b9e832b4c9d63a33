"""`orderbench bench encoder`: a pretrained paragraph encoder's training step under today's
batching and under `bucket_by=tokens`, with the padding of each measured over the epoch
(benchmark/bench/encoder_cost.py). Slow: it trains MiniLM for a few steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures_minilm import needs_minilm

from benchmark.bench.encoder_cost import main
from benchmark.bench.nips_like import write_nips_like


@pytest.mark.slow
@needs_minilm
def test_the_paths_are_timed_with_their_padding_and_ratios(tmp_path: Path, capsys):
    nips = write_nips_like(tmp_path / "nips", scale=0.02)
    out = tmp_path / "encoder.json"
    assert main(["minilm"], str(nips), precisions=["32"], steps=1, warmup=0, threads=1,
                out=str(out)) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["bucket_by"], r["precision"]) for r in rows] == [("shape", "32"), ("tokens", "32")]
    assert {r["step"] for r in rows} == {"eager"} and all(r["compile_s"] == 0 for r in rows)
    assert rows[0]["ratio"] == 1.0 and all(r["step_cpu_s_mean"] > 0 for r in rows)
    assert rows[1]["padded_per_real"] <= rows[0]["padded_per_real"]  # like totals together
    assert all(r["padded_per_real"] >= 1 for r in rows)
    printed = capsys.readouterr().out
    assert "bf16 instructions:" in printed and "| minilm" in printed


@pytest.mark.slow
@needs_minilm
def test_the_compiled_path_counts_its_compiling_apart(tmp_path: Path):
    nips = write_nips_like(tmp_path / "nips", scale=0.02)
    out = tmp_path / "encoder.json"
    assert main(["minilm"], str(nips), precisions=["32"], steps=4, warmup=1, threads=1,
                compiled=True, out=str(out)) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["bucket_by"], r["precision"], r["step"]) for r in rows] == [
        ("shape", "32", "eager"), ("tokens", "32", "eager"), ("tokens", "32", "compiled")]
    eager, compiled = rows[1], rows[2]
    assert eager["compile_s"] == 0 and compiled["compile_s"] > 0  # its first step compiled
    assert 1 <= compiled["steps"] <= 4 and compiled["step_cpu_s_mean"] > 0
    # a compiled step pads the joined tokens to a power of two: never less than eager
    assert compiled["padded_per_real"] >= eager["padded_per_real"]
