"""Composing, checking and identifying run configs (docs/architecture.md)."""
