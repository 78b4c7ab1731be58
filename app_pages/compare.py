"""Compare: configuration A (from the sidebar) against B on the same questions: which questions
B fixed or broke, and whether the difference is more than noise."""

import json
from dataclasses import replace

import streamlit as st

from lab import csv_text, question_count, scored_on_training, uses_embeddings
from ui import cache, compare, draw, state

settings = state.current()
corpus = cache.corpus(settings.corpus, settings.parser)

st.title("Compare")
st.caption(
    f"{question_count(len(corpus.split(settings.split)), settings.split).capitalize()}. A is "
    "the sidebar's "
    f"configuration ({draw.REFS_NOTE[settings.refs]}); B is A with the settings below changed. "
    "Change one thing at a time, and look at which questions changed, not only the average."
)
if not corpus.split(settings.split):
    st.info(f"This corpus has no {settings.split} questions: choose another split in the sidebar.")
    st.stop()  # the sidebar's share link is already drawn

a = compare.choose_a(settings, cache.lab(corpus, settings.config))
if uses_embeddings(a.config):  # a BM25 side does not use the dense model: not named for it
    st.caption(state.retrieval_note(a, "A: "))
b = compare.edit_b(a, cache.readings(corpus))
draw.training_notices(
    corpus, settings.split, tuple(dict.fromkeys(a.chunkers + b.chunkers)), settings.adaptive
)
corpus_b = corpus if b.parser == a.parser else cache.corpus(settings.corpus, b.parser)
if corpus_b is None:
    st.error(f"The documents cannot be read with the {b.parser} parser.", icon=":material/error:")
    st.stop()
if a.config == replace(b.config, parser=a.config.parser) and corpus_b.digest == corpus.digest:
    st.info(
        "B is the same as A: change one of B's settings to compare."
        if b.parser == a.parser
        else f"The {a.parser} and {b.parser} parsers read these documents alike: change "
        "another of B's settings to compare.",
        icon=":material/info:",
    )
    st.stop()

result = cache.comparison(corpus, a.config, b.config)
compare.differences_note(
    result, scored_on_training(corpus, settings.split, a.chunkers + b.chunkers)
)
if result.unmatched:
    st.info(draw.md_escape(result.unmatched), icon=":material/rule:")
compare.summary(result)
draw.chart(cache.spec(compare.recall_chart), stretch=False, rows=compare.recall_data(result))

st.subheader("Ranking depth")
for side, depth in (("A", result.depth_a), ("B", result.depth_b)):
    st.markdown(f"**{side}**: {draw.md_escape(depth.advice)}")

st.subheader("Question by question")
st.caption("Broken questions first, then fixed ones. The links open the question's drill-down.")
table = compare.question_table(result, a, b)
st.dataframe(
    compare.styled(table),
    column_config=compare.QUESTION_COLUMNS,
    hide_index=True,
    height="content" if len(table) <= compare.ROWS_SHOWN else 720,
)

st.subheader("Export")
draw.downloads(
    [
        ("Per question (CSV)", csv_text(result.frame()), "compare.csv", "text/csv"),
        (
            "Comparison (JSON)",
            lambda: json.dumps({"corpus": corpus.name, **result.to_dict()}, indent=1),
            "compare.json",
            "application/json",
        ),
    ]
)
