"""Rank chunks for questions: flat BM25, or BM25 blended with personalised PageRank (graph)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

import numpy as np

from .corpus import Question
from .index import Index
from .text import tokenize
from .topk import top, top_rows

MODES = ("flat", "graph", "dense", "hybrid")
LEXICAL_MODES = ("flat", "graph")  # need no embedding model
SEEDS = 3
BM25_SHARE = 0.6
RRF_K = 60
RERANK_TOP = 20


@dataclass(frozen=True, eq=False)
class Ranking:
    """Scores of every chunk for one question. Chunks with a positive score are offered, best
    first, ties in document order; ``head(k)`` gives the first ``k`` without sorting the rest."""

    score: np.ndarray
    bm25: np.ndarray
    pagerank: np.ndarray | None = None
    seeds: tuple[int, ...] = ()
    dense: np.ndarray | None = None  # cosine similarity, when dense retrieval is on
    fused: np.ndarray | None = None  # Reciprocal Rank Fusion of BM25 and dense
    rerank: np.ndarray | None = None  # cross-encoder score of the reranked head, NaN elsewhere
    allowed: tuple[int, ...] | None = None  # documents a metadata filter kept (None: all)

    @cached_property
    def offered(self) -> int:
        return int(np.count_nonzero(self.score > 0))

    def head(self, k: int) -> np.ndarray:
        return top(self.score, k)

    @cached_property
    def order(self) -> np.ndarray:
        """Every offered chunk, best first."""
        return top(self.score, self.offered)

    def position(self, chunk: int) -> int:
        """0-based rank of ``chunk`` among the offered chunks; -1 when it is not offered."""
        s = self.score[chunk]
        if s <= 0:
            return -1
        return int(np.count_nonzero(self.score > s) + np.count_nonzero(self.score[:chunk] == s))

    def rank_by(self, kind: str, chunk: int) -> int | None:
        """1-based rank of ``chunk`` by one signal ("bm25", "dense", "fused", "rerank", "score");
        None when that signal did not rank it."""
        values = getattr(self, kind)
        if values is None:
            return None
        if kind == "rerank":
            values = np.nan_to_num(values, nan=-np.inf)
            if not np.isfinite(values[chunk]):
                return None
            better = np.count_nonzero(values > values[chunk])
            return int(better + np.count_nonzero(values[:chunk] == values[chunk])) + 1
        position = Ranking(values, values).position(chunk)
        return position + 1 if position >= 0 else None

    def positions(self) -> np.ndarray:
        """Rank position (0-based) of each chunk; -1 where not offered."""
        pos = np.full(len(self.score), -1, dtype=np.int64)
        pos[self.order] = np.arange(len(self.order))
        return pos


@lru_cache(maxsize=4096)
def query_tokens(text: str) -> tuple[str, ...]:
    return tuple(tokenize(text))


@lru_cache(maxsize=1)
def _bm25_scores(index: Index, queries: tuple[tuple[str, ...], ...]) -> np.ndarray:
    """``index``'s BM25 scores of ``queries``, kept for the next mode ranking the same questions
    (a run ranks each index flat, then graph; only the last are kept, they can be large);
    read-only, as the rankings of both share them."""
    scores = index.bm25.scores(queries)
    scores.flags.writeable = False
    return scores


def reciprocal_rank_fusion(*scores: np.ndarray, k: int = RRF_K) -> np.ndarray:
    """``sum over lists of 1 / (k + rank)``, each list ranking its positive scores (1-based)."""
    fused = np.zeros(len(scores[0]))
    for score in scores:
        order = top(score, len(score))
        fused[order] += 1.0 / (k + np.arange(1, len(order) + 1))
    return fused


def filter_masks(
    index: Index, questions: Sequence[Question]
) -> tuple[np.ndarray | None, list[tuple[int, ...] | None]]:
    """For each question, which chunks its metadata filter keeps (a questions x chunks boolean
    matrix; None when no question has a filter) and the documents it keeps (None: all)."""
    corpus = index.corpus
    allowed = [corpus.allowed(q) for q in questions]
    if all(a is None for a in allowed):
        return None, allowed
    doc_of = index.doc_of
    mask = np.ones((len(questions), len(index.chunks)), dtype=bool)
    for j, docs in enumerate(allowed):
        if docs is not None:
            mask[j] = np.isin(doc_of, docs)
    return mask, allowed


def rank(
    index: Index,
    questions: Sequence[Question],
    mode: str,
    seeds: int = SEEDS,
    reranker=None,
    rerank_top: int = RERANK_TOP,
    filters: bool = True,
) -> list[Ranking]:
    """Rank ``index``'s chunks for each question in ``mode``: "flat" (BM25), "dense" (cosine),
    "hybrid" (RRF of both) or "graph" (BM25, or hybrid when the index has an embedder, blended
    with personalised PageRank). A ``reranker`` then reorders the top ``rerank_top``. With
    ``filters``, a question's metadata filter leaves only the chunks of the documents it keeps
    to every signal, so they alone can be ranked (document-level filtering)."""
    return rank_scored(index, questions, mode, seeds, reranker, rerank_top, filters)[0]


def rank_scored(
    index: Index,
    questions: Sequence[Question],
    mode: str,
    seeds: int = SEEDS,
    reranker=None,
    rerank_top: int = RERANK_TOP,
    filters: bool = True,
) -> tuple[list[Ranking], np.ndarray | None]:
    """``rank``'s rankings and, unless a reranker changed them, a questions x chunks matrix whose
    rows hold the same scores as theirs (their score arrays are mostly its rows)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    mask, allowed = filter_masks(index, questions) if filters else (None, [None] * len(questions))
    bm25 = _bm25_scores(index, tuple(query_tokens(q.question) for q in questions))
    if mask is not None:
        bm25 = np.where(mask, bm25, 0.0)
    dense = fused = None
    if mode in ("dense", "hybrid") or (mode == "graph" and index.embedder is not None):
        if index.embedder is None:
            from .embed import DenseUnavailable

            raise DenseUnavailable(f"{mode} retrieval needs an embedding model: turn dense on")
        queries = index.embedder.encode([q.question for q in questions])
        dense = queries @ index.vectors.T if len(index.chunks) else np.zeros((len(questions), 0))
        if mask is not None:
            dense = np.where(mask, dense, 0.0)
        fused = np.array([reciprocal_rank_fusion(b, d) for b, d in zip(bm25, dense, strict=True)])
    first = {"flat": bm25, "dense": dense, "hybrid": fused}.get(mode)
    if first is None:
        first = fused if fused is not None else bm25
    if mode == "graph":
        rankings, first = _graph(index, first, bm25, dense, fused, seeds, mask)
    else:
        rankings = [
            Ranking(row, b, None, (), d, f)
            for row, b, d, f in zip(
                first, bm25, _rows(dense, len(questions)), _rows(fused, len(questions)), strict=True
            )
        ]
    if mask is not None:
        rankings = [replace(r, allowed=a) for r, a in zip(rankings, allowed, strict=True)]
    if reranker is not None:
        rankings = [
            _rerank(r, q.question, index, reranker, rerank_top)
            for r, q in zip(rankings, questions, strict=True)
        ]
        first = None
    return rankings, first


def _rows(matrix: np.ndarray | None, n: int) -> list:
    return list(matrix) if matrix is not None else [None] * n


def _graph(
    index: Index, first: np.ndarray, bm25, dense, fused, seeds: int, mask: np.ndarray | None
) -> tuple[list[Ranking], np.ndarray]:
    """Seed personalised PageRank with the ``seeds`` best first-stage chunks (restart weights
    proportional to their scores) and blend ``0.6 s/max(s) + 0.4 p/max(p)``; chunks a filter
    leaves out (``mask``) score 0 however much PageRank mass reaches them. The rankings, and the
    questions x chunks matrix of their scores."""
    n, q = len(index.chunks), len(first)
    chosen = top_rows(first, seeds)
    seed_sets = [tuple(c.tolist()) for c in chosen]
    rows = np.concatenate([np.zeros(0, dtype=np.int64), *chosen])
    cols = np.repeat(np.arange(q), [len(c) for c in chosen])
    picked = first[cols, rows]
    totals = np.bincount(cols, weights=picked, minlength=q)  # in seed order, like sum()
    mass = index.graph.seeded_pagerank(rows, cols, picked / totals[cols], q)  # q x n
    seeded = np.array([bool(c) for c in seed_sets], dtype=bool)
    scores = _blend(first, mass, seeded, mask)
    dense_rows, fused_rows = _rows(dense, q), _rows(fused, q)
    zeros = np.zeros(n)
    rankings = [
        Ranking(scores[j], bm25[j], mass[j], seed_sets[j], dense_rows[j], fused_rows[j])
        if seed_sets[j]
        else Ranking(zeros.copy(), bm25[j], zeros.copy(), (), dense_rows[j], fused_rows[j])
        for j in range(q)
    ]
    return rankings, scores


BLEND_ROWS = 16  # questions blended together, so each block's rows stay in cache (L2)


def _blend(
    first: np.ndarray, mass: np.ndarray, seeded: np.ndarray, mask: np.ndarray | None
) -> np.ndarray:
    """``0.6 s/max(s) + 0.4 p/max(p)`` for each ``seeded`` question (row), 0 for the others and
    where ``mask`` is False; a block of rows at a time. ``mass`` (float32, PageRank's own) is
    read as float64, the type the blend is computed in."""
    scores = np.zeros(first.shape, dtype=first.dtype)  # pages untouched until written
    share, walk = np.empty_like(first[:BLEND_ROWS]), np.empty_like(first[:BLEND_ROWS])
    for lo in range(0, len(first), BLEND_ROWS):
        rows = lo + np.flatnonzero(seeded[lo : lo + BLEND_ROWS])
        if not len(rows):
            continue
        whole = len(rows) == rows[-1] - lo + 1  # the block's first rows: slices, no copies
        if whole:
            rows = slice(lo, rows[-1] + 1)
        f, p = first[rows], mass[rows]
        blend = np.multiply(f, BM25_SHARE, out=scores[rows] if whole else share[: len(f)])
        blend /= f.max(axis=1)[:, None]
        part = walk[: len(f)]
        part[:] = p  # float64, exactly
        top = part.max(axis=1)[:, None]
        part *= 1 - BM25_SHARE
        part /= top
        blend += part
        if mask is not None:
            blend[~mask[rows]] = 0.0
        if not whole:
            scores[rows] = blend
    return scores


def _rerank(ranking: Ranking, question: str, index: Index, reranker, top_n: int) -> Ranking:
    """Reorder the ranking's head by cross-encoder score; the rest keeps its order below."""
    head = ranking.head(top_n)
    if not len(head):
        return ranking
    ce = np.asarray(
        reranker.score(question, [index.chunks[k].search_text for k in head]), dtype=float
    )
    reranked = head[np.argsort(-ce, kind="stable")]
    base = np.where(ranking.score > 0, ranking.score / ranking.score.max(), 0.0)
    score = base.copy()
    score[reranked] = 1 + (len(reranked) - np.arange(len(reranked))) / len(reranked)
    rerank = np.full(len(score), np.nan)
    rerank[head] = ce
    return replace(ranking, score=score, rerank=rerank)
