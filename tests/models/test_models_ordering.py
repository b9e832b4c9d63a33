"""OrderingModel behaviour beyond what every preset shares (tests/models/test_models_presets.py
checks shapes, masking, decoding, padding invariance, log_prob and gradients of each preset):
the word vectors setting the width, and the errors of bad inputs, through lstm_ptrnet."""

import pytest
import torch

from models.presets import lstm_ptrnet
from tests.model_batches import random_batch, tiny_model


def test_pretrained_embeddings_set_the_width():
    pretrained = torch.randn(30, 5)
    model = lstm_ptrnet(vocab_size=30, pretrained_embeddings=pretrained, hidden_dim=4)
    assert model.embedding.dim == 5
    assert torch.equal(model.embedding.embedding.weight[1:], pretrained[1:])
    with pytest.raises(ValueError, match="embedding_dim=6"):
        lstm_ptrnet(vocab_size=30, pretrained_embeddings=pretrained, embedding_dim=6)


def test_bad_inputs_raise_clear_errors():
    model, batch = tiny_model(), random_batch(7, [3, 2])
    with pytest.raises(ValueError, match="not a permutation"):
        model.log_prob(batch, torch.tensor([[0, 0, 1], [1, 0, -1]]))
    with pytest.raises(ValueError, match="beam_size"):
        model.decode(batch, beam_size=0)
    with pytest.raises(ValueError, match="missing key"):
        model({key: value for key, value in batch.items() if key != "token_lengths"})
    broken = dict(batch, sentence_mask=torch.ones(2, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="sentence_mask"):
        model(broken)
