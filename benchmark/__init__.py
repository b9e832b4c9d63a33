"""OrderBench harness: training, evaluation, scoring and leaderboard entry points."""
