"""Reading, validating and writing predictions.jsonl (docs/design.md, section 3)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from benchmark.records.predictions_jsonl import (
    Prediction,
    PredictionsError,
    read_predictions,
    write_predictions,
)

GOOD = {"id": "doc-1", "gold": [0, 1, 2, 3], "pred": [2, 0, 1, 3]}


def write_lines(tmp_path, *lines):
    path = tmp_path / "predictions.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def dumps(**changes):
    record = {**GOOD, **changes}
    return json.dumps({key: value for key, value in record.items() if value is not None})


def test_reads_valid_file_with_extra_keys_and_blank_lines(tmp_path):
    path = write_lines(
        tmp_path, dumps(score=-1.25), "", dumps(id="doc-2", gold=[0], pred=[0]), "   "
    )
    records = read_predictions(path)
    assert [r.id for r in records] == ["doc-1", "doc-2"]
    assert records[0].gold == (0, 1, 2, 3)
    assert records[0].pred == (2, 0, 1, 3)
    assert records[0].noise is None
    assert records[0].extra == {"score": -1.25}
    assert records[1].where == f"{path}:3"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (dumps(pred=[2, 0, 1]), "document 'doc-1': pred lacks id 3"),
        (dumps(pred=[2, 0, 1, 3, 3]), "document 'doc-1': pred repeats id 3"),
        (dumps(pred=[2, 0, 1, 3, 7]), "document 'doc-1': pred has unknown id 7"),
        (dumps(pred=[2, 0, 1, 7]), "document 'doc-1': pred has unknown id 7; pred lacks id 3"),
        (dumps(pred=[2, 0, 1, -1]), "document 'doc-1': pred has unknown id -1"),
        (dumps(gold=[0, 1, 1, 3], pred=[0, 1, 1, 3]), "document 'doc-1': gold repeats id 1"),
        (dumps(gold=[], pred=[]), "document 'doc-1': gold is empty"),
        (dumps(gold=[0, -1], pred=[0, -1]), "gold has negative id -1"),
        (dumps(pred="0 1 2 3"), "'pred' must be a list of integer sentence ids"),
        (dumps(pred=[0, 1, 2, 3.0]), "'pred' must be a list of integer sentence ids"),
        (dumps(gold=[True, False], pred=[True, False]), "'gold' must be a list of integer"),
        (dumps(pred=None), "document 'doc-1': missing key 'pred'"),
        (dumps(gold=None, pred=None), "document 'doc-1': missing key 'gold', 'pred'"),
        (dumps(id=None), "missing key 'id'"),
        (dumps(id=17), "'id' must be a string"),
        ('{"id": "doc-1", "gold": [0, 1], "pred": [0, 1]', "malformed JSON"),
        ("[0, 1, 2]", "expected a JSON object, got list"),
        (dumps(noise=[-1, 2]), "noise id 2 is not negative"),
        (dumps(noise=[-1, -1]), "noise repeats id -1"),
        (dumps(noise=[-1], pred=[2, -1, -1]), "pred repeats id -1"),
        (dumps(noise=[-1], pred=[2, -2]), "pred has unknown id -2"),
        (dumps(noise=[-1], pred=[2, 9, -1, 9]), "pred repeats id 9; pred has unknown id 9"),
        (dumps(noise="-1"), "'noise' must be a list of integer sentence ids"),
        (
            dumps(pred=[2, 0, 1, -1]),
            "pred has unknown id -1; pred lacks id 3; distractor ids (< 0) need the document's "
            "'noise' list",
        ),
        (dumps(meta="news"), "document 'doc-1': 'meta' must be a JSON object"),
    ],
)
def test_rejects_bad_line_naming_file_line_and_document(tmp_path, line, reason):
    path = write_lines(tmp_path, dumps(id="ok", gold=[0, 1], pred=[1, 0]), line)
    with pytest.raises(PredictionsError) as error:
        read_predictions(path)
    message = str(error.value)
    assert message.startswith(f"{path}:2: "), message
    assert reason in message


def test_rejects_duplicate_document_id(tmp_path):
    path = write_lines(tmp_path, dumps(), dumps(id="doc-2"), "", dumps())
    with pytest.raises(PredictionsError, match=r":4: document 'doc-1': duplicate document id"):
        read_predictions(path)
    with pytest.raises(PredictionsError, match=rf"first at {path}:1"):
        read_predictions(path)


def test_noise_allows_any_subset_of_gold_and_noise(tmp_path):
    path = write_lines(
        tmp_path,
        dumps(noise=[-1], pred=[2, -1, 0]),
        dumps(id="doc-2", noise=[], pred=[1, 0]),
        dumps(id="doc-3", noise=[-1, -2], pred=[]),
    )
    records = read_predictions(path)
    assert records[0].noise == (-1,)
    assert records[0].pred == (2, -1, 0)
    assert records[1].noise == ()


def test_meta_is_kept_and_null_meta_is_no_meta(tmp_path):
    null_meta = json.dumps({**GOOD, "id": "doc-2", "meta": None})
    path = write_lines(tmp_path, dumps(meta={"genre": "news"}), null_meta)
    records = read_predictions(path)
    assert records[0].extra == {"meta": {"genre": "news"}}
    assert records[1].extra == {"meta": None}


def test_non_utf8_file_is_rejected_with_its_name(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"id": "\xff"}\n')
    with pytest.raises(PredictionsError, match="bad.jsonl:1: not UTF-8"):
        read_predictions(path)


def test_write_then_read_round_trip(tmp_path):
    records = [
        {"id": "doc-1", "gold": [0, 1, 2], "pred": np.array([2, 0, 1]), "log_prob": -3.5},
        Prediction("doc-2", (0, 1), (0, 1)),
        {"id": "doc-3", "gold": [0, 1], "pred": [-1, 1], "noise": [-1]},
    ]
    path = write_predictions(tmp_path / "sub" / "predictions.jsonl", records)
    back = read_predictions(path)
    assert [r.id for r in back] == ["doc-1", "doc-2", "doc-3"]
    assert back[0].pred == (2, 0, 1)
    assert back[0].extra == {"log_prob": -3.5}
    assert back[1] == Prediction("doc-2", (0, 1), (0, 1))
    assert back[2].noise == (-1,)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0]) == {
        "id": "doc-1",
        "gold": [0, 1, 2],
        "pred": [2, 0, 1],
        "log_prob": -3.5,
    }


def test_writer_validates_before_touching_the_file(tmp_path):
    path = write_predictions(tmp_path / "predictions.jsonl", [GOOD])
    before = path.read_text(encoding="utf-8")
    bad = [GOOD, {"id": "doc-2", "gold": [0, 1], "pred": [0]}]
    with pytest.raises(PredictionsError, match=r"record #1: document 'doc-2': pred lacks id 1"):
        write_predictions(path, bad)
    with pytest.raises(PredictionsError, match=r"record #1: .*duplicate document id"):
        write_predictions(path, [GOOD, GOOD])
    assert path.read_text(encoding="utf-8") == before
    assert os.listdir(tmp_path) == ["predictions.jsonl"]  # no temporary file left behind
