"""Investigations built on the library's public functions, one folder each: what belongs to one
paper or one question (docs/architecture.md)."""
