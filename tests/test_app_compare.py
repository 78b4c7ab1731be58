"""AppTest of the Compare page: A from the sidebar, B's settings in the URL, the verdict, the
per-question table with drill-down links, bad links and bad pairs."""

import pytest
from app_support import open_app, tiny_cross_encoder

from lab import build_corpus, embed
from ui import compare
from ui.cache import USER, USER_CORPUS_KEY

pytestmark = pytest.mark.app  # AppTest runs: `pytest -m "not app and not browser"` skips them

PAGE = "pages/compare.py"
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
        "fixed",
        "flat",
    )
    assert (app.selectbox(key="b_chunker").value, app.selectbox(key="b_mode").value) == (
        "fixed",
        "graph",
    )
    assert "B changes: mode (flat → graph)" in markdown(app)
    assert "b_mode" not in share_link(app)  # B's starting point is not a change


def test_structure_flat_against_graph_names_the_fixed_questions():
    app = open_app(PAGE, a_chunker="structure", chunker=["structure", "qes-dp"])
    assert not app.exception
    assert (
        "B fixes 2 questions and breaks none. With 13 questions this difference is not "
        "significant (p = 0.50)."
    ) in markdown(app)
    rows = question_rows(app)
    assert list(rows["id"][:2]) == ["q07", "q14"]  # changed questions first
    assert list(rows["transition"][:2]) == ["fixed", "fixed"]
    assert rows["question"].iloc[0] == "Is flash photography allowed on the dome floor?"
    assert set(rows["transition"][2:]) == {"same"}
    metrics = {m.label: m.value for m in app.metric}
    assert (metrics["Complete recall, A"], metrics["Complete recall, B"]) == ("15%", "31%")
    assert (metrics["Fixed by B"], metrics["Broken by B"]) == ("2", "0")


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


def test_b_equal_to_a_asks_for_a_change():
    app = open_app(PAGE, b_mode="flat")
    assert not app.exception
    assert any("B is the same as A" in i.value for i in app.info)
    assert not app.metric


def test_garbage_b_values_in_the_link_fall_back_with_a_notice():
    app = open_app(PAGE, b_size="abc", b_chunker="nope", b_headers="maybe")
    assert not app.exception
    warnings = " ".join(w.value for w in app.warning)
    for bad in ("b_size=abc", "b_chunker=nope", "b_headers=maybe"):
        assert bad in warnings
    assert app.number_input(key="b_size").value == 450
    assert app.metric  # the comparison still runs on the defaults


def test_a_split_without_questions_says_so():
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
    app = open_app(PAGE)
    app.session_state[USER_CORPUS_KEY] = corpus
    app.run()
    app.selectbox(key="corpus").select(USER).run()
    app.radio(key="split").set_value("train").run()
    assert not app.exception
    assert any("no train questions" in i.value for i in app.info)


def test_compare_offers_csv_and_json_exports():
    app = open_app(PAGE, a_chunker="structure", chunker=["structure", "qes-dp"])
    labels = [b.proto.label for b in app.get("download_button")]
    assert labels == ["Per question (CSV)", "Comparison (JSON)"]


def test_question_table_puts_broken_before_fixed(handbook):
    from lab import LabConfig, configure
    from lab import compare as run_compare

    a = LabConfig(chunkers=("qes-greedy",), modes=("graph",))
    c = run_compare(handbook, a, configure(a, "chunker=structure"))
    table = compare.question_table(c, *_two_settings(c))
    assert list(table["transition"][:4]) == ["broken", "broken", "broken", "fixed"]


def _two_settings(c):
    from dataclasses import replace

    from ui.state import Settings

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
