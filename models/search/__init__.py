"""Searches over orders: greedy, batched beam, the per-document reference, topological sort;
candidate masking."""
