"""The noise-robustness setting: the END candidate wrapper and its parts."""
