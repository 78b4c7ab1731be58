"""Why the assembler passed over a chunk, in numbers a user can check: the words left at its turn
against the words it has, or the picked chunk it repeated and how little of it was new."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .assemble import BELOW_CUT, NEAR_DUPLICATE, NOVELTY, OVER_BUDGET, Context

if TYPE_CHECKING:
    from .index import Index


def did_not_fit(left: int, words: int, budget: int, unit: str = "words") -> str:
    """A chunk of ``words`` words that did not fit the ``left`` words of ``budget`` left
    (``unit``: what they count, "words" or "NAME tokens")."""
    if words > budget:
        return f"did not fit: the chunk has {words} {unit}, more than the whole budget of {budget}"
    return f"did not fit: {left} {unit} left, the chunk has {words}"


def resembled(
    chunk: int, earlier: Sequence[int], tokens: Sequence[Sequence[int]]
) -> tuple[int, float]:
    """The chunk of ``earlier`` (picked before ``chunk``, best first) that shares the most of
    ``chunk``'s tokens (repeats counted; the best ranked on a tie), and the share of ``chunk``'s
    tokens new to all of ``earlier``: what the novelty rule measured (``tokens``: token ids per
    chunk)."""
    own = tokens[chunk]
    seen: set[int] = set()
    best, most = earlier[0], -1
    for j in earlier:
        theirs = set(tokens[j])
        seen |= theirs
        shared = sum(t in theirs for t in own)
        if shared > most:
            best, most = j, shared
    return best, sum(t not in seen for t in own) / max(1, len(own))


def near_duplicate(chunk: int, earlier: Sequence[int], index: Index) -> str:
    """``chunk`` skipped by the novelty rule, named with the picked chunk it resembled."""
    like, new = resembled(chunk, earlier, index.delivered_tokens)
    share = int(100 * new)  # rounded down: a share just under the rule never reads as equal to it
    return (
        f"skipped as a near-duplicate of {index.chunks[like].id}: {share}% of its terms are new, "
        f"under {NOVELTY:.0%}"
    )


def note(
    decision: str | None,
    before: Sequence[int],
    budget: int,
    chunk: int,
    words: int,
    index: Index,
) -> str | None:
    """What lies behind ``decision`` about ``chunk`` (``words`` long; ``before``: the chunks
    picked before its turn, best first): the words left at its turn for "over budget" and "below
    the cut", the chunk it repeated for "near-duplicate"; None for any other decision."""
    if decision in (OVER_BUDGET, BELOW_CUT):
        left = budget - sum(int(index.words[k]) for k in before)
        return did_not_fit(left, words, budget, index.unit)
    if decision == NEAR_DUPLICATE:
        return near_duplicate(chunk, before, index)
    return None


def context_note(
    context: Context, decision: str | None, chunk: int, position: int, words: int, index: Index
) -> str | None:
    """``note`` for a chunk of ``context``'s ranking (``position`` -1: not offered)."""
    if decision is None or position < 0:
        return None
    if position < context.cut and context.ranked[position] != chunk:
        position = list(context.ranked).index(chunk)
    before = [context.ranked[p] for p in context.positions if p < position]
    return note(decision, before, context.budget, chunk, words, index)
