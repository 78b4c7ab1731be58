"""The budgeted context assembler shared by every retrieval mode."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

NOVELTY = 0.3

PICKED = "picked"
OVER_BUDGET = "over budget"
NEAR_DUPLICATE = "near-duplicate"
BELOW_CUT = "below the cut"


@dataclass(frozen=True, eq=False)
class Context:
    """What the assembler took. ``skipped`` maps a chunk it passed over to why; offered chunks
    from position ``cut`` of the ranking on were never considered because nothing more could fit."""

    picked: tuple[int, ...]
    skipped: dict[int, str]
    cut: int
    words: int

    def decision(self, chunk: int, position: int) -> str | None:
        """Why ``chunk`` (at ``position`` in the ranking, -1 if not offered) was or was not taken."""
        if chunk in self.picked:
            return PICKED
        if chunk in self.skipped:
            return self.skipped[chunk]
        return BELOW_CUT if position >= self.cut else None


def assemble(
    order: np.ndarray,
    words: np.ndarray,
    tokens: Sequence[np.ndarray],
    budget: int,
    novelty: float = NOVELTY,
) -> Context:
    """Offer chunks in ``order``: skip one that would exceed ``budget`` words (and go on: a smaller,
    lower-ranked chunk may still fit), skip one whose tokens are less than ``novelty`` new relative
    to the context so far, take the rest. Stops once no remaining chunk could fit."""
    picked: list[int] = []
    skipped: dict[int, str] = {}
    seen: set[int] = set()
    used = 0
    n = len(order)
    if n == 0:
        return Context((), {}, 0, 0)
    ranked_words = words[order]
    smallest_left = np.minimum.accumulate(ranked_words[::-1])[::-1]
    position = 0
    for position in range(n):
        if budget - used < smallest_left[position]:
            break
        k = int(order[position])
        w = int(ranked_words[position])
        if used + w > budget:
            skipped[k] = OVER_BUDGET
            continue
        t = tokens[k]
        if picked:
            new = sum(1 for x in t.tolist() if x not in seen)
            if new / max(1, len(t)) < novelty:
                skipped[k] = NEAR_DUPLICATE
                continue
        picked.append(k)
        used += w
        seen.update(t.tolist())
    else:
        position = n
    return Context(tuple(picked), skipped, position, used)
