"""``OrderingData``: reader -> processed (cached) data -> the datasets of each split, with
their fixed evaluation presentations, following the evaluation protocol of docs/design.md,
section 5.

- The processed data is a cache entry of Arrow columns (``data.cache``), memory-mapped once
  per process (``prepare_data`` and ``setup`` may be called any number of times); its
  documents are ``documents[split]`` (``data.columns.SplitColumns``, a sequence of
  ``Document`` read one at a time), and DDP ranks and loader workers share its pages.

- Training: every document gets a fresh permutation every epoch (the Lightning form's
  ``set_epoch``, called by the LightningModule at each training epoch start); with
  ``drop_last`` (the released ATTOrderNet code's batching, off by default) a seeded random
  ``len(train) % batch_size`` documents sit out each epoch, so every batch is full
  (``data.datamodule``'s loaders).
- Valid/test: one fixed permutation per document from (``name``, split, id,
  ``protocol_seed``), identical for every model and training seed; every document exactly
  once, in a deterministic order (sorted by size); nothing is dropped.
- Sentences longer than ``max_sentence_tokens`` are truncated; documents are never dropped.
- The same text in two splits is refused, naming both documents; repeats within a split
  are counted (``duplicates``, in ``stats()``) and kept (``data.duplicates``).
- A reader that assigns its splits by a protocol of its own (the folds of
  ``data.readers.barzilay_lapata``) describes it with ``split_protocol()``; ``stats()``
  carries that description (``split_protocol``), so the run record says which articles
  were trained, validated and tested on.
- Noise (``noise`` 1 or 0/1, docs/design.md, section 4): distractor sentences from other documents
  of the same split (``data.noise``), fixed per evaluation document like its permutation,
  fresh per training epoch.
- The gold order never leaks: candidates appear in the presented order only, and the
  presented order depends on the document id, not on its content or gold order.

Without Lightning: commands that only read the data (``orderbench datacard``) use this class;
training uses its Lightning form with loaders, ``data.datamodule.OrderingDataModule``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path

from data.bucketing import BUCKET_KEYS
from data.cache import ProcessedData, load_or_build, stored_documents_sha256
from data.columns import SplitColumns
from data.dataset import FixedPermutations, OrderingDataset
from data.duplicates import DuplicateReport
from data.noise import eval_distractors, noise_setting
from data.paths import PROCESSED_CACHE
from data.processing import VOCAB_SPLITS, Prepared, documents_sha256, prepare_columns
from data.readers import Reader, materialise, split_documents
from data.shuffle import eval_permutation
from data.splits import SPLIT_NAMES
from data.tokenize import DEFAULT_TOKENIZER, TOKENIZER_VERSION, tokenizer_named
from data.vocab import Vocab

log = logging.getLogger(__name__)

EVAL_SPLITS = ("valid", "test")


def _sha256_lines(rows) -> str:
    """sha256 over one JSON line per row."""
    digest = hashlib.sha256()
    for row in rows:
        digest.update((json.dumps(row, sort_keys=True, default=str) + "\n").encode("utf-8"))
    return digest.hexdigest()


class OrderingData:
    """Sentence-ordering data for one dataset.

    Args:
        reader: object with ``read_splits()`` (and ideally ``fingerprint()``), see
            ``data.readers``.
        name: dataset name; part of the evaluation permutation seed.
        batch_size / eval_batch_size: documents per training / evaluation batch.
        min_freq / max_vocab: vocabulary from the training split (``max_vocab`` counts
            ``<pad>`` and ``<unk>``).
        vocab_splits: the splits the vocabulary is built from (default ``("train",)``;
            the released ATTOrderNet code's: all three, ``data.processing.process``).
        max_sentence_tokens: longer sentences are truncated to this many tokens.
        protocol_seed: seed of the fixed evaluation permutations; model-independent, keep it.
        seed: training shuffles (word vectors are the model's: benchmark.run.model_builder).
        noise: distractors per document (``dataset.noise``): 0 (none, the default), 1 or
            "0/1" (one with probability 0.5), see ``data.noise``.
        num_workers: DataLoader worker processes (of the Lightning form's loaders).
        cache_dir: processed-data cache root (default ``data/cache/processed``).
        drop_last: training batches are all full: a seeded random remainder of the
            documents sits out each epoch (``data.sampler``; the released ATTOrderNet
            code's batching). Evaluation never drops a document.
        tokenizer: ``regex`` (the default) or ``whitespace`` for corpora that come
            tokenised (``data.tokenize``).
        bucket_by: what length-aware batches group by (``data.sampler.BUCKET_KEYS``):
            ``shape`` (sentences, then the longest sentence: the default) or ``tokens``
            (the document's word tokens: for a model that reads the joined paragraph).
    """

    def __init__(
        self,
        reader: Reader,
        name: str,
        batch_size: int = 32,
        eval_batch_size: int = 64,
        min_freq: int = 1,
        max_vocab: int | None = None,
        max_sentence_tokens: int = 60,
        protocol_seed: int = 0,
        seed: int = 0,
        num_workers: int = 0,
        cache_dir: str | None = None,
        noise: int | str = 0,
        vocab_splits: Sequence[str] = VOCAB_SPLITS,
        drop_last: bool = False,
        tokenizer: str = DEFAULT_TOKENIZER,
        bucket_by: str = "shape",
    ) -> None:
        super().__init__()  # the Lightning form's base class after this one
        if bucket_by not in BUCKET_KEYS:
            raise ValueError(f"bucket_by must be one of {BUCKET_KEYS}, got {bucket_by!r}")
        self.bucket_by = bucket_by
        if max_sentence_tokens < 1:
            raise ValueError(f"max_sentence_tokens must be >= 1, got {max_sentence_tokens}")
        try:  # an unknown name fails here, before any data is read
            tokenizer_named(tokenizer)
        except ValueError as error:
            raise ValueError(f"tokenizer: {error}") from None
        self.tokenizer = tokenizer
        self.noise = noise_setting(noise)
        self.reader = reader
        self.name = name
        self.batch_size = batch_size
        self.eval_batch_size = eval_batch_size
        self.min_freq = min_freq
        self.max_vocab = max_vocab
        self.max_sentence_tokens = max_sentence_tokens
        self.protocol_seed = protocol_seed
        self.seed = seed
        self.num_workers = num_workers
        self.cache_dir = Path(cache_dir) if cache_dir is not None else PROCESSED_CACHE
        self.vocab_splits = tuple(str(split) for split in vocab_splits)
        self.drop_last = bool(drop_last)
        self.split_protocol: dict | None = None
        self.vocab: Vocab | None = None
        self.documents: dict[str, SplitColumns] = {}  # per split, its documents in order
        self.duplicates: DuplicateReport | None = None
        self.datasets: dict[str, OrderingDataset] = {}
        self.cache_path: Path | None = None
        self.loaded_from_cache = False
        self._data: ProcessedData | None = None  # the processed data, loaded once
        self._identity: dict | None = None

    # -- data preparation -----------------------------------------------------------------

    def _cache_material(self) -> tuple[dict, dict | None]:
        """(what the processed-data cache keys this data on: the reader's fingerprint and
        the tokenisation and vocabulary settings; the splits, when the reader had to be read
        for its fingerprint)."""
        settings = {
            "tokenizer": TOKENIZER_VERSION,
            "min_freq": self.min_freq,
            "max_vocab": self.max_vocab,
        }
        if self.vocab_splits != VOCAB_SPLITS:  # the default keeps its cache key
            settings["vocab_splits"] = list(self.vocab_splits)
        if self.tokenizer != DEFAULT_TOKENIZER:  # (as does this one)
            settings["tokenizer_name"] = self.tokenizer
        read = None
        if hasattr(self.reader, "fingerprint"):
            reader_fp = self.reader.fingerprint()
        else:
            read = materialise(split_documents(self.reader))
            reader_fp = {"documents_sha256": documents_sha256(read)}
        return {"reader": reader_fp, "settings": settings}, read

    def _load_or_build(self, keyed: tuple[dict, dict | None] | None = None) -> ProcessedData:
        """The processed data from the cache, built first when absent; `keyed`: what
        `_cache_material` gave already (its reader's files are not hashed again)."""
        material, read = keyed if keyed is not None else self._cache_material()

        def build(folder: Path) -> Prepared:
            size_hint = getattr(self.reader, "size_hint", None)
            return prepare_columns(
                self.name, read if read is not None else split_documents(self.reader), folder,
                self.min_freq, self.max_vocab, self.vocab_splits, self.tokenizer,
                size_hint() if size_hint is not None else None,
            )  # fmt: skip

        data, self.cache_path, self.loaded_from_cache = load_or_build(
            self.cache_dir, material, build
        )
        return data

    def documents_sha256(self) -> str:
        """``identity()``'s digest of the documents, cheaply: the loaded data's once
        loaded; else read from the processed-data cache's manifest (the reader's files are
        hashed for the cache key, no document is loaded); else from the data, built and
        cached (kept for ``setup``)."""
        if self._data is None:
            keyed = self._cache_material()
            stored = stored_documents_sha256(self.cache_dir, keyed[0])
            if stored is not None:
                return stored
            self._data = self._load_or_build(keyed)
        return self._data.documents_sha256

    def prepare_data(self) -> None:
        """Read, tokenise and cache the dataset, or map its cache entry: once per process
        (Lightning calls this again in fit, validate and test)."""
        if self._data is None:
            self._data = self._load_or_build()

    def setup(self, stage: str | None = None) -> None:
        """Load the processed data (from the cache when present); idempotent."""
        if self.vocab is not None:
            return
        self.prepare_data()
        data = self._data
        self.duplicates = data.duplicates
        if hasattr(self.reader, "split_protocol"):
            self.split_protocol = self.reader.split_protocol()
        self.vocab = data.vocab
        self.documents = data.splits
        for split in SPLIT_NAMES:
            documents = data.splits[split]
            fixed = distractors = None
            if split in EVAL_SPLITS:
                counts = documents.sentence_counts
                fixed = FixedPermutations(counts)
                for index, (doc_id, n) in enumerate(
                    zip(documents.doc_ids(), counts.tolist(), strict=True)
                ):
                    fixed[index] = eval_permutation(
                        self.name, split, doc_id, n, self.protocol_seed
                    )
                if self.noise != "0":
                    distractors = eval_distractors(
                        self.noise, self.name, split, documents.doc_ids(), counts,
                        self.protocol_seed,
                    )  # fmt: skip
            self.datasets[split] = OrderingDataset(
                documents, self.max_sentence_tokens, fixed, self.seed, noise=self.noise,
                fixed_distractors=distractors,
            )  # fmt: skip
        stats = self.stats()
        protocol = stats.pop("split_protocol", None)
        log.info("dataset %s: %s", self.name, stats)
        if protocol is not None:
            log.info(
                "dataset %s: protocol %s, validation fold %s, test: %s",
                self.name, protocol["protocol"], protocol["valid_fold"], protocol["test"],
            )  # fmt: skip

    # -- protocol ---------------------------------------------------------------------------

    def eval_permutations(self, split: str) -> list[list[int]]:
        """The fixed presentation order of every document of an evaluation split."""
        return self._dataset(split).fixed_permutations.tolist()

    def identity(self) -> dict:
        """What the figures of a run on this data depend on besides the model (docs/design.md,
        section 8): the dataset's name, a digest of its documents (ids, text and split
        of each) and, per evaluation split, a digest of what a model is shown (each
        document's id, text, fixed permutation and distractors, from ``name``,
        ``protocol_seed`` and ``noise``). Two runs are comparable on a split only when its
        presentation digests agree. Computed once, after ``setup``."""
        if self._identity is None:
            presentation = {}
            for split in EVAL_SPLITS:
                dataset = self._dataset(split)
                rows = (  # distractors as (source document, sentence, slot)
                    [doc.id, doc.sentences, dataset.fixed_permutations[i],
                     [dataclasses.astuple(d) for d in dataset.distractors(i, 0)]]
                    for i, doc in enumerate(self.documents[split])
                )  # fmt: skip
                presentation[split] = _sha256_lines(rows)
            self._identity = {
                "name": self.name,
                "documents_sha256": self._data.documents_sha256,
                "presentation_sha256": presentation,
            }
        return self._identity

    def stats(self) -> dict:
        """Documents, trivial (one-sentence) documents, sentences and repeated documents
        (same text as another of the split) per split, vocabulary size; the layout read,
        for a reader of several layouts (``resolved_layout()``, e.g. ``data.readers.nips``);
        the reader's split protocol
        where it has one (``split_protocol``); the vocabulary's splits and ``drop_last``
        where they are not the defaults; in the noise setting also the setting and the
        distractors of each evaluation split."""
        counts = {split: d.sentence_counts for split, d in self.documents.items()}
        stats = {
            "n_docs": {split: len(c) for split, c in counts.items()},
            "n_trivial": {split: int((c == 1).sum()) for split, c in counts.items()},
            "n_sentences": {split: int(c.sum()) for split, c in counts.items()},
            "vocab_size": len(self.vocab) if self.vocab is not None else 0,
        }
        if self.duplicates is not None:
            stats["n_duplicates"] = self.duplicates.counts()
        if hasattr(self.reader, "resolved_layout"):
            stats["layout"] = self.reader.resolved_layout()
        if self.split_protocol is not None:
            stats["split_protocol"] = self.split_protocol
        if self.vocab_splits != VOCAB_SPLITS:
            stats["vocab_splits"] = list(self.vocab_splits)
        if self.drop_last:
            stats["drop_last"] = True
        if self.noise != "0":
            stats["noise"] = self.noise
            stats["n_distractors"] = {
                split: sum(len(d) for d in self.datasets[split].fixed_distractors)
                for split in EVAL_SPLITS
                if split in self.datasets
            }
        return stats

    # -- datasets ---------------------------------------------------------------------------

    def _dataset(self, split: str) -> OrderingDataset:
        if split not in self.datasets:
            raise RuntimeError(f"call setup() before asking for the {split!r} data")
        return self.datasets[split]
