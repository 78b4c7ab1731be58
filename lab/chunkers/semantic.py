"""Semantic chunking: cut where adjacent units' embeddings are least alike, never past ``L``.

The percentile-breakpoint rule of Kamradt's "5 levels of text splitting" (LangChain's
``SemanticChunker``), over parsed units, with a hard size cap and heading cuts.
"""

from __future__ import annotations

import numpy as np

from ..parse import Document
from .base import Params, Plan, register, unit_span

PERCENTILE = 25


def similarity_cuts(
    doc: Document, vectors: np.ndarray, percentile: float = PERCENTILE
) -> list[bool]:
    """For each unit, whether the similarity rule cuts before it.

    ``sim[i] = cos(v[i-1], v[i])`` for adjacent units neither of which is a heading; a cut falls
    before unit ``i`` when ``sim[i]`` is below the ``percentile``-th percentile of those values."""
    units = doc.units
    cuts = [False] * len(units)
    free = [
        i
        for i in range(1, len(units))
        if units[i].kind != "heading" and units[i - 1].kind != "heading"
    ]
    if not free:
        return cuts
    idx = np.asarray(free)
    sims = np.einsum("ij,ij->i", vectors[idx - 1], vectors[idx])
    threshold = np.percentile(sims, percentile)
    for i, s in zip(free, sims.tolist(), strict=True):
        cuts[i] = s < threshold
    return cuts


@register(
    "semantic",
    "Semantic",
    f"Cuts where adjacent sentences' embeddings are least similar (below the {PERCENTILE}th "
    "percentile), at every heading, and before a chunk would pass L characters.",
    order=7,
    dense=True,
)
def semantic(doc: Document, p: Params) -> Plan:
    """Consecutive runs of whole units. A run ends before unit ``i`` when (1) ``i`` is a heading,
    (2) the cosine similarity of units ``i-1`` and ``i`` is below the ``PERCENTILE``-th percentile
    of the adjacent-unit similarities (pairs touching a heading are left out: a heading is cut
    before, never after), or (3) adding ``i`` would make the run span more than ``L`` characters.
    A unit longer than ``L`` stands alone. Every unit is covered."""
    if p.embedder is None:
        raise ValueError("the semantic chunker needs an embedder (dense embeddings)")
    units = doc.units
    if not units:
        return Plan(())
    vectors = p.embedder.encode([doc.text[u.start : u.end] for u in units])
    cuts = similarity_cuts(doc, np.asarray(vectors, dtype=np.float32))
    bodies = []
    a = 0
    for i in range(1, len(units)):
        if units[i].kind == "heading" or cuts[i] or units[i].end - units[a].start > p.size:
            bodies.append(unit_span(doc, a, i))
            a = i
    bodies.append(unit_span(doc, a, len(units)))
    return Plan(tuple(bodies))
