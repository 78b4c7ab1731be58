"""The index overview page's views: corpus summary, index statistics and the boundary map.

Document text reaches the boundary map only through :func:`html.escape`."""

from __future__ import annotations

import html
import itertools
from collections import defaultdict
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from lab import CHUNKERS, Chunk, Corpus, Document, Index, LabResult, outline, percent_digits

from .draw import (
    ON_TRAINING,
    UNTRAINED,
    VEGA_LITE_SCHEMA,
    as_percent,
    md_escape,
    on_training,
    percent,
)

MAP_CHARS = 20_000  # the boundary map shows at most this many characters of a document


INDEX_MAIN = (  # what decides retrieval first: in view on a 1280-pixel projector
    "chunker",
    "chunks",
    "evidence_intact",
    "over_budget",
    "over_size",
    "heading_starts",
    "mean_chars",
    "max_chars",
    "mean_tokens",
    "max_tokens",
    "label",
)
INDEX_MORE = (  # the rest, in a table of their own
    "chunker",
    "delivered_over_size",
    "mean_delivered_chars",
    "max_delivered_chars",
    "index_ratio",
    "long_units",
    "split_evidence",
    "train_questions",
    "objective",
)


def index_table(result: LabResult) -> pd.DataFrame:
    """Index statistics per chunker, shares as percentages (:data:`INDEX_MAIN` and
    :data:`INDEX_MORE` choose the columns shown); a supervised chunker with nothing to learn
    from is marked untrained, one scored on its training data so."""
    frame = result.index_frame()
    untrained = set(frame["chunker"][frame["train_questions"].eq(0)])
    trained = on_training(result)
    frame["label"] = [
        f"{CHUNKERS[c].label} ({UNTRAINED})"
        if c in untrained
        else f"{CHUNKERS[c].label} ({ON_TRAINING})"
        if c in trained
        else CHUNKERS[c].label
        for c in frame["chunker"]
    ]
    return as_percent(frame, ("evidence_intact", "heading_starts"))


def with_tokens(table: pd.DataFrame, tokens: dict[str, list[int]]) -> pd.DataFrame:
    """``table`` with each chunker's mean and max delivered tokens (``tokens``: per chunker,
    its chunks' token counts), when sizes count tokens."""
    table = table.copy()
    table["mean_tokens"] = [sum(tokens[c]) / max(1, len(tokens[c])) for c in table["chunker"]]
    table["max_tokens"] = [max(tokens[c], default=0) for c in table["chunker"]]
    return table


def shown(table: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    return table[[c for c in columns if c in table]]


def index_columns(chunks: int, spans: int) -> dict:
    """How the index statistics show: percentages of ``chunks`` chunks and ``spans`` evidence
    spans by the one rounding rule, widths that fit a 1280-pixel projector."""
    number = st.column_config.NumberColumn
    return {
        "chunker": st.column_config.TextColumn("Chunker", width=110),
        "label": st.column_config.TextColumn("Method"),
        "chunks": number("Chunks", width=70),
        "mean_chars": number("Mean chars", format="%.0f", width=88),
        "mean_tokens": number(
            "Mean tokens", format="%.0f", help="Tokens a chunk delivers, of the tokenizer in use."
        ),
        "max_tokens": number(
            "Max tokens", help="The most tokens a chunk delivers (the budget counts these)."
        ),
        "max_chars": number(
            "Max chars",
            width=82,
            help="The longest body: the document text a chunk covers, at most L.",
        ),
        "mean_delivered_chars": number(
            "Mean delivered",
            format="%.0f",
            help="Characters the assembler delivers per chunk: heading prefix, body and "
            "delivered reference text.",
        ),
        "max_delivered_chars": number(
            "Max delivered",
            help="The longest chunk as delivered: heading prefix, body and delivered reference "
            "text.",
        ),
        "delivered_over_size": number(
            "Delivered over L", help="Chunks that deliver more than L characters."
        ),
        "index_ratio": number(
            "Index / document",
            format="%.2f×",
            help="Characters of chunk text per character of the corpus.",
        ),
        "evidence_intact": percent(
            "Evidence intact",
            "green",
            "Evidence spans some chunk holds whole.",
            percent_digits(spans),
            110,
        ),
        "heading_starts": percent(
            "Start at a heading",
            "blue",
            "Chunks that begin at a heading line.",
            percent_digits(chunks),
            110,
        ),
        "over_size": number(
            "Over size",
            width=76,
            help="Chunks whose body is longer than L (a heading line longer than L).",
        ),
        "long_units": number(
            "Long sentences",
            help="Sentences (rows, code blocks) longer than L, split at clause punctuation or "
            "between words so that every body fits.",
        ),
        "split_evidence": number(
            "Evidence split",
            help="Evidence spans no chunk holds whole because such a split cut them.",
        ),
        "over_budget": number(
            "Never fit",
            width=76,
            help="Chunks longer than the budget in words: they can never be retrieved.",
        ),
        "train_questions": number(
            "Trained on", help="Train questions a supervised chunker learned from (0: untrained)."
        ),
        "objective": number("Objective", format="%.2f", help="QES DP objective."),
    }


UNITS_HELP = (
    "Sentences and heading lines: the atoms every chunker cuts on (fixed windows aside). "
    "A chunk is whole units; a sentence longer than L is first split into pieces that fit "
    "(counted under Long sentences)."
)
PROVISIONS_HELP = (
    "Numbered rules with the text under them: each heading at level 3 or deeper, or numbered "
    "x.y, and its units up to the next heading. The structure chunker keeps each one whole."
)


def corpus_summary(corpus: Corpus) -> None:
    docs = corpus.documents
    cols = st.columns(6)
    cols[0].metric("Documents", len(docs))
    cols[1].metric("Characters", f"{sum(len(d.text) for d in docs):,}")
    cols[2].metric("Units", f"{sum(len(d.units) for d in docs):,}", help=UNITS_HELP)
    cols[3].metric("Provisions", f"{sum(len(d.provisions) for d in docs):,}", help=PROVISIONS_HELP)
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


# Outline ------------------------------------------------------------------------------------------

OUTLINE_CAPTION = (
    "The headings the lab read in each document, as `python -m lab outline` prints them: the "
    "structure every structure-aware chunker cuts on. Numbers after a title are its character "
    "offset in the text the lab reads."
)


def outline_markdown(document: Document) -> str:
    """The document's headings as a nested markdown list (titles escaped), or a sentence saying
    it has none."""
    headings = outline(document)
    if not headings:
        return "No headings were read: chunkers see one run of paragraphs."
    lines, open_levels = [], []
    for h in headings:
        while open_levels and open_levels[-1] >= h["level"]:
            open_levels.pop()
        lines.append(f"{'  ' * len(open_levels)}- {md_escape(h['title'])} `{h['start']}`")
        open_levels.append(h["level"])
    return "\n".join(lines)


def outline_view(corpus: Corpus) -> None:
    """One collapsed expander per document with the outline the lab read."""
    st.subheader("Outline")
    st.caption(OUTLINE_CAPTION)
    for document, info in zip(corpus.documents, corpus.info, strict=True):
        count = len(document.headings)
        label = f"{document.name} ({info.format}, {count} heading{'s' * (count != 1)})"
        with st.expander(md_escape(label)):
            st.markdown(outline_markdown(document))


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


def measured(index: Index, chunks: Sequence[Chunk]) -> list[int]:
    """How long each chunk's retrieved span is in what L counts: characters, or tokens of the
    index's tokenizer."""
    spans = [retrieved_span(c) for c in chunks]
    if index.tokenizer is None:
        return [end - start for start, end in spans]
    texts = index.corpus.documents
    return index.tokenizer.counts(
        [texts[c.doc].text[s:e] for c, (s, e) in zip(chunks, spans, strict=True)]
    )


def _badge(
    number: int, chunk: Chunk, length: int, size: int, delivered: int, budget: int, unit: str
) -> str:
    start, end = retrieved_span(chunk)
    flags, marks = [], []
    if length > size:
        flags.append("cl-big")
        marks.append(" L+")
    if delivered > budget:
        flags.append("cl-nofit")
        marks.append(" ✕")
    extra = len(chunk.source) - 1
    parent = (
        f"; delivers its parent, characters {chunk.start}-{chunk.end}"
        if chunk.search_source
        else ""
    )
    title = (
        f"{chunk.id}: characters {start}-{end} ({end - start} chars){parent}, delivers "
        f"{len(chunk.text)} chars, {delivered} {unit}"
        f"{f', +{extra} cited excerpts' if extra else ''}"
        f"{'; longer than L' if length > size else ''}"
        f"{'; longer than the budget: can never be retrieved' if delivered > budget else ''}"
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
    shown = [k for k, c in enumerate(index.chunks) if c.doc == doc and retrieved_span(c)[0] < n]
    chunks = [index.chunks[k] for k in shown]
    lengths, delivered = measured(index, chunks), index.words[shown].tolist()
    evidence = {
        (s, t)
        for q in index.corpus.questions
        for e in q.evidence
        for d, s, t in e.places
        if d == doc
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
            parts.append(
                _badge(
                    k,
                    chunks[k],
                    lengths[k],
                    index.limit(chunks[k]),
                    delivered[k],
                    budget,
                    index.unit,
                )
            )
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


STRIP_ROWS = ("headings", "parents", "chunks 0, 2, 4…", "chunks 1, 3, 5…", "evidence")
STRIP_CAPTION = (
    "Rows: heading lines; the parents that parent-child chunks deliver; the chunks, numbered "
    "as in the map below, taking turns on two rows so that neighbours and overlaps stay "
    "apart; the evidence spans of every question. Hover for details."
)
STATUS_COLORS = {"fits": "#4c6ef5", "longer than L": "#e8590c", "never fits the budget": "#c92a2a"}
MARK_COLORS = {"headings": "#1e3a8a", "parents": "#868e96", "evidence": "#2f9e44"}


def strip_data(index: Index, doc: int, budget: int) -> dict[str, pd.DataFrame]:
    """The boundary strip's ``chunks`` (alternating lanes, so overlaps show; parent-child
    chunks by their children) and ``marks`` (headings, evidence spans, and the parents that
    parent-child chunks deliver) of one document."""
    document = index.corpus.documents[doc]
    mine = [k for k, c in enumerate(index.chunks) if c.doc == doc]
    chunks = [index.chunks[k] for k in mine]
    spans = [retrieved_span(c) for c in chunks]
    delivered = index.words[mine].tolist()
    status = [
        "never fits the budget"
        if size > budget
        else "longer than L"
        if length > index.limit(c)
        else "fits"
        for c, length, size in zip(chunks, measured(index, chunks), delivered, strict=True)
    ]
    evidence = sorted(
        {
            (s, t, e.text)
            for q in index.corpus.questions
            for e in q.evidence
            for d, s, t in e.places
            if d == doc
        }
    )
    headings = [u for u in document.units if u.kind == "heading"]
    parents = sorted({c.source[0] for c in chunks if c.search_source})
    marks = (
        [("headings", u.start, u.end, document.text[u.start : u.end][:80]) for u in headings]
        + [("parents", s, e, f"delivered parent, {e - s} chars") for s, e in parents]
        + [("evidence", s, t, text[:80]) for s, t, text in evidence]
    )
    return {
        "chunks": pd.DataFrame(
            {
                "chunk": [c.id for c in chunks],
                "row": [STRIP_ROWS[2 + k % 2] for k in range(len(chunks))],
                "start": [start for start, _ in spans],
                "end": [end for _, end in spans],
                "chars": [end - start for start, end in spans],
                "words": delivered,
                "status": status,
            }
        ),
        "marks": pd.DataFrame(marks, columns=["row", "start", "end", "what"]),
    }


TYPES = {"N": "nominal", "Q": "quantitative"}  # Altair's shorthand for Vega-Lite's types


def _strip_layer(dataset: str, color: dict, tooltip: Sequence[str], **mark) -> dict:
    """One layer of the boundary strip: bars from ``start`` to ``end`` on the ``row`` lanes,
    ``tooltip`` fields written as Altair's shorthand (``"start:Q"``)."""
    return {
        "data": {"name": dataset},
        "mark": {"type": "bar", "height": {"band": 0.8}, "stroke": "white", "strokeWidth": 0.5}
        | mark,
        "encoding": {
            "color": color,
            "tooltip": [
                {"field": field, "type": TYPES[kind]}
                for field, kind in (item.split(":") for item in tooltip)
            ],
            "x": {
                "field": "start",
                "scale": {"nice": False, "zero": True},
                "title": "character offset",
                "type": "quantitative",
            },
            "x2": {"field": "end"},
            "y": {"field": "row", "sort": list(STRIP_ROWS), "title": None, "type": "nominal"},
        },
    }


def boundary_strip(unit: str = "words") -> dict:
    """Chunk extents along the document with headings and evidence spans on their own rows, as
    a Vega-Lite spec written out (the page that opens first need not import Altair). Data:
    :func:`strip_data`; ``unit``: what its "words" count (words, or "NAME tokens")."""
    chunks = _strip_layer(
        "chunks",
        {
            "field": "status",
            "legend": {"orient": "top", "title": None},
            "scale": {"domain": list(STATUS_COLORS), "range": list(STATUS_COLORS.values())},
            "type": "nominal",
        },
        ["chunk:N", "start:Q", "end:Q", "chars:Q", "words:Q", "status:N"],
    )
    for item in chunks["encoding"]["tooltip"]:
        if item["field"] == "words" and unit != "words":
            item["title"] = unit
    marks = _strip_layer(
        "marks",
        {
            "field": "row",
            "legend": None,
            "scale": {"domain": list(MARK_COLORS), "range": list(MARK_COLORS.values())},
            "type": "nominal",
        },
        ["row:N", "start:Q", "end:Q", "what:N"],
        minBandSize=2,
    )
    return {
        "$schema": VEGA_LITE_SCHEMA,
        "config": {"view": {"continuousWidth": 300, "continuousHeight": 300}},
        "layer": [chunks, marks],
        "height": {"step": 26},
        "resolve": {"scale": {"color": "independent"}},
    }
