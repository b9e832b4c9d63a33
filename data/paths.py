"""Default locations of the git-ignored data cache (``data/cache/`` in the repository)."""

from __future__ import annotations

from pathlib import Path

CACHE_ROOT = Path(__file__).resolve().parent / "cache"
BROWN_CACHE = CACHE_ROOT / "brown"
PROCESSED_CACHE = CACHE_ROOT / "processed"
MINILM_CACHE = CACHE_ROOT / "minilm"
