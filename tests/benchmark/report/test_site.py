"""The results site (`orderbench site`) built from fabricated runs (`tests/fixtures_site.py`),
read as files; tests/benchmark/report/test_site_browser.py opens it in a browser."""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import pytest
from fixtures_runs import write_run
from fixtures_site import (
    DATASET,
    TAMPERED_TAU,
    config_id,
    on_corpus,
    sentence,
    write_corpus,
    write_site_runs,
)
from repo_root import ROOT

from benchmark.report.site import References, committable, main
from benchmark.report.site_documents import CHUNK
from data.readers import text_shareable

RESAMPLES = "resamples=200"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("site")
    runs = write_site_runs(root)
    out = root / "site"
    assert main([f"runs={runs}", f"out={out}", f"reference={DATASET}:attordernet", "text=all",
                 RESAMPLES]) == 0
    return out


def texts(folder: Path) -> str:
    """Every page and data file of a site, as text (HTML entities read)."""
    return html.unescape("\n".join(path.read_text() for path in sorted(folder.rglob("*"))
                     if path.is_file() and path.suffix in (".html", ".js")
                     and not path.name.startswith("vega-")))  # fmt: skip


def test_every_page_is_made(site: Path):
    assert (site / "index.html").is_file() and (site / "corpus" / f"{DATASET}.html").is_file()
    assert len(list((site / "run").glob("*.html"))) == 16  # every run but the tampered one
    assets = sorted(path.name for path in (site / "assets").iterdir())
    assert "site.js" in assets and "site.css" in assets
    assert any(name.startswith("vega-") for name in assets)  # the charts' script, shipped
    for page in site.rglob("*.html"):  # nothing fetched from elsewhere
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", page.read_text()), page


def test_rows_of_two_protocols_are_ranked_apart(site: Path):
    page = (site / "corpus" / f"{DATASET}.html").read_text()
    sections = page.split('<section class="protocol"')[1:]
    assert [re.search(r'data-protocol="([^"]+)"', s).group(1) for s in sections] == \
        ["protocol_seed=0", "protocol_seed=1"]
    for section in sections:  # each table ranks from 1
        assert '<td data-v="1">1</td>' in section
    first, second = sections
    assert "ps1" not in first and "ps1" in second
    assert re.search(r"lstm_ptrnet/base</td><td[^>]*>attordernet/base", first)  # the reference
    assert re.search(r"attordernet/long</td><td[^>]*>attordernet/base", first)  # an ablation
    assert "No row is compared" in second  # the named reference has no run there


def test_a_tampered_record_appears_only_as_refused(site: Path):
    everything = texts(site)
    assert str(TAMPERED_TAU) not in everything and f"{TAMPERED_TAU:.3f}" not in everything
    for page in (site / "index.html", site / "corpus" / f"{DATASET}.html"):
        refused = re.findall(r'<li class="refused">(.*?)</li>', page.read_text(), re.S)
        assert len(refused) == 1
        assert "han/tampered/seed_0" in refused[0] and "changed after the run" in refused[0]
    assert not list((site / "run").glob("*tampered*"))


def test_pages_carry_commits_config_ids_and_data_digests(site: Path):
    page = (site / "corpus" / f"{DATASET}.html").read_text()
    digest = json.loads((site.parent / "runs" / DATASET / "han" / "ps1" / "seed_0" /
                         "metrics.json").read_text())["identity"]["data"]["documents_sha256"]
    assert config_id("long", 0, 5) in page and "000000000000" in page and digest[:12] in page
    run_page = next((site / "run").glob("toy--attordernet--long--*--seed_1.html")).read_text()
    assert config_id("long", 0, 5) in run_page and digest in run_page  # whole, in its title
    assert "max_epochs=5" in run_page  # its budget


def test_the_document_browser_data_is_worst_first_with_the_sentences(site: Path):
    key = next((site / "run").glob("toy--cnn_ptrnet--base--*--seed_0")).name
    index = json.loads(re.search(r",(\{.*\})\);", (site / "run" / key / "index.js").read_text())
                       .group(1))  # fmt: skip
    taus = index["tau"]
    assert taus == sorted(taus) and len(taus) == 60 and index["chunk"] == CHUNK
    (text_folder,) = (site / "text").iterdir()
    assert index["text"] == f"text/{text_folder.name}"
    first = json.loads(re.search(r",(\[.*\])\);", (site / "run" / key / "docs-000.js")
                                 .read_text()).group(1))[0]  # fmt: skip
    shown = json.loads(re.search(r",(\{.*\})\);", (text_folder / "text-000.js").read_text())
                       .group(1))  # fmt: skip
    assert shown[first["id"]] == [sentence(first["id"], k) for k in range(len(first["gold"]))]


def test_a_large_test_set_is_paged(tmp_path: Path):
    runs = tmp_path / "runs"
    write_run(runs, "han", 0, 0.7, n_docs=1000)
    assert main([f"runs={runs}", f"out={tmp_path / 'site'}", "text=none", RESAMPLES]) == 0
    (page,) = (tmp_path / "site" / "run").glob("*.html")
    chunks = sorted((tmp_path / "site" / "run" / page.stem).glob("docs-*.js"))
    assert len(chunks) == 5 and all(chunk.stat().st_size < 60_000 for chunk in chunks)
    assert page.stat().st_size < 40_000 and "doc-999" not in page.read_text()
    # measured, not asserted: the sizes of what a browser reads first
    print(f"run page {page.stat().st_size} bytes, {len(chunks)} chunks of "
          f"{max(chunk.stat().st_size for chunk in chunks)} bytes at most")


def one_run_on_corpus(tmp_path: Path) -> Path:
    runs, corpus = tmp_path / "runs", tmp_path / "corpus"
    on_corpus(write_run(runs, "han", 0, 0.7, dataset=DATASET), corpus, write_corpus(corpus, 60))
    return runs


def test_sentences_are_shown_only_where_the_policy_allows(tmp_path: Path):
    runs = one_run_on_corpus(tmp_path)
    assert main([f"runs={runs}", f"out={tmp_path / 'shared'}", RESAMPLES]) == 0  # shareable
    assert not (tmp_path / "shared" / "text").exists()
    assert "may not be published" in texts(tmp_path / "shared")
    assert sentence("doc-000", 0) not in texts(tmp_path / "shared")
    assert main([f"runs={runs}", f"out={tmp_path / 'mine'}", "text=all", RESAMPLES]) == 0
    assert sentence("doc-000", 0) in texts(tmp_path / "mine")
    assert "keep it to yourself" in (tmp_path / "mine" / "index.html").read_text()
    with open(tmp_path / "corpus" / "test.jsonl", "a") as handle:  # the corpus changed since
        handle.write(json.dumps({"id": "late", "sentences": ["A.", "B."]}) + "\n")
    assert main([f"runs={runs}", f"out={tmp_path / 'changed'}", "text=all", RESAMPLES]) == 0
    assert "is not the run's data" in texts(tmp_path / "changed")
    assert not (tmp_path / "changed" / "text").exists()


def test_text_all_is_refused_where_git_would_commit(tmp_path: Path, capsys):
    runs = one_run_on_corpus(tmp_path)
    out = ROOT / "results" / "site-never-written"
    assert committable(out) and committable(ROOT / "results" / "site")
    assert not committable(ROOT / "runs" / "reports" / "site") and not committable(tmp_path)
    assert main([f"runs={runs}", f"out={out}", "text=all"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "text=all" in err and not out.exists()


def test_references_name_a_row_per_corpus():
    named = References(["nips:attordernet/repro_e100", "attordernet_att"])
    assert named.of("nips") == "attordernet/repro_e100" and named.of("brown") == "attordernet_att"
    assert References([]).of("nips") is None
    for bad in (["nips:"], ["a", "b"], ["nips:a", "nips:b"]):
        with pytest.raises(ValueError):
            References(bad)


def test_bad_input_is_one_line(tmp_path: Path, capsys):
    assert main([f"runs={tmp_path / 'missing'}"]) == 2
    assert "no such runs directory" in capsys.readouterr().err
    assert main([f"runs={tmp_path}", f"out={tmp_path / 'out'}"]) == 2
    assert "no finished run" in capsys.readouterr().err
    assert main([f"runs={tmp_path}", "reference=nips:"]) == 2
    assert "reference=nips:" in capsys.readouterr().err


# -- the committed site (results/site, `make site`, results/README.md) -----------------------
COMMITTED = ROOT / "results" / "site"


def committed_readers() -> dict[str, str]:
    """Dataset -> the reader of its committed records (their resolved configs)."""
    readers = {}
    for path in (ROOT / "results").rglob("metrics.json"):
        record = json.loads(path.read_text())
        readers[record["dataset"]] = record["config"]["dataset"]["reader"]["_target_"]
    return readers


def test_the_committed_site_shows_the_committed_records():
    index = (COMMITTED / "index.html").read_text()
    for dataset in committed_readers():
        assert f'href="corpus/{dataset}.html"' in index
    records = list((ROOT / "results").rglob("metrics.json"))
    assert len(list((COMMITTED / "run").glob("*.html"))) == len(records)


def test_the_committed_site_holds_no_text_of_an_unpublishable_corpus():
    """Only the sentences of corpora whose reader declares them publishable (Brown); the
    NIPS abstracts, whose files must not be committed, show positions and ids only."""
    from hydra.utils import get_class

    readers = committed_readers()
    shareable = {d for d, target in readers.items() if text_shareable(get_class(target))}
    assert "nips" not in shareable and "brown" in shareable
    for folder in (COMMITTED / "text").iterdir():
        assert folder.name.rsplit("-", 1)[0] in shareable, folder
    nips = Path(os.environ.get("ORDERBENCH_DATASETS", "/nonexistent")) / "nips_nseg" / "test.lower"
    if not nips.is_file():
        pytest.skip("the NIPS abstracts are not here (ORDERBENCH_DATASETS): the text check "
                    "above holds alone")
    everything = texts(COMMITTED)
    sentences = [s.strip() for line in nips.read_text().splitlines()[:40]
                 for s in line.split("<eos>") if len(s.strip()) > 40]
    assert sentences and not [s for s in sentences if s in everything]
