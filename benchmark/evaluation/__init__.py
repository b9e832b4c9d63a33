"""Scoring a trained model: decoding and order discrimination (docs/architecture.md)."""
