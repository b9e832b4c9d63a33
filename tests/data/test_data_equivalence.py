"""The memory-mapped Arrow data path gives exactly what the in-memory path before it gave.

`EXPECTED` holds, per case, the digest (`data_digest`) of everything a DataModule hands a
run: the vocabulary, the run identity (config-independent part: the data digest
`documents_sha256` and the presentation digests), the statistics, the repeats within
splits, every document (text, meta, source), the fixed evaluation permutations, the
batches of two training epochs and of both evaluation passes (every tensor and list, the
texts included) and one DDP shard of a shuffled pass. The digests were computed by this
same function with the code of commit c6ce562 (documents as Python lists, the vocabulary
built by `Vocab.build` over every token in memory, `datasets` on disk), and this file is
left untouched since, so a difference here is a change in what runs compute. The Brown
and NIPS digests (slow; skipped without the corpora) cover the real corpora of the
finished runs, which keep their config ids and data digests.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import pytest
import torch

from data.datamodule import OrderingDataModule
from data.readers.jsonl import JsonlReader
from data.readers.synthetic import SyntheticReader
from data.sampler import BucketBatchSampler

WORDS = (
    "the model of a paper we show that results improve on tasks with data and learning "
    "networks neural U.S. don't it's Atlanta's 3.5 free-for-all -- ... ( ) , ; : <pad> <unk> "
    "naïve café Zürich 東京 face/image intra- DCS"
).split()


def write_corpus(root: Path) -> Path:
    """A seeded JSONL corpus with what the path must keep: meta with file and line,
    repeats within a split, words seen only in evaluation, tokens `<pad>` and `<unk>`,
    Unicode, sentences longer than the truncation, documents of one sentence."""
    rng = random.Random(35)
    root.mkdir(parents=True, exist_ok=True)
    vocabulary = WORDS + [f"w{k}" for k in range(120)]
    for split, size in {"train": 150, "valid": 40, "test": 45}.items():
        lines, documents = [], []
        for k in range(size):
            if k % 17 == 5 and documents:  # a repeat of an earlier document of the split
                sentences = list(documents[rng.randrange(len(documents))])
            else:
                sentences = []
                for _ in range(rng.choice([1, 2, 3, 4, 5, 7, 9, 12])):
                    n = rng.choice([1, 2, 5, 9, 14, 20, 33, 70])
                    words = rng.choices(vocabulary, k=n)
                    if split != "train" and rng.random() < 0.3:
                        words.append(f"{split}only{rng.randrange(9)}")
                    sentences.append(" ".join(words) + ".")
            documents.append(sentences)
            record = {"id": f"{split}-{k}", "sentences": sentences,
                      "meta": {"genre": rng.choice("abc"), "file": f"{split}.jsonl", "line": k + 1}}
            if k % 3 == 0:
                record["source"] = f"{split}-source-{k // 6}"
            lines.append(json.dumps(record, ensure_ascii=k % 2 == 0) + "\n")
        (root / f"{split}.jsonl").write_text("".join(lines), "utf-8")
    return root


def _update(digest, value) -> None:
    if torch.is_tensor(value):
        digest.update(f"{value.dtype}{tuple(value.shape)}".encode())
        digest.update(value.contiguous().numpy().tobytes())
    else:
        digest.update(json.dumps(value, sort_keys=True, ensure_ascii=False).encode("utf-8"))


def _batches(loader) -> str:
    digest = hashlib.sha256()
    for batch in loader:
        for key in sorted(batch):
            digest.update(key.encode())
            _update(digest, batch[key])
    return digest.hexdigest()


def data_digests(dm: OrderingDataModule) -> dict[str, str]:
    """What a DataModule (set up) hands a run, as digests (see the module docstring)."""
    parts = {
        "vocab": dm.vocab.itos,
        "identity": dm.identity(),
        "stats": dm.stats(),
        "duplicates": dm.duplicates.groups,
        "documents": [[d.id, list(d.sentences), d.meta, d.source]
                      for split in ("train", "valid", "test") for d in dm.documents[split]],
        "meta_key_order": [list(d.meta) for split in ("train", "valid", "test")
                           for d in dm.documents[split]],
        "eval_permutations": [[list(map(int, p)) for p in dm.eval_permutations(split)]
                              for split in ("valid", "test")],
    }
    digests = {}
    for name, value in parts.items():
        digest = hashlib.sha256()
        _update(digest, value)
        digests[name] = digest.hexdigest()
    for epoch in (0, 1):
        dm.set_epoch(epoch)
        digests[f"train_epoch_{epoch}"] = _batches(dm.train_dataloader())
    for split in ("valid", "test"):
        digests[split] = _batches(dm.eval_dataloader(split))
    sizes = dm.datasets["train"].sizes()
    shard = BucketBatchSampler(sizes, 5, shuffle=True, seed=2, epoch=3, num_replicas=2, rank=1,
                               pool_batches=3)
    digests["ddp_shard"] = hashlib.sha256(json.dumps(list(shard)).encode()).hexdigest()
    return digests


def data_digest(dm: OrderingDataModule) -> str:
    return hashlib.sha256(json.dumps(data_digests(dm), sort_keys=True).encode()).hexdigest()


def _synthetic(root: Path):
    return SyntheticReader(n_train=60, n_valid=20, n_test=25, max_sentences=6)


def _jsonl(root: Path):
    return JsonlReader(str(write_corpus(root)))


CASES = {
    "synthetic": (_synthetic, {}),
    "jsonl": (_jsonl, {"max_sentence_tokens": 12, "batch_size": 8, "eval_batch_size": 5}),
    "jsonl_whitespace_all_splits": (_jsonl, {"tokenizer": "whitespace", "min_freq": 2,
                                             "max_vocab": 60,
                                             "vocab_splits": ("train", "valid", "test")}),
    "jsonl_noise1_drop_last": (_jsonl, {"noise": 1, "drop_last": True, "seed": 3}),
    "jsonl_noise01": (_jsonl, {"noise": "0/1", "protocol_seed": 2, "min_freq": 3}),
}

EXPECTED = {  # with the code of commit c6ce562, see the module docstring
    "synthetic": "a688c638a579081ac775cc8bad057a4766e9da70836d069f6921630ab777bed1",
    "jsonl": "12b4c403759128e387ccec7662e80924b62251be995b7c3cd02b98a61f17ce43",
    "jsonl_whitespace_all_splits":
        "950ce67582e861f2acbceabae4997fb702607e2d38aa71d2c98b0873d3bd8776",
    "jsonl_noise1_drop_last": "afc465aa68fff3c82dd122d0adbc284bdb4d6c5cc18d16beee7e0f7c81170bfc",
    "jsonl_noise01": "6fc0c3b5040bfab833243c5f368221a2b87b363d47018330c9c09704d3eb7a6a",
}


def build(case: str, root: Path) -> OrderingDataModule:
    reader, options = CASES[case]
    dm = OrderingDataModule(reader=reader(root / "corpus"), name=f"eq-{case}",
                            cache_dir=str(root / "cache"), **options)
    dm.setup()
    return dm


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_mapped_path_gives_what_the_in_memory_path_gave(case: str, tmp_path: Path):
    built = build(case, tmp_path)
    assert not built.loaded_from_cache
    assert data_digest(built) == EXPECTED[case]
    loaded = build(case, tmp_path)  # the same from the cache entry
    assert loaded.loaded_from_cache and data_digest(loaded) == EXPECTED[case]


# -- the real corpora of finished runs ---------------------------------------------------------
REAL = {  # config overrides -> digest, with the code of commit c6ce562
    "brown": ([], "02f9170e4a4ee0816af9629bd3e17967060387c8698c0f3d108c0b866c903eb3"),
    "nips": (["+reproduce=nips", "+experiment=attordernet_paper"],
             "b5a356731a9fc392a976749ab3be81f8b19921886c9af655c6ebe15b6fda9974"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REAL))
def test_the_real_corpora_give_what_they_gave(name: str, tmp_path: Path):
    from benchmark.config.compose import compose_config
    from benchmark.run.stages import build_datamodule

    overrides, expected = REAL[name]
    if name == "nips" and not os.environ.get("ORDERBENCH_DATASETS"):
        pytest.skip("ORDERBENCH_DATASETS is not set (the NIPS abstracts)")
    cfg = compose_config([*overrides, f"+dataset.datamodule.cache_dir={tmp_path}"])
    dm = build_datamodule(cfg)
    try:
        dm.prepare_data()
    except FileNotFoundError as error:
        pytest.skip(str(error).splitlines()[0])
    dm.setup()
    assert data_digest(dm) == expected
