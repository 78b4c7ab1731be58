"""QESChunker, overlapping: cost-benefit greedy over candidate windows under an index budget.

The coverage objective (new evidence spans + newly completed multi-evidence questions +
``alpha`` per newly covered unit) is monotone submodular, so lazy evaluation with a priority
queue picks exactly what the plain greedy picks.
"""

from __future__ import annotations

import heapq
import struct

import numpy as np

from ..parse import Document
from .base import Params, Plan, Training, pack_units, register, unit_span
from .guard import allowed_cuts, pack_guarded

ALPHA = 0.02
INDEX_BUDGET = 1.35
MIN_FRACTION = 0.5


class Coverage:
    """Candidate windows and what choosing them has covered so far."""

    def __init__(
        self,
        doc: Document,
        size: int,
        training: Training,
        alpha: float = ALPHA,
        allowed: list[bool] | None = None,
    ):
        starts = np.asarray(doc.unit_starts, dtype=np.int64)
        ends = np.asarray(doc.unit_ends, dtype=np.int64)
        n = len(starts)
        self.alpha = alpha
        # (first unit, stop unit, cost): the runs from unit j that span 0.5 L to L (unit ends
        # are in order, so the last units of the runs from each j are a range found by bisection)
        low = np.maximum(ends.searchsorted(starts + MIN_FRACTION * size, "left"), np.arange(n))
        high = np.maximum(ends.searchsorted(starts + size, "right"), np.arange(n))
        counts = np.maximum(high - low, 0)
        first = np.repeat(np.arange(n), counts)
        last = np.arange(len(first)) - np.repeat(np.cumsum(counts) - counts - low, counts)
        if allowed is not None:  # the heading guard: windows start and end where cuts may fall
            ok = np.asarray(allowed, dtype=bool)
            keep = ok[first] & ok[last + 1]
            first, last = first[keep], last[keep]
        self.first, self.stop = first, last + 1
        self.costs = ends[last] - starts[first]
        self.candidates: list[tuple[int, int, int]] = list(
            zip(first.tolist(), self.stop.tolist(), self.costs.tolist(), strict=True)
        )
        spans, groups = training.spans, training.groups
        self.inside_spans = self._inside(spans)
        self.inside_groups = self._inside(groups)
        self.unit_covered = bytearray(n)
        self.span_covered = bytearray(len(spans))
        self.group_covered = bytearray(len(groups))
        self.left = n + len(spans) + len(groups)  # units, spans and groups not yet covered

    def _inside(self, ranges: tuple[tuple[int, int], ...]) -> list[tuple[int, ...]]:
        """For each candidate, the indices of the unit ranges ``(first, last)`` inside it, by
        first unit, then index: for all candidates at once, the ranges beginning in each
        (found by bisection) kept where they also end in it."""
        inside: list[tuple[int, ...]] = [()] * len(self.candidates)
        if not ranges:
            return inside
        order = np.array(sorted(range(len(ranges)), key=lambda k: ranges[k][0]), dtype=np.int64)
        bounds = np.array(ranges, dtype=np.int64)[order]
        a = bounds[:, 0].searchsorted(self.first, "left")
        b = bounds[:, 0].searchsorted(self.stop, "left")
        counts = np.maximum(b - a, 0)
        candidate = np.repeat(np.arange(len(counts)), counts)
        at = np.arange(len(candidate)) - np.repeat(np.cumsum(counts) - counts - a, counts)
        kept = bounds[at, 1] < self.stop[candidate]
        found, candidate = order[at[kept]].tolist(), candidate[kept]
        ends = np.searchsorted(candidate, np.arange(len(counts) + 1)).tolist()
        for c in np.flatnonzero(np.diff(ends)).tolist():
            inside[c] = tuple(found[ends[c] : ends[c + 1]])
        return inside

    def gain(self, c: int) -> float:
        j, i, _ = self.candidates[c]
        spans, groups = self.inside_spans[c], self.inside_groups[c]
        items = len(spans) - sum(map(self.span_covered.__getitem__, spans)) if spans else 0
        if groups:
            items += len(groups) - sum(map(self.group_covered.__getitem__, groups))
        return items + self.alpha * (i - j - self.unit_covered.count(1, j, i))

    def choose(self, c: int) -> None:
        j, i, _ = self.candidates[c]
        self.left -= i - j - self.unit_covered.count(1, j, i)
        self.unit_covered[j:i] = b"\x01" * (i - j)
        for k in self.inside_spans[c]:
            self.left -= 1 - self.span_covered[k]
            self.span_covered[k] = 1
        for k in self.inside_groups[c]:
            self.left -= 1 - self.group_covered[k]
            self.group_covered[k] = 1


def greedy_plain(cov: Coverage, budget: float) -> list[int]:
    """The cost-benefit greedy, the plain rule: every round evaluates every candidate and takes
    the best gain per character (``gain / cost``) among those that still fit ``budget`` and gain
    something, ties to the lower index; it stops when none is left. ``greedy_lazy`` is its fast
    path, the same choices."""
    chosen, spent = [], 0
    while True:
        best = None
        for c, (_, _, cost) in enumerate(cov.candidates):
            gain = cov.gain(c)
            if spent + cost <= budget and gain > 0 and (best is None or (-gain / cost, c) < best):
                best = (-gain / cost, c)
        if best is None:
            return chosen
        chosen.append(best[1])
        cov.choose(best[1])
        spent += cov.candidates[best[1]][2]


_DOUBLE, _INT64 = struct.Struct("<d"), struct.Struct("<q")
_LOW = 0x7FFFFFFFFFFFFFFF


def _ordered(ratios: np.ndarray) -> np.ndarray:
    """Floats (no NaN) as int64 in the same order: their bits, all but the sign flipped when
    negative."""
    bits = np.ascontiguousarray(ratios, dtype=np.float64).view(np.int64)
    return np.where(bits < 0, bits ^ _LOW, bits)


def greedy_lazy(cov: Coverage, budget: float) -> list[int]:
    """``greedy_plain``'s choices by lazy (priority-queue) re-evaluation: a gain never grows
    (the objective is submodular), so a candidate whose gain, looked at again, still leads the
    queue is the round's best.

    The queue is ordered by (-gain / cost, candidate), each entry one int (the ratio's float
    bits made ordered, then the candidate), compared faster than tuples; each candidate has one
    entry at a time, its round kept beside it. Every candidate's first entry (its gain while
    nothing is covered) is in a list sorted once; only re-evaluated entries go through a heap,
    and the next entry is the smaller of the two fronts."""
    alpha = cov.alpha
    spans = np.fromiter(map(len, cov.inside_spans), dtype=np.int64, count=len(cov.candidates))
    groups = np.fromiter(map(len, cov.inside_groups), dtype=np.int64, count=len(cov.candidates))
    gains = (spans + groups) + alpha * (cov.stop - cov.first)
    ratios = -gains / cov.costs
    keep = np.flatnonzero((gains > 0) & (cov.costs <= budget))
    keep = keep[np.lexsort((keep, ratios[keep]))]
    shift = max(1, len(cov.candidates)).bit_length()
    mask = (1 << shift) - 1
    first = [
        (key << shift) + c
        for key, c in zip(_ordered(ratios[keep]).tolist(), keep.tolist(), strict=True)
    ]
    heap: list[int] = []
    chosen: list[int] = []
    costs, firsts, stops = cov.costs.tolist(), cov.first.tolist(), cov.stop.tolist()
    stamp = [0] * len(costs)  # the round each candidate's entry was made in
    holds_evidence = set(np.flatnonzero(spans + groups).tolist())
    covered = cov.unit_covered.count
    inside_spans, inside_groups = cov.inside_spans, cov.inside_groups
    span_done, group_done = cov.span_covered.__getitem__, cov.group_covered.__getitem__
    pack, unpack = _DOUBLE.pack, _INT64.unpack
    pop, push = heapq.heappop, heapq.heappush
    spent, round_, k, m = 0, 0, 0, len(first)
    while k < m or heap:
        if heap and (k == m or heap[0] < first[k]):
            entry = pop(heap)
        else:
            entry = first[k]
            k += 1
        c = entry & mask
        cost = costs[c]
        if spent + cost > budget:
            continue
        if stamp[c] != round_:
            j, i = firsts[c], stops[c]
            if c in holds_evidence:  # ``cov.gain(c)``, inline
                spans_in, groups_in = inside_spans[c], inside_groups[c]
                items = len(spans_in) - sum(map(span_done, spans_in)) if spans_in else 0
                if groups_in:
                    items += len(groups_in) - sum(map(group_done, groups_in))
                g = items + alpha * (i - j - covered(1, j, i))
            else:  # what ``gain`` comes to for a window with no evidence inside
                g = alpha * (i - j - covered(1, j, i))
            if g <= 0:
                continue
            bits = unpack(pack(-g / cost))[0]
            again = ((bits ^ _LOW if bits < 0 else bits) << shift) + c
            if again != entry:
                stamp[c] = round_
                if (heap and heap[0] < again) or (k < m and first[k] < again):
                    push(heap, again)
                    continue
            # Unchanged, or still ahead of both fronts: pushed back it would come out next (ties
            # go to the lower index; no other entry is the same candidate's).
        chosen.append(c)
        cov.choose(c)
        spent += cost
        round_ += 1
        if not cov.left:  # every gain is 0 from here on
            break
    return chosen


def select_windows(
    doc: Document, size: int, training: Training, heading_guard: bool = False
) -> list[tuple[int, int]]:
    """Chosen windows plus gap runs, as unit ranges in document order; with ``heading_guard``,
    no window or gap run starts or ends between a heading and its first unit."""
    if not doc.units:
        return []
    allowed = allowed_cuts(doc, size) if heading_guard else None
    cov = Coverage(doc, size, training, allowed=allowed)
    budget = INDEX_BUDGET * len(doc.text)
    chosen = greedy_lazy(cov, budget)
    runs = [cov.candidates[c][:2] for c in chosen]
    n = len(doc.units)
    i = 0
    while i < n:
        if cov.unit_covered[i]:
            i += 1
            continue
        j = i
        while i < n and not cov.unit_covered[i]:
            i += 1
        runs.extend(
            pack_units(doc, j, i, size)
            if allowed is None
            else pack_guarded(doc, j, i, size, allowed)
        )
    return sorted(runs)


@register(
    "qes-greedy",
    "QES overlapping (greedy)",
    "Trained on train questions: overlapping windows of 0.5 L to L chosen greedily for evidence "
    "gained per character, within 1.35x the document's length; gaps packed after.",
    order=5,
    supervised=True,
)
def qes_greedy(doc: Document, p: Params) -> Plan:
    return Plan(
        tuple(
            unit_span(doc, a, b)
            for a, b in select_windows(doc, p.size, p.training, p.heading_guard)
        )
    )
