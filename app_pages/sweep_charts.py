"""Sweep charts: recall against the context budget and the chunk size, and their grid."""

import json

import pandas as pd
import streamlit as st

from lab import DEFAULT_BUDGETS, DEFAULT_SIZES, csv_text, scored_on_training
from ui import cache, choices, draw, state, sweeps

settings = state.current()
corpus = cache.corpus(settings.corpus, settings.parser)
budgets = tuple(sorted({*DEFAULT_BUDGETS, settings.budget}))
sizes = tuple(sorted({*DEFAULT_SIZES, settings.size}))

st.title("Sweep charts")
st.caption(
    f"{settings.split} questions · budgets {', '.join(map(str, budgets))} words · sizes "
    f"{', '.join(map(str, sizes))} characters · {draw.REFS_NOTE[settings.refs]}. One panel per "
    "chunker, a colour per retrieval mode; solid lines: complete recall, its 95% interval "
    "shaded; dashed: partial. A thin line inside a wide one: equal recall."
    + (" Diamonds: the adaptive budget at its mean budget." if settings.adaptive else "")
    + state.retrieval_note(settings, " Retrieval: ")
)
if not corpus.split(settings.split):
    st.info(f"This corpus has no {settings.split} questions: choose another split in the sidebar.")
    st.stop()  # the sidebar's share link is already drawn

draw.training_notices(corpus, settings.split, settings.chunkers, settings.adaptive)
bar = st.progress(0.0, text="Sweeping…")
rows = cache.sweep_rows(
    corpus,
    settings.config,
    budgets,
    sizes,
    progress=lambda done, total, what: bar.progress(
        done / total, text=f"Sweeping: {what}… ({done} of {total} done)" if what else "Drawing…"
    ),
)
bar.empty()
frame = pd.DataFrame(rows)
fixed = frame[~frame["adaptive"]] if "adaptive" in frame else frame  # adaptive: budget curve points
grid = f"sweep {settings.config!r} {budgets} {sizes}"  # everything the sweep's views depend on
modes = sweeps.modes_drawn(settings.modes)
trained = scored_on_training(corpus, settings.split, settings.chunkers)

lines = (
    ("budget", "size", settings.size, f"Recall against budget (L = {settings.size})"),
    ("size", "budget", settings.budget, f"Recall against chunk size (budget = {settings.budget})"),
)
for x, held, value, title in lines:
    st.subheader(title)
    part = frame[frame[held] == value] if x == "budget" else fixed[fixed[held] == value]
    data = cache.view(corpus, (grid, x, modes), sweeps.sweep_data, part, modes)
    st.html(sweeps.key_html(modes, settings.dense))
    sweeps.panels(
        [
            (cache.spec(sweeps.sweep_panel, x, c, modes, c in trained), data[data["chunker"] == c])
            for c in settings.chunkers
        ]
    )

st.subheader("Budget × size")
measure = choices.page_selectbox("Heatmap shows", ["complete", "partial"], key="heat")
data = cache.view(corpus, (grid, measure), sweeps.heatmap_data, fixed, measure)
st.caption(
    f"Columns: budget (words); rows: chunk size L (characters). Each cell: {measure} recall in "
    f"percent; ✕: {sweeps.NO_FIT}."
)
sweeps.panels(
    [
        (
            cache.spec(sweeps.heatmap_panel, measure, c, m),
            data[(data["chunker"] == c) & (data["mode"] == m)],
        )
        for c in settings.chunkers
        for m in modes
    ]
)

st.subheader("Export")
draw.downloads(
    [
        ("Sweep (CSV)", csv_text(frame), "sweep.csv", "text/csv"),
        (
            "Sweep (JSON)",
            lambda: json.dumps({"settings": settings.params(), "rows": rows}),
            "sweep.json",
            "application/json",
        ),
    ]
)
