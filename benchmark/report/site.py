"""Build the results site: `orderbench site [runs=runs] [out=DIR] [reference=...]
[text=shareable]` (`benchmark.cli_commands.SITE`).

A static site from the sealed records under the runs folder, each checked as the
leaderboard checks it (`benchmark.records.run_collection`): a record that cannot be trusted
(a figure or file changed after the run sealed it, a figure out of its range) is listed as
refused, with the line that says why, and is never shown as a result. Its pages:

- `index.html`: every corpus, the records refused, what made the site;
- `corpus/<dataset>.html`: the leaderboard, one table per protocol, sortable and filtered
  by protocol and budget, with the paired tests against each table's reference
  (`reference=`, as for `orderbench leaderboard`; `DATASET:PRESET[/VARIANT]` names the
  reference of one corpus), the cost and ablation charts (`benchmark.report.site_corpus`);
- `run/<run>.html`: one per run, with its digests, figures, curves, resolved config and
  the browser of its test documents (`benchmark.report.site_run`), whose data lies beside
  it in chunks (`run/<run>/`, `text/`: `benchmark.report.site_documents`, which also says
  which corpora's sentences a site shows: `text=`).

Every page names the commit and config ids its rows were made with and the digests of
their data. The site needs no server and no network: its scripts and styles are inside it
(`assets/`: the site's own and the charting library's), so it opens from `file://` as from
any static host. `out` (else `<runs>/reports/site/`) is replaced in one step
(`benchmark.records.atomic_io.replace_folder`); `text=all` is refused for a folder that git
would commit.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from benchmark.cli_arguments import UsageError, report_error
from benchmark.cli_commands import SITE
from benchmark.config.config_folders import SOURCE_ROOT
from benchmark.records.atomic_io import atomic_write_bytes, replace_folder
from benchmark.records.run_collection import LeftOut, Run
from benchmark.records.run_record import RECORD_NAME, git_commit
from benchmark.report.command_runs import Report, run_report
from benchmark.report.leaderboard import build_leaderboard
from benchmark.report.site_charts import bundle_name, vega_bundle
from benchmark.report.site_corpus import Corpus, corpus_body, refused_list
from benchmark.report.site_documents import ALL, CorpusText, Text, document_files
from benchmark.report.site_html import (
    ASSETS,
    Build,
    cell,
    corpus_page,
    digest,
    esc,
    page,
    run_key,
    run_page,
    table,
)
from benchmark.report.site_run import run_body

OWN = ("index.html", "corpus", "run", "text", ASSETS)  # what the site replaces in `out`
STATIC = Path(__file__).resolve().parent / "site_assets"  # site.css, site.js
PRIVATE = ("This site holds the sentences of corpora that may not be published "
           "(<code>text=all</code>): keep it to yourself.")


class References(dict):
    """The `reference=` entries `[DATASET:]PRESET[/VARIANT]`, by the corpus they name ("":
    every corpus); a UsageError for an entry without a preset or a corpus named twice."""

    def __init__(self, named: Sequence[str]) -> None:
        super().__init__()
        for entry in named:
            dataset, colon, row = entry.rpartition(":")
            if not row.split("/")[0]:
                raise UsageError(f"reference={entry}: no preset (write "
                                 "[DATASET:]PRESET[/VARIANT])")
            if (dataset if colon else "") in self:
                raise UsageError(f"reference: {dataset or 'every corpus'} is given two")
            self[dataset if colon else ""] = row

    def of(self, dataset: str) -> str | None:
        """The reference row of `dataset`: the entry naming it, else the one naming none."""
        return self.get(dataset, self.get(""))


def committable(out: Path) -> bool:
    """Whether git would commit files written into `out`: inside this repository's work
    tree and not ignored."""
    target = out.resolve()
    if not target.is_relative_to(SOURCE_ROOT):
        return False
    try:
        ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index",
                                  str(target / "index.html")], cwd=SOURCE_ROOT)  # fmt: skip
    except OSError:  # no git: no commit either
        return False
    return ignored.returncode == 1


def _refused_dataset(item: LeftOut) -> str | None:
    """The corpus a refused record names (read only to list it), if it can be read."""
    try:
        record = json.loads((item.path / RECORD_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    dataset = record.get("dataset") if isinstance(record, dict) else None
    return dataset if isinstance(dataset, str) else None


def corpora(runs: Sequence[Run], refused: Sequence[LeftOut], named: References,
            resamples: int, seed: int) -> list[Corpus]:
    """Each corpus with runs: its leaderboard, the leaderboard's warnings, its refusals."""
    found = []
    for dataset in sorted({run.dataset for run in runs}):
        on = [run for run in runs if run.dataset == dataset]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            board = build_leaderboard(on, resamples, seed, named.of(dataset))
        found.append(Corpus(dataset, on, board, [str(w.message) for w in caught],
                            [item for item in refused if _refused_dataset(item) == dataset]))
    return found


def _index(found: Sequence[Corpus], refused: Sequence[LeftOut], runs_root: str) -> str:
    lines = []
    for corpus in found:
        data = sorted({str(((run.record.get("identity") or {}).get("data") or {})
                           .get("documents_sha256") or "") for run in corpus.runs})  # fmt: skip
        protocols = corpus.board["protocol"].nunique(dropna=False)
        lines.append("<tr>" + cell(f'<a href="{esc(corpus_page(corpus.dataset))}">'
                                   f"{esc(corpus.dataset)}</a>", corpus.dataset)
                     + cell(str(len(corpus.runs)), len(corpus.runs))
                     + cell(str(len(corpus.board)), len(corpus.board))
                     + cell(str(protocols), protocols)
                     + cell(", ".join(digest(d) for d in data))
                     + cell(str(len(corpus.refused)), len(corpus.refused)) + "</tr>")
    corpora_table = table([("corpus", ""), ("runs", ""), ("rows", "leaderboard rows"),
                           ("protocols", "tables never ranked together"),
                           ("data", "documents sha256 of its runs"), ("refused", "")], lines)
    return "\n".join([
        "<p>Results of the sealed run records of OrderBench: a page per corpus (its "
        "leaderboard with intervals, paired tests, cost and ablation charts) and a page per "
        "run (its digests, curves, config and test documents).</p>",
        "<h2>Corpora</h2>", corpora_table or "<p>No finished run.</p>",
        "<h2>Refused records</h2>",
        "<p>Records left out of every page: each is named with the line that says why, "
        "never with its figures.</p>", refused_list(refused, runs_root),
    ])


def site_files(found: Sequence[Corpus], refused: Sequence[LeftOut], build: Build
               ) -> dict[str, str]:  # fmt: skip
    """Every page and data file of the site, by its path in the site (assets apart)."""
    banner = PRIVATE if build.text == ALL else ""
    files = {"index.html": page("OrderBench results", _index(found, refused, build.runs),
                                build, "", banner=banner)}
    text = CorpusText(build.text)
    for corpus in found:
        crumbs = [("results", "index.html")]
        files[corpus_page(corpus.dataset)] = page(
            f"{corpus.dataset}: leaderboard", corpus_body(corpus, "../", build.runs), build,
            "../", crumbs, banner)
        for run in corpus.runs:
            shown = text.text(run)
            try:
                predictions = run.predictions()
            except (OSError, ValueError) as error:
                predictions, shown = [], Text(f"no documents: {' '.join(str(error).split())}")
            files |= shown.files | document_files(run_key(run), predictions, shown)
            title = f"{run.dataset} / {run.preset} / {run.variant} / seed {run.seed}"
            files[run_page(run)] = page(title, run_body(run, shown), build, "../", [
                *crumbs, (corpus.dataset, corpus_page(corpus.dataset))], banner)
    return files


def write_site(out: Path, files: dict[str, str], build: Build) -> Path:
    """Write the site into `out`, replacing its own entries (`OWN`) in one step; the
    charting bundle of an earlier build is reused when its versions are the same."""
    bundle = vega_bundle(out / ASSETS if out.is_dir() else None)
    contents = {path: text.encode("utf-8") for path, text in files.items()}
    contents |= {f"{ASSETS}/{path.name}": path.read_bytes() for path in sorted(STATIC.iterdir())
                 if path.is_file()}  # fmt: skip
    contents[f"{ASSETS}/{build.vega}"] = bundle

    def fill(folder: Path) -> None:
        for path, data in contents.items():
            atomic_write_bytes(folder / path, lambda handle, data=data: handle.write(data))

    return replace_folder(out, fill, own=OWN.__contains__, what=SITE.prog)


def main(argv: Sequence[str] | None = None) -> int:
    return run_report(SITE, argv, _write_site, sub="site", check=_check)


def _check(args: dict, out: Path) -> None:
    """The text policy and the references, before any run is read."""
    if args["text"] == ALL and committable(out):
        raise UsageError(f"text=all: {out} lies where git would commit it, and the site would "
                         "hold the text of corpora that may not be published; write it to a "
                         "git-ignored folder (the default, RUNS/reports/site) or outside")
    try:
        References(args["reference"])
    except ValueError as error:
        raise UsageError(str(error)) from None


def _write_site(report: Report, args: dict) -> int:
    runs_dir, out, runs, refused = report.runs_dir, report.out, report.runs, report.left_out
    named = References(args["reference"])
    found = corpora(runs, refused, named, args["resamples"], args["seed"])
    for corpus in found:
        for note in corpus.notes:
            report.warn(note)
    build = Build(git_commit(), str(runs_dir), args["text"], bundle_name())
    try:
        target = write_site(out, site_files(found, refused, build), build)
    except ValueError as error:
        return report_error(report.prog, error)
    size = sum(path.stat().st_size for path in target.rglob("*") if path.is_file())
    print(f"{len(found)} corpus pages, {len(runs)} run pages, {len(refused)} records refused "
          f"-> {target / 'index.html'} ({size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
