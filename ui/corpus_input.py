"""The user's own corpus: pasted or uploaded text kept across pages, and its validation report.

Text areas lose their state when the user visits another page; each input is therefore kept
under its own session key (``yc_document``, ``yc_qe``, ``yc_name``) and copied into its widget
whenever the page is drawn. Nothing the user typed is dropped: a refused input stays where it was.

A corpus that loads is also kept in the server's corpus store (:mod:`ui.store`) under the digest
of its inputs; the URL carries that digest as ``?corpus_id=``, so a refresh or a link reopens it
(:func:`from_link`) while the store keeps it, and says so plainly once it does not. Several
uploaded documents and a collection manifest (:mod:`ui.uploads`) are kept there with it.
"""

from __future__ import annotations

import contextlib

import streamlit as st

from lab import (
    MAX_DOCUMENT_CHARS,
    MAX_QE_CHARS,
    Corpus,
    CorpusError,
    decode_text,
    parse_qe,
    question_count,
)

from . import cache, links, store, uploads
from .corpus_report import REPORT, Report, report_for
from .draw import REFS_NOTE, md_escape

DOC = "yc_document"
QE = "yc_qe"
NAME = "yc_name"
UPLOAD_ERROR = "yc_upload_error"
UPLOAD_NOTE = "yc_upload_note"  # where an upload went instead of its input (a PDF, a DOCX)
NOT_KEPT = "yc_not_kept"  # why the loaded corpus is not in the corpus store
CORPUS_ID = "corpus_id"  # the URL parameter naming a stored corpus
PAGE = "your_corpus"  # this page's url path
UPLOAD_MB = 20  # per file; 5,000,000 characters of UTF-8 fit in 20 MB
DEFAULT_NAME = "document"
LIMITS = {DOC: MAX_DOCUMENT_CHARS, QE: MAX_QE_CHARS}
WHAT = {DOC: "The document", QE: "The QE JSON"}
UPLOADER = {DOC: "yc_document_file", QE: "yc_qe_file"}
PAGES = {
    "app_pages/index_overview.py": "Index overview",
    "app_pages/recall_tables.py": "Recall tables",
    "app_pages/sweep_charts.py": "Sweep charts",
    "app_pages/question_drilldown.py": "Question drill-down",
    "app_pages/chunk_graph.py": "Chunk graph",
}

QE_EXAMPLE = """{"questions": [
  {"id": "q07", "question": "Is flash photography allowed on the dome floor?",
   "evidence": ["Flash photography is banned everywhere in the red-light zone.",
                "The red-light zone covers the dome floor, the observing terrace ..."],
   "split": "test"}
]}"""
QE_HELP = (
    "A bare list of questions works too. `split` is `train` or `test` (default `test`); the QES "
    "chunkers learn from train questions. Evidence is found whitespace-insensitively; "
    '`{"text": "...", "start": 812}` pins one occurrence; `{"text": "...", "occurrence": "any"}` '
    "accepts every one (a context holding any copy holds it). With several documents an evidence "
    'item may name its document (`{"doc": "faq.md", "text": "..."}`; otherwise it is looked '
    'for in every one), and a question may carry a metadata filter (`"filter": {"product": '
    '"WH-1000"}`) that keeps retrieval to the documents whose metadata match.'
)


def widget(key: str) -> str:
    """The key of the widget that edits kept input ``key``, seeded from the kept value."""
    name = f"{key}__widget"
    if name not in st.session_state:
        st.session_state[name] = st.session_state.get(key, DEFAULT_NAME if key == NAME else "")
    return name


def keep(key: str) -> None:
    """Copy a widget's value to its kept key (an ``on_change`` callback)."""
    st.session_state[key] = st.session_state[f"{key}__widget"]


def put(key: str, value: str) -> None:
    """Set kept input ``key`` and its widget."""
    st.session_state[key] = value
    st.session_state[f"{key}__widget"] = value


def value(key: str) -> str:
    """The current value of kept input ``key``."""
    return st.session_state.get(f"{key}__widget", st.session_state.get(key, ""))


def take_upload(key: str) -> None:
    """Put an uploaded file's text into input ``key`` (an ``on_change`` callback). A file that
    is not UTF-8 text or is over the character limit is refused and the input left as it was."""
    errors = st.session_state.setdefault(UPLOAD_ERROR, {})
    errors.pop(key, None)
    st.session_state.pop(UPLOAD_NOTE, None)
    file = st.session_state.get(UPLOADER[key])
    if file is None:
        return
    if key == DOC and uploads.is_binary(file):
        if why := uploads.keep_binary(file):
            errors[key] = why
        else:
            st.session_state[UPLOAD_NOTE] = file.name
        return
    try:
        text = decode_text(file.getvalue(), f"The file {file.name!r}")
    except CorpusError as exc:
        errors[key] = str(exc)
        return
    if len(text) > LIMITS[key]:
        errors[key] = (
            f"The file {file.name!r} has {len(text):,} characters; the limit is "
            f"{LIMITS[key]:,}. Nothing was replaced."
        )
        return
    put(key, text)
    if key == DOC:  # the whole name: its extension tells the engine how to read it (.html)
        put(NAME, file.name.strip() or DEFAULT_NAME)


def fill_example() -> None:
    """Put the bundled handbook and its questions into the inputs (a button callback); a file
    that cannot be read is said, and its input left as it was."""
    errors = st.session_state.setdefault(UPLOAD_ERROR, {})
    for key, name in zip((DOC, QE), cache.HANDBOOK_FILES, strict=True):
        errors.pop(key, None)
        try:
            put(key, (cache.DATA / name).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            errors[key] = f"The bundled example's {name} cannot be read ({type(exc).__name__})."
    if DOC not in errors:
        put(NAME, "handbook")


def fill_collection() -> None:
    """Put the bundled TechNova collection in: its documents and manifest kept as uploads, its
    questions in the QE input, the pasted document emptied (a button callback)."""
    uploads.fill_collection(cache.DATA / "technova", lambda text: put(QE, text))
    put(DOC, "")
    put(NAME, DEFAULT_NAME)


def inputs_of(name: str, document: str, qe: str) -> store.Inputs:
    """The inputs as typed: the uploaded files and manifest kept (:mod:`ui.uploads`) and the
    pasted document (a blank name is the default one; a blank document is left out when files
    are kept, and replaces a kept file of its name otherwise); blank questions are none."""
    documents = dict(uploads.files())
    if document.strip() or not documents:
        documents[name.strip() or DEFAULT_NAME] = document
    return store.Inputs(documents, qe if qe.strip() else None, uploads.manifest())


def check(inputs: store.Inputs) -> tuple[Corpus | None, Report]:
    """Build a corpus from the inputs: the corpus and its report, or None and why it was
    refused. QE JSON that cannot be read at all (not JSON, not a list of questions) refuses
    the whole input, as a bad document does, rather than load a corpus without questions."""
    asked: dict[str, str] = {}
    if inputs.qe is not None:
        items, problems = parse_qe(inputs.qe)
        if problems and not items:  # the last problem is the one that stopped the reading
            return None, Report(refused=problems[-1].message)
        asked = {
            str(item.get("id")): item["question"]
            for item in items
            if isinstance(item, dict) and isinstance(item.get("question"), str)
        }
    try:
        corpus = uploads.build(inputs)
    except CorpusError as exc:
        return None, Report(refused=str(exc))
    return corpus, report_for(corpus, asked)


def load() -> None:
    """Check the inputs and, when they make a corpus, keep it and use it everywhere (a button
    callback).

    The engine's own checks cover what it can foresee; anything else a strange input triggers
    is reported the same way rather than ending the page."""
    inputs = inputs_of(value(NAME), value(DOC), value(QE))
    try:
        corpus, report = check(inputs)
    except Exception as exc:  # noqa: BLE001 - user input must never end the page
        corpus, report = None, Report(refused=f"The input could not be read: {exc}")
    st.session_state[REPORT] = report
    if corpus is not None:
        cache.set_user_corpus(corpus, _keep(inputs), inputs)
        st.session_state["corpus"] = cache.USER


def _keep(inputs: store.Inputs) -> str | None:
    """Put the inputs in the corpus store; their digest, or None (and why, for the page)."""
    try:
        digest = store.default_store().put(inputs)
    except (OSError, ValueError) as exc:
        st.session_state[NOT_KEPT] = str(exc)
        return None
    st.session_state.pop(NOT_KEPT, None)
    return digest


def from_link() -> str | None:
    """Open the stored corpus the link names (``?corpus_id=``) as "your corpus", with its text
    in the inputs; a notice when it cannot be opened (None when the link names none)."""
    given = st.query_params.get_all(CORPUS_ID)
    return reopen(given[-1]) if given else None


def reopen(digest: str) -> str | None:
    """Open the corpus kept under ``digest``; a notice (markdown) when it cannot be."""
    shown = md_escape(links.shown(digest, 16))
    if not store.valid_digest(digest):
        return (
            f"Ignored **{CORPUS_ID}={shown}** from the link: expected the id of a corpus kept "
            "on this server (32 hexadecimal digits). Showing the handbook."
        )
    try:
        inputs = store.default_store().get(digest)
    except OSError:
        inputs = None
    except store.DamagedEntry:
        return (
            f"The corpus this link names ({CORPUS_ID} {shown[:8]}…) was damaged on this server "
            "(its file was cut short or changed), so it was removed. Showing the handbook "
            "instead. Load its documents and questions again on **Your corpus**; the new link "
            "carries it."
        )
    if inputs is None:
        return (
            f"The corpus this link names ({CORPUS_ID} {shown[:8]}…) is no longer kept on this "
            "server: the server keeps the corpora used most recently and deletes the oldest "
            "to make room. Showing the handbook instead. To share it again, load its documents "
            "and questions on **Your corpus**; the new link carries it."
        )
    corpus, report = check(inputs)
    if corpus is None:
        return f"The corpus this link names cannot be opened: {md_escape(report.refused or '')}"
    cache.set_user_corpus(corpus, digest, inputs)
    if len(inputs.documents) == 1 and inputs.manifest is None:
        uploads.clear()
        name, document = next(iter(inputs.documents.items()))
        put(NAME, name)
        put(DOC, document)
    else:
        uploads.restore(inputs.documents, inputs.manifest)
        put(NAME, DEFAULT_NAME)
        put(DOC, "")
    put(QE, inputs.qe or "")
    st.session_state[REPORT] = report
    return None


def use() -> None:
    """Switch the sidebar to the user's corpus."""
    st.session_state["corpus"] = cache.USER


def forget() -> None:
    """Drop the user's corpus and its kept copy, so its link no longer opens it (the inputs
    on the page stay), and go back to the handbook."""
    digest = cache.user_corpus_id()
    if digest:
        with contextlib.suppress(OSError, ValueError):
            store.default_store().remove(digest)
    st.session_state.pop(cache.USER_CORPUS_KEY, None)
    st.session_state.pop(cache.USER_ID_KEY, None)
    st.session_state.pop(cache.USER_INPUTS_KEY, None)
    st.session_state.pop(REPORT, None)
    st.session_state["corpus"] = cache.HANDBOOK


def upload_errors() -> None:
    """Say why an upload was refused (the input it would have replaced is untouched)."""
    for key, message in st.session_state.get(UPLOAD_ERROR, {}).items():
        st.error(f"{WHAT[key]} was not replaced. {md_escape(message)}")
    if name := st.session_state.get(UPLOAD_NOTE):
        st.info(
            f"{md_escape(repr(name))} is kept with the documents below (a PDF or DOCX is read "
            "as a file, not as text in the box): **Check and load** runs it.",
            icon=":material/attach_file:",
        )


def kept_note() -> None:
    """Whether a link can carry the user's corpus: kept in the corpus store, or not and why."""
    if cache.user_corpus_id():
        st.caption(
            ":material/link: Kept on this server: the share link and a refresh reopen this "
            "corpus while the server keeps it (it keeps the most recently used ones)."
        )
    elif cache.USER_CORPUS_KEY in st.session_state:
        why = md_escape(st.session_state.get(NOT_KEPT, "the store is not available"))
        st.warning(
            f"This corpus is not kept on the server ({why}): it lasts as long as this browser "
            "tab, and a link cannot carry it.",
            icon=":material/link_off:",
        )


def draw_run(mine: Corpus, settings) -> None:
    """Recall of every configuration on the user's corpus, and links to every page."""
    from . import recall  # charts: imported when a page draws one, not with the sidebar

    questions = len(mine.split(settings.split))
    st.caption(
        f"Every page now runs on **{md_escape(mine.name)}** "
        f"({question_count(questions, settings.split)}) · {REFS_NOTE[settings.refs]}."
    )
    try:
        with st.spinner("Running every chunker on your corpus…"):
            result = cache.lab(mine, settings.config)
    except Exception as exc:  # noqa: BLE001 - user input must never end the page
        st.error(f"The lab could not run on this corpus: {md_escape(str(exc))}")
        return
    if questions:
        st.dataframe(
            recall.recall_view(recall.recall_table(result)),
            column_config=recall.recall_columns(questions),
            hide_index=True,
        )
    else:
        st.info(f"No {settings.split} questions: choose another split in the sidebar.")
    for col, (path, label) in zip(st.columns(len(PAGES)), PAGES.items(), strict=True):
        col.page_link(path, label=label)
