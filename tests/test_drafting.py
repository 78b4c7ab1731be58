"""``python -m lab generate`` against a real chat-completions server process on 127.0.0.1
(tests/llm_server.py) with canned answers: grounded questions, invented evidence, repeats,
prose, broken JSON, a 429, a timeout, a server that goes down and one that is not there."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from llm_server import answer, requests_of

from lab import build_corpus, load_corpus
from lab.decode import normalise_newlines, original_offset, shift_offset
from lab.drafting import Endpoint, LLMError, draft_questions, read_answer

# The tests that talk to a server need the optional LLM stack; the rest run without it.
needs_httpx = pytest.mark.skipif(
    importlib.util.find_spec("httpx") is None, reason="needs requirements-llm.txt (httpx)"
)

ROOT = Path(__file__).resolve().parent.parent
HANDBOOK = ROOT / "data" / "handbook.md"

FLASH = (
    "Flash photography is banned everywhere in the red-light zone because a single flash "
    "ruins the night vision of everyone nearby."
)
ZONE = (
    "The red-light zone covers the dome floor, the observing terrace and the covered walkway "
    "that joins them."
)
CAMERA = (  # typed with a curly apostrophe; the handbook has a straight one
    "Long-exposure pictures of the sky from a tripod are welcome if the camera\u2019s screen is "
    "dimmed or covered with red film."
)
GROUNDED = {"question": "Can I use a flash on the observing terrace?", "evidence": [FLASH, ZONE]}
INVENTED = {
    "question": "Is there a gift shop on the terrace?",
    "evidence": ["The gift shop on the terrace sells red torches and star maps."],
}
REPEAT = {"question": "Can I use a flash on the observing terrace at night?", "evidence": [FLASH]}
SECOND = {
    "question": "How may visitors photograph the sky from the dome floor?",
    "evidence": [CAMERA, ZONE],
}


SCRIPT = [
    answer(GROUNDED, INVENTED, REPEAT, fence=True),
    {"status": 429, "headers": {"Retry-After": "0"}, "body": '{"error": "slow down"}'},
    {"content": "Sure! Here are some great questions about the observatory handbook."},
    {"content": '{"questions": [{"question": "What is banned?", "evidence": ["Flash'},
    {"delay": 3, **answer(SECOND)},
    answer(SECOND, GROUNDED),
]


def generate(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lab", "generate", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@needs_httpx
def test_generate_keeps_grounded_questions_and_says_why_it_dropped_the_rest(llm_server, tmp_path):
    url, log, _ = llm_server(SCRIPT)
    out = tmp_path / "qe.json"
    env = {**__import__("os").environ, "LAB_TEST_KEY": "sekrit-key"}
    done = generate(
        "--doc", str(HANDBOOK), "--llm", url, "--model", "tiny-test", "--questions", "3",
        "--max-requests", "5", "--timeout", "1", "--api-key-env", "LAB_TEST_KEY",
        "--out", str(out), env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    err = done.stderr
    assert (
        "dropped: 'Is there a gift shop on the terrace?': evidence not found: 'The gift shop on"
        in err
    )
    assert "dropped: 'Can I use a flash on the observing terrace at night?': repeats gen-001" in err
    assert "the LLM server is rate-limiting (429): trying again in 0 s" in err
    assert "request 2: the model answered in prose, not JSON: 'Sure! Here are" in err
    assert (
        "request 3: the model's JSON is broken (Unterminated string starting at character 60)"
        in err
    )
    assert "the LLM server did not answer within 1 s: trying again in 1 s" in err
    assert "kept what there is: 2 grounded question(s) of the 3 asked for after 5 request(s)" in err
    assert "sekrit-key" not in err + done.stdout

    questions = json.loads(out.read_text(encoding="utf-8"))["questions"]
    assert [q["id"] for q in questions] == ["gen-001", "gen-002"]
    assert {q["source"] for q in questions} == {"generated"}
    assert {q["model"] for q in questions} == {"tiny-test"}
    assert {q["split"] for q in questions} <= {"train", "test"}
    camera = questions[1]["evidence"][0]["text"]
    assert camera == CAMERA.replace("\u2019", "'")  # the handbook's own text, not as typed
    corpus = load_corpus(HANDBOOK, out)
    assert [q.id for q in corpus.questions] == ["gen-001", "gen-002"]
    assert not corpus.errors

    sent = requests_of(log)
    assert len(sent) == 7  # five requests, one retried after the 429, one after the timeout
    assert {r["model"] for r in sent} == {"tiny-test"}
    assert {r["authorization"] for r in sent} == {"Bearer sekrit-key"}
    assert all(r["path"] == "/v1/chat/completions" for r in sent)
    assert '<document name="handbook">' in sent[0]["user"]


@needs_httpx
def test_a_server_that_is_not_there_is_one_error_line(tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = generate("--doc", str(HANDBOOK), "--llm", f"http://127.0.0.1:{port}/v1", "--model", "m")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"error: cannot reach the LLM server at http://127.0.0.1:{port}/v1: connection refused"
    )


@needs_httpx
def test_a_server_that_goes_down_keeps_what_was_drafted(llm_server):
    url, _, process = llm_server([answer(GROUNDED)])

    def stop_the_server(draft):
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=10)

    draft = draft_questions(
        {"handbook": HANDBOOK.read_text(encoding="utf-8")},
        Endpoint(url, "m", timeout=5, backoff=0),
        3,
        progress=stop_the_server,
    )
    assert [q["question"] for q in draft.questions] == [GROUNDED["question"]]
    assert draft.stopped.startswith("cannot reach the LLM server")
    assert draft.requests == 2


@needs_httpx
def test_questions_across_two_documents_are_asked_for_and_kept(llm_server):
    technova = ROOT / "data" / "technova"
    warranty = "Every TechNova product carries a 24-month warranty against manufacturing faults."
    faulty = (
        "If one cup is silent with every device, the driver may be faulty: contact support for "
        "a warranty repair."
    )
    across = {"question": "Is a silent ear cup repaired for free?", "evidence": [faulty, warranty]}
    url, log, _ = llm_server([answer(across)])
    documents = {
        name: (technova / f"{name}.md").read_text(encoding="utf-8")
        for name in ("returns-policy", "troubleshooting-guide")
    }
    draft = draft_questions(documents, Endpoint(url, "m", backoff=0), 2, max_requests=2)
    sent = requests_of(log)
    assert "At least one question must need evidence from both documents." in sent[1]["user"]
    assert sent[1]["user"].count("<document name=") == 2
    (kept,) = draft.questions
    assert [e["doc"] for e in kept["evidence"]] == ["troubleshooting-guide", "returns-policy"]
    assert [d.reason for d in draft.dropped] == ["repeats gen-001"]
    corpus = build_corpus(documents, {"questions": list(draft.questions)})
    assert corpus.questions[0].multi_doc


def test_answers_are_read_from_fences_and_prose_and_refused_otherwise():
    assert read_answer('Sure:\n```json\n{"questions": [{"question": "q"}]}\n```') == [
        {"question": "q"}
    ]
    assert read_answer('Here: {"questions": []} hope it helps') == []
    with pytest.raises(LLMError, match="in prose, not JSON"):
        read_answer("No JSON here at all.")
    with pytest.raises(LLMError, match='no "questions" list'):
        read_answer('{"items": []}')


def test_pinned_starts_count_in_the_text_as_given():
    text = "one\r\ntwo\r\nthree"
    normalised, removed = normalise_newlines(text)
    for offset in range(len(normalised)):
        original = original_offset(offset, removed)
        assert text[original] == normalised[offset] or text[original] == "\r"
        assert shift_offset(original, removed) == offset
    assert original_offset(normalised.index("three"), removed) == text.index("three")


def test_without_httpx_the_engine_imports_and_generate_says_how_to_install_it():
    code = (
        "import sys; sys.modules['httpx'] = None\n"
        "import lab.drafting\n"
        "from lab.cli import main\n"
        "sys.exit(main(['generate', '--doc', 'data/handbook.md', '--llm', "
        "'http://127.0.0.1:1/v1', '--model', 'm']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: drafting with an LLM needs httpx, which is not installed: "
        "pip install -r requirements-llm.txt"
    )


@needs_httpx
def test_a_server_that_refuses_ends_drafting_at_once(llm_server, tmp_path):
    wrong_key = {"status": 401, "body": '{"error": {"message": "invalid api key"}}'}
    url, log, _ = llm_server([wrong_key])
    done = generate("--doc", str(HANDBOOK), "--llm", url, "--model", "m", "--questions", "5")
    assert done.returncode == 2
    assert done.stderr.strip() == "error: the LLM server answered 401: invalid api key"
    assert len(requests_of(log)) == 1  # not asked again: a wrong key stays wrong

    failing = {"status": 503, "headers": {"Retry-After": "0"}, "body": "{}"}
    url, log, _ = llm_server([answer(GROUNDED), failing])
    out = tmp_path / "qe.json"
    done = generate(
        "--doc", str(HANDBOOK), "--llm", url, "--model", "m", "--questions", "5",
        "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "the LLM server failed (503); gave up after 4 tries" in done.stderr
    assert len(requests_of(log)) == 5  # the answer, then one request tried four times
    kept = json.loads(out.read_text(encoding="utf-8"))["questions"]
    assert [q["question"] for q in kept] == [GROUNDED["question"]]
