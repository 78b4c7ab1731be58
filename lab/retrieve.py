"""Rank chunks for questions: flat BM25, or BM25 blended with personalised PageRank (graph)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from .corpus import Question
from .index import Index
from .text import tokenize

MODES = ("flat", "graph")
SEEDS = 3
BM25_SHARE = 0.6


def top(score: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` best positive scores, best first, ties in index order."""
    positive = int(np.count_nonzero(score > 0))
    k = min(k, positive)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < positive:
        threshold = np.partition(score, len(score) - k)[len(score) - k]
        candidates = np.flatnonzero(score >= threshold)
    else:
        candidates = np.flatnonzero(score > 0)
    return candidates[np.argsort(-score[candidates], kind="stable")][:k]


@dataclass(frozen=True, eq=False)
class Ranking:
    """Scores of every chunk for one question. Chunks with a positive score are offered, best
    first, ties in document order; ``head(k)`` gives the first ``k`` without sorting the rest."""

    score: np.ndarray
    bm25: np.ndarray
    pagerank: np.ndarray | None = None
    seeds: tuple[int, ...] = ()

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

    def positions(self) -> np.ndarray:
        """Rank position (0-based) of each chunk; -1 where not offered."""
        pos = np.full(len(self.score), -1, dtype=np.int64)
        pos[self.order] = np.arange(len(self.order))
        return pos


@lru_cache(maxsize=4096)
def query_tokens(text: str) -> tuple[str, ...]:
    return tuple(tokenize(text))


def rank(index: Index, questions: Sequence[Question], mode: str, seeds: int = SEEDS) -> list[Ranking]:
    """Rank ``index``'s chunks for each question in ``mode`` ("flat" or "graph")."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    bm25 = index.bm25.scores([query_tokens(q.question) for q in questions])
    if mode == "flat":
        return [Ranking(row, row) for row in bm25]

    n = len(index.chunks)
    restart = np.zeros((n, len(questions)))
    seed_sets = []
    for q, row in enumerate(bm25):
        chosen = top(row, seeds)
        seed_sets.append(tuple(chosen.tolist()))
        if len(chosen):
            restart[chosen, q] = row[chosen] / row[chosen].sum()
    mass = index.graph.pagerank(restart) if n else restart
    rankings = []
    for q, row in enumerate(bm25):
        if not seed_sets[q]:
            rankings.append(Ranking(np.zeros(n), row, np.zeros(n), ()))
            continue
        p = mass[:, q]
        score = BM25_SHARE * row / row.max() + (1 - BM25_SHARE) * p / p.max()
        rankings.append(Ranking(score, row, p, seed_sets[q]))
    return rankings
