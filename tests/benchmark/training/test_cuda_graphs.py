"""`cuda_graphs: true` and `compile: true` (benchmark/training/cuda_graphs.py): batches
padded to fixed shapes change no loss, no gradient and no order of any preset; on a CPU
`cuda_graphs` runs the step eagerly with the same losses; on a GPU it compiles the loss in
the CUDA-graph mode; `compile` compiles it on every device, with the same losses."""

from __future__ import annotations

import pytest
import torch

from benchmark.training import cuda_graphs
from benchmark.training.cuda_graphs import CompiledLoss, bucket, bucketed
from data.collate import padded_to
from tests.model_batches import PRESETS, random_batch, tiny_preset

SIZES = [3, 7, 1, 5, 2]  # N = 7 -> 8 sentence slots; T = 6 -> 16 words


TEXT_PRESETS = ("minilm_ptrnet", "minilm_finetune", "paragraph_listmle", "paragraph_ptrnet")
WORD_PRESETS = [name for name in PRESETS if name not in TEXT_PRESETS]


def _batch(seed=0):
    return random_batch(seed, SIZES)


def test_buckets_are_powers_of_two_above_a_floor():
    assert [bucket(size, 4) for size in (1, 4, 5, 8, 9, 15, 16, 17)] == [4, 4, 8, 8, 16, 16, 16,
                                                                        32]
    assert [bucket(size, 16) for size in (1, 16, 17, 60)] == [16, 16, 32, 64]


def test_padding_adds_padding_sentences_and_words_only():
    batch = _batch()
    padded = padded_to(batch, 9, 11)
    assert padded["tokens"].shape == (5, 9, 11)
    assert torch.equal(padded["tokens"][:, :7, :6], batch["tokens"])
    assert not padded["tokens"][:, 7:].any() and not padded["tokens"][:, :, 6:].any()
    assert torch.equal(padded["token_lengths"][:, :7], batch["token_lengths"])
    assert not padded["token_lengths"][:, 7:].any() and not padded["sentence_mask"][:, 7:].any()
    assert (padded["gold_order"][:, 7:] == -1).all()
    assert padded["n_sentences"] is batch["n_sentences"] and padded["doc_ids"] == batch["doc_ids"]
    assert tuple(bucketed(batch)["tokens"].shape) == (5, 8, 16)
    with pytest.raises(ValueError, match=r"cannot pad a batch of \(7, 6\) to \(6, 16\)"):
        padded_to(batch, 6, 16)


@pytest.mark.parametrize("name", WORD_PRESETS)
def test_bucketed_batches_give_the_same_loss_gradients_and_orders(name):
    model = tiny_preset(name)  # eval mode: dropout off
    batch = _batch()
    losses, grads = [], []
    for presented in (batch, bucketed(batch)):
        model.zero_grad()
        loss = model.loss(presented)
        loss.backward()
        losses.append(loss.detach())
        grads.append([p.grad.clone() for p in model.parameters() if p.grad is not None])
    torch.testing.assert_close(losses[1], losses[0], rtol=1e-5, atol=1e-6)
    for padded, plain in zip(grads[1], grads[0], strict=True):
        torch.testing.assert_close(padded, plain, rtol=1e-4, atol=1e-6)
    with torch.no_grad():
        orders = model.decode(batch, beam_size=3)
        padded_orders = model.decode(bucketed(batch), beam_size=3)
    assert torch.equal(padded_orders[:, : orders.shape[1]], orders)
    assert (padded_orders[:, orders.shape[1]:] == -1).all()


def _sgd_losses(name, loss_of, steps=3):
    torch.manual_seed(1)
    model = tiny_preset(name)  # eval mode: dropout off, so both runs draw nothing
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    step_loss = loss_of(model)
    losses = []
    for step in range(steps):
        optimizer.zero_grad()
        loss = step_loss(_batch(step))
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    return losses


@pytest.mark.parametrize("name", ["lstm_ptrnet", "attordernet", "han"])
def test_on_a_cpu_the_switch_trains_eagerly_with_the_same_losses(name, monkeypatch):
    def no_compile(*args, **kwargs):
        raise AssertionError("nothing is compiled on a CPU")

    monkeypatch.setattr(torch, "compile", no_compile)
    captured = _sgd_losses(name, lambda model: CompiledLoss(model, "cpu", cuda_graphs=True))
    plain = _sgd_losses(name, lambda model: model.loss)
    assert captured == pytest.approx(plain, rel=1e-5)


def test_on_a_gpu_the_loss_is_compiled_in_the_cuda_graph_mode_on_tensors_only(monkeypatch):
    compiled, steps = [], []

    def fake_compile(function, **options):
        compiled.append(options)
        return lambda tensors: (steps.append(sorted(tensors)), function(tensors))[1]

    monkeypatch.setattr(torch, "compile", fake_compile)
    monkeypatch.setattr(torch.compiler, "cudagraph_mark_step_begin", lambda: steps.append("mark"))
    with torch._dynamo.config.patch(recompile_limit=8):  # restored after
        loss = CompiledLoss(tiny_preset("lstm_ptrnet"), "cuda", cuda_graphs=True)
        assert torch._dynamo.config.recompile_limit == cuda_graphs.RECOMPILE_LIMIT
    assert compiled == [{"backend": "inductor", "mode": "reduce-overhead", "dynamic": True}]
    loss(_batch(0))
    loss(loss.prepare(_batch(1)))  # as the task's host side prepares it
    tensors = ["gold_order", "n_sentences", "prepared", "sentence_mask", "token_lengths",
               "tokens"]  # fmt: skip
    assert steps == ["mark", tensors, "mark", tensors]  # no lists: they would recompile
    assert loss.shapes == {(5, 8, 16)}


@pytest.mark.parametrize("name", TEXT_PRESETS)
def test_a_text_reading_preset_gives_the_same_loss_padded(name):
    """Its inputs made on the host for the padded batch (`fixed_shapes`: a joined paragraph
    padded to a power of two of tokens), the loss is the unpadded one."""
    model = tiny_preset(name)
    plain = model.loss(_batch())
    padded = CompiledLoss(model, "cpu", cuda_graphs=True)  # on a CPU: the padding alone
    torch.testing.assert_close(padded(_batch()), plain, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["lstm_ptrnet", "han", "paragraph_listmle"])
def test_compile_traces_the_loss_on_a_cpu_with_the_same_losses(name):
    """`compile: true` on a CPU, traced (the `eager` backend: inductor's kernels are what
    `orderbench bench compile` times): the losses of the eager step."""
    torch._dynamo.reset()
    compiled = _sgd_losses(name, lambda model: CompiledLoss(model, "cpu", backend="eager"))
    plain = _sgd_losses(name, lambda model: model.loss)
    assert compiled == pytest.approx(plain, rel=1e-5)


@pytest.mark.parametrize("name", ["lstm_ptrnet", "minilm_finetune", "paragraph_listmle"])
def test_a_batch_of_the_same_buckets_compiles_nothing_new(name):
    """`compile: true`: a second batch of other sentence and word counts but the same
    sentence bucket (8) reuses the graphs of the first (words and chunk sizes symbolic; the
    fine-tuned encoder's chunk count follows the slots, 8 of 8 sentences: 18 and 29
    sentences would otherwise be 3 and 4 chunks)."""
    torch._dynamo.reset()
    graphs = []

    def counting(graph, example_inputs):
        graphs.append(graph)
        return graph.forward

    model = tiny_preset(name)
    if name == "minilm_finetune":
        model.sentence_encoder.batch_size = 8
    loss = CompiledLoss(model, "cpu", backend=counting)
    loss(random_batch(0, SIZES))  # 18 sentences
    first = len(graphs)
    loss(random_batch(1, [6, 8, 5, 6, 4]))  # 29 sentences
    assert first > 0 and len(graphs) == first
    assert {shape[:2] for shape in loss.shapes} == {(5, 8)}


def test_the_task_steps_through_the_captured_loss_and_logs_a_copy(monkeypatch):
    from benchmark.training.task import OrderingTask

    net = tiny_preset("lstm_ptrnet")
    logged = {}
    for switch in (False, True):
        task = OrderingTask(net, cuda_graphs=switch)
        monkeypatch.setattr(task, "log", lambda key, value, **_: logged.setdefault(key, value))
        logged.clear()
        loss = task.training_step(_batch(), 0)
        assert (task._compiled is not None) == switch
        assert float(loss.detach()) == pytest.approx(float(net.loss(_batch()).detach()), rel=1e-6)
        assert (logged["train/loss"] is not loss) == switch  # captured: a copy
    assert task._compiled.shapes == {(5, 8, 16)}
