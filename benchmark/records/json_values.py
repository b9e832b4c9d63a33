"""Numbers as standard JSON: NaN and infinities are written as `null`.

Python's `json` writes a NaN as the bare word `NaN`, which is not JSON (RFC 8259) and
which strict readers (jq, JavaScript, most other languages) refuse. Every JSON file and
JSON output of OrderBench goes through `json_safe`; a figure that is undefined (no
document to average over) therefore reads as `null` (docs/metrics.md, "JSON").
"""

from __future__ import annotations

import json
import math


def json_safe(value):
    """NaN and infinities -> None, recursively through dicts, lists and tuples."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return value


def dumps(value, **options) -> str:
    """`json.dumps` of `json_safe(value)`; a non-finite number can no longer slip through."""
    return json.dumps(json_safe(value), allow_nan=False, **options)
