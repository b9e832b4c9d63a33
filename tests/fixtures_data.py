"""Fixture builders for the data tests: a tiny Brown corpus in the NLTK format, generated
Brown-format corpora with many files, and JSONL dataset folders."""

from __future__ import annotations

import json
from pathlib import Path

CA01 = """

\tThe/at jury/nn said/vbd ``/`` it/pps was/bedz fair/jj ''/'' ./.
It/pps met/vbd on/in Friday/nr ./.
The/at judge/nn agreed/vbd ;/. ;/.
the/at lawyers/nns did/dod not/* ./.
Nobody/pn objected/vbd ,/, did/dod they/ppss ?/. ?/.


Merger/nn-hl proposed/vbn-hl
\tHowever/wrb ,/, the/at city/nn-tl didn't/dod* agree/vb ./.
Atlanta's/np$ mayor/nn spoke/vbd (/( briefly/rb )/) ./.
He/pps left/vbd early/rb ./.


\tShort/jj paragraph/nn ./.
Only/rb two/cd ./.


\tOne/cd ./.
Two/cd ./.
Three/cd ./.
Austin/np-hl ,/,-hl Texas/np-hl
--/-- The/at senate/nn met/vbd ./.
It/pps voted/vbd ./.
It/pps adjourned/vbd ./.
"""

CB02 = """

\tWe/ppss must/md act/vb --/-- now/rb --/-- or/cc never/rb ./.
The/at costs/nns are/ber :/:
taxes/nns and/cc fees/nns ./.
Prices/nns rose/vbd 5/cd %/nn ./.
"""

CN01 = """

\t``/`` Come/vb here/rb ,/, ''/'' she/pps said/vbd ./.
He/pps whispered/vbd '/' maybe/rb '/' and/cc smiled/vbd ./.
They/ppss left/vbd the/at farmers/nns '/' market/nn ./.
``/`` Why/wrb ?/. ?/.
''/'' he/pps asked/vbd ./.
"""

CATS = "ca01 news\ncb02 editorial\ncn01 fiction\n"


def write_brown(root: Path) -> Path:
    """The three-file hand-written corpus above, in ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in {"ca01": CA01, "cb02": CB02, "cn01": CN01, "cats.txt": CATS}.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def write_generated_brown(root: Path, files_per_genre: dict[str, tuple[str, int]]) -> Path:
    """A corpus with ``count`` files per genre (``genre -> (letter, count)``), each file
    holding two three-sentence paragraphs."""
    root.mkdir(parents=True, exist_ok=True)
    cats = []
    for genre, (letter, count) in files_per_genre.items():
        for i in range(1, count + 1):
            fid = f"c{letter}{i:02d}"
            cats.append(f"{fid} {genre}")
            paragraph = "\n".join(f"\tSentence/nn {k}/cd of/in {fid}/np ./." for k in range(3))
            (root / fid).write_text(f"\n\n{paragraph}\n\n\n{paragraph}\n", encoding="utf-8")
    (root / "cats.txt").write_text("\n".join(cats) + "\n", encoding="utf-8")
    if not (root / "ca01").exists():
        raise ValueError("a generated corpus needs a genre with letter 'a' (file ca01)")
    return root


def write_jsonl_dataset(root: Path, splits: dict[str, list[dict]]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for split, records in splits.items():
        lines = [json.dumps(r) for r in records]
        (root / f"{split}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def small_jsonl_splits() -> dict[str, list[dict]]:
    """Three small splits with varied lengths (one trivial document in test)."""
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()

    def doc(split: str, i: int, n: int) -> dict:
        sentences = [
            f"{words[(i + k) % 10]} {words[k]} number {k} in {split} {i}." for k in range(n)
        ]
        return {"id": f"{split}-{i}", "sentences": sentences, "meta": {"n": n}}

    return {
        "train": [doc("train", i, 2 + i % 5) for i in range(40)],
        "valid": [doc("valid", i, 2 + i % 4) for i in range(9)],
        "test": [doc("test", i, 1 + i % 6) for i in range(11)],
    }
