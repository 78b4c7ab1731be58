"""The budgeted context assembler shared by every retrieval mode: the rule for one question
(``assemble``) and the same rule for all questions of a retrieval at once, on questions x chunks
arrays (``assemble_questions``).

The rule (SPEC): offer chunks in ranked order; skip one whose delivery key is delivered already
(parent-child), skip one that would exceed the budget (and go on: a smaller, lower-ranked chunk
may still fit), skip one less than ``NOVELTY`` of whose tokens are new to the context (repeats
counted; not for the first chunk); take the rest. The cut comes where no remaining chunk could
fit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from typing import NamedTuple

import numpy as np

from .topk import top_rows

NOVELTY = 0.3
FIRST_LOOK = 32  # ranked chunks per question examined together first, then those that still fit
LOOK_ROWS = 64  # questions whose first looks are found together (their rows read while in cache)

PICKED = "picked"
OVER_BUDGET = "over budget"
NEAR_DUPLICATE = "near-duplicate"
BELOW_CUT = "below the cut"
MERGED = "already delivered"  # parent-child: its parent is in the context already


@dataclass(frozen=True, eq=False)
class Context:
    """What the assembler took. Offered chunks from position ``cut`` of the ranking on were never
    considered because nothing more could fit; ``skipped`` maps a chunk before the cut that it
    passed over to why. ``positions`` are the picked chunks' 0-based ranks; ``ranked`` and
    ``sizes`` the ranked chunks and their words, ``keys`` their delivery keys (parent-child)."""

    picked: tuple[int, ...]
    cut: int
    words: int
    positions: tuple[int, ...] = ()
    budget: int | None = None
    ranked: Sequence[int] = ()
    sizes: Sequence[int] = ()
    keys: Sequence[int] | None = None

    @cached_property
    def skipped(self) -> dict[int, str]:
        """Why each chunk before the cut that was not picked was passed over."""
        taken = set(self.positions)
        return {self.ranked[p]: self._reason(p) for p in range(self.cut) if p not in taken}

    def _reason(self, position: int) -> str:
        """Why the chunk at ``position`` (before the cut, not picked) was passed over."""
        before = [p for p in self.positions if p < position]
        keys, ranked = self.keys, self.ranked
        return passed_over(
            self.sizes[position],
            None if keys is None else keys[ranked[position]],
            [self.sizes[p] for p in before],
            () if keys is None else [keys[ranked[p]] for p in before],
            self.budget,
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
    words: int, key: int | None, before: Sequence[int], keys_before: Sequence[int], budget: int
) -> str:
    """Why the assembler passed over a chunk of ``words`` words and delivery key ``key`` (before
    the cut, not picked), the chunks picked before it having ``before`` words and delivery keys
    ``keys_before``: its key delivered already, too long for the words left of ``budget``, or too
    little new."""
    if key is not None and key in keys_before:
        return MERGED
    return OVER_BUDGET if sum(before) + words > budget else NEAR_DUPLICATE


def assemble(
    ranking,
    words: np.ndarray,
    tokens: Sequence[Sequence[int]],
    budget: int,
    novelty: float = NOVELTY,
    keys: Sequence[int] | None = None,
) -> Context:
    """The rule for one question (see the module): ``ranking`` is a
    :class:`~lab.retrieve.Ranking` or an array of chunk indices, best first; ``words`` and
    ``tokens`` (token ids) per chunk; ``keys``: delivery keys (parent-child), if any."""
    order = ranking if isinstance(ranking, np.ndarray) else ranking.order  # offered_order
    ordered = words[order]
    ranked, sizes = order.tolist(), ordered.tolist()
    least = np.minimum.accumulate(ordered[::-1])[::-1].tolist()
    positions: list[int] = []
    used, seen, delivered = 0, set(), set()
    cut = len(ranked)
    for p, k in enumerate(ranked):
        if budget < used + least[p]:
            cut = p
            break
        if used + sizes[p] > budget or (keys is not None and keys[k] in delivered):
            continue
        if positions:
            chunk_tokens = tokens[k]
            new = len(chunk_tokens) - sum(map(seen.__contains__, chunk_tokens))  # repeats too
            if new / max(1, len(chunk_tokens)) < novelty:
                continue
        positions.append(p)
        used += sizes[p]
        seen.update(tokens[k])
        if keys is not None:
            delivered.add(keys[k])
    picked = tuple(ranked[p] for p in positions)
    return Context(picked, cut, used, tuple(positions), budget, ranked, sizes, keys)


def offered_order(score: np.ndarray) -> np.ndarray:
    """Every offered chunk (positive score), best first, ties in index order."""
    chunks = np.flatnonzero(score > 0)
    return chunks[np.argsort(-score[chunks], kind="stable")]


class TermCounts(NamedTuple):
    """Each chunk's distinct tokens (``terms[indptr[k]:indptr[k + 1]]``) and how often each
    occurs (``counts``), its token count (``lengths``, repeats counted) and the number of token
    ids (``vocabulary``): what the novelty rule reads."""

    indptr: np.ndarray
    terms: np.ndarray
    counts: np.ndarray
    lengths: np.ndarray
    vocabulary: int


def term_counts(tokens: Sequence[Sequence[int]]) -> TermCounts:
    """``TermCounts`` of chunks given as token ids (small ints >= 0)."""
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    flat = np.fromiter(chain.from_iterable(tokens), dtype=np.int64, count=int(lengths.sum()))
    v = int(flat.max()) + 1 if len(flat) else 1
    pairs, counts = np.unique(
        np.repeat(np.arange(len(tokens)), lengths) * v + flat, return_counts=True
    )
    indptr = np.searchsorted(pairs // v, np.arange(len(tokens) + 1))
    return TermCounts(indptr, pairs % v, counts, lengths, v)


class FirstLooks(NamedTuple):
    """Per question (row), its first ``FIRST_LOOK`` offered chunks best first (``order``, valid
    up to ``shown``) and their words (``sizes``, ``NONE_FITS`` past ``shown``), how many chunks it
    offers (``offered``), and the fewest words of any offered chunk from each place of the look
    on (``least``, counting the chunks past it) and past it (``rest``)."""

    order: np.ndarray
    sizes: np.ndarray
    shown: np.ndarray
    offered: np.ndarray
    least: np.ndarray
    rest: np.ndarray


NONE_FITS = np.iinfo(np.int64).max // 4  # words of "no chunk": more than any budget


def first_looks(scores: np.ndarray, words: np.ndarray, size: int = FIRST_LOOK) -> FirstLooks:
    """``FirstLooks`` of every row of ``scores`` (questions x chunks), found together."""
    q = len(scores)
    order = np.zeros((q, size), dtype=np.int64)
    shown = np.zeros(q, dtype=np.int64)
    offered = np.zeros(q, dtype=np.int64)
    rest = np.full(q, NONE_FITS, dtype=np.int64)
    shortest = np.argsort(words, kind="stable")[:SHORTEST]
    for lo in range(0, q, LOOK_ROWS):
        block = scores[lo : lo + LOOK_ROWS]
        hi = lo + len(block)
        order[lo:hi], shown[lo:hi] = padded(top_rows(block, size), size)
        offered[lo:hi] = np.count_nonzero(block > 0, axis=1)
        more = np.flatnonzero(offered[lo:hi] > shown[lo:hi])  # their looks are full
        if len(more):
            rest[lo + more] = _fewest_words_past(block[more], order[lo + more], words, shortest)
    sizes = np.full(order.shape, NONE_FITS, dtype=np.int64)
    valid = np.arange(size) < shown[:, None]
    sizes[valid] = words[order[valid]]
    least = np.minimum(np.minimum.accumulate(sizes[:, ::-1], axis=1)[:, ::-1], rest[:, None])
    return FirstLooks(order, sizes, shown, offered, least, rest)


SHORTEST = 64  # the shortest chunks tried first for the fewest words past a look


def _fewest_words_past(
    block: np.ndarray, order: np.ndarray, words: np.ndarray, shortest
) -> np.ndarray:
    """Per row of ``block`` (scores), the fewest words of an offered chunk not in its ``order``
    (a full look): the ``shortest`` chunks tried first, every chunk for a row none of them is."""
    rows = np.arange(len(block))[:, None]
    shown = np.zeros(block.shape, dtype=bool)
    shown[rows, order] = True
    ok = (block[:, shortest] > 0) & ~shown[:, shortest]
    out = words[shortest[ok.argmax(axis=1)]] if len(shortest) else np.zeros(len(block), np.int64)
    for r in np.flatnonzero(~ok.any(axis=1)).tolist():
        past = (block[r] > 0) & ~shown[r]
        out[r] = words[past].min() if past.any() else NONE_FITS
    return out


def padded(rows: list[np.ndarray], size: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of at most ``size`` ints as one matrix (zeros after a row's end) and their lengths."""
    counts = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    out = np.zeros((len(rows), size), dtype=np.int64)
    at = np.repeat(np.arange(len(rows)), counts)
    out[at, np.arange(len(at)) - np.repeat(np.cumsum(counts) - counts, counts)] = np.concatenate(
        [np.zeros(0, dtype=np.int64), *rows]
    )
    return out, counts


class Picks(NamedTuple):
    """What the assembler took for every question at one budget: the picked chunks as parallel
    arrays of question (``rows``, ascending), chunk and 0-based rank (``positions``; -1 for a
    chunk picked past the first look, whose rank ``rank_positions`` finds), in ranked order for
    each question; and the words each question's context holds (``used``)."""

    rows: np.ndarray
    chunks: np.ndarray
    positions: np.ndarray
    used: np.ndarray


def assemble_questions(
    scores: np.ndarray,
    words: np.ndarray,
    terms: TermCounts,
    budgets: Sequence[int],
    keys: np.ndarray | None = None,
    novelty: float = NOVELTY,
    looks: FirstLooks | None = None,
) -> list[Picks]:
    """The rule for every question (row of ``scores``, questions x chunks; a chunk with a
    positive score is offered) at each budget of ``budgets``, from the same arrays: the walk
    goes over the first looks (``first_looks``) of all questions at every budget a place at a
    time, then, for those with words left, only over the offered chunks past them that still
    fit. Budgets are walked together as far as ``SEEN_CELLS`` allows."""
    looks = looks if looks is not None else first_looks(scores, words)
    per = max(1, SEEN_CELLS // max(1, len(scores) * terms.vocabulary))
    out: list[Picks] = []
    for lo in range(0, len(budgets), per):
        out += _assemble(scores, words, terms, budgets[lo : lo + per], keys, novelty, looks)
    return out


SEEN_CELLS = 1 << 26  # questions x budgets x token ids walked together (a bool each)


class _Walk:
    """The assembly in progress of every (budget, question) pair, one row each (row ``r``:
    budget ``r // q``, question ``r % q``): words used, picks so far, the tokens seen (rows x
    token ids) and delivery keys delivered."""

    def __init__(self, q: int, budgets, words, terms: TermCounts, keys, novelty: float):
        rows = q * len(budgets)
        self.q, self.words, self.terms, self.keys, self.novelty = q, words, terms, keys, novelty
        self.budget = np.repeat(np.asarray(budgets, dtype=np.int64), q)
        self.question = np.tile(np.arange(q), len(budgets))
        self.used = np.zeros(rows, dtype=np.int64)
        self.count = np.zeros(rows, dtype=np.int64)
        self.seen = np.zeros((rows, terms.vocabulary), dtype=bool)
        self._flat_seen = self.seen.reshape(-1)  # read and written by flat index: faster
        self.delivered = None if keys is None else np.zeros((rows, int(keys.max()) + 1), bool)
        self.taken = [(np.zeros(0, dtype=np.int64),) * 3]  # (rows, chunks, positions) per offer

    def offer(self, rows: np.ndarray, chunks: np.ndarray, position: int) -> None:
        """Offer each of ``rows`` (distinct) its chunk of ``chunks``, at ``position``."""
        size = self.words[chunks]
        ok = self.used[rows] + size <= self.budget[rows]
        if self.keys is not None:
            ok &= ~self.delivered[rows, self.keys[chunks]]
        rows, chunks, size = rows[ok], chunks[ok], size[ok]
        later = np.flatnonzero(self.count[rows] > 0)
        if len(later):
            length = self.terms.lengths[chunks[later]]
            new = length - self._seen_tokens(rows[later], chunks[later])
            fresh = np.ones(len(rows), dtype=bool)
            fresh[later] = new / np.maximum(1, length) >= self.novelty
            rows, chunks, size = rows[fresh], chunks[fresh], size[fresh]
        self.used[rows] += size
        self.count[rows] += 1
        at, pair = self._tokens(chunks)
        self._flat_seen[self._cells(rows[pair], at)] = True
        if self.keys is not None:
            self.delivered[rows, self.keys[chunks]] = True
        self.taken.append((rows, chunks, np.full(len(rows), position, dtype=np.int64)))

    def _tokens(self, chunks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The places in ``terms`` of every distinct token of each chunk, and which chunk."""
        starts, ends = self.terms.indptr[chunks], self.terms.indptr[chunks + 1]
        lengths = ends - starts
        first = np.cumsum(lengths) - lengths
        at = np.arange(int(lengths.sum())) - np.repeat(first - starts, lengths)
        return at, np.repeat(np.arange(len(chunks)), lengths)

    def _cells(self, rows: np.ndarray, at: np.ndarray) -> np.ndarray:
        """The flat places in ``seen`` of rows ``rows`` and the tokens at ``at`` in ``terms``."""
        cells = rows * self.terms.vocabulary
        cells += self.terms.terms[at]
        return cells

    def _seen_tokens(self, rows: np.ndarray, chunks: np.ndarray) -> np.ndarray:
        """Per (row, chunk) pair, the chunk's tokens (repeats counted) its row has seen."""
        at, pair = self._tokens(chunks)
        hit = self._flat_seen[self._cells(rows[pair], at)]
        return np.bincount(pair[hit], weights=self.terms.counts[at[hit]], minlength=len(rows))

    def picks(self, budgets: int) -> list[Picks]:
        """The picks at each budget, by question, each question's in ranked order."""
        rows, chunks, positions = (np.concatenate(part) for part in zip(*self.taken, strict=True))
        order = np.argsort(rows, kind="stable")
        rows, chunks, positions = rows[order], chunks[order], positions[order]
        bounds = np.searchsorted(rows, np.arange(budgets + 1) * self.q).tolist()
        used = self.used.reshape(budgets, self.q)
        return [
            Picks(rows[a:b] - i * self.q, chunks[a:b], positions[a:b], used[i])
            for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True))
        ]


def _assemble(scores, words, terms, budgets, keys, novelty, looks: FirstLooks) -> list[Picks]:
    """``assemble_questions`` at ``budgets`` together."""
    walk = _Walk(len(scores), budgets, words, terms, keys, novelty)
    active = np.flatnonzero(looks.shown[walk.question] > 0)
    for p in range(looks.order.shape[1]):
        q = walk.question[active]
        live = (p < looks.shown[q]) & (walk.used[active] + looks.least[q, p] <= walk.budget[active])
        active = active[live]
        if not len(active):
            break
        walk.offer(active, looks.order[walk.question[active], p], p)
    q = walk.question[active]
    full = looks.shown[q] == looks.order.shape[1]
    active = active[full & (walk.used[active] + looks.rest[q] <= walk.budget[active])]
    if len(active):
        _walk_fitting(walk, scores, active, looks.order[walk.question[active], -1])
    return walk.picks(len(budgets))


def _walk_fitting(walk: _Walk, scores: np.ndarray, rows: np.ndarray, last: np.ndarray) -> None:
    """Go on for ``rows`` past their chunks ``last`` (each row's last one examined): a look at a
    time over the offered chunks ranked after it that still fit the words left, grouped by the
    words left so that each group reads only the columns of the chunks short enough for it."""
    words = walk.words
    by_length = np.argsort(words, kind="stable")
    lengths = words[by_length]
    while len(rows):
        left = walk.budget[rows] - walk.used[rows]
        question = walk.question[rows]
        after = scores[question, last]
        fitting = np.searchsorted(lengths, left, side="right")
        groups = [g for g in _groups(left) if fitting[g].max() > 0]  # the others are done
        looks, shown, going, going_last = [], [], [], []
        for group in groups:
            g_left, g_after, g_last = left[group], after[group], last[group]
            cols = np.sort(by_length[: fitting[group].max()])
            block = scores[np.ix_(question[group], cols)]
            ok = (block > 0) & (words[cols] <= g_left[:, None])
            ok &= (block < g_after[:, None]) | (
                (block == g_after[:, None]) & (cols > g_last[:, None])
            )
            look, count = padded(top_rows(np.where(ok, block, 0.0), FIRST_LOOK), FIRST_LOOK)
            looks.append(cols[look])
            shown.append(count)
            more = np.flatnonzero(np.count_nonzero(ok, axis=1) > FIRST_LOOK)
            going.append(rows[group][more])
            going_last.append(cols[look[more, -1]])
        if not groups:
            return
        grouped = rows[np.concatenate(groups)]
        look, count = np.concatenate(looks), np.concatenate(shown)
        for p in range(int(count.max(initial=0))):
            has = count > p
            walk.offer(grouped[has], look[has, p], -1)
        rows = np.concatenate(going)
        last = np.concatenate(going_last)


def _groups(left: np.ndarray) -> list[np.ndarray]:
    """Indices of ``left`` grouped by its power of two."""
    bucket = np.log2(np.maximum(left, 1)).astype(np.int64)
    return [np.flatnonzero(bucket == b) for b in np.unique(bucket)]


def picked_ranks(scores: np.ndarray, picks: Picks) -> np.ndarray:
    """``picks.positions`` with the rank of every chunk picked past its first look filled in
    (the offered chunks ranked before it: higher scores, and equal ones of lower index)."""
    positions = picks.positions.copy()
    for i in np.flatnonzero(positions < 0).tolist():
        row, chunk = scores[picks.rows[i]], picks.chunks[i]
        s = row[chunk]
        positions[i] = np.count_nonzero(row > s) + np.count_nonzero(row[:chunk] == s)
    return positions


def the_cuts(
    scores: np.ndarray,
    words: np.ndarray,
    looks: FirstLooks,
    picks: Picks,
    positions: np.ndarray,
    budget: int,
) -> np.ndarray:
    """Per question, the cut of its assembly at ``budget`` (``positions``: ``picked_ranks``):
    past its last pick, just after the last offered chunk that fits the words left (nothing
    from there on could fit)."""
    q, size = looks.order.shape
    left = budget - picks.used
    cut = np.zeros(q, dtype=np.int64)
    np.maximum.at(cut, picks.rows, positions + 1)
    fits = looks.sizes <= left[:, None]
    last = np.where(fits.any(axis=1), size - 1 - fits[:, ::-1].argmax(axis=1), -1)
    beyond = np.flatnonzero(left >= looks.rest)  # some chunk past the first look fits
    for lo in range(0, len(beyond), LOOK_ROWS):
        rows = beyond[lo : lo + LOOK_ROWS]
        block = scores[rows]
        ok = (block > 0) & (words <= left[rows][:, None])
        worst = np.where(ok, block, np.inf).min(axis=1)  # the last ranked of them: the lowest
        ties = ok & (block == worst[:, None])  # score, then the highest index
        chunk = block.shape[1] - 1 - ties[:, ::-1].argmax(axis=1)
        before = np.arange(block.shape[1]) < chunk[:, None]
        last[rows] = np.count_nonzero(block > worst[:, None], axis=1) + np.count_nonzero(
            (block == worst[:, None]) & before, axis=1
        )
    return np.maximum(cut, last + 1)
