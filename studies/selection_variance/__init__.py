"""How much checkpoint selection on a small validation split is decided by sampling
variance (README.md).

`COMMAND` declares `orderbench study selection-variance` (standard library only, so its
`--help` loads nothing); `studies.selection_variance.selection_variance.main` runs it.
"""

from benchmark.cli_arguments import Command, Key

COMMAND = Command(
    "study selection-variance",
    "how much checkpoint selection on a small validation split is decided by sampling "
    "variance",
    (
        Key("runs", "the runs folder", "runs", metavar="DIR"),
        Key("variants", "only these variants", kind="list", shown="every variant",
            metavar="VARIANT,...",
            old="--variant"),
        Key("pairs", "two budgets of the same seeds set side by side", [], kind="list",
            metavar="SHORT:LONG,...", old="--pair"),
        Key("out", "also write the per-run table to this CSV file", metavar="FILE"),
    ),
    "studies.selection_variance.selection_variance:main",
)  # fmt: skip
