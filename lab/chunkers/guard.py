"""The heading guard: no chunk boundary between a heading and its first unit.

The source article's QES-DP keeps every training evidence span intact and still comes last on
held-out questions: the cheapest way to keep a rule intact is to cut right before it, which
strands its heading at the end of the previous chunk. The guard forbids those cuts. A heading
is glued to the unit after it (a run of headings, ``## 2`` then ``### 2.1``, to the first unit
after the run) while the glued block still spans at most ``L`` characters, so every chunker that
honours the guard still has a segmentation within ``L``; only where a heading and its first unit
together are longer than ``L`` is the cut between them allowed.
"""

from __future__ import annotations

from ..parse import Document

# The chunkers that honour the guard (by-type honours it where its policy picks one of them).
GUARDED = ("qes-dp", "qes-greedy", "qes-retrieval")


def allowed_cuts(doc: Document, size: int) -> list[bool]:
    """``allowed[b]`` for every boundary ``b`` in ``0..n``: whether a chunk may start or end
    right before unit ``b`` (the document's two ends always may)."""
    units = doc.units
    n = len(units)
    allowed = [True] * (n + 1)
    start = 0  # the first unit of the block being glued
    for b in range(1, n):
        if units[b - 1].kind == "heading" and units[b].end - units[start].start <= size:
            allowed[b] = False
        else:
            start = b
    return allowed


def pack_guarded(
    doc: Document, first: int, stop: int, size: int, allowed: list[bool]
) -> list[tuple[int, int]]:
    """Pack units ``first..stop-1`` into runs spanning at most ``size`` characters, cutting only
    where ``allowed`` says (``first`` and ``stop`` must be allowed): glued blocks are packed whole,
    a new run starting when the next block would not fit. Unit index ranges ``(a, b)``."""
    units = doc.units
    runs: list[tuple[int, int]] = []
    a = first
    b = first  # the end of the last whole block in the run
    for k in range(first + 1, stop + 1):
        if not allowed[k]:
            continue
        if b > a and units[k - 1].end - units[a].start > size:
            runs.append((a, b))
            a = b
        b = k
    if a < stop:
        runs.append((a, stop))
    return runs


__all__ = ["GUARDED", "allowed_cuts", "pack_guarded"]
