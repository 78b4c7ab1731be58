"""The recall tables page's views: recall per configuration with its uncertainty, the headline,
the recall chart, ranking depth and the question x configuration verdict matrix."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from lab import KS, Corpus, LabResult, leaders, percent_digits, percent_text, ranking_depth

from .draw import (
    MEASURE_COLORS,
    ON_TRAINING,
    UNTRAINED,
    VERDICT_COLORS,
    VERDICTS,
    as_percent,
    config_label,
    config_order,
    md_escape,
    on_training,
    percent,
    question_label,
)

MATRIX_QUESTIONS = 300  # the verdict matrix shows at most this many questions
LABEL_CHARS = 64  # question text beside the matrix, cut at a word


def recall_table(result: LabResult) -> pd.DataFrame:
    """One row per chunker x mode: recall with its Wilson 95% interval, gap and context size;
    when questions carry metadata filters, recall without them too; a supervised chunker with
    no train question to learn from is noted untrained."""
    m = result.metrics_frame()
    n = int(m["questions"].max()) if len(m) else 0
    dense = result.config.dense is not None
    untrained = {r.chunker for r in result.runs if r.index.train_questions == 0}
    trained = on_training(result)
    table = pd.DataFrame(
        {
            "configuration": [
                config_label(c, d, dense) for c, d in zip(m["chunker"], m["mode"], strict=True)
            ],
            "complete": m["complete"],
            "complete CI": interval_text(m["complete_low"], m["complete_high"], n),
            "partial": m["partial"],
            "partial CI": interval_text(m["partial_low"], m["partial_high"], n),
            "gap": m["gap"],
            "MRR": m["mrr"].round(3),
            "context words": m["mean_context_words"].round(1),
            "chunks picked": m["mean_chunks"].round(2),
            "questions": m["questions"],
            "complete_low": m["complete_low"],
            "complete_high": m["complete_high"],
            "partial_low": m["partial_low"],
            "partial_high": m["partial_high"],
            "note": [
                UNTRAINED if c in untrained else ON_TRAINING if c in trained else ""
                for c in m["chunker"]
            ],
        }
    )
    if "complete_without_filters" in m:
        table.insert(9, "complete w/o filters", m["complete_without_filters"])
        table.insert(10, "partial w/o filters", m["partial_without_filters"])
    return table


def interval_text(low: pd.Series, high: pd.Series, n: int) -> list[str]:
    return [
        f"{percent_text(lo, n).removesuffix('%')}–{percent_text(hi, n)}"
        for lo, hi in zip(low, high, strict=True)
    ]


SHARES = ("complete", "partial", "gap", "complete w/o filters", "partial w/o filters")


def recall_view(table: pd.DataFrame) -> pd.DataFrame:
    """The recall table as shown: its shares as percentages (the export keeps them 0-1)."""
    return as_percent(table, SHARES)


INTERVAL_HELP = (
    "Wilson 95% interval: with few questions one question moves the recall by several points, "
    "so the true recall on questions like these lies anywhere in this range."
)


def recall_columns(n: int, tokenizer: str | None = None) -> dict:
    """How the recall table shows, sized so that a 1280-pixel projector shows every column
    that matters (configuration, recalls, intervals, gap, MRR, context words) without scrolling
    sideways; percentages of ``n`` questions by the one rounding rule. With a ``tokenizer`` the
    context size counts its tokens."""
    d = percent_digits(n)
    unit = f"{tokenizer} tokens" if tokenizer else "words"
    return {
        "configuration": st.column_config.TextColumn("configuration", width=150),
        "complete": percent(
            "Complete",
            "green",
            "Complete recall: share of questions with all their evidence in the context.",
            d,
            100,
        ),
        "complete CI": st.column_config.TextColumn("95% CI", width=72, help=INTERVAL_HELP),
        "partial": percent(
            "Partial",
            "blue",
            "Partial recall: share of questions with some of their evidence in the context.",
            d,
            100,
        ),
        "partial CI": st.column_config.TextColumn("95% CI", width=72, help=INTERVAL_HELP),
        "gap": percent(
            "Gap", "orange", "Partial minus complete: questions answered only in part.", d, 90
        ),
        "MRR": st.column_config.NumberColumn(
            "MRR", width=56, help="Mean reciprocal rank of the first chunk holding evidence."
        ),
        "context words": st.column_config.NumberColumn(
            "Tokens" if tokenizer else "Words",
            width=64,
            help=f"Mean {unit} in the assembled context.",
        ),
        "chunks picked": st.column_config.NumberColumn(
            "Chunks", width=64, help="Mean chunks in the context."
        ),
        "complete w/o filters": percent(
            "Complete, no filters",
            "gray",
            "Complete recall with the questions' metadata filters switched off.",
            d,
        ),
        "partial w/o filters": percent(
            "Partial, no filters",
            "gray",
            "Partial recall with the metadata filters switched off.",
            d,
        ),
        "questions": None,
        "complete_low": None,
        "complete_high": None,
        "partial_low": None,
        "partial_high": None,
    }


def headline_text(result: LabResult) -> tuple[str, str] | None:
    """The best complete recall naming every tied configuration and the near-ties, and a note
    on its uncertainty and the widest gap; None without questions."""
    top = leaders(result)
    if top is None:
        return None
    n = top.questions
    widest = max(result.runs, key=lambda r: r.metrics.gap)
    low, high = top.interval
    note = (
        f"95% interval {percent_text(low, n)} – {percent_text(high, n)}. Each of the {n} "
        "questions is "
        f"{100 / n:.1f} points, so configurations a question apart are not told apart. "
        "Widest gap between partial and complete: "
        f"{config_label(widest.chunker, widest.mode, result.config.dense is not None)}, "
        f"{percent_text(widest.metrics.gap, n)}."
    )
    return f"Best complete recall {top.summary()}", note


def headline(result: LabResult) -> None:
    """The best complete recall, ties and near-ties named, with its uncertainty."""
    text = headline_text(result)
    if text is None:
        return
    with st.container(border=True):
        st.markdown(f"**{md_escape(text[0])}**")
        st.caption(md_escape(text[1]))


def recall_data(table: pd.DataFrame) -> pd.DataFrame:
    """The recall table in long form (one row per configuration and measure) for the chart, each
    row with its own Wilson interval and label."""
    order = pd.Series(range(len(table)), index=table.index, name="order")
    n = int(table["questions"].max()) if len(table) else 0
    rows = []
    for measure in ("partial", "complete"):
        rows.append(
            pd.DataFrame(
                {
                    "configuration": table["configuration"],
                    "order": order,
                    "measure": measure,
                    "recall": table[measure],
                    "low": table[f"{measure}_low"],
                    "high": table[f"{measure}_high"],
                    "label": table[measure].map(lambda x: percent_text(x, n)),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def recall_chart() -> alt.LayerChart:
    """Partial and complete recall as two bars per configuration, each with its Wilson 95%
    interval as a whisker and its own value as the label. Data: :func:`recall_data` as ``rows``."""
    y = alt.Y("configuration:N", sort=alt.EncodingSortField("order", op="min"), title=None)
    offset = alt.YOffset("measure:N", sort=list(MEASURE_COLORS))
    x = alt.X("recall:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%"), title="recall")
    tooltip = [
        alt.Tooltip("configuration:N"),
        alt.Tooltip("measure:N"),
        alt.Tooltip("recall:Q", format=".0%"),
        alt.Tooltip("low:Q", format=".0%", title="95% interval from"),
        alt.Tooltip("high:Q", format=".0%", title="to"),
    ]
    bars = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=x,
            y=y,
            yOffset=offset,
            color=alt.Color(
                "measure:N",
                scale=alt.Scale(domain=list(MEASURE_COLORS), range=list(MEASURE_COLORS.values())),
                legend=alt.Legend(title=None, orient="top"),
            ),
            tooltip=tooltip,
        )
    )
    whiskers = (
        alt.Chart()
        .mark_rule(color="#495057", strokeWidth=1.2)
        .encode(x="low:Q", x2="high:Q", y=y, yOffset=offset, tooltip=tooltip)
    )
    labels = (
        alt.Chart()
        .mark_text(align="left", dx=4, fontSize=13, color="#343a40")
        .encode(x="high:Q", y=y, yOffset=offset, text="label:N")
    )
    return alt.layer(bars, whiskers, labels, data=alt.Data(name="rows")).properties(
        height=alt.Step(14)
    )


FINDING_SHORT = {
    "ranking": "ranking",
    "retrieval or chunking": "retrieval/chunking",
    "neither": "—",
}
RATES = [f"{what}@{k}" for what in ("recall", "precision") for k in KS]


def depth_table(result: LabResult) -> pd.DataFrame:
    """One row per chunker x mode: recall@k and precision@k over the ranking, how many questions
    have all their evidence in the top 3, the top 10 only, or not in the top 10, and what that
    points at."""
    rows = []
    for r in result.runs:
        depth = ranking_depth(r.questions)
        m = r.metrics
        rows.append(
            {
                "configuration": config_label(r.chunker, r.mode, result.config.dense is not None),
                **{f"recall@{k}": m.recall_at[k] for k in KS},
                **{f"precision@{k}": m.precision_at[k] for k in KS},
                "top 3": depth.in_top,
                "top 10 only": depth.ranked_low,
                "beyond 10": depth.not_found,
                "points at": FINDING_SHORT[depth.finding],
                "advice": depth.advice,
            }
        )
    return pd.DataFrame(rows)


def depth_view(table: pd.DataFrame) -> pd.DataFrame:
    """The ranking depth table with its rates in percent, for display."""
    return as_percent(table, RATES)


def depth_columns(n: int) -> dict:
    """The ranking depth table's columns: rates of ``n`` questions by the one rounding rule;
    recall@1 and precision@1 (in the export) left out, so that a 1280-pixel projector shows the
    rest."""
    rate = f"%.{percent_digits(n)}f%%"
    return {
        "configuration": st.column_config.TextColumn("configuration", width=150),
        **{
            f"recall@{k}": st.column_config.NumberColumn(
                f"recall@{k}",
                format=rate,
                width=64,
                help=f"Share of the chunks holding evidence that rank in the top {k} (mean over "
                "questions).",
            )
            for k in KS
        },
        **{
            f"precision@{k}": st.column_config.NumberColumn(
                f"prec.@{k}",
                format=rate,
                width=64,
                help=f"Precision@{k}: share of the top {k} chunks that hold evidence (mean over "
                "questions).",
            )
            for k in KS
        },
        "recall@1": None,
        "precision@1": None,
        "top 3": None,
        "top 10 only": st.column_config.NumberColumn(
            "top 10, not 3",
            width=84,
            help="Questions whose evidence is all in the top 10 but not all in the top 3: found, "
            "ranked too low. A reranker can move it up.",
        ),
        "beyond 10": st.column_config.NumberColumn(
            "not in top 10",
            width=84,
            help="Questions whose evidence is not all in the top 10: a reranker cannot help; "
            "retrieval or chunking must change.",
        ),
        "points at": st.column_config.TextColumn(
            "points at",
            width=120,
            help="ranking: more questions have their evidence in the top 10 but not the top 3 than "
            "outside the top 10, so a reranker is worth testing. retrieval/chunking: more are "
            "outside the top 10.",
        ),
        "advice": None,
    }


def verdict_data(result: LabResult, corpus: Corpus) -> pd.DataFrame:
    """One row per question and configuration, in corpus and configuration order."""
    frame = result.questions_frame()
    ids = list(dict.fromkeys(frame["question"]))[:MATRIX_QUESTIONS]
    frame = frame[frame["question"].isin(ids)]
    text = {q.id: q.question for q in corpus.questions}
    dense = result.config.dense is not None
    configs = config_order(result.config.chunkers, result.config.modes, dense)
    labels = [
        config_label(c, m, dense) for c, m in zip(frame["chunker"], frame["mode"], strict=True)
    ]
    return pd.DataFrame(
        {
            "question": frame["question"],
            "label": frame["question"].map(lambda q: question_label(q, text[q], LABEL_CHARS)),
            "text": frame["question"].map(text),
            "configuration": labels,
            "verdict": frame["verdict"],
            "diagnosis": frame["diagnosis"].replace("", "—"),
            "context words": frame[
                "context_tokens" if result.config.tokenizer else "context_words"
            ],
            "q_order": frame["question"].map({q: k for k, q in enumerate(ids)}),
            "c_order": [configs.index(label) for label in labels],
        }
    )


def verdict_matrix(unit: str = "words") -> alt.Chart:
    """Questions down, configurations across, each cell coloured by its verdict (``unit``: what
    the context size in the tooltip counts). Data: :func:`verdict_data` as ``rows``."""
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
                alt.Tooltip("context words:Q", title=f"context {unit}"),
            ],
        )
        .properties(height=alt.Step(22))
    )
