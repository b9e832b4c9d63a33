"""OrderBench report: leaderboard, plots, ablation studies and W&B export of finished runs."""
