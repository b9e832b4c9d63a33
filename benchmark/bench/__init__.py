"""OrderBench bench: measured speed of every preset (`python -m benchmark.bench.suite`)."""
