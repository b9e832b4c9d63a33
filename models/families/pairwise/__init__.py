"""Pairwise constraints and a topological sort (Prabhumoye et al. 2020, B-TSort):
`pairwise_tsort` and its YAMLs."""
