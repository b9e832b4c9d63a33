"""The results site (`orderbench site`) opened in a real headless browser: Debian's
`chromium` driven by Selenium through its `chromedriver` (`make browser` installs both;
without them these tests skip, saying so). The site is built from the runs of
`tests/fixtures_site.py`, its sentences read from their JSONL corpus (`text=all`).

Each page kind is loaded from `file://` with no console error, and its screenshot is kept
in the test's folder (`screenshots`) and checked not to be blank.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from fixtures_site import DATASET, sentence, write_site_runs

from benchmark.records.predictions_jsonl import read_predictions
from benchmark.report.document_rows import document_row, worst_first
from benchmark.report.site import main

SEVERE = "SEVERE"  # the level of a console error, a failed load or a script exception
WAIT_S = 20
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--window-size=1400,1000")


def _missing_browser() -> str | None:
    missing = [name for name in ("chromium", "chromedriver") if shutil.which(name) is None]
    if missing:
        return (f"no {' and '.join(missing)} on PATH: `make browser` installs Debian's "
                "chromium and chromium-driver (as root, with apt-get)")
    return None


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("browsed")
    runs = write_site_runs(root)
    assert main([f"runs={runs}", f"out={root / 'site'}", f"reference={DATASET}:attordernet",
                 "text=all", "resamples=200"]) == 0
    return root / "site"


@pytest.fixture(scope="module")
def browser():
    if reason := _missing_browser():
        pytest.skip(reason)
    webdriver = pytest.importorskip("selenium.webdriver",
                                    reason="selenium is not installed (the dev extra)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="orderbench-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.binary_location = shutil.which("chromium")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    driver.implicitly_wait(0)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


def wait_for(driver, css: str, count: int = 1):
    """The elements `css` selects once there are `count` of them (within WAIT_S)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, WAIT_S).until(
        lambda d: len(d.find_elements("css selector", css)) >= count)
    return driver.find_elements("css selector", css)


def open_page(driver, path: Path, ready: str) -> list[dict]:
    """Load `path`, wait for `ready` (a CSS selector), and return its console's errors."""
    driver.get(path.as_uri())
    wait_for(driver, ready)
    return [entry for entry in driver.get_log("browser") if entry["level"] == SEVERE]


def run_page(site: Path, pattern: str) -> Path:
    (page,) = (site / "run").glob(pattern)
    return page


def test_every_page_kind_loads_without_console_errors(site: Path, browser):
    pages = [(site / "index.html", "table"),
             (site / "corpus" / f"{DATASET}.html", "div.vega svg"),  # the charts drawn
             (run_page(site, "toy--cnn_ptrnet--base--*--seed_0.html"), "article.doc")]
    for path, ready in pages:
        assert open_page(browser, path, ready) == [], path


def rows_of(driver, section: int = 0) -> list:
    table = driver.find_elements("css selector", "section.protocol table[data-board]")[section]
    return table.find_elements("css selector", "tbody tr")


def column(driver, name: str) -> int:
    headers = driver.find_elements("css selector",
                                   "section.protocol table[data-board] thead th")
    return [header.text.rstrip(" ↕▲▼") for header in headers].index(name)


def test_clicking_a_column_header_sorts_the_rows(site: Path, browser):
    open_page(browser, site / "corpus" / f"{DATASET}.html", "table[data-board]")
    tau = column(browser, "tau")
    header = rows_of(browser)[0].find_element("xpath", "../..").find_elements(
        "css selector", "thead th")[tau]

    def taus() -> list[float]:
        return [float(row.find_elements("css selector", "td")[tau].get_attribute("data-v"))
                for row in rows_of(browser)]

    assert taus() == sorted(taus(), reverse=True)  # as built: by rank
    header.click()
    assert taus() == sorted(taus()) and taus()[0] < taus()[-1]
    assert header.get_attribute("aria-sort") == "ascending"
    header.click()
    assert taus() == sorted(taus(), reverse=True)
    preset = column(browser, "preset")
    presets = rows_of(browser)[0].find_element("xpath", "../..").find_elements(
        "css selector", "thead th")[preset]
    presets.click()  # a text column sorts too
    names = [row.find_elements("css selector", "td")[preset].text for row in rows_of(browser)]
    assert names == sorted(names)


def test_the_protocol_filter_hides_the_rows_of_other_protocols(site: Path, browser):
    from selenium.webdriver.support.ui import Select

    open_page(browser, site / "corpus" / f"{DATASET}.html", "table[data-board]")
    first, second = rows_of(browser, 0), rows_of(browser, 1)
    assert all(row.is_displayed() for row in first + second)
    Select(browser.find_element("id", "protocol-filter")).select_by_value("protocol_seed=1")
    assert not any(row.is_displayed() for row in first)
    assert all(row.is_displayed() for row in second)
    Select(browser.find_element("id", "protocol-filter")).select_by_value("")
    assert all(row.is_displayed() for row in first + second)
    budgets = Select(browser.find_element("id", "budget-filter"))
    (five,) = [o.get_attribute("value") for o in budgets.options if "max_epochs=5" in o.text]
    budgets.select_by_value(five)
    shown = [row for row in first if row.is_displayed()]
    assert shown and all("long" in row.text for row in shown)  # protocol 0's 5-epoch row


def test_the_document_browser_shows_a_document_in_gold_and_predicted_order(site: Path,
                                                                           browser):
    page = run_page(site, "toy--cnn_ptrnet--base--*--seed_0.html")
    open_page(browser, page, "article.doc")
    worst = worst_first([document_row(p.to_json()) for p in read_predictions(
        site.parent / "runs" / DATASET / "cnn_ptrnet" / "base" / "seed_0" / "predictions.jsonl")])
    card = browser.find_elements("css selector", "article.doc")[0]
    assert card.get_attribute("data-id") == worst[0]["id"]
    doc = worst[0]

    def side(kind: str) -> list[str]:
        return [item.text for item in card.find_elements(
            "css selector", f".side.{kind} li span.text")]

    assert side("gold") == [sentence(doc["id"], k) for k in doc["gold"]]
    assert side("pred") == [sentence(doc["id"], k) for k in doc["pred"]]
    assert side("gold") != side("pred")  # the worst document is misordered
    # filtered by length: only documents of at least 10 sentences
    browser.find_element("css selector", "[data-doc=min]").send_keys("10")
    wait_for(browser, "article.doc")
    sizes = [len(c.find_elements("css selector", ".side.gold li"))
             for c in browser.find_elements("css selector", "article.doc")]
    assert sizes and min(sizes) >= 10


def non_blank(png: Path) -> bool:
    """Whether a screenshot shows something: many colours, a share of it not white."""
    from PIL import Image

    image = Image.open(png).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20) or []
    inked = sum(count for count, colour in colours if sum(colour) < 3 * 240)
    return len(colours) > 30 and inked > 0.01 * image.width * image.height


def test_a_screenshot_of_each_page_kind_is_not_blank(site: Path, browser, screenshots: Path):
    pages = {"index": (site / "index.html", "table"),
             "corpus": (site / "corpus" / f"{DATASET}.html", "div.vega svg"),
             "run": (run_page(site, "toy--attordernet--base--*--seed_0.html"), "article.doc")}
    for name, (path, ready) in pages.items():
        open_page(browser, path, ready)
        browser.execute_script("arguments[0].scrollIntoView()", wait_for(browser, ready)[0])
        shot = screenshots / f"{name}.png"
        assert browser.save_screenshot(str(shot)) and non_blank(shot), shot
    print(f"screenshots: {screenshots}")
