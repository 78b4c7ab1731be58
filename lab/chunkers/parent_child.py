"""Parent-child chunking: retrieve small children, deliver the part of the provision they are in."""

from __future__ import annotations

from collections.abc import Sequence

from ..parse import Document
from .base import Params, Plan, pack_units, register, unit_span

CHILD_FRACTION = 1 / 3
# A parent spans at most this many L: a provision up to that long is delivered whole; a longer one
# (a heading-less document is one provision) is cut into consecutive parents of whole units.
PARENT_FACTOR = 2


@register(
    "parent-child",
    "Parent-child",
    "Retrieves small children (whole sentences packed up to L/3 inside one provision) and "
    "delivers each child's provision with its heading path, once per context; a provision "
    "longer than 2 L is delivered in parts of at most 2 L.",
    order=8,
)
def parent_child(doc: Document, p: Params) -> Plan:
    """Parents: each provision's body units packed up to ``PARENT_FACTOR * L`` characters (the
    whole body, the preamble before any heading included, when it fits; a longer unit alone).
    Children: each parent's units packed up to ``CHILD_FRACTION * L``. A child's parent is
    delivered in its place."""
    bodies, parents = [], []
    for prov in doc.provisions:
        if prov.first >= prov.stop:
            continue
        for first, stop in pack_units(doc, prov.first, prov.stop, p.size * PARENT_FACTOR):
            parent = unit_span(doc, first, stop)
            for a, b in pack_units(doc, first, stop, p.size * CHILD_FRACTION):
                bodies.append(unit_span(doc, a, b))
                parents.append(parent)
    return Plan(
        tuple(bodies), path_prefix=True, resolve_refs=p.resolve_refs, parents=tuple(parents)
    )


def parents_over_budget(
    sizes: Sequence[int], size: int, budget: int, unit: str = "words", size_unit: str = "characters"
) -> str | None:
    """Why some of parent-child's chunks can never be retrieved at ``budget``, in one sentence,
    or None when every parent fits. ``sizes`` are what the budget counts of each chunk (an
    index's ``words``: words, or tokens with a tokenizer; ``unit`` names it, ``size_unit`` what
    L counts). Chunking does not know the budget: a parent spans up to ``PARENT_FACTOR`` L,
    which at a small budget is more than it holds, and a chunk is delivered whole or not at
    all."""
    over = sum(n > budget for n in sizes)
    if not over:
        return None
    return (
        f"parent-child: {over:,} of its {len(sizes):,} chunks deliver a parent longer than the "
        f"budget of {budget} {unit} (a parent spans up to {PARENT_FACTOR} L = "
        f"{PARENT_FACTOR * size:,} {size_unit}), so they can never be retrieved; a budget of "
        f"{max(sizes)} {unit} fits every parent, or lower L."
    )
