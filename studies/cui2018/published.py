"""The published figures this study sets our runs beside, each under our metric key of the
same convention (docs/metrics.md, "Which paper uses which", read from each paper's code):
`acc` is an accuracy averaged per document, `acc_pooled` and `lcs_pooled` are pooled over
the sentences of the test split; tau and PMR are per document in every paper.

Cui, Li, Chen and Zhang 2018, "Deep Attentive Sentence Ordering Network" (EMNLP):
Table 3 (Kendall's tau on Accidents, Earthquakes and NIPS; accuracy % on NIPS, averaged per
document as ATTOrderNet's released code does) and Table 5 (pairwise order discrimination
accuracy %, Accidents and Earthquakes). Their NIPS split is given as 2,248 / 409 / 402
abstracts; ours is the SE-Graph copy (its sizes: data/readers/nseg.py).

`PEERS`: the other NIPS figures of the NIPS page: a logged run of the SE-Graph code on our
very split, and B-TSort's and BERSON's published figures on their copies of NIPS.
"""

from __future__ import annotations

from dataclasses import dataclass

MODELS = {  # preset -> its name in Cui et al. 2018, Table 3
    "lstm_ptrnet": "LSTM+PtrNet",
    "cnn_ptrnet": "CNN+PtrNet",
    "attordernet_att": "ATTOrderNet (ATT)",
    "attordernet_cnn": "ATTOrderNet (CNN)",
    "attordernet": "ATTOrderNet",
}

# (preset, dataset) -> (tau, Table 3; discrimination %, Table 5)
PAPER = {
    ("lstm_ptrnet", "accident"): (0.58, 93.7), ("lstm_ptrnet", "earthquake"): (0.85, 99.5),
    ("cnn_ptrnet", "accident"): (0.58, 93.5), ("cnn_ptrnet", "earthquake"): (0.84, 99.4),
    ("attordernet_att", "accident"): (0.59, 95.4), ("attordernet_att", "earthquake"): (0.87, 99.6),
    ("attordernet_cnn", "accident"): (0.61, 95.8), ("attordernet_cnn", "earthquake"): (0.89, 99.7),
    ("attordernet", "accident"): (0.64, 96.2), ("attordernet", "earthquake"): (0.92, 99.8),
}  # fmt: skip

# preset -> {metric: figure} on NIPS, Table 3 (accuracy in %, as the paper gives it; per
# document, our `acc`)
NIPS = {
    "lstm_ptrnet": {"acc": 50.87, "tau": 0.67},
    "cnn_ptrnet": {"acc": 48.64, "tau": 0.66},
    "attordernet_att": {"acc": 52.17, "tau": 0.71},
    "attordernet_cnn": {"acc": 54.69, "tau": 0.72},
    "attordernet": {"acc": 56.09, "tau": 0.72},
}


@dataclass(frozen=True)
class Published:
    """Published NIPS figures of one system: {our metric key of the same convention: the
    figure as published (% for the rates)}, where they were measured, and their source."""

    label: str
    figures: dict[str, str]  # as printed there, its digits kept
    on: str  # the test set: "this split" when it is ours, so the figures are comparable
    source: str

    def figure(self, metric: str) -> float | None:
        """The figure of `metric` as a number (None: not published)."""
        return float(self.figures[metric]) if metric in self.figures else None


NSEG = Published(
    "SE-Graph (Yin et al. 2019), a logged run of the authors' code",
    {"acc_pooled": "57.56", "pmr": "24.40", "tau": "0.7506"}, "this split",
    "Barry-Menglong-Yao/NSEG `output.txt` (beam 64); accuracy pooled by "
    "DeepLearnXMU/NSEG `model/seq2seq.py`",
)
BTSORT = Published(
    "B-TSort (Prabhumoye et al. 2020), BERT pair classifier + topological sort",
    {"acc_pooled": "61.48", "pmr": "32.59", "tau": "0.81", "lcs_pooled": "83.45"},
    "their copy of NIPS",
    "ACL 2020, NIPS row; accuracy and LCS pooled by shrimai/Topological-Sort-for-"
    "Sentence-Ordering `topological_sort.py`",
)
BERSON = Published(
    "BERSON (Cui et al. 2020), BERT-base", {"pmr": "48.0", "tau": "0.85"},
    "their copy of NIPS", "EMNLP 2020, NIPS row (hwxcby/BERSON)",
)
PEERS = (NSEG, BTSORT, BERSON)
