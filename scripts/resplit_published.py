"""Re-split a Barzilay & Lapata corpus (Accidents, Earthquakes) at random, for the
split ablation of docs/reproduction.md.

The published split separates the articles by date (Earthquakes: training articles from
January 1995, test articles from November 1995). This pools the training and test
articles, drops duplicate articles (same sentences once the published ids are stripped,
as the reader compares them), shuffles them with a seed and writes a
folder with the published layout (`train/`, `test/`: symbolic links to the original
files) whose training split has as many articles as the published one. Training on it
with `dataset.path=OUT` tells how much of a test figure is the date split itself.

    python scripts/resplit_published.py ../shared/datasets/earthquake /tmp/earthquake_random
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from data.readers.published_ids import published_sentences


def articles(folder: Path) -> list[Path]:
    """The article files of a published split folder (hidden files skipped), by name."""
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))


def resplit(source: Path, out: Path, seed: int) -> tuple[int, int, int]:
    """Write out/train and out/test; (train articles, test articles, duplicates dropped)."""
    published_train = articles(source / "train")
    pooled = published_train + articles(source / "test")
    by_text: dict[tuple[str, ...], Path] = {}
    for path in pooled:
        by_text.setdefault(tuple(text for _, text in published_sentences(path)), path)
    unique = sorted(by_text.values())
    random.Random(seed).shuffle(unique)
    n_train = len(published_train)
    for split, members in (("train", unique[:n_train]), ("test", unique[n_train:])):
        folder = out / split
        folder.mkdir(parents=True, exist_ok=False)
        for path in members:
            (folder / f"{path.parent.name}_{path.name}").symlink_to(path.resolve())
    return n_train, len(unique) - n_train, len(pooled) - len(unique)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="the published folder (train/, test/)")
    parser.add_argument("out", type=Path, help="new folder (must not exist)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.out.exists():
        parser.error(f"{args.out} exists; give a new folder")
    n_train, n_test, dropped = resplit(args.source, args.out, args.seed)
    print(f"{args.out}: {n_train} train, {n_test} test articles ({dropped} duplicates dropped)")


if __name__ == "__main__":
    main()
