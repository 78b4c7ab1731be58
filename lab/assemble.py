"""The budgeted context assembler shared by every retrieval mode."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from typing import NamedTuple

import numpy as np

NOVELTY = 0.3
FIRST_LOOK = 32  # ranked chunks examined before the rest of the ranking is sorted
GROWN = 256  # chunks of a whole ranking sorted at once made into a look first (``walk_ranking``)
SCAN = 32  # chunks too long for the budget passed one by one before the rest is searched at once
MARK_CELLS = 1 << 22  # chunks x token marks set out at once when building ``TokenMarks``

PICKED = "picked"
OVER_BUDGET = "over budget"
NEAR_DUPLICATE = "near-duplicate"
BELOW_CUT = "below the cut"
MERGED = "already delivered"  # parent-child: its parent is in the context already

Outcome = tuple[tuple[int, ...], int, int]  # positions picked, the cut, words used
_new = object.__new__


class Look(NamedTuple):
    """Chunks the assembler examines, best first (``ranked``), their words (``sizes``, and as an
    array ``words``), the fewest words of any offered chunk from each position on (``least``,
    counting the offered chunks past the look too), and whether the look holds every offered
    chunk (``whole``)."""

    ranked: list[int]
    sizes: list[int]
    least: list[int]
    whole: bool
    words: np.ndarray

    @classmethod
    def of(cls, order: np.ndarray, rest_min: int | None, words: np.ndarray) -> Look:
        """The look over ``order``; ``rest_min``: the fewest words of an offered chunk after it
        (None: ``order`` is every offered chunk)."""
        sizes = words[order]
        least = np.minimum.accumulate(sizes[::-1])[::-1]
        if rest_min is not None:
            least = np.minimum(least, rest_min)
        return cls(order.tolist(), sizes.tolist(), least.tolist(), rest_min is None, sizes)


@dataclass(frozen=True, eq=False)
class TokenMarks:
    """Each chunk's tokens as bit sets, what the novelty rule reads. The ``i``-th occurrence of a
    term in a chunk is one bit (``own``); ``cover`` has every bit any chunk may set for the
    chunk's terms. Tokens of chunk ``k`` new to a context whose covers are OR-ed in ``seen``:
    ``lengths[k] - (own[k] & seen).bit_count()`` (repeats counted)."""

    own: list[int]
    cover: list[int]
    lengths: list[int]


def token_marks(tokens: Sequence[Sequence[int]]) -> TokenMarks:
    """``TokenMarks`` of chunks given as token ids (vocabulary indices: small ints >= 0)."""
    lengths = list(map(len, tokens))
    n = len(tokens)
    flat = np.fromiter(chain.from_iterable(tokens), dtype=np.int64, count=sum(lengths))
    if not len(flat):
        return TokenMarks([0] * n, [0] * n, lengths)
    v = int(flat.max()) + 1  # ids no chunk has take no bits
    key = np.repeat(np.arange(n, dtype=np.int64), lengths) * v + flat
    key.sort()
    fresh = np.empty(len(key), dtype=bool)
    fresh[0], fresh[1:] = True, key[1:] != key[:-1]
    starts = np.flatnonzero(fresh)
    occurrence = np.arange(len(key)) - starts[np.cumsum(fresh) - 1]  # 0 for a term's first
    chunk, term = key // v, key % v
    most = np.zeros(v, dtype=np.int64)  # the most occurrences of each term in one chunk
    np.maximum.at(most, term, occurrence + 1)
    base = np.cumsum(most) - most
    own = _bit_sets(n, chunk, base[term] + occurrence)
    run_chunk, run_term = chunk[starts], term[starts]
    spread = most[run_term]
    offsets = np.arange(int(spread.sum())) - np.repeat(np.cumsum(spread) - spread, spread)
    cover = _bit_sets(n, np.repeat(run_chunk, spread), np.repeat(base[run_term], spread) + offsets)
    return TokenMarks(own, cover, lengths)


def _bit_sets(n: int, rows: np.ndarray, bits: np.ndarray) -> list[int]:
    """Per row ``0..n-1``, the int whose set bits are the ``bits`` paired with it (``rows``
    ascending)."""
    out: list[int] = []
    bounds = np.searchsorted(rows, np.arange(n + 1))
    width = int(bits.max()) + 1 if len(bits) else 1
    block = max(1, MARK_CELLS // width)
    for first in range(0, n, block):
        last = min(n, first + block)
        lo, hi = bounds[first], bounds[last]
        cols = bits[lo:hi]
        span = (int(cols.max()) + 8) // 8 * 8 if len(cols) else 8
        grid = np.zeros((last - first, span), dtype=bool)
        grid[rows[lo:hi] - first, cols] = True
        packed = np.packbits(grid, axis=1, bitorder="little").tobytes()
        step = span // 8
        out += [int.from_bytes(packed[i : i + step], "little") for i in range(0, len(packed), step)]
    return out


@dataclass(frozen=True, eq=False)
class Context:
    """What the assembler took. Offered chunks from position ``cut`` of the ranking on were never
    considered because nothing more could fit; ``skipped`` maps a chunk before the cut that it
    passed over to why. ``positions`` are the picked chunks' 0-based ranks; ``ranked`` and
    ``sizes`` the ranked chunks the assembler walked and their words, ``keys`` their delivery
    keys (parent-child)."""

    picked: tuple[int, ...]
    cut: int
    words: int
    positions: tuple[int, ...] = ()
    budget: int | None = None
    ranked: Sequence[int] = ()
    sizes: Sequence[int] = ()
    keys: Sequence[int] | None = None

    @classmethod
    def of(
        cls, look: Look, outcome: Outcome, budget: int, keys: Sequence[int] | None = None
    ) -> Context:
        positions, cut, used = outcome
        ranked = look.ranked
        context = _new(cls)  # a run builds thousands: its fields set at once, not one by one
        vars(context).update(
            picked=tuple([ranked[p] for p in positions]),
            cut=cut,
            words=used,
            positions=positions,
            budget=budget,
            ranked=ranked,
            sizes=look.sizes,
            keys=keys,
        )
        return context

    @cached_property
    def skipped(self) -> dict[int, str]:
        """Why each chunk before the cut that was not picked was passed over."""
        taken = set(self.positions)
        return {self.ranked[p]: self._reason(p) for p in range(self.cut) if p not in taken}

    def _reason(self, position: int) -> str:
        """Why the chunk at ``position`` (before the cut, not picked) was passed over."""
        return passed_over(
            position, self.positions, self.ranked, self.sizes, self.keys, self.budget
        )

    def decision(self, chunk: int, position: int, words: int | None = None) -> str | None:
        """Why ``chunk`` (at ``position`` in the ranking, -1 if not offered, ``words`` long) was or
        was not taken. Past the cut, a chunk longer than the whole budget is "over budget" (it
        could never fit); a shorter one is "below the cut" (longer than the words left, as every
        chunk from the cut on is)."""
        if chunk in self.picked:
            return PICKED
        if 0 <= position < self.cut and self.ranked[position] == chunk:
            return self._reason(position)
        if position < self.cut or position < 0:
            return self.skipped.get(chunk)
        too_long = words is not None and self.budget is not None and words > self.budget
        return OVER_BUDGET if too_long else BELOW_CUT


def passed_over(
    position: int,
    positions: Sequence[int],
    ranked: Sequence[int],
    sizes: Sequence[int],
    keys: Sequence[int] | None,
    budget: int,
) -> str:
    """Why the assembler passed over the chunk at ``position`` of ``ranked`` (before the cut, not
    one of the picked ``positions``): its delivery key delivered already, too long for the words
    left of ``budget``, or too little new."""
    before = [p for p in positions if p < position]
    if keys is not None and keys[ranked[position]] in {keys[ranked[p]] for p in before}:
        return MERGED
    used = sum(sizes[p] for p in before)
    return OVER_BUDGET if used + sizes[position] > budget else NEAR_DUPLICATE


def walk(
    look: Look,
    budgets: Sequence[int],
    marks: TokenMarks,
    keys: Sequence[int] | None = None,
    novelty: float = NOVELTY,
) -> list[Outcome]:
    """The assembler over ``look`` at every budget of ``budgets`` (ascending, distinct) at once.

    Offer chunks in ranked order: skip one whose delivery key (``keys``, parent-child) is
    delivered already, skip one that would exceed the budget (and go on: a smaller, lower-ranked
    chunk may still fit), skip one whose tokens are less than ``novelty`` new relative to the
    context so far, take the rest; the cut comes where no remaining chunk could fit. Budgets
    take the same steps until a chunk fits some and not others: the walk then goes on for both
    groups, so shared steps (and novelty tests) are done once. A budget whose walk reaches the
    end of a partial look gets the cut ``len(look.ranked)``: it needs a longer look."""
    ranked, sizes, least = look.ranked, look.sizes, look.least
    own, cover, lengths = marks.own, marks.cover, marks.lengths
    n = len(ranked)
    out: list = [None] * len(budgets)
    # A group: the next position, words used, OR of the picked chunks' covers, positions picked,
    # delivery keys delivered, and the budgets [lo, hi) in that state.
    stack = [(0, 0, 0, (), frozenset(), 0, len(budgets))]
    while stack:
        p, used, seen, picks, delivered, lo, hi = stack.pop()
        while p < n:
            floor = used + least[p]
            while lo < hi and budgets[lo] < floor:
                out[lo] = (picks, p, used)
                lo += 1
            if lo == hi:
                break
            need = used + sizes[p]
            if budgets[hi - 1] < need:
                # Too long for every budget of the group: go on at the next chunk that fits the
                # largest (a long run is searched in the array); a budget cut on the way is cut
                # where ``least`` first passes what it has left.
                limit, q = budgets[hi - 1] - used, p + 1
                end = min(n, p + SCAN)
                while q < end and sizes[q] > limit:
                    q += 1
                if q == end < n:
                    q = _next_fit(look.words, limit, q)
                while lo < hi and budgets[lo] < used + least[q - 1]:
                    out[lo] = (picks, bisect_right(least, budgets[lo] - used, p + 1, q), used)
                    lo += 1
                p = q
                continue
            k = ranked[p]
            p += 1
            if keys is not None and keys[k] in delivered:
                continue
            if picks:
                length = lengths[k]
                if (length - (own[k] & seen).bit_count()) / max(1, length) < novelty:
                    continue
            m = lo
            while budgets[m] < need:
                m += 1
            if m > lo:
                stack.append((p, used, seen, picks, delivered, lo, m))
            if keys is not None:
                delivered = delivered | {keys[k]}
            picks, used, seen, lo = (*picks, p - 1), need, seen | cover[k], m
        else:
            for b in range(lo, hi):
                out[b] = (picks, n, used)
    return out


def walk_ranking(
    order: np.ndarray,
    words: np.ndarray,
    budgets: Sequence[int],
    marks: TokenMarks,
    keys: Sequence[int] | None = None,
) -> tuple[Look, list[Outcome]]:
    """``walk`` over the whole ranking ``order`` (every offered chunk, best first) and the look
    it was walked over: a look of its first ``GROWN`` chunks, if no budget walks to its end
    (then it decides as the whole ranking would), or else the whole ranking. Most walks stop
    early: only that part of a long ranking is made into lists."""
    sizes = words[order]
    least = np.minimum.accumulate(sizes[::-1])[::-1]
    if len(order) > GROWN:
        head = sizes[:GROWN]
        look = Look(order[:GROWN].tolist(), head.tolist(), least[:GROWN].tolist(), False, head)
        outcomes = walk(look, budgets, marks, keys)
        if all(cut < GROWN for _, cut, _ in outcomes):
            return look, outcomes
    look = Look(order.tolist(), sizes.tolist(), least.tolist(), True, sizes)
    return look, walk(look, budgets, marks, keys)


def _next_fit(words: np.ndarray, limit: int, start: int) -> int:
    """The first position from ``start`` on whose chunk has at most ``limit`` words (the length
    of ``words`` if none), searched in windows growing fourfold, so that finding it costs about
    its distance from ``start``."""
    span = SCAN
    while start < len(words):
        fits = np.flatnonzero(words[start : start + span] <= limit)
        if len(fits):
            return start + int(fits[0])
        start += span
        span *= 4
    return len(words)


def assemble(
    ranking,
    words: np.ndarray,
    tokens: Sequence[Sequence[int]],
    budget: int,
    novelty: float = NOVELTY,
    keys: Sequence[int] | None = None,
    first: Look | None = None,
    marks: TokenMarks | None = None,
) -> Context:
    """Offer chunks in ranked order: skip one that would exceed ``budget`` words (and go on: a
    smaller, lower-ranked chunk may still fit), skip one whose tokens are less than ``novelty`` new
    relative to the context so far, take the rest. Stops once no remaining chunk could fit.
    Chunks sharing a delivery key (``keys``: parent-child) are delivered once.

    ``ranking`` is a :class:`~lab.retrieve.Ranking` or an array of chunk indices, best first.
    ``first``: ``look_ahead(ranking, words, FIRST_LOOK)``, if already known; ``marks``:
    ``token_marks(tokens)``, if kept."""
    marks = marks if marks is not None else token_marks(tokens)
    if isinstance(ranking, np.ndarray):
        look = Look.of(ranking, None, words)
        return Context.of(look, walk(look, [budget], marks, keys, novelty)[0], budget, keys)
    size = FIRST_LOOK
    look = first if first is not None else look_ahead(ranking, words, size)
    while True:
        outcome = walk(look, [budget], marks, keys, novelty)[0]
        if look.whole or outcome[1] < len(look.ranked):
            return Context.of(look, outcome, budget, keys)
        size = max(size, len(look.ranked)) * 4
        look = look_ahead(ranking, words, size)


def look_ahead(ranking, words: np.ndarray, size: int) -> Look:
    """The first ``size`` chunks of ``ranking``, for the assembler."""
    if size >= ranking.offered:
        return Look.of(offered_order(ranking.score), None, words)
    head = ranking.head(size)
    if len(head) == ranking.offered:
        return Look.of(head, None, words)
    rest = ranking.score > 0
    rest[head] = False
    return Look.of(head, int(words[rest].min()), words)


def offered_order(score: np.ndarray) -> np.ndarray:
    """Every offered chunk (positive score), best first, ties in index order: ``top(score,
    offered)``. Sorted by score without regard to ties (several times faster than a stable sort
    of floats), then, if some scores are equal, by index within each run of equal scores (a
    stable sort of integers already in order but for those runs)."""
    chunks = np.flatnonzero(score > 0)
    chunks = chunks[np.argsort(-score[chunks])]
    ordered = score[chunks]
    fresh = ordered[1:] != ordered[:-1]
    if fresh.all():
        return chunks
    run = np.zeros(len(chunks), dtype=np.int64)
    np.cumsum(fresh, out=run[1:])
    return chunks[np.argsort(run * len(score) + chunks, kind="stable")]
