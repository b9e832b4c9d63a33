"""The repository's root folder, for tests at any depth of tests/ (they mirror the package
tree)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
