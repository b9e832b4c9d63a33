"""A Lightning logger that records what it is given, for the tests of what the loggers
(CSV, W&B) receive: every `log_metrics` call as one JSON line of `<save_dir>/spy.jsonl`.
Lightning hands every logger of a Trainer the same metrics, so the W&B logger gets exactly
what this one records."""

from __future__ import annotations

import json
from pathlib import Path

from pytorch_lightning.loggers.logger import Logger


class SpyLogger(Logger):
    def __init__(self, save_dir: str) -> None:
        super().__init__()
        self.path = Path(save_dir) / "spy.jsonl"

    @property
    def name(self) -> str:
        return "spy"

    @property
    def version(self) -> str:
        return "0"

    def log_hyperparams(self, params, *args, **kwargs) -> None:
        pass

    def log_metrics(self, metrics: dict, step: int | None = None) -> None:
        row = {key: float(value) for key, value in metrics.items()} | {"step": step}
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")


def spied(path: Path) -> list[dict]:
    """The rows a `SpyLogger` wrote into the folder `path`."""
    return [json.loads(line) for line in (path / "spy.jsonl").read_text().splitlines()]
