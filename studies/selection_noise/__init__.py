"""How much checkpoint selection on a small validation split is decided by noise (README.md).

`COMMAND` declares `orderbench study selection-noise` (standard library only, so its
`--help` loads nothing); `studies.selection_noise.selection_noise.main` runs it.
"""

from benchmark.cli_arguments import Command, Key

COMMAND = Command(
    "study selection-noise",
    "how much checkpoint selection on a small validation split is decided by noise",
    (
        Key("runs", "the runs folder", "runs", metavar="DIR"),
        Key("variants", "only these variants", kind="list", shown="every variant",
            metavar="VARIANT,...",
            old="--variant"),
        Key("pairs", "two budgets of the same seeds set side by side", [], kind="list",
            metavar="SHORT:LONG,...", old="--pair"),
        Key("out", "also write the per-run table to this CSV file", metavar="FILE"),
    ),
    "studies.selection_noise.selection_noise:main",
)  # fmt: skip
