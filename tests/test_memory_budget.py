"""Issue 22, item 2: one user cannot exhaust the server's memory. The estimate of an index's
memory (lab.memory) errs high on repetitive text at small sizes; the app refuses work over the
budget (CHUNKING_LAB_MEMORY_MB) with a clear message, and the CLI warns."""

from __future__ import annotations

import json

import pytest

from lab import memory
from lab.cli import main

PARAGRAPH = "The quick brown fox jumps over the lazy dog near the red barn. " * 8 + "\n\n"
REPEATED = PARAGRAPH * 800  # 400 KB of one paragraph: issue 22 measured 4 GB at size 100


def test_repetition_is_zero_for_distinct_sentences_and_near_one_for_a_pasted_loop():
    assert memory.repetition("One thing. Another thing! A third?\nA fourth line") == 0.0
    assert memory.repetition("Same. Same. same.  Other.") == 0.5
    assert memory.repetition(REPEATED) > 0.99
    assert memory.repetition("") == 0.0


def test_the_estimate_covers_what_issue_22_measured():
    # 400 KB repeated at size 100: 8,000 windows, nearly every pair lexical, 4 GB measured
    assert memory.index_bytes(len(REPEATED), 100, memory.repetition(REPEATED)) >= 4_000_000_000


def test_the_estimate_grows_with_text_and_repetition_and_falls_with_size():
    base = memory.index_bytes(100_000, 450, 0.0)
    assert memory.index_bytes(200_000, 450, 0.0) > base
    assert memory.index_bytes(100_000, 450, 0.5) > base
    assert memory.index_bytes(100_000, 900, 0.0) < base
    assert memory.index_bytes(0, 450, 0.0) == 0


def test_prose_at_the_default_size_fits_the_default_budget(handbook_doc):
    assert memory.over_budget([handbook_doc.text * 20], 450) is None


def test_repetitive_text_at_size_100_is_over_a_1_gb_machines_budget():
    problem = memory.over_budget([REPEATED[:200_000]], 100, budget=500)
    assert problem.startswith("an index of these 200,000 characters at size 100 would take about")
    assert "the budget is 500 MB (CHUNKING_LAB_MEMORY_MB)" in problem
    assert "a chunk size of 150 or more fits" in problem
    assert memory.over_budget([REPEATED[:200_000]], 150, budget=500) is None


@pytest.mark.parametrize("setting", ["", "inf", "nan", "-1", "lots"])
def test_a_budget_that_is_no_size_is_the_default(setting):
    assert memory.budget_mb(setting) == 500


def test_the_budget_setting_is_honoured(monkeypatch):
    monkeypatch.setenv(memory.MEMORY_ENV, "64")
    assert memory.budget_mb() == 64


def test_the_cli_warns_when_the_index_would_pass_the_budget(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv(memory.MEMORY_ENV, "5")
    doc, qe = tmp_path / "loop.md", tmp_path / "qe.json"
    doc.write_text("# Loop\n\n" + PARAGRAPH * 40, encoding="utf-8")
    qe.write_text(
        json.dumps([{"id": "q1", "question": "Who jumps?", "evidence": ["The quick brown fox"]}]),
        encoding="utf-8",
    )
    code = main(["run", "--doc", str(doc), "--qe", str(qe), "--size", "100", "--chunker", "fixed"])
    err = capsys.readouterr().err
    assert code == 0
    assert "warning: An index of these" in err and "the budget is 5 MB" in err


@pytest.mark.app
@pytest.mark.parametrize("page", ["app_pages/recall_tables.py", "app_pages/chunk_graph.py"])
def test_the_app_refuses_a_page_over_the_memory_budget_and_keeps_the_text(monkeypatch, page):
    from app_support import open_app

    from ui import cache, store

    monkeypatch.setenv(memory.MEMORY_ENV, "20")
    text = "# Loop\n\n" + PARAGRAPH * 60
    qe = json.dumps([{"id": "q1", "question": "Who?", "evidence": ["The quick brown fox"]}])
    digest = store.default_store().put(store.Inputs({"loop": text}, qe))
    app = open_app(page, corpus=cache.USER, corpus_id=digest, size="100")
    assert not app.exception, app.exception
    (refusal,) = [e.value for e in app.error]
    assert refusal.startswith("This page was not run: an index of these")
    assert not app.get("vega_lite_chart") and not app.dataframe  # no work was done
    app.switch_page("app_pages/your_corpus.py").run()
    assert not app.exception, app.exception
    assert app.text_area(key="yc_document__widget").value == text
    assert not app.error
    app.switch_page(page).run()  # a larger size fits
    app.number_input(key="size").set_value(450).run()
    assert not app.exception and not app.error
