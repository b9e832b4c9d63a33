"""The calibration baselines without a neural network (`bow_position`, `overlap_chain`)
that place a table's figures, and their YAMLs."""
