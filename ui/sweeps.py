"""The sweep charts page's views: recall lines against budget and size, and the grid heatmap."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from .draw import MODE_COLORS

NO_FIT = "no chunk fits the budget"
MEASURES = ("complete", "partial")
PANEL_COLUMNS = 3  # chunker panels side by side: three fit the main area at 1440 px
PANEL_WIDTH = 280
PANEL_HEIGHT = 210
# line widths by number of modes, widest first (drawn under): equal lines stay visible
WIDTHS = {1: (2.5,), 2: (6.0, 2.0), 3: (7.5, 4.5, 1.8), 4: (8.0, 5.5, 3.2, 1.2)}


def sweep_data(frame: pd.DataFrame, modes: Sequence[str]) -> pd.DataFrame:
    """Sweep rows of ``modes`` in long form (one row per measure) for :func:`sweep_lines`: each
    with its line's name ("flat · complete") and its Wilson 95% interval."""
    data = frame[frame["mode"].isin(modes)].assign(
        fit=lambda f: f["fits"].map({True: "", False: NO_FIT}),
        too_long=lambda f: f["over_budget_chunks"].astype(str) + " of " + f["chunks"].astype(str),
    )
    parts = [
        data.assign(
            measure=measure,
            recall=data[measure],
            low=data[f"{measure}_low"],
            high=data[f"{measure}_high"],
            line=data["mode"] + f" · {measure}",
        )
        for measure in MEASURES
    ]
    columns = ["chunker", "mode", "size", "budget", "fit", "too_long", "measure", "recall"]
    return pd.concat(parts, ignore_index=True)[[*columns, "low", "high", "line"]]


def line_names(modes: Sequence[str]) -> list[str]:
    return [f"{mode} · {measure}" for mode in modes for measure in MEASURES]


def sweep_lines(x: str, chunkers: Sequence[str], modes: Sequence[str]) -> alt.FacetChart:
    """Recall against ``x`` ("budget" or "size"), one panel per chunker: a colour per retrieval
    mode, complete recall solid with its Wilson 95% interval shaded, partial dashed, one legend
    for both. Lines of later modes are drawn thinner on top of earlier ones, so equal lines show
    as a thin line inside a wide one. A red cross marks a point where no chunk fits the budget.
    Data: :func:`sweep_data` as ``rows``."""
    names = line_names(modes)
    mode_colors = [MODE_COLORS.get(m, "#495057") for m in modes]
    first_wide = list(WIDTHS[len(modes)])
    colors = alt.Scale(domain=names, range=[c for c in mode_colors for _ in MEASURES])
    line = alt.Color(
        "line:N",
        scale=colors,
        legend=alt.Legend(
            title=None,
            orient="top",
            direction="horizontal",
            symbolType="stroke",
            symbolSize=700,
            symbolStrokeWidth=3,
            labelFontSize=12,
            columnPadding=18,
        ),
    )
    dash = alt.StrokeDash(
        "line:N",
        scale=alt.Scale(domain=names, range=[[1, 0] if "complete" in n else [6, 4] for n in names]),
    )
    widths = alt.Scale(
        type="ordinal",
        domain=names,
        range=[w * (1 if m == "complete" else 0.6) for w in first_wide for m in MEASURES],
    )
    axis_x = alt.X(
        f"{x}:Q",
        title="budget (words)" if x == "budget" else "chunk size L (characters)",
        scale=alt.Scale(zero=False),
    )
    axis_y = alt.Y(
        "recall:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%"), title="recall"
    )
    tooltip = [
        alt.Tooltip("chunker:N"),
        alt.Tooltip("mode:N"),
        alt.Tooltip("measure:N"),
        alt.Tooltip("recall:Q", format=".0%"),
        alt.Tooltip("low:Q", format=".0%", title="95% interval from"),
        alt.Tooltip("high:Q", format=".0%", title="to"),
        alt.Tooltip("budget:Q"),
        alt.Tooltip("size:Q"),
        alt.Tooltip("too_long:N", title="chunks over budget"),
        alt.Tooltip("fit:N", title="note"),
    ]
    complete = alt.datum.measure == "complete"
    band = (
        alt.Chart()
        .transform_filter(complete)
        .mark_area(opacity=0.09)
        .encode(
            x=axis_x,
            y=alt.Y("low:Q"),
            y2="high:Q",
            fill=alt.Fill(
                "mode:N", scale=alt.Scale(domain=list(modes), range=mode_colors), legend=None
            ),
        )
    )
    lines = (
        alt.Chart()
        .mark_line(opacity=0.9)
        .encode(
            x=axis_x,
            y=axis_y,
            color=line,
            strokeDash=dash,
            strokeWidth=alt.StrokeWidth("line:N", scale=widths, legend=None),
            order=alt.Order("mode:N", sort="ascending"),
            tooltip=tooltip,
        )
    )
    points = (
        alt.Chart()
        .transform_filter(complete)
        .mark_circle(opacity=1)
        .encode(
            x=axis_x,
            y=axis_y,
            color=alt.Color("line:N", scale=colors, legend=None),
            size=alt.Size(
                "mode:N",
                scale=alt.Scale(
                    type="ordinal", domain=list(modes), range=[1.6 * w * w + 6 for w in first_wide]
                ),
                legend=None,
            ),
            tooltip=tooltip,
        )
    )
    crosses = (
        alt.Chart()
        .transform_filter((alt.datum.fit == NO_FIT) & complete)
        .mark_point(shape="cross", size=140, filled=True, strokeWidth=0, color="#c92a2a")
        .encode(x=axis_x, y=axis_y, tooltip=tooltip)
    )
    return (
        alt.layer(band, lines, points, crosses)
        .properties(width=PANEL_WIDTH, height=PANEL_HEIGHT)
        .facet(
            facet=alt.Facet(
                "chunker:N",
                sort=list(chunkers),
                title=None,
                header=alt.Header(labelFontSize=13, labelFontWeight="bold", labelPadding=4),
            ),
            columns=PANEL_COLUMNS,
            data=alt.Data(name="rows"),
        )
        .resolve_scale(x="shared", y="shared")
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
