"""The Questions page in a real browser (Playwright driving Debian's Chromium, as
tests/test_browser.py does): a pasted blog post and an uploaded one, no questions; five
questions written by finding evidence and clicking it, one across the two documents; saved as a
new corpus; the pages run on it and the share link reopens it in a fresh browser. Screenshots at
1440x900 and 1280x720 go to ``CHUNKING_LAB_SCREENSHOTS`` (else a temporary folder)."""

import re
import subprocess
import sys
import tempfile

import pytest
from app_support import CHROMIUM, CHROMIUM_ARGS, ROOT
from test_app_questions import PASTED, POSTS, UPLOADED
from test_browser import SETTLED, SHOTS, WAIT_MS, free_port, wait_until_healthy

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"no Chromium at {CHROMIUM}"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = sync_api.expect
VIEWPORTS = ({"width": 1440, "height": 900}, {"width": 1280, "height": 720})
QUESTIONS = [  # (question, [(search, the start of the unit to click)])
    (
        "What does Faithfulness measure in Ragas?",
        [("Faithfulness measures", "Measures if the response")],
    ),
    (
        "Which LLM frameworks does Ragas work with?",
        [('"popular LLM frameworks"', "Ragas works with popular")],
    ),
    (
        "Why is evaluating an LLM application needed?",
        [("hallucinate facts", "They can hallucinate facts")],
    ),
    (
        "What is Metric-Driven Development?",
        [('"simple but effective"', "is a simple but effective")],
    ),
    (
        "How do the two posts describe the Answer Relevancy metric?",
        [
            ("Answer Relevancy", "Assesses if the response addresses"),
            ("Answer Relevancy", "Evaluates whether the response correctly"),
        ],
    ),
]


@pytest.fixture(scope="module")
def server():
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
            process.wait(timeout=15)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def settled(page, done: str = '[data-testid="stMain"]') -> None:
    page.wait_for_function(SETTLED, arg=done, timeout=WAIT_MS)
    assert page.locator('[data-testid="stException"]').count() == 0


def main(page):
    return page.locator('[data-testid="stMain"]')


WATCH = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    window.__rerun = false;
    new MutationObserver(() => {
        if (app.getAttribute('data-test-script-state') === 'running') window.__rerun = true;
    }).observe(app, {attributes: true});
}"""


def rerun(page, action) -> None:
    """Do ``action`` and wait for the run it starts to finish (not for the page as it was)."""
    page.evaluate(WATCH)
    action()
    page.wait_for_function("() => window.__rerun", timeout=WAIT_MS)
    settled(page)


def type_into(page, label: str, text: str) -> None:
    box = main(page).get_by_role("textbox", name=label, exact=True)
    if box.input_value() == text:  # no change, no run
        return
    box.fill(text)
    rerun(page, lambda: box.press("Enter"))


def screenshots(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for viewport in VIEWPORTS:
        page.set_viewport_size(viewport)
        settled(page)
        page.screenshot(path=SHOTS / f"{name}_{viewport['width']}.png")
    page.set_viewport_size(VIEWPORTS[0])


def test_five_questions_written_in_the_browser_are_saved_and_their_link_reopens_them(
    server, browser
):
    context = browser.new_context(viewport=VIEWPORTS[0])
    page = context.new_page()
    page.goto(f"{server}/your_corpus")
    page.get_by_role("heading", name="Your corpus", level=1).wait_for(timeout=WAIT_MS)
    settled(page, '[data-testid="stExpander"]')
    page.locator("input[aria-label='Name']").fill(PASTED)
    document = main(page).get_by_role("textbox", name="Markdown, plain text or HTML", exact=True)
    document.fill((POSTS / f"{PASTED}.md").read_text(encoding="utf-8"))
    document.blur()
    settled(page)
    page.locator('[data-testid="stFileUploader"]').filter(
        has_text="Upload several documents"
    ).locator("input[type=file]").set_input_files(str(POSTS / UPLOADED))
    expect(main(page).get_by_role("button", name="Clear the uploaded files")).to_be_visible(
        timeout=WAIT_MS
    )
    settled(page)
    page.get_by_role("button", name="Check and load").click()
    expect(page.get_by_text("Every page now runs on")).to_be_visible(timeout=WAIT_MS)
    settled(page)

    page.locator('[data-testid="stSidebarNav"]').get_by_text("Questions", exact=True).click()
    page.get_by_role("heading", name="Questions", level=1).wait_for(timeout=WAIT_MS)
    settled(page, '[data-testid="stCheckbox"]')
    expect(main(page).get_by_text("No questions yet.")).to_be_visible()
    screenshots(page, "questions_empty")

    for n, (question, marks) in enumerate(QUESTIONS, start=1):
        type_into(page, "Question", question)
        for query, start in marks:
            type_into(page, "Find evidence", query)
            unit = main(page).locator('[data-testid="stCheckbox"]').filter(has_text=start)
            rerun(page, unit.first.locator("label").click)
            expect(unit.first.locator("input")).to_be_checked()
        if n == len(QUESTIONS):
            expect(main(page).get_by_text("How every chunker does on it")).to_be_visible()
            screenshots(page, "questions_marking")
        rerun(page, main(page).get_by_role("button", name="Add question").click)
        expect(main(page).get_by_text(f"Added q{n:02d}.")).to_be_visible(timeout=WAIT_MS)
        settled(page)
    expect(main(page).get_by_role("heading", name="5 questions")).to_be_visible()

    main(page).get_by_role("button", name="Save as a new corpus").click()
    expect(main(page).get_by_text(re.compile("^Saved as a new corpus"))).to_be_visible(
        timeout=WAIT_MS
    )
    page.wait_for_function("() => location.search.includes('corpus_id=')", timeout=WAIT_MS)
    settled(page, '[data-testid="stDataFrame"]')
    screenshots(page, "questions_saved")
    link = page.url

    page.locator('[data-testid="stSidebarNav"]').get_by_text("Recall tables").click()
    page.get_by_role("heading", name="Recall tables", level=1).wait_for(timeout=WAIT_MS)
    settled(page, '[data-testid="stDownloadButton"]')
    expect(main(page).get_by_text(re.compile(r"5 test questions"))).to_be_visible()
    context.close()

    fresh = browser.new_context(viewport=VIEWPORTS[1])  # a colleague's browser
    try:
        other = fresh.new_page()
        other.goto(link)
        other.get_by_role("heading", name="Questions", level=1).wait_for(timeout=WAIT_MS)
        settled(other, '[data-testid="stDataFrame"]')
        expect(main(other).get_by_role("heading", name="5 questions")).to_be_visible()
    finally:
        fresh.close()


def test_the_page_on_the_handbook_fits_a_projector(server, browser):
    page = browser.new_context(viewport=VIEWPORTS[0]).new_page()
    page.goto(f"{server}/questions")
    page.get_by_role("heading", name="Questions", level=1).wait_for(timeout=WAIT_MS)
    settled(page, '[data-testid="stCheckbox"]')
    type_into(page, "Find evidence", '"red-light zone"')
    expect(main(page).get_by_text(re.compile(r"^\d+ units"))).to_be_visible()
    screenshots(page, "questions_handbook")
    page.context.close()
