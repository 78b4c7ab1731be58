"""One index ranked in one mode for a list of questions (``Retrieval``), assembled and scored
at any budget."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .assemble import FIRST_LOOK, Context, Look, Outcome, offered_order, walk, walk_ranking
from .corpus import Question
from .index import Index
from .lru import bounded_get_many
from .metrics import (
    Metrics,
    QuestionResult,
    RankedQuestion,
    RankingMeans,
    rank_questions,
    ranking_means,
    score_questions,
    tally,
)
from .retrieve import RERANK_TOP, Ranking, rank_scored, top_rows

KEPT_BUDGETS = 16  # per ranking: scored results of this many budgets are kept
RESTMIN_TRIES = 64  # shortest chunks tried first for the assembler's first look
FULL_SORT = 64  # on an index of at most this many chunks, whole rankings are sorted at once
IN_PLACE = 1024  # rankings of at least this many chunks are read in place when they can be
LOOK_ROWS = 128  # rankings whose first looks are found together


class Scored:
    """One budget's assembly for every question of a retrieval (the assembler's outcome over
    each question's look) and its metrics; the per-question results are built when asked for."""

    __slots__ = ("looks", "outcomes", "metrics", "results")

    def __init__(self, looks: list[Look], outcomes: list[Outcome], metrics: Metrics):
        self.looks, self.outcomes, self.metrics = looks, outcomes, metrics
        self.results: tuple[QuestionResult, ...] | None = None


@dataclass(frozen=True, eq=False)
class Retrieval:
    """Rankings of one index in one mode for a list of questions, to assemble at any budget."""

    index: Index
    mode: str
    questions: tuple[Question, ...]
    rankings: tuple[Ranking, ...] = field(repr=False)
    # The rankings' scores as one questions x chunks matrix, when ranking left them in one.
    matrix: np.ndarray | None = field(default=None, repr=False)
    _results: OrderedDict = field(default_factory=OrderedDict, repr=False, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, init=False)

    @classmethod
    def of(
        cls,
        index: Index,
        questions: Sequence[Question],
        mode: str,
        reranker=None,
        rerank_top: int = RERANK_TOP,
        filters: bool = True,
    ) -> Retrieval:
        rankings, matrix = rank_scored(
            index, questions, mode, reranker=reranker, rerank_top=rerank_top, filters=filters
        )
        return cls(index, mode, tuple(questions), tuple(rankings), matrix)

    def contexts(self, budget: int) -> list[Context]:
        """Every question's context at ``budget``."""
        scored, keys = self._kept([budget])[0], self.index.delivery_keys
        return [
            Context.of(look, outcome, budget, keys)
            for look, outcome in zip(scored.looks, scored.outcomes, strict=True)
        ]

    def evaluate(self, budget: int) -> tuple[QuestionResult, ...]:
        """Every question's result at ``budget``; kept with their metrics for the last
        ``KEPT_BUDGETS`` budgets asked for."""
        scored = self._kept([budget])[0]
        if scored.results is None:
            scored.results = tuple(
                score_questions(
                    self.index,
                    self.questions,
                    self.rankings,
                    scored.looks,
                    scored.outcomes,
                    budget,
                    self.ranked,
                )
            )
        return scored.results

    def metrics(self, budget: int) -> Metrics:
        """``aggregate(self.evaluate(budget))``, kept with the results."""
        return self._kept([budget])[0].metrics

    def metrics_at(self, budgets: Sequence[int]) -> list[Metrics]:
        """``self.metrics(b)`` for each budget of ``budgets``, those not kept assembled at once."""
        return [scored.metrics for scored in self._kept(budgets)]

    def _kept(self, budgets: Sequence[int]) -> list[Scored]:
        return bounded_get_many(self._lock, self._results, budgets, self._score, KEPT_BUDGETS)

    def _score(self, budgets: Sequence[int]) -> list[Scored]:
        """Assemble and count hits at every budget of ``budgets`` in one walk per question."""
        ascending = sorted(set(budgets))
        looks, walked = self._walk(ascending)
        means, hits = self._means, self._evidence_at
        scored = {}
        for i, budget in enumerate(ascending):
            outcomes = [w[i] for w in walked]
            partial = complete = words = chunks = 0
            for look, (picks, _, used), (at, every) in zip(looks, outcomes, hits, strict=True):
                found = 0
                for p in picks:
                    found |= at.get(look.ranked[p], 0)
                partial += found != 0
                complete += found == every
                words += used
                chunks += len(picks)
            metrics = tally(means, partial, complete, words, chunks)
            scored[budget] = Scored(looks, outcomes, metrics)
        return [scored[b] for b in budgets]

    def _walk(self, budgets: list[int]) -> tuple[list[Look], list[list[Outcome]]]:
        """Per question, the look the assembler needed and its outcome at each budget: the first
        look, or where a budget walked past it, the whole ranking sorted at once and walked
        (``walk_ranking``: a walk that long is looking for a short chunk far down, and often
        goes far; looks growing fourfold, each sorted again, measured slower)."""
        index = self.index
        marks, keys, words = index.delivered_marks, index.delivery_keys, index.words
        looks = list(self.first_looks)
        walked = [walk(look, budgets, marks, keys) for look in looks]
        for j in _short(looks, walked):
            order = offered_order(self.rankings[j].score)
            looks[j], walked[j] = walk_ranking(order, words, budgets, marks, keys)
        return looks, walked

    @cached_property
    def ranked(self) -> list[RankedQuestion]:
        """Per question, what its result owes to the ranking alone (the same at every budget)."""
        return rank_questions(self.index, self.questions, self.rankings, self.first_looks)

    @cached_property
    def _means(self) -> RankingMeans:
        return ranking_means(self.ranked)

    @cached_property
    def _evidence_at(self) -> list[tuple[dict[int, int], int]]:
        """Per question, the evidence spans each chunk holding some holds (a bit per span), and
        the bits of all its spans."""
        out = []
        for r in self.ranked:
            at: dict[int, int] = {}
            for i, holders in enumerate(r.holders):
                for h in holders:
                    at[h] = at.get(h, 0) | 1 << i
            out.append((at, (1 << len(r.holders)) - 1))
        return out

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_lock"] = None
        state["matrix"] = None  # the rankings hold the same scores
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _lock=threading.Lock())

    def scores(self) -> np.ndarray:
        """Questions x chunks: the score each ranking gives each chunk, read-only (built when
        asked, not kept: the rankings hold the same numbers; the matrix ranking left them in, or
        when they are the rows of one matrix, that matrix, is read in place)."""
        if not self.rankings:
            return np.zeros((0, len(self.index.chunks)))
        if self.matrix is not None:
            matrix = self.matrix.view()
            matrix.flags.writeable = False
            return matrix
        rows = [r.score for r in self.rankings]
        matrix = stacked_rows(rows) if len(rows[0]) >= IN_PLACE else None
        if matrix is None:
            matrix = np.stack(rows)
            matrix.flags.writeable = False
        return matrix

    @cached_property
    def first_looks(self) -> list[Look]:
        """Per question, what the assembler examines first (``look_ahead(ranking, words,
        FIRST_LOOK)``, or the whole ranking on a small index), all questions at once."""
        scores, words = self.scores(), self.index.words
        if scores.shape[1] <= FULL_SORT:
            return whole_looks(scores, words)
        heads, offered = [], []
        for lo in range(0, len(scores), LOOK_ROWS):  # a block's rows read while in cache
            block = scores[lo : lo + LOOK_ROWS]
            heads += top_rows(block, FIRST_LOOK)
            offered += np.count_nonzero(block > 0, axis=1).tolist()
        whole = [len(h) == m for h, m in zip(heads, offered, strict=True)]
        looks = [Look.of(h, None, words) if w else None for h, w in zip(heads, whole, strict=True)]
        rest = [j for j, w in enumerate(whole) if not w]
        if not rest:
            return looks
        # The rows with more offered chunks than their head (FIRST_LOOK each), built together.
        order = np.stack([heads[j] for j in rest])
        sizes = words[order]
        # The shortest offered chunk past the head: try the RESTMIN_TRIES shortest chunks of the
        # index first (shortest first), and all of them for a row none of those settles.
        in_head = np.zeros((len(rest), scores.shape[1]), dtype=bool)
        in_head[np.arange(len(rest))[:, None], order] = True
        shortest = np.argsort(words, kind="stable")[:RESTMIN_TRIES]
        ok = (scores[np.ix_(rest, shortest)] > 0) & ~in_head[:, shortest]
        rest_min = words[shortest[ok.argmax(axis=1)]]
        for r in np.flatnonzero(~ok.any(axis=1)).tolist():
            rest_min[r] = words[(scores[rest[r]] > 0) & ~in_head[r]].min()
        least = np.minimum(
            np.minimum.accumulate(sizes[:, ::-1], axis=1)[:, ::-1], rest_min[:, None]
        )
        for j, ranked, size, low, array in zip(
            rest, order.tolist(), sizes.tolist(), least.tolist(), sizes, strict=True
        ):
            looks[j] = Look(ranked, size, low, False, array)
        return looks


def stacked_rows(rows: list[np.ndarray]) -> np.ndarray | None:
    """``np.stack(rows)`` as a read-only view without copying, when the rows already lie one
    after the other in the memory of one array (the rows of a C-ordered matrix, in order);
    None otherwise."""
    first = rows[0]
    base, size = first.base, first.itemsize
    if base is None or first.ndim != 1 or first.strides != (size,):
        return None
    step, start = len(first) * size, first.__array_interface__["data"][0]
    for j, row in enumerate(rows):
        if (
            row.base is not base
            or row.dtype != first.dtype
            or row.shape != first.shape
            or row.strides != first.strides
            or row.__array_interface__["data"][0] != start + j * step
        ):
            return None
    return np.lib.stride_tricks.as_strided(
        first, shape=(len(rows), len(first)), strides=(step, size), writeable=False
    )


def _short(looks: list[Look], walked: list[list[Outcome]]) -> list[int]:
    """The questions where some budget walked to the end of a partial look."""
    return [
        j
        for j, (look, outcomes) in enumerate(zip(looks, walked, strict=True))
        if not look.whole and any(cut == len(look.ranked) for _, cut, _ in outcomes)
    ]


def whole_looks(scores: np.ndarray, words: np.ndarray) -> list[Look]:
    """Every row's whole ranking as a look (every offered chunk, best first, ties in index
    order), from one sort of all rows."""
    q, n = scores.shape
    order = np.argsort(-scores, axis=1, kind="stable")
    offered = np.count_nonzero(scores > 0, axis=1)
    array = words[order]
    beyond = np.arange(n) >= offered[:, None]
    least = np.minimum.accumulate(np.where(beyond, np.iinfo(np.int64).max, array)[:, ::-1], axis=1)
    ranked, sizes, least = order.tolist(), array.tolist(), least[:, ::-1].tolist()
    return [
        Look(ranked[j][:m], sizes[j][:m], least[j][:m], True, array[j, :m])
        for j, m in enumerate(offered.tolist())
    ]
