"""One index ranked in one mode for a list of questions (``Retrieval``), assembled and scored
at any budget on questions x chunks arrays, or question by question by the plain rules where the
retrieval is so small that the arrays' fixed cost per step is more than the walk
(``PLAIN_CELLS``; the same results either way)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain

import numpy as np

from .assemble import (
    FirstLooks,
    Picks,
    assemble,
    assemble_questions,
    first_looks,
    picked_ranks,
    the_cuts,
)
from .corpus import Question
from .index import Index
from .lru import bounded_get_many
from .metrics import (
    EvidenceSpans,
    Metrics,
    QuestionResult,
    RankedQuestion,
    RankingMeans,
    evidence_spans,
    question_holders,
    rank_questions,
    ranking_means,
    ranking_means_of_scores,
    score_questions,
    tally,
    verdicts,
)
from .retrieve import RERANK_TOP, Ranking, rank_scored

KEPT_BUDGETS = 16  # per retrieval: the assemblies and results of this many budgets are kept
# Questions x chunks x budgets at most assembled (and questions x chunks at most ranked) question
# by question by the plain rules (``assemble``; ``rank_questions`` over each ranking's one sort),
# not on the arrays: each step of the array walk costs the same NumPy calls however few rows it
# moves, while it walks every budget at once. Measured: the handbook's run (25 questions, 15-25
# chunks, one budget) half the time; about even at 1,500 cells; a sweep's five budgets faster on
# the arrays from 1,300 x 5.
PLAIN_CELLS = 1024


@dataclass(eq=False)
class Scored:
    """One budget's assembly for every question of a retrieval and its metrics; the
    per-question results are built when first asked for."""

    picks: Picks
    metrics: Metrics
    results: tuple[QuestionResult, ...] | None = None
    cuts: list[int] | None = None  # each question's cut, when assembled question by question


@dataclass(frozen=True, eq=False)
class Retrieval:
    """Rankings of one index in one mode for a list of questions, to assemble at any budget."""

    index: Index
    mode: str
    questions: tuple[Question, ...]
    rankings: tuple[Ranking, ...] = field(repr=False)
    # The rankings' scores as one questions x chunks matrix, when ranking left them in one.
    matrix: np.ndarray | None = field(default=None, repr=False)
    # Assembled and ranked question by question (the plain rules) or on the arrays; None: question
    # by question up to ``PLAIN_CELLS``. The same results either way.
    by_question: bool | None = None
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
        by_question: bool | None = None,
    ) -> Retrieval:
        rankings, matrix = rank_scored(
            index, questions, mode, reranker=reranker, rerank_top=rerank_top, filters=filters
        )
        return cls(index, mode, tuple(questions), tuple(rankings), matrix, by_question)

    def __reduce__(self):
        fields = (self.index, self.mode, self.questions, self.rankings, None, self.by_question)
        return type(self), fields

    def scores(self) -> np.ndarray:
        """Questions x chunks: the score each ranking gives each chunk, read-only."""
        if self.matrix is not None:
            matrix = self.matrix.view()
        elif self.rankings:
            matrix = np.stack([r.score for r in self.rankings])
        else:
            matrix = np.zeros((0, len(self.index.chunks)))
        matrix.flags.writeable = False
        return matrix

    def evaluate(self, budget: int) -> tuple[QuestionResult, ...]:
        """Every question's result at ``budget``; kept with their metrics for the last
        ``KEPT_BUDGETS`` budgets asked for."""
        scored = self._kept([budget])[0]
        if scored.results is None:
            scored.results = self._results_of(scored, budget)
        return scored.results

    def evaluate_each(self, budgets: Sequence[int]) -> tuple[QuestionResult, ...]:
        """Every question's result at its own budget (``budgets[j]`` for question ``j``): the
        adaptive budget's hook into assembly, one array assembly per distinct budget."""
        if len(budgets) != len(self.questions):
            raise ValueError(f"{len(budgets)} budgets for {len(self.questions)} questions")
        distinct = sorted({int(b) for b in budgets})
        self._kept(distinct)  # the budgets not kept, assembled at once
        at = {b: self.evaluate(b) for b in distinct}
        return tuple(at[int(b)][j] for j, b in enumerate(budgets))

    def metrics(self, budget: int) -> Metrics:
        """``aggregate(self.evaluate(budget))``, kept with the assembly."""
        return self._kept([budget])[0].metrics

    def metrics_at(self, budgets: Sequence[int]) -> list[Metrics]:
        """``self.metrics(b)`` for each budget of ``budgets``, those not kept assembled at once."""
        return [scored.metrics for scored in self._kept(budgets)]

    def _kept(self, budgets: Sequence[int]) -> list[Scored]:
        return bounded_get_many(self._lock, self._results, budgets, self._score, KEPT_BUDGETS)

    def by_question_at(self, budgets: int = 1) -> bool:
        """Whether ``budgets`` budgets are assembled (and, for one, the ranking metrics found)
        question by question by the plain rules: as ``by_question`` says, else when questions x
        chunks x ``budgets`` is at most ``PLAIN_CELLS``."""
        if self.by_question is not None:
            return self.by_question
        return len(self.questions) * len(self.index.chunks) * budgets <= PLAIN_CELLS

    def _score(self, budgets: Sequence[int]) -> list[Scored]:
        """Assemble every question at every budget of ``budgets`` and count what it found."""
        if self.by_question_at(len(budgets)):
            return [self._score_each(budget) for budget in budgets]
        index = self.index
        keys = index.delivery_keys
        every = assemble_questions(
            self.scores(),
            index.words,
            index.delivered_terms,
            budgets,
            None if keys is None else np.asarray(keys),
            looks=self.looks,
        )
        out = []
        for picks in every:
            partial, complete = verdicts(self._spans, picks.rows, picks.chunks)
            metrics = tally(
                self._means,
                int(partial.sum()),
                int(complete.sum()),
                int(picks.used.sum()),
                len(picks.rows),
            )
            out.append(Scored(picks, metrics))
        return out

    def _score_each(self, budget: int) -> Scored:
        """``_score`` at one budget by ``assemble``, question after question."""
        index = self.index
        words, tokens, keys = index.words, index.delivered_tokens, index.delivery_keys
        contexts = [assemble(r, words, tokens, budget, keys=keys) for r in self.rankings]
        counts = [len(c.picked) for c in contexts]
        total = sum(counts)
        rows = np.repeat(np.arange(len(contexts), dtype=np.int64), counts)
        chunks = np.fromiter(chain.from_iterable(c.picked for c in contexts), np.int64, total)
        ranks = np.fromiter(chain.from_iterable(c.positions for c in contexts), np.int64, total)
        used = np.array([c.words for c in contexts], dtype=np.int64)
        picks = Picks(rows, chunks, ranks, used)
        partial, complete = verdicts(self._spans, rows, chunks)
        metrics = tally(
            self._means, int(partial.sum()), int(complete.sum()), int(used.sum()), total
        )
        return Scored(picks, metrics, cuts=[c.cut for c in contexts])

    def _results_of(self, scored: Scored, budget: int) -> tuple[QuestionResult, ...]:
        picks = scored.picks
        if scored.cuts is not None:  # assembled question by question: ranks and cuts known
            positions, cuts = picks.positions, np.asarray(scored.cuts, dtype=np.int64)
        else:
            scores, words = self.scores(), self.index.words
            positions = picked_ranks(scores, picks)
            cuts = the_cuts(scores, words, self.looks, picks, positions, budget)
        bounds = np.searchsorted(picks.rows, np.arange(len(self.questions) + 1)).tolist()
        chunks, positions = picks.chunks.tolist(), positions.tolist()
        assembled = [
            (tuple(chunks[a:b]), tuple(positions[a:b]), cut, used)
            for a, b, cut, used in zip(
                bounds[:-1], bounds[1:], cuts.tolist(), picks.used.tolist(), strict=True
            )
        ]
        return tuple(
            score_questions(
                self.index, self.questions, self.rankings, self.ranked, assembled, budget
            )
        )

    @cached_property
    def looks(self) -> FirstLooks:
        """Per question, what the assembler examines first, all questions at once."""
        return first_looks(self.scores(), self.index.words)

    @cached_property
    def ranked(self) -> list[RankedQuestion]:
        """Per question, what its result owes to the ranking alone (the same at every budget)."""
        if self.by_question_at():
            heads = [r.order.tolist() for r in self.rankings]  # whole rankings, sorted once
            whole = [True] * len(heads)
        else:
            looks = self.looks
            pairs = zip(looks.order.tolist(), looks.shown.tolist(), strict=True)
            heads = [row[:m] for row, m in pairs]
            whole = (looks.shown == looks.offered).tolist()
        return rank_questions(self.index, self.questions, self.rankings, heads, whole)

    @cached_property
    def _means(self) -> RankingMeans:
        """``ranking_means(self.ranked)``: on the arrays (``ranking_means_of_scores``, so that a
        sweep builds no ``RankedQuestion``), or from ``ranked`` when question by question."""
        if self.by_question_at():
            return ranking_means(self.ranked)
        looks = self.looks
        return ranking_means_of_scores(self.scores(), looks.order, looks.shown, self._spans)

    @cached_property
    def _spans(self) -> EvidenceSpans:
        return evidence_spans(question_holders(self.index, self.questions))
