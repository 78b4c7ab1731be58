"""The question drill-down page's views: one question's ranking, context and verdict per
configuration, cached per parameter set like the rest of :mod:`ui.cache`."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st

from lab import (
    CHUNKERS,
    EXPLAIN,
    Corpus,
    Explanation,
    Index,
    LabConfig,
    Question,
    explain,
    question_budget,
    reranker_for,
)
from lab.retrieve import RERANK_TOP

from . import cache
from .cache import pick, shared_and_session
from .context import CONTEXT_STYLE, chunk_html, evidence_in, question, where
from .draw import ON_TRAINING, md_escape, mode_name

RANK_ROWS = 40  # ranking rows shown, plus any lower-ranked chunk that holds evidence
SIGNAL_ROWS = 8  # rank-table rows: the best chunks, plus every chunk that holds evidence
VERDICT_BADGES = {"complete": "green", "partial": "orange", "miss": "red"}
VERDICT_FILLS = {"complete": "#d3f9d8", "partial": "#fff3bf", "miss": "#ffe3e3"}
RANKING_ORDER = [
    "rank",
    "chunk",
    "document",
    "decision",
    "evidence",
    "bm25",
    "dense",
    "pagerank",
    "score",
    "seed",
    "rerank",
    "words",
    "tokens",
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


@dataclass(frozen=True)
class EvidenceView:
    number: int
    text: str
    where: str
    in_context: bool
    diagnosis: str | None
    rank: int | None
    holder: str | None  # the picked chunk that holds it
    detail: str | None = None  # why its best holder was passed over, in numbers
    places: int = 0  # evidence that accepts any occurrence: how many there are (0: pinned)
    copy: int = 0  # which of them (1-based) the context holds

    @property
    def words(self) -> str:
        """What happened to this evidence, in plain words."""
        if self.in_context:
            held = f"in the context (chunk {self.holder}, rank {self.rank})"
            if self.places:
                held += (
                    f"; {any_occurrence(self.places)}: it holds occurrence {self.copy}, in "
                    f"{md_escape(self.where)}"
                )
            return held
        ranked = f", best holder ranked {self.rank}" if self.rank else ""
        if self.places:
            ranked += f" ({any_occurrence(self.places)})"
        why = self.detail or EXPLAIN[self.diagnosis]
        return f"missed: **{self.diagnosis}**{ranked}. {md_escape(why[0].upper() + why[1:])}."


def any_occurrence(places: int) -> str:
    """Evidence that accepts any of its ``places`` occurrences, in words."""
    if places == 1:
        return "any occurrence counts; it occurs once"
    return f"any of its {places} occurrences counts"


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
    dense: bool = False  # dense embeddings on: graph mode is seeded from the hybrid fusion
    unit: str = "words"  # what ``words`` and ``budget`` count: words, or "NAME tokens"

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
            f"{held} in a context of {self.words} {self.unit} ({chunks}, budget {self.budget}); "
            f"{self.offered} chunks scored."
        )

    @property
    def cell(self) -> str:
        """A one-line verdict for the overview table."""
        missed = sorted({e.diagnosis for e in self.evidence if e.diagnosis})
        why = f" · {', '.join(missed)}" if missed else ""
        return f"{self.verdict} {self.held}/{len(self.evidence)}{why}"


def _assembler(decision: str | None, note: str | None) -> str:
    """What the assembler did with a chunk, and why in numbers (``lab.context_note``)."""
    if not isinstance(note, str):
        return decision or ""
    return note if decision in note else f"{decision} · {note}"


def _ranking_rows(frame: pd.DataFrame, mode: str, documents: int) -> pd.DataFrame:
    if frame.empty:
        return frame
    shown = frame[(frame["rank"] <= RANK_ROWS) | frame["evidence"]].copy()
    if documents == 1:
        shown = shown.drop(columns="document")
    why = shown.pop("why")
    shown["decision"] = [
        _assembler(decision, note) for decision, note in zip(shown["decision"], why, strict=True)
    ]
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
    index: Index,
    q: Question,
    mode: str,
    budget: int,
    reranker=None,
    rerank_top: int = RERANK_TOP,
    filters: bool = True,
) -> View:
    ex = explain(index, q, mode, budget, reranker, rerank_top, filters)
    documents = index.corpus.documents
    picked = set(ex.context.picked)
    positions = ex.ranking.positions()
    evidence = []
    for number, (ev, result) in enumerate(zip(q.evidence, ex.result.evidence, strict=True), 1):
        holders = [int(k) for k in index.holding(ev) if int(k) in picked]
        holder = min(holders, key=lambda k: positions[k]) if holders else None
        doc, start, copy = ev.doc, ev.start, 0
        if holder is not None and ev.occurrences:  # the occurrence the context holds
            c = index.chunks[holder]
            copy, (doc, start, _) = next(
                (n, (d, s, t))
                for n, (d, s, t) in enumerate(ev.occurrences, 1)
                if d == c.doc and any(a <= s and t <= b for a, b in c.source)
            )
        evidence.append(
            EvidenceView(
                number,
                ev.text,
                where(index.corpus, doc, start),
                result.in_context,
                result.diagnosis,
                int(positions[holder]) + 1 if holder is not None else result.rank,
                index.chunks[holder].id if holder is not None else None,
                result.detail,
                len(ev.occurrences or ()),
                copy,
            )
        )
    blocks = []
    for k in ex.context.picked:
        c = index.chunks[k]
        page = documents[c.doc].page_at(c.source[0][0]) if c.source else None
        on_page = f" · page {page}" if page is not None else ""
        name = documents[c.doc].name + on_page
        title = f"#{int(positions[k]) + 1} · {c.id} · {name} · {int(index.words[k])} {index.unit}"
        spans, numbers = evidence_in(q, c.doc)
        blocks.append(chunk_html(title, c, documents[c.doc].text, spans, numbers))
    return View(
        chunker=index.chunker,
        mode=mode,
        verdict=ex.result.verdict,
        words=ex.context.words,
        budget=budget,
        ranking=_ranking_rows(ex.frame(), mode, len(documents)),
        context_html=CONTEXT_STYLE + "".join(blocks) if blocks else "",
        evidence=tuple(evidence),
        offered=len(ex.ranking.order),
        picked=len(ex.context.picked),
        ranks=rank_table(ex),
        reranked=int(np.isfinite(ex.ranking.rerank).sum()) if ex.ranking.rerank is not None else 0,
        dense=ex.ranking.dense is not None,
        unit=index.unit,
    )


@shared_and_session(st.cache_data, max_entries=512, session_entries=128)
def _view(_corpus: Corpus, digest: str, config: LabConfig, mode: str, qid: str) -> View:
    q = question(_corpus, qid)
    index = cache.index(_corpus, config, config.chunkers[0])
    budget = question_budget(
        _corpus, config, config.chunkers[0], mode, qid, cache.workbench(_corpus)
    )
    return _build_view(
        index, q, mode, budget, reranker_for(config), config.rerank_top, config.filters
    )


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
    "document": st.column_config.TextColumn("Document"),
    "bm25": st.column_config.NumberColumn("BM25", format="%.2f"),
    "dense": st.column_config.NumberColumn(
        "Dense", format="%.3f", help="Cosine similarity of the question's and the chunk's vectors."
    ),
    "rerank": st.column_config.NumberColumn(
        "Cross-encoder", format="%.2f", help="The reranker's score (top N only)."
    ),
    "pagerank": st.column_config.NumberColumn("PageRank", format="%.4f"),
    "words": st.column_config.NumberColumn("Words", width="small"),
    "tokens": st.column_config.NumberColumn(
        "Tokens", width="small", help="Tokens of the tokenizer in use: what the budget counts."
    ),
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


def overview(
    views: dict[tuple[str, str], View], chunkers, modes, on_training: Collection[str] = ()
) -> pd.io.formats.style.Styler:
    """Chunkers down, modes across: each cell the verdict, evidence held and why the rest
    missed, coloured by verdict; a chunker in ``on_training`` marked as scored on its
    training data."""
    labels = [
        CHUNKERS[c].label + (f" ({ON_TRAINING})" if c in on_training else "") for c in chunkers
    ]
    frame = pd.DataFrame(
        {mode: [views[chunker, mode].cell for chunker in chunkers] for mode in modes},
        index=pd.Index(labels, name="chunker"),
    )
    return frame.style.map(lambda cell: f"background-color: {VERDICT_FILLS[cell.split(' ', 1)[0]]}")


def evidence_list(of: Corpus, q: Question) -> None:
    """The question's evidence, numbered as the highlights are, with where each sits."""
    with st.container(border=True):
        st.markdown("**Evidence the context must hold**")
        for number, ev in enumerate(q.evidence, start=1):
            place = md_escape(where(of, ev.doc, ev.start))
            if ev.occurrences:
                place += f" ({any_occurrence(len(ev.occurrences))})"
            st.markdown(f"{number}\\. {md_escape(ev.text)}  \n:gray[in {place}]")


def draw_view(v: View, rows: int) -> None:
    """One configuration: verdict, what happened to each evidence span, ranking, context.
    ``rows`` sizes the ranking table so side-by-side tables line up."""
    st.markdown(f"##### {mode_name(v.mode, v.dense)} retrieval")
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
