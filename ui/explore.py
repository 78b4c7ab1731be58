"""Cached views behind the chunk graph and question drill-down pages, and how they are drawn.

Every view is plain data (dataframes, strings, small dataclasses), built from the engine's
``explain`` and ``build_index`` and cached per parameter set like the rest of :mod:`ui.cache`:
shared caches for the bundled handbook, session caches for a user's corpus. Document text reaches
the screen only HTML-escaped (:func:`segments_html`) or as dataframe and chart data.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, replace

import altair as alt
import networkx as nx
import numpy as np
import pandas as pd
import streamlit as st

from lab import CHUNKERS, EXPLAIN, Corpus, Explanation, Index, LabConfig, Question, explain
from lab.retrieve import RERANK_TOP
from lab.run import reranker_for

from . import cache
from .cache import pick, shared_and_session
from .draw import md_escape

MAX_NODES = 250  # larger graphs show the chosen question's neighbourhood of this many chunks
RANK_ROWS = 40  # ranking rows shown, plus any lower-ranked chunk that holds evidence
SIGNAL_ROWS = 8  # rank-table rows: the best chunks, plus every chunk that holds evidence
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
VERDICT_BADGES = {"complete": "green", "partial": "orange", "miss": "red"}
VERDICT_FILLS = {"complete": "#d3f9d8", "partial": "#fff3bf", "miss": "#ffe3e3"}
RANKING_ORDER = [
    "rank",
    "chunk",
    "decision",
    "evidence",
    "bm25",
    "dense",
    "pagerank",
    "score",
    "seed",
    "rerank",
    "words",
]
MODE_COLUMNS = {  # ranking columns that only some modes have
    "pagerank": ("graph",),
    "seed": ("graph",),
    "score": ("graph", "hybrid"),
}
SIGNALS = (  # the rank table's columns: (Ranking signal, column)
    ("bm25", "BM25 rank"),
    ("dense", "dense rank"),
    ("fused", "fused rank"),
    ("rerank", "reranked rank"),
)


def question(of: Corpus, qid: str | None) -> Question | None:
    """The corpus's question with id ``qid``, if any."""
    return next((q for q in of.questions if q.id == qid), None)


def where(of: Corpus, doc: int, start: int) -> str:
    """Label of the provision holding character ``start`` of document ``doc``."""
    document = of.documents[doc]
    p = document.units[document.unit_at(start)].provision if document.units else -1
    return document.provisions[p].label if p >= 0 else "(before the first heading)"


# Highlighting ----------------------------------------------------------------------------------

CONTEXT_STYLE = """
<style>
.cx-chunk { white-space: pre-wrap; font-size: 0.88rem; line-height: 1.65; padding: 0.45rem 0.7rem;
            border: 1px solid #dde2ee; border-radius: 6px; margin-bottom: 0.5rem; }
.cx-head { font-size: 0.78rem; color: #475569; font-weight: 600; margin-bottom: 0.2rem; }
.cx-meta { color: #64748b; font-style: italic; }
.cx-ev { background: #d3f9d8; border-bottom: 2px solid #2f9e44; }
.cx-part { background: #fff3bf; border-bottom: 2px dashed #f08c00; }
.cx-n { font-size: 0.68rem; font-weight: 700; color: #fff; background: #2f9e44; border-radius: 3px;
        padding: 0 3px; margin-right: 2px; vertical-align: 1px; }
.cx-part .cx-n { background: #f08c00; }
</style>
"""


@dataclass(frozen=True)
class Segment:
    """A run of a chunk's text: ``kind`` is "meta" (prefix or reference label), "text",
    "evidence" (a span the chunk holds whole) or "part" (a piece of a span it cuts);
    ``number`` is the 1-based evidence number where a highlighted span begins."""

    text: str
    kind: str
    number: int | None = None


def source_offsets(chunk, document_text: str) -> list[tuple[int, int, int]]:
    """Where each source range of ``chunk`` sits in its text: ``(start, end, text_position)``."""
    placed, cursor = [], len(chunk.prefix)
    for start, end in chunk.source:
        at = chunk.text.find(document_text[start:end], cursor)
        if at < 0:
            continue
        placed.append((start, end, at))
        cursor = at + end - start
    return placed


def segments(chunk, document_text: str, spans: list[tuple[int, int]]) -> list[Segment]:
    """Split ``chunk.text`` into segments with evidence ``spans`` (document offsets) marked:
    whole where one source range holds a span, as a part where a range holds only some of it."""
    text = chunk.text
    placed = source_offsets(chunk, document_text)
    marks: dict[int, tuple[str, int]] = {}  # text position -> (kind, evidence number)
    for number, (s, e) in enumerate(spans, start=1):
        for start, end, at in placed:
            a, b = max(start, s), min(end, e)
            if a >= b:
                continue
            kind = "evidence" if start <= s and e <= end else "part"
            for pos in range(at + a - start, at + b - start):
                marks.setdefault(pos, (kind, number))
    covered = np.zeros(len(text), dtype=bool)
    for start, end, at in placed:
        covered[at : at + end - start] = True
    out: list[Segment] = []
    previous = None
    for pos, ch in enumerate(text):
        kind, number = marks.get(pos, ("text" if covered[pos] else "meta", None))
        key = (kind, number)
        if out and key == previous:
            out[-1] = Segment(out[-1].text + ch, out[-1].kind, out[-1].number)
        else:
            out.append(Segment(ch, kind, number))
        previous = key
    return out


def segments_html(parts: list[Segment]) -> str:
    """Segments as HTML; every piece of text is escaped."""
    out = []
    for part in parts:
        piece = html.escape(part.text)
        if part.kind == "meta":
            out.append(f'<span class="cx-meta">{piece}</span>')
        elif part.kind in ("evidence", "part"):
            css = "cx-ev" if part.kind == "evidence" else "cx-part"
            out.append(f'<span class="{css}"><span class="cx-n">{part.number}</span>{piece}</span>')
        else:
            out.append(piece)
    return "".join(out)


def chunk_html(title: str, chunk, document_text: str, spans: list[tuple[int, int]]) -> str:
    """One chunk as a bordered block: an escaped title line, then its highlighted text."""
    body = segments_html(segments(chunk, document_text, spans))
    return f'<div class="cx-chunk"><div class="cx-head">{html.escape(title)}</div>{body}</div>'


# Drill-down ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EvidenceView:
    number: int
    text: str
    where: str
    in_context: bool
    diagnosis: str | None
    rank: int | None
    holder: str | None  # the picked chunk that holds it

    @property
    def words(self) -> str:
        """What happened to this evidence, in plain words."""
        if self.in_context:
            return f"in the context (chunk {self.holder}, rank {self.rank})"
        ranked = f", best holder ranked {self.rank}" if self.rank else ""
        return f"missed: **{self.diagnosis}**{ranked}. {EXPLAIN[self.diagnosis].capitalize()}."


@dataclass(frozen=True)
class View:
    """One question in one configuration, as plain data."""

    chunker: str
    mode: str
    verdict: str
    words: int
    budget: int
    ranking: pd.DataFrame
    context_html: str
    evidence: tuple[EvidenceView, ...]
    offered: int
    picked: int
    ranks: pd.DataFrame | None = None  # the rank of each chunk by each signal (dense on)
    reranked: int = 0  # how many top chunks a cross-encoder reordered

    @property
    def held(self) -> int:
        return sum(e.in_context for e in self.evidence)

    @property
    def summary(self) -> str:
        total = len(self.evidence)
        spans = "evidence span" if total == 1 else "evidence spans"
        held = {
            "complete": f"all {total} {spans}",
            "partial": f"{self.held} of {total} {spans}",
            "miss": f"none of the {total} {spans}",
        }[self.verdict]
        chunks = "1 chunk" if self.picked == 1 else f"{self.picked} chunks"
        return (
            f"{held} in a {self.words}-word context ({chunks}, budget {self.budget}); "
            f"{self.offered} chunks scored."
        )

    @property
    def cell(self) -> str:
        """A one-line verdict for the overview table."""
        missed = sorted({e.diagnosis for e in self.evidence if e.diagnosis})
        why = f" · {', '.join(missed)}" if missed else ""
        return f"{self.verdict} {self.held}/{len(self.evidence)}{why}"


def _ranking_rows(frame: pd.DataFrame, mode: str) -> pd.DataFrame:
    if frame.empty:
        return frame
    shown = frame[(frame["rank"] <= RANK_ROWS) | frame["evidence"]].copy()
    shown["decision"] = shown["decision"].fillna("")
    return shown[[c for c in RANKING_ORDER if c in shown and mode in MODE_COLUMNS.get(c, (mode,))]]


def rank_table(ex: Explanation) -> pd.DataFrame | None:
    """Each of the best chunks and of the evidence holders ranked by every signal side by side,
    as in an RRF table: BM25 rank, dense rank, fused rank (RRF: the sum of 1/(60 + rank)), the
    cross-encoder's rank when one reranks, and the final rank. None without dense retrieval."""
    r = ex.ranking
    if r.dense is None:
        return None
    holders = {int(k) for ev in ex.question.evidence for k in ex.index.holding(ev)}
    shown = dict.fromkeys([*r.order[:SIGNAL_ROWS].tolist(), *sorted(holders)])
    positions = r.positions()
    signals = [(kind, name) for kind, name in SIGNALS if getattr(r, kind) is not None]
    rows = [
        {
            "chunk": ex.index.chunks[k].id,
            "evidence": k in holders,
            **{name: r.rank_by(kind, k) for kind, name in signals},
            "RRF": float(r.fused[k]),
            "final rank": int(positions[k]) + 1 if positions[k] >= 0 else None,
        }
        for k in shown
    ]
    frame = pd.DataFrame(rows)
    ranks = [name for _, name in signals] + ["final rank"]
    frame[ranks] = frame[ranks].astype("Int64")
    return frame.sort_values("final rank", na_position="last", kind="stable", ignore_index=True)


def _build_view(
    index: Index, q: Question, mode: str, budget: int, reranker=None, rerank_top: int = RERANK_TOP
) -> View:
    ex = explain(index, q, mode, budget, reranker, rerank_top)
    text = index.corpus.documents[q.doc].text
    spans = [(ev.start, ev.end) for ev in q.evidence]
    picked = set(ex.context.picked)
    positions = ex.ranking.positions()
    evidence = []
    for number, (ev, result) in enumerate(zip(q.evidence, ex.result.evidence, strict=True), 1):
        holders = [int(k) for k in index.holding(ev) if int(k) in picked]
        holder = min(holders, key=lambda k: positions[k]) if holders else None
        evidence.append(
            EvidenceView(
                number,
                ev.text,
                where(index.corpus, ev.doc, ev.start),
                result.in_context,
                result.diagnosis,
                int(positions[holder]) + 1 if holder is not None else result.rank,
                index.chunks[holder].id if holder is not None else None,
            )
        )
    blocks = []
    for k in ex.context.picked:
        c = index.chunks[k]
        title = f"#{int(positions[k]) + 1} · {c.id} · {c.words} words"
        blocks.append(chunk_html(title, c, text, spans))
    return View(
        chunker=index.chunker,
        mode=mode,
        verdict=ex.result.verdict,
        words=ex.context.words,
        budget=budget,
        ranking=_ranking_rows(ex.frame(), mode),
        context_html=CONTEXT_STYLE + "".join(blocks) if blocks else "",
        evidence=tuple(evidence),
        offered=len(ex.ranking.order),
        picked=len(ex.context.picked),
        ranks=rank_table(ex),
        reranked=int(np.isfinite(ex.ranking.rerank).sum()) if ex.ranking.rerank is not None else 0,
    )


@shared_and_session(st.cache_data, max_entries=512, session_entries=128)
def _view(_corpus: Corpus, digest: str, config: LabConfig, mode: str, qid: str) -> View:
    q = question(_corpus, qid)
    index = cache.index(_corpus, config, config.chunkers[0])
    return _build_view(index, q, mode, config.budget, reranker_for(config), config.rerank_top)


def view(of: Corpus, config: LabConfig, chunker: str, mode: str, qid: str) -> View:
    """Ranking, context and verdict of question ``qid`` for one chunker in one mode."""
    key = replace(config, chunkers=(chunker,), modes=(mode,), split="all")
    return pick(_view, of)(of, of.digest, key, mode, qid)


SCORE_HELP = {
    "graph": "0.6 first-stage score + 0.4 PageRank, each over its max; the first stage is BM25, "
    "or the BM25 + dense fusion (RRF) when dense embeddings are on.",
    "hybrid": "Reciprocal Rank Fusion: 1/(60 + BM25 rank) + 1/(60 + dense rank).",
}
RANKING_COLUMNS = {
    "rank": st.column_config.NumberColumn("Rank", width="small"),
    "chunk": st.column_config.TextColumn("Chunk"),
    "bm25": st.column_config.NumberColumn("BM25", format="%.2f"),
    "dense": st.column_config.NumberColumn(
        "Dense", format="%.3f", help="Cosine similarity of the question's and the chunk's vectors."
    ),
    "rerank": st.column_config.NumberColumn(
        "Cross-encoder", format="%.2f", help="The reranker's score (top N only)."
    ),
    "pagerank": st.column_config.NumberColumn("PageRank", format="%.4f"),
    "words": st.column_config.NumberColumn("Words", width="small"),
    "seed": st.column_config.CheckboxColumn(
        "Seed", help="A top-3 BM25 chunk: PageRank restarts here."
    ),
    "evidence": st.column_config.CheckboxColumn("Evidence", help="Holds an evidence span whole."),
    "decision": st.column_config.TextColumn("Assembler", help="Picked, or why it was skipped."),
}
RANK_COLUMNS = {
    "chunk": st.column_config.TextColumn("Chunk"),
    "evidence": st.column_config.CheckboxColumn("Evidence", help="Holds an evidence span whole."),
    "BM25 rank": st.column_config.NumberColumn("BM25", help="Rank by BM25 score."),
    "dense rank": st.column_config.NumberColumn("Dense", help="Rank by cosine similarity."),
    "RRF": st.column_config.NumberColumn(
        "RRF", format="%.4f", help="1/(60 + BM25 rank) + 1/(60 + dense rank)."
    ),
    "fused rank": st.column_config.NumberColumn("Fused", help="Rank by RRF."),
    "reranked rank": st.column_config.NumberColumn(
        "Reranked", help="Rank by the cross-encoder among the top N it reordered."
    ),
    "final rank": st.column_config.NumberColumn(
        "This mode", help="Rank in this mode's ranking, the one the assembler follows."
    ),
}


def overview(views: dict[tuple[str, str], View], chunkers, modes) -> pd.io.formats.style.Styler:
    """Chunkers down, modes across: each cell the verdict, evidence held and why the rest
    missed, coloured by verdict."""
    frame = pd.DataFrame(
        {mode: [views[chunker, mode].cell for chunker in chunkers] for mode in modes},
        index=pd.Index([CHUNKERS[c].label for c in chunkers], name="chunker"),
    )
    return frame.style.map(lambda cell: f"background-color: {VERDICT_FILLS[cell.split(' ', 1)[0]]}")


def evidence_list(of: Corpus, q: Question) -> None:
    """The question's evidence, numbered as the highlights are, with where each sits."""
    with st.container(border=True):
        st.markdown("**Evidence the context must hold**")
        for number, ev in enumerate(q.evidence, start=1):
            place = md_escape(where(of, ev.doc, ev.start))
            st.markdown(f"{number}\\. {md_escape(ev.text)}  \n:gray[in {place}]")


def draw_view(v: View, rows: int) -> None:
    """One configuration: verdict, what happened to each evidence span, ranking, context.
    ``rows`` sizes the ranking table so side-by-side tables line up."""
    st.markdown(f"##### {v.mode} retrieval")
    st.badge(v.verdict, color=VERDICT_BADGES[v.verdict])
    st.caption(v.summary)
    for ev in v.evidence:
        st.markdown(f"{ev.number}\\. {ev.words}")
    reranked = " The reranked top chunks score above 1, in the cross-encoder's order."
    score = st.column_config.NumberColumn(
        "Score", format="%.3f", help=SCORE_HELP.get(v.mode, "") + (reranked if v.reranked else "")
    )
    st.dataframe(
        v.ranking,
        column_config=RANKING_COLUMNS | {"score": score},
        hide_index=True,
        height=38 + 35 * min(10, max(1, rows)),
    )
    if v.reranked:
        st.caption(f"The top {v.reranked} were reordered by the cross-encoder.")
    if v.ranks is not None:
        st.markdown("**Rank by each signal**")
        st.dataframe(v.ranks, column_config=RANK_COLUMNS, hide_index=True)
    if v.context_html:
        st.html(v.context_html)
    else:
        st.info("The context is empty: no chunk scored, or none fits the budget.")


# Chunk graph -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphView:
    """Nodes and edges of one chunker's graph, laid out, for one question (or none)."""

    nodes: pd.DataFrame
    edges: pd.DataFrame
    counts: dict[str, int]
    total: int  # chunks in the index; ``len(nodes)`` may be fewer


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
    index = cache.index(_corpus, replace(config, resolve_refs=True), chunker)
    mine = cache.index(_corpus, config, chunker)
    if [c.source[0] for c in index.chunks] != [c.source[0] for c in mine.chunks]:
        index = mine
    pos = nx.spring_layout(_subgraph(index, nodes), seed=0)
    return np.array([pos[k] for k in nodes]).reshape(len(nodes), 2)


def _status(decision: str | None) -> str:
    return decision if decision in STATUS_COLORS else "not offered"


def _labels(index: Index, k: int) -> str:
    c = index.chunks[k]
    provisions = index.corpus.documents[c.doc].provisions
    return "; ".join(provisions[p].label for p in c.provisions) or "—"


@shared_and_session(st.cache_data, max_entries=256, session_entries=64)
def _graph_view(_corpus: Corpus, digest: str, config: LabConfig, qid: str | None) -> GraphView:
    chunker = config.chunkers[0]
    index = cache.index(_corpus, config, chunker)
    n = len(index.chunks)
    q = question(_corpus, qid)
    reranker = reranker_for(config)
    ex = (
        explain(index, q, "graph", config.budget, reranker, config.rerank_top)
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
        decision = ex.context.decision(k, int(positions[k])) if ex else None
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
                "evidence": "holds evidence" if k in holders else "no evidence",
                "seed": "seed" if ex and k in ex.ranking.seeds else "",
                "area": area,
                "ring": (np.sqrt(area) + 9) ** 2,
                "words": c.words,
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
    return GraphView(nodes_frame, edges, index.graph.edge_counts(), n)


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
    return cache.view(
        of, key, lambda: graph_chart(graph_view(of, config, chunker, qid), types, selected)
    )


def edge_counts(of: Corpus, config: LabConfig, chunker: str, resolve_refs: bool) -> dict[str, int]:
    """Edges by type of ``chunker``'s graph with references resolved or not."""
    return cache.index(of, replace(config, resolve_refs=resolve_refs), chunker).graph.edge_counts()


def chunk_detail_html(of: Corpus, config: LabConfig, chunker: str, k: int, qid: str | None) -> str:
    """Chunk ``k``'s text with the question's evidence highlighted (escaped HTML)."""
    index = cache.index(of, config, chunker)
    c = index.chunks[k]
    q = question(of, qid)
    spans = [(ev.start, ev.end) for ev in q.evidence if ev.doc == c.doc] if q else []
    title = f"{c.id} · {c.words} words · {_labels(index, k)}"
    return CONTEXT_STYLE + chunk_html(title, c, of.documents[c.doc].text, spans)


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
                alt.Tooltip("pagerank:Q", format=".4f"),
                alt.Tooltip("bm25:Q", format=".2f"),
                alt.Tooltip("score:Q", format=".3f"),
                "words:Q",
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
        alt.Chart(nodes).mark_text(fontSize=9, color="#1e2230", dy=1).encode(x=x, y=y, text="k:N")
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
    other = edge_counts(of, config, chunker, not config.resolve_refs)
    against = f"vs references {'off' if config.resolve_refs else 'on'}"
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
    if config.resolve_refs:
        st.caption(
            "References resolved: xref edges join a chunk to every chunk of each provision "
            "it cites."
        )
    else:
        st.caption(
            "References off: no xref edges (switch **Resolve cross-references** on in the "
            "sidebar to see them); the layout stays put, so the missing edges show."
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
