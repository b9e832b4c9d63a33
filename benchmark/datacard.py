"""Dataset card: `orderbench datacard NAME [dataset.path=P] [OVERRIDE ...]`
(`benchmark.cli_commands.DATACARD`).

Prints one JSON object with the columns of the dataset table of Cui et al. (2018),
"Deep Attentive Sentence Ordering Network": for each split the number of documents, the
minimum, mean and maximum number of sentences per document and the one-sentence documents
(``n_trivial``); ``train_word_types``, the distinct lower-cased tokens of the training split
(``data.tokenize``), the vocabulary column of such tables; ``model_vocab_size``, the
vocabulary the models get, the same figure as a run record's ``data.vocab_size`` (the
training split's words seen at least ``min_freq`` times, reported beside it, at most
``max_vocab`` of them, with ``<pad>`` and ``<unk>``); ``duplicates``, per
split the documents repeating the text of another one of the split (``data.duplicates``;
the same text in two splits is an error), with their ids in ``duplicate_ids``;
``published_ids_left``, sentences still beginning with a published line id
(``data.readers.published_ids``; 0 when the reader stripped them); for a reader of the
published archive layout, the permutation copies it skipped; for a reader of several
layouts, the ``layout`` it read (``dataset=nips``: ``logeswaran`` or ``nseg``); and, for a
published dataset, the split sizes its papers report (``published``, from the reader's row
of ``data.readers.sources``, else the row named like the dataset) set beside ours like with like
(``vs_published``: a dataset published without a validation split had its validation
articles in its training set, so its ``train`` is compared with our train + valid; left
out under a protocol whose test split is not the published one); for a reader with a split
protocol (the folds of Accidents/Earthquakes, ``dataset.protocol``), ``split_protocol``:
the protocol, the validation and test folds and every training article's fold. The
data goes through the training pipeline (reader, split, processed cache), so a card also
warms the cache.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence

from omegaconf import DictConfig

from benchmark.cli_arguments import report_error
from benchmark.cli_commands import DATACARD, dataset_overrides
from benchmark.config.compose import COMPOSE_ERRORS, compose_config, compose_error
from benchmark.run.run_data import build_datamodule
from data.cache import DamagedCacheError
from data.document import Document
from data.errors import DataFormatError
from data.readers.published_ids import split_published_id
from data.readers.sources import SOURCES, DatasetSource
from data.tokenize import DEFAULT_TOKENIZER, tokenizer_named

log = logging.getLogger(__name__)


def split_card(lengths: Sequence[int]) -> dict:
    """Documents, sentences per document (min/mean/max) and trivial documents, from each
    document's number of sentences."""
    return {
        "n_docs": len(lengths),
        "min": min(lengths),
        "mean": round(sum(lengths) / len(lengths), 2),
        "max": max(lengths),
        "n_trivial": sum(n == 1 for n in lengths),
    }


def train_vocabulary(documents: Sequence[Document], tokenizer: str = DEFAULT_TOKENIZER) -> int:
    tokenize = tokenizer_named(tokenizer)
    return len({token for doc in documents for s in doc.sentences for token in tokenize(s)})


def compare_published(n_docs: dict[str, int], published: dict[str, int]) -> dict:
    """``{our splits joined by '+': {"published": n, "ours": m}}``; without a published
    ``valid``, the published ``train`` is set beside our train + valid."""
    cover = {"train": ("train", "valid")} if "valid" not in published else {}
    return {
        "+".join(cover.get(split, (split,))): {
            "published": size,
            "ours": sum(n_docs.get(s, 0) for s in cover.get(split, (split,))),
        }
        for split, size in published.items()
    }


def published_ids_left(documents: dict[str, list[Document]]) -> int:
    """Sentences that still begin with a published line id."""
    return sum(
        split_published_id(sentence)[0] is not None
        for docs in documents.values()
        for doc in docs
        for sentence in doc.sentences
    )


def published_source(reader: object, name: str) -> DatasetSource | None:
    """The reader's row of ``SOURCES`` (a reader of several layouts knows the one it read),
    else the row of the dataset ``name``, else ``None``."""
    source = getattr(reader, "source", None)
    if isinstance(source, DatasetSource):
        return source
    return SOURCES.get(name)


def datacard(cfg: DictConfig) -> dict:
    """The card of ``cfg.dataset`` (a composed OrderBench config)."""
    datamodule = build_datamodule(cfg, loaders=False)
    datamodule.prepare_data()
    datamodule.setup("fit")
    log.info(
        "processed data %s %s",
        "loaded from" if datamodule.loaded_from_cache else "built into",
        datamodule.cache_path,
    )
    documents = datamodule.documents
    card = {
        "dataset": cfg.dataset.name,
        "splits": {split: split_card(d.sentence_counts.tolist()) for split, d in documents.items()},
        "train_word_types": train_vocabulary(documents["train"], datamodule.tokenizer),
        "model_vocab_size": len(datamodule.vocab),  # the run record's data.vocab_size
        "min_freq": cfg.dataset.datamodule.get("min_freq", 1),
        "duplicates": datamodule.duplicates.counts(),
        "duplicate_ids": {s: g for s, g in datamodule.duplicates.groups.items() if g},
        "published_ids_left": published_ids_left(documents),
    }
    if hasattr(datamodule.reader, "skipped_copies"):
        card["skipped_permutation_copies"] = datamodule.reader.skipped_copies()
    if hasattr(datamodule.reader, "resolved_layout"):
        card["layout"] = datamodule.reader.resolved_layout()
    protocol = datamodule.split_protocol
    if protocol is not None:
        card["split_protocol"] = protocol
    published_splits = protocol is None or protocol.get("test_fold") is None
    source = published_source(datamodule.reader, cfg.dataset.name)
    if published_splits and source is not None and source.sizes:
        published = source.sizes
        card["published"] = published
        n_docs = {split: len(docs) for split, docs in documents.items()}
        card["vs_published"] = compare_published(n_docs, published)
    return card


def main(argv: Sequence[str]) -> int:
    return DATACARD.run(argv, _print_card, lambda argv: dataset_overrides(DATACARD.parse(argv)))


def _print_card(overrides: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:  # no word vectors needed
        cfg = compose_config([*overrides, "++model.embeddings=null"])
    except COMPOSE_ERRORS as error:
        return report_error(DATACARD.prog, compose_error(error))
    try:
        card = datacard(cfg)
    except (FileNotFoundError, DataFormatError, DamagedCacheError) as err:  # missing,
        raise SystemExit(f"error: {err}") from None  # mis-laid, malformed data; a bad cache
    print(json.dumps(card, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
