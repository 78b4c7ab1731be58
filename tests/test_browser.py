"""The app in a real browser: Playwright drives Debian's Chromium at 1440x900 (and a 1280x720
projector, where no page may scroll sideways) through every page
of a running ``streamlit run``, checks that a changed sidebar setting lands in the URL and that
the URL brings the same view back in a fresh browser, reopens a pasted licence from a refresh
and from its link, and saves one screenshot per page: to the folder named by
``CHUNKING_LAB_SCREENSHOTS`` (``docs/screenshots`` refreshes the README's), else a temporary one.

Every wait is on the app's state (a page's last element drawn by a finished run, nothing stale,
charts rendered, the URL changed), never a fixed pause: a loaded machine only makes it slower."""

import json
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
from app_support import CHROMIUM, CHROMIUM_ARGS, ROOT

SHOTS = Path(os.environ.get("CHUNKING_LAB_SCREENSHOTS") or tempfile.mkdtemp(prefix="screens-"))
LICENSE = Path("/usr/share/common-licenses/GPL-3")
VIEWPORT = {"width": 1440, "height": 900}
WAIT_MS = 180_000
PAGES = {  # url path -> (title, the page's last element, screenshot name)
    "": ("Index overview", ".cl-map", "index_overview"),
    "recall_tables": ("Recall tables", '[data-testid="stDownloadButton"]', "recall_tables"),
    "sweep_charts": ("Sweep charts", '[data-testid="stDownloadButton"]', "sweep_charts"),
    "compare": ("Compare", '[data-testid="stDownloadButton"]', None),  # screenshot: see below
    "question_drilldown": ("Question drill-down", ".cx-chunk", "question_drilldown"),
    "chunk_graph": ("Chunk graph", ".cx-head", "chunk_graph"),
    "your_corpus": ("Your corpus", '[data-testid="stExpander"]', "your_corpus"),
}
SETTLED = """(done) => {
    const app = document.querySelector('[data-testid="stApp"]');
    return app !== null
        && app.getAttribute('data-test-script-state') === 'notRunning'
        && document.querySelector('[data-stale="true"]') === null
        && document.querySelector(done) !== null;
}"""
DRAWN = """() => {
    const main = document.querySelector('[data-testid="stMain"]');
    const charts = [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')];
    const drawn = charts.every(c => c.querySelector('canvas, svg') !== null);
    const parts = document.querySelectorAll(
        '[data-testid="stDataFrame"] canvas, [data-testid="stVegaLiteChart"] canvas, '
        + '[data-testid="stVegaLiteChart"] svg');
    const widths = [...parts].map(e => Math.round(e.getBoundingClientRect().width));
    const layout = [main.scrollHeight, ...widths].join();
    window.__steady = window.__layout === layout ? (window.__steady || 0) + 1 : 0;
    window.__layout = layout;
    return drawn && window.__steady >= 3;
}"""
LINKS_OUT = """() => [...document.querySelectorAll('a[href]')]
    .map(a => a.href).filter(h => !h.startsWith(location.origin))"""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason=f"no Chromium at {CHROMIUM}: install Debian's chromium package to run this test",
    ),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect
expect.set_options(timeout=WAIT_MS)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    """``streamlit run streamlit_app.py`` on a free port; yields its base URL. Its corpus store
    and models directory are the test session's temporary ones (see ``conftest.py``)."""
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
    deadline = time.monotonic() + 120
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
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    """A fresh browser context (no cookies, no session), one page in it."""
    context = browser.new_context(viewport=VIEWPORT)
    yield context.new_page()
    context.close()


def settle(page, path: str) -> None:
    """Wait until the page at ``path`` (a key of PAGES) shows its title and its last element,
    drawn by a finished run: the script not running, nothing on the page stale."""
    title, done, _ = PAGES[path]
    page.get_by_role("heading", name=title, level=1).wait_for(timeout=WAIT_MS)
    page.wait_for_function(SETTLED, arg=done, timeout=WAIT_MS)
    assert page.locator('[data-testid="stException"]').count() == 0


def screenshot(page, name: str) -> None:
    """The whole page: the main area scrolls inside the viewport, so grow the viewport to fit
    it, once its charts are drawn and its layout (height, chart and table widths) has held for
    three looks in a row."""
    page.wait_for_function(DRAWN, timeout=WAIT_MS, polling=200)
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": VIEWPORT["width"], "height": min(max(height, 900), 3200)})
    page.wait_for_function(DRAWN, timeout=WAIT_MS, polling=200)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"{name}.png")
    page.set_viewport_size(VIEWPORT)


def load_the_example(page) -> None:
    """Fill in the bundled example, check and load it: the report appears, and the sidebar
    switches to "your corpus"."""
    page.get_by_role("button", name="Fill in the bundled example").click()
    expect(page.locator("textarea").first).to_have_value(re.compile("^# "))
    settle(page, "your_corpus")
    page.get_by_role("button", name="Check and load").click()
    expect(page.get_by_text("Every page now runs on")).to_be_visible()
    settle(page, "your_corpus")


def size_input(page):
    return page.locator('[data-testid="stSidebar"]').get_by_label(
        "Chunk size L (characters)", exact=True
    )


def share_link(page) -> str:
    """The sidebar's share link, read from its popover (opened, then closed again)."""
    page.locator('[data-testid="stSidebar"]').get_by_role("button", name="Share link").click()
    code = page.locator('[data-testid="stPopoverBody"] [data-testid="stCode"]')
    expect(code).to_be_visible()
    link = code.inner_text()
    page.keyboard.press("Escape")
    expect(code).to_be_hidden()
    return link


@pytest.mark.parametrize(
    "path", list(PAGES), ids=[name or path for path, (_, _, name) in PAGES.items()]
)
def test_page_loads_and_its_url_brings_a_changed_setting_back(server, browser, page, path):
    page.goto(f"{server}/{path}")
    settle(page, path)
    if path == "your_corpus":
        load_the_example(page)
    if PAGES[path][2]:
        screenshot(page, PAGES[path][2])

    size_input(page).fill("600")
    size_input(page).press("Enter")
    page.wait_for_function("() => location.search.includes('size=600')", timeout=WAIT_MS)
    link = page.url
    assert re.search(rf"/{path}\?", link), link

    fresh = browser.new_context(viewport=VIEWPORT).new_page()
    try:
        fresh.goto(link)
        settle(fresh, path)
        expect(size_input(fresh)).to_have_value("600")
        assert "size=600" in fresh.url
    finally:
        fresh.context.close()


def test_switching_references_off_shows_in_the_graph_and_in_the_link(server, browser, page):
    page.goto(f"{server}/chunk_graph?question=q07")
    settle(page, "chunk_graph")
    xref = page.locator('[data-testid="stMetric"]').filter(has_text="xref edges")
    assert int(xref.locator('[data-testid="stMetricValue"]').inner_text()) > 0

    page.get_by_text("off", exact=True).click()  # the sidebar's Cross-references: off
    page.wait_for_function("() => location.search.includes('refs=off')", timeout=WAIT_MS)
    settle(page, "chunk_graph")
    expect(xref.locator('[data-testid="stMetricValue"]')).to_have_text("0")

    fresh = browser.new_context(viewport=VIEWPORT).new_page()
    try:
        fresh.goto(page.url)
        settle(fresh, "chunk_graph")
        again = fresh.locator('[data-testid="stMetric"]').filter(has_text="xref edges")
        expect(again.locator('[data-testid="stMetricValue"]')).to_have_text("0")
        expect(fresh.get_by_text(re.compile(r"^q07 · "))).to_be_visible()
    finally:
        fresh.context.close()


def test_clicking_a_chunk_in_the_graph_shows_its_text(server, page):
    page.goto(f"{server}/chunk_graph?question=q07")
    settle(page, "chunk_graph")
    shown = page.locator(".cx-head")
    expect(shown).not_to_contain_text("structure-0 ·")
    node = page.locator(
        '[role="graphics-symbol"][aria-roledescription="circle"][aria-label*="chunk: structure-0;"]'
    )
    node.click(force=True)
    expect(shown).to_contain_text("structure-0 ·")


def test_an_unknown_address_shares_a_link_to_the_page_shown(server, page):
    page.goto(f"{server}/no_such_page?size=600")
    settle(page, "")
    expect(page.get_by_role("dialog")).to_contain_text("Page not found")
    page.keyboard.press("Escape")  # closed as a user closes it
    expect(page.get_by_role("dialog")).to_have_count(0)
    link = share_link(page)
    assert link.startswith(f"{server}/?") and "size=600" in link
    assert "no_such_page" not in link


GPL_QUESTIONS = [
    {
        "id": "g1",
        "question": "Who holds the copyright on the licence text (see https://fsf.org)?",
        "evidence": ["Copyright (C) 2007 Free Software Foundation, Inc. <https://fsf.org/>"],
    },
    {
        "id": "g2",
        "question": "May I run the unmodified program without accepting anything?",
        "split": "train",
        "evidence": [
            "This License explicitly affirms your unlimited permission to run the unmodified "
            "Program."
        ],
    },
    {
        "id": "g3",
        "question": "Is www.gnu.org/licenses where I find a copy, or do I mail licensing@fsf.org?",
        "evidence": ["If not, see <https://www.gnu.org/licenses/>."],
    },
]


@pytest.mark.skipif(not LICENSE.exists(), reason=f"no {LICENSE} on this machine")
def test_a_pasted_licence_survives_a_refresh_and_its_link_opens_it_elsewhere(server, browser, page):
    page.goto(f"{server}/your_corpus")
    settle(page, "your_corpus")
    page.locator("input[aria-label='Name']").fill("GPL-3")
    page.locator("textarea").nth(0).fill(LICENSE.read_text(encoding="utf-8"))
    page.locator("textarea").nth(1).fill(json.dumps({"questions": GPL_QUESTIONS}, indent=1))
    page.get_by_role("button", name="Check and load").click()
    expect(page.get_by_text("Every page now runs on")).to_be_visible()
    page.wait_for_function("() => location.search.includes('corpus_id=')", timeout=WAIT_MS)
    settle(page, "your_corpus")

    page.reload()  # a refresh is a new session: the corpus comes back from the server's store
    settle(page, "your_corpus")
    expect(page.get_by_text("Every page now runs on")).to_be_visible()
    expect(page.locator("textarea").nth(0)).to_have_value(re.compile("GNU GENERAL PUBLIC LICENSE"))

    page.locator('[data-testid="stSidebarNav"]').get_by_text("Question drill-down").click()
    page.wait_for_function("() => location.pathname.endsWith('/question_drilldown')")
    settle(page, "question_drilldown")
    expect(page.get_by_role("heading", name=re.compile("^Who holds the copyright"))).to_be_visible()
    assert page.evaluate(LINKS_OUT) == []  # addresses in the licence and questions stay text

    fresh = browser.new_context(viewport=VIEWPORT).new_page()
    try:
        fresh.goto(share_link(page))  # a colleague's browser
        settle(fresh, "question_drilldown")
        heading = fresh.get_by_role("heading", name=re.compile("^Who holds the copyright"))
        expect(heading).to_be_visible()
        expect(fresh.get_by_text("Evidence the context must hold")).to_be_visible()
        assert fresh.evaluate(LINKS_OUT) == []
    finally:
        fresh.context.close()


def test_the_support_collection_opens_from_a_link_with_the_policy(server, browser, page):
    page.goto(f"{server}/recall_tables?corpus=technova&chunker=structure&chunker=by-type")
    settle(page, "recall_tables")
    expect(page.get_by_role("heading", name="By document type")).to_be_visible()
    expect(page.get_by_role("heading", name="By question")).to_be_visible()
    size_input(page).fill("600")
    size_input(page).press("Enter")
    page.wait_for_function("() => location.search.includes('size=600')", timeout=WAIT_MS)
    settle(page, "recall_tables")
    assert "corpus=technova" in page.url and "chunker=by-type" in page.url

    fresh = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
    try:
        fresh.goto(page.url.replace("recall_tables", ""))
        settle(fresh, "")
        expect(fresh.get_by_role("heading", name="Documents")).to_be_visible()
        expect(fresh.get_by_text("Corpus: TechNova support")).to_be_visible()
    finally:
        fresh.context.close()


def main_area(page):
    return page.locator('[data-testid="stMain"]')


def test_compare_page_keeps_bs_settings_in_its_link(server, browser, page):
    page.goto(f"{server}/compare?chunker=structure&chunker=qes-greedy")
    settle(page, "compare")
    expect(page.get_by_text(re.compile("^B fixes 1 question and breaks none: "))).to_be_visible()
    expect(page.get_by_text("B changes: mode (flat → graph)")).to_be_visible()
    screenshot(page, "compare")

    b_budget = main_area(page).get_by_label("Context budget (words)", exact=True)
    b_budget.fill("200")
    b_budget.press("Enter")
    page.wait_for_function("() => location.search.includes('b_budget=200')", timeout=WAIT_MS)
    expect(page.get_by_text("A and B differ in 2 settings (mode, budget)")).to_be_visible()

    size_input(page).fill("600")  # A's size: B's untouched size follows it
    size_input(page).press("Enter")
    page.wait_for_function("() => location.search.includes('size=600')", timeout=WAIT_MS)
    b_size = main_area(page).get_by_label("Chunk size L (characters)", exact=True)
    expect(b_size).to_have_value("600")
    expect(b_budget).to_have_value("200")
    assert "b_size" not in page.url

    fresh = browser.new_context(viewport=VIEWPORT).new_page()
    try:
        fresh.goto(page.url)
        settle(fresh, "compare")
        again = main_area(fresh).get_by_label("Context budget (words)", exact=True)
        expect(again).to_have_value("200")
        expect(fresh.get_by_text("A and B differ in 2 settings (mode, budget)")).to_be_visible()
    finally:
        fresh.context.close()


def test_compare_page_keeps_bs_reference_placement_in_its_link(server, page):
    page.goto(f"{server}/compare?chunker=structure&a_mode=graph&b_mode=graph")
    expect(page.get_by_text("B is the same as A")).to_be_visible()  # the page stops there
    page.wait_for_function(SETTLED, arg='[data-testid="stMain"]', timeout=WAIT_MS)
    b_refs = main_area(page).get_by_role("combobox", name="Cross-references")  # not A's radio
    b_refs.click()
    page.get_by_role("option", name="off", exact=True).click()
    page.wait_for_function("() => location.search.includes('b_refs=off')", timeout=WAIT_MS)
    settle(page, "compare")
    expect(page.get_by_text("B changes: refs (delivered → off)")).to_be_visible()
    expect(page.get_by_text(re.compile("^B fixes 0 questions and breaks 3: "))).to_be_visible()


SIZES = {"1440x900": {"width": 1440, "height": 900}, "1280x720": {"width": 1280, "height": 720}}
SIDEWAYS = """() => {
    const doc = document.scrollingElement;
    const main = document.querySelector('[data-testid="stMain"]');
    const block = document.querySelector('[data-testid="stMainBlockContainer"]');
    const right = block.getBoundingClientRect().right + 1;
    const parts = '[data-testid="stVegaLiteChart"], [data-testid="stDataFrame"]';
    const wide = [...block.querySelectorAll(parts)]
        .filter(e => e.getBoundingClientRect().right > right)
        .map(e => e.getAttribute('data-testid'));
    return {document: doc.scrollWidth - doc.clientWidth, main: main.scrollWidth - main.clientWidth,
            block: block.scrollWidth - block.clientWidth, wide: wide};
}"""
TOURED = [  # (url path and query, the PAGES key it shows)
    ("", ""),
    ("recall_tables", "recall_tables"),
    ("sweep_charts", "sweep_charts"),
    ("compare", "compare"),
    ("question_drilldown", "question_drilldown"),
    ("chunk_graph", "chunk_graph"),
    ("your_corpus", "your_corpus"),
    ("?corpus=technova", ""),
    ("recall_tables?corpus=technova", "recall_tables"),
    ("sweep_charts?corpus=technova&split=all", "sweep_charts"),
    ("compare?corpus=technova", "compare"),
    ("question_drilldown?corpus=technova&question=t05", "question_drilldown"),
]


@pytest.mark.parametrize("size", list(SIZES))
def test_no_page_scrolls_sideways_and_no_request_leaves_the_machine(server, browser, size):
    """Issue 21, items 3, 4 and 12: at 1440x900 and on a 1280x720 projector, no page, on the
    handbook or the support collection, scrolls sideways (the document, the main area, its
    block), no chart or table reaches past the page's right edge, and the browser asks nothing
    of any host but the app's own (the favicon came from Google's font server)."""
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    try:
        for path, shown in TOURED:
            page.goto(f"{server}/{path}")
            settle(page, shown)
            page.wait_for_function(DRAWN, timeout=WAIT_MS, polling=200)
            overflow = page.evaluate(SIDEWAYS)
            assert overflow == {"document": 0, "main": 0, "block": 0, "wide": []}, (path, overflow)
    finally:
        context.close()
    outside = [url for url in requests if not url.startswith(server)]
    assert outside == [], outside[:5]


NAVIGATION = """() => [...document.querySelectorAll('[data-testid="stSidebarNav"]')].map(nav => ({
    sections: [...nav.querySelectorAll('[data-testid="stNavSectionHeader"]')]
        .map(e => e.innerText.trim()),
    pages: [...nav.querySelectorAll('[data-testid="stSidebarNavLink"]')]
        .map(a => [a.innerText.trim().split('\\n').pop(), new URL(a.href).pathname]),
}))"""


@pytest.mark.parametrize("size", list(SIZES))
def test_the_sidebar_lists_the_apps_own_pages_once(server, browser, size):
    """Issue 23: the sidebar shows the navigation ``streamlit_app.py`` gives, its sections and
    titles, and no list of a pages folder beside it; a deep link with settings opens its page
    with them, and a click on another page keeps them in the URL."""
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    try:
        page.goto(f"{server}/recall_tables?size=600&chunker=fixed")
        settle(page, "recall_tables")
        assert page.evaluate(NAVIGATION) == [
            {
                "sections": ["Results", "Explain", "Data"],
                "pages": [
                    ["Index overview", "/"],
                    ["Recall tables", "/recall_tables"],
                    ["Sweep charts", "/sweep_charts"],
                    ["Compare", "/compare"],
                    ["Question drill-down", "/question_drilldown"],
                    ["Chunk graph", "/chunk_graph"],
                    ["Your corpus", "/your_corpus"],
                    ["Questions", "/questions"],
                ],
            }
        ]
        expect(page.get_by_text("L = 600 characters", exact=False).first).to_be_visible()
        page.locator('[data-testid="stSidebarNav"]').get_by_text("Sweep charts").click()
        settle(page, "sweep_charts")
        query = page.url.split("?", 1)[1].split("&")
        assert page.url.startswith(f"{server}/sweep_charts?")
        assert "size=600" in query and "chunker=fixed" in query
    finally:
        context.close()


DEEP_LINK = "size=600&budget=80&chunker=fixed&chunker=structure&mode=graph&headers=true&refs=off"
ROUNDS = 3


def test_a_click_on_another_page_right_after_a_deep_link_keeps_its_settings(server, browser):
    """A click on another page as soon as a deep link's run was over lost the settings of the
    sidebar widgets the browser had not mounted yet: the URL kept some of them or only
    ``question``, and such a widget could show its default (size 450). The run is over that
    soon once its results are cached: the first round computes them, the next ones race the
    browser's mounting."""
    for _ in range(ROUNDS):
        context = browser.new_context(viewport=SIZES["1280x720"])
        page = context.new_page()
        try:
            page.goto(f"{server}/?{DEEP_LINK}")
            settle(page, "")  # the run is over: click at once
            page.locator('[data-testid="stSidebarNav"]').get_by_text("Recall tables").click()
            settle(page, "recall_tables")
            caption = "L = 600 characters · budget = 80 words · references off"
            expect(page.get_by_text(caption, exact=False)).to_be_visible()
            assert_sidebar_carries_the_deep_link(page, server, "recall_tables")
        finally:
            context.close()


def assert_sidebar_carries_the_deep_link(page, server: str, path: str) -> None:
    query = page.url.split("?", 1)[1].split("&")
    assert page.url.startswith(f"{server}/{path}?")
    assert set(DEEP_LINK.split("&")) <= set(query), query
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert size_input(page).input_value() == "600"
    budget = sidebar.locator('input[type="range"][aria-label="Context budget (words)"]')
    assert budget.input_value() == "80"
    chunkers = sidebar.locator('[data-testid="stMultiSelect"]').filter(has_text="Chunkers")
    assert chunkers.inner_text().split("\n")[1:] == ["", "fixed", "structure"]
    modes = sidebar.get_by_role("toolbar", name="Retrieval")
    pressed = [b.get_attribute("aria-pressed") for b in modes.get_by_role("button").all()]
    assert pressed == ["false", "true"]  # flat, graph
    assert sidebar.get_by_role("switch", name="Heading-path prefixes").is_checked()
    assert sidebar.get_by_role("radio", name="off", exact=True).is_checked()


@pytest.mark.parametrize("size", list(SIZES))
def test_sweep_panels_are_tall_and_wrap_at_the_width_there_is(server, browser, size):
    """Issue 21, item 3: one panel per chunker, each tall enough to read, in rows that wrap
    within the page: three side by side at both sizes, all of one size."""
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    try:
        page.goto(f"{server}/sweep_charts")
        settle(page, "sweep_charts")
        page.wait_for_function(DRAWN, timeout=WAIT_MS, polling=200)
        block = page.locator('[data-testid="stMainBlockContainer"]').bounding_box()
        charts = page.locator('[data-testid="stVegaLiteChart"]')
        boxes = [charts.nth(k).bounding_box() for k in range(5)]  # the budget panels
        assert all(b["height"] >= 220 for b in boxes), boxes
        assert all(b["x"] + b["width"] <= block["x"] + block["width"] + 1 for b in boxes), boxes
        assert len({round(b["y"]) for b in boxes[:3]}) == 1  # three in the first row
        # every panel the same size, whatever its data: the plots line up (a wide line at
        # 100% once padded its panel 5 px taller, its plot 5 px lower than its neighbours')
        assert len({round(b["height"]) for b in boxes}) == 1, boxes
    finally:
        context.close()


def test_the_question_box_follows_a_new_corpus_and_split(server, page):
    """Issue 21, item 2: after switching the corpus, the split or loading a corpus, the
    sidebar's Question box kept showing a question of the corpus before (q04 beside t01)."""
    page.goto(f"{server}/question_drilldown")
    settle(page, "question_drilldown")
    sidebar = page.locator('[data-testid="stSidebar"]')
    box = (
        sidebar.locator('[data-testid="stSelectbox"]').filter(has_text="Question").locator("input")
    )
    expect(box).to_have_value(re.compile("^q04 · "))
    sidebar.locator('[data-testid="stSelectbox"]').filter(has_text="Corpus").click()
    page.get_by_role("option", name="technova").click()
    page.wait_for_function("() => location.search.includes('question=t01')", timeout=WAIT_MS)
    settle(page, "question_drilldown")
    expect(box).to_have_value(re.compile("^t01 · "))
    sidebar.get_by_text("train", exact=True).click()
    page.wait_for_function("() => location.search.includes('split=train')", timeout=WAIT_MS)
    settle(page, "question_drilldown")
    expect(box).to_have_value(re.compile("^t02 · "))
    expect(
        page.get_by_role("heading", name="How do I pair the WH-1000 with my phone?")
    ).to_be_visible()
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Your corpus").click()
    settle(page, "your_corpus")
    load_the_example(page)
    expect(box).to_have_value(re.compile("^q"))
