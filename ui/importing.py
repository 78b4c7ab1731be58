"""Your corpus accepts the question sets other tools write (Chroma's chunking_evaluation, SQuAD,
ragas, parallel lists / BEIR): the files are recognised, imported with the loader's checks, and
their documents and QE JSON put in the inputs above, to check and load like any other."""

from __future__ import annotations

import streamlit as st

from lab import IMPORT_FORMATS, CorpusError, import_dataset, open_files, qe_text, recognise

from . import corpus_input, uploads
from .draw import md_escape

UPLOADER = "yc_import_upload"
REPORT = "yc_import_report"
TYPES = ["csv", "json", "jsonl", "tsv", "md", "markdown", "txt", "html", "htm"]
TYPES += ["zip", "tar", "gz", "tgz", "bz2", "xz"]  # the dataset's folder as an archive
NAMES = {
    "chroma": "Chroma's chunking_evaluation (questions_df.csv and the corpora)",
    "squad": "SQuAD",
    "ragas": "a ragas test set",
    "lists": "corpus, questions and relevant passages as lists",
}


def take_import() -> None:
    """Recognise and import the uploaded files into the inputs (an ``on_change`` callback)."""
    chosen = st.session_state.get(UPLOADER) or []
    if not chosen:
        return
    try:
        files = open_files({f.name: f.getvalue() for f in chosen})
    except CorpusError as exc:
        st.session_state[REPORT] = ("error", str(exc), [])
        return
    format = recognise(files)
    if format is None:
        st.session_state[REPORT] = ("error", "These files are in none of the formats listed.", [])
        return
    try:
        imported = import_dataset(format, files)
    except (CorpusError, ValueError) as exc:
        st.session_state[REPORT] = ("error", f"Read as {NAMES[format]}, but: {exc}", [])
        return
    problems = [
        f"{p.question + ': ' if p.question else ''}{p.message}"
        for p in imported.problems
        if p.severity == "error" or not p.question
    ]
    if not imported.questions:
        st.session_state[REPORT] = (
            "error",
            f"Read as {NAMES[format]}; no question could be used.",
            problems,
        )
        return
    uploads.restore(dict(imported.documents), None)
    corpus_input.put(corpus_input.DOC, "")
    corpus_input.put(corpus_input.QE, qe_text(list(imported.questions)))
    message = (
        f"Read as {NAMES[format]}: {len(imported.questions)} question(s) over "
        f"{len(imported.documents)} document(s), now in the inputs above. Check and load them."
    )
    st.session_state[REPORT] = ("success", message, problems)


def draw() -> None:
    st.file_uploader(
        "…or import a question set from another tool: "
        + "; ".join(NAMES[f] for f in IMPORT_FORMATS)
        + " (upload its files together, or its folder as a .zip or .tar.xz)",
        type=TYPES,
        accept_multiple_files=True,
        key=UPLOADER,
        on_change=take_import,
        max_upload_size=uploads.UPLOAD_MB,
    )
    report = st.session_state.get(REPORT)
    if report:
        kind, message, problems = report
        getattr(st, kind)(md_escape(message))
        for problem in problems[:10]:
            st.caption(md_escape(problem))
        if len(problems) > 10:
            st.caption(f"…and {len(problems) - 10} more.")
