"""What the check of a processed-data cache entry costs beside mapping it (`orderbench
bench scale`, docs/performance.md, "A million documents").

Each time a run maps an entry it checks it (`data.cache.load_processed`): the manifest, each
column's schema (read with the mapping), the digest of every file (`data.file_digests`, a
pass over its bytes) and the data digest of the documents (`data.processing.columns_sha256`,
a pass over the text columns). Timed here, in the process that calls it, each part
`repeats` times (medians of the wall time and of the process's CPU time, the steadier on a
shared machine): the mapping alone, the file digests, the documents' digest, and the
whole `load_processed` as a run calls it. The pages are in the page cache (the entry
was just written or read), as for a run that follows its preparation; from a cold disk
the file digests would also wait on its reads, which the run's first epoch pays otherwise.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from data.cache import MANIFEST, load_processed
from data.columns import SplitColumns
from data.file_digests import digest_problem
from data.processing import columns_sha256
from data.splits import SPLIT_NAMES


def _median_seconds(work: Callable[[], object], repeats: int) -> dict[str, float]:
    """{"seconds": median wall time, "cpu_seconds": median CPU time} of `work()`."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return {"seconds": round(statistics.median(walls), 3),
            "cpu_seconds": round(statistics.median(cpus), 3)}  # fmt: skip


def check_seconds(entry: Path, repeats: int = 3) -> dict[str, dict[str, float]]:
    """Median wall and CPU seconds of mapping the entry's columns, of its file digests, of
    its documents' digest and of the whole checked load (`load_processed`)."""
    expected = json.loads((entry / MANIFEST).read_text("utf-8"))["files"]
    splits = {split: SplitColumns.open(entry / split) for split in SPLIT_NAMES}
    return {
        "map": _median_seconds(
            lambda: [SplitColumns.open(entry / split) for split in SPLIT_NAMES], repeats),
        "file_digests": _median_seconds(lambda: digest_problem(entry, expected), repeats),
        "documents_digest": _median_seconds(lambda: columns_sha256(splits), repeats),
        "checked_load": _median_seconds(lambda: load_processed(entry), repeats),
    }  # fmt: skip
