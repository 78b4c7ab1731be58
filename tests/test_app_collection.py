"""The app on collections: the bundled TechNova support collection on every page, the documents,
recall by document type and by question, documents named in the drill-down and the graph, and
several files plus a manifest on Your corpus, bad input included."""

import json
from urllib.parse import parse_qs, urlsplit

import pytest
from app_support import open_app
from samples import TECHNOVA_DOCS as DOCS

from lab import run_lab
from ui import cache, documents

pytestmark = pytest.mark.app  # AppTest runs: `pytest -m "not app and not browser"` skips them

TECHNOVA = cache.TECHNOVA
PAGES = (
    "app_pages/index_overview.py",
    "app_pages/recall_tables.py",
    "app_pages/sweep_charts.py",
    "app_pages/question_drilldown.py",
    "app_pages/chunk_graph.py",
    "app_pages/compare.py",
    "app_pages/your_corpus.py",
)
POLICY = ["structure", "table-rows", "by-type"]
CORPUS = "app_pages/your_corpus.py"


def on(page, **params):
    at = open_app(page, corpus=TECHNOVA, **params)
    assert not at.exception, at.exception
    return at


def frames(at):
    return [d.value for d in at.dataframe]


def frame_with(at, column):
    return next(f for f in frames(at) if column in f.columns)


def html_bodies(at):
    return [element.proto.body for element in at.get("html")]


def click(at, label):
    next(b for b in at.button if b.label == label).click().run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_on_the_support_collection_with_the_policy(page):
    at = on(page, chunker=POLICY, question="t05")
    assert at.session_state["settings"].corpus == TECHNOVA
    assert not at.error


def chart_frames(at):
    """The datasets of every chart on the page, as frames."""
    import pyarrow

    return [
        pyarrow.ipc.open_stream(d.data.data).read_all().to_pandas()
        for chart in at.get("vega_lite_chart")
        for d in chart.proto.datasets
    ]


def shows_the_collection(page: str, at) -> bool:
    """What each page shows of the collection: its documents, the policy beside the chunkers."""
    if page.endswith("index_overview.py"):
        return list(frame_with(at, "type from")["document"]) == DOCS
    if page.endswith("recall_tables.py"):
        return "by-type · flat" in set(frame_with(at, "complete")["configuration"])
    if page.endswith("sweep_charts.py"):
        return any("by-type" in set(f.get("chunker", ())) for f in chart_frames(at))
    if page.endswith("question_drilldown.py"):
        return "product-specs.html" in set(frame_with(at, "decision")["document"])
    if page.endswith("chunk_graph.py"):
        return any(
            f["where"].str.startswith("product-specs.html › ").any()
            for f in chart_frames(at)
            if "where" in f
        )
    if page.endswith("compare.py"):
        return "by-type" in at.selectbox(key="b_chunker").options
    return at.title[0].value == "Your corpus"


@pytest.mark.parametrize("page", PAGES)
def test_every_pages_link_reopens_the_same_view_of_the_support_collection(page):
    at = on(page, chunker=POLICY, mode="flat", question="t14", size="600", filters="false")
    assert shows_the_collection(page, at)
    settings = at.session_state["settings"]
    assert (settings.corpus, settings.chunkers, settings.size, settings.filters) == (
        TECHNOVA,
        tuple(POLICY),
        600,
        False,
    )
    link = urlsplit(at.sidebar.code[-1].value)
    name = page.removeprefix("app_pages/").removesuffix(".py")
    assert link.path == "/" + ("" if name == "index_overview" else name)  # the default page
    assert parse_qs(link.query) == {
        "corpus": [TECHNOVA],
        "chunker": POLICY,
        "mode": ["flat"],
        "size": ["600"],
        "filters": ["false"],
        "question": ["t14"],
    }
    fresh = open_app(page, **parse_qs(link.query))  # a new session opening the shared link
    assert not fresh.exception, fresh.exception
    assert fresh.session_state["settings"] == settings
    assert shows_the_collection(page, fresh)
    assert fresh.sidebar.code[-1].value == at.sidebar.code[-1].value


def test_the_sidebar_offers_the_handbook_and_the_support_collection():
    at = open_app("app_pages/index_overview.py")
    assert at.selectbox(key="corpus").options == ["handbook", TECHNOVA]


def test_index_overview_lists_documents_types_and_the_policys_chunker():
    at = on("app_pages/index_overview.py", chunker=POLICY)
    table = frame_with(at, "type from")
    assert len(table) == 7
    row = table.set_index("document").loc["product-specs.html"]
    assert (row["type"], row["by-type"], row["type from"]) == ("spec-table", "table-rows", "given")
    assert row["format"] == "HTML (extracted text)"
    quick = table.set_index("document").loc["wh-500-quick-start.md"]
    assert quick["type from"] == "inferred: 3 numbered steps under 4 headings"
    assert table["chunks"].sum() > 7 and table["questions"].sum() >= 31


def test_boundary_map_shows_an_html_documents_extracted_text():
    at = on("app_pages/index_overview.py", chunker=POLICY, map="by-type", doc="product-specs.html")
    assert any("the policy cuts it with **table-rows**" in c.value for c in at.caption)
    assert any("extracted text" in c.value for c in at.caption)
    body = "".join(html_bodies(at))
    assert "Model | Style | Driver" in body and "&lt;table" not in body and "<td>" not in body


def test_the_policy_nudge_adds_by_type_beside_the_chosen_chunkers():
    at = on("app_pages/recall_tables.py", chunker=["structure", "fixed"])  # the user's choice
    assert "by-type" not in at.session_state["settings"].chunkers
    at = click(at, "Add by-type and table-rows")
    assert at.session_state["settings"].chunkers[-2:] == ("table-rows", "by-type")


def test_recall_tables_break_recall_down_by_type_and_by_question():
    at = on("app_pages/recall_tables.py", chunker=POLICY, mode="flat")
    recall = frame_with(at, "complete w/o filters")
    assert recall.set_index("configuration").loc["by-type · flat", "complete"] == 60  # percent
    by_type = frame_with(at, "several types")  # issue 21, item 4: configurations down
    assert by_type["configuration"].tolist() == [f"{c} · flat" for c in POLICY]
    assert {"faq", "spec-table", "several types"} <= set(by_type.columns)
    support = cache.technova()
    result = run_lab(support, at.session_state["settings"].config)
    assert sum(documents.recall_by_type(result, support)[1].values()) == 20  # questions by type
    by_question = frame_with(at, "filter")
    marked = {q for q in by_question["question"] if q.endswith("docs")}
    assert marked == {"t05 · 2 docs", "t10 · 2 docs", "t27 · 2 docs"}
    row = by_question.set_index("question").loc["t14"]
    assert row["filter"] == "product = WH-1000"
    assert row["by-type · flat"] == "miss → complete without filter"


def test_drill_down_names_each_chunks_document_and_the_filter():
    at = on("app_pages/question_drilldown.py", chunker=POLICY, mode="flat", question="t05")
    body = "".join(html_bodies(at))
    assert "troubleshooting-guide.md" in body and "firmware-changelog.md" in body
    ranking = frame_with(at, "decision")
    assert "document" in ranking.columns
    assert any(
        "firmware-changelog.md › Version 3.2" in m.value.replace("\\", "") for m in at.markdown
    )
    at = on("app_pages/question_drilldown.py", chunker=POLICY, mode="flat", question="t14")
    assert any("Metadata filter" in c.value for c in at.caption)
    assert any("filtered out" in m.value for m in at.markdown)


def test_graph_names_the_document_of_the_chosen_chunk():
    at = on("app_pages/chunk_graph.py", chunker=POLICY, question="t05")
    nodes = next(
        t
        for t in (
            __import__("pyarrow").ipc.open_stream(d.data.data).read_all().to_pandas()
            for d in at.get("vega_lite_chart")[0].proto.datasets
        )
        if "where" in t.columns
    )
    assert nodes["where"].str.contains(".md › |.html › |.txt › ", regex=True).all()


# Your corpus: several files and a manifest ------------------------------------------------------


def upload(at, files):
    uploader = at.file_uploader(key="yc_files_upload")
    for name, content in files.items():
        uploader.upload(name, content.encode() if isinstance(content, str) else content)
    at.run()
    assert not at.exception, at.exception
    return at


GUIDE = "# Guide\n\n## Pairing\n\n1. Charge it.\n2. Hold power.\n3. Select it.\n"
SPECS = (
    "<html><body><h1>Specs</h1><table><tr><th>Model</th><th>Battery</th></tr>"
    "<tr><td>A-1</td><td>10 h</td></tr><tr><td>B-2</td></tr></table><p>Open <b>tag</p>"
    "</body></html>"
)
QE = [
    {"id": "a", "question": "How do I pair?", "evidence": ["2. Hold power."]},
    {
        "id": "b",
        "question": "Battery of A-1?",
        "evidence": [{"doc": "specs.html", "text": "A-1 | 10 h"}],
    },
    {"id": "c", "question": "?", "evidence": [{"doc": "manual.md", "text": "Hold power."}]},
]
MANIFEST = {
    "documents": [
        {"path": "guide.md", "type": "manual", "meta": {"product": "A-1"}},
        {"path": "specs.html", "type": "spec-table"},
        {"path": "gone.md"},
    ],
    "policy": {"spec-table": {"chunker": "rows"}},
}


def test_several_files_and_a_manifest_load_and_every_problem_is_reported():
    at = open_app(CORPUS)
    at = upload(
        at,
        {
            "guide.md": GUIDE,
            "specs.html": SPECS,
            "collection.json": json.dumps(MANIFEST),
            "qe.json": json.dumps(QE),
        },
    )
    assert at.text_area(key="yc_qe__widget").value == json.dumps(QE)
    at = click(at, "Check and load")
    report = at.session_state["yc_report"]
    assert report.refused is None and report.accepted == 2
    docs = report.documents.set_index("document")
    assert list(docs.index) == ["guide.md", "specs.html", "gone.md"]
    assert docs.loc["gone.md", "type"] == "—"
    assert "collection.json names 'gone.md', which does not exist" in docs.loc["gone.md", "notes"]
    assert docs.loc["guide.md", "type"] == "procedure"  # unknown type: inferred instead
    assert "unknown type 'manual'" in docs.loc["guide.md", "notes"]
    notes = docs.loc["specs.html", "notes"]
    assert "not well formed" in notes and "cell count differs" in notes
    reasons = " ".join(report.rows["why"])
    assert "names unknown chunker 'rows'" in reasons
    assert "unknown doc 'manual.md'" in reasons
    assert at.session_state["settings"].corpus == cache.USER
    for page in PAGES[:6]:
        at.switch_page(page).run()
        assert not at.exception, page


KEPT_MANIFEST = {  # every fact here differs from what the files alone would give
    "documents": [
        {"path": "guide.md", "type": "faq", "meta": {"product": "A-1"}},
        {"path": "specs.html", "type": "spec-table", "meta": {"product": ["A-1", "B-2"]}},
    ],
    "policy": {"faq": {"chunker": "fixed", "size": 300}, "spec-table": {"chunker": "table-rows"}},
}


def test_an_uploaded_collections_link_reopens_it_with_its_manifest_in_a_fresh_session():
    specs = SPECS.replace("<tr><td>B-2</td></tr>", "<tr><td>B-2</td><td>12 h</td></tr>")
    questions = [QE[0], {**QE[1], "filter": {"product": "A-1"}}]
    at = upload(
        open_app(CORPUS),
        {
            "guide.md": GUIDE,
            "specs.html": specs,
            "collection.json": json.dumps(KEPT_MANIFEST),
            "qe.json": json.dumps(questions),
        },
    )
    at = click(at, "Check and load")
    digest = at.session_state["settings"].corpus_id
    assert digest and at.query_params["corpus_id"] == digest

    fresh = open_app("app_pages/index_overview.py", corpus=cache.USER, corpus_id=digest)
    assert not fresh.exception, fresh.exception
    assert not any("no longer kept" in w.value for w in fresh.warning)
    settings = fresh.session_state["settings"]
    assert (settings.corpus, settings.corpus_id) == (cache.USER, digest)
    docs = frame_with(fresh, "type from").set_index("document")
    assert list(docs.index) == ["guide.md", "specs.html"]
    # without the manifest guide.md would be an inferred procedure with no metadata
    assert docs.loc["guide.md", ["type", "type from", "meta"]].tolist() == [
        "faq",
        "given",
        "product=A-1",
    ]
    assert docs.loc["specs.html", "meta"] == "product=A-1/B-2"
    assert docs.loc["guide.md", "by-type"] == "fixed (L = 300)"
    assert docs.loc["specs.html", "by-type"] == "table-rows"

    fresh.switch_page(CORPUS).run()
    assert not fresh.exception, fresh.exception
    assert fresh.session_state["yc_manifest"] == ("collection.json", json.dumps(KEPT_MANIFEST))
    assert sorted(fresh.session_state["yc_files"]) == ["guide.md", "specs.html"]
    assert fresh.text_area(key="yc_qe__widget").value == json.dumps(questions)
    assert fresh.session_state["yc_report"].accepted == 2


def test_several_files_without_a_manifest_get_inferred_types():
    at = upload(open_app(CORPUS), {"guide.md": GUIDE, "specs.html": SPECS})
    at = click(at, "Check and load")
    docs = at.session_state["yc_report"].documents.set_index("document")
    assert docs.loc["guide.md", "type from"].startswith("inferred")
    assert docs.loc["specs.html", "type"] == "spec-table"


def test_a_binary_upload_is_refused_and_the_kept_files_stay():
    at = upload(open_app(CORPUS), {"guide.md": GUIDE})
    at = upload(at, {"blob.md": b"\x00\x01\x02binary"})
    assert any("Not kept" in e.value and "binary" in e.value for e in at.error)
    assert list(at.session_state["yc_files"]) == ["guide.md"]
    at = click(at, "Clear the uploaded files")
    assert at.session_state["yc_files"] == {}


def test_the_support_collection_fills_in_and_loads_with_no_question_dropped():
    at = click(open_app(CORPUS), "Fill in the TechNova support collection")
    at = click(at, "Check and load")
    report = at.session_state["yc_report"]
    assert report.accepted == 31 and report.rejected == 0
    assert len(report.documents) == 7


def test_a_collection_of_several_types_opens_with_its_policy_among_the_chunkers():
    """Issue 21, item 8: on TechNova, by-type (its headline result) was not among the default
    chunkers. It is, from a link and when the sidebar switches to the collection; a choice the
    user made is kept."""
    at = open_app("app_pages/recall_tables.py", corpus="technova")
    assert at.session_state["settings"].chunkers[-1] == "by-type"
    assert "chunker=" not in at.query_params  # the collection's own default
    at = open_app("app_pages/recall_tables.py")
    assert "by-type" not in at.session_state["settings"].chunkers
    at.selectbox(key="corpus").select("technova").run()
    assert at.session_state["settings"].chunkers[-1] == "by-type"
    at.selectbox(key="corpus").select("handbook").run()
    assert "by-type" not in at.session_state["settings"].chunkers
    at.multiselect(key="chunker").set_value(["structure"]).run()
    at.selectbox(key="corpus").select("technova").run()
    assert at.session_state["settings"].chunkers == ("structure",)


def test_index_overview_shows_each_documents_outline_in_an_expander():
    at = on("app_pages/index_overview.py")
    labels = [e.label for e in at.expander]
    assert "firmware\\-changelog\\.md \\(markdown, 7 headings\\)" in labels
    assert "support\\-call\\.txt \\(text, 0 headings\\)" in labels
    outlines = [m.value for m in at.markdown]
    assert any("  - Version 3\\.1 \\(18 March 2025\\) `430`" in v for v in outlines)


def test_pdf_and_docx_uploads_load_and_an_unreadable_pdf_is_named():
    from pathlib import Path

    real = Path(__file__).resolve().parent / "data" / "real" / "formats"
    at = upload(
        open_app(CORPUS),
        {
            "spec.pdf": (real / "shared-mime-info-spec.pdf").read_bytes(),
            "zstd.docx": (real / "zstd-README.docx").read_bytes(),
            "cut.pdf": (real / "shared-mime-info-spec.pdf").read_bytes()[:4000],
        },
    )
    assert sorted(at.session_state["yc_files"]) == ["spec.pdf", "zstd.docx"]
    (refusal,) = at.session_state["yc_files_errors"]
    assert refusal.startswith("Document 'cut.pdf' is not a readable PDF")
    assert len(at.error) == 1
    at = click(at, "Check and load")
    report = at.session_state["yc_report"]
    assert report.refused is None and report.document["documents"] == 2
    docs = report.documents.set_index("document")
    assert list(docs.index) == ["spec.pdf", "zstd.docx"]
    assert list(docs["format"]) == ["pdf", "docx"]


def test_the_html_parser_is_a_sidebar_setting_of_a_corpus_with_html_only():
    at = on("app_pages/index_overview.py", parser="page")
    assert not at.exception, at.exception
    assert at.sidebar.radio(key="parser").value == "page"
    assert "parser=page" in at.sidebar.code[-1].value
    handbook = open_app("app_pages/index_overview.py", parser="page")
    assert not [r for r in handbook.sidebar.radio if r.key == "parser"]
    assert [w.value for w in handbook.warning] == [
        "Ignored **parser=page** from the link: expected main or page (how HTML is read), "
        "pypdf or layout (how PDF is read), one of each joined by a comma for a corpus with "
        "both, for a corpus with HTML or PDF documents. Using **main**."
    ]
    assert "parser" not in handbook.sidebar.code[-1].value


def test_a_parser_the_link_cannot_take_is_named_and_main_is_used():
    at = on("app_pages/index_overview.py", parser="browser")
    assert not at.exception, at.exception
    assert at.sidebar.radio(key="parser").value == "main"
    assert any("Ignored **parser=browser**" in w.value for w in at.warning)


def test_your_html_corpus_read_as_the_whole_page_has_the_navigations_question():
    from test_app_compare import open_on_spec

    main = open_on_spec("app_pages/question_drilldown.py")
    assert not main.exception, main.exception
    assert main.selectbox(key="question").options[0].startswith("body")
    page = open_on_spec("app_pages/question_drilldown.py")
    page.sidebar.radio(key="parser").set_value("page").run()
    assert not page.exception, page.exception
    assert page.selectbox(key="question").options[0].startswith("nav")
    assert "parser=page" in page.sidebar.code[-1].value


def test_the_pdf_parser_is_a_sidebar_setting_of_a_corpus_with_a_pdf():
    import base64
    from pathlib import Path

    pytest.importorskip("pdfminer", reason="parser=layout needs pdfminer.six (requirements.txt)")
    from ui.cache import USER, USER_CORPUS_KEY, USER_INPUTS_KEY
    from ui.store import Inputs
    from ui.uploads import BINARY_MARK, build

    pdf = (
        Path(__file__).resolve().parent / "data" / "real" / "formats" / "shared-mime-info-spec.pdf"
    )
    kept = BINARY_MARK + base64.b64encode(pdf.read_bytes()).decode("ascii")
    inputs = Inputs({"spec.pdf": kept}, None)
    at = open_app("app_pages/index_overview.py")
    at.session_state[USER_CORPUS_KEY] = build(inputs)
    at.session_state[USER_INPUTS_KEY] = inputs
    at.run()
    at.selectbox(key="corpus").select(USER).run()
    radio = at.sidebar.radio(key="parser")
    assert radio.label == "PDF parser" and radio.options == ["pypdf", "layout"]
    assert radio.value == "pypdf"
    pypdf_text = at.session_state[USER_CORPUS_KEY].documents[0].text
    radio.set_value("layout").run()
    assert not at.exception, at.exception
    assert "parser=layout" in at.sidebar.code[-1].value
    from ui import cache

    with_layout = build(inputs, "layout").documents[0].text
    assert with_layout != pypdf_text
    assert cache.readings(build(inputs)) == ["pypdf", "layout"]
