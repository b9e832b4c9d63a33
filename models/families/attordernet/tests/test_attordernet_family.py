"""ATTOrderNet's own checks (Cui et al. 2018): the paper's equations by default (last BiLSTM
states, pointer over the sentence vectors, c0 = 0) and each deviation a named option that
changes the scores; the released code's pre-LN layers and widths; the family's named sizes,
which its YAMLs, experiments and released ablations read instead of writing the numbers."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from benchmark.config.compose import compose_config
from models.families.attordernet.attordernet import attordernet
from models.families.attordernet.attordernet_cnn import attordernet_cnn
from models.families.attordernet.blocks.paragraph_attention import ParagraphSelfAttention
from models.families.attordernet.blocks.sentence_attention import SentenceSelfAttention
from models.families.attordernet.settings import AttOrderNetSettings
from models.registry import get_preset, preset_settings
from tests.model_batches import random_batch

SIZES = AttOrderNetSettings.SIZES


def test_attordernet_follows_the_paper_by_default_and_switches_on_the_options():
    default = attordernet(30, embedding_dim=8, hidden_dim=16, ff_dim=24)
    assert default.sentence_encoder.pooling == "last"
    assert default.decoder.pointer_keys == "sentence" and default.decoder.initial_cell == "zeros"
    deviating = attordernet(
        30, embedding_dim=8, hidden_dim=16, ff_dim=24, sentence_pooling="mean",
        pointer_keys="paragraph", initial_cell="paragraph",
    )  # fmt: skip
    assert deviating.sentence_encoder.pooling == "mean"
    assert deviating.decoder.pointer_keys == "paragraph"
    assert deviating.decoder.initial_cell == "paragraph"
    variant = attordernet_cnn(30, embedding_dim=8, num_filters=12, hidden_dim=16, ff_dim=24)
    assert variant.decoder.pointer_keys == "sentence"


@pytest.mark.parametrize(
    ("option", "values"),
    [("sentence_pooling", ("last", "mean")), ("pointer_keys", ("sentence", "paragraph")),
     ("initial_cell", ("zeros", "paragraph"))],
)  # fmt: skip
def test_each_deviation_changes_the_scores(option: str, values: tuple[str, str]):
    batch = random_batch(0, [3, 4])
    scores = []
    for value in values:
        torch.manual_seed(0)  # the same weights (the key projection's width may differ)
        model = attordernet(30, embedding_dim=8, hidden_dim=16, ff_dim=24, **{option: value})
        scores.append(model.eval()(batch))
    assert not torch.allclose(scores[0], scores[1])




def test_pre_norm_layers_end_with_a_norm_and_stay_equivariant():
    torch.manual_seed(0)
    post = ParagraphSelfAttention(8, 16, num_layers=2, heads=4, ff_dim=32, dropout=0.0)
    torch.manual_seed(0)
    pre = ParagraphSelfAttention(8, 16, num_layers=2, heads=4, ff_dim=32, dropout=0.0,
                                 norm="pre").eval()  # fmt: skip
    assert all(layer.norm_first for layer in pre.layers)
    assert not any(layer.norm_first for layer in post.layers) and post.final_norm is None
    assert isinstance(pre.final_norm, nn.LayerNorm)
    extra = sum(p.numel() for p in pre.parameters()) - sum(p.numel() for p in post.parameters())
    assert extra == 2 * 16  # the final LayerNorm only: the same layers otherwise
    sentences = torch.randn(2, 5, 8)
    mask = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])
    encoding = pre(sentences, mask)
    assert not torch.allclose(encoding.contexts, post.eval()(sentences, mask).contexts)
    # the paragraph vector is a mean of layer-normed rows; permuting the sentences permutes them
    perm = torch.tensor([3, 0, 4, 1, 2])
    shuffled = pre(sentences[:, perm], torch.ones(2, 5, dtype=torch.bool))
    whole = pre(sentences, torch.ones(2, 5, dtype=torch.bool))
    torch.testing.assert_close(shuffled.contexts, whole.contexts[:, perm])
    torch.testing.assert_close(shuffled.state[0], whole.state[0])
    with pytest.raises(ValueError, match="paragraph norm must be one of"):
        ParagraphSelfAttention(8, 16, 2, 4, 32, 0.0, norm="sandwich")


def test_the_attordernet_options_reach_its_parts():
    build = get_preset("attordernet").build
    paper = build(vocab_size=30, embedding_dim=8, hidden_dim=16, ff_dim=24)
    layer = paper.paragraph_encoder.layers[0]
    assert layer.linear1.out_features == 24 and not layer.norm_first
    released = build(vocab_size=30, embedding_dim=8, hidden_dim=32, ff_dim=48,
                     paragraph_norm="pre", initial_cell="paragraph")  # fmt: skip
    layer = released.paragraph_encoder.layers[0]
    assert layer.linear1.out_features == 48 and layer.norm_first
    assert released.paragraph_encoder.final_norm is not None
    # one width: BiLSTM hidden_dim / 2 per direction, paragraph and decoder hidden_dim
    assert released.sentence_encoder.output_dim == 32
    assert released.paragraph_encoder.output_dim == 32
    batch = random_batch(0, [3, 5])
    assert released.decode(batch).shape == (2, 5)


def test_word_positions_make_self_attention_order_sensitive():
    torch.manual_seed(0)
    words, lengths = torch.randn(1, 4, 4), torch.tensor([4])
    attention = SentenceSelfAttention(4, num_layers=1, heads=2, ff_dim=8, dropout=0.1).eval()
    assert not torch.allclose(attention(words, lengths), attention(words.flip(1), lengths))


def test_paragraph_positions_ablation_breaks_invariance():
    torch.manual_seed(0)
    encoder = ParagraphSelfAttention(8, None, 1, 2, 16, 0.1, positions=True).eval()
    sentences, mask = torch.randn(1, 4, 8), torch.ones(1, 4, dtype=torch.bool)
    _, (vector,) = encoder(sentences, mask)
    _, (vector_flipped,) = encoder(sentences.flip(1), mask)
    assert not torch.allclose(vector, vector_flipped)


@pytest.mark.parametrize(("overrides", "size"), [
    (["model=attordernet"], "cpu"), (["model=attordernet_cnn"], "cpu"),
    (["+experiment=attordernet_paper"], "paper"),
    (["+experiment=attordernet_paper", "model=attordernet_att"], "paper"),
    (["+experiment=attordernet_released"], "released"),
])  # fmt: skip
def test_each_config_takes_its_widths_from_one_named_size(overrides, size):
    net = compose_config(overrides).model.net
    paper = AttOrderNetSettings()
    expected = {"hidden_dim": paper.hidden_dim, "ff_dim": paper.ff_dim, **SIZES[size]}
    assert {key: net[key] for key in expected} == expected


def test_a_released_ablation_takes_one_setting_of_the_released_size():
    """attordernet_released_width/_ff: the paper's settings and one width of `released`."""
    for ablation, key in [("attordernet_released_width", "hidden_dim"),
                          ("attordernet_released_ff", "ff_dim")]:  # fmt: skip
        net = compose_config(["+experiment=attordernet_paper", f"+ablation={ablation}"]).model.net
        other = ({"hidden_dim", "ff_dim"} - {key}).pop()
        assert net[key] == SIZES["released"][key]
        assert net[other] == getattr(AttOrderNetSettings(), other)


def test_a_size_the_yaml_does_not_list_is_refused_naming_the_key():
    cfg = compose_config(["model=attordernet", "model.size=released", "~model.net.ff_dim"])
    with pytest.raises(Exception, match=r"model.size=released sets ff_dim, which model.net does"):
        _ = cfg.model.net.hidden_dim
    cfg = compose_config(["model=attordernet", "model.size=huge"])
    with pytest.raises(Exception, match="preset 'attordernet' has no size 'huge'; its sizes: "
                                        "paper, cpu, released, tiny, toy"):  # fmt: skip
        _ = cfg.model.net.hidden_dim


def test_every_variant_and_pretrained_head_shares_the_family_s_sizes():
    for name in ("attordernet", "attordernet_att", "attordernet_cnn", "minilm_ptrnet"):
        assert preset_settings(name, "released")["ff_dim"][1] == SIZES["released"]["ff_dim"]
        assert get_preset(name).tiny["hidden_dim"] == SIZES["tiny"]["hidden_dim"]
        assert get_preset(name).divides[0] == ("heads", "hidden_dim")
