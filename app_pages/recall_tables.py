"""Recall tables: partial vs complete recall per chunker and mode, and every question's verdict."""

import json

import streamlit as st

from lab import csv_text, question_count
from ui import cache, documents, draw, recall, state

settings = state.current()
corpus = cache.corpus(settings.corpus, settings.parser)

st.title("Recall tables")
st.caption(
    f"{question_count(len(corpus.split(settings.split)), settings.split)} · L = {settings.size} "
    f"{state.size_unit(settings)} · {state.budget_note(settings)} · "
    f"{draw.REFS_NOTE[settings.refs]}. "
    "Complete: all evidence in the context; partial: some of it."
    + state.retrieval_note(settings, " Retrieval: ")
)
result = cache.lab(corpus, settings.config)
table = recall.recall_table(result)
if table["questions"].eq(0).all():
    st.info(f"This corpus has no {settings.split} questions: choose another split in the sidebar.")
    st.stop()  # the sidebar's share link is already drawn

draw.training_notices(corpus, settings.split, settings.chunkers, settings.adaptive)
cache.parents_notice(corpus, settings.config)
recall.headline(result)
n = len(corpus.split(settings.split))
st.dataframe(
    recall.recall_view(table),
    column_config=recall.recall_columns(n, settings.tokenizer),
    hide_index=True,
)
draw.chart(cache.spec(recall.recall_chart), rows=recall.recall_data(table))
st.caption("Whiskers: Wilson 95% intervals. Bars whose whiskers overlap are not told apart.")

st.subheader("Ranking depth")
depth = cache.view(corpus, ("depth", settings.config), recall.depth_table, result)
st.dataframe(recall.depth_view(depth), column_config=recall.depth_columns(n), hide_index=True)
st.caption(
    "Before the budget cuts it: where each question's evidence sits in the ranking. Found in the "
    "top 10 but not the top 3 means ranking is the problem and a reranker is worth testing; not "
    "in the top 10 means retrieval or chunking is. Compare a change on the **Compare** page."
)

filtered = sum(1 for q in corpus.split(settings.split) if q.filter)
if filtered and settings.filters:
    st.caption(
        f"{filtered} questions carry a metadata filter: retrieval ranks only the chunks of "
        "documents whose metadata match it. The grey columns give recall with the filters off; "
        "evidence in a document a filter left out is diagnosed **filtered out**."
    )
elif filtered:
    st.caption(
        f"{filtered} questions carry a metadata filter, switched off in the sidebar: every "
        "question ranks every document. The **Compare** page sets filters on against off."
    )
if documents.is_collection(corpus):
    documents.policy_nudge(corpus, settings.chunkers)
    st.subheader("By document type")
    st.caption(
        "Complete recall of the questions whose evidence is in documents of each type (in "
        "brackets: how many questions), per configuration."
    )
    by_type, counts = cache.view(
        corpus, ("by type", settings.config), documents.recall_by_type, result, corpus
    )
    st.dataframe(by_type, column_config=documents.type_columns(counts), hide_index=True)
    st.subheader("By question")
    st.caption(
        "Each question's verdict in every configuration, a tab per retrieval mode; **· 2 docs** "
        "marks a question whose evidence is in two documents."
    )
    by_question = cache.view(
        corpus, ("by question", settings.config), documents.recall_by_question, result, corpus
    )
    names = [draw.mode_name(m, settings.dense) for m in settings.modes]
    for tab, mode in zip(st.tabs(names), settings.modes, strict=True):
        shown = documents.by_question_view(by_question, mode, settings.chunkers, settings.dense)
        labels = [c for c in shown.columns if c not in documents.QUESTION_COLUMNS]
        tab.dataframe(
            documents.styled_by_question(shown, labels),
            column_config=documents.QUESTION_COLUMNS
            | documents.verdict_columns(mode, settings.chunkers, settings.dense),
            hide_index=True,
        )

st.subheader("Question × configuration")
verdicts = cache.view(corpus, ("verdicts", settings.config), recall.verdict_data, result, corpus)
draw.chart(cache.spec(recall.verdict_matrix, state.budget_unit(settings)), rows=verdicts)
if len(corpus.split(settings.split)) > recall.MATRIX_QUESTIONS:
    st.info(
        f"The matrix shows the first {recall.MATRIX_QUESTIONS} questions; the exports hold all."
    )

st.subheader("Export")
draw.downloads(
    [
        ("Recall table (CSV)", csv_text(table), "recall.csv", "text/csv"),
        ("Ranking depth (CSV)", csv_text(depth), "depth.csv", "text/csv"),
        (
            "Per question (CSV)",
            lambda: csv_text(result.questions_frame()),
            "questions.csv",
            "text/csv",
        ),
        (
            "Full results (JSON)",
            lambda: json.dumps(result.to_dict(), indent=1),
            "results.json",
            "application/json",
        ),
    ]
)
