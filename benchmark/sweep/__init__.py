"""OrderBench sweep: multirun only: job listing, launchers, the end-of-sweep summary."""
