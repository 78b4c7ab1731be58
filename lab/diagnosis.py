"""Why the assembler passed over a chunk, in numbers a user can check: the words left at its turn
against the words it has, or the picked chunk it repeated and how little of it was new."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .assemble import BELOW_CUT, NEAR_DUPLICATE, NOVELTY, OVER_BUDGET, Context, TokenMarks

if TYPE_CHECKING:
    from .index import Index


def did_not_fit(left: int, words: int, budget: int) -> str:
    """A chunk of ``words`` words that did not fit the ``left`` words of ``budget`` left."""
    if words > budget:
        return f"did not fit: the chunk has {words} words, more than the whole budget of {budget}"
    return f"did not fit: {left} words left, the chunk has {words}"


def resembled(chunk: int, earlier: Sequence[int], marks: TokenMarks) -> tuple[int, float]:
    """The chunk of ``earlier`` (picked before ``chunk``, best first) that shares the most of
    ``chunk``'s tokens (the best ranked on a tie), and the share of ``chunk``'s tokens new to
    all of ``earlier``: what the novelty rule measured."""
    own, cover = marks.own[chunk], marks.cover
    seen, best, most = 0, earlier[0], -1
    for j in earlier:
        seen |= cover[j]
        shared = (own & cover[j]).bit_count()
        if shared > most:
            best, most = j, shared
    length = marks.lengths[chunk]
    return best, (length - (own & seen).bit_count()) / max(1, length)


def near_duplicate(chunk: int, earlier: Sequence[int], index: Index) -> str:
    """``chunk`` skipped by the novelty rule, named with the picked chunk it resembled."""
    like, new = resembled(chunk, earlier, index.delivered_marks)
    share = int(100 * new)  # rounded down: a share just under the rule never reads as equal to it
    return (
        f"skipped as a near-duplicate of {index.chunks[like].id}: {share}% of its terms are new, "
        f"under {NOVELTY:.0%}"
    )


def note(
    decision: str | None,
    position: int,
    positions: Sequence[int],
    ranked: Sequence[int],
    sizes: Sequence[int],
    budget: int,
    chunk: int,
    words: int,
    index: Index,
) -> str | None:
    """What lies behind ``decision`` about ``chunk`` (at ``position`` of ``ranked``, ``words``
    long; ``positions``: the picked chunks' positions, ``sizes`` the ranked chunks' words): the
    words left at its turn for "over budget" and "below the cut", the chunk it repeated for
    "near-duplicate"; None for any other decision."""
    if decision in (OVER_BUDGET, BELOW_CUT):
        left = budget - sum(sizes[p] for p in positions if p < position)
        return did_not_fit(left, words, budget)
    if decision == NEAR_DUPLICATE:
        return near_duplicate(chunk, [ranked[p] for p in positions if p < position], index)
    return None


def context_note(
    context: Context, decision: str | None, chunk: int, position: int, words: int, index: Index
) -> str | None:
    """``note`` for a chunk of ``context``'s ranking (``position`` -1: not offered)."""
    if decision is None or position < 0:
        return None
    if position < context.cut and context.ranked[position] != chunk:
        position = list(context.ranked).index(chunk)
    return note(
        decision,
        position,
        context.positions,
        context.ranked,
        context.sizes,
        context.budget,
        chunk,
        words,
        index,
    )
