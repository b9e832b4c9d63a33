"""Tiny datasets in the exact published formats of the readers in ``data/readers`` (NIPS /
AAN / NSF, NIPS as shipped with the SE-Graph code, arXiv, SIND, ROCStories, Accidents /
Earthquakes), with text that must come back intact: non-ASCII letters, typographic and
straight quotes, dashes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

TRICKY = (
    "Schrödinger's “naïve” café said \"hello\" -- and 'goodbye'.",
    "Œuvre, façade, jalapeño — 東京 and Ελλάδα, «guillemets».",
)


def abstract(name: str, n: int) -> list[str]:
    """``n`` numbered sentences of document ``name``; the second and third are TRICKY."""
    sentences = [f"Sentence {k} of {name}." for k in range(n)]
    for k, text in enumerate(TRICKY, start=1):
        if k < n:
            sentences[k] = text
    return sentences


def write_lines(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_logeswaran(root: Path, corpus: str, names: dict[str, list[str]]) -> Path:
    """``split/<listing>`` + ``txt_tokenized/<file>`` for ``nips`` (a<name>.txt, year
    listings) or ``aan``/``nsf``; document ``name`` gets ``3 + len(name) % 4`` sentences."""
    listings = (
        {"train": "2013le_papers", "valid": "2014_papers", "test": "2015_papers"}
        if corpus == "nips"
        else {s: s for s in ("train", "valid", "test")}
    )
    template = "a{}.txt" if corpus == "nips" else "{}"
    for split, docs in names.items():
        write_lines(root / "split" / listings[split], docs)
        for name in docs:
            write_lines(
                root / "txt_tokenized" / template.format(name), abstract(name, 3 + len(name) % 4)
            )
    return root


NSEG_FILES = {"train": "train", "valid": "val", "test": "test"}  # split -> file stem


def nseg_abstract(split: str, k: int) -> list[str]:
    """The sentences of line ``k`` (1-based) of ``split`` in ``write_nseg``: 2 + k % 5."""
    return abstract(f"{split}{k}", 2 + k % 5)


def write_nseg(
    root: Path, sizes: dict[str, int], separator: str = " <eos> ", side: bool = True
) -> Path:
    """``{train,val,test}.lower`` as in the SE-Graph release: one abstract per line
    (``nseg_abstract``), sentences joined by ``separator``; with ``side``, the ``.eg`` entity
    files beside them, one line per abstract (every third one empty, as in the release)."""
    for split, n in sizes.items():
        stem = NSEG_FILES[split]
        lines = [separator.join(nseg_abstract(split, k)) for k in range(1, n + 1)]
        write_lines(root / f"{stem}.lower", lines)
        if side:
            entities = [f"entity{k}:0-1|1-2 other:1-3" if k % 3 else "" for k in range(1, n + 1)]
            write_lines(root / f"{stem}.eg", entities)
    return root


def write_arxiv(root: Path, sizes: dict[str, int]) -> Path:
    """``{split}.txt``: blank-line separated documents, two header lines each."""
    for split, size in sizes.items():
        blocks = [
            "\n".join(
                [
                    f"http://arxiv.org/abs/{split}.{i}",
                    f"Title {i}",
                    *abstract(f"{split}{i}", 2 + i % 5),
                ]
            )
            for i in range(size)
        ]
        (root / f"{split}.txt").parent.mkdir(parents=True, exist_ok=True)
        (root / f"{split}.txt").write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return root


def sind_annotation(story: str, album: str, position: int, text: str) -> list[dict]:
    return [
        {
            "original_text": text,
            "album_id": album,
            "photo_flickr_id": f"{story}{position}",
            "setting": "first-2-pick-and-tell",
            "worker_id": "W1",
            "story_id": story,
            "tier": "story-in-sequence",
            "worker_arranged_photo_order": position,
            "text": text.lower(),
            "storylet_id": f"{story}-{position}",
        }
    ]


def write_sind(folder: Path, stories: dict[str, dict[str, list[str]]]) -> Path:
    """``{train,val,test}.story-in-sequence.json``; ``stories[split][story_id]`` are the
    five sentences in story order, written shuffled."""
    folder.mkdir(parents=True, exist_ok=True)
    for split, file in (("train", "train"), ("valid", "val"), ("test", "test")):
        annotations = []
        for k, (story, sentences) in enumerate(stories[split].items()):
            album = f"album{k // 2}"
            for position in (3, 0, 4, 1, 2):
                annotations.append(sind_annotation(story, album, position, sentences[position]))
        data = {"images": [], "albums": [], "info": {}, "type": "story_in_sequence",
                "annotations": annotations}  # fmt: skip
        (folder / f"{file}.story-in-sequence.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def write_roc(path: Path, stories: list[tuple[str, str, list[str]]]) -> Path:
    """A ROCStories CSV: (storyid, storytitle, five sentences) per row."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["storyid", "storytitle", *(f"sentence{k}" for k in range(1, 6))])
        for story_id, title, sentences in stories:
            writer.writerow([story_id, title, *sentences])
    return path


def roc_stories(prefix: str, n: int) -> list[tuple[str, str, list[str]]]:
    return [(f"{prefix}-{i:04d}", f"Title {i}", abstract(f"{prefix}{i}", 5)) for i in range(n)]


def write_barzilay(root: Path, n_train: int, n_test: int) -> Path:
    """``train/`` and ``test/`` with one article per file, one sentence per line."""
    for folder, n in (("train", n_train), ("test", n_test)):
        for i in range(n):
            write_lines(root / folder / f"{folder}{i:03d}.txt", abstract(f"{folder}{i}", 2 + i % 6))
    return root


def published_id(style: str, article: int, position: int) -> str:
    """A line id as in the published Accidents (``ntsb``: ends in the gold position) or
    Earthquakes (``apws``: one id per file, with a colon) files."""
    if style == "ntsb":
        return f"ntsb{2600 + article}txt-1-5-5-0-{position + 1}"
    return f"apwsE9501{article:02d}.0{article:03d}-0:"


def published_article(folder: str, i: int) -> list[str]:
    return abstract(f"{folder}{i}", 2 + i % 6)


def write_barzilay_published(
    root: Path, sizes: dict[str, int], style: str = "ntsb", copies: int = 0, gold: bool = True
) -> Path:
    """The published archive layout: ``<folder>/<article>.perm-1`` (gold order, every line
    ``<published id> <sentence>``) and, with ``copies``, ``.perm-2 .. .perm-(copies+1)``
    beside it (sentences permuted by ``published_copy_order``); ``gold=False`` leaves out
    the ``.perm-1`` files (the published Accidents test permutations)."""
    for folder, n in sizes.items():
        for i in range(n):
            sentences = published_article(folder, i)
            lines = [f"{published_id(style, i, k)} {s}" for k, s in enumerate(sentences)]
            name = f"{style}{2600 + i}.txt-1-5-5-0-out"
            if gold:
                write_lines(root / folder / f"{name}.perm-1", lines)
            for copy in range(2, copies + 2):
                order = published_copy_order(len(lines), copy)
                write_lines(root / folder / f"{name}.perm-{copy}", [lines[k] for k in order])
    return root


def published_copy_order(n: int, copy: int) -> list[int]:
    """The gold positions, in file order, of permuted copy ``copy`` of an ``n``-sentence
    article: a rotation by ``copy``, reversed for odd copies."""
    order = [(k + copy) % n for k in range(n)]
    return order[::-1] if copy % 2 else order


def write_sind_arxiv(root: Path, stories: dict[str, list[list[str]]]) -> Path:
    """``{split}.txt`` as in ATTOrderNet's SIND release: per story a header ``000000``, its
    number padded with spaces, five sentences with trailing spaces; stories separated by a
    line of spaces (not an empty line)."""
    root.mkdir(parents=True, exist_ok=True)
    for split, texts in stories.items():
        lines = []
        for k, sentences in enumerate(texts, start=1):
            lines += ["000000", f"{k}        ", *(f"{s}  " for s in sentences), "    "]
        (root / f"{split}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root
