"""The app in a real browser: Playwright drives Debian's Chromium through every page of a running
``streamlit run``, checks that a changed sidebar setting lands in the URL and that the URL brings
the same view back in a fresh browser, and saves one screenshot per page: to the folder named by
``CHUNKING_LAB_SCREENSHOTS`` (``docs/screenshots`` refreshes the README's), else a temporary one."""

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = Path(os.environ.get("CHUNKING_LAB_SCREENSHOTS") or tempfile.mkdtemp(prefix="screens-"))
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WAIT_MS = 90_000
PAGES = {  # url path -> (title, screenshot name or None)
    "": ("Index overview", "index_overview"),
    "recall_tables": ("Recall tables", "recall_tables"),
    "sweep_charts": ("Sweep charts", "sweep_charts"),
    "compare": ("Compare", None),  # its screenshot shows a comparison worth reading, below
    "question_drilldown": ("Question drill-down", "question_drilldown"),
    "chunk_graph": ("Chunk graph", "chunk_graph"),
    "your_corpus": ("Your corpus", "your_corpus"),
}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason=f"no Chromium at {CHROMIUM}: install Debian's chromium package to run this test",
    ),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    """``streamlit run streamlit_app.py`` on a free port; yields its base URL."""
    port = free_port()
    command = [
        sys.executable, "-m", "streamlit", "run", "streamlit_app.py",
        "--server.headless", "true", "--server.port", str(port),
        "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_until_healthy(base, process, log)
            yield base
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_until_healthy(base: str, process: subprocess.Popen, log) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as response:
                if response.read() == b"ok":
                    return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            log.seek(0)
            pytest.fail(f"streamlit did not start:\n{log.read().decode(errors='replace')}")
        time.sleep(0.3)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    """A fresh browser context (no cookies, no session), one page in it."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    yield context.new_page()
    context.close()


def settle(page, title: str) -> None:
    """Wait until the page shows ``title`` and the script has finished running."""
    page.get_by_role("heading", name=title, level=1).wait_for(timeout=WAIT_MS)
    idle = page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]')
    for _ in range(2):  # a rerun may start right after the first one ends
        page.wait_for_timeout(400)
        idle.wait_for(timeout=WAIT_MS)
    assert page.locator('[data-testid="stException"]').count() == 0


def screenshot(page, name: str) -> None:
    """The whole page: the main area scrolls inside the viewport, so grow the viewport to fit it
    (charts render late, so measure until the height settles)."""
    height = 0
    for _ in range(5):
        page.wait_for_timeout(1000)
        now = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
        if now == height:
            break
        height = now
        page.set_viewport_size({"width": 1440, "height": min(max(height, 1000), 3000)})
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"{name}.png")
    page.set_viewport_size({"width": 1440, "height": 1000})


def load_the_example(page) -> None:
    """Fill in the bundled example, check and load it: the report appears, and the sidebar
    switches to "your corpus"."""
    page.get_by_role("button", name="Fill in the bundled example").click()
    settle(page, "Your corpus")
    page.get_by_role("button", name="Check and load").click()
    page.get_by_role("heading", name="Validation report").wait_for(timeout=WAIT_MS)
    settle(page, "Your corpus")
    expect(page.get_by_text("Every page now runs on")).to_be_visible()


def size_input(page):
    return page.locator('[data-testid="stSidebar"]').get_by_label(
        "Chunk size L (characters)", exact=True
    )


@pytest.mark.parametrize(
    "path", list(PAGES), ids=[name or path for path, (_, name) in PAGES.items()]
)
def test_page_loads_and_its_url_brings_a_changed_setting_back(server, browser, page, path):
    title, name = PAGES[path]
    page.goto(f"{server}/{path}")
    settle(page, title)
    if path == "your_corpus":
        load_the_example(page)
    if name:
        screenshot(page, name)

    size_input(page).fill("600")
    size_input(page).press("Enter")
    page.wait_for_function("() => location.search.includes('size=600')", timeout=WAIT_MS)
    settle(page, title)
    link = page.url
    assert re.search(rf"/{path}\?", link), link

    fresh = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
    try:
        fresh.goto(link)
        settle(fresh, title)
        expect(size_input(fresh)).to_have_value("600", timeout=WAIT_MS)
        settle(fresh, title)
        assert "size=600" in fresh.url
    finally:
        fresh.context.close()


def test_switching_references_off_shows_in_the_graph_and_in_the_link(server, browser, page):
    page.goto(f"{server}/chunk_graph?question=q07")
    settle(page, "Chunk graph")
    xref = page.locator('[data-testid="stMetric"]').filter(has_text="xref edges")
    assert int(xref.locator('[data-testid="stMetricValue"]').inner_text()) > 0

    page.get_by_text("Resolve cross-references").click()
    page.wait_for_function("() => location.search.includes('resolve_refs=false')", timeout=WAIT_MS)
    settle(page, "Chunk graph")
    expect(xref.locator('[data-testid="stMetricValue"]')).to_have_text("0", timeout=WAIT_MS)

    fresh = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
    try:
        fresh.goto(page.url)
        settle(fresh, "Chunk graph")
        again = fresh.locator('[data-testid="stMetric"]').filter(has_text="xref edges")
        expect(again.locator('[data-testid="stMetricValue"]')).to_have_text("0", timeout=WAIT_MS)
        expect(fresh.get_by_text(re.compile(r"^q07 · "))).to_be_visible()
    finally:
        fresh.context.close()


def test_clicking_a_chunk_in_the_graph_shows_its_text(server, page):
    page.goto(f"{server}/chunk_graph?question=q07")
    settle(page, "Chunk graph")
    shown = page.locator(".cx-head")
    expect(shown).not_to_contain_text("structure-0 ·")
    node = page.locator(
        '[role="graphics-symbol"][aria-roledescription="circle"][aria-label*="chunk: structure-0;"]'
    )
    node.click(force=True)
    expect(shown).to_contain_text("structure-0 ·", timeout=WAIT_MS)


def main_area(page):
    return page.locator('[data-testid="stMain"]')


def test_compare_page_keeps_bs_settings_in_its_link(server, browser, page):
    page.goto(f"{server}/compare?chunker=structure&chunker=qes-greedy")
    settle(page, "Compare")
    expect(page.get_by_text("B fixes 2 questions and breaks none.")).to_be_visible()
    expect(page.get_by_text("B changes: mode (flat → graph)")).to_be_visible()
    screenshot(page, "compare")

    b_budget = main_area(page).get_by_label("Context budget (words)", exact=True)
    b_budget.fill("200")
    b_budget.press("Enter")
    page.wait_for_function("() => location.search.includes('b_budget=200')", timeout=WAIT_MS)
    settle(page, "Compare")
    expect(page.get_by_text("A and B differ in 2 settings (mode, budget)")).to_be_visible()

    size_input(page).fill("600")  # A's size: B's untouched size follows it
    size_input(page).press("Enter")
    page.wait_for_function("() => location.search.includes('size=600')", timeout=WAIT_MS)
    settle(page, "Compare")
    b_size = main_area(page).get_by_label("Chunk size L (characters)", exact=True)
    expect(b_size).to_have_value("600", timeout=WAIT_MS)
    expect(b_budget).to_have_value("200")
    assert "b_size" not in page.url

    fresh = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
    try:
        fresh.goto(page.url)
        settle(fresh, "Compare")
        again = main_area(fresh).get_by_label("Context budget (words)", exact=True)
        expect(again).to_have_value("200", timeout=WAIT_MS)
        expect(fresh.get_by_text("A and B differ in 2 settings (mode, budget)")).to_be_visible()
    finally:
        fresh.context.close()


def test_sweep_charts_are_tall_and_fit_the_page_at_1440_by_900(server, browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{server}/sweep_charts")
        settle(page, "Sweep charts")
        chart = page.locator('[data-testid="stVegaLiteChart"]').first
        expect(chart).to_be_visible(timeout=WAIT_MS)
        box, main = chart.bounding_box(), main_area(page).bounding_box()
        assert box["height"] >= 450, box  # two rows of chunker panels, 210 px each
        assert box["x"] + box["width"] <= main["x"] + main["width"], (box, main)
    finally:
        context.close()
