"""The training profile (`benchmark.bench.profile`): a step cut into parts is the plain step,
padding and FLOPs are counted as documented, and the command writes its record."""

import contextlib
import json

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from benchmark.bench import profile
from benchmark.bench.nips_like import SENTENCES, TOKENS, nips_like_documents
from benchmark.bench.paper import compare_paths
from benchmark.bench.parts import (
    PartClock,
    padding_counts,
    padding_shares,
    plain_step,
    staged_decode,
    staged_step,
)
from tests.model_batches import PRESETS, make_batch, random_batch, tiny_preset

MIXED = [3, 8, 1, 5, 2, 7, 4, 6]


def _step(model, batch, staged):
    torch.manual_seed(3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)  # gradients kept, weights not
    optimizer.zero_grad = lambda set_to_none=True: None  # keep them to compare
    clock = PartClock(torch.device("cpu"))
    if staged:
        loss = staged_step(model, batch, optimizer, 1.0, clock, contextlib.nullcontext)
    else:
        loss = plain_step(model, batch, optimizer, 1.0, contextlib.nullcontext)
    grads = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)
    return loss, grads, clock


@pytest.mark.parametrize("preset", PRESETS)
def test_a_step_cut_into_parts_is_the_plain_step(preset):
    model = tiny_preset(preset, seed=4, dropout=0.2).train()
    batch = random_batch(5, MIXED, max_tokens=7)
    loss, grads, _ = _step(model, batch, staged=False)
    staged_loss, staged_grads, clock = _step(model, batch, staged=True)
    torch.testing.assert_close(staged_loss, loss)
    assert staged_grads.keys() == grads.keys()
    for name, grad in grads.items():
        torch.testing.assert_close(staged_grads[name], grad, atol=1e-6, rtol=1e-5, msg=name)
    parts = {"sentence", "paragraph", "decoder", "loss", "optimiser", "other"}
    assert parts <= set(clock.seconds)


@pytest.mark.parametrize("beam", [1, 3])
def test_a_decode_cut_into_parts_is_the_plain_decode(beam):
    model, batch = tiny_preset("attordernet", seed=2), random_batch(1, MIXED)
    clock = PartClock(torch.device("cpu"))
    orders = staged_decode(model, batch, beam, clock, contextlib.nullcontext)
    assert torch.equal(orders, model.decode(batch, beam))
    assert {"embedding", "sentence", "paragraph", "decoder"} <= set(clock.seconds)


def test_padding_shares_count_token_and_sentence_slots():
    batch = make_batch([[[2, 3, 4, 5], [6]], [[7, 8]]])  # (B, N, T) = (2, 2, 4), 7 tokens
    counts = padding_counts(batch)
    assert counts == {"token_slots": 16, "sentence_token_slots": 12, "tokens": 7,
                      "sentence_slots": 4, "sentences": 3}  # fmt: skip
    assert padding_shares(counts) == {
        "tokens": round(1 - 7 / 16, 4), "tokens_in_sentences": round(1 - 7 / 12, 4),
        "sentences": 0.25,
    }  # fmt: skip


def test_lstm_flops_follow_the_formula_forward_and_backward():
    lstm = torch.nn.LSTM(6, 5, batch_first=True)
    words = torch.randn(3, 4, 6, requires_grad=True)
    with FlopCounterMode(display=False, custom_mapping=profile.LSTM_FLOPS) as counter:
        output, _ = lstm(words)
    forward = 2 * 3 * 4 * (4 * 5) * (6 + 5)
    assert counter.get_total_flops() == forward
    with FlopCounterMode(display=False, custom_mapping=profile.LSTM_FLOPS) as counter:
        output.sum().backward()
    assert counter.get_total_flops() == 2 * forward


def test_nips_like_documents_keep_to_the_histograms():
    documents = nips_like_documents(300, seed=1, prefix="d")
    assert len({d["id"] for d in documents}) == 300
    sizes = [len(d["sentences"]) for d in documents]
    assert min(sizes) >= min(SENTENCES) and max(sizes) <= max(SENTENCES)
    assert 5.5 < sum(sizes) / len(sizes) < 6.8  # NIPS: 6.14
    words = [len(s.split()) for d in documents for s in d["sentences"]]
    assert min(words) >= 1 and max(words) <= max(high for _, high in TOKENS)
    assert 23 < sum(words) / len(words) < 29  # NIPS: 25.96
    assert nips_like_documents(5, seed=1, prefix="d") == documents[:5]


def test_profile_command_writes_its_record(tmp_path, capsys):
    out = tmp_path / "profile.json"
    argv = ["experiments=lstm_ptrnet_paper", "scale=0.02", "train_batches=1", "val_batches=1",
            "plain_batches=1", "flop_batches=1", f"out={out}"]  # fmt: skip
    assert profile.main(argv) == 0
    record = json.loads(out.read_text())
    result = record["experiments"]["lstm_ptrnet_paper"]
    assert result["model"] == "lstm_ptrnet" and result["batch_size"] == 128
    assert set(result["train"]["shares"]) == {*profile.PARTS, "loading"}
    assert abs(sum(result["train"]["shares"].values()) - 1) < 1e-3
    assert 0 < result["train"]["padding"]["tokens"] < 1
    flops = result["flops_per_step"]
    assert flops["by_part"]["sentence"] > 0 and flops["total"] == sum(flops["by_part"].values())
    assert flops["aten_ops"] > 0
    assert "| lstm_ptrnet_paper |" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv", [["experiments=nope"], ["scale=2"], ["train_batches=-1"], ["device=tpu"]]
)
def test_profile_refuses_bad_arguments(argv, capsys):
    assert profile.main(argv) == 2
    assert "orderbench bench profile: error" in capsys.readouterr().err


@pytest.mark.slow
def test_the_bf16_path_of_profile_and_comparison_runs_on_the_cpu(tmp_path):
    out = tmp_path / "profile.json"
    argv = ["experiments=attordernet_paper", "scale=0.02", "train_batches=1", "val_batches=1",
            "plain_batches=1", "flop_batches=1", "precision=bf16", f"out={out}"]  # fmt: skip
    assert profile.main(argv) == 0
    assert json.loads(out.read_text())["settings"]["precision"] == "bf16"
    result = compare_paths("lstm_ptrnet_paper", steps=1, repeats=1, precision="bf16", scale=0.02)
    assert result["status"] == "ok" and result["max_loss_relative_difference"] < 1e-2
