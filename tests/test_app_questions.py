"""The Questions page walked as a first-time user would: a pasted blog post and an uploaded one,
no questions; five questions written by finding their evidence and clicking it, one across the
two documents; saved as a new corpus; every page runs on it; its link reopens it."""

from pathlib import Path

import pytest
from app_support import ALL_PAGES, ENTRY, TIMEOUT, open_app
from streamlit.testing.v1 import AppTest

from ui.draw import md_escape

pytestmark = pytest.mark.app

POSTS = Path(__file__).resolve().parent / "data" / "real" / "question_sets" / "ragas_lets_talk"
PASTED = "introduction-to-ragas"
UPLOADED = "metric-driven-development.md"
QUESTIONS = [  # (question, [(document index or None for all, search, how many hits to click)])
    ("What does Faithfulness measure in Ragas?", [(0, "Faithfulness measures", 1)]),
    ("Which LLM frameworks does Ragas work with?", [(0, '"popular LLM frameworks"', 1)]),
    ("Why is evaluating an LLM application needed?", [(0, "hallucinate facts", 1)]),
    ("What is Metric-Driven Development?", [(1, '"simple but effective framework"', 1)]),
    (
        "How do the two posts describe the Answer Relevancy metric?",
        [(0, "Answer Relevancy", 1), (1, "Answer Relevancy", 1)],
    ),
]


def button(at, label: str):
    return next(b for b in at.button if b.label == label)


def load_the_posts() -> AppTest:
    at = open_app("app_pages/your_corpus.py")
    at.text_input(key="yc_name__widget").input(PASTED)
    at.text_area(key="yc_document__widget").input(
        (POSTS / f"{PASTED}.md").read_text(encoding="utf-8")
    )
    at.session_state["yc_files"] = {UPLOADED: (POSTS / UPLOADED).read_text(encoding="utf-8")}
    at.run()
    button(at, "Check and load").click().run()
    assert not at.exception
    assert at.session_state["corpus"] == "your corpus"
    return at


def write(at: AppTest, question: str, marks: list) -> None:
    at.text_input(key="qp_text").input(question).run()
    for doc, query, clicks in marks:
        at.selectbox(key="qp_doc").select(["All documents", PASTED, UPLOADED][doc + 1]).run()
        at.text_input(key="qp_query").input(query).run()
        boxes = [c for c in at.checkbox if c.key.startswith("qp_unit_")]
        assert boxes, f"no unit holds {query!r}"
        for box in boxes[:clicks]:
            box.check().run()
    assert not at.exception
    assert len(at.session_state["qp_evidence"]) == sum(c for _, _, c in marks)
    button(at, "Add question").click().run()
    assert not at.exception
    assert any(s.value.startswith("Added") for s in at.success), [e.value for e in at.error]
    assert at.text_input(key="qp_text").value == ""  # the editor is ready for the next one


def test_five_questions_written_in_the_app_run_everywhere_and_their_link_reopens_them():
    at = load_the_posts()
    at.switch_page("app_pages/questions.py").run()
    assert not at.exception
    assert at.subheader[0].value == "0 questions"
    assert any("No questions yet" in i.value for i in at.info)
    for question, marks in QUESTIONS:
        write(at, question, marks)
    assert at.subheader[0].value == "5 questions"
    table = at.dataframe[0].value
    assert list(table["id"]) == ["q01", "q02", "q03", "q04", "q05"]
    assert list(table["documents"])[-1] == f"{PASTED}, {UPLOADED}"

    button(at, "Save as a new corpus").click().run()
    assert not at.exception
    assert any(s.value.startswith("Saved as a new corpus") for s in at.success)
    given = at.query_params["corpus_id"]
    corpus_id = given if isinstance(given, str) else given[-1]
    assert len(corpus_id) == 32
    for page in (*ALL_PAGES, "app_pages/questions.py"):
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])

    again = AppTest.from_file(ENTRY, default_timeout=TIMEOUT)
    again.query_params.update({"corpus": "your corpus", "corpus_id": corpus_id})
    again.switch_page("app_pages/questions.py")
    again.run()
    assert not again.exception
    assert again.session_state["corpus"] == "your corpus"
    assert again.subheader[0].value == "5 questions"
    assert [q for q in again.dataframe[0].value["question"]] == [q for q, _ in QUESTIONS]


def test_evidence_pasted_with_look_alikes_is_found_with_the_loaders_warning():
    at = open_app("app_pages/questions.py")
    at.text_area(key="qp_paste").input(
        "Flash photography is banned everywhere in the red\u2013light zone"
    ).run()
    button(at, "Add as evidence").click().run()
    assert not at.exception
    assert [e["text"][:40] for e in at.session_state["qp_evidence"]] == [
        "Flash photography is banned everywhere i"
    ]
    assert any("with a warning" in w.value and "dashes" in w.value for w in at.warning)


def test_evidence_that_is_not_in_the_documents_says_so_and_keeps_the_text():
    at = open_app("app_pages/questions.py")
    at.text_area(key="qp_paste").input("The gift shop sells star maps.").run()
    button(at, "Add as evidence").click().run()
    assert any("evidence not found" in e.value for e in at.error)
    assert at.text_area(key="qp_paste").value == "The gift shop sells star maps."
    assert not at.session_state["qp_evidence"]


def test_delete_reorder_and_undo_change_the_draft_not_the_bundled_corpus():
    at = open_app("app_pages/questions.py")
    assert at.subheader[0].value == "25 questions"
    button(at, "Delete").click().run()
    assert at.subheader[0].value == "24 questions"
    button(at, "Down").click().run()
    assert list(at.dataframe[0].value["id"])[:2] == ["q03", "q02"]
    button(at, "Undo").click().run()
    button(at, "Undo").click().run()
    assert at.subheader[0].value == "25 questions"
    assert at.session_state["corpus"] == "handbook"


def test_units_to_click_read_as_rendered_text_not_markdown():
    at = load_the_posts()
    at.switch_page("app_pages/questions.py").run()
    at.text_input(key="qp_query").input('"Measures if the response"').run()
    (unit,) = [c for c in at.checkbox if c.key.startswith("qp_unit_")]
    assert unit.label == md_escape(
        "Faithfulness: Measures if the response is factually consistent with the retrieved context"
    )
    groups = [m.value for m in at.markdown if m.value.startswith("**")]
    assert (
        f"**{md_escape(PASTED)} › {md_escape('Key Features of Ragas › 🎯 Specialized Metrics')}**"
        in groups
    )
    unit.check().run()
    (marked,) = [m.value for m in at.markdown if m.value.startswith("1. ")]
    assert "\\*\\*" not in marked and "Faithfulness: Measures if" in marked.replace("\\", "")
    evidence = at.session_state["qp_evidence"]
    assert evidence[0]["text"].startswith("- **Faithfulness**: Measures")  # marked as written


def test_chromas_archive_uploaded_on_your_corpus_gives_its_472_questions_to_edit():
    archive = POSTS.parent / "chroma_general_evaluation.tar.xz"
    at = open_app("app_pages/your_corpus.py")
    at.file_uploader(key="yc_import_upload").upload(archive.name, archive.read_bytes())
    at.run()
    assert not at.exception
    (read,) = [s.value.replace("\\", "") for s in at.success]
    assert read.startswith("Read as Chroma's chunking_evaluation (questions_df.csv and the")
    assert "472 question(s) over 5 document(s)" in read
    button(at, "Check and load").click().run()
    assert not at.exception
    assert len(at.session_state["user_corpus"].questions) == 472
    at.switch_page("app_pages/questions.py").run()
    assert not at.exception
    assert at.subheader[0].value == "472 questions"
