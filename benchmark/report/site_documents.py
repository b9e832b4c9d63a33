"""What a run page's document browser reads (`benchmark.report.site`): the run's test
predictions, worst tau first, in chunks of `CHUNK` documents (`run/<run>/docs-NNN.js`)
beside a small index of every document's length, tau and errors (`run/<run>/index.js`),
so that no page holds a large test set whole; and the sentences of its corpus, read at
build time where the text policy allows it and the corpus is at hand, in chunks that every
run on the same data shares (`text/<dataset>-<digest>/text-NNN.js`).

The text policies (`text=`):

- `shareable` (the default): the sentences of corpora whose reader declares them
  publishable (`data.readers.text_shareable`: Brown, which the suite fetches itself, and
  synthetic data); never those of a published corpus whose files must not be committed
  (NIPS, Accidents, Earthquakes, SIND, ROC ...): their documents show positions and ids;
- `all`: the sentences of every corpus at hand, for a site kept to yourself
  (`benchmark.report.site` refuses it in a folder that git would commit);
- `none`: positions and ids only.

The corpus is read with the reader of the run's resolved config, and the digest of what it
reads must be the record's (`identity.data.documents_sha256`, docs/design.md, section 8):
other text is never set beside a run's predictions. Each data file is a script that hands
its data to the page (`OrderBench.chunk(key, data)`, assets/site.js): a page opened from
`file://` may run scripts beside it but not read JSON files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from hydra.errors import HydraException
from hydra.utils import get_class, instantiate

from benchmark.cli_commands import SITE_TEXT
from benchmark.records.run_collection import Run
from benchmark.report.document_rows import document_row, worst_first
from benchmark.report.site_html import SHORT_DIGEST, slug
from data.processing import documents_sha256
from data.readers import materialise, split_documents, text_shareable

CHUNK = 200  # documents per chunk of a run's predictions
TEXT_CHUNK = 100  # documents per chunk of a corpus's sentences
TEXT_POLICIES = SITE_TEXT  # the command's choices, declared with it
SHAREABLE, ALL, NONE = TEXT_POLICIES
TEST = "test"


def script(key: str, data: object) -> str:
    """A data file: a script that hands `data` to the page under `key`."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return f"OrderBench.chunk({json.dumps(key)},{text});\n"


@dataclass(frozen=True)
class Text:
    """The sentences of one corpus's test documents, or why a run shows none."""

    note: str  # what the run page says about its sentences
    key: str = ""  # its folder under text/ ("" without sentences)
    chunk_of: dict[str, int] = field(default_factory=dict)  # document id -> its chunk
    files: dict[str, str] = field(default_factory=dict)  # path in the site -> script


def document_files(key: str, predictions: Sequence[Mapping], text: Text) -> dict[str, str]:
    """The data files of a run's document browser under `key` (`run/<run>`): the index
    and the chunks of its documents, worst tau first."""
    rows = worst_first([document_row(p) for p in predictions])
    index = {"n": [len(r["gold"]) for r in rows],
             "tau": [None if r["tau"] is None else round(r["tau"], 4) for r in rows],
             "flags": [r["flags"] for r in rows], "chunk": CHUNK,
             "text": text.key}  # fmt: skip
    files = {f"{key}/index.js": script(f"{key}/index", index)}
    for start in range(0, len(rows), CHUNK):
        chunk = [{k: v for k, v in r.items() if k not in ("tau", "flags")}
                 | ({"t": text.chunk_of[r["id"]]} if r["id"] in text.chunk_of else {})
                 for r in rows[start:start + CHUNK]]  # fmt: skip
        name = f"{key}/docs-{start // CHUNK:03d}"
        files[f"{name}.js"] = script(name, chunk)
    return files


class CorpusText:
    """The sentences of the runs' corpora under a text policy, each corpus read once."""

    def __init__(self, policy: str) -> None:
        self.policy = policy
        self._read: dict[str, Text] = {}

    def text(self, run: Run) -> Text:
        """The test documents' sentences of the corpus `run` was made on, or why none."""
        if self.policy == NONE:
            return Text("positions and ids only (`text=none`)")
        reader = (run.record.get("config") or {}).get("dataset", {}).get("reader")
        recorded = ((run.record.get("identity") or {}).get("data") or {}).get("documents_sha256")
        if not isinstance(reader, dict) or "_target_" not in reader:
            return Text("positions and ids only: the record's config names no reader")
        if not recorded:
            return Text("positions and ids only: the record holds no digest of its data, so "
                        "no text read now can be matched to it")
        try:
            shareable = text_shareable(get_class(reader["_target_"]))
        except (HydraException, ImportError, ValueError) as error:
            return Text(f"positions and ids only: its reader cannot be loaded ({error})")
        if self.policy == SHAREABLE and not shareable:
            return Text(f"positions and ids only: the text of {run.dataset} may not be "
                        f"published (its reader, {reader['_target_']}, does not declare it "
                        "shareable; `text=all` shows it in a site kept to yourself)")
        known = json.dumps(reader, sort_keys=True) + recorded
        if known not in self._read:
            self._read[known] = self._corpus(run.dataset, reader, recorded)
        return self._read[known]

    @staticmethod
    def _corpus(dataset: str, reader: dict, recorded: str) -> Text:
        try:
            splits = materialise(split_documents(instantiate(reader)))
        except (HydraException, OSError, ValueError) as error:
            reason = " ".join(str(error).split())[:200]
            return Text(f"positions and ids only: the corpus is not at hand ({reason})")
        found = documents_sha256(splits)
        if found != recorded:
            return Text(f"positions and ids only: the corpus read now (documents sha256 "
                        f"{found[:SHORT_DIGEST]}) is not the run's data "
                        f"({recorded[:SHORT_DIGEST]})")
        documents = sorted(splits.get(TEST, []), key=lambda document: document.id)
        key = f"text/{slug(dataset)}-{recorded[:SHORT_DIGEST]}"
        chunk_of, files = {}, {}
        for start in range(0, len(documents), TEXT_CHUNK):
            part = documents[start:start + TEXT_CHUNK]
            name = f"{key}/text-{start // TEXT_CHUNK:03d}"
            files[f"{name}.js"] = script(name, {d.id: list(d.sentences) for d in part})
            chunk_of |= {d.id: start // TEXT_CHUNK for d in part}
        return Text(f"sentences of {dataset}'s test split as its reader reads them now, the "
                    "run's data (the same documents sha256)", key, chunk_of, files)
