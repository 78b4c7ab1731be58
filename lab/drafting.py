"""Draft questions with a language model, keeping only those whose evidence is in the text.

The model is any server of the OpenAI-compatible chat-completions protocol (``POST
{url}/chat/completions``; Ollama, vLLM, llama.cpp's server, LM Studio and OpenAI speak it),
reached with ``httpx`` (``pip install -r requirements-llm.txt``; this module imports without
it). Each request shows the model an excerpt of one document, or of two for questions across
documents, and asks for questions that need two or more evidence sentences, answered as JSON
``{"questions": [{"question": "...", "evidence": ["verbatim text", ...]}]}``.

Every evidence string is then located by the loader (:func:`lab.build_corpus`), look-alike
characters allowed with the loader's warning; a question whose evidence is not in the documents
is dropped with the loader's reason, and so is a near-repeat of a question already kept. Kept
questions carry ``"source": "generated"`` and the model's name, their evidence pinned where it
was found, and a reproducible train/test split. Rate limits and server errors are retried with
back-off (a server that still fails, or refuses, ends drafting); timeouts, prose, broken JSON and
a server that is down each get one clear message, and what was drafted so far is kept.
"""

from __future__ import annotations

import json
import math
import random
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .corpus import build_corpus
from .decode import decode_text, original_offset
from .evidence import preview
from .importers.base import train_share
from .problems import CorpusError

INSTALL = "pip install -r requirements-llm.txt"
PER_REQUEST = 5
WINDOW_CHARS = 6000
REPEAT = 0.75  # word overlap (Jaccard) at which a question repeats one already kept
RETRY_STATUS = (429, 500, 502, 503, 504)
MAX_WAIT = 30.0

SYSTEM = """You write evaluation questions for a retrieval system, from the documents you are \
given. Write questions a user of these documents would ask whose answer needs two or more \
sentences of the text: facts stated in different places, a rule and its exception, a provision \
and the one it cites, neighbouring provisions, or related passages of two documents. For each \
question, copy every sentence needed to answer it verbatim from the text, character for \
character, as its evidence. Answer with JSON only, no prose and no code fence:
{"questions": [{"question": "...", "evidence": ["verbatim sentence", "verbatim sentence"]}]}"""


class LLMError(RuntimeError):
    """The model could not be asked, or its answer could not be read; the message says why."""


class LLMUnavailable(LLMError):
    """httpx, the HTTP client drafting needs, is not installed."""


class LLMUnreachable(LLMError):
    """No server answers at the URL (refused, unknown host, connection dropped)."""


class LLMRefused(LLMError):
    """The server answers, but not with a completion: an error status (a wrong key, an unknown
    model), or rate limits, failures or timeouts that outlasted every retry."""


@dataclass(frozen=True)
class Endpoint:
    """Where the model is: a chat-completions server's base URL (``http://host:port/v1``), the
    model's name, an API key (None: none sent), the seconds one request may take and how many
    times a rate-limited, failed or timed-out request is tried again."""

    url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 120.0
    retries: int = 3
    backoff: float = 1.0


@dataclass(frozen=True)
class Dropped:
    """A drafted question that was not kept, and why."""

    question: str
    reason: str


@dataclass(frozen=True)
class Draft:
    """What drafting produced: the kept questions (QE objects), the dropped ones with their
    reasons, one note per request that went wrong or was retried, how many requests were
    made, and why drafting stopped before it had enough (None when it did not)."""

    questions: tuple[dict, ...]
    dropped: tuple[Dropped, ...]
    notes: tuple[str, ...]
    requests: int
    stopped: str | None = None


def _httpx():
    try:
        import httpx
    except ImportError:
        raise LLMUnavailable(
            f"drafting with an LLM needs httpx, which is not installed: {INSTALL}"
        ) from None
    return httpx


def chat(
    endpoint: Endpoint,
    messages: list[dict],
    notes: list[str],
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> str:
    """The model's answer to ``messages``. A rate limit (429) or a server error (5xx) is tried
    again after ``backoff * 2**k`` seconds (or the server's Retry-After, at most 30 s), and so is
    a timeout, each retry noted in ``notes``; ``LLMError`` says why when the tries run out or the
    server cannot be reached."""
    httpx = _httpx()
    url = endpoint.url.rstrip("/") + "/chat/completions"
    headers = {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    body = {"model": endpoint.model, "messages": messages, "temperature": 0.2}
    for attempt in range(endpoint.retries + 1):
        last = attempt == endpoint.retries
        wait = endpoint.backoff * 2**attempt
        try:
            response = httpx.post(url, json=body, headers=headers, timeout=endpoint.timeout)
        except httpx.TimeoutException:
            problem = f"the LLM server did not answer within {endpoint.timeout:g} s"
        except httpx.HTTPError as exc:
            raise LLMUnreachable(
                f"cannot reach the LLM server at {endpoint.url}: {_reason(exc)}"
            ) from None
        else:
            if response.status_code == 200:
                return _content(response)
            if response.status_code not in RETRY_STATUS:
                raise LLMRefused(
                    f"the LLM server answered {response.status_code}: {_detail(response)}"
                )
            problem = (
                "the LLM server is rate-limiting (429)"
                if response.status_code == 429
                else f"the LLM server failed ({response.status_code})"
            )
            wait = _retry_after(response, wait)
        if last:
            raise LLMRefused(f"{problem}; gave up after {endpoint.retries + 1} tries")
        notes.append(f"{problem}: trying again in {wait:g} s")
        sleep(wait)
    raise AssertionError("not reached")


def _reason(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return "connection refused" if "refused" in text.lower() else text


def _retry_after(response, default: float) -> float:
    try:
        return min(MAX_WAIT, max(0.0, float(response.headers.get("retry-after", default))))
    except ValueError:
        return default


def _detail(response) -> str:
    try:
        error = response.json().get("error")
    except ValueError:
        error = None
    message = error.get("message") if isinstance(error, dict) else error
    return preview(str(message or response.text or "no detail"), 20)


def _content(response) -> str:
    try:
        return str(response.json()["choices"][0]["message"]["content"] or "")
    except (ValueError, KeyError, IndexError, TypeError):
        raise LLMError(
            "the server's answer is not a chat completion (no choices[0].message.content): "
            "is the URL the server's /v1 base?"
        ) from None


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def read_answer(content: str) -> list[dict]:
    """The questions of a model's answer: the JSON object (inside a code fence or prose, when
    the model added one); ``LLMError`` for prose without JSON or JSON that does not parse."""
    fenced = _FENCE.search(content)
    text = fenced.group(1) if fenced else content
    start, end = text.find("{"), text.rfind("}")
    if start < 0:
        raise LLMError(f"the model answered in prose, not JSON: {preview(content, 12)!r}")
    try:
        value = json.loads(text[start : end + 1] if end > start else text[start:])
    except json.JSONDecodeError as exc:
        what = exc.msg.removesuffix(" at")  # "Unterminated string starting at"
        raise LLMError(f"the model's JSON is broken ({what} at character {exc.pos})") from None
    items = value.get("questions") if isinstance(value, dict) else None
    if not isinstance(items, list):
        raise LLMError('the model\'s JSON has no "questions" list')
    return [item for item in items if isinstance(item, dict)]


def _windows(documents: Mapping[str, str]) -> list[tuple[str, str]]:
    """Each document cut into excerpts of about ``WINDOW_CHARS`` characters at paragraph breaks."""
    out = []
    for name, text in documents.items():
        start = 0
        while start < len(text):
            end = min(len(text), start + WINDOW_CHARS)
            if end < len(text):
                cut = text.rfind("\n\n", start + WINDOW_CHARS // 2, end)
                end = cut if cut > start else end
            if text[start:end].strip():
                out.append((name, text[start:end]))
            start = end
    return out


def _requests(documents: Mapping[str, str], seed: int):
    """The excerpts each request shows, forever: single excerpts in a shuffled order, every
    other request (with two or more documents) an excerpt of one document beside one of
    another."""
    windows = _windows(documents)
    rng = random.Random(seed)
    k = 0
    while True:
        order = windows[:]
        rng.shuffle(order)
        for window in order:
            pair = [w for w in order if w[0] != window[0]]
            if k % 2 and pair:
                yield [window, rng.choice(pair)]
            else:
                yield [window]
            k += 1


def _prompt(excerpts: list[tuple[str, str]], wanted: int) -> list[dict]:
    shown = "\n\n".join(f'<document name="{name}">\n{text}\n</document>' for name, text in excerpts)
    across = (
        " At least one question must need evidence from both documents."
        if len({n for n, _ in excerpts}) > 1
        else ""
    )
    user = f"{shown}\n\nWrite {wanted} questions.{across}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _repeat(question: str, kept: list[dict], existing: tuple[str, ...]) -> str | None:
    """The id of a kept question (or "a question the corpus has") that ``question`` repeats:
    their words overlap by at least :data:`REPEAT` (Jaccard)."""
    words = _words(question)
    others = [(q["id"], q["question"]) for q in kept]
    others += [("a question the corpus has", q) for q in existing]
    for name, other in others:
        theirs = _words(other)
        if words and len(words & theirs) / len(words | theirs) >= REPEAT:
            return name
    return None


def draft_questions(
    documents: Mapping[str, str | bytes],
    endpoint: Endpoint,
    count: int = 10,
    *,
    max_requests: int | None = None,
    seed: int = 0,
    train: float = 0.3,
    existing: tuple[str, ...] = (),
    progress: Callable[[Draft], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Draft:
    """Ask the model for ``count`` grounded questions about ``documents`` (name -> text) in at
    most ``max_requests`` requests (default: twice the requests ``count`` needs, plus two).
    ``existing`` questions count as kept for the repeat check; ``progress`` sees the draft
    after every request. A model that answers in prose or broken JSON is asked again; a server
    that cannot be reached or refuses (``LLMRefused``) ends drafting. Returns what was kept,
    dropped and noted; raises ``LLMError`` when the server fails before anything was kept."""
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    texts = {name: decode_text(data, f"Document {name!r}") for name, data in documents.items()}
    if not any(t.strip() for t in texts.values()):
        raise CorpusError("No document with text to draft questions from.")
    limit = max_requests or 2 * math.ceil(count / PER_REQUEST) + 2
    kept: list[dict] = []
    dropped: list[Dropped] = []
    notes: list[str] = []
    stopped, requests = None, 0
    asked = _requests(texts, seed)
    while len(kept) < count and requests < limit:
        requests += 1
        wanted = min(PER_REQUEST, count - len(kept))
        try:
            items = read_answer(chat(endpoint, _prompt(next(asked), wanted), notes, sleep=sleep))
        except LLMError as exc:
            down = isinstance(exc, (LLMUnreachable, LLMUnavailable, LLMRefused))
            if down and not kept:
                raise
            notes.append(f"request {requests}: {exc}")
            if down:
                stopped = str(exc)
                break
            continue
        for question, reason in locate_drafts(texts, items):
            repeat = None if reason else _repeat(question["question"], kept, existing)
            if reason or repeat:
                dropped.append(Dropped(question["question"], reason or f"repeats {repeat}"))
                continue
            number = len(kept) + 1
            kept.append({"id": f"gen-{number:03d}", **question, "model": endpoint.model})
        if progress is not None:
            progress(Draft(tuple(kept), tuple(dropped), tuple(notes), requests))
    kept = kept[:count]
    if len(kept) < count and stopped is None:
        stopped = (
            f"{len(kept)} grounded question(s) of the {count} asked for after {requests} "
            f"request(s), the most this run makes"
        )
    split = train_share(kept, train)
    return Draft(tuple(split), tuple(dropped), tuple(notes), requests, stopped)


def locate_drafts(texts: Mapping[str, str], items: list[dict]) -> list[tuple[dict, str | None]]:
    """Each drafted item as a QE question (``"source": "generated"``, its evidence named by
    document and, where the text occurs more than once, pinned where it was found) and why the
    loader cannot use it (None: it can)."""
    out, candidates = [], []
    for item in items:
        question, evidence = item.get("question"), item.get("evidence")
        if not isinstance(question, str) or not question.strip():
            continue
        entry = {"question": question.strip(), "evidence": evidence, "source": "generated"}
        if not isinstance(evidence, list) or not evidence:
            out.append((entry, "no evidence given"))
        elif not all(isinstance(e, str) and e.strip() for e in evidence):
            out.append((entry, "an evidence entry is empty or not text"))
        else:
            candidates.append(entry)
    if not candidates:
        return out
    qe = [{"id": f"draft-{k}", **c} for k, c in enumerate(candidates)]
    corpus = build_corpus(dict(texts), {"questions": qe})
    located = {q.id: q for q in corpus.questions}
    reasons: dict[str, list[str]] = {}
    for e in corpus.errors:
        if e.question:
            reasons.setdefault(e.question, []).append(e.message)
    for item, entry in zip(qe, candidates, strict=True):
        found = located.get(item["id"])
        if found is None:
            out.append((entry, "; ".join(reasons.get(item["id"], ["its evidence is unusable"]))))
            continue
        repeated = any("more than once" in m for m in reasons.get(item["id"], []))
        evidence = []
        for e in found.evidence:
            document = corpus.documents[e.doc]
            pinned = {"doc": document.name, "text": document.text[e.start : e.end]}
            if repeated:
                pinned["start"] = original_offset(e.start, corpus.removed[e.doc])
            evidence.append(pinned)
        out.append(({**entry, "evidence": evidence}, None))
    return out
