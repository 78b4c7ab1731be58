"""The budgeted context assembler shared by every retrieval mode."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

NOVELTY = 0.3
FIRST_LOOK = 32  # ranked chunks examined before the rest of the ranking is sorted

PICKED = "picked"
OVER_BUDGET = "over budget"
NEAR_DUPLICATE = "near-duplicate"
BELOW_CUT = "below the cut"
MERGED = "already delivered"  # parent-child: its parent is in the context already


@dataclass(frozen=True, eq=False)
class Context:
    """What the assembler took. ``skipped`` maps a chunk it passed over to why; offered chunks
    from position ``cut`` of the ranking on were never considered because nothing more could fit.
    ``positions`` are the picked chunks' 0-based ranks."""

    picked: tuple[int, ...]
    skipped: dict[int, str]
    cut: int
    words: int
    positions: tuple[int, ...] = ()
    budget: int | None = None

    def decision(self, chunk: int, position: int, words: int | None = None) -> str | None:
        """Why ``chunk`` (at ``position`` in the ranking, -1 if not offered, ``words`` long) was or
        was not taken. Past the cut, a chunk longer than the whole budget is "over budget" (it
        could never fit); a shorter one is "below the cut" (the budget filled first)."""
        if chunk in self.picked:
            return PICKED
        if chunk in self.skipped:
            return self.skipped[chunk]
        if position < self.cut or position < 0:
            return None
        too_long = words is not None and self.budget is not None and words > self.budget
        return OVER_BUDGET if too_long else BELOW_CUT


@dataclass(frozen=True, eq=False)
class Look:
    """Chunks the assembler examines, best first (``order``), with the fewest words of any offered
    chunk after them (``rest_min``, None when none is), and what every budget's pass over them
    reads: their ids, their words, and the fewest words from each position on."""

    order: np.ndarray
    rest_min: int | None
    ranked: list[int]
    words: np.ndarray
    sizes: list[int]
    least: list[int]

    @classmethod
    def of(cls, order: np.ndarray, rest_min: int | None, words: np.ndarray) -> Look:
        sizes = words[order]
        least = np.minimum.accumulate(sizes[::-1])[::-1]
        if rest_min is not None:
            least = np.minimum(least, rest_min)
        return cls(order, rest_min, order.tolist(), sizes, sizes.tolist(), least.tolist())


def assemble(
    ranking,
    words: np.ndarray,
    tokens: Sequence[Sequence[int]],
    budget: int,
    novelty: float = NOVELTY,
    keys: Sequence[int] | None = None,
    first: Look | None = None,
    bags: Sequence[tuple[dict[int, int], int]] | None = None,
) -> Context:
    """Offer chunks in ranked order: skip one that would exceed ``budget`` words (and go on: a
    smaller, lower-ranked chunk may still fit), skip one whose tokens are less than ``novelty`` new
    relative to the context so far, take the rest. Stops once no remaining chunk could fit.
    Chunks sharing a delivery key (``keys``: parent-child) are delivered once.

    ``ranking`` is a :class:`~lab.retrieve.Ranking` or an array of chunk indices, best first.
    ``first``: ``look_ahead(ranking, words, FIRST_LOOK)``, if already known; ``bags``:
    ``token_bags(tokens)``, if kept."""
    if isinstance(ranking, np.ndarray):
        return _assemble(Look.of(ranking, None, words), tokens, budget, novelty, keys, bags)
    size = FIRST_LOOK
    while True:
        look = first if first is not None and size == FIRST_LOOK else None
        look = look or look_ahead(ranking, words, size)
        context = _assemble(look, tokens, budget, novelty, keys, bags)
        if len(look.order) == ranking.offered or context.cut < len(look.order):
            return context
        size *= 4


def look_ahead(ranking, words: np.ndarray, size: int) -> Look:
    """The first ``size`` chunks of ``ranking``, for the assembler."""
    head = ranking.head(size)
    if len(head) == ranking.offered:
        return Look.of(head, None, words)
    rest = ranking.score > 0
    rest[head] = False
    return Look.of(head, int(words[rest].min()), words)


def token_bags(tokens: Sequence[Sequence[int]]) -> list[tuple[dict[int, int], int]]:
    """Each chunk's tokens as counts per token and their total: what the novelty rule needs."""
    return [(Counter(t), len(t)) for t in tokens]


def _assemble(look: Look, tokens, budget, novelty, keys, bags=None) -> Context:
    delivered: set[int] = set()
    picked: list[int] = []
    positions: list[int] = []
    skipped: dict[int, str] = {}
    seen: set[int] = set()
    used = 0
    n = len(look.ranked)
    if n == 0:
        return Context((), {}, 0, 0, (), budget)
    cut = n
    ranked, ranked_words, sizes, least = look.ranked, look.words, look.sizes, look.least
    position = 0
    while position < n:
        left = budget - used
        if left < least[position]:
            cut = position
            break
        if keys is None and sizes[position] > left:
            # Jump over the run of chunks too long for what is left (``least`` never falls, so
            # the cut cannot come inside a run that ends at a chunk that fits).
            fits = np.flatnonzero(ranked_words[position:] <= left)
            end = position + int(fits[0]) if len(fits) else n
            skipped.update(dict.fromkeys(ranked[position:end], OVER_BUDGET))
            position = end
            continue
        k, w = ranked[position], sizes[position]
        position += 1
        if keys is not None and keys[k] in delivered:
            skipped[k] = MERGED
            continue
        if used + w > budget:
            skipped[k] = OVER_BUDGET
            continue
        bag, length = bags[k] if bags is not None else (Counter(tokens[k]), len(tokens[k]))
        if picked:
            new = sum(map(bag.__getitem__, bag.keys() - seen))  # tokens not seen, with repeats
            if new / max(1, length) < novelty:
                skipped[k] = NEAR_DUPLICATE
                continue
        picked.append(k)
        if keys is not None:
            delivered.add(keys[k])
        positions.append(position - 1)
        used += w
        seen.update(bag)
    return Context(tuple(picked), skipped, cut, used, tuple(positions), budget)
