"""What a paragraph encoder's input limit cuts (benchmark.evaluation.input_cut) and
`orderbench evaluate max_tokens=N`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures_minilm import needs_minilm
from fixtures_sweep import run_dir_of
from fixtures_train import train

from benchmark.evaluate import evaluate_order
from benchmark.evaluation.input_cut import InputCut, paragraph_encoder
from models.blocks.paragraph_identity import ParagraphIdentity

LONG = ["The committee met on Tuesday to discuss the budget for the coming year.",
        "It agreed on nothing at all, after a long and bitter exchange of views.",
        "Then it rained."]  # fmt: skip
SHORT = ["It agreed.", "Then it rained."]


@pytest.fixture(scope="module")
def encoder():
    from models.blocks.paragraph_transformer import PretrainedParagraphEncoder

    return PretrainedParagraphEncoder(max_tokens=24)


@needs_minilm
def test_the_limit_is_checked_when_changed(encoder):
    with pytest.raises(ValueError, match=r"model.net.max_tokens=2 must be in 3..512"):
        encoder.limit_input(2)
    with pytest.raises(ValueError, match=r"model.net.max_tokens=513 must be in 3..512"):
        encoder.limit_input(513)
    assert encoder.max_tokens == 24  # a refused limit leaves the old one


@needs_minilm
def test_the_cut_documents_are_counted_and_scored_apart(encoder):
    cut = InputCut(encoder)
    cut.count({"doc_ids": ["long", "short"], "texts": [LONG, SHORT]})
    pieces, caps = encoder.fitted(LONG)
    whole = sum(len(piece) for piece in pieces) + sum(map(len, map(encoder.sentence_ids, SHORT)))
    assert cut.cut_ids == {"long"} and len(encoder.joined(SHORT)[0]) <= 24
    records = [{"id": "long", "gold": [0, 1, 2], "pred": [2, 1, 0]},
               {"id": "short", "gold": [0, 1], "pred": [0, 1]}]  # fmt: skip
    summary = cut.summary(records, include_trivial=False)
    assert summary["max_tokens"] == 24 and summary["documents_cut"] == 1
    dropped = sum(len(piece) for piece in pieces) - sum(caps)
    assert dropped > 0 and summary["tokens_dropped_frac"] == pytest.approx(dropped / whole)
    assert summary["cut_documents"] == {"tau": -1.0, "pmr": 0.0, "acc": pytest.approx(1 / 3),
                                        "n_docs": 1}  # fmt: skip
    assert summary["other_documents"]["tau"] == 1.0


def test_a_model_without_a_paragraph_encoder_is_refused_naming_the_key():
    with pytest.raises(ValueError, match=r"max_tokens: the run's model lstm_ptrnet reads no"):
        paragraph_encoder(ParagraphIdentity(4), "lstm_ptrnet")


@needs_minilm
@pytest.mark.slow
def test_evaluate_cuts_a_trained_paragraph_runs_input(tmp_path: Path):
    """A paragraph_listmle run decoded again: at the encoder's own limit nothing is cut and
    the record's figures come back; at a few positions every document is cut."""
    train(tmp_path, "model=paragraph_listmle", "+experiment=tiny", "trainer.max_epochs=1",
          "model.batch_size=8", "seed=0", "logger=csv")  # fmt: skip
    run = run_dir_of(tmp_path, "synthetic/paragraph_listmle/base")
    record = json.loads((run / "metrics.json").read_text())
    own = evaluate_order(run, "test", max_tokens=512)
    assert own["tau"] == record["split"]["test"]["tau"]
    assert own["input_cut"]["documents_cut"] == 0 and own["input_cut"]["tokens_dropped_frac"] == 0
    short = evaluate_order(run, "test", max_tokens=20)
    assert short["input_cut"]["documents_cut"] == short["n_docs"] + short["n_trivial"]
    assert short["input_cut"]["cut_documents"]["n_docs"] == short["n_docs"]
