"""Shared rendering helpers: tables, charts and the boundary map.

Document and question text is user text. It reaches the screen only as data (dataframes, chart
fields), through :func:`md_escape` into markdown, or through :func:`html.escape` into the
boundary map's HTML; never as raw HTML or markdown.
"""

from __future__ import annotations

import html
import itertools
import re
from collections import defaultdict
from collections.abc import Callable, Sequence

import altair as alt
import pandas as pd
import streamlit as st

from lab import CHUNKERS, Chunk, Corpus, Index, LabResult

TABLEAU10 = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6")
CHUNKER_COLORS = dict(zip(CHUNKERS, itertools.cycle(TABLEAU10)))
VERDICTS = ("complete", "partial", "miss")
VERDICT_COLORS = ("#2f9e44", "#f59f00", "#e03131")
MEASURE_COLORS = {"partial": "#a5d8ff", "complete": "#1971c2"}
MAP_CHARS = 20_000  # the boundary map shows at most this many characters of a document
MATRIX_QUESTIONS = 300  # the verdict matrix shows at most this many questions

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")


def md_escape(text: str) -> str:
    """``text`` as literal markdown: every markdown character escaped, on one line."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def config_label(chunker: str, mode: str) -> str:
    return f"{chunker} · {mode}"


def config_order(chunkers: Sequence[str], modes: Sequence[str]) -> list[str]:
    return [config_label(c, m) for c in chunkers for m in modes]


def chart(template: dict, *, stretch: bool = True, **datasets: pd.DataFrame) -> None:
    """Show a chart template (``cache.spec``) with this run's data in its named datasets."""
    spec = {**template, "datasets": {**template.get("datasets", {}), **datasets}}
    st.vega_lite_chart(spec=spec, width="stretch" if stretch else "content")


def percent(label: str, color: str, help: str) -> st.column_config.ProgressColumn:
    return st.column_config.ProgressColumn(
        label, format="percent", min_value=0.0, max_value=1.0, color=color, help=help
    )


def downloads(files: Sequence[tuple[str, str | Callable[[], str], str, str]]) -> None:
    """Download buttons side by side: (label, data or a function making it, file name, MIME)."""
    for column, (label, data, name, mime) in zip(st.columns(len(files)), files, strict=True):
        column.download_button(
            label, data, name, mime, icon=":material/download:", on_click="ignore"
        )


# Recall -----------------------------------------------------------------------------------------


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
                axis=alt.Axis(labelAngle=-35, orient="top"),
            ),
            y=alt.Y("question:N", sort=alt.EncodingSortField("q_order"), title=None),
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


# Index ------------------------------------------------------------------------------------------


def index_table(result: LabResult) -> pd.DataFrame:
    frame = result.index_frame()
    frame.insert(1, "label", frame["chunker"].map(lambda c: CHUNKERS[c].label))
    return frame


INDEX_COLUMNS = {
    "chunker": st.column_config.TextColumn("Chunker"),
    "label": st.column_config.TextColumn("Method"),
    "chunks": st.column_config.NumberColumn("Chunks"),
    "mean_chars": st.column_config.NumberColumn("Mean chars", format="%.0f"),
    "max_chars": st.column_config.NumberColumn("Max chars"),
    "index_ratio": st.column_config.NumberColumn(
        "Index / document",
        format="%.2f×",
        help="Characters of chunk text per character of the corpus.",
    ),
    "evidence_intact": percent(
        "Evidence intact", "green", "Evidence spans some chunk holds whole."
    ),
    "heading_starts": percent("Start at a heading", "blue", "Chunks that begin at a heading line."),
    "over_size": st.column_config.NumberColumn(
        "Over size", help="Chunks whose body is longer than L."
    ),
    "over_budget": st.column_config.NumberColumn(
        "Never fit", help="Chunks longer than the budget in words: they can never be retrieved."
    ),
    "objective": st.column_config.NumberColumn(
        "Objective", format="%.2f", help="QES DP objective."
    ),
}


def corpus_summary(corpus: Corpus) -> None:
    docs = corpus.documents
    cols = st.columns(6)
    cols[0].metric("Documents", len(docs))
    cols[1].metric("Characters", f"{sum(len(d.text) for d in docs):,}")
    cols[2].metric("Units", f"{sum(len(d.units) for d in docs):,}")
    cols[3].metric("Provisions", f"{sum(len(d.provisions) for d in docs):,}")
    cols[4].metric("Test questions", len(corpus.split("test")))
    cols[5].metric("Train questions", len(corpus.split("train")))
    if corpus.errors:
        with st.expander(f"{len(corpus.errors)} input problems", icon=":material/warning:"):
            st.dataframe(
                pd.DataFrame(
                    [
                        {"severity": e.severity, "question": e.question, "message": e.message}
                        for e in corpus.errors
                    ]
                ),
                hide_index=True,
            )


# Boundary map -----------------------------------------------------------------------------------

MAP_STYLE = """
<style>
.cl-legend span, .cl-map span { border-radius: 3px; }
.cl-legend { font-size: 0.85rem; margin-bottom: 0.4rem; line-height: 2; }
.cl-legend .cl-i { margin-right: 1.2rem; white-space: nowrap; }
.cl-legend .cl-c0, .cl-legend .cl-c1, .cl-legend .cl-ov { padding: 1px 6px; }
.cl-map { white-space: pre-wrap; font-size: 0.88rem; line-height: 1.9; max-height: 640px;
          overflow-y: auto; padding: 0.6rem 0.8rem; border: 1px solid #dde2ee; border-radius: 6px; }
.cl-c0 { background: #e7f0ff; } .cl-c1 { background: #fff1dc; }
.cl-ov { background: repeating-linear-gradient(135deg, #d7c8ff 0 4px, #efe8ff 4px 8px); }
.cl-ev { text-decoration: underline 2.5px #2f9e44; text-underline-offset: 3px; }
.cl-hd { font-weight: 700; color: #1e3a8a; }
.cl-b { display: inline-block; font-size: 0.68rem; line-height: 1.2; padding: 0 4px; margin: 0 2px;
        background: #475569; color: #fff; vertical-align: 2px; font-weight: 600; }
.cl-b.cl-big { background: #e8590c; } .cl-b.cl-nofit { background: #c92a2a; }
.cl-end { color: #475569; font-weight: 800; font-size: 1.05rem; }
</style>
"""

LEGEND = (
    '<div class="cl-legend">'
    '<span class="cl-i"><span class="cl-c0">chunk</span> '
    '<span class="cl-c1">next chunk</span></span>'
    '<span class="cl-i"><span class="cl-ov">overlap</span></span>'
    '<span class="cl-i"><span class="cl-hd">heading</span></span>'
    '<span class="cl-i"><span class="cl-ev">evidence</span></span>'
    '<span class="cl-i"><span class="cl-b">7</span> chunk 7 starts</span>'
    '<span class="cl-i"><span class="cl-end">⟩</span> a chunk ends</span>'
    '<span class="cl-i"><span class="cl-b cl-big">7 L+</span> longer than L</span>'
    '<span class="cl-i"><span class="cl-b cl-nofit">7 ✕</span> '
    "longer than the budget: never fits</span>"
    "</div>"
)


def retrieved_span(chunk: Chunk) -> tuple[int, int]:
    """The range of the document a chunk is retrieved by: its body, or the child a parent-child
    chunk is matched on (it delivers its parent)."""
    return chunk.search_source or (chunk.start, chunk.end)


def _badge(number: int, chunk: Chunk, size: int, budget: int) -> str:
    start, end = retrieved_span(chunk)
    flags, marks = [], []
    if end - start > size:
        flags.append("cl-big")
        marks.append(" L+")
    if chunk.words > budget:
        flags.append("cl-nofit")
        marks.append(" ✕")
    extra = len(chunk.source) - 1
    parent = (
        f"; delivers its parent, characters {chunk.start}-{chunk.end}"
        if chunk.search_source
        else ""
    )
    title = (
        f"{chunk.id}: characters {start}-{end} ({end - start} chars){parent}, "
        f"{chunk.words} words{f', +{extra} cited excerpts' if extra else ''}"
        f"{'; longer than L' if end - start > size else ''}"
        f"{'; longer than the budget: can never be retrieved' if chunk.words > budget else ''}"
    )
    return (
        f'<span class="cl-b {" ".join(flags)}" title="{html.escape(title)}">'
        f"{number}{''.join(marks)}</span>"
    )


def boundary_html(index: Index, doc: int, budget: int, limit: int = MAP_CHARS) -> str:
    """The document as HTML: chunk bodies as alternating backgrounds, overlaps hatched, headings
    bold, evidence underlined, a numbered badge where each chunk starts (flagged when longer than
    L or than the budget), ``⟩`` where one ends. All document text is HTML-escaped."""
    document = index.corpus.documents[doc]
    text = document.text[:limit]
    n = len(text)
    chunks = [c for c in index.chunks if c.doc == doc and retrieved_span(c)[0] < n]
    evidence = {
        (e.start, e.end) for q in index.corpus.questions for e in q.evidence if e.doc == doc
    }
    headings = {(u.start, u.end) for u in document.units if u.kind == "heading"}
    # Sweep over every boundary: +1 where a span opens, -1 where it closes.
    events: dict[int, list[int]] = defaultdict(lambda: [0, 0])  # evidence, heading
    for kind, spans in enumerate((evidence, headings)):
        for start, end in spans:
            if start < n:
                events[start][kind] += 1
                events[min(end, n)][kind] -= 1
    starts: dict[int, list[int]] = defaultdict(list)
    ends: dict[int, int] = defaultdict(int)
    spans = [retrieved_span(c) for c in chunks]
    for k, (start, end) in enumerate(spans):
        starts[start].append(k)
        ends[min(end, n)] += 1
    points = sorted({0, n} | events.keys() | starts.keys() | ends.keys())
    active: set[int] = set()
    inside = [0, 0]
    parts = [MAP_STYLE, LEGEND, '<div class="cl-map">']
    for a, b in itertools.pairwise(points):
        parts.append('<span class="cl-end">⟩</span>' * ends.get(a, 0))
        if a in ends:
            active = {k for k in active if spans[k][1] > a}
        for k in starts.get(a, ()):
            active.add(k)
            parts.append(_badge(k, chunks[k], index.size, budget))
        if a in events:
            inside = [i + d for i, d in zip(inside, events[a], strict=True)]
        classes = []
        if len(active) > 1:
            classes.append("cl-ov")
        elif active:
            classes.append(f"cl-c{min(active) % 2}")
        if inside[0] > 0:
            classes.append("cl-ev")
        if inside[1] > 0:
            classes.append("cl-hd")
        piece = html.escape(text[a:b])
        parts.append(f'<span class="{" ".join(classes)}">{piece}</span>' if classes else piece)
    parts.append('<span class="cl-end">⟩</span>' * ends.get(n, 0))
    parts.append("</div>")
    return "".join(parts)


STRIP_ROWS = ("headings", "parents", "chunks A", "chunks B", "evidence")
STATUS_COLORS = {"fits": "#4c6ef5", "longer than L": "#e8590c", "never fits the budget": "#c92a2a"}
MARK_COLORS = {"headings": "#1e3a8a", "parents": "#868e96", "evidence": "#2f9e44"}


def strip_data(index: Index, doc: int, budget: int) -> dict[str, pd.DataFrame]:
    """The boundary strip's ``chunks`` (alternating lanes, so overlaps show; parent-child
    chunks by their children) and ``marks`` (headings, evidence spans, and the parents that
    parent-child chunks deliver) of one document."""
    document = index.corpus.documents[doc]
    chunks = [c for c in index.chunks if c.doc == doc]
    spans = [retrieved_span(c) for c in chunks]
    status = [
        "never fits the budget"
        if c.words > budget
        else "longer than L"
        if end - start > index.size
        else "fits"
        for c, (start, end) in zip(chunks, spans, strict=True)
    ]
    evidence = sorted(
        {e for q in index.corpus.questions for e in q.evidence if e.doc == doc},
        key=lambda e: e.start,
    )
    headings = [u for u in document.units if u.kind == "heading"]
    parents = sorted({c.source[0] for c in chunks if c.search_source})
    marks = (
        [("headings", u.start, u.end, document.text[u.start : u.end][:80]) for u in headings]
        + [("parents", s, e, f"delivered parent, {e - s} chars") for s, e in parents]
        + [("evidence", e.start, e.end, e.text[:80]) for e in evidence]
    )
    return {
        "chunks": pd.DataFrame(
            {
                "chunk": [c.id for c in chunks],
                "row": [STRIP_ROWS[2 + k % 2] for k in range(len(chunks))],
                "start": [start for start, _ in spans],
                "end": [end for _, end in spans],
                "chars": [end - start for start, end in spans],
                "words": [c.words for c in chunks],
                "status": status,
            }
        ),
        "marks": pd.DataFrame(marks, columns=["row", "start", "end", "what"]),
    }


def boundary_strip() -> alt.LayerChart:
    """Chunk extents along the document with headings and evidence spans on their own rows.
    Data: :func:`strip_data`."""
    x = alt.X("start:Q", title="character offset", scale=alt.Scale(nice=False, zero=True))
    y = alt.Y("row:N", sort=list(STRIP_ROWS), title=None)
    chunk_bars = (
        alt.Chart(alt.Data(name="chunks"))
        .mark_bar(height={"band": 0.8}, stroke="white", strokeWidth=0.5)
        .encode(
            x=x,
            x2="end:Q",
            y=y,
            color=alt.Color(
                "status:N",
                scale=alt.Scale(domain=list(STATUS_COLORS), range=list(STATUS_COLORS.values())),
                legend=alt.Legend(title=None, orient="top"),
            ),
            tooltip=["chunk:N", "start:Q", "end:Q", "chars:Q", "words:Q", "status:N"],
        )
    )
    marks = (
        alt.Chart(alt.Data(name="marks"))
        .mark_bar(height={"band": 0.8}, minBandSize=2, stroke="white", strokeWidth=0.5)
        .encode(
            x=x,
            x2="end:Q",
            y=y,
            color=alt.Color(
                "row:N",
                scale=alt.Scale(domain=list(MARK_COLORS), range=list(MARK_COLORS.values())),
                legend=None,
            ),
            tooltip=["row:N", "start:Q", "end:Q", "what:N"],
        )
    )
    return (
        alt.layer(chunk_bars, marks)
        .resolve_scale(color="independent")
        .properties(height=alt.Step(26))
    )


# Sweeps -----------------------------------------------------------------------------------------

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
