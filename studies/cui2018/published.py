"""The published figures this study sets our runs beside.

Cui, Li, Chen and Zhang 2018, "Deep Attentive Sentence Ordering Network" (EMNLP):
Table 3 (Kendall's tau on Accidents, Earthquakes and NIPS; accuracy % on NIPS, the share of
sentences at their gold position averaged per document) and Table 5 (pairwise order
discrimination accuracy %, Accidents and Earthquakes). Their NIPS split is given as
2,248 / 409 / 402 abstracts; ours is the SE-Graph copy (its sizes: data/readers/nseg.py).

Yin et al. 2019 (SE-Graph) on the very split we use: the log of a run of the authors' code
(Barry-Menglong-Yao/NSEG, `output.txt`, beam 64): accuracy 57.56, PMR 24.40, tau 0.7506.

`Row`: a row of the study's tables, a preset at one setting beside the preset whose published
figure it faces.
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

# preset -> {metric: figure} on NIPS, Table 3 (accuracy in %, as the paper gives it)
NIPS = {
    "lstm_ptrnet": {"acc": 50.87, "tau": 0.67},
    "cnn_ptrnet": {"acc": 48.64, "tau": 0.66},
    "attordernet_att": {"acc": 52.17, "tau": 0.71},
    "attordernet_cnn": {"acc": 54.69, "tau": 0.72},
    "attordernet": {"acc": 56.09, "tau": 0.72},
}

# the SE-Graph authors' code on our NIPS split (a logged run, not a table of a paper)
NSEG_NIPS = {"acc": 57.56, "pmr": 24.40, "tau": 0.7506}
NSEG_LABEL = "SE-Graph (Yin et al. 2019), a logged run of the authors' code on this split"


@dataclass(frozen=True)
class Row:
    """One row of the tables: a preset at one setting (its run label ends with `tag`) and
    the preset whose published figure it is set beside (None: no published figure);
    `variant`: the row's own run variant, for a row of a sweep with a budget of its own
    (None: the page's variant + `tag`)."""

    label: str
    preset: str
    tag: str = ""
    paper: str | None = None
    variant: str | None = None

    def run_variant(self, headline: str) -> str:
        """The variant of this row's runs on a page whose budget is `headline`."""
        return self.variant if self.variant is not None else headline + self.tag
