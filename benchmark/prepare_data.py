"""Fetch and preprocess a dataset into the cache: `orderbench prepare [NAME] [OVERRIDE ...]`
(`benchmark.cli_commands.PREPARE`).

Runs the same data pipeline as training (reader, split, tokenisation, vocabulary, word
vectors) so that the first training run starts from the cache. With a preset whose frozen
sentence encoder keeps its vectors on disk (`model=minilm_ptrnet`), it also encodes every
sentence of every split once, so that no training run spends its time budget on the
encoder. Prints the split sizes (and the sentences newly encoded). A long preparation
shows its progress on a terminal (documents, documents/s, time left) and logs a line per
stage (`data.processing`) on standard error.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence

from benchmark.cli_arguments import error_lines, report_error
from benchmark.cli_commands import PREPARE, dataset_overrides
from benchmark.config.compose import COMPOSE_ERRORS, compose_config, compose_error
from benchmark.run.stages import build_datamodule, build_task
from data.cache import DamagedCacheError
from data.columns import CacheWriteError
from data.errors import DataFormatError
from data.readers.sources import DatasetNotFoundError


def main(argv: Sequence[str]) -> int:
    return PREPARE.run(argv, _prepare, lambda argv: dataset_overrides(PREPARE.parse(argv)))


def _prepare(overrides: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        cfg = compose_config(overrides)
    except COMPOSE_ERRORS as error:
        return report_error(PREPARE.prog, compose_error(error))
    datamodule = build_datamodule(cfg)
    try:
        datamodule.prepare_data()
    except (DatasetNotFoundError, DataFormatError) as error:  # missing, mis-laid or malformed
        print(error_lines(error), file=sys.stderr)
        raise SystemExit(2) from None
    except (CacheWriteError, DamagedCacheError) as error:  # a full disk; an entry unbuildable
        print(error_lines(error), file=sys.stderr)
        raise SystemExit(1) from None
    if datamodule.cache_path is None:  # the warning above names the file not written
        print(f"error: {cfg.dataset.name}: the processed data could not be cached",
              file=sys.stderr)
        raise SystemExit(1)
    datamodule.setup("fit")
    stats = {"dataset": cfg.dataset.name, **datamodule.stats()}
    encoder = getattr(build_task(cfg, datamodule).net, "sentence_encoder", None)
    if hasattr(encoder, "prepare"):  # a frozen text encoder with a vector store
        texts = [s for split in datamodule.documents.values() for d in split for s in d.sentences]
        stats["sentences_encoded"] = encoder.prepare(texts)
    print(json.dumps(stats, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
