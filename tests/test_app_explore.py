"""The explore pages (chunk graph, question drill-down, your corpus): AppTest runs of each page,
and the views behind them checked against the engine."""

import json
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from app_support import open_app
from samples import LEXICAL_MODES, SPEC_CHUNKERS
from streamlit.testing.v1 import AppTest

from lab import (
    MAX_DOCUMENT_CHARS,
    LabConfig,
    build_corpus,
    build_index,
    explain,
    run_lab,
)
from ui import context, drilldown, graph
from ui.state import chunker_options

pytestmark = pytest.mark.app  # AppTest runs: `pytest -m "not app and not browser"` skips them

CHUNKERS = chunker_options(dense=False)  # every chunker that runs without embeddings

GRAPH = "app_pages/chunk_graph.py"
DRILL = "app_pages/question_drilldown.py"
CORPUS = "app_pages/your_corpus.py"

DOCUMENT = """\
# Harbour rules

## 1 Definitions

### 1.1 Quay

The quay is the stone edge where boats tie up. It runs from the crane to the lighthouse.

### 1.2 Night

Night means the hours between sunset and sunrise.

## 2 Conduct

### 2.1 Swimming

Swimming is forbidden within ten metres of the quay (Section 1.1). Children under 12 must wear a
float at all times.

### 2.2 Lights

Every boat moored at the quay must show a white light at night (Section 1.2). Lights must be
switched off at sunrise.
"""

QUESTIONS = [
    {
        "id": "h1",
        "question": "May I swim next to the stone edge where boats tie up?",
        "evidence": [
            "Swimming is forbidden within ten metres of the quay (Section 1.1).",
            "The quay is the stone edge where boats tie up.",
        ],
    },
    {
        "id": "h2",
        "question": "When does a moored boat need a white light?",
        "evidence": [
            "Every boat moored at the quay must show a white light at night (Section 1.2).",
            "Night means the hours between sunset and sunrise.",
        ],
    },
]


def app_on(page: str, **params: str | list[str]) -> AppTest:
    """The app opened on ``page`` as a warm server runs it, ``params`` in the first URL."""
    at = open_app(page, **params)
    assert not at.exception
    return at


def click(at: AppTest, label: str) -> AppTest:
    next(b for b in at.button if b.label == label).click().run()
    assert not at.exception
    return at


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def html_bodies(at: AppTest) -> list[str]:
    return [element.proto.body for element in at.get("html")]


def type_corpus(at: AppTest, document: str, questions: str, name: str = "harbour") -> AppTest:
    at.text_input(key="yc_name__widget").set_value(name)
    at.text_area(key="yc_document__widget").set_value(document)
    at.text_area(key="yc_qe__widget").set_value(questions)
    return click(at.run(), "Check and load")


def report(at: AppTest):
    return at.session_state["yc_report"]


# Every page on defaults -------------------------------------------------------------------------


def test_chunk_graph_page_draws_the_structure_graph_for_the_first_test_question():
    at = app_on(GRAPH)
    assert at.selectbox(key="graph_chunker").value == "structure"
    spec = json.loads(at.get("vega_lite_chart")[0].proto.spec)
    assert [p["name"] for p in spec["params"]] == ["node"]
    assert int(metric(at, "xref edges")) > 0
    assert at.selectbox(key="graph_node").value.startswith("structure-")


def test_drilldown_page_shows_every_chunker_in_both_modes():
    at = app_on(DRILL)
    overview = at.dataframe[0].value
    assert list(overview.columns) == list(LEXICAL_MODES)
    assert len(overview) == len(SPEC_CHUNKERS)
    assert len(at.tabs) == len(SPEC_CHUNKERS)
    assert all(
        cell.split(" ")[0] in ("complete", "partial", "miss")
        for cell in overview.to_numpy().ravel()
    )


def test_corpus_page_offers_paste_and_bounded_uploads():
    at = app_on(CORPUS)
    assert [t.key for t in at.text_area] == ["yc_document__widget", "yc_qe__widget"]
    assert [u.proto.max_upload_size_mb for u in at.file_uploader] == [20, 20, 20, 20]
    assert "yc_report" not in at.session_state


def test_the_graphs_edge_types_are_in_the_link():
    at = app_on(GRAPH, graph_edges=["lexical", "xref"])
    pills = at.button_group(key="graph_edges")
    assert pills.value == ["lexical", "xref"]
    assert "graph_edges=lexical&graph_edges=xref" in at.sidebar.code[-1].value
    pills.set_value(["adjacency"]).run()
    assert "graph_edges=adjacency" in at.sidebar.code[-1].value
    edges = next(t for t in chart_tables(at) if "x2" in t.columns)
    assert set(edges["type"]) == {"adjacency"}
    pills.set_value([]).run()
    assert not at.exception
    assert at.sidebar.code[-1].value.endswith("graph_edges=")


def test_an_empty_or_unknown_edge_type_in_the_link():
    assert not app_on(GRAPH, graph_edges="").warning  # nothing chosen is a valid view
    at = app_on(GRAPH, graph_edges=["nope", "xref"])
    assert at.button_group(key="graph_edges").value == ["xref"]
    (notice,) = at.warning
    assert "graph_edges=nope" in notice.value


# Drill-down ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", LEXICAL_MODES)
@pytest.mark.parametrize("chunker", list(CHUNKERS))
def test_drilldown_verdict_matches_the_lab_run(handbook, chunker, mode):
    at = app_on(DRILL, chunker=chunker, mode=mode)
    settings = at.session_state["settings"]
    assert settings.chunkers == (chunker,) and settings.modes == (mode,)
    overview = at.dataframe[0].value
    assert overview.shape == (1, 1)
    run = run_lab(handbook, LabConfig(chunkers=(chunker,), modes=(mode,))).run(chunker, mode)
    expected = next(r for r in run.questions if r.id == settings.question)
    assert overview.iloc[0, 0].startswith(f"{expected.verdict} ")
    assert any(f"-badge[{expected.verdict}]" in m.value for m in at.markdown)
    ranking = at.dataframe[1].value
    assert ("pagerank" in ranking.columns) == (mode == "graph")
    picked = ranking[ranking["decision"] == "picked"]["chunk"].tolist()
    assert picked == [p.chunk for p in expected.context]


def test_every_question_view_agrees_with_run_lab(handbook):
    config = LabConfig(chunkers=tuple(CHUNKERS), split="all")
    result = run_lab(handbook, config)
    for chunker in CHUNKERS:
        index = build_index(handbook, chunker, config.size)
        for mode in LEXICAL_MODES:
            expected = {r.id: r for r in result.run(chunker, mode).questions}
            for q in handbook.questions:
                view = drilldown._build_view(index, q, mode, config.budget)
                assert view.verdict == expected[q.id].verdict
                assert [e.diagnosis for e in view.evidence] == [
                    e.diagnosis for e in expected[q.id].evidence
                ]


def test_drilldown_without_questions_says_so():
    at = app_on(CORPUS)
    at = type_corpus(at, DOCUMENT, "")
    at.switch_page(DRILL).run()
    assert not at.exception
    assert any("no test questions" in i.value for i in at.info)


# Highlighting ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def harbour():
    return build_corpus({"harbour": DOCUMENT}, json.dumps(QUESTIONS))


def test_evidence_inside_a_resolved_reference_is_highlighted_whole(harbour):
    index = build_index(harbour, "structure", 450)
    swimming = next(c for c in index.chunks if "Swimming" in c.text)
    spans = [(e.start, e.end) for e in harbour.questions[0].evidence]
    parts = context.segments(swimming, DOCUMENT, spans)
    assert "".join(p.text for p in parts) == swimming.text
    marked = {p.number: p.text for p in parts if p.kind == "evidence"}
    assert marked == {n + 1: e.text for n, e in enumerate(harbour.questions[0].evidence)}
    assert [p.text for p in parts if p.kind == "meta"][0] == swimming.prefix
    assert any("Section 1.1" in p.text for p in parts if p.kind == "meta")


def test_evidence_cut_by_a_window_is_marked_as_a_part(harbour):
    index = build_index(harbour, "fixed", 60, overlap=10)
    ev = harbour.questions[1].evidence[0]
    cut = next(c for c in index.chunks if c.start < ev.end and ev.start < c.end)
    parts = context.segments(cut, DOCUMENT, [(ev.start, ev.end)])
    pieces = [p.text for p in parts if p.kind == "part"]
    assert pieces and all(piece in ev.text for piece in pieces)
    assert not [p for p in parts if p.kind == "evidence"]


def test_document_text_is_escaped_in_the_context():
    text = (
        "## 1 Rules\n\n### 1.1 Tags\n\nNever write <script>alert(1)</script> or <b>bold</b> & co.\n"
    )
    corpus = build_corpus(
        {"x": text},
        json.dumps(
            [
                {
                    "id": "t",
                    "question": "script tags",
                    "evidence": ["Never write <script>alert(1)</script>"],
                }
            ]
        ),
    )
    index = build_index(corpus, "structure", 450)
    view = drilldown._build_view(index, corpus.questions[0], "flat", 120)
    assert "<script>" not in view.context_html and "<b>" not in view.context_html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in view.context_html


# Chunk graph -----------------------------------------------------------------------------------


def test_switching_references_off_removes_only_the_reference_edges(handbook):
    on = graph.graph_view(handbook, LabConfig(refs="delivered"), "structure", "q07")
    off = graph.graph_view(handbook, LabConfig(refs="off"), "structure", "q07")
    assert (on.edges["type"] == "xref").sum() == on.counts["xref"] > 0
    assert (off.edges["type"] == "xref").sum() == off.counts["xref"] == 0
    assert on.counts["adjacency"] == off.counts["adjacency"]
    assert np.allclose(on.nodes[["x", "y"]], off.nodes[["x", "y"]])


def test_graph_marks_seeds_picks_evidence_and_sizes_by_pagerank(handbook):
    config = LabConfig()
    view = graph.graph_view(handbook, config, "structure", "q07")
    q = context.question(handbook, "q07")
    ex = explain(build_index(handbook, "structure", config.size), q, "graph", config.budget)
    nodes = view.nodes.set_index("k")
    assert set(nodes.index[nodes["seed"] == "seed"]) == set(ex.ranking.seeds)
    assert set(nodes.index[nodes["status"] == "picked"]) == set(ex.context.picked)
    holders = {int(k) for ev in q.evidence for k in ex.index.holding(ev)}
    assert set(nodes.index[nodes["evidence"] == "holds evidence"]) == holders
    by_mass = nodes.sort_values("pagerank")
    assert by_mass["area"].is_monotonic_increasing
    assert np.allclose(nodes["pagerank"], ex.ranking.pagerank[nodes.index])


def test_graph_layout_is_deterministic(handbook):
    first = graph.graph_view(handbook, LabConfig(size=350), "fixed", "q07")
    graph._layout[0].clear()
    graph._graph_view[0].clear()
    again = graph.graph_view(handbook, LabConfig(size=350), "fixed", "q07")
    assert np.allclose(first.nodes[["x", "y"]], again.nodes[["x", "y"]])


def test_large_graph_shows_the_questions_neighbourhood(handbook):
    view = graph.graph_view(handbook, LabConfig(size=100, budget=40), "sentence", "q07")
    ex = explain(
        build_index(handbook, "sentence", 100), context.question(handbook, "q07"), "graph", 40
    )
    assert len(view.nodes) == min(view.total, graph.MAX_NODES)
    assert set(ex.ranking.seeds) | set(ex.context.picked) <= set(view.nodes["k"])


def test_graph_page_drops_reference_edges_when_references_are_off():
    at = app_on(GRAPH)
    assert int(metric(at, "xref edges")) > 0
    at.radio(key="refs").set_value("off").run()
    assert not at.exception
    assert metric(at, "xref edges") == "0"
    edges = next(t for t in chart_tables(at) if "x2" in t.columns)
    assert len(edges) and "xref" not in set(edges["type"])


def chart_tables(at: AppTest) -> list:
    return [
        pa.ipc.open_stream(d.data.data).read_all().to_pandas()
        for d in at.get("vega_lite_chart")[0].proto.datasets
    ]


def test_hiding_edge_types_draws_only_the_chosen_ones():
    at = app_on(GRAPH)
    at.button_group(key="graph_edges").set_value(["xref"]).run()
    assert not at.exception
    edges = next(t for t in chart_tables(at) if "x2" in t.columns)
    assert len(edges) and set(edges["type"]) == {"xref"}


def test_choosing_a_chunk_shows_its_text():
    at = app_on(GRAPH, question="q07")
    options = at.selectbox(key="graph_node").options
    last = options[-1].split(" · ")[0]
    at.selectbox(key="graph_node").set_value(last).run()
    assert not at.exception
    assert any(f"{last} · " in body for body in html_bodies(at))


# Your corpus -----------------------------------------------------------------------------------


def test_valid_corpus_loads_and_every_page_runs_on_it():
    at = type_corpus(app_on(CORPUS), DOCUMENT, json.dumps(QUESTIONS))
    assert report(at).accepted == 2 and report(at).rejected == 0
    assert at.selectbox(key="corpus").value == "your corpus"
    # the recall table: one row per default chunker and mode
    assert len(at.dataframe[1].value) == len(SPEC_CHUNKERS) * len(LEXICAL_MODES)  # the recall table
    for page in ("app_pages/index_overview.py", DRILL, GRAPH, "app_pages/recall_tables.py"):
        at.switch_page(page).run()
        assert not at.exception, page
        assert at.session_state["settings"].corpus == "your corpus"
    at.switch_page(DRILL).run()
    assert any("May I swim" in m.value for m in at.markdown)


@pytest.mark.parametrize(
    "broken",
    [
        '{"questions": [{"id": "h1", "question": "x"',
        '{"questions": {"h1": "not a list"}}',
        "   ",  # blank: no questions, which is allowed
    ],
)
def test_unreadable_qe_json_keeps_the_loaded_corpus_and_says_why(broken):
    at = type_corpus(app_on(CORPUS), DOCUMENT, json.dumps(QUESTIONS))
    at = type_corpus(at, DOCUMENT, broken)
    if not broken.strip():
        assert report(at).refused is None and report(at).accepted == 0
        return
    assert "not valid JSON" in report(at).refused or "list of questions" in report(at).refused
    assert any("Nothing was loaded" in e.value and "still in use" in e.value for e in at.error)
    assert at.text_area(key="yc_qe__widget").value == broken
    assert len(at.session_state["user_corpus"].questions) == 2  # the corpus loaded before
    assert at.session_state["settings"].corpus == "your corpus"


def test_qe_json_nested_too_deep_still_loads_its_questions():
    deep = json.dumps([{**QUESTIONS[0], "notes": "[" * 40 + "]" * 40}]).replace('"[[', "[[")
    deep = deep.replace(']]"', "]]")
    at = type_corpus(app_on(CORPUS), DOCUMENT, deep)
    assert report(at).refused is None
    assert report(at).accepted == 1
    assert at.session_state["settings"].corpus == "your corpus"


def test_unreadable_qe_json_on_a_first_load_leaves_the_handbook():
    at = type_corpus(app_on(CORPUS), DOCUMENT, "[{")
    assert "not valid JSON" in report(at).refused
    assert "user_corpus" not in at.session_state
    assert at.selectbox(key="corpus").value == "handbook"


# A corpus in a link ------------------------------------------------------------------------------


def test_a_loaded_corpus_is_kept_and_its_link_reopens_it():
    at = type_corpus(app_on(CORPUS), DOCUMENT, json.dumps(QUESTIONS))
    digest = at.session_state["settings"].corpus_id
    assert re.fullmatch("[0-9a-f]{32}", digest)
    assert at.query_params["corpus_id"] == digest
    link = at.sidebar.code[-1].value
    assert f"corpus_id={digest}" in link and "corpus=your+corpus" in link
    assert any("Kept on this server" in c.value for c in at.caption)

    fresh = app_on(DRILL, corpus="your corpus", corpus_id=digest)  # a refresh, or a colleague
    # nothing about the link; the one warning is that this corpus has no train questions
    (notice,) = fresh.warning
    assert "untrained" in notice.value and "no longer kept" not in notice.value
    assert fresh.session_state["settings"].corpus == "your corpus"
    assert fresh.session_state["settings"].question == "h1"
    assert any("May I swim" in m.value for m in fresh.markdown)
    fresh.switch_page(CORPUS).run()
    assert fresh.text_area(key="yc_document__widget").value == DOCUMENT
    assert fresh.text_area(key="yc_qe__widget").value == json.dumps(QUESTIONS)
    assert fresh.text_input(key="yc_name__widget").value == "harbour"
    assert report(fresh).accepted == 2


def test_a_link_to_a_corpus_the_server_no_longer_keeps_says_so(app_folders):
    at = type_corpus(app_on(CORPUS), DOCUMENT.replace("ten", "eleven"), json.dumps([]))
    digest = at.session_state["settings"].corpus_id
    (app_folders["CHUNKING_LAB_STORE"] / f"{digest}.json").unlink()  # evicted meanwhile
    fresh = app_on(DRILL, corpus="your corpus", corpus_id=digest)
    (notice,) = fresh.warning
    assert "no longer kept on this server" in notice.value
    assert f"corpus_id {digest[:8]}…" in notice.value
    assert fresh.session_state["settings"].corpus == "handbook"
    assert "corpus_id" not in fresh.query_params


def test_a_link_to_a_lost_corpus_says_so_once_not_also_about_its_question(app_folders):
    """Issue 21, item 13: the question the link names belongs to the corpus it could not open;
    one notice says what happened, not a second "Ignored question=h1"."""
    at = type_corpus(app_on(CORPUS), DOCUMENT.replace("ten", "twelve"), json.dumps(QUESTIONS))
    digest = at.session_state["settings"].corpus_id
    (app_folders["CHUNKING_LAB_STORE"] / f"{digest}.json").unlink()
    fresh = app_on(DRILL, corpus="your corpus", corpus_id=digest, question="h1")
    (notice,) = fresh.warning
    assert "no longer kept on this server" in notice.value
    assert fresh.session_state["settings"].question == "q04"  # the handbook's first


@pytest.mark.parametrize("digest", ["../../etc/passwd", "/etc/passwd", "0" * 64, "abc"])
def test_a_corpus_id_that_is_no_digest_is_ignored(digest):
    at = app_on(CORPUS, corpus="your corpus", corpus_id=digest)
    (notice,) = at.warning
    assert notice.value.startswith("Ignored **corpus_id=")
    assert at.session_state["settings"].corpus == "handbook"


def test_a_corpus_the_store_cannot_keep_still_loads_and_says_why(monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("CHUNKING_LAB_STORE", str(blocker))
    at = type_corpus(app_on(CORPUS), DOCUMENT, json.dumps(QUESTIONS))
    assert at.session_state["settings"].corpus == "your corpus"
    assert at.session_state["settings"].corpus_id is None
    assert any("not kept on the server" in w.value for w in at.warning)
    assert "corpus_id" not in at.sidebar.code[-1].value


def test_missing_evidence_rejects_that_question_and_the_rest_run():
    questions = [QUESTIONS[0], {**QUESTIONS[1], "evidence": ["Boats must carry a bell."]}]
    at = type_corpus(app_on(CORPUS), DOCUMENT, json.dumps(questions))
    rows = report(at).rows.set_index("question")
    assert rows.at["h2", "status"] == "rejected"
    assert (
        "evidence not found" in rows.at["h2", "why"] and "Boats must carry" in rows.at["h2", "why"]
    )
    assert rows.at["h1", "status"] == "accepted"
    at.switch_page(DRILL).run()
    assert not at.exception
    assert at.session_state["settings"].question == "h1"


def test_empty_document_is_refused_and_the_handbook_stays():
    at = type_corpus(app_on(CORPUS), "  \n\n ", json.dumps(QUESTIONS))
    assert "is empty" in report(at).refused
    assert any("Nothing was loaded" in e.value and "handbook" in e.value for e in at.error)
    assert at.text_area(key="yc_document__widget").value == "  \n\n "
    assert at.selectbox(key="corpus").value == "handbook"


def test_oversize_document_is_refused_the_text_kept_and_the_loaded_corpus_still_runs():
    at = type_corpus(app_on(CORPUS), DOCUMENT, json.dumps(QUESTIONS))
    huge = "word " * (MAX_DOCUMENT_CHARS // 5 + 1)
    at = type_corpus(at, huge, json.dumps(QUESTIONS))
    assert f"{MAX_DOCUMENT_CHARS:,}" in report(at).refused
    assert any("still in use" in e.value for e in at.error)
    assert len(at.text_area(key="yc_document__widget").value) == len(huge)
    at.switch_page(DRILL).run()
    assert not at.exception
    assert at.session_state["settings"].corpus == "your corpus"
    assert any("May I swim" in m.value for m in at.markdown)


def test_inputs_survive_a_visit_to_another_page():
    at = app_on(CORPUS)
    at.text_area(key="yc_document__widget").set_value(DOCUMENT).run()
    at.switch_page("app_pages/recall_tables.py").run()
    at.switch_page(CORPUS).run()
    assert at.text_area(key="yc_document__widget").value == DOCUMENT


def test_uploads_fill_the_inputs_and_bad_files_are_refused():
    at = app_on(CORPUS)
    at.file_uploader(key="yc_document_file").upload("rules.md", DOCUMENT.encode(), "text/markdown")
    at.run()
    assert at.text_area(key="yc_document__widget").value == DOCUMENT
    assert at.text_input(key="yc_name__widget").value == "rules.md"
    at.file_uploader(key="yc_qe_file").upload("qe.json", b"\x80\x81bad\xff", "application/json")
    at.run()
    assert not at.exception
    assert any("not replaced" in e.value and "not UTF" in e.value for e in at.error)
    assert at.text_area(key="yc_qe__widget").value == ""


REAL = Path(__file__).resolve().parent / "data" / "real"


def test_the_document_uploaders_take_a_file_without_an_extension():
    """Issue 21, item 11: Debian's licence files have no extension, and the uploaders refused
    them (and .html, offered by the page). Any name is offered; the text decides."""
    at = app_on(CORPUS)
    assert list(at.file_uploader(key="yc_document_file").proto.type) == []
    assert list(at.file_uploader(key="yc_files_upload").proto.type) == []
    licence = (REAL / "Apache-2.0").read_bytes()
    at.file_uploader(key="yc_document_file").upload("Apache-2.0", licence)
    at.run()
    assert not at.exception and not at.error
    assert at.text_area(key="yc_document__widget").value == licence.decode()
    assert at.text_input(key="yc_name__widget").value == "Apache-2.0"


def test_a_pdf_or_docx_in_the_document_box_is_kept_with_the_documents_and_loads():
    """The single-document uploader takes a PDF (read as a file, not put in the text box), keeps
    it with the uploaded documents and says so; a truncated one is refused with its reason and
    the box keeps its text."""
    at = app_on(CORPUS)
    at.text_area(key="yc_document__widget").set_value(DOCUMENT)
    cut = (REAL / "formats" / "shared-mime-info-spec.pdf").read_bytes()[:4000]
    at.file_uploader(key="yc_document_file").upload("cut.pdf", cut, "application/pdf")
    at.run()
    assert any("cut" in e.value and "not a readable PDF" in e.value for e in at.error)
    assert at.text_area(key="yc_document__widget").value == DOCUMENT
    docx = (REAL / "formats" / "zstd-README.docx").read_bytes()
    at.file_uploader(key="yc_document_file").upload("zstd.docx", docx)
    at.run()
    assert not at.exception and not at.error
    assert any("zstd" in i.value and "is kept with the documents below" in i.value for i in at.info)
    assert list(at.session_state["yc_files"]) == ["zstd.docx"]
    assert at.text_area(key="yc_document__widget").value == DOCUMENT
    at.button[[b.label for b in at.button].index("Check and load")].click().run()
    report = at.session_state["yc_report"]
    assert report.refused is None and report.document["documents"] == 2


HTML_QUESTIONS = [
    {
        "id": "u1",
        "question": "Which user do daemons that own no files run as?",
        "evidence": ["Daemons that don't need to own any files sometimes run as nobody.nogroup"],
    },
    {"id": "u2", "question": "Who may log in as lp?", "evidence": ["Nobody logs in as lp."]},
]


def test_an_uploaded_html_page_is_read_as_html_and_the_report_counts_in_words():
    """Issue 21, item 11: an .html upload keeps its name, so the engine reads it as HTML and the
    report says so ("Read as"); "1 evidence span", "1 problem"; a rejected question shows its
    text."""
    at = app_on(CORPUS)
    page = (REAL / "users-and-groups.html").read_bytes()
    at.file_uploader(key="yc_document_file").upload("users-and-groups.html", page, "text/html")
    at.run()
    assert at.text_input(key="yc_name__widget").value == "users-and-groups.html"
    at.text_area(key="yc_qe__widget").set_value(json.dumps(HTML_QUESTIONS))
    click(at.run(), "Check and load")
    made = report(at)
    assert made.documents["format"].tolist() == ["html"]
    rows = made.rows.set_index("question")
    assert rows.loc["u1", "why"] == "1 evidence span found (test)"
    assert rows.loc["u2", "status"] == "rejected"
    assert rows.loc["u2", "text"] == "Who may log in as lp?"
    (warned,) = [w.value for w in at.warning if "left questions out" in w.value]
    assert warned.startswith("1 problem left questions out; 1 valid question runs.")


def test_a_utf16_upload_is_read_as_text():
    at = app_on(CORPUS)
    at.file_uploader(key="yc_document_file").upload(
        "rules.md", DOCUMENT.encode("utf-16"), "text/markdown"
    )
    at.run()
    assert not at.exception and not at.error
    assert at.text_area(key="yc_document__widget").value == DOCUMENT


def test_user_text_reaches_the_page_escaped():
    text = DOCUMENT.replace("tie up.", "tie up <img src=x onerror=alert(1)>.")
    questions = [
        {
            "id": "x1",
            "question": "Where do boats <b>tie</b> up?",
            "evidence": [
                "The quay is the stone edge where boats tie up <img src=x onerror=alert(1)>."
            ],
        }
    ]
    at = type_corpus(app_on(CORPUS), text, json.dumps(questions))
    at.switch_page(DRILL).run()
    assert not at.exception
    bodies = html_bodies(at)
    assert bodies and all("<img" not in body for body in bodies)
    assert any("&lt;img src=x onerror=alert(1)&gt;" in body for body in bodies)
    assert not any("<b>tie</b>" in m.value for m in at.markdown)


def test_addresses_in_user_text_stay_text_everywhere():
    from test_app_pages import GFM_EMAIL, GFM_URL

    text = DOCUMENT.replace(
        "It runs from the crane to the lighthouse.",
        "Questions go to harbour.master@example.org or https://www.example.org/quay.",
    )
    questions = [
        {
            "id": "www.example.com",
            "question": "Whom do I ask, harbour.master@example.org or www.example.org?",
            "evidence": [
                "Questions go to harbour.master@example.org or https://www.example.org/quay."
            ],
        }
    ]
    at = type_corpus(app_on(CORPUS), text, json.dumps(questions), name="see www.example.net")
    for page in ("app_pages/index_overview.py", DRILL, GRAPH):
        at.switch_page(page).run()
        shown = [e.value for e in (*at.markdown, *at.caption, *at.sidebar.caption)]
        assert any("harbour" in v for v in shown), page
        for value in shown:
            plain = re.sub(r"\\(.)", r"\1", value)
            assert not GFM_URL.search(plain) and not GFM_EMAIL.search(plain), (page, value)


def test_forgetting_the_corpus_returns_to_the_handbook_and_keeps_the_text():
    at = type_corpus(app_on(CORPUS), DOCUMENT, json.dumps(QUESTIONS))
    click(at, "Forget my corpus")
    assert at.selectbox(key="corpus").value == "handbook"
    assert at.selectbox(key="corpus").options == ["handbook", "technova"]
    assert at.text_area(key="yc_document__widget").value == DOCUMENT
