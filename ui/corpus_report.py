"""The validation report of the user's corpus: what was found in each document, and each
question accepted or rejected with why."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import streamlit as st

from lab import Corpus

from . import cache
from .draw import md_escape, short

if TYPE_CHECKING:  # pandas comes with the first table, not with the sidebar
    import pandas as pd

REPORT = "yc_report"


def _frame(rows: list | None = None, **options) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(rows, **options)


@dataclass(frozen=True)
class Report:
    """What happened to the last input checked: the refusal, or the documents (one row each,
    with what was found in it) and the questions accepted and rejected (one row per question or
    problem)."""

    refused: str | None = None
    document: dict = field(default_factory=dict)
    documents: pd.DataFrame = field(default_factory=_frame)
    rows: pd.DataFrame = field(default_factory=_frame)
    accepted: int = 0
    rejected: int = 0
    warnings: int = 0
    train: int = 0
    test: int = 0


def documents_frame(corpus: Corpus) -> pd.DataFrame:
    """Per document: its type (and how it was decided), format, size, structure, the questions
    with evidence in it, and what was read leniently or left out."""
    notes: dict[str, list[str]] = {}
    for e in corpus.errors:
        if e.document is not None:
            notes.setdefault(e.document, []).append(e.message)
    asked = {d: 0 for d in range(len(corpus.documents))}
    for q in corpus.questions:
        for d in q.docs:
            asked[d] += 1
    rows = [
        {
            "document": doc.name,
            "type": info.type,
            "type from": info.type_source,
            "format": info.format,  # the reader the engine parsed it with
            "characters": len(doc.text),
            "headings": doc.heading_count,
            "tables": len(doc.tables),
            "questions": asked[d],
            "notes": " ".join(notes.pop(doc.name, [])) or "—",
        }
        for d, (doc, info) in enumerate(zip(corpus.documents, corpus.info, strict=True))
    ]
    rows += [  # documents that could not be used
        {"document": name, "type": "—", "notes": " ".join(messages)}
        for name, messages in notes.items()
    ]
    return _frame(rows)


def plural(count: int, noun: str, many: str | None = None) -> str:
    """ "1 problem", "2 problems"."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def report_for(corpus: Corpus, asked: Mapping[str, str] | None = None) -> Report:
    """The validation report of a corpus built from the user's input; ``asked`` maps the ids
    of the questions as given to their text, so a rejected question shows what it asked."""
    asked = asked or {}
    warned: dict[str, list[str]] = {}
    rows = []
    for e in corpus.errors:
        if e.document is not None and e.question is None:
            continue  # in the documents table
        if e.severity == "warning" and e.question is not None:
            warned.setdefault(e.question, []).append(e.message)
        else:
            rows.append(
                {
                    "question": e.question or "—",
                    "text": short(asked.get(e.question or "", ""), 80),
                    "status": "rejected",
                    "why": e.message,
                }
            )
    for q in corpus.questions:
        notes = warned.get(q.id, [])
        rows.append(
            {
                "question": q.id,
                "text": short(q.question, 80),
                "status": "accepted with a warning" if notes else "accepted",
                "why": " ".join(notes)
                or f"{plural(len(q.evidence), 'evidence span')} found ({q.split})",
            }
        )
    order = {"rejected": 0, "accepted with a warning": 1, "accepted": 2}
    frame = _frame(rows, columns=["question", "text", "status", "why"])
    frame = frame.sort_values("status", key=lambda s: s.map(order), kind="stable")
    docs = corpus.documents
    return Report(
        document={
            "name": corpus.name,
            "documents": len(docs),
            "characters": sum(len(d.text) for d in docs),
            "headings": sum(d.heading_count for d in docs),
            "provisions": sum(len(d.provisions) for d in docs),
            "cross-references": sum(len(d.references) for d in docs),
        },
        documents=documents_frame(corpus),
        rows=frame.reset_index(drop=True),
        accepted=len(corpus.questions),
        rejected=sum(1 for e in corpus.errors if e.severity == "error"),
        warnings=sum(1 for e in corpus.errors if e.severity == "warning"),
        train=len(corpus.split("train")),
        test=len(corpus.split("test")),
    )


READ_AS = st.column_config.TextColumn(
    "Read as",
    help="The reader the lab parsed this document with, chosen by its name's extension or its "
    "opening text.",
)
DOCUMENT_REPORT_COLUMNS = {
    "document": st.column_config.TextColumn("Document"),
    "format": READ_AS,
    "type from": st.column_config.TextColumn("Type from"),
    "questions": st.column_config.NumberColumn("Questions", help="Questions with evidence in it."),
    "notes": st.column_config.TextColumn("Notes", width="large"),
}
QUESTION_REPORT_COLUMNS = {
    "question": st.column_config.TextColumn("Question", width="small"),
    "text": st.column_config.TextColumn("Text", width="medium"),
    "status": st.column_config.TextColumn("Status", width="small"),
    "why": st.column_config.TextColumn("Why", width="large"),
}


def draw_report() -> None:
    """The validation report of the last input checked, if any."""
    report = st.session_state.get(REPORT)
    if report is None:
        return
    st.subheader("Validation report")
    if report.refused:
        still = (
            "Your previously loaded corpus is still in use."
            if cache.USER_CORPUS_KEY in st.session_state
            else "The app keeps using the bundled handbook."
        )
        st.error(
            f"Nothing was loaded: {md_escape(report.refused)} Your text is kept above. {still}"
        )
        return
    cols = st.columns(5)
    many = report.document["documents"] > 1
    cols[0].metric(
        "Documents" if many else "Characters",
        report.document["documents"] if many else f"{report.document['characters']:,}",
    )
    cols[1].metric("Provisions", report.document["provisions"])
    cols[2].metric("Cross-references", report.document["cross-references"])
    split = f"{report.train} train · {report.test} test"
    cols[3].metric("Questions accepted", report.accepted, split, delta_color="off")
    warned = plural(report.warnings, "warning") if report.warnings else None
    cols[4].metric("Problems", report.rejected, warned, delta_color="off")
    if report.rejected:
        st.warning(
            f"{plural(report.rejected, 'problem')} left questions out; "
            f"{plural(report.accepted, 'valid question')} "
            f"{'runs' if report.accepted == 1 else 'run'}. Each reason is in the table."
        )
    if report.accepted and not report.train:
        st.info(
            'No question has "split": "train": qes-dp and qes-greedy will run untrained, no '
            "better informed than a plain chunker."
        )
    if not report.accepted:
        st.info(
            "No questions were accepted: the index overview and chunk graph work; recall needs "
            "questions whose evidence is found in the document."
        )
    if many or report.documents["notes"].ne("—").any():
        st.markdown("**What was found in each document**")
        st.dataframe(report.documents, hide_index=True, column_config=DOCUMENT_REPORT_COLUMNS)
    if len(report.rows):
        st.dataframe(report.rows, hide_index=True, column_config=QUESTION_REPORT_COLUMNS)
