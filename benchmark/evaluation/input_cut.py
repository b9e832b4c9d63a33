"""What cutting a long paragraph costs a model that reads it whole: `orderbench evaluate
task=order max_tokens=N`.

A pretrained paragraph encoder (`models.blocks.paragraph_transformer`) joins a paragraph's
sentences into one input of at most `model.net.max_tokens` positions and cuts the longest
sentences first when they do not fit (docs/models.md, "Pretrained paragraph encoders").
Decoding a trained run again with a smaller limit cuts more documents, and more of each;
`InputCut` counts which documents a limit cuts and how many of their sub-word tokens it
drops, and scores those documents apart from the rest, so the figures of several limits
say how tau falls with the share of the input lost (docs/models.md, "Long paragraphs").
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from benchmark.metrics.corpus import NoScorableDocumentsWarning, score_records, summarise
from benchmark.metrics.registry import HEADLINE

if TYPE_CHECKING:
    from torch import nn

    from models.blocks.paragraph_transformer import PretrainedParagraphEncoder

SCORED = (*HEADLINE, "n_docs")  # the figures given of the cut documents


def paragraph_encoder(net: nn.Module, model: str) -> PretrainedParagraphEncoder:
    """The paragraph encoder of a run's model; ValueError naming the key when it has none."""
    from models.blocks.paragraph_transformer import PretrainedParagraphEncoder

    found = [module for module in net.modules() if isinstance(module, PretrainedParagraphEncoder)]
    if not found:
        raise ValueError(
            f"max_tokens: the run's model {model} reads no joined paragraph (only the "
            "pretrained paragraph encoders, paragraph_*, have model.net.max_tokens)"
        )
    return found[0]


class InputCut:
    """The documents an encoder's limit cuts, counted batch by batch as they are decoded."""

    def __init__(self, encoder: PretrainedParagraphEncoder):
        self.encoder = encoder
        self.tokens = 0  # sub-word tokens of every sentence of the split
        self.dropped = 0  # of those, the ones the limit cuts
        self.cut_ids: set = set()

    def count(self, batch: dict) -> None:
        """Count a batch's documents (`texts`: the presented sentences)."""
        for doc_id, texts in zip(batch["doc_ids"], batch["texts"], strict=True):
            pieces, caps = self.encoder.fitted(texts)
            whole, kept = sum(len(piece) for piece in pieces), sum(caps)
            self.tokens += whole
            if kept < whole:
                self.dropped += whole - kept
                self.cut_ids.add(doc_id)

    def summary(self, records: list[dict], include_trivial: bool) -> dict:
        """The limit, the documents cut and the share of the tokens dropped, and the
        figures of the cut documents and of the others (`SCORED`)."""
        cut = [record for record in records if record["id"] in self.cut_ids]
        kept = [record for record in records if record["id"] not in self.cut_ids]
        with warnings.catch_warnings():  # no cut document: NaN figures, said by n_docs 0
            warnings.simplefilter("ignore", NoScorableDocumentsWarning)
            figures = {name: summarise(score_records(part, include_trivial))
                       for name, part in (("cut_documents", cut), ("other_documents", kept))}
        return {
            "max_tokens": self.encoder.max_tokens,
            "documents_cut": len(self.cut_ids),
            "tokens_dropped_frac": self.dropped / self.tokens if self.tokens else 0.0,
            **{name: {key: part[key] for key in SCORED} for name, part in figures.items()},
        }  # fmt: skip
