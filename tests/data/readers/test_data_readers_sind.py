"""SIND reader (VIST story-in-sequence JSON): sentences grouped by story_id, ordered by
worker_arranged_photo_order; val -> valid; sis/ subfolder; errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures_readers import TRICKY, write_sind, write_sind_arxiv

from data.duplicates import check_duplicates
from data.errors import DataFormatError
from data.readers.sind import SindReader
from data.readers.sources import DatasetNotFoundError


def story(name: str) -> list[str]:
    return [f"{name} begins.", *TRICKY, f"{name} goes on.", f"{name} ends."]


STORIES = {
    "train": {"101": story("Ann"), "102": story("Bob"), "103": story("Cy")},
    "valid": {"201": story("Dee")},
    "test": {"301": story("Eve"), "302": story("Fay")},
}


def test_stories_in_order_with_original_text(tmp_path: Path) -> None:
    splits = SindReader(str(write_sind(tmp_path / "vist", STORIES))).read_splits()
    assert {split: [d.id for d in docs] for split, docs in splits.items()} == {
        split: list(stories) for split, stories in STORIES.items()
    }
    doc = splits["train"][1]
    assert doc.sentences == tuple(story("Bob"))
    assert doc.meta == {"album_id": "album0"} and doc.source == "album0"
    assert splits["train"][2].source == "album1"


def test_text_field_and_sis_subfolder(tmp_path: Path) -> None:
    write_sind(tmp_path / "vist" / "sis", STORIES)
    splits = SindReader(str(tmp_path / "vist"), text_field="text").read_splits()
    assert splits["test"][0].sentences == tuple(s.lower() for s in story("Eve"))
    with pytest.raises(ValueError, match="text_field"):
        SindReader(str(tmp_path), text_field="caption")


def test_missing_file_names_layout(tmp_path: Path) -> None:
    folder = write_sind(tmp_path / "vist", STORIES)
    (folder / "val.story-in-sequence.json").unlink()
    with pytest.raises(DatasetNotFoundError) as info:
        SindReader(str(folder)).read_splits()
    message = str(info.value)
    assert "val.story-in-sequence.json is missing" in message
    assert "visionandlanguage.net/VIST" in message


def rewrite(folder: Path, edit) -> None:
    path = folder / "train.story-in-sequence.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_bad_content_is_named(tmp_path: Path) -> None:
    folder = write_sind(tmp_path / "vist", STORIES)
    rewrite(folder, lambda d: d["annotations"][4][0].pop("worker_arranged_photo_order"))
    with pytest.raises(DataFormatError, match=r"annotations\[4\]: missing key\(s\) \['worker_arr"):
        SindReader(str(folder)).read_splits()

    folder = write_sind(tmp_path / "vist2", STORIES)
    rewrite(folder, lambda d: d["annotations"][1][0].update(worker_arranged_photo_order=3))
    with pytest.raises(DataFormatError, match="story '101' repeats a worker_arranged_photo_order"):
        SindReader(str(folder)).read_splits()

    (folder / "train.story-in-sequence.json").write_text('{"annotations": [', encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"train\.story-in-sequence\.json:1: malformed JSON"):
        SindReader(str(folder)).read_splits()


def test_arxiv_layout_of_the_attordernet_release(tmp_path: Path) -> None:
    texts = {
        "train": [story("ann"), story("bob")],
        "valid": [story("cy")],
        "test": [story("dee"), story("eve"), story("dee")],  # the release repeats some stories
    }
    root = write_sind_arxiv(tmp_path / "sind_arxiv", texts)
    reader = SindReader(str(root), layout="arxiv")
    splits = reader.read_splits()
    assert {s: len(d) for s, d in splits.items()} == {"train": 2, "valid": 1, "test": 3}
    doc = splits["test"][1]
    assert (doc.id, doc.sentences) == ("test-1", tuple(story("eve")))
    assert doc.meta == {"header": ["000000", "2"]}
    assert check_duplicates(splits).counts()["test"] == 1
    (root / "train.txt").unlink()  # as in the release, which ships no train file
    assert len(reader.read_split("test")) == 3
    with pytest.raises(
        DatasetNotFoundError, match=r"train.txt is missing \(dataset.reader.layout=arxiv"
    ):
        reader.read_splits()
    with pytest.raises(ValueError, match="layout must be one of"):
        SindReader(str(root), layout="txt")
