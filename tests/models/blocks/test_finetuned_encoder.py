"""The fine-tuned Transformer sentence encoder (models.blocks.sentence_transformer_finetuned) and
its preset `minilm_finetune`: offline loading, which parameters train, the cached frozen
layers computing what the whole encoder computes (also in length-sorted chunks and read
back from the on-disk store), and gradients only where they train."""

import os

import pytest
import torch
from fixtures_minilm import needs_minilm

from benchmark.run.vector_store import SentenceVectorStore, VectorStoreFolder
from models.blocks.masked_ops import masked_mean
from models.blocks.pretrained import EncoderError
from models.blocks.sentence_transformer_finetuned import FineTunedSentenceEncoder
from models.registry import get_preset
from tests.model_batches import random_batch

pytestmark = needs_minilm
TEXTS = [["The cat sat on the mat.", "It was warm."], ["A much longer sentence, with commas."]]
DOCS = [  # sentences of different token counts, so that length-sorted chunks reorder them
    ["The committee met on Tuesday to discuss the budget for the coming year.", "It agreed."],
    ["Rain.", "The river rose over its banks, flooding the lower town and its fields.", "Why?"],
]


@pytest.fixture(scope="module")
def encoders():
    """One encoder per setting (loading MiniLM takes a moment)."""
    torch.manual_seed(0)
    return {
        (k, c): FineTunedSentenceEncoder(train_layers=k, cache_frozen=c).eval()
        for k, c in ((1, True), (1, False), (2, True), (0, True), (None, False))
    }


def test_loads_offline_and_refuses_to_fetch(encoders):
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    assert encoders[(1, True)].output_dim == 384
    with pytest.raises(EncoderError, match=r"^model\.net\.encoder=no-such-owner/.*offline"):
        FineTunedSentenceEncoder("no-such-owner/no-such-model-anywhere")


@pytest.mark.parametrize("train_layers", [0, 1, 2, None])
def test_only_the_top_layers_train(encoders, train_layers):
    encoder = encoders[(train_layers, train_layers is not None)]
    layers = encoder.model.encoder.layer
    top = len(layers) if train_layers is None else train_layers
    for index, layer in enumerate(layers):
        expected = index >= len(layers) - top
        assert all(p.requires_grad == expected for p in layer.parameters()), index
    embeddings = encoder.model.embeddings.parameters()
    assert all(p.requires_grad == (train_layers is None) for p in embeddings)
    assert not any(p.requires_grad for p in encoder.model.pooler.parameters())  # unused


def test_frozen_part_stays_in_eval_mode(encoders):
    encoder = encoders[(1, True)]
    encoder.train()
    try:
        assert not encoder.model.embeddings.training
        assert not encoder.model.encoder.layer[0].training
        assert encoder.model.encoder.layer[-1].training
    finally:
        encoder.eval()


def test_cached_top_layer_equals_the_whole_encoder(encoders):
    """Unchanged weights: the cached frozen states + the top layers = the full forward pass
    of the pretrained model, mean-pooled; padding to other sentences changes nothing."""
    cached, uncached = encoders[(1, True)], encoders[(1, False)]
    with torch.no_grad():
        flat = [t for doc in TEXTS for t in doc]
        inputs = cached.tokenizer(flat, padding=True, return_tensors="pt")
        hidden = cached.model(**inputs).last_hidden_state  # (S, T, 384)
        expected = masked_mean(hidden, inputs["attention_mask"].bool())  # (S, 384)
        for encoder in (cached, uncached, encoders[(2, True)]):
            out = encoder(TEXTS, 3)  # (2, 3, 384)
            torch.testing.assert_close(out[0, :2], expected[:2], atol=2e-3, rtol=1e-3)
            torch.testing.assert_close(out[1, 0], expected[2], atol=2e-3, rtol=1e-3)
            assert (out[1, 1:] == 0).all() and (out[0, 2] == 0).all()
            alone = encoder([[TEXTS[0][1]]], 1)[0, 0]
            torch.testing.assert_close(alone, out[0, 1], atol=2e-3, rtol=1e-3)


def test_preset_gradients_reach_the_top_layer_only():
    preset = get_preset("minilm_finetune")
    model = preset.build(**(preset.tiny | dict(train_layers=1))).train()
    model.loss(random_batch(0, [3, 2])).backward()
    layers = model.sentence_encoder.model.encoder.layer
    assert all(p.grad is None for p in layers[0].parameters())
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in layers[-1].parameters())
    assert model.sentence_encoder.learning_rate == 2e-5  # the preset's encoder rate


def test_bad_train_layers_name_the_key():
    with pytest.raises(ValueError, match="model.net.train_layers=7"):
        FineTunedSentenceEncoder(train_layers=7)


def test_length_sorted_chunks_change_nothing(encoders):
    """Chunks of 1 or 2 length-sorted sentences give what one padded pass gives."""
    encoder = encoders[(1, True)]
    with torch.no_grad():
        whole = encoder(DOCS, 3)  # (2, 3, 384), one chunk of 5 sentences
        for batch_size in (1, 2):
            encoder.batch_size = batch_size
            try:
                torch.testing.assert_close(encoder(DOCS, 3), whole, atol=1e-5, rtol=1e-5)
            finally:
                encoder.batch_size = 128


@pytest.mark.parametrize("cache", [True, False])
def test_fixed_shapes_chunk_by_slots_not_sentences(encoders, cache):
    """A compiled step unrolls the chunks: with `fixed_shapes` their count is
    ceil(B' * num / batch_size), B' the power of two at least B, whatever the sentences (3
    or 5 here), and the vectors are those of the sentence-sized chunks."""
    encoder = encoders[(1, cache)]
    encoder.batch_size = 2
    try:
        for docs in (DOCS, [DOCS[0], DOCS[1][:1]]):
            inputs = encoder.text_inputs(docs, 3, fixed_shapes=True)
            assert len(inputs["chunks"]) == 3  # ceil(2 * 3 / 2)
            rows = [len(next(iter(chunk.values()))) for chunk in inputs["chunks"]]
            sentences = sum(map(len, docs))
            assert rows == [sentences * k // 3 - sentences * (k - 1) // 3 for k in (1, 2, 3)]
            with torch.no_grad():
                torch.testing.assert_close(encoder(inputs, 3), encoder(docs, 3),
                                           atol=1e-5, rtol=1e-5)
        for docs in ([*DOCS, DOCS[0]], [*DOCS, *DOCS]):  # B = 3 and 4: 7 and 10 sentences
            assert len(encoder.text_inputs(docs, 3, fixed_shapes=True)["chunks"]) == 6
    finally:
        encoder.batch_size = 128


def _pair(cache: bool, store=None, train_layers: int = 1, batch_size: int = 2):
    """The preset in eval mode (no dropout), the same initial weights for every setting."""
    torch.manual_seed(0)
    model = get_preset("minilm_finetune").build(
        hidden_dim=16, paragraph_layers=1, ff_dim=24, train_layers=train_layers,
        cache_frozen=cache, encoder_store=store, encoder_batch_size=batch_size,
    )  # fmt: skip
    return model.eval()


def test_cached_and_uncached_give_the_same_vectors_and_loss():
    batch = random_batch(0, [3, 2])
    batch["texts"] = [DOCS[1], DOCS[0]]
    cached, uncached = _pair(cache=True), _pair(cache=False)
    with torch.no_grad():
        vectors = cached.sentence_encoder(batch["texts"], 3)
        torch.testing.assert_close(
            vectors, uncached.sentence_encoder(batch["texts"], 3), atol=2e-3, rtol=1e-3
        )
        torch.testing.assert_close(cached.loss(batch), uncached.loss(batch), atol=1e-3, rtol=1e-3)


def test_stored_states_read_back_identical_and_skip_the_frozen_part(tmp_path):
    folder = VectorStoreFolder(tmp_path)
    first = _pair(cache=True, store=folder).sentence_encoder
    with torch.no_grad():
        out = first(DOCS, 3)
    assert first.prepare([t for doc in DOCS for t in doc]) == 0  # known; flushes the store
    later = _pair(cache=True, store=folder).sentence_encoder
    assert later.store_name(None) == first.store_name(None)
    assert set(later._states) == set(first._states) == {t for doc in DOCS for t in doc}
    for text, state in first._states.items():
        assert later._states[text].dtype == torch.float16
        assert torch.equal(later._states[text], state), text
    later._frozen_states = None  # the frozen part must not run again
    with torch.no_grad():
        assert torch.equal(later(DOCS, 3), out)


def test_another_frozen_part_does_not_reuse_stored_states(tmp_path):
    folder = VectorStoreFolder(tmp_path)
    one = _pair(cache=True, store=folder, train_layers=1).sentence_encoder
    one.prepare([t for doc in DOCS for t in doc])
    two = _pair(cache=True, store=folder, train_layers=2).sentence_encoder
    assert two.store_name(None) != one.store_name(None)
    assert "frozen4" in two.store_name(None) and "frozen5" in one.store_name(None)
    assert two._states == {}  # nothing read from the five-layer store
    assert len(list(tmp_path.iterdir())) == 1
    longer = FineTunedSentenceEncoder(train_layers=1, max_tokens=64)
    assert longer.store_name(None) != one.store_name(None)
    with torch.no_grad():  # a changed frozen weight: another digest
        one.model.encoder.layer[0].output.dense.bias[0] += 1.0
    fresh = _pair(cache=True, train_layers=1).sentence_encoder
    assert one.store_name(None) != fresh.store_name(None)


def test_store_keeps_tensors_of_different_lengths_exactly(tmp_path):
    store = SentenceVectorStore(tmp_path, flush_every=10)
    states = {"a": torch.randn(3, 4).half(), "b": torch.randn(5, 4).half()}
    store.add(states)
    store.add({"c": torch.randn(2, 4).half()})
    store.add({})  # nothing new: written
    store.add({"d": torch.randn(6, 4).half(), "e": torch.randn(6, 4).half()})  # equal shapes
    store.flush()
    loaded = SentenceVectorStore(tmp_path).load()
    assert set(loaded) == {"a", "b", "c", "d", "e"}
    for text in ("a", "b"):
        assert torch.equal(loaded[text], states[text])
    assert loaded["d"].shape == (6, 4) and loaded["c"].shape == (2, 4)
