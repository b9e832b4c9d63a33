"""`python -m benchmark.bench`: the speed suite."""

from benchmark.bench.suite import main

main()
