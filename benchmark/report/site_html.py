"""The pieces every page of the results site is made of (`benchmark.report.site`): the
page frame (its title, the way back to the index, the facts of the build in its footer),
escaped text, figures as the site shows them, and data a page hands to its script.

Every page is plain HTML that reads without a script; `assets/site.js` adds the sorting,
the filters, the charts and the document browser. A page names its assets relative to
itself (`root`: "" for the index, "../" one folder down), so the site opens from `file://`
as from any static host.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from benchmark.records.run_collection import Run

ASSETS = "assets"  # the folder of the site's scripts and styles
SHORT_COMMIT = 12  # hex digits of a commit shown
SHORT_DIGEST = 12  # hex digits of a sha256 shown (the whole one in its title)
MISSING = "–"


def slug(text: str) -> str:
    """`text` as a file name of the site: letters, digits, `.`, `_` and `-` kept."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


def corpus_page(dataset: str) -> str:
    """Where a corpus's page lies in the site."""
    return f"corpus/{slug(dataset)}.html"


def run_key(run: Run) -> str:
    """Where a run's page and its data lie in the site (without `.html`): its dataset,
    preset, variant, config id and seed, which tell every run of a runs folder apart."""
    variant = str(run.record.get("variant") or run.variant)
    parts = (run.dataset, run.preset, variant, run.config_id or "unnamed", f"seed_{run.seed}")
    return "run/" + slug("--".join(parts))


def run_page(run: Run) -> str:
    return f"{run_key(run)}.html"


@dataclass(frozen=True)
class Build:
    """What every page says about how the site was made."""

    commit: str  # the commit of the code that built it (`git_commit`)
    runs: str  # the runs folder, as given
    text: str  # the text policy (`benchmark.report.site_documents.TEXT_POLICIES`)
    vega: str  # the file name of the charting bundle under ASSETS


def esc(value: object) -> str:
    """`value` as HTML text."""
    return html.escape(str(value), quote=True)


def is_missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def number(value: object, digits: int = 3) -> str:
    """A figure as the site shows it: `digits` decimals, MISSING when undefined."""
    if is_missing(value):
        return MISSING
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # a count
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def short_commit(commit: object) -> str:
    """A `git_commit` in SHORT_COMMIT hex digits, keeping its `+dirty` mark."""
    head, plus, mark = str(commit or "unknown").partition("+")
    return head[:SHORT_COMMIT] + plus + mark


def digest(value: object) -> str:
    """A sha256 shown short, the whole one in its title."""
    if is_missing(value) or not value:
        return MISSING
    return f'<code title="{esc(value)}">{esc(str(value)[:SHORT_DIGEST])}</code>'


def sort_value(value: object) -> str:
    """The `data-v` of a table cell: what a click on its column header sorts by."""
    if is_missing(value):
        return ""
    return str(value)


def cell(text: str, value: object = None, title: str = "", cls: str = "") -> str:
    """One `<td>`: `text` is HTML already; `value` what the column sorts by (else the text)."""
    attrs = f' data-v="{esc(sort_value(value))}"' if value is not None else ""
    attrs += f' title="{esc(title)}"' if title else ""
    attrs += f' class="{cls}"' if cls else ""
    return f"<td{attrs}>{text}</td>"


def table(headers: Sequence[tuple[str, str]], rows: Iterable[str], cls: str = "sortable",
          attrs: str = "") -> str:
    """A table of `rows` (`<tr>` HTML each) under `headers` ((label, its title) each); a
    `sortable` table is sorted by a click on any header (assets/site.js)."""
    heads = "".join(f'<th title="{esc(title)}">{esc(label)}</th>' if title else
                    f"<th>{esc(label)}</th>" for label, title in headers)  # fmt: skip
    return (f'<table class="{cls}"{attrs}><thead><tr>{heads}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def script_data(element_id: str, data: object) -> str:
    """`data` handed to the page's script as JSON in a `<script type=application/json>`
    (its `</` escaped, so no text in it can close the element)."""
    return (f'<script type="application/json" id="{esc(element_id)}">'
            f"{json_text(data)}</script>")


def json_text(data: object) -> str:
    """`data` as compact JSON that is safe inside a `<script>` element (`</` escaped)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("</", "<\\/")


def chart(element_id: str, spec: dict, caption: str) -> str:
    """An interactive chart (a Vega-Lite `spec`, drawn by assets/site.js) and its caption."""
    return (f'<figure class="chart"><div class="vega" data-spec="{esc(element_id)}"></div>'
            f"{script_data(element_id, spec)}<figcaption>{caption}</figcaption></figure>")


def page(title: str, body: str, build: Build, root: str, crumbs: Sequence[tuple[str, str]] = (),
         banner: str = "") -> str:
    """A whole page: `body` (HTML) in the site's frame; `root` leads from the page to the
    site's top folder; `crumbs` ((label, link) each) the way back to the index."""
    trail = " / ".join(f'<a href="{esc(root + link)}">{esc(label)}</a>' for label, link in crumbs)
    notice = f'<p class="banner">{banner}</p>' if banner else ""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)} · OrderBench results</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{root}{ASSETS}/site.css">
<script src="{root}{ASSETS}/{esc(build.vega)}" defer></script>
<script src="{root}{ASSETS}/site.js" defer></script>
</head>
<body data-root="{esc(root)}">
<nav>{trail}</nav>
{notice}<main>
<h1>{esc(title)}</h1>
{body}
</main>
<footer>Built by <code>orderbench site</code> at commit
<code>{esc(short_commit(build.commit))}</code> from the sealed records under
<code>{esc(build.runs)}</code>; sentences: <code>text={esc(build.text)}</code>. Every
figure comes from a run record checked against its seal (docs/design.md, sections 3 and 8).</footer>
</body>
</html>
"""
