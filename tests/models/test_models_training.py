"""Every preset learns a toy ordering task: with plain torch + Adam (a tiny model), and
through the harness (`python -m benchmark.train dataset=synthetic +experiment=tiny`).

Each sentence carries a rank word (the word says the sentence's gold position) among
random filler words, so a model that reads sentences reaches a Kendall tau near 1.
"""

import json
import os
import random
import subprocess
import sys

import pytest
import torch
from fixtures_sweep import run_dir_of
from repo_root import ROOT

from data.readers.synthetic import FILLER_WORDS, RANK_WORDS
from models.registry import presets
from tests.model_batches import PRESETS, make_batch

RANK_BASE, FILLER_BASE, VOCAB = 2, 10, 40  # rank tokens 2..9, fillers 10..39
WORDS = ["<pad>", "<unk>", *RANK_WORDS[:8], *FILLER_WORDS[:30]]  # texts for MiniLM


# preset -> (settings, Adam learning rate) for the plain-torch toy task, from the registry
LEARNERS = {name: (p.toy, p.toy_lr) for name, p in presets().items() if p.toy is not None}
FAST = ("lstm_ptrnet",)  # the others are marked slow


def toy_batch(rng, size):
    docs, perms = [], []
    for _ in range(size):
        n = rng.randint(2, 6)
        doc = []
        for k in range(n):
            sentence = [rng.randrange(FILLER_BASE, VOCAB) for _ in range(rng.randint(1, 4))]
            sentence.insert(rng.randint(0, len(sentence)), RANK_BASE + k)
            doc.append(sentence)
        docs.append(doc)
        perms.append(rng.sample(range(n), n))
    return make_batch(docs, perms, words=WORDS)


def kendall_tau(gold, pred):
    position = {sentence: k for k, sentence in enumerate(pred)}
    n = len(gold)
    inversions = sum(
        position[gold[i]] > position[gold[j]] for i in range(n) for j in range(i + 1, n)
    )
    return 1 - 4 * inversions / (n * (n - 1))


def mean_tau(model, batch, beam_size):
    orders, gold = model.decode(batch, beam_size=beam_size), batch["gold_order"]
    taus = [
        kendall_tau(gold[b, :n].tolist(), orders[b, :n].tolist())
        for b, n in enumerate(batch["n_sentences"].tolist())
    ]
    return sum(taus) / len(taus)


@pytest.mark.parametrize(
    "preset", [pytest.param(p, marks=[] if p in FAST else [pytest.mark.slow]) for p in LEARNERS]
)
def test_preset_learns_rank_tokens(preset):
    settings, lr = LEARNERS[preset]
    torch.manual_seed(0)
    rng = random.Random(0)
    model = presets()[preset].build(VOCAB, **settings)
    optimiser = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
    model.train()
    for _ in range(80):
        optimiser.zero_grad()
        loss = model.loss(toy_batch(rng, 32))
        loss.backward()
        optimiser.step()
    model.eval()
    batch = toy_batch(random.Random(1), 200)
    taus = [mean_tau(model, batch, beam_size) for beam_size in (1, 4)]
    assert min(taus) >= 0.9, (taus, loss.item())


# +experiment=tiny's learning rate (5e-3) is one for networks trained from scratch: a whole
# pretrained Transformer fine-tuned at it reached test tau 0.72 (paragraph_listmle) and 0.51
# (paragraph_ptrnet); at 1e-4 without warm-up both reach valid tau 1.0 in the first epoch
FINE_TUNED_WHOLE = ("model.optimizer.lr=1e-4", "model.net.warmup_steps=0")
HARNESS_OVERRIDES = {"paragraph_listmle": FINE_TUNED_WHOLE, "paragraph_ptrnet": FINE_TUNED_WHOLE}


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_preset_learns_synthetic_through_the_harness(preset, tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmark.train",
            "dataset=synthetic",
            "+experiment=tiny",
            f"model={preset}",
            *HARNESS_OVERRIDES.get(preset, ()),
            "logger=csv",
            f"paths.runs={tmp_path}",
        ],
        cwd=ROOT,
        env={**os.environ, "WANDB_MODE": "offline"},
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    run_dir = run_dir_of(tmp_path, f"synthetic/{preset}/base")
    record = json.loads((run_dir / "metrics.json").read_text())
    assert record["model"] == preset
    assert record["split"]["test"]["tau"] >= 0.9, record["split"]["test"]
