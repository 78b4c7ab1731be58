"""Rank chunks for questions: flat BM25, or BM25 blended with personalised PageRank (graph)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .corpus import Question
from .index import Index
from .text import tokenize

MODES = ("flat", "graph")
SEEDS = 3
BM25_SHARE = 0.6


@dataclass(frozen=True, eq=False)
class Ranking:
    """Scores of every chunk for one question; ``order`` lists the offered (positive) chunks,
    best first, ties in document order."""

    order: np.ndarray
    score: np.ndarray
    bm25: np.ndarray
    pagerank: np.ndarray | None = None
    seeds: tuple[int, ...] = ()

    def positions(self) -> np.ndarray:
        """Rank position (0-based) of each chunk in ``order``; -1 where not offered."""
        pos = np.full(len(self.score), -1, dtype=np.int64)
        pos[self.order] = np.arange(len(self.order))
        return pos


def _offered(score: np.ndarray) -> np.ndarray:
    order = np.argsort(-score, kind="stable")
    return order[: int(np.count_nonzero(score > 0))]


def rank(index: Index, questions: Sequence[Question], mode: str, seeds: int = SEEDS) -> list[Ranking]:
    """Rank ``index``'s chunks for each question in ``mode`` ("flat" or "graph")."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    bm25 = index.bm25.scores([tokenize(q.question) for q in questions])
    if mode == "flat":
        return [Ranking(_offered(row), row, row) for row in bm25]

    n = len(index.chunks)
    top = np.argsort(-bm25, axis=1, kind="stable")[:, :seeds]
    restart = np.zeros((n, len(questions)))
    seed_sets = []
    for q, row in enumerate(bm25):
        chosen = tuple(int(k) for k in top[q] if row[k] > 0)
        seed_sets.append(chosen)
        if chosen:
            restart[list(chosen), q] = row[list(chosen)] / row[list(chosen)].sum()
    mass = index.graph.pagerank(restart) if n else restart
    rankings = []
    for q, row in enumerate(bm25):
        if not seed_sets[q]:
            rankings.append(Ranking(_offered(row), np.zeros(n), row, np.zeros(n), ()))
            continue
        p = mass[:, q]
        score = BM25_SHARE * row / row.max() + (1 - BM25_SHARE) * p / p.max()
        rankings.append(Ranking(_offered(score), score, row, p, seed_sets[q]))
    return rankings
