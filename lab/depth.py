"""Ranking depth: how far down the ranking each question's evidence sits, and what that says to
try next.

A question's evidence is *found by rank k* when every evidence span is held by some chunk ranked
k or better. Found by rank 10 but not by rank 3 means retrieval found the evidence and ranking
put it too low: a reranker is worth testing. Not found by rank 10 means retrieval or chunking is
the problem, and a reranker, which only reorders what was found, cannot help (the rule of thumb
of Part 4 of "RAG in Practice": recall@10 high and recall@3 low point at ranking).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .metrics import KS, QuestionResult

TOP = 3  # a context of a few chunks: the evidence should rank this high
DEEP = 10  # the depth a reranker usually reorders

RANKING = "ranking"
RETRIEVAL = "retrieval or chunking"
NEITHER = "neither"
FINDINGS = (RANKING, RETRIEVAL, NEITHER)


def found_at(result: QuestionResult) -> int | None:
    """The rank by which all of the question's evidence has been found (the worst of its spans'
    best-ranked holders); None when some span is held by no ranked chunk."""
    ranks = [e.rank for e in result.evidence]
    if not ranks or any(r is None for r in ranks):
        return None
    return max(ranks)


@dataclass(frozen=True)
class Depth:
    """Where the questions' evidence sits in the rankings of one configuration."""

    questions: int
    found: dict[int, int]  # k -> questions whose evidence is all found by rank k
    finding: str  # one of FINDINGS
    advice: str  # the finding in one or two plain sentences

    @property
    def in_top(self) -> int:
        """Questions whose evidence is all in the top 3."""
        return self.found[TOP]

    @property
    def ranked_low(self) -> int:
        """Questions whose evidence is all in the top 10, but not all in the top 3."""
        return self.found[DEEP] - self.found[TOP]

    @property
    def not_found(self) -> int:
        """Questions whose evidence is not all in the top 10."""
        return self.questions - self.found[DEEP]

    def as_dict(self) -> dict:
        return {
            "questions": self.questions,
            **{f"found@{k}": v for k, v in self.found.items()},
            "ranked_low": self.ranked_low,
            "not_found": self.not_found,
            "finding": self.finding,
            "advice": self.advice,
        }


def _questions(n: int) -> str:
    return f"{n} question{'s' * (n != 1)}"


def _has(n: int) -> str:
    return "has" if n == 1 else "have"


def _its(n: int) -> str:
    return "its" if n == 1 else "their"


def ranking_depth(results: Sequence[QuestionResult]) -> Depth:
    """Count the questions found by each rank in ``KS`` and diagnose: ranking is the problem when
    at least as many questions have their evidence in the top 10 but not the top 3 as have it
    outside the top 10; retrieval or chunking when more have it outside the top 10."""
    n = len(results)
    depths = [found_at(r) for r in results]
    found = {
        k: sum(1 for d in depths if d is not None and d <= k) for k in sorted({*KS, TOP, DEEP})
    }
    low, missing = found[DEEP] - found[TOP], n - found[DEEP]
    if n == 0:
        return Depth(0, found, NEITHER, "No questions to diagnose.")
    if low == 0 and missing == 0:
        advice = (
            f"All {_questions(n)} {_has(n)} {_its(n)} evidence in the top {TOP}: ranking and "
            "retrieval find it; what misses the context is left out by the budget."
        )
        return Depth(n, found, NEITHER, advice)
    if low >= missing:
        advice = (
            f"{low} of {_questions(n)} {_has(low)} all {_its(low)} evidence in the top {DEEP} but "
            f"not in the top {TOP}: ranking is the problem, and a reranker is worth testing."
        )
        if missing:
            advice += f" {missing} more {'is' if missing == 1 else 'are'} not in the top {DEEP}."
        return Depth(n, found, RANKING, advice)
    advice = (
        f"{missing} of {_questions(n)} {'does' if missing == 1 else 'do'} not have all "
        f"{_its(missing)} evidence in the top {DEEP}: retrieval or chunking is the problem "
        "(a reranker only reorders what was found)."
    )
    if low:
        advice += (
            f" {low} more {'is' if low == 1 else 'are'} in the top {DEEP} but not the top {TOP}."
        )
    return Depth(n, found, RETRIEVAL, advice)
