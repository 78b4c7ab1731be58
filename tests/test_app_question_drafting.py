"""The Questions page's "Draft with an LLM" against a real chat-completions server process on
127.0.0.1 (tests/llm_server.py), configured on the server only (``CHUNKING_LAB_LLM_URL``):
drafted questions arrive for review and join the draft only when accepted (or edited and
added); invented evidence and repeats are dropped with the reason; a server error and broken
JSON each say so and lose nothing; a link can neither turn drafting on nor point it elsewhere."""

import importlib.util

import pytest
from app_support import open_app
from llm_server import answer, requests_of

pytestmark = [
    pytest.mark.app,
    pytest.mark.skipif(
        importlib.util.find_spec("httpx") is None, reason="needs requirements-llm.txt (httpx)"
    ),
]

FLASH = (
    "Flash photography is banned everywhere in the red-light zone because a single flash "
    "ruins the night vision of everyone nearby."
)
ZONE = (
    "The red-light zone covers the dome floor, the observing terrace and the covered walkway "
    "that joins them."
)
GROUP = "A tour group may not exceed 12 people, the guide included."
ONE_GROUP = "Only one group may be on the dome floor at a time."
CHILDREN = (
    "Children under 10 must stay within arm's reach of an accompanying adult whenever they are "
    "inside the red-light zone described in Section 1.3."
)
GROUNDED = {"question": "Can I use a flash on the observing terrace?", "evidence": [FLASH, ZONE]}
TOUR = {
    "question": "How many tour groups of what size fit the dome floor?",
    "evidence": [GROUP, ONE_GROUP],
}
KIDS = {"question": "Where must my 7-year-old stay close to me?", "evidence": [CHILDREN, ZONE]}
INVENTED = {
    "question": "Is there a gift shop on the terrace?",
    "evidence": ["The gift shop on the terrace sells red torches and star maps."],
}
REPEAT = {"question": "Can I use a flash on the observing terrace at night?", "evidence": [FLASH]}
BROKEN = {"content": '{"questions": [{"question": "What is banned?", "evidence": ["Flash'}


def plain(value: str) -> str:
    """Markdown as it reads: without the escaping backslashes."""
    return value.replace("\\", "")


def button(at, label: str):
    return next(b for b in at.button if b.label == label)


@pytest.fixture
def configured(monkeypatch, llm_server):
    """The server's LLM setting pointing at a canned server started with ``script``."""

    def start(script: list[dict]):
        url, log, _ = llm_server(script)
        monkeypatch.setenv("CHUNKING_LAB_LLM_URL", url)
        monkeypatch.setenv("CHUNKING_LAB_LLM_MODEL", "tiny-test")
        monkeypatch.setenv("CHUNKING_LAB_LLM_API_KEY_ENV", "LAB_TEST_KEY")
        monkeypatch.setenv("LAB_TEST_KEY", "sekrit-key")
        return log

    return start


def draft(at, count: int):
    at.number_input(key="qp_llm_count").set_value(count).run()
    button(at, "Draft questions").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(at) -> str:
    """Every text the page shows, as it reads."""
    parts = [m.value for m in (*at.markdown, *at.caption, *at.error, *at.success, *at.info)]
    return plain("\n".join(parts))


def test_drafted_questions_wait_for_review_and_join_only_when_accepted(configured):
    log = configured([answer(GROUNDED, INVENTED, REPEAT, fence=True), answer(TOUR, KIDS)])
    at = open_app("app_pages/questions.py")
    (panel,) = [e for e in at.expander if e.label.startswith("Draft with an LLM")]
    assert plain(panel.label) == "Draft with an LLM (tiny-test)"
    draft(at, 3)
    (status,) = at.status
    assert status.label == "3 grounded question(s) to review"
    text = shown(at)
    assert "Dropped Is there a gift shop on the terrace?: evidence not found" in text
    assert "Dropped Can I use a flash on the observing terrace at night?: repeats gen-001" in text
    for q in (GROUNDED, TOUR, KIDS):
        assert f"**{q['question']}**" in text
    assert at.subheader[0].value == "25 questions"  # nothing joined the corpus yet
    assert at.session_state["corpus"] == "handbook"

    at.button(key="qp_accept_0").click().run()
    assert at.subheader[0].value == "26 questions"
    accepted = at.dataframe[0].value.iloc[-1]
    assert (accepted["id"], accepted["question"]) == ("q26", GROUNDED["question"])
    draft_items = next(iter(at.session_state["qp_drafts"].values())).items
    assert {k: draft_items[-1][k] for k in ("source", "model")} == {
        "source": "generated",
        "model": "tiny-test",
    }
    assert [e["text"] for e in draft_items[-1]["evidence"]] == [FLASH, ZONE]

    at.button(key="qp_reject_0").click().run()  # TOUR
    assert at.subheader[0].value == "26 questions"
    assert TOUR["question"] not in shown(at)

    at.button(key="qp_edit_0").click().run()  # KIDS, into the editor
    assert at.text_input(key="qp_text").value == KIDS["question"]
    evidence = at.session_state["qp_evidence"]
    assert [e["text"] for e in evidence] == [CHILDREN, ZONE]
    assert all(isinstance(e["start"], int) for e in evidence)  # pinned: its units show marked
    at.text_input(key="qp_query").input('"arm\'s reach"').run()
    (unit,) = [c for c in at.checkbox if c.key.startswith("qp_unit_")]
    assert unit.value  # the drafted evidence is the unit, marked
    at.text_input(key="qp_text").input("Where must a child under 10 stay close to me?").run()
    button(at, "Add question").click().run()
    assert at.subheader[0].value == "27 questions"
    assert not any(b.key and b.key.startswith("qp_accept_") for b in at.button)

    sent = requests_of(log)
    assert len(sent) == 2
    assert {r["model"] for r in sent} == {"tiny-test"}
    assert {r["authorization"] for r in sent} == {"Bearer sekrit-key"}
    assert "sekrit-key" not in shown(at)


def test_a_server_error_is_one_message_and_loses_nothing(configured):
    failing = {"status": 500, "headers": {"Retry-After": "0"}, "body": '{"error": "overloaded"}'}
    log = configured([failing])
    at = open_app("app_pages/questions.py")
    at.text_input(key="qp_text").input("A question I am writing").run()
    draft(at, 2)
    (error,) = [e.value for e in at.error]
    assert plain(error) == "the LLM server failed (500); gave up after 4 tries"
    assert at.status[0].label == "The model could not be asked"
    assert len(requests_of(log)) == 4  # tried again three times, after the server's Retry-After
    assert at.subheader[0].value == "25 questions"
    assert at.text_input(key="qp_text").value == "A question I am writing"
    assert not any(b.key and b.key.startswith("qp_accept_") for b in at.button)


def test_broken_json_says_so_for_every_request_and_keeps_the_page(configured):
    log = configured([BROKEN])
    at = draft(open_app("app_pages/questions.py"), 2)
    assert len(requests_of(log)) == 4  # the most a run for two questions makes
    text = shown(at)
    for k in range(1, 5):
        assert f"request {k}: the model's JSON is broken (Unterminated string" in text
    assert plain(at.status[0].label) == (
        "0 grounded question(s) to review (0 grounded question(s) of the 2 asked for after 4 "
        "request(s), the most this run makes)"
    )
    assert at.subheader[0].value == "25 questions"
    assert not any(b.key and b.key.startswith("qp_accept_") for b in at.button)


def test_without_the_server_setting_there_is_no_drafting_and_a_link_cannot_add_it(
    llm_server, monkeypatch
):
    monkeypatch.delenv("CHUNKING_LAB_LLM_URL", raising=False)
    url, log, _ = llm_server([answer(GROUNDED)])
    at = open_app(
        "app_pages/questions.py",
        CHUNKING_LAB_LLM_URL=url,
        llm=url,
        llm_url=url,
        api_key="sekrit-key",
    )
    assert not at.exception
    assert not [e for e in at.expander if e.label.startswith("Draft with an LLM")]
    assert not [b for b in at.button if b.label == "Draft questions"]
    assert requests_of(log) == []
