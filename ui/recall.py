"""The recall tables page's views: recall per configuration, the headline, the recall chart and
the question x configuration verdict matrix."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from lab import Corpus, LabResult

from .draw import (
    MEASURE_COLORS,
    VERDICT_COLORS,
    VERDICTS,
    config_label,
    config_order,
    percent,
    question_label,
)

MATRIX_QUESTIONS = 300  # the verdict matrix shows at most this many questions
LABEL_CHARS = 64  # question text beside the matrix, cut at a word


def recall_table(result: LabResult) -> pd.DataFrame:
    """One row per chunker x mode: recall, gap and context size."""
    m = result.metrics_frame()
    return pd.DataFrame(
        {
            "configuration": [
                config_label(c, d) for c, d in zip(m["chunker"], m["mode"], strict=True)
            ],
            "complete": m["complete"],
            "partial": m["partial"],
            "gap": m["gap"],
            "context words": m["mean_context_words"].round(1),
            "chunks picked": m["mean_chunks"].round(2),
            "MRR": m["mrr"].round(3),
            "questions": m["questions"],
        }
    )


RECALL_COLUMNS = {
    "complete": percent(
        "Complete recall", "green", "Share of questions with all their evidence in the context."
    ),
    "partial": percent(
        "Partial recall", "blue", "Share of questions with some of their evidence in the context."
    ),
    "gap": percent("Gap", "orange", "Partial minus complete: questions answered only in part."),
    "context words": st.column_config.NumberColumn(
        "Context words", help="Mean words in the assembled context."
    ),
    "chunks picked": st.column_config.NumberColumn(
        "Chunks picked", help="Mean chunks in the context."
    ),
}


def headline(table: pd.DataFrame) -> None:
    """The best complete recall, its partial recall, and the widest gap, as metrics."""
    best = table.loc[table["complete"].idxmax()]
    widest = table.loc[table["gap"].idxmax()]
    cards = (
        ("Best complete recall", best["complete"], best["configuration"]),
        ("Its partial recall", best["partial"], f"gap {best['gap']:.0%}"),
        ("Widest gap", widest["gap"], widest["configuration"]),
    )
    for column, (label, value, note) in zip(st.columns(3), cards, strict=True):
        column.metric(label, f"{value:.0%}", note, delta_color="off", delta_arrow="off")


def recall_data(table: pd.DataFrame) -> pd.DataFrame:
    """The recall table in long form (one row per configuration and measure) for the chart."""
    order = pd.Series(range(len(table)), index=table.index, name="order")
    labelled = table.assign(
        order=order, end=table["partial"], label=table["complete"].map("{:.0%}".format)
    )
    return labelled.melt(
        id_vars=["configuration", "order", "gap", "end", "label"],
        value_vars=["partial", "complete"],
        var_name="measure",
        value_name="recall",
        ignore_index=True,
    )


def recall_chart() -> alt.LayerChart:
    """Partial recall as a pale bar with complete recall inside it: the pale rest is the gap.
    Data: :func:`recall_data` as ``rows``."""
    y = alt.Y("configuration:N", sort=alt.EncodingSortField("order"), title=None)
    bars = (
        alt.Chart()
        .mark_bar(height={"band": 0.7})
        .encode(
            x=alt.X(
                "recall:Q",
                stack=None,
                scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%"),
                title="recall",
            ),
            y=y,
            color=alt.Color(
                "measure:N",
                scale=alt.Scale(domain=list(MEASURE_COLORS), range=list(MEASURE_COLORS.values())),
                legend=alt.Legend(title=None, orient="top"),
            ),
            order=alt.Order("measure:N", sort="descending"),
            tooltip=[
                alt.Tooltip("configuration:N"),
                alt.Tooltip("measure:N"),
                alt.Tooltip("recall:Q", format=".0%"),
                alt.Tooltip("gap:Q", format=".0%"),
            ],
        )
    )
    labels = (
        alt.Chart()
        .transform_filter(alt.datum.measure == "complete")
        .mark_text(align="left", dx=4, fontSize=11)
        .encode(x="end:Q", y=y, text="label:N")
    )
    return alt.layer(bars, labels, data=alt.Data(name="rows")).properties(height=alt.Step(24))


def verdict_data(result: LabResult, corpus: Corpus) -> pd.DataFrame:
    """One row per question and configuration, in corpus and configuration order."""
    frame = result.questions_frame()
    ids = list(dict.fromkeys(frame["question"]))[:MATRIX_QUESTIONS]
    frame = frame[frame["question"].isin(ids)]
    text = {q.id: q.question for q in corpus.questions}
    configs = config_order(result.config.chunkers, result.config.modes)
    labels = [config_label(c, m) for c, m in zip(frame["chunker"], frame["mode"], strict=True)]
    return pd.DataFrame(
        {
            "question": frame["question"],
            "label": frame["question"].map(lambda q: question_label(q, text[q], LABEL_CHARS)),
            "text": frame["question"].map(text),
            "configuration": labels,
            "verdict": frame["verdict"],
            "diagnosis": frame["diagnosis"].replace("", "—"),
            "context words": frame["context_words"],
            "q_order": frame["question"].map({q: k for k, q in enumerate(ids)}),
            "c_order": [configs.index(label) for label in labels],
        }
    )


def verdict_matrix() -> alt.Chart:
    """Questions down, configurations across, each cell coloured by its verdict.
    Data: :func:`verdict_data` as ``rows``."""
    return (
        alt.Chart(alt.Data(name="rows"))
        .mark_rect(stroke="white", strokeWidth=1)
        .encode(
            x=alt.X(
                "configuration:N",
                sort=alt.EncodingSortField("c_order"),
                title=None,
                # slanted labels sit side by side; their boxes overlap, the text does not
                axis=alt.Axis(labelAngle=-45, orient="top", labelOverlap=False),
            ),
            y=alt.Y(
                "label:N",
                sort=alt.EncodingSortField("q_order"),
                title=None,
                axis=alt.Axis(labelLimit=420),
            ),
            color=alt.Color(
                "verdict:N",
                scale=alt.Scale(domain=list(VERDICTS), range=list(VERDICT_COLORS)),
                legend=alt.Legend(title=None, orient="bottom"),
            ),
            tooltip=[
                "question:N",
                "text:N",
                "configuration:N",
                "verdict:N",
                "diagnosis:N",
                "context words:Q",
            ],
        )
        .properties(height=alt.Step(22))
    )
