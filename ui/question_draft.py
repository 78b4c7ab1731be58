"""The Questions page's state: the questions being written for the corpus the sidebar shows
(a draft per corpus, with the history undo walks back), the inputs that corpus is made of, the
corpora the draft makes (checked by the loader), saving it as a new stored corpus, the files to
download, and the LLM the server offers.

The draft lives in the session (``qp_drafts``: corpus digest -> questions and history) until it
is saved: saving puts the corpus's documents (and manifest) with the draft's QE JSON in the
corpus store as a new corpus, never over a bundled one, and makes it "your corpus", its id in
the URL. The LLM is configured on the server only (``CHUNKING_LAB_LLM_URL``, ``..._MODEL``,
``..._API_KEY_ENV``: environment or Streamlit secrets), never by a link.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass, field

import streamlit as st

from lab import (
    Corpus,
    CorpusError,
    Endpoint,
    Imported,
    collection_files,
    qe_text,
    question_items,
)

from . import cache, corpus_input, store, uploads

DRAFTS = "qp_drafts"
REVIEW = "qp_review"  # questions an LLM drafted, waiting for accept / edit / reject
NOTICE = "qp_notice"  # what the last action did, said once
HISTORY = 50
LLM_URL = "CHUNKING_LAB_LLM_URL"
LLM_MODEL = "CHUNKING_LAB_LLM_MODEL"
LLM_KEY_ENV = "CHUNKING_LAB_LLM_API_KEY_ENV"
DEFAULT_MODEL = "llama3.1"


@dataclass
class Draft:
    """The questions being written for one corpus, and the states before each change."""

    items: list[dict]
    history: list[list[dict]] = field(default_factory=list)

    def change(self, items: list[dict]) -> None:
        """Replace the questions, keeping the old ones for undo."""
        self.history = [*self.history[-HISTORY + 1 :], self.items]
        self.items = items

    def undo(self) -> None:
        if self.history:
            self.items = self.history.pop()


def draft(corpus: Corpus) -> Draft:
    """This session's draft for ``corpus``: its own questions until the user changes them."""
    drafts = st.session_state.setdefault(DRAFTS, {})
    if corpus.digest not in drafts:
        drafts[corpus.digest] = Draft(question_items(corpus))
    return drafts[corpus.digest]


def notify(message: str, kind: str = "success") -> None:
    st.session_state[NOTICE] = (kind, message)


def take_notice() -> tuple[str, str] | None:
    return st.session_state.pop(NOTICE, None)


def _lf(text: str) -> str:
    """Line endings as the loader reads them, so starts pinned in the page's text hold."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def inputs_for(name: str) -> store.Inputs | None:
    """What the sidebar's corpus ``name`` is made of: documents by name, QE JSON and manifest;
    None when they cannot be had (a bundled file missing)."""
    try:
        if name == cache.HANDBOOK:
            docs = {"handbook": (cache.DATA / "handbook.md").read_text(encoding="utf-8")}
            return store.Inputs(docs, None)
        if name == cache.TECHNOVA:
            folder = cache.TECHNOVA_MANIFEST.parent
            manifest = cache.TECHNOVA_MANIFEST.read_text(encoding="utf-8")
            paths = [d["path"] for d in json.loads(manifest)["documents"]]
            docs = {p: _lf((folder / p).read_text(encoding="utf-8")) for p in paths}
            return store.Inputs(docs, None, (cache.TECHNOVA_MANIFEST.name, manifest))
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        return None
    digest = cache.user_corpus_id()
    kept = None
    if digest:
        try:
            kept = store.default_store().get(digest)
        except (OSError, store.DamagedEntry):
            kept = None
    if kept is None:
        kept = corpus_input.inputs_of(
            corpus_input.value(corpus_input.NAME),
            corpus_input.value(corpus_input.DOC),
            corpus_input.value(corpus_input.QE),
        )
    return store.Inputs({k: _lf(v) for k, v in kept.documents.items()}, None, kept.manifest)


@st.cache_resource(max_entries=8, show_spinner=False, scope="session")
def _built(encoded: bytes) -> tuple[Corpus | None, str | None]:
    payload = json.loads(encoded)
    manifest = tuple(payload["manifest"]) if payload.get("manifest") else None
    inputs = store.Inputs(payload["documents"], payload["qe"], manifest)
    try:
        return uploads.build(inputs), None
    except CorpusError as exc:
        return None, str(exc)


def corpus_with(inputs: store.Inputs, items: list[dict]) -> tuple[Corpus | None, str | None]:
    """The corpus ``inputs`` make with ``items`` as their questions, built by the loader (so
    every question is checked as a loaded file's would be), or None and why not."""
    with_items = store.Inputs(inputs.documents, qe_text(items), inputs.manifest)
    return _built(with_items.encoded())


def save(inputs: store.Inputs, items: list[dict]) -> None:
    """Keep the corpus with ``items`` in the corpus store as a new corpus and show it as "your
    corpus" everywhere (a button callback); the URL's corpus_id follows."""
    saved = store.Inputs(inputs.documents, qe_text(items), inputs.manifest)
    try:
        digest = store.default_store().put(saved)
    except (OSError, ValueError) as exc:
        notify(f"The corpus could not be kept on this server: {exc}. Download it instead.", "error")
        return
    problem = corpus_input.reopen(digest)
    if problem:
        notify(problem, "error")
        return
    st.session_state["corpus"] = cache.USER
    drafts = st.session_state.setdefault(DRAFTS, {})
    mine = cache.corpus(cache.USER)
    drafts[mine.digest] = Draft([dict(i) for i in items])
    notify(
        f"Saved as a new corpus with {len(items)} question(s): every page now runs on it, and "
        "the share link reopens it."
    )


def collection_zip(inputs: store.Inputs, items: list[dict]) -> bytes:
    """The collection as a zip: its manifest (the one it came with, or a new one), documents
    and ``questions.json``."""
    if inputs.manifest is None:
        files = collection_files(Imported("questions", dict(inputs.documents), tuple(items)))
    else:
        name, text = inputs.manifest
        manifest = json.loads(text) | {"questions": "questions.json"}
        files = {name: json.dumps(manifest, ensure_ascii=False, indent=1).encode("utf-8")}
        files |= {path: text.encode("utf-8") for path, text in inputs.documents.items()}
        files["questions.json"] = qe_text(items).encode("utf-8")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return buffer.getvalue()


def _setting(name: str) -> str | None:
    """A server-side setting: the environment, else Streamlit's secrets."""
    if os.environ.get(name):
        return os.environ[name]
    try:
        value = st.secrets.get(name)
    except (FileNotFoundError, KeyError, AttributeError, st.errors.StreamlitSecretNotFoundError):
        return None
    return str(value) if value else None


def llm_endpoint() -> Endpoint | None:
    """The LLM the server is configured with, or None (no "Draft with an LLM" then)."""
    url = _setting(LLM_URL)
    if not url:
        return None
    key_env = _setting(LLM_KEY_ENV)
    key = os.environ.get(key_env) if key_env else None
    return Endpoint(url, _setting(LLM_MODEL) or DEFAULT_MODEL, key)
