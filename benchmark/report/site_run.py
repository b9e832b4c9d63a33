"""The page of one run on the results site (`benchmark.report.site`): what identifies it
(config id, commit, data and presentation digests, budget), its seal (the digests of its
files and of each part of its record), its figures with their intervals beside the random
baseline's, its curves, its resolved config as YAML, and the browser of its test
documents: gold and predicted order side by side, worst tau first, filtered by length and
by error, a page of documents at a time (its data: `benchmark.report.site_documents`).
"""

from __future__ import annotations

from collections.abc import Mapping

import yaml

from benchmark.metrics.registry import METRICS
from benchmark.records.run_collection import Run
from benchmark.records.seal import SEAL_KEY, is_sealed
from benchmark.records.training_log import LOG_NAME, epoch_curves
from benchmark.report.document_rows import HEAD, TAIL, WRONG
from benchmark.report.plot_style import metric_label
from benchmark.report.site_charts import curves_chart
from benchmark.report.site_corpus import budget_label
from benchmark.report.site_documents import Text
from benchmark.report.site_html import (
    MISSING,
    cell,
    chart,
    digest,
    esc,
    number,
    run_key,
    short_commit,
    table,
)

CPU_SERIES = "CPU seconds (record)"  # the curve of `resources.cpu_seconds_per_epoch`
PAGE_SIZE = 10  # documents shown at a time


def _facts(run: Run) -> str:
    record = run.record
    identity = record.get("identity") or {}
    data, protocol = identity.get("data") or {}, identity.get("protocol") or {}
    presentation = protocol.get("presentation_sha256") or {}
    environment = record.get("environment") or {}
    rows = [
        ("dataset", esc(run.dataset)), ("preset", esc(run.preset)),
        ("variant", esc(run.variant)), ("seed", str(run.seed)),
        ("config id", f"<code>{esc(run.config_id or MISSING)}</code>"),
        ("commit", f"<code title=\"{esc(record.get('git_commit', ''))}\">"
                   f"{esc(short_commit(record.get('git_commit')))}</code>"),
        ("finished", esc(record.get("finished_at", MISSING))),
        ("data", f"{esc(data.get('name', MISSING))}, documents sha256 "
                 f"{digest(data.get('documents_sha256'))}"),
        ("test presentation", f"sha256 {digest(presentation.get('test'))}, protocol seed "
                              f"{esc(protocol.get('protocol_seed', MISSING))}, noise "
                              f"{esc(protocol.get('noise', MISSING))}"),
        ("budget", esc(budget_label(record))),
        ("trained", f"{esc(record.get('epochs', MISSING))} epochs, selected epoch "
                    f"{esc(record.get('best_epoch', MISSING))}, stopped by "
                    f"{esc(record.get('stopped_by', MISSING))}, "
                    f"{number(record.get('train_seconds'), 0)} s"),
        ("machine", esc(", ".join(f"{key} {environment[key]}" for key in
                                  ("device_name", "threads", "torch") if key in environment)
                        or MISSING)),
    ]  # fmt: skip
    return "<dl class=\"facts\">" + "".join(f"<dt>{label}</dt><dd>{value}</dd>"
                                            for label, value in rows) + "</dl>"


def _seal(run: Run) -> str:
    """The seal: the digests of the run's files and of each part of its record."""
    if not is_sealed(run.record):
        return ("<p>Unsealed: a record written before runs were sealed. Its figures were "
                "range-checked; its files cannot be verified.</p>")
    seal = run.record[SEAL_KEY]
    files = seal.get("files") or {}
    parts = seal.get("record") or {}
    rows = [f"<tr><td>file <code>{esc(name)}</code></td><td><code>{esc(value)}</code></td></tr>"
            for name, value in files.items()]
    rows += [f"<tr><td>part <code>{esc(name)}</code></td><td><code>{esc(value)}</code></td></tr>"
             for name, value in parts.items()]
    return ("<p>Sealed: every part of the record, and its <code>predictions.jsonl</code>, was "
            "checked against these digests before this page was made (a sealed file the "
            "archive left behind, such as a checkpoint, cannot mislead and is not read).</p>"
            f"<details><summary>{len(files)} files, {len(parts)} parts</summary>"
            + table([("what", ""), ("sha256", "")], rows, cls="digests") + "</details>")


def _figures(run: Run) -> str:
    record = run.record
    split = record.get("split") or {}
    test, valid = split.get("test") or {}, split.get("valid") or {}
    intervals = (record.get("ci") or {}).get("test") or {}
    random = record.get("random_baseline") or {}
    lines = []
    for metric in [m.key for m in METRICS if m.key in test]:
        interval = intervals.get(metric) or {}
        shown = MISSING if "ci_low" not in interval else \
            f"[{number(interval['ci_low'])}, {number(interval['ci_high'])}]"
        lines.append("<tr>" + cell(f"<span title=\"{esc(metric_label(metric))}\">"
                                   f"{esc(metric)}</span>", metric)
                     + cell(number(test.get(metric)), test.get(metric)) + cell(shown)
                     + cell(number(valid.get(metric)), valid.get(metric))
                     + cell(number((random.get("figures") or {}).get(metric))) + "</tr>")
    return table([("figure", ""), ("test", ""), ("95% CI", "bootstrap over test documents"),
                  ("valid", "the split that selected the checkpoint"),
                  ("random order", "the random baseline on the same test presentation")],
                 lines)


def run_curves(run: Run) -> dict[str, Mapping[int, float]]:
    """The run's figures per epoch: the CPU seconds of its record, then the curves of its
    CSV log where its folder keeps one (an archived run keeps none)."""
    per_epoch = (run.record.get("resources") or {}).get("cpu_seconds_per_epoch") or []
    curves: dict[str, Mapping[int, float]] = {}
    if any(seconds is not None for seconds in per_epoch):
        curves[CPU_SERIES] = {epoch: seconds for epoch, seconds in enumerate(per_epoch, start=1)
                              if seconds is not None}
    epochs = run.record.get("epochs")
    logged = epoch_curves(run.path / LOG_NAME, trained=epochs if isinstance(epochs, int) else None)
    return curves | logged


def _curves(run: Run) -> str:
    try:
        curves = run_curves(run)
    except ValueError as error:  # a CSV log with a figure that is not a number
        return f"<p>No curves: {esc(error)}</p>"
    spec = curves_chart(curves, run.record.get("best_epoch"))
    if spec is None:
        return "<p>No curves: the record counts no epoch, and no CSV log is kept.</p>"
    logged = "" if set(curves) == {CPU_SERIES} else \
        f"; the others from the run's <code>{LOG_NAME}</code>, which the seal does not cover"
    return chart("curves", spec, "Per epoch, the selected epoch dashed: CPU seconds from the "
                 f"record{logged}")


def _browser(run: Run, text: Text) -> str:
    key = run_key(run)
    return f"""<p>{esc(text.note)}.</p>
<div class="documents" data-key="{esc(key)}" data-page-size="{PAGE_SIZE}">
<div class="filters">
<label>sentences from <input type="number" min="1" data-doc="min" size="4"></label>
<label>to <input type="number" min="1" data-doc="max" size="4"></label>
<label>errors <select data-doc="error">
<option value="">every document</option>
<option value="{WRONG}">misordered (τ &lt; 1)</option>
<option value="{HEAD}">first sentence wrong</option>
<option value="{TAIL}">last sentence wrong</option>
<option value="0">perfect only</option>
</select></label>
<label>order <select data-doc="order"><option value="worst">worst τ first</option>
<option value="best">best τ first</option></select></label>
<button type="button" data-doc="prev">◀</button> <span data-doc="status">loading…</span>
<button type="button" data-doc="next">▶</button>
</div>
<div data-doc="list"></div>
</div>"""


def run_body(run: Run, text: Text) -> str:
    """The body of a run's page."""
    config = yaml.safe_dump(run.record.get("config") or {}, sort_keys=False,
                            allow_unicode=True, width=100)
    return "\n".join([
        _facts(run), "<h2>Figures</h2>", _figures(run), "<h2>Curves</h2>", _curves(run),
        "<h2>Test documents</h2>", _browser(run, text), "<h2>Seal</h2>", _seal(run),
        "<h2>Resolved config</h2>", f'<pre class="config">{esc(config)}</pre>',
    ])
