"""Progress of a long data stage: a bar on a terminal (documents, documents/s and, when the
total is known, the time left), and one line in the log when the stage ends."""

from __future__ import annotations

import logging
import time

from tqdm.auto import tqdm


def rate(count: int, seconds: float) -> str:
    """``"12,345 documents in 6.1 s (2,024 documents/s)"``."""
    per_second = count / seconds if seconds > 0 else float("inf")
    return f"{count:,} documents in {seconds:.1f} s ({per_second:,.0f} documents/s)"


class StageProgress:
    """Counts the documents of one stage (``update``), used as a context: on the way out the
    bar goes and, unless an error ends the stage, the log gets ``<stage>: <rate>`` and
    ``detail``. The bar shows only where standard error is a terminal."""

    def __init__(self, log: logging.Logger, stage: str, total: int | None = None) -> None:
        self.log = log
        self.stage = stage
        self.total = total
        self.count = 0
        self.detail = ""

    def __enter__(self) -> StageProgress:
        self.start = time.perf_counter()
        self._bar = tqdm(
            total=self.total, desc=self.stage, unit=" documents", unit_scale=True,
            disable=None, mininterval=0.5, leave=False, dynamic_ncols=True,
        )  # fmt: skip
        return self

    def update(self, documents: int) -> None:
        self.count += documents
        self._bar.update(documents)

    def __exit__(self, kind, error, trace) -> None:
        self._bar.close()
        if kind is None:
            seconds = time.perf_counter() - self.start
            self.log.info("%s: %s%s", self.stage, rate(self.count, seconds), self.detail)
