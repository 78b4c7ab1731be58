"""Recall tables: partial vs complete recall per chunker and mode, and every question's verdict."""

import json

import streamlit as st

from ui import cache, draw, recall, state

settings = state.current()
corpus = cache.corpus(settings.corpus)

st.title("Recall tables")
st.caption(
    f"{len(corpus.split(settings.split))} {settings.split} questions · L = {settings.size} "
    f"characters · budget = {settings.budget} words. Complete: all evidence in the context; "
    "partial: some of it." + state.retrieval_note(settings, " Retrieval: ")
)
result = cache.lab(corpus, settings.config)
table = recall.recall_table(result)
if table["questions"].eq(0).all():
    st.info(f"This corpus has no {settings.split} questions: choose another split in the sidebar.")
    st.stop()  # the sidebar's share link is already drawn

recall.headline(table)
st.dataframe(table, column_config=recall.RECALL_COLUMNS, hide_index=True)
draw.chart(cache.spec(recall.recall_chart), rows=recall.recall_data(table))

st.subheader("Question × configuration")
verdicts = cache.view(corpus, ("verdicts", settings.config), recall.verdict_data, result, corpus)
draw.chart(cache.spec(recall.verdict_matrix), rows=verdicts)
if len(corpus.split(settings.split)) > recall.MATRIX_QUESTIONS:
    st.info(
        f"The matrix shows the first {recall.MATRIX_QUESTIONS} questions; the exports hold all."
    )

st.subheader("Export")
draw.downloads(
    [
        ("Recall table (CSV)", table.to_csv(index=False), "recall.csv", "text/csv"),
        (
            "Per question (CSV)",
            lambda: result.questions_frame().to_csv(index=False),
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
