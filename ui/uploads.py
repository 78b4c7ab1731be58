"""Several documents uploaded at once, with an optional collection manifest, for Your corpus.

The files are kept in the session (``yc_files``: name -> text; ``yc_manifest``: the manifest's
name and text) until the user clears them, so they survive visits to other pages like the text
areas do. A JSON file with a "documents" list is the manifest; any other JSON file is taken as
the questions. A file that is not text, or too large, is refused with its reason and the files
already kept stay. A loaded collection is kept in the corpus store (:mod:`ui.store`) with its
files and manifest, so a link reopens it (:func:`restore` puts them back).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import streamlit as st

from lab import (
    DOCUMENT_TYPES,
    MAX_DOCUMENT_CHARS,
    Corpus,
    CorpusError,
    Source,
    binary_format,
    build_collection,
    build_corpus,
    decode_text,
    json_or_none,
    read_binary,
)

from . import store
from .draw import md_escape

if TYPE_CHECKING:
    import pandas as pd

FILES = "yc_files"
MANIFEST = "yc_manifest"
ERRORS = "yc_files_errors"
UPLOADER = "yc_files_upload"
MAX_FILES = 50
UPLOAD_MB = 20  # per file

MANIFEST_EXAMPLE = """{"documents": [
   {"path": "faq.md", "type": "faq", "meta": {"product": ["WH-500", "WH-1000"]}},
   {"path": "specs.html", "type": "spec-table"},
   {"path": "call.txt"}],
 "questions": "questions.json",
 "policy": {"faq": {"chunker": "structure"}, "spec-table": {"chunker": "table-rows"}}}"""
MANIFEST_HELP = (
    "Paths are the uploaded files' names. Types: "
    + ", ".join(f"`{t}`" for t in DOCUMENT_TYPES)
    + " (a policy entry adds one); a document without a type gets one inferred from its "
    "structure. The policy maps types to a chunker (and optionally `size`, `overlap`); the "
    "**by-type** chunker runs it. The QE JSON above, when filled in, replaces `questions`."
)


def files() -> dict[str, str]:
    """The documents kept, by file name."""
    return st.session_state.setdefault(FILES, {})


def manifest() -> tuple[str, str] | None:
    return st.session_state.get(MANIFEST)


def take_files(put_questions: Callable[[str], None]) -> None:
    """Keep the uploaded files (an ``on_change`` callback): documents by name, a manifest, and
    any other JSON as the questions (``put_questions``). Refusals are kept in ``ERRORS``."""
    errors = st.session_state[ERRORS] = []
    kept = files()
    for file in st.session_state.get(UPLOADER) or []:
        if is_binary(file):
            _take_binary(file, kept, errors)
            continue
        try:
            text = decode_text(file.getvalue(), f"The file {file.name!r}")
        except CorpusError as exc:
            errors.append(str(exc))
            continue
        if len(text) > MAX_DOCUMENT_CHARS:
            errors.append(
                f"The file {file.name!r} has {len(text):,} characters; the limit is "
                f"{MAX_DOCUMENT_CHARS:,}."
            )
            continue
        if file.name.lower().endswith(".json"):
            if _is_manifest(text):
                st.session_state[MANIFEST] = (file.name, text)
            else:
                put_questions(text)
            continue
        if file.name not in kept and len(kept) >= MAX_FILES:
            errors.append(f"The file {file.name!r} was not kept: at most {MAX_FILES} documents.")
            continue
        kept[file.name] = text


# A PDF or DOCX is kept as its bytes in base64 behind this mark (the kept files are text, saved
# with a corpus as JSON); :func:`source_data` turns it back into bytes for the engine.
BINARY_MARK = "\x00base64:"


def is_binary(file) -> bool:
    """Whether an uploaded file is a PDF or DOCX (read as a file, not as pasted text)."""
    return binary_format(file.name, file.getvalue()) is not None


def keep_binary(file) -> str | None:
    """Keep a PDF or DOCX uploaded elsewhere on the page with these documents; why not, or
    None when it is kept."""
    errors: list[str] = []
    _take_binary(file, files(), errors)
    return errors[0] if errors else None


def _take_binary(file, kept: dict[str, str], errors: list[str]) -> None:
    """Keep a PDF or DOCX upload when the engine can read it; else say why not."""
    data = file.getvalue()
    try:
        read_binary(data, file.name, binary_format(file.name, data))
    except CorpusError as exc:
        errors.append(str(exc))
        return
    if file.name not in kept and len(kept) >= MAX_FILES:
        errors.append(f"The file {file.name!r} was not kept: at most {MAX_FILES} documents.")
        return
    kept[file.name] = BINARY_MARK + base64.b64encode(data).decode("ascii")


def source_data(kept: str) -> str | bytes:
    """What the engine reads of a kept file: its text, or a PDF's or DOCX's bytes."""
    if kept.startswith(BINARY_MARK):
        return base64.b64decode(kept[len(BINARY_MARK) :])
    return kept


def _is_manifest(text: str) -> bool:
    data = json_or_none(text)
    return isinstance(data, dict) and "documents" in data


def fill_collection(folder: Path, put_questions: Callable[[str], None]) -> None:
    """Keep a bundled collection's documents and manifest, and put its questions in the QE
    input (a button callback)."""
    clear()
    errors = st.session_state[ERRORS] = []
    manifest_path = folder / "collection.json"
    text = _bundled_file(folder, manifest_path.name, errors)
    if text is None:
        return
    st.session_state[MANIFEST] = (manifest_path.name, text)
    for path in _paths(text):
        document = _bundled_file(folder, path, errors)
        if document is not None:
            files()[path] = document
    data = json_or_none(text)
    questions = data.get("questions") if isinstance(data, dict) else None
    if isinstance(questions, str):
        qe = _bundled_file(folder, questions, errors)
        if qe is not None:
            put_questions(qe)


def _bundled_file(folder: Path, path: str, errors: list[str]) -> str | None:
    """A bundled file's text, or None with why in ``errors`` (missing or unreadable on this
    server: the rest of the collection still fills in)."""
    try:
        return decode_text((folder / path).read_bytes(), f"The bundled file {path!r}")
    except OSError as exc:
        errors.append(
            f"The bundled file {folder.name}/{path} cannot be read "
            f"({exc.strerror or type(exc).__name__}); it was left out."
        )
    except CorpusError as exc:
        errors.append(f"{exc} It was left out.")
    return None


def restore(documents: dict[str, str], listed: tuple[str, str] | None) -> None:
    """Keep ``documents`` and the manifest ``listed`` (name and text) as the uploaded files,
    replacing any kept before: a collection reopened from the corpus store."""
    clear()
    st.session_state[FILES] = dict(documents)
    if listed is not None:
        st.session_state[MANIFEST] = listed


def clear() -> None:
    """Drop the kept files and manifest (a button callback)."""
    st.session_state[FILES] = {}
    st.session_state.pop(MANIFEST, None)
    st.session_state.pop(ERRORS, None)


def kept_table() -> pd.DataFrame:
    rows = [
        {"file": name, "characters": len(text) if not text.startswith(BINARY_MARK) else None}
        for name, text in files().items()
    ]
    if manifest() is not None:
        name, text = manifest()
        rows.append({"file": f"{name} (manifest)", "characters": len(text)})
    import pandas as pd  # with the table, not with the sidebar

    return pd.DataFrame(rows, columns=["file", "characters"])


def build(inputs: store.Inputs, parser: str | None = None) -> Corpus:
    """The corpus ``inputs`` make: their documents as their manifest lists them, with its
    types, metadata, policy and questions (the QE JSON, when given, replaces its questions),
    or, without a manifest, in name order, each with its type inferred. Documents a manifest
    does not list follow in name order. ``parser``: the HTML and PDF reading (None: the default)."""
    documents = [Source(name, source_data(text)) for name, text in sorted(inputs.documents.items())]
    if inputs.manifest is None:
        return build_corpus(documents, inputs.qe, parser=parser)
    where, text = inputs.manifest
    by_name = dict(inputs.documents)

    def fetch(path: str) -> str | bytes | None:
        kept = by_name.get(path, by_name.get(PurePosixPath(path).name))
        return None if kept is None else source_data(kept)

    listed_names = {PurePosixPath(path).name for path in _paths(text)}
    extra = [d for d in documents if PurePosixPath(d.name).name not in listed_names]
    return build_collection(text, fetch, inputs.qe, where=where, extra=extra, parser=parser)


def _paths(text: str) -> list[str]:
    """The paths a manifest lists (its own checks report what is wrong with them)."""
    data = json_or_none(text)
    items = data.get("documents") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return []
    return [
        str(item.get("path") if isinstance(item, dict) else item)
        for item in items
        if isinstance(item, (str, dict))
    ]


def draw(put_questions: Callable[[str], None]) -> None:
    """Several documents (and a manifest) at once: the uploader, what is kept, and why a file
    was refused."""
    st.file_uploader(
        "Upload several documents (markdown, plain text, reStructuredText, HTML, PDF or DOCX, "
        "with or without an extension) "
        "and, if you have one, a collection.json manifest naming their types, metadata and "
        "chunking policy",
        type=None,  # any name: a file that is not text is refused with its reason
        accept_multiple_files=True,
        key=UPLOADER,
        on_change=take_files,
        args=(put_questions,),
        max_upload_size=UPLOAD_MB,
    )
    for message in st.session_state.get(ERRORS, []):
        st.error(f"Not kept: {md_escape(message)}")
    kept = kept_table()
    if len(kept):
        st.dataframe(kept, hide_index=True)
        st.caption(
            "These files are checked together with the document pasted above (when it has "
            "text) and the QE JSON. Without a manifest each document's type is inferred. A "
            "loaded collection is kept on the server with its files, so its link reopens it."
        )
        st.button("Clear the uploaded files", on_click=clear, type="tertiary")
    with st.expander("collection.json format"):
        st.code(MANIFEST_EXAMPLE, language="json")
        st.markdown(MANIFEST_HELP)
