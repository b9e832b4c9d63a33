"""OrderBench stats: bootstrap intervals, paired tests and multiple-comparison corrections."""
