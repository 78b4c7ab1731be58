"""The sweep charts page's views: recall lines against budget and size, and the grid heatmap."""

from __future__ import annotations

import altair as alt
import pandas as pd

from .draw import CHUNKER_COLORS

NO_FIT = "no chunk fits the budget"


def sweep_data(frame: pd.DataFrame, mode: str) -> pd.DataFrame:
    """Sweep rows of one mode in long form (complete and partial) for :func:`sweep_lines`."""
    data = frame[frame["mode"] == mode].assign(
        fit=lambda f: f["fits"].map({True: "", False: NO_FIT}),
        too_long=lambda f: f["over_budget_chunks"].astype(str) + " of " + f["chunks"].astype(str),
    )
    return data.melt(
        id_vars=["chunker", "size", "budget", "fit", "too_long"],
        value_vars=["complete", "partial"],
        var_name="measure",
        value_name="recall",
    )


def sweep_lines(x: str, mode: str, chunkers: tuple[str, ...]) -> alt.LayerChart:
    """Complete (solid) and partial (dashed) recall against ``x`` ("budget" or "size"), one line
    per chunker, with a red cross wherever no chunk of the index fits the budget.
    Data: :func:`sweep_data` as ``rows``."""
    base = alt.Chart().encode(
        x=alt.X(f"{x}:Q", title="budget (words)" if x == "budget" else "chunk size L (characters)"),
        y=alt.Y("recall:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%")),
        color=alt.Color(
            "chunker:N",
            scale=alt.Scale(domain=list(chunkers), range=[CHUNKER_COLORS[c] for c in chunkers]),
            legend=alt.Legend(orient="top", title=None, columns=3),
        ),
        strokeDash=alt.StrokeDash(
            "measure:N",
            scale=alt.Scale(domain=["complete", "partial"], range=[[1, 0], [4, 3]]),
            legend=alt.Legend(
                orient="bottom",
                title=None,
                symbolType="stroke",
                symbolStrokeColor="#495057",
                symbolStrokeWidth=2,
            ),
        ),
        tooltip=[
            alt.Tooltip("chunker:N"),
            alt.Tooltip("measure:N"),
            alt.Tooltip("recall:Q", format=".0%"),
            alt.Tooltip("budget:Q"),
            alt.Tooltip("size:Q"),
            alt.Tooltip("too_long:N", title="chunks over budget"),
            alt.Tooltip("fit:N", title="note"),
        ],
    )
    lines = base.mark_line(point=True)
    crosses = (
        base.transform_filter((alt.datum.fit == NO_FIT) & (alt.datum.measure == "complete"))
        .mark_point(shape="cross", size=140, filled=True, strokeWidth=0)
        .encode(color=alt.value("#c92a2a"))
    )
    return alt.layer(lines, crosses, data=alt.Data(name="rows")).properties(
        title=f"{mode} retrieval", height=360
    )


def heatmap_data(frame: pd.DataFrame, measure: str) -> pd.DataFrame:
    """Sweep rows with each cell's label: the recall, or ✕ where no chunk fits the budget."""
    return frame.assign(
        label=lambda f: f[measure].map("{:.0%}".format).where(f["fits"], "✕"),
        too_long=lambda f: f["over_budget_chunks"].astype(str) + " of " + f["chunks"].astype(str),
        note=lambda f: f["fits"].map({True: "", False: NO_FIT}),
    )


def sweep_heatmap(measure: str, chunkers: tuple[str, ...]) -> alt.FacetChart:
    """Budget x size grid of ``measure`` recall, one panel per chunker and mode.
    Data: :func:`heatmap_data` as ``rows``."""
    base = alt.Chart().encode(
        x=alt.X("budget:O", title="budget (words)", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("size:O", title="L (characters)", sort="descending"),
    )
    cells = base.mark_rect(stroke="white").encode(
        color=alt.condition(
            "datum.fits",
            alt.Color(
                f"{measure}:Q",
                scale=alt.Scale(domain=[0, 1], scheme="blues"),
                legend=alt.Legend(format="%", title=f"{measure} recall"),
            ),
            alt.value("#dee2e6"),
        ),
        tooltip=[
            "chunker:N",
            "mode:N",
            "size:Q",
            "budget:Q",
            alt.Tooltip("complete:Q", format=".0%"),
            alt.Tooltip("partial:Q", format=".0%"),
            alt.Tooltip("too_long:N", title="chunks over budget"),
            alt.Tooltip("note:N"),
        ],
    )
    text = base.mark_text(fontSize=10).encode(
        text="label:N",
        color=alt.condition(f"datum.{measure} > 0.55", alt.value("white"), alt.value("#1e2230")),
    )
    return (
        alt.layer(cells, text)
        .properties(width=300, height=150)
        .facet(
            data=alt.Data(name="rows"),
            row=alt.Row("chunker:N", sort=list(chunkers), title=None),
            column=alt.Column("mode:N", title=None),
        )
    )
