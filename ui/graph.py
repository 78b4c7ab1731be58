"""The chunk graph page's views: one chunker's graph laid out, sized by PageRank for a question,
and the chosen chunk's text and edges; cached per parameter set like the rest of :mod:`ui.cache`."""

from __future__ import annotations

from dataclasses import dataclass, replace

import altair as alt
import networkx as nx
import numpy as np
import pandas as pd
import streamlit as st

from lab import (
    Corpus,
    Index,
    LabConfig,
    context_note,
    explain,
    question_budget,
    references_switched,
    reranker_for,
)

from . import cache
from .cache import pick, shared_and_session
from .context import CONTEXT_STYLE, chunk_html, evidence_in, question
from .draw import readable

MAX_NODES = 250  # larger graphs show the chosen question's neighbourhood of this many chunks
PREVIEW_CHARS = 160
EDGE_COLORS = {
    "adjacency": "#868e96",
    "hierarchy": "#ae3ec9",
    "lexical": "#1098ad",
    "xref": "#f76707",
}
STATUS_COLORS = {
    "picked": "#2f9e44",
    "over budget": "#f59f00",
    "near-duplicate": "#ffd43b",
    "below the cut": "#74c0fc",
    "not offered": "#dee2e6",
}
EVIDENCE_STROKE = "#c92a2a"


@dataclass(frozen=True)
class GraphView:
    """Nodes and edges of one chunker's graph, laid out, for one question (or none)."""

    nodes: pd.DataFrame
    edges: pd.DataFrame
    counts: dict[str, int]
    total: int  # chunks in the index; ``len(nodes)`` may be fewer
    unit: str = "words"  # what the nodes' "words" count: words, or "NAME tokens"


def _shown_nodes(n: int, ranked: np.ndarray | None, must: set[int]) -> tuple[int, ...]:
    """All chunks of a small graph; of a large one, the question's chunks (seeds, picked,
    evidence holders) and the best-ranked others, up to ``MAX_NODES``."""
    if n <= MAX_NODES:
        return tuple(range(n))
    order = [*sorted(must), *(ranked.tolist() if ranked is not None else []), *range(n)]
    return tuple(sorted(list(dict.fromkeys(order))[:MAX_NODES]))


def _subgraph(index: Index, nodes: tuple[int, ...]) -> nx.Graph:
    """The graph on ``nodes``, one weighted edge per pair (types summed, as the engine does)."""
    keep = np.zeros(len(index.chunks), dtype=bool)
    keep[list(nodes)] = True
    g = nx.Graph()
    g.add_nodes_from(nodes)
    for rows, cols, weights in index.graph.edges.values():
        both = keep[rows] & keep[cols]
        for i, j, w in zip(
            rows[both].tolist(), cols[both].tolist(), weights[both].tolist(), strict=True
        ):
            g.add_edge(i, j, weight=g[i][j]["weight"] + w if g.has_edge(i, j) else w)
    return g


@shared_and_session(st.cache_data, max_entries=64, session_entries=16)
def _layout(_corpus: Corpus, digest: str, config: LabConfig, nodes: tuple[int, ...]) -> np.ndarray:
    """Spring layout (seed 0) of ``nodes``, computed on the graph with references resolved so the
    positions stay put when references are switched off (chunk bodies do not change)."""
    chunker = config.chunkers[0]
    index = cache.index(
        _corpus, replace(config, refs=references_switched(config.refs, True)), chunker
    )
    mine = cache.index(_corpus, config, chunker)
    if [c.source[0] for c in index.chunks] != [c.source[0] for c in mine.chunks]:
        index = mine
    pos = nx.spring_layout(_subgraph(index, nodes), seed=0)
    return np.array([pos[k] for k in nodes]).reshape(len(nodes), 2)


def _status(decision: str | None) -> str:
    return decision if decision in STATUS_COLORS else "not offered"


def _labels(index: Index, k: int) -> str:
    """The provisions chunk ``k`` touches, after its document's name in a collection."""
    c = index.chunks[k]
    documents = index.corpus.documents
    labels = "; ".join(documents[c.doc].provisions[p].label for p in c.provisions) or "—"
    return f"{documents[c.doc].name} › {labels}" if len(documents) > 1 else labels


@shared_and_session(st.cache_data, max_entries=256, session_entries=64)
def _graph_view(_corpus: Corpus, digest: str, config: LabConfig, qid: str | None) -> GraphView:
    chunker = config.chunkers[0]
    index = cache.index(_corpus, config, chunker)
    n = len(index.chunks)
    q = question(_corpus, qid)
    reranker = reranker_for(config)
    ex = (
        explain(
            index,
            q,
            "graph",
            question_budget(_corpus, config, chunker, "graph", q.id, cache.workbench(_corpus)),
            reranker,
            config.rerank_top,
            config.filters,
        )
        if q is not None and n
        else None
    )
    holders = {int(k) for ev in q.evidence for k in index.holding(ev)} if q is not None else set()
    must = holders | (set(ex.context.picked) | set(ex.ranking.seeds) if ex else set())
    nodes = _shown_nodes(n, ex.ranking.order if ex else None, must)
    xy = pick(_layout, _corpus)(_corpus, digest, config, nodes) if nodes else np.zeros((0, 2))
    positions = ex.ranking.positions() if ex else np.full(n, -1)
    mass = ex.ranking.pagerank if ex is not None and ex.ranking.pagerank is not None else None
    top = float(mass[list(nodes)].max()) if mass is not None and nodes else 0.0
    rows = []
    for (x, y), k in zip(xy.tolist(), nodes, strict=True):
        c = index.chunks[k]
        share = float(mass[k]) / top if top > 0 else 0.0
        area = 90 + 1300 * share if ex else 220
        rank = int(positions[k]) + 1 if positions[k] >= 0 else None
        position = int(positions[k])
        size = int(index.words[k])
        decision = ex.context.decision(k, position, size) if ex else None
        why = context_note(ex.context, decision, k, position, size, index) if ex else None
        rows.append(
            {
                "k": k,
                "chunk": c.id,
                "x": x,
                "y": y,
                "pagerank": float(mass[k]) if mass is not None else None,
                "bm25": float(ex.ranking.bm25[k]) if ex else None,
                "score": float(ex.ranking.score[k]) if ex else None,
                "rank": rank,
                "status": _status(decision),
                "why": why or "",
                "evidence": "holds evidence" if k in holders else "no evidence",
                "seed": "seed" if ex and k in ex.ranking.seeds else "",
                "area": area,
                "ring": (np.sqrt(area) + 9) ** 2,
                "words": size,
                "where": _labels(index, k),
                "preview": " ".join(c.text.split())[:PREVIEW_CHARS],
            }
        )
    nodes_frame = pd.DataFrame(rows)
    at = {k: i for i, k in enumerate(nodes)}
    edge_rows = []
    for kind, (a, b, w) in index.graph.edges.items():
        for i, j, weight in zip(a.tolist(), b.tolist(), w.tolist(), strict=True):
            if i in at and j in at:
                edge_rows.append(
                    {
                        "type": kind,
                        "weight": weight,
                        "x": xy[at[i], 0],
                        "y": xy[at[i], 1],
                        "x2": xy[at[j], 0],
                        "y2": xy[at[j], 1],
                        "source": index.chunks[i].id,
                        "target": index.chunks[j].id,
                    }
                )
    edges = pd.DataFrame(
        edge_rows, columns=["type", "weight", "x", "y", "x2", "y2", "source", "target"]
    )
    return GraphView(nodes_frame, edges, index.graph.edge_counts(), n, index.unit)


def _graph_key(config: LabConfig, chunker: str) -> LabConfig:
    return replace(config, chunkers=(chunker,), modes=("graph",), split="all")


def graph_view(of: Corpus, config: LabConfig, chunker: str, qid: str | None) -> GraphView:
    """The chunk graph of ``chunker``, laid out, with question ``qid``'s graph-mode retrieval."""
    return pick(_graph_view, of)(of, of.digest, _graph_key(config, chunker), qid)


def graph_spec(
    of: Corpus,
    config: LabConfig,
    chunker: str,
    qid: str | None,
    types: tuple[str, ...],
    selected: str | None,
) -> dict:
    """:func:`graph_chart` as a cached Vega-Lite spec (building the chart costs ~0.1 s)."""
    key = ("chunk graph", _graph_key(config, chunker), qid, types, selected)
    spec = cache.view(
        of, key, lambda: graph_chart(graph_view(of, config, chunker, qid), types, selected)
    )
    return readable(spec)


def edge_counts(of: Corpus, config: LabConfig, chunker: str, refs: str) -> dict[str, int]:
    """Edges by type of ``chunker``'s graph with references placed as ``refs`` says."""
    return cache.index(of, replace(config, refs=refs), chunker).graph.edge_counts()


def chunk_detail_html(of: Corpus, config: LabConfig, chunker: str, k: int, qid: str | None) -> str:
    """Chunk ``k``'s text with the question's evidence highlighted (escaped HTML)."""
    index = cache.index(of, config, chunker)
    c = index.chunks[k]
    q = question(of, qid)
    spans, numbers = evidence_in(q, c.doc)
    title = f"{c.id} · {int(index.words[k])} {index.unit} · {_labels(index, k)}"
    return CONTEXT_STYLE + chunk_html(title, c, of.documents[c.doc].text, spans, numbers)


def neighbours(view: GraphView, chunk: str) -> pd.DataFrame:
    """Edges touching ``chunk`` in the drawn graph: the other end, its provisions, the edge type
    and weight."""
    e = view.edges
    mine = e[(e["source"] == chunk) | (e["target"] == chunk)]
    other = mine["target"].where(mine["source"] == chunk, mine["source"])
    where = view.nodes.set_index("chunk")["where"]
    return pd.DataFrame(
        {
            "chunk": other,
            "provisions": other.map(where),
            "type": mine["type"],
            "weight": mine["weight"].round(3),
        }
    ).sort_values(["type", "chunk"], ignore_index=True)


def graph_chart(view: GraphView, types: tuple[str, ...], selected: str | None) -> alt.LayerChart:
    """Edges as rules coloured by type and as wide as their weight; chunks as circles with area
    by PageRank mass, filled by what the assembler did, ringed red when they hold evidence, and a
    dashed ring around the PageRank seeds. Clicking a chunk selects it (parameter ``node``)."""
    nodes = view.nodes
    edges = view.edges[view.edges["type"].isin(types)]
    pad = 0.08
    x = alt.X(
        "x:Q",
        axis=None,
        scale=alt.Scale(domain=[nodes["x"].min() - pad, nodes["x"].max() + pad], nice=False),
    )
    y = alt.Y(
        "y:Q",
        axis=None,
        scale=alt.Scale(domain=[nodes["y"].min() - pad, nodes["y"].max() + pad], nice=False),
    )
    kinds = [k for k in EDGE_COLORS if k in set(view.edges["type"])] or list(EDGE_COLORS)
    rules = (
        alt.Chart(edges)
        .mark_rule(opacity=0.6)
        .encode(
            x=x,
            y=y,
            x2="x2:Q",
            y2="y2:Q",
            color=alt.Color(
                "type:N",
                scale=alt.Scale(domain=kinds, range=[EDGE_COLORS[k] for k in kinds]),
                legend=alt.Legend(title="edge type", orient="right"),
            ),
            strokeWidth=alt.StrokeWidth(
                "weight:Q",
                scale=alt.Scale(domain=[0, 1.0], range=[0.5, 4.5], clamp=True),
                legend=alt.Legend(title="edge weight", orient="right"),
            ),
            tooltip=["type:N", "source:N", "target:N", alt.Tooltip("weight:Q", format=".2f")],
        )
    )
    pick = alt.selection_point(name="node", fields=["chunk"], on="click", clear="dblclick")
    statuses = list(STATUS_COLORS)
    circles = (
        alt.Chart(nodes)
        .mark_circle(opacity=1)
        .encode(
            x=x,
            y=y,
            size=alt.Size("area:Q", scale=None),
            fill=alt.Fill(
                "status:N",
                scale=alt.Scale(domain=statuses, range=list(STATUS_COLORS.values())),
                legend=alt.Legend(title="assembler", orient="right"),
            ),
            stroke=alt.Stroke(
                "evidence:N",
                scale=alt.Scale(
                    domain=["holds evidence", "no evidence"], range=[EVIDENCE_STROKE, "#495057"]
                ),
                legend=alt.Legend(title="evidence", orient="right"),
            ),
            strokeWidth=alt.condition(
                alt.datum.evidence == "holds evidence", alt.value(3.5), alt.value(0.8)
            ),
            fillOpacity=alt.condition(pick, alt.value(1.0), alt.value(0.35)),
            tooltip=[
                "chunk:N",
                alt.Tooltip("rank:Q", title="graph rank"),
                alt.Tooltip("status:N", title="assembler"),
                alt.Tooltip("why:N", title="why"),
                alt.Tooltip("pagerank:Q", format=".4f"),
                alt.Tooltip("bm25:Q", format=".2f"),
                alt.Tooltip("score:Q", format=".3f"),
                alt.Tooltip("words:Q", title=view.unit),
                alt.Tooltip("where:N", title="provisions"),
                alt.Tooltip("preview:N", title="text"),
            ],
        )
        .add_params(pick)
    )
    seeds = nodes[nodes["seed"] == "seed"]
    rings = (
        alt.Chart(seeds)
        .mark_point(shape="circle", filled=False, color="#1e2230", strokeWidth=1.6)
        .encode(
            x=x,
            y=y,
            size=alt.Size("ring:Q", scale=None),
            strokeDash=alt.StrokeDash(
                "seed:N",
                scale=alt.Scale(domain=["seed"], range=[[3, 2]]),
                legend=alt.Legend(title="PageRank restart", orient="right"),
            ),
        )
    )
    focus = nodes[nodes["chunk"] == selected]
    marker = (
        alt.Chart(focus).mark_text(text="▼", dy=-16, fontSize=14, color="#1e2230").encode(x=x, y=y)
    )
    labels = (
        alt.Chart(nodes).mark_text(fontSize=12, color="#1e2230", dy=1).encode(x=x, y=y, text="k:N")
    )
    layers = [rules, circles, labels, marker]
    if not seeds.empty:
        layers.insert(2, rings)
    return alt.layer(*layers).resolve_scale(color="independent").properties(height=560)


NODE_KEY = "graph_node"
CHART_KEY = "graph_chart"


def node_options(view: GraphView) -> list[str]:
    """Chunk ids of the drawn graph, best graph rank first, unranked ones in document order."""
    return view.nodes.sort_values(["rank", "k"], na_position="last")["chunk"].tolist()


def chosen_node(view: GraphView) -> str:
    """The chunk whose text is shown: the last one clicked or picked, else the best ranked."""
    options = node_options(view)
    if st.session_state.get(NODE_KEY) not in options:
        st.session_state.pop(NODE_KEY, None)
    return st.session_state.get(NODE_KEY, options[0])


def node_clicked() -> None:
    """Show the clicked chunk (the chart's ``on_select`` callback)."""
    chosen = st.session_state[CHART_KEY].selection.get("node") or []
    if chosen:
        st.session_state[NODE_KEY] = chosen[0]["chunk"]


def edge_metrics(of: Corpus, config: LabConfig, chunker: str, view: GraphView) -> None:
    """Chunks and edges by type, each against the same graph with references toggled."""
    resolved = config.refs != "off"
    other = edge_counts(of, config, chunker, references_switched(config.refs, not resolved))
    against = f"vs references {'off' if resolved else 'on'}"
    cols = st.columns(len(EDGE_COLORS) + 1)
    cols[0].metric("Chunks", view.total)
    for col, kind in zip(cols[1:], EDGE_COLORS, strict=True):
        delta = view.counts.get(kind, 0) - other.get(kind, 0)
        col.metric(
            f"{kind} edges",
            view.counts.get(kind, 0),
            f"{delta:+d} {against}" if delta else None,
            delta_color="off",
        )
    if resolved:
        st.caption(
            f"References {config.refs}: xref edges join a chunk to every chunk of each "
            "provision it cites."
        )
    else:
        st.caption(
            "References off: no xref edges (set **Cross-references** to delivered or "
            "index-only in the sidebar to see them); the layout stays put, so the missing edges "
            "show."
        )


def chunk_panel(
    of: Corpus, config: LabConfig, chunker: str, view: GraphView, qid: str | None
) -> None:
    """A chunk picker (synced with clicks on the graph), the chunk's text and its edges."""
    rows = view.nodes.set_index("chunk")

    def describe(c: str) -> str:
        rank = rows.at[c, "rank"]
        status = rows.at[c, "status"]
        return f"{c} · rank {rank:.0f} · {status}" if pd.notna(rank) else f"{c} · not ranked"

    chunk = st.selectbox("Chunk", node_options(view), key=NODE_KEY, format_func=describe)
    left, right = st.columns([3, 2])
    with left:
        st.html(chunk_detail_html(of, config, chunker, int(rows.at[chunk, "k"]), qid))
    with right:
        st.dataframe(
            neighbours(view, chunk),
            hide_index=True,
            column_config={
                "chunk": "Neighbour",
                "provisions": "Provisions",
                "type": "Edge type",
                "weight": "Weight",
            },
        )
