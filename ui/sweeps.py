"""The sweep charts page's views: recall lines against budget and size, and the grid heatmap."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd
import streamlit as st

from . import choices
from .draw import MODE_COLORS, ON_TRAINING, chart, mode_name

NO_FIT = "no chunk fits the budget"
MEASURES = ("complete", "partial")
# One panel per chunker, each a chart of its own in a row that wraps: three side by side at
# 1440 px, two at 1280 px (a projector), one on a narrow window; the page never scrolls sideways.
PANEL_WIDTH = 195  # the plot; with its axis a panel is about 255 px wide
PANEL_HEIGHT = 190
Y_TOP = 1.05  # the y axis's top: 100% and room above it for half the widest line
FIXED = alt.AutoSizeParams(type="pad")  # the size the spec says: the plot does not shrink to fit
CELL = 30  # a heatmap cell's width in pixels: room for "100" at the projector's text size
# line widths by number of modes, widest first (drawn under): equal lines stay visible
WIDTHS = {1: (2.5,), 2: (6.0, 2.0)}
# Modes drawn together when more than two are chosen: a panel holds at most two modes (four
# lines and two bands), a family at a time.
FAMILIES = {"lexical": ("flat", "graph"), "embedding": ("dense", "hybrid")}


def mode_groups(modes: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The modes drawn together: all of them when two or fewer, else each family's
    (:data:`FAMILIES`) chosen modes."""
    if len(modes) <= 2:
        return {"chosen": tuple(modes)}
    groups = {name: tuple(m for m in family if m in modes) for name, family in FAMILIES.items()}
    return {name: group for name, group in groups.items() if group}


def modes_drawn(modes: Sequence[str]) -> tuple[str, ...]:
    """The modes the panels draw: all chosen ones when two or fewer; else one family, picked
    on the page (bound to the URL as ``lines``)."""
    groups = mode_groups(modes)
    if len(groups) == 1:
        return next(iter(groups.values()))
    names = list(groups)
    chosen = choices.page_selectbox(
        "Lines for",
        names,
        key="lines",
        format_func=lambda name: " · ".join(groups[name]),
        help="A panel draws at most two retrieval modes, so that its lines and intervals stay "
        "apart: choose the family to draw.",
    )
    return groups[chosen]


def panels(charts: Sequence[tuple[dict, pd.DataFrame]]) -> None:
    """Chart templates (of fixed size: ``autosize`` "pad") with their ``rows`` side by side,
    wrapping onto new rows as the page's width runs out."""
    with st.container(horizontal=True, gap="small"):
        for template, rows in charts:
            chart(template, stretch=False, rows=rows)


def sweep_data(frame: pd.DataFrame, modes: Sequence[str]) -> pd.DataFrame:
    """Sweep rows of ``modes`` in long form (one row per measure) for :func:`sweep_lines`: each
    with its line's name ("flat · complete") and its Wilson 95% interval."""
    data = frame[frame["mode"].isin(modes)].assign(
        adaptive=frame.get("adaptive", False),
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
    columns = [
        "chunker",
        "mode",
        "size",
        "budget",
        "adaptive",
        "fit",
        "too_long",
        "measure",
        "recall",
    ]
    return pd.concat(parts, ignore_index=True)[[*columns, "low", "high", "line"]]


def line_names(modes: Sequence[str]) -> list[str]:
    return [f"{mode} · {measure}" for mode in modes for measure in MEASURES]


def _line_scales(modes: Sequence[str]) -> dict[str, alt.Scale]:
    """Colour, dash and width of each line (:func:`line_names`), shared by the panels and
    their key."""
    names = line_names(modes)
    first_wide = WIDTHS[len(modes)]
    return {
        "color": alt.Scale(
            domain=names, range=[MODE_COLORS.get(m, "#495057") for m in modes for _ in MEASURES]
        ),
        "dash": alt.Scale(
            domain=names, range=[[1, 0] if "complete" in n else [6, 4] for n in names]
        ),
        "width": alt.Scale(
            type="ordinal",
            domain=names,
            range=[w * (1 if m == "complete" else 0.6) for w in first_wide for m in MEASURES],
        ),
    }


def sweep_panel(
    x: str, chunker: str, modes: Sequence[str], trained_on_scored: bool = False
) -> alt.LayerChart:
    """Recall of ``chunker`` against ``x`` ("budget" or "size"): a colour per retrieval mode,
    complete recall solid with its Wilson 95% interval shaded, partial dashed (the key is
    :func:`key_html`). Lines of later modes are drawn thinner on top of earlier ones, so equal
    lines show as a thin line inside a wide one. A red cross marks a point where no chunk fits
    the budget; a diamond, the adaptive budget at its mean budget (rows with ``adaptive``).
    ``trained_on_scored``: the chunker learned from questions it is scored on,
    said under its name. Data: :func:`sweep_data` of this chunker as ``rows``."""
    scales = _line_scales(modes)
    mode_colors = [MODE_COLORS.get(m, "#495057") for m in modes]
    first_wide = WIDTHS[len(modes)]
    axis_x = alt.X(
        f"{x}:Q",
        title="budget (words)" if x == "budget" else "chunk size L (characters)",
        scale=alt.Scale(zero=False),
    )
    # Headroom over 100%: a wide line there stays inside the plot, so no panel is padded for
    # it and every panel's plot sits at the same height.
    axis_y = alt.Y(
        "recall:Q",
        scale=alt.Scale(domain=[0, Y_TOP], nice=False),
        axis=alt.Axis(format="%", tickCount=5),
        title=None,
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
    fixed = ~alt.datum.adaptive
    complete = (alt.datum.measure == "complete") & fixed
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
        .transform_filter(fixed)
        .mark_line(opacity=0.9)
        .encode(
            x=axis_x,
            y=axis_y,
            color=alt.Color("line:N", scale=scales["color"], legend=None),
            strokeDash=alt.StrokeDash("line:N", scale=scales["dash"], legend=None),
            strokeWidth=alt.StrokeWidth("line:N", scale=scales["width"], legend=None),
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
            color=alt.Color("line:N", scale=scales["color"], legend=None),
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
    adaptive = (
        alt.Chart()
        .transform_filter(alt.datum.adaptive & (alt.datum.measure == "complete"))
        .mark_point(shape="diamond", size=150, filled=True, stroke="#212529", strokeWidth=1)
        .encode(
            x=axis_x,
            y=axis_y,
            color=alt.Color("line:N", scale=scales["color"], legend=None),
            tooltip=[*tooltip[:6], alt.Tooltip("budget:Q", title="mean adaptive budget")],
        )
    )
    layers = (
        (band, lines, points, crosses, adaptive)
        if x == "budget"
        else (band, lines, points, crosses)
    )
    return alt.layer(*layers, data=alt.Data(name="rows")).properties(
        autosize=FIXED,
        width=PANEL_WIDTH,
        height=PANEL_HEIGHT,
        title=alt.Title(
            chunker,
            subtitle=ON_TRAINING if trained_on_scored else "",
            subtitleColor="#c92a2a",
            subtitleFontSize=13,
            fontSize=14,
            fontWeight="bold",
            anchor="middle",
        ),
    )


KEY_STYLE = """
<style>
.sw-key { display: flex; flex-wrap: wrap; gap: 0.3rem 1.4rem; font-size: 0.95rem; }
.sw-key span { white-space: nowrap; display: inline-flex; align-items: center; gap: 0.4rem; }
.sw-key i { display: inline-block; }
</style>
"""


def key_html(modes: Sequence[str], dense: bool = False) -> str:
    """The panels' one key, above them: each line's colour, dash and width, the shaded
    interval and the cross. Our own labels only (mode names), no user text."""
    items = []
    for mode, width in zip(modes, WIDTHS[len(modes)], strict=True):
        color = MODE_COLORS.get(mode, "#495057")
        for measure in MEASURES:
            line = "solid" if measure == "complete" else "dashed"
            stroke = max(2, round(min(width * (1 if measure == "complete" else 0.6), 5)))
            items.append(
                f'<span><i style="width:36px;border-top:{stroke}px {line} {color}"></i>'
                f"{mode_name(mode, dense)} · {measure}</span>"
            )
    items.append(
        '<span><i style="width:24px;height:14px;background:#868e9640"></i>'
        "95% interval of complete recall</span>"
    )
    items.append(f'<span><b style="color:#c92a2a">✕</b>{NO_FIT}</span>')
    return KEY_STYLE + f'<div class="sw-key">{"".join(items)}</div>'


def heatmap_data(frame: pd.DataFrame, measure: str) -> pd.DataFrame:
    """Sweep rows with each cell's label: the recall in whole percent, or ✕ where no chunk fits
    the budget."""
    return frame.assign(
        label=lambda f: (100 * f[measure]).round().astype(int).astype(str).where(f["fits"], "✕"),
        too_long=lambda f: f["over_budget_chunks"].astype(str) + " of " + f["chunks"].astype(str),
        note=lambda f: f["fits"].map({True: "", False: NO_FIT}),
    )


def heatmap_panel(measure: str, chunker: str, mode: str) -> alt.LayerChart:
    """Budget x size grid of ``measure`` recall of one chunker in one mode, each cell labelled
    with its recall in percent. Data: :func:`heatmap_data` of this chunker and mode as
    ``rows``."""
    base = alt.Chart().encode(
        x=alt.X("budget:O", title=None, axis=alt.Axis(labelAngle=0)),
        y=alt.Y("size:O", title=None, sort="descending"),
    )
    cells = base.mark_rect(stroke="white").encode(
        color=alt.condition(
            "datum.fits",
            alt.Color(f"{measure}:Q", scale=alt.Scale(domain=[0, 1], scheme="blues"), legend=None),
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
    text = base.mark_text(fontSize=13).encode(
        text="label:N",
        color=alt.condition(f"datum.{measure} > 0.55", alt.value("white"), alt.value("#1e2230")),
    )
    return alt.layer(cells, text, data=alt.Data(name="rows")).properties(
        autosize=FIXED,
        width=alt.Step(CELL),
        height=alt.Step(24),
        title=alt.Title(f"{chunker} · {mode}", fontSize=14, fontWeight="bold", anchor="middle"),
    )
