"""The benchmark of one model preset, at the sizes `python -m benchmark.train` uses.

The preset's config is composed as for training
(`models/families/*/conf/model/<preset>.yaml`, the chosen dataset), its DataModule and
model built by the training code, then: training throughput (`bench_training`), decoding
throughput on a sample of the test split at each beam
(`bench_decoding`), the scaling of search time with paragraph length and beam width on
synthetic paragraphs, and the comparison with the one-document reference search
(`bench_reference`). `python -m benchmark.bench.suite` runs each preset in a fresh process, so
its peak memory and threads are its own.

MiniLM's persistent vector store is switched off (`net.minilm_store=null`, and
`net.encoder_store=null` for the fine-tuned encoder's frozen states): the figures
then do not depend on what earlier runs stored, and the synthetic sentences are not
stored. MiniLM still caches vectors within the process, so its training figures include
encoding every new sentence (a first epoch), its decoding figures do not (after warm-up).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from hydra.errors import InstantiationException

from benchmark.bench.decoding import decode_throughput, scaling
from benchmark.bench.inputs import test_sample
from benchmark.bench.machine import peak_memory_mb
from benchmark.bench.reference import sample_mismatches, speedup
from benchmark.bench.training import training_throughput
from benchmark.config.compose import compose_config
from benchmark.config.threads import resolve_threads
from benchmark.run.model_builder import configured_preset
from benchmark.run.stages import build_datamodule, build_task

OVERRIDES = {
    "minilm_ptrnet": ["++model.net.minilm_store=null"],
    "minilm_finetune": ["++model.net.encoder_store=null"],
}


@dataclass(frozen=True)
class Settings:
    dataset: str  # conf/dataset/<dataset>.yaml
    device: str  # "cpu" or "cuda"
    precision: str  # "32" or "bf16" (autocast)
    threads: int | None  # PyTorch threads; None: the config's cpu_threads, else PyTorch's
    steps: int  # timed training steps
    warmup: int  # untimed training steps before them
    beams: list[int]  # beam widths
    lengths: list[int]  # synthetic paragraph lengths (sentences)
    length: int  # paragraph length of the beam scaling and the reference comparison
    docs: int  # synthetic paragraphs per timed batch
    decode_docs: int  # test documents for decoding throughput
    reference_docs: int  # documents decoded by the reference, per check and beam
    repeats: int  # timed calls per decoding figure (median)
    overrides: tuple[str, ...] = ()  # config overrides after model= and dataset= (e.g. the
    #                                  published sizes: +experiment=attordernet_paper)
    cuda_graphs: bool = False  # the training step as `cuda_graphs: true` runs it
    encoder_shape: str | None = None  # a pretrained encoder's shape, random weights
    #                                   (benchmark.bench.shaped_encoder)


def preset_overrides(preset: str, settings: Settings) -> list[str]:
    """The config overrides `preset` is composed with."""
    return [f"model={preset}", f"dataset={settings.dataset}", *OVERRIDES.get(preset, []),
            *settings.overrides]  # fmt: skip


def bench_preset(preset: str, settings: Settings) -> dict:
    """Every figure of `preset`, or {"status": "skipped", "reason": ...} when it cannot be
    built here (an optional package is missing)."""
    device = torch.device(settings.device)
    cfg = compose_config(preset_overrides(preset, settings))
    threads = settings.threads or resolve_threads(cfg.get("cpu_threads"))
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(cfg.seed)
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    try:
        task = build_task(cfg, datamodule)
    except (ImportError, InstantiationException) as error:
        cause = error if isinstance(error, ImportError) else error.__cause__
        if not isinstance(cause, ImportError):
            raise
        return {"status": "skipped", "reason": str(cause)}
    net = task.net
    result = {
        "status": "ok",
        "threads": torch.get_num_threads(),
        "batch_size": cfg.model.batch_size,
        "trainable_params": sum(p.numel() for p in net.parameters() if p.requires_grad),
        "setup_memory_mb": peak_memory_mb(device),
    }
    if configured_preset(cfg).trainable:
        clip = cfg.trainer.get("gradient_clip_val")
        result["train"] = training_throughput(
            task, datamodule, device, settings.precision, settings.steps, settings.warmup, clip,
            settings.cuda_graphs,
        )
    searches = hasattr(net, "search")  # the random baseline ignores the beam
    beams = settings.beams if searches else [1]
    sample = test_sample(datamodule, settings.decode_docs)
    result["decode"], orders = decode_throughput(
        net, sample, beams, device, settings.precision, settings.repeats
    )
    if searches:
        result["scaling"], batched, batch = scaling(
            net,
            datamodule.vocab,
            settings.lengths,
            beams,
            settings.length,
            settings.docs,
            device,
            settings.precision,
            settings.repeats,
        )
        result["reference"] = speedup(
            net, batch, batched, settings.reference_docs, device, settings.precision
        )
        result["reference"]["test_sample"] = sample_mismatches(
            net, sample, orders, settings.reference_docs, device, settings.precision
        )
    return result
