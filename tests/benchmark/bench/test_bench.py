"""The benchmark: the reference search is an oracle for the batched one, the bench writes
its record, and bad arguments fail clearly."""

import copy
import json

import pytest
import torch

from benchmark.bench import suite as bench
from models.noise.noise_wrapper import NoiseWrapper
from models.search.reference_search import one_document, reference_search
from tests.model_batches import (
    all_orders,
    random_batch,
    repeat_document,
    sub_batch,
    tiny_preset,
)

SIZES = [5, 2, 4, 1, 3, 5]  # mixed lengths: padding and documents that finish early

GO = (1, 1)  # the GO sentence: <unk> twice, as the harness builds it


# beam 130 >= 5! keeps every prefix (slow: `make test-slow`)
@pytest.mark.parametrize("preset", ["lstm_ptrnet", "cnn_ptrnet", "attordernet", "han"])
@pytest.mark.parametrize("beam", [1, 2, 7, pytest.param(130, marks=pytest.mark.slow)])
def test_reference_search_equals_batched_beam_search(preset, beam):
    model = tiny_preset(preset, seed=3)
    batch = random_batch(4, SIZES)
    orders, scores = model.search(batch, beam)
    expected, expected_scores = reference_search(model, batch, beam)
    assert torch.equal(orders, expected)
    assert torch.allclose(scores, expected_scores, atol=1e-5)


@pytest.mark.slow
def test_a_wide_reference_beam_is_the_brute_force_argmax():
    model, batch = tiny_preset("han", seed=2), random_batch(7, SIZES)
    orders, scores = reference_search(model, batch, 120)
    for b, size in enumerate(SIZES):
        candidates = all_orders(size, 5)  # (size!, N)
        log_probs = model.log_prob(repeat_document(batch, b, len(candidates)), candidates)
        assert orders[b].tolist() == candidates[log_probs.argmax()].tolist()
        torch.testing.assert_close(scores[b], log_probs.max(), atol=1e-5, rtol=0)


@pytest.mark.parametrize("beam", [1, 3, pytest.param(400, marks=pytest.mark.slow)])
def test_reference_search_with_an_end_candidate(beam):
    model = NoiseWrapper(tiny_preset("attordernet", seed=5), GO, count_bias=True).eval()
    batch = random_batch(6, SIZES)
    assert torch.equal(model.search(batch, beam)[0], reference_search(model, batch, beam)[0])


def test_one_document_cuts_a_document_to_its_own_size():
    batch = random_batch(0, [2, 5, 3])
    document = one_document(batch, 2)
    expected = sub_batch(batch, 2)
    assert document.keys() == batch.keys()
    for key, value in expected.items():
        assert (
            torch.equal(document[key], value) if torch.is_tensor(value) else document[key] == value
        )


@pytest.fixture(scope="module")
def quick_record(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "cpu.json"
    argv = ["quick=true", "dataset=synthetic", "presets=lstm_ptrnet,random", f"out={out}"]
    assert bench.main([*argv, "isolate=false", "device=cpu"]) == 0
    return json.loads(out.read_text())


def test_quick_bench_writes_its_record(quick_record):
    machine = quick_record["machine"]
    assert {"cpu", "cores", "torch", "torch_threads", "memory"} <= machine.keys()
    assert len(machine["load_average_before"]) == len(machine["load_average_after"]) == 3
    lstm, random = quick_record["presets"]["lstm_ptrnet"], quick_record["presets"]["random"]
    assert lstm["train"]["docs_per_s"] > 0 and 0 <= lstm["train"]["load_share"] < 1
    assert lstm["train"]["peak_memory_mb"] > 0
    assert set(lstm["decode"]["by_beam"]) == {"1", "3"}
    assert set(lstm["scaling"]["length"]["ratio"]) == {"3", "4"}
    assert set(lstm["reference"]["by_beam"]) == {"1", "3"}
    assert "train" not in random and set(random["decode"]["by_beam"]) == {"1"}
    assert quick_record["checks"]["mismatches"] == 0
    paper = quick_record["paper"]["lstm_ptrnet_paper"]
    assert paper["status"] == "ok" and paper["model"] == "lstm_ptrnet" and paper["threads"] == 1
    assert paper["speedup_wall"] > 0 and set(paper["docs_per_s"]) == {"reference", "fast"}
    assert quick_record["checks"]["paper_equal_outputs"] == {"lstm_ptrnet_paper": True}


def test_bench_fails_when_the_fast_and_reference_paths_disagree(
    tmp_path, monkeypatch, quick_record, capsys
):
    result = copy.deepcopy(quick_record["paper"]["lstm_ptrnet_paper"])
    result["max_loss_relative_difference"] = 0.01
    monkeypatch.setattr(bench, "run_paper", lambda *args: result)
    monkeypatch.setattr(bench, "run_preset", lambda *args: quick_record["presets"]["random"])
    out = tmp_path / "bench.json"
    assert bench.main(["quick=true", "presets=random", f"out={out}", "device=cpu"]) == 1
    assert "lstm_ptrnet_paper: the fast and reference paths' losses differ" in (
        capsys.readouterr().err
    )


def test_bench_fails_loudly_on_a_mismatch(tmp_path, monkeypatch, quick_record, capsys):
    result = copy.deepcopy(quick_record["presets"]["lstm_ptrnet"])
    result["reference"]["test_sample"]["mismatches"]["3"] = 1
    monkeypatch.setattr(bench, "run_preset", lambda *args: result)
    out = tmp_path / "bench.json"
    argv = ["quick=true", "presets=lstm_ptrnet", f"out={out}", "device=cpu", "paper=false"]
    assert bench.main(argv) == 1
    assert "1 documents decoded differently" in capsys.readouterr().err
    assert json.loads(out.read_text())["checks"]["mismatches"] == 1


def test_a_failing_preset_is_recorded_and_the_others_still_run(
    tmp_path, monkeypatch, quick_record, capsys
):
    def bench_preset(preset, settings):
        if preset == "han":
            raise RuntimeError("out of memory")
        return quick_record["presets"][preset]

    monkeypatch.setattr(bench, "bench_preset", bench_preset)
    out = tmp_path / "bench.json"
    argv = ["quick=true", "presets=han,random", f"out={out}", "device=cpu", "isolate=false",
            "paper=false"]  # fmt: skip
    assert bench.main(argv) == 1
    assert "han failed (RuntimeError: out of memory)" in capsys.readouterr().err
    presets = json.loads(out.read_text())["presets"]
    assert presets["han"]["status"] == "failed" and presets["random"]["status"] == "ok"


@pytest.mark.parametrize(
    "arg, message",
    [
        ("beam=4", "unknown key 'beam'"),
        ("presets=lstm_ptrnet,transformer", "unknown preset(s) ['transformer']"),
        ("beams=16,4", "beams must be increasing"),
        ("steps=0", "steps must be an integer >= 1"),
        ("precision=fp16", "precision must be one of 32, bf16"),
        ("quick=maybe", "quick must be one of true, false"),
        ("paper_experiments=nope", "unknown paper experiment(s) ['nope']"),
        ("paper_threads=0", "paper_threads must be an integer >= 1"),
        pytest.param(
            "device=cuda",
            "device=cuda but PyTorch sees no GPU",
            marks=pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is visible"),
        ),
    ],
)
def test_bad_arguments_fail_with_a_clear_error(arg, message, capsys):
    assert bench.main([arg]) == 2
    error = capsys.readouterr().err
    assert error.startswith("orderbench bench: error:") and message in error


@pytest.mark.slow
def test_bench_isolates_each_preset_in_its_own_process(tmp_path):
    out = tmp_path / "cpu.json"
    assert bench.main(["quick=true", "dataset=synthetic", "presets=random", f"out={out}"]) == 0
    assert json.loads(out.read_text())["presets"]["random"]["status"] == "ok"


def test_the_test_samples_documents_reach_the_reference_on_the_benchs_device(monkeypatch):
    """The sample is kept on the CPU (the batched decoding moves its own copy); each document
    goes to the bench's device before the reference decodes it."""
    from contextlib import nullcontext

    from benchmark.bench import reference

    seen = []

    def recording(net, document, beam):
        seen.append({key: value.device for key, value in document.items()
                     if isinstance(value, torch.Tensor)})  # fmt: skip
        return torch.arange(3)[None, : document["tokens"].shape[1]], None  # on the CPU

    monkeypatch.setattr(reference, "reference_search", recording)
    monkeypatch.setattr(reference, "autocast", lambda device, precision: nullcontext())
    batch = {"n_sentences": torch.tensor([3, 2]), "tokens": torch.zeros(2, 3, 4, dtype=torch.long),
             "token_lengths": torch.tensor([[4, 2, 3], [1, 2, 0]])}
    orders = {1: [torch.tensor([[0, 1, 2], [0, 1, 2]])]}
    device = torch.device("meta")
    found = reference.sample_mismatches(None, [batch], orders, 2, device, "32")
    assert found["docs"] == 2 and seen
    assert all(place == device for devices in seen for place in devices.values())
