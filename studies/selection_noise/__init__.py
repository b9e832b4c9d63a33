"""How much checkpoint selection on a small validation split is decided by noise (README.md)."""
