"""The NIPS page's section on the presentation of the shuffled sentences.

The figures are those of `benchmark.report.presentation_spread` (each run of a row that
reads the presented order decoded again under other fixed shuffles of the test abstracts;
an order-free row cannot move), kept in `PRESENTATION_CSV` beside the page, so a later page
reuses them and decodes only what is missing.
"""

from __future__ import annotations

from benchmark.report.presentation_spread import row_lines

PRESENTATION_CSV = "reproduction_nips_presentation.csv"


def presentation_lines(groups: dict, figures) -> list[str]:
    """The page's section: each row's spread over the other presentations
    (`presentation_spread.row_lines`) under its heading."""
    return [
        "", "## Presentation", "",
        "Every run is tested on the same fixed permutations of the test abstracts (protocol "
        "seed 0), so the rows are paired. A row whose encoder reads the sentences in the "
        "presented order is decoded again under other fixed shuffles (protocol seeds 1 to "
        "N: `orderbench evaluate RUN task=order protocol_seed=N`); an order-free row "
        "(registry `order_free`) cannot move. The rows whose runs are in the runs folder "
        "the page is made from are listed (not those marked †).", "",
        *row_lines(groups, figures),
    ]  # fmt: skip
