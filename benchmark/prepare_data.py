"""Fetch and preprocess a dataset into the cache: `python -m benchmark.prepare_data dataset=brown`.

Runs the same data pipeline as training (reader, split, tokenisation, vocabulary, word
vectors) so that the first training run starts from the cache. Prints the split sizes.
"""

from __future__ import annotations

import json
import sys

from benchmark.config import compose_config
from benchmark.train import build_datamodule


def main(overrides: list[str]) -> None:
    cfg = compose_config(overrides)
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    print(json.dumps({"dataset": cfg.dataset.name, **datamodule.stats()}, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
