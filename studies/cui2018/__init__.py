"""The reproduction of Cui et al. 2018 (ATTOrderNet), Tables 3 and 5: Accidents, Earthquakes
and NIPS (README.md).

`COMMAND` declares `orderbench study cui2018` (`studies.cui2018.reproduction.main` runs
it), `NIPS_COMMAND` `orderbench study cui2018-nips` (`studies.cui2018.nips.main`); `COMMANDS` lists
both. Standard library only, so their `--help` loads nothing.
"""

from benchmark.cli_arguments import Command, Key

# the row every complete row of the NIPS page is paired against, named before any test figure:
# the paper's model, the one the later rows (the pretrained encoders) are measured against
NIPS_REFERENCE = "attordernet"

COMMAND = Command(
    "study cui2018",
    "results/reproduction.{md,csv}: the reproduction page of Cui et al. 2018 from finished runs",
    (
        Key("runs", "the runs folder", "runs", metavar="DIR"),
        Key("out", "where the page and its tables go", "results", metavar="DIR"),
        Key("variant", "the headline budget's variant", "repro", metavar="VARIANT"),
        Key("compare", "further budgets' variants, shown beside it", [], kind="list",
            metavar="VARIANT,...", old="--compare-variant"),
        Key("cv_variant", "the cross-validated runs' variant without _fold<k>", metavar="VARIANT",
            shown="the headline's: repro_e100 -> cv_e100"),
        Key("ablation_reference", "the variant the ablation runs were started from", "repro",
            metavar="VARIANT"),
    ),
    "studies.cui2018.reproduction:main",
)  # fmt: skip

NIPS_COMMAND = Command(
    "study cui2018-nips",
    "results/reproduction_nips.{md,csv}: the NIPS page (every row of the study's NIPS sweeps) "
    "from finished runs",
    (
        Key("runs", "the runs folder", "runs", metavar="DIR"),
        Key("out", "where the page and its table go", "results", metavar="DIR"),
        Key("variant", "the variant of the NIPS runs", "repro_e100", metavar="VARIANT"),
        Key("presentations", "decode each run of a row that reads the presented order under "
            "this many other presentations (figures kept beside the page are reused)", 0,
            kind="int", minimum=0, metavar="N"),
        Key("reference", "the preset of the row every complete row is paired against (named "
            "before any test figure)", NIPS_REFERENCE, metavar="PRESET"),
    ),
    "studies.cui2018.nips:main",
)  # fmt: skip

COMMANDS = (COMMAND, NIPS_COMMAND)
