"""The paper presets' equations: ATTOrderNet's sentence vector (last BiLSTM states, Cui et
al. 2018 sec. 2.1) and pointer over the sentence vectors (eq. 12), the deviations kept as
named options, Gong et al.'s multi-width CNN, and the configs that select them."""

from __future__ import annotations

import math

import pytest
import torch

from benchmark.config.config_folders import group_files
from models.blocks.pointer_lstm import LSTMPointerDecoder
from models.blocks.sentence_cnn import SentenceCNN
from models.blocks.sentence_lstm import SentenceLSTM
from models.interfaces import ParagraphEncoding
from models.presets import cnn_ptrnet


def constant_lstm_decoder(pointer_keys: str, initial_cell: str = "zeros") -> LSTMPointerDecoder:
    """A decoder (sentence width 2, 1 LSTM unit, tanh width 2) whose LSTM weights are 0, so
    its first output is h1 = sigmoid(b_o) tanh(sigmoid(b_f) c0 + sigmoid(b_i) tanh(b_g)),
    with hand-set pointer weights W1 = [[1, 0], [0, 2]] (or 2 x 1 for paragraph keys of
    width 1), W2 = [[1], [-1]], g = [1, 1]."""
    decoder = LSTMPointerDecoder(
        2, 1, context_dim=1, attention_dim=2, learned_start=False,
        pointer_keys=pointer_keys, initial_cell=initial_cell,
    )  # fmt: skip
    with torch.no_grad():
        for parameter in decoder.lstm.parameters():
            parameter.zero_()
        decoder.lstm.bias_ih_l0.copy_(torch.tensor([0.0, 0.0, 0.5, 1.0]))  # i, f, g, o
        w1 = [[1.0, 0.0], [0.0, 2.0]] if pointer_keys == "sentence" else [[1.0], [3.0]]
        decoder.pointer.w1.weight.copy_(torch.tensor(w1))
        decoder.pointer.w2.weight.copy_(torch.tensor([[1.0], [-1.0]]))
        decoder.pointer.v.weight.copy_(torch.tensor([[1.0, 1.0]]))
    return decoder


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


SENTENCES = torch.tensor([[[0.2, -0.1], [0.5, 0.3]]])  # (B=1, N=2, d=2)
CONTEXTS = torch.tensor([[[0.7], [-0.4]]])  # (1, 2, 1) paragraph encoder outputs
MASK = torch.tensor([[True, True]])


def first_scores(decoder: LSTMPointerDecoder, paragraph: float = 0.3) -> list[float]:
    encoding = ParagraphEncoding(CONTEXTS, (torch.tensor([[paragraph]]),))  # v (1, 1)
    memory, state = decoder.start(SENTENCES, encoding, MASK)
    scores, _ = decoder.step(memory, state, None, MASK)
    return scores[0].tolist()


def test_paper_pointer_scores_the_sentence_vectors_by_hand():
    h1 = sigmoid(1.0) * math.tanh(sigmoid(0.0) * 0.0 + sigmoid(0.0) * math.tanh(0.5))  # c0 = 0
    expected = [  # u_j = g^T tanh(W1 s_j + W2 h1)
        math.tanh(s1 + h1) + math.tanh(2 * s2 - h1) for s1, s2 in SENTENCES[0].tolist()
    ]
    assert first_scores(constant_lstm_decoder("sentence")) == pytest.approx(expected, abs=1e-6)


def test_paragraph_keys_deviation_scores_the_contexts_by_hand():
    h1 = sigmoid(1.0) * math.tanh(sigmoid(0.0) * math.tanh(0.5))
    expected = [math.tanh(e + h1) + math.tanh(3 * e - h1) for (e,) in CONTEXTS[0].tolist()]
    assert first_scores(constant_lstm_decoder("paragraph")) == pytest.approx(expected, abs=1e-6)


def test_released_code_cell_starts_from_the_paragraph_vector():
    v = 0.3
    h1 = sigmoid(1.0) * math.tanh(sigmoid(0.0) * v + sigmoid(0.0) * math.tanh(0.5))  # c0 = v
    expected = [math.tanh(s1 + h1) + math.tanh(2 * s2 - h1) for s1, s2 in SENTENCES[0].tolist()]
    scores = first_scores(constant_lstm_decoder("sentence", "paragraph"), v)
    assert scores == pytest.approx(expected, abs=1e-6)


def test_pointer_option_values_are_checked():
    with pytest.raises(ValueError, match="pointer_keys"):
        LSTMPointerDecoder(2, 1, pointer_keys="words")
    with pytest.raises(ValueError, match="initial_cell"):
        LSTMPointerDecoder(2, 1, initial_cell="ones")


def test_last_pooling_is_the_bilstm_final_states():
    torch.manual_seed(0)
    encoder = SentenceLSTM(3, 4, bidirectional=True, pooling="last").eval()
    words = torch.randn(2, 5, 3)
    lengths = torch.tensor([5, 3])
    pooled = encoder(words, lengths)  # (2, 8)
    for row, n in enumerate(lengths.tolist()):
        outputs, _ = encoder.lstm(words[row : row + 1, :n])  # (1, n, 8) unpadded
        forward_final = outputs[0, n - 1, :4]  # forward state after the last word
        backward_final = outputs[0, 0, 4:]  # backward state after reading back to word 1
        torch.testing.assert_close(pooled[row], torch.cat([forward_final, backward_final]))


def test_several_cnn_widths_concatenate_their_maps():
    torch.manual_seed(0)
    encoder = SentenceCNN(3, 4, width=[2, 3]).eval()
    words, lengths = torch.randn(2, 5, 3), torch.tensor([5, 2])
    assert encoder.output_dim == 8
    out = encoder(words, lengths)
    for k, width in enumerate((2, 3)):
        single = SentenceCNN(3, 4, width=width).eval()
        single.convs[0].load_state_dict(encoder.convs[k].state_dict())
        torch.testing.assert_close(out[:, 4 * k : 4 * (k + 1)], single(words, lengths))
    model = cnn_ptrnet(30, embedding_dim=8, num_filters=5, filter_width=[3, 4, 5], hidden_dim=10)
    assert model.sentence_encoder.output_dim == 15


def test_paper_experiments_compose_with_the_published_settings():
    from benchmark.config.compose import compose_config

    gong = compose_config(["+experiment=cnn_ptrnet_paper"])
    assert gong.model.name == "cnn_ptrnet" and list(gong.model.net.filter_width) == [3, 4, 5]
    assert gong.model.net.num_filters == 512 and gong.model.net.hidden_dim == 100
    assert gong.model.optimizer._target_ == "torch.optim.Adagrad" and gong.model.optimizer.lr == 0.3
    assert gong.model.optimizer.initial_accumulator_value == 0.1  # TensorFlow 1's Adagrad
    assert gong.model.scheduler.gamma == 0.95 and gong.model.batch_size == 128
    assert gong.trainer.gradient_clip_val is None
    lstm = compose_config(["+experiment=lstm_ptrnet_paper"])
    assert lstm.model.name == "lstm_ptrnet" and lstm.model.net.sentence_hidden_dim == 100


@pytest.mark.parametrize("experiment", sorted(
    path.stem for path in group_files("experiment")
    if "minilm" not in path.stem  # the MiniLM presets load a pretrained encoder
))  # fmt: skip
def test_every_experiment_builds_its_model_through_the_run_path(experiment):
    """Hydra hands lists to the presets as ListConfig (filter_width: [3, 4, 5]); the range
    check must take them, as the run's build does (benchmark.run.model_builder.build_net),
    and the run's build is the preset's with exactly the experiment's settings: the same
    parameters, shape for shape."""
    from omegaconf import OmegaConf

    from benchmark.config.checks import net_preset
    from benchmark.config.compose import compose_config
    from benchmark.run.model_builder import build_net

    cfg = compose_config([f"+experiment={experiment}"])
    net = build_net(cfg, vocab_size=40, pretrained_embeddings=None)
    settings = {key: value for key, value in OmegaConf.to_container(cfg.model.net, resolve=True)
                .items() if not key.startswith("_") and not isinstance(value, dict)}
    direct = net_preset(cfg.model.net._target_).build(
        **settings, vocab_size=40, pretrained_embeddings=None)

    def shapes(model: torch.nn.Module) -> dict:
        return {key: tuple(value.shape) for key, value in model.state_dict().items()}

    assert shapes(net) == shapes(direct)
