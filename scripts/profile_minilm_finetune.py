"""Where the training time of `minilm_finetune`'s CPU setting goes, on K Brown batches.

On K training batches spread evenly over an epoch (the DataModule's own loader, seed 0),
with the config's optimiser and gradient clipping, one thread:

- `first_s`: a step that must first run the frozen layers on the batch's new sentences
  (the first epoch of a run without a filled store), then loss + backward + update;
- `cached_s`: the same batches again (states cached: later epochs, or any epoch once the
  store holds the corpus);
- `val_s`: greedy decoding (`val_beam_size`) of K validation batches, states cached;
- `fill_ms`: the frozen part alone per new sentence, as a training step meets them (the
  trained layers skipped), on a fresh encoder.

Then the minutes per epoch, extrapolated linearly from these means to the epoch's batch
counts (said so in the output). `--encoder-file` times another version of
`models/blocks/sentence_transformer_finetuned.py` (e.g. `git show REV:models/...` into a file) in
place of the working tree's, for a before/after in the same conditions; run the two back
to back, since the machine's load changes the absolute figures. Give it the settings of
its time (before length-sorted chunks, `encoder_batch_size` was 128):

    python scripts/profile_minilm_finetune.py --batches 24
    git show 249086b~1:models/blocks/sentence_transformer_finetuned.py > /tmp/before.py
    python scripts/profile_minilm_finetune.py --batches 24 --encoder-file /tmp/before.py \
        model.net.encoder_batch_size=128
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import time
from collections.abc import Callable

import torch

from benchmark.config.compose import compose_config
from benchmark.run.stages import build_datamodule, build_task


def encoder_class(path: str | None) -> type:
    """FineTunedSentenceEncoder of the working tree, or of the module file `path`."""
    import models.blocks.sentence_transformer_finetuned as blocks  # the preset imports it here

    if path is None:
        return blocks.FineTunedSentenceEncoder
    spec = importlib.util.spec_from_file_location("encoder_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    class Encoder(module.FineTunedSentenceEncoder):
        def __init__(self, *args, store=None, **kwargs):  # the store is off here (null)
            super().__init__(*args, **kwargs)

    blocks.FineTunedSentenceEncoder = Encoder
    return Encoder


def mean_seconds(call: Callable[[dict], None], batches: list[dict]) -> float:
    start = time.perf_counter()
    for batch in batches:
        call(batch)
    return (time.perf_counter() - start) / len(batches)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=24, help="K training/validation batches")
    parser.add_argument("--encoder-file", help="another version of the encoder module")
    parser.add_argument("overrides", nargs="*", help="config overrides, e.g. model.net.x=y")
    args = parser.parse_args()
    torch.set_num_threads(1)
    cls = encoder_class(args.encoder_file)
    overrides = ["model=minilm_finetune", "dataset=brown", "++model.net.encoder_store=null"]
    cfg = compose_config([*overrides, *args.overrides])
    datamodule = build_datamodule(cfg)
    datamodule.prepare_data()
    datamodule.setup("fit")
    datamodule.set_epoch(0)
    train, val = list(datamodule.train_dataloader()), list(datamodule.val_dataloader())
    sample = train[:: max(1, len(train) // args.batches)][: args.batches]
    val_sample = val[:: max(1, len(val) // args.batches)][: args.batches]
    torch.manual_seed(cfg.seed)
    task = build_task(cfg, datamodule)
    net = task.net.train()
    optimizer = task.configure_optimizers()
    optimizer = optimizer["optimizer"] if isinstance(optimizer, dict) else optimizer
    clip = cfg.trainer.get("gradient_clip_val")

    def step(batch: dict) -> None:
        optimizer.zero_grad(set_to_none=True)
        net.loss(batch).backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        optimizer.step()

    load_before = os.getloadavg()
    first, cached = mean_seconds(step, sample), mean_seconds(step, sample)
    net.eval()
    with torch.no_grad():
        beam = cfg.model.val_beam_size
        mean_seconds(lambda b: net.decode(b, beam_size=beam), val_sample)  # fill
        val_s = mean_seconds(lambda b: net.decode(b, beam_size=beam), val_sample)
        settings = dict(cfg.model.net)
        fresh = cls(train_layers=settings["train_layers"], batch_size=settings.get(
            "encoder_batch_size", 128), max_tokens=settings["max_tokens"]).eval()  # fmt: skip
        fresh._top = lambda hidden, mask: hidden.new_zeros(len(hidden), fresh.output_dim)
        texts = [[t for document in b["texts"] for t in document] for b in sample]
        sentences = len({t for step_texts in texts for t in step_texts})
        fill_s = mean_seconds(lambda t: fresh._from_cached_states(t, torch.device("cpu")), texts)
    fill_ms = 1000 * fill_s * len(texts) / sentences
    splits = datamodule.documents
    distinct = {s for split in splits.values() for d in split for s in d.sentences}
    val_distinct = {s for d in splits["valid"] for s in d.sentences}
    minutes = dict(  # linear extrapolation of the sampled means to a whole epoch
        first_epoch=(len(train) * first + len(val) * val_s + len(val_distinct) * fill_ms / 1e3),
        later_epoch=(len(train) * cached + len(val) * val_s),
        fill_all_splits=len(distinct) * fill_ms / 1e3,
    )
    print(json.dumps({
        "encoder": args.encoder_file or "working tree",
        "batches": len(sample), "train_batches": len(train), "val_batches": len(val),
        "first_s": round(first, 3), "cached_s": round(cached, 3), "val_s": round(val_s, 3),
        "fill_ms_per_sentence": round(fill_ms, 2), "distinct_sentences": len(distinct),
        "extrapolated_minutes": {k: round(v / 60, 1) for k, v in minutes.items()},
        "load_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
    }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
