"""QESChunker, exact: the segmentation into contiguous chunks that maximises evidence utility.

Zhao et al., "QESChunker: A Single Objective Unifies Overlapping and Non-Overlapping Chunking
for RAG" (2026). ``u(j, i) = #spans inside [j, i) + #multi-evidence questions whole inside - mu``
and ``best[i] = max_{j < i, span(j, i) <= L} best[j] + u(j, i)``, in exact arithmetic.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from fractions import Fraction

from ..parse import Document
from .base import Params, Plan, Training, register, unit_span
from .guard import allowed_cuts

MU = 0.05


def items_by_first(training: Training, n: int) -> list[list[int]]:
    """For each unit j, the sorted last units of the evidence items (spans and whole-question
    groups) that start at j."""
    buckets: list[list[int]] = [[] for _ in range(n)]
    for first, last in (*training.spans, *training.groups):
        if 0 <= first < n:
            buckets[first].append(last)
    for b in buckets:
        b.sort()
    return buckets


def segment(
    doc: Document,
    size: int,
    training: Training,
    mu: float = MU,
    allowed: Sequence[bool] | None = None,
) -> tuple[list[tuple[int, int]], float]:
    """Optimal unit segmentation ``[(j, i), ...]`` and its objective value.

    The objective is computed exactly: ``mu`` is read as the decimal it is written as (0.05 is
    1/20) and every value is an integer multiple of its denominator, so equal objectives are
    equal and no float rounding picks between them. Ties go to the later cut: among optimal
    segmentations, the one whose last chunk starts latest, then the same for the chunks before
    it. ``allowed`` (:func:`~lab.chunkers.guard.allowed_cuts`), when given, names the boundaries
    a chunk may start or end at: the heading guard."""
    units = doc.units
    n = len(units)
    if n == 0:
        return [], 0.0
    exact = Fraction(str(mu))
    scale, cost = exact.denominator, exact.numerator
    buckets = items_by_first(training, n)
    best: list[int | None] = [0] + [None] * n
    arg = [0] * (n + 1)
    for i in range(1, n + 1):
        if allowed is not None and not allowed[i]:
            continue
        end = units[i - 1].end
        inside = 0
        for j in range(i - 1, -1, -1):
            if end - units[j].start > size and j < i - 1:
                break
            if buckets[j]:
                inside += bisect_left(buckets[j], i)
            if best[j] is None:  # a boundary the guard forbids
                continue
            value = best[j] + scale * inside - cost
            if best[i] is None or value > best[i]:  # strict: the first (latest) j keeps a tie
                best[i], arg[i] = value, j
    cuts = []
    i = n
    while i > 0:
        cuts.append((arg[i], i))
        i = arg[i]
    return cuts[::-1], best[n] / scale


@register(
    "qes-dp",
    "QES exact (DP)",
    "Trained on train questions: the cut points that keep the most evidence intact, found exactly "
    "by dynamic programming.",
    order=4,
    supervised=True,
)
def qes_dp(doc: Document, p: Params) -> Plan:
    allowed = allowed_cuts(doc, p.size) if p.heading_guard else None
    runs, objective = segment(doc, p.size, p.training, allowed=allowed)
    return Plan(tuple(unit_span(doc, a, b) for a, b in runs), objective=round(objective, 6))
