"""AppTest of the Compare page: A from the sidebar, B's settings in the URL, the verdict, the
per-question table with drill-down links, bad links and bad pairs."""

import base64
import json
from pathlib import Path

import pytest
from app_support import open_app, tiny_cross_encoder

from lab import CHUNKERS, LabConfig, build_corpus, chunker_status, embed, run_lab
from ui import compare
from ui.cache import USER, USER_CORPUS_KEY, USER_INPUTS_KEY, handbook
from ui.store import Inputs
from ui.uploads import build

pytestmark = pytest.mark.app  # AppTest runs: `pytest -m "not app and not browser"` skips them

PAGE = "app_pages/compare.py"
DENSE_OK, DENSE_STATUS = embed.dense_status()


def share_link(app) -> str:
    return app.sidebar.code[-1].value


def markdown(app) -> str:
    """The page's markdown with the escaping of user-visible text undone."""
    return "\n".join(m.value for m in app.markdown).replace("\\", "")


def question_rows(app):
    return next(d.value for d in app.dataframe if "drill-down A" in d.value.columns)


def test_b_starts_as_a_with_the_retrieval_mode_switched():
    app = open_app(PAGE)
    assert not app.exception
    assert app.title[0].value == "Compare"
    assert (app.selectbox(key="a_chunker").value, app.selectbox(key="a_mode").value) == (
        "structure",  # the chunker whose modes disagree (issue 21, item 8)
        "flat",
    )
    assert (app.selectbox(key="b_chunker").value, app.selectbox(key="b_mode").value) == (
        "structure",
        "graph",
    )
    assert "B changes: mode (flat → graph)" in markdown(app)
    assert "b_mode" not in share_link(app)  # B's starting point is not a change


def test_structure_flat_against_graph_names_the_fixed_question():
    # On the handbook graph mode lifts the red-light zone definition into q07's context (fixed)
    # and pushes it out of q08's (partial to miss: a partial transition only).
    app = open_app(PAGE, a_chunker="structure", chunker=["structure", "qes-dp"])
    assert not app.exception
    assert (
        "B fixes 1 question and breaks none: +8 points (95% interval -7 to +8). With 13 "
        "questions this difference is not significant (exact McNemar test, p = 1.00)"
    ) in markdown(app)
    rows = question_rows(app)
    assert rows["id"].iloc[0] == "q07"  # the changed question first
    assert rows["transition"].iloc[0] == "fixed"
    assert rows["question"].iloc[0] == "Is flash photography allowed on the dome floor?"
    assert set(rows["transition"][1:]) == {"same"}
    q08 = rows.set_index("id").loc["q08"]
    assert (q08["A"], q08["B"], q08["transition"], q08["partial"]) == (
        "partial",
        "miss",
        "same",
        "broken",
    )
    metrics = {m.label: m.value for m in app.metric}
    assert (metrics["Complete recall, A"], metrics["Complete recall, B"]) == ("69%", "77%")
    assert (metrics["Fixed by B"], metrics["Broken by B"]) == ("1", "0")
    assert any("references delivered" in c.value for c in app.caption)  # A's placement


def test_every_question_links_to_its_drill_down_under_a_and_under_b():
    app = open_app(PAGE, a_chunker="structure", chunker=["structure", "qes-dp"])
    row = question_rows(app).set_index("id").loc["q07"]
    assert row["drill-down A"] == ("question_drilldown?chunker=structure&mode=flat&question=q07")
    assert row["drill-down B"] == ("question_drilldown?chunker=structure&mode=graph&question=q07")


def test_bs_settings_in_the_link_reproduce_the_comparison():
    query = {"chunker": "qes-greedy", "mode": "graph", "b_chunker": "structure", "b_budget": "200"}
    app = open_app(PAGE, **query)
    assert not app.exception
    assert (app.selectbox(key="b_chunker").value, app.number_input(key="b_budget").value) == (
        "structure",
        200,
    )
    assert app.selectbox(key="b_mode").value == "flat"  # A is graph: B starts on flat
    link = share_link(app)
    assert "b_chunker=structure" in link and "b_budget=200" in link
    assert "B changes: chunker (qes-greedy → structure); mode (graph → flat); budget" in (
        markdown(app)
    )
    warnings = [w.value.replace("\\", "") for w in app.warning]
    assert any("differ in 3 settings (chunker, mode, budget)" in w for w in warnings)


def test_b_follows_a_where_it_was_not_changed():
    app = open_app(PAGE)
    app.number_input(key="b_budget").set_value(200).run()
    app.number_input(key="size").set_value(600).run()
    app.slider(key="budget").set_value(80).run()
    assert not app.exception
    assert app.number_input(key="b_size").value == 600  # followed the sidebar
    assert app.number_input(key="b_budget").value == 200  # B's own change stays
    app.segmented_control(key="mode").set_value(["graph"]).run()
    assert app.selectbox(key="b_mode").value == "flat"  # still the other mode
    app.radio(key="refs").set_value("index-only").run()
    assert app.selectbox(key="b_refs").value == "index-only"
    assert not app.exception


def test_b_changes_the_reference_placement_from_the_link():
    # structure · graph with references off: q07, q11 and q15 lose the passage the references
    # brought into their context (as in the CLI's test)
    query = {"chunker": "structure", "a_mode": "graph", "b_mode": "graph", "b_refs": "off"}
    app = open_app(PAGE, **query)
    assert not app.exception
    assert app.selectbox(key="b_refs").value == "off"
    assert "B changes: refs (delivered → off)" in markdown(app)
    assert not any("differ in" in w.value for w in app.warning)  # one setting changed
    assert "B fixes 0 questions and breaks 3:" in markdown(app)
    broken = question_rows(app).query("transition == 'broken'")
    assert list(broken["id"]) == ["q07", "q11", "q15"]
    link = share_link(app)
    assert "b_refs=off" in link and "b_mode=graph" in link


@pytest.mark.parametrize(("old", "refs"), [("false", "off"), ("true", "delivered")])
def test_an_old_link_with_b_resolve_refs_opens_with_the_matching_b_refs(old, refs):
    # links from before b_refs carried B's on/off switch; A here is the old resolve_refs=false
    query = {"resolve_refs": "false", "chunker": "structure", "b_resolve_refs": old}
    app = open_app(PAGE, **query)
    assert not app.exception
    assert app.radio(key="refs").value == "off"
    assert app.selectbox(key="b_refs").value == refs
    link = share_link(app)
    assert "resolve_refs" not in link
    assert ("b_refs=delivered" in link) is (refs == "delivered")
    assert not any("b_resolve_refs" in w.value for w in app.warning)


def test_an_old_link_with_a_bad_b_resolve_refs_falls_back_with_a_notice():
    app = open_app(PAGE, b_resolve_refs="maybe")
    assert not app.exception
    notice = next(w.value for w in app.warning if "b_resolve_refs" in w.value)
    assert "b_resolve_refs=maybe" in notice.replace("\\", "")
    assert "b_refs" in notice and "Using **delivered**" in notice
    assert app.selectbox(key="b_refs").value == "delivered"


def test_b_equal_to_a_asks_for_a_change():
    app = open_app(PAGE, b_mode="flat")
    assert not app.exception
    assert any("B is the same as A" in i.value for i in app.info)
    assert not app.metric


def test_garbage_b_values_in_the_link_fall_back_with_a_notice():
    app = open_app(PAGE, b_size="abc", b_chunker="nope", b_headers="maybe", b_refs="sometimes")
    assert not app.exception
    warnings = " ".join(w.value for w in app.warning)
    for bad in ("b_size=abc", "b_chunker=nope", "b_headers=maybe", "b_refs=sometimes"):
        assert bad in warnings
    assert app.number_input(key="b_size").value == 450
    assert app.selectbox(key="b_refs").value == "delivered"
    assert app.metric  # the comparison still runs on the defaults


def test_a_bad_b_chunker_or_mode_is_named_with_the_one_value_b_takes():
    app = open_app(PAGE, b_chunker="nope", b_mode="zigzag")
    notices = [w.value for w in app.warning]
    adapters = [c for c, s in CHUNKERS.items() if s.kind == "adapter" and chunker_status(c)[0]]
    dense = ["semantic", *(c for c in adapters if CHUNKERS[c].dense)]
    need = "needs" if len(dense) == 1 else "need"
    assert notices == [
        "Ignored **b_chunker=nope** from the link: expected one of fixed, sentence, structure, "
        "qes-dp, qes-greedy, qes-retrieval, recursive, parent-child, table-rows, by-type"
        + "".join(f", {c}" for c in adapters if not CHUNKERS[c].dense)
        + f" ({', '.join(dense)} {need} dense=true). Using **structure**.",
        "Ignored **b_mode=zigzag** from the link: expected one of flat, graph (dense and hybrid "
        "need dense=true). Using **graph**.",
    ]


def open_on_cats(**query):
    """The page on a one-question corpus of the session, with no train questions."""
    corpus = build_corpus(
        {"notes": "# Notes\n\n## 1 Rules\n\n### 1.1 Cats\n\nCats may sleep on the sofa.\n"},
        [
            {
                "id": "c1",
                "question": "Where may cats sleep?",
                "evidence": ["Cats may sleep on the sofa."],
            }
        ],
    )
    app = open_app(PAGE, **query)
    app.session_state[USER_CORPUS_KEY] = corpus
    app.run()
    app.selectbox(key="corpus").select(USER).run()
    return app


def test_a_split_without_questions_says_so():
    app = open_on_cats()
    app.radio(key="split").set_value("train").run()
    assert not app.exception
    assert any("no train questions" in i.value for i in app.info)


def test_an_untrained_chunker_on_either_side_is_noted():
    app = open_on_cats(chunker="structure", b_chunker="qes-dp", b_mode="flat")
    assert not app.exception
    assert app.selectbox(key="b_chunker").value == "qes-dp"
    assert any("qes-dp" in w.value and "untrained" in w.value for w in app.warning)


def test_compare_offers_csv_and_json_exports():
    app = open_app(PAGE, a_chunker="structure", chunker=["structure", "qes-dp"])
    labels = [b.proto.label for b in app.get("download_button")]
    assert labels == ["Per question (CSV)", "Comparison (JSON)"]


def test_question_table_puts_broken_before_fixed(handbook):
    from lab import LabConfig, configure
    from lab import compare as run_compare

    # qes-greedy -> fixed windows breaks q12, q21, q23 and fixes q15 (see test_compare)
    a = LabConfig(chunkers=("qes-greedy",), modes=("flat",))
    c = run_compare(handbook, a, configure(a, "chunker=fixed"))
    table = compare.question_table(c, *_two_settings(c))
    assert list(table["transition"][:4]) == ["broken", "broken", "broken", "fixed"]
    assert list(table["id"][:4]) == ["q12", "q21", "q23", "q15"]
    assert set(table["transition"][4:]) == {"same"}


def _two_settings(c):
    from dataclasses import replace

    from ui.settings import Settings

    a = replace(Settings(), chunkers=c.a.chunkers, modes=c.a.modes)
    return a, replace(a, chunkers=c.b.chunkers)


@pytest.mark.skipif(not DENSE_OK, reason=f"dense retrieval unavailable: {DENSE_STATUS}")
def test_b_can_switch_dense_retrieval_on():
    app = open_app(
        PAGE, a_chunker="structure", chunker="structure", b_dense="true", b_mode="hybrid"
    )
    assert not app.exception
    assert app.selectbox(key="b_mode").value == "hybrid"
    assert "B changes: mode (flat → hybrid); dense (off → all-MiniLM-L6-v2)" in (markdown(app))


@pytest.mark.parametrize(
    ("query", "key", "expected"),
    [
        ({"b_size": "inf"}, "b_size", 4000),
        ({"b_budget": "1e309"}, "b_budget", 1000),
        ({"b_size": ["300", "600"]}, "b_size", 600),
    ],
)
def test_bs_numbers_from_a_link_follow_the_links_rules(query, key, expected):
    app = open_app(PAGE, **query)
    assert not app.exception
    assert app.number_input(key=key).value == expected
    assert any(key in w.value for w in app.warning)


@pytest.mark.skipif(not DENSE_OK, reason=f"dense retrieval unavailable: {DENSE_STATUS}")
def test_b_alone_reranks_with_a_cross_encoder_the_models_directory_holds(tmp_path, monkeypatch):
    tiny_cross_encoder(tmp_path / "cross-encoder" / "ms-marco-MiniLM-L6-v2")
    monkeypatch.setenv("CHUNKING_LAB_MODELS", str(tmp_path))
    app = open_app(PAGE, a_chunker="structure", chunker="structure", dense="true", b_rerank="true")
    assert not app.exception
    assert not any("not reranked" in w.value for w in app.warning)
    assert "rerank (off → cross-encoder/ms-marco-MiniLM-L6-v2" in markdown(app)


# The support collection's own dimensions: metadata filters, and the policy against one chunker --

TECHNOVA = {"corpus": "technova", "chunker": ["structure", "by-type"], "b_mode": "flat"}


def test_filters_on_against_off_on_the_support_collection():
    app = open_app(PAGE, **TECHNOVA, a_chunker="by-type", b_filters="false")
    assert not app.exception, app.exception
    assert app.toggle(key="b_filters").value is False
    assert "B changes: filters (on → off)" in markdown(app)
    assert (
        "B fixes 1 question and breaks 1: 0 points (95% interval -10 to +10). With 20 questions "
        "this difference is not significant (exact McNemar test, p = 1.00)"
    ) in markdown(app)
    rows = question_rows(app).set_index("id")
    assert rows.loc["t29", "transition"] == "broken"  # its WH-500 filter picked the right manual
    assert rows.loc["t14", "transition"] == "fixed"  # its WH-1000 filter removed the spec table
    assert list(question_rows(app)["id"][:2]) == ["t29", "t14"]  # broken first, then fixed
    assert "filters=false" in rows.loc["t14", "drill-down B"]
    assert "filters" not in rows.loc["t14", "drill-down A"]
    assert "b_filters=false" in share_link(app)


def test_the_policy_against_structure_on_the_support_collection():
    app = open_app(PAGE, **TECHNOVA, a_chunker="structure", b_chunker="by-type")
    assert not app.exception, app.exception
    assert "B changes: chunker (structure → by-type)" in markdown(app)
    assert "B fixes 3 questions and breaks none:" in markdown(app)
    rows = question_rows(app)
    assert list(rows["id"][:3]) == ["t11", "t13", "t16"]  # the spec-table questions
    assert set(rows["transition"][:3]) == {"fixed"} and set(rows["transition"][3:]) == {"same"}
    metrics = {m.label: m.value for m in app.metric}
    assert (metrics["Complete recall, A"], metrics["Complete recall, B"]) == ("45%", "60%")


def test_a_sidebar_with_filters_off_compares_against_filters_on():
    app = open_app(PAGE, **TECHNOVA, a_chunker="by-type", filters="false", b_filters="true")
    assert not app.exception, app.exception
    assert app.toggle(key="filters").value is False
    assert "B changes: filters (off → on)" in markdown(app)
    rows = question_rows(app).set_index("id")
    assert (rows.loc["t14", "transition"], rows.loc["t29", "transition"]) == ("broken", "fixed")


def test_a_filters_value_that_is_no_flag_is_named_and_ignored():
    app = open_app(PAGE, corpus="technova", filters="nope", b_filters="maybe")
    assert not app.exception, app.exception
    assert [w.value for w in app.warning] == [
        "Ignored **filters=nope** from the link: expected true or false. Using **true**.",
        "Ignored **b_filters=maybe** from the link: expected true or false. Using **true**.",
    ]
    assert "filters" not in share_link(app)


def test_compare_opens_on_the_chunker_whose_modes_disagree():
    """Issue 21, item 8: Compare opened on fixed · flat against fixed · graph, which agree on
    every question; it opens on the chunker whose flat and graph verdicts differ most."""
    app = open_app(PAGE)
    assert not app.exception
    assert app.selectbox(key="a_chunker").value == "structure"
    assert "B fixes 1 question and breaks none:" in markdown(app)
    assert "a_chunker" not in share_link(app)  # the page's own starting point: not a change
    chosen = open_app(PAGE, a_chunker="fixed")  # a link's choice wins
    assert chosen.selectbox(key="a_chunker").value == "fixed"
    assert compare.telling_chunker(run_lab(handbook(), LabConfig())) == "structure"


SPEC = (
    Path(__file__).resolve().parent / "data" / "real" / "formats" / "shared-mime-info-spec-ch2.html"
)
SPEC_QE = json.dumps(
    {
        "questions": [
            {"id": "nav", "question": "Where next?", "evidence": ["Prev | Home | Next"]},
            {
                "id": "body",
                "question": "What was clear about the differences between the databases?",
                "evidence": ["the differences between the databases were simply a result"],
            },
            {
                "id": "override",
                "question": "How should a distribution add MIME entries for other software?",
                "evidence": ["by means of the Override.xml mentioned in Section 2.1"],
            },
        ]
    }
)


def open_on_spec(page=PAGE, **query):
    """The app on a user corpus of a real DocBook HTML chapter (navigation header and footer)."""
    inputs = Inputs({"spec.html": SPEC.read_text(encoding="utf-8")}, SPEC_QE)
    app = open_app(page, **query)
    app.session_state[USER_CORPUS_KEY] = build(inputs)
    app.session_state[USER_INPUTS_KEY] = inputs
    app.run()
    app.selectbox(key="corpus").select(USER).run()
    return app


def test_b_reads_the_html_with_the_other_parser_and_questions_match_by_id():
    app = open_on_spec(b_parser="page")
    assert not app.exception, app.exception
    assert app.radio(key="parser").value == "main"
    assert app.selectbox(key="b_parser").value == "page"
    assert "B changes: parser (main → page)" in markdown(app)
    rows = question_rows(app)
    assert sorted(rows["id"]) == ["body", "override"]  # nav only exists in the whole page
    infos = " ".join(i.value for i in app.info).replace("\\", "")
    assert "left out: 1 only B (nav)" in infos
    assert "b_parser=page" in share_link(app)
    assert all("parser=page" in link for link in rows["drill-down B"])
    assert not any("parser=" in link for link in rows["drill-down A"])


def test_bs_parser_is_offered_only_for_a_corpus_with_html():
    app = open_app(PAGE)
    assert not [s for s in app.selectbox if s.key == "b_parser"]
    assert not [r for r in app.sidebar.radio if r.key == "parser"]


def test_a_and_b_on_technovas_html_read_alike_say_so():
    # TechNova's HTML page has no navigation: both parsers read the same text.
    app = open_app(PAGE, corpus="technova", b_parser="page", b_mode="flat")
    assert not app.exception, app.exception
    assert "read these documents alike" in " ".join(i.value for i in app.info)


PDF = SPEC.parent / "shared-mime-info-spec.pdf"
PDF_QE = json.dumps(
    {
        "questions": [
            {
                "id": "prefs",
                "question": "Is the MIME database for user preferences?",
                "evidence": ["The MIME database is NOT intended to store user preferences."],
            },
            {
                "id": "version",
                "question": "Which version of the specification is this?",
                "evidence": ["This is version 0.21 of the Shared MIME-info Database"],
            },
        ]
    }
)


def open_on_pdf_and_html(page=PAGE, **query):
    """The app on a user corpus of the real PDF specification and an HTML chapter of it."""
    pytest.importorskip("pdfminer", reason="parser=layout needs pdfminer.six (requirements.txt)")
    from ui.uploads import BINARY_MARK

    pdf = BINARY_MARK + base64.b64encode(PDF.read_bytes()).decode("ascii")
    inputs = Inputs({"spec.pdf": pdf, "spec.html": SPEC.read_text(encoding="utf-8")}, PDF_QE)
    app = open_app(page, **query)
    app.session_state[USER_CORPUS_KEY] = build(inputs)
    app.session_state[USER_INPUTS_KEY] = inputs
    app.run()
    app.selectbox(key="corpus").select(USER).run()
    return app


def test_b_reads_the_pdf_with_pdfminers_layout_parser():
    app = open_on_pdf_and_html(b_parser="main,layout", b_mode="bm25")
    assert not app.exception, app.exception
    assert app.radio(key="parser").options == [
        "main,pypdf",
        "main,layout",
        "page,pypdf",
        "page,layout",
    ]
    assert app.radio(key="parser").value == "main,pypdf"
    chooser = app.selectbox(key="b_parser")
    assert chooser.value == "main,layout" and chooser.label == "Parser (HTML, PDF)"
    assert "B changes: parser (main,pypdf → main,layout)" in markdown(app)
    assert sorted(question_rows(app)["id"]) == ["prefs", "version"]
    assert "b_parser=main%2Clayout" in share_link(app) or "b_parser=main,layout" in share_link(app)
