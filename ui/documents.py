"""Views of a collection shared by the index overview and the recall tables: its documents with
their types and the policy's chunker, recall by document type and by question, and the nudge
to put the policy (by-type) beside the single chunkers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from lab import (
    POLICY_CHUNKER,
    Corpus,
    LabConfig,
    LabResult,
    Question,
    describe_filter,
    percent_digits,
)

from . import cache
from .draw import VERDICTS, config_label, config_order, percent

SEVERAL = "several types"
QUESTION_CHARS = 70


def is_collection(of: Corpus) -> bool:
    return len(of.documents) > 1


def documents_table(of: Corpus, config: LabConfig) -> pd.DataFrame:
    """One row per document: name, type and where it came from, format, metadata, the chunker
    the policy gives it, characters, chunks under the policy, and questions with evidence in
    it."""
    index = cache.index(of, config, POLICY_CHUNKER)
    chunks = Counter(c.doc for c in index.chunks)
    asked = Counter(d for q in of.questions for d in q.docs)
    rows = []
    for d, (doc, info) in enumerate(zip(of.documents, of.info, strict=True)):
        choice = of.policy.resolve(info.type, config.size, config.overlap, config.dense is not None)
        chunker = choice.chunker + (f" (L = {choice.size})" if choice.size != config.size else "")
        rows.append(
            {
                "document": doc.name,
                "type": info.type,
                "type from": info.type_source,
                "format": "HTML (extracted text)" if info.format == "html" else info.format,
                "meta": info.describe_meta(),
                "by-type": chunker + (f" — {choice.note}" if choice.note else ""),
                "characters": len(doc.text),
                "chunks": chunks[d],
                "questions": asked[d],
            }
        )
    return pd.DataFrame(rows)


DOCUMENT_COLUMNS = {
    "document": st.column_config.TextColumn("Document"),
    "type": st.column_config.TextColumn("Type"),
    "type from": st.column_config.TextColumn(
        "Type from",
        help="given: the manifest (or --type) says so; inferred: read from its structure.",
    ),
    "format": st.column_config.TextColumn(
        "Read as",
        help="The reader the lab parsed this document with, chosen by its name's extension or "
        "its opening text.",
    ),
    "meta": st.column_config.TextColumn("Metadata", help="What question filters match against."),
    "by-type": st.column_config.TextColumn(
        "Policy (by-type)", help="The chunker the collection's policy gives this type."
    ),
    "characters": st.column_config.NumberColumn("Characters", format="%d"),
    "chunks": st.column_config.NumberColumn("Chunks", help="Chunks the policy makes of it."),
    "questions": st.column_config.NumberColumn("Questions", help="Questions with evidence in it."),
}


def policy_nudge(of: Corpus, chunkers: tuple[str, ...]) -> None:
    """On a collection of several types, offer to add the policy when it is not chosen."""
    if not is_collection(of) or POLICY_CHUNKER in chunkers or len(set(of.types)) < 2:
        return
    st.info(
        f"This collection mixes {len(set(of.types))} document types. **{POLICY_CHUNKER}** cuts "
        "each with the chunker its type maps to; add it to measure the policy beside the "
        "single chunkers.",
        icon=":material/category:",
    )
    st.button(
        f"Add {POLICY_CHUNKER} and table-rows",
        key="add_policy",
        on_click=_add_policy,
        args=(chunkers,),
    )


def _add_policy(chunkers: tuple[str, ...]) -> None:
    st.session_state["chunker"] = list(dict.fromkeys([*chunkers, "table-rows", POLICY_CHUNKER]))


def question_type(of: Corpus, q: Question) -> str:
    """The type of the documents a question's evidence is in (or "several types")."""
    types = {of.types[d] for d in q.docs}
    return types.pop() if len(types) == 1 else SEVERAL


def recall_by_type(result: LabResult, of: Corpus) -> tuple[pd.DataFrame, dict[str, int]]:
    """Complete recall per configuration (rows) and question type (columns): configurations
    down, so that every one of them shows on a projector, however many are chosen; and how
    many questions each type has."""
    frame = result.questions_frame()
    if frame.empty:
        return pd.DataFrame(), {}
    kind = {q.id: question_type(of, q) for q in of.questions}
    frame["type"] = frame["question"].map(kind)
    dense = result.config.dense is not None
    frame["configuration"] = [
        config_label(c, m, dense) for c, m in zip(frame["chunker"], frame["mode"], strict=True)
    ]
    table = frame.pivot_table(
        index="configuration", columns="type", values="complete", aggfunc="mean", sort=False
    )
    types = sorted(table.columns, key=lambda t: (t == SEVERAL, t))
    table = 100 * table.loc[config_order(result.config.chunkers, result.config.modes, dense), types]
    counts = frame.drop_duplicates("question")["type"].value_counts()
    return table.reset_index(), {t: int(counts[t]) for t in types}


def type_columns(counts: dict[str, int]) -> dict:
    """Each type's column, headed with its number of questions; percentages by the one
    rounding rule (each type's questions are few)."""
    columns = {"configuration": st.column_config.TextColumn("configuration", width=150)}
    for name, n in counts.items():
        columns[name] = percent(
            f"{name} ({n})",
            "green",
            f"Complete recall of the {n} questions whose evidence is in {name} documents.",
            percent_digits(n),
            92,
        )
    return columns


def recall_by_question(result: LabResult, of: Corpus) -> pd.DataFrame:
    """One row per question: its text, the documents its evidence is in (marked "· 2 docs"
    when several),
    its filter, and its verdict in every configuration (with the verdict without its filter
    after an arrow, where that differs)."""
    frame = result.questions_frame()
    if frame.empty:
        return pd.DataFrame()
    questions = {q.id: q for q in of.questions}
    dense = result.config.dense is not None
    labels = config_order(result.config.chunkers, result.config.modes, dense)
    cells: dict[str, dict[str, str]] = {}
    for row in frame.itertuples():
        verdict, unfiltered = row.verdict, row.verdict_without_filter
        if isinstance(unfiltered, str) and unfiltered != verdict:
            verdict += f" → {unfiltered} without filter"
        cells.setdefault(row.question, {})[config_label(row.chunker, row.mode, dense)] = verdict
    rows = []
    for qid, by_config in cells.items():
        q = questions[qid]
        text = " ".join(q.question.split())
        rows.append(
            {
                "question": f"{qid} · {len(q.docs)} docs" if q.multi_doc else qid,
                "text": text if len(text) <= QUESTION_CHARS else text[: QUESTION_CHARS - 1] + "…",
                **{label: by_config.get(label, "") for label in labels},
                "documents": ", ".join(of.documents[d].name for d in q.docs),
                "filter": describe_filter(q.filter),
            }
        )
    return pd.DataFrame(rows)


VERDICT_FILLS = dict(zip(VERDICTS, ("#d3f9d8", "#fff3bf", "#ffe3e3"), strict=True))


def styled_by_question(table: pd.DataFrame, labels: list[str]) -> pd.io.formats.style.Styler:
    """The by-question table with each verdict cell coloured."""
    return table.style.map(
        lambda cell: f"background-color: {VERDICT_FILLS.get(str(cell).split(' ', 1)[0], '')}",
        subset=labels,
    )


def by_question_view(
    table: pd.DataFrame, mode: str, chunkers: Sequence[str], dense: bool = False
) -> pd.DataFrame:
    """The by-question table for one retrieval mode: its chunkers' verdicts beside the
    question, so that a projector shows them all (a tab per mode)."""
    mine = [config_label(c, mode, dense) for c in chunkers]
    rest = [c for c in table.columns if c in QUESTION_COLUMNS]
    return table[[*rest[:2], *mine, *rest[2:]]]


def verdict_columns(mode: str, chunkers: Sequence[str], dense: bool = False) -> dict:
    """The by-question table's verdict columns of one mode, headed by chunker."""
    return {
        config_label(c, mode, dense): st.column_config.TextColumn(
            c, width=104, help=config_label(c, mode, dense)
        )
        for c in chunkers
    }


QUESTION_COLUMNS = {
    "question": st.column_config.TextColumn(
        "Question", width=90, help="· N docs: its evidence is in N documents."
    ),
    "text": st.column_config.TextColumn("Text", width=200),
    "documents": st.column_config.TextColumn("Evidence in"),
    "filter": st.column_config.TextColumn("Filter", help="Its metadata filter, if any."),
}
