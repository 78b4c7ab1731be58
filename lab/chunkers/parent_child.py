"""Parent-child chunking: retrieve small children, deliver the provision they belong to."""

from __future__ import annotations

from ..parse import Document
from .base import Params, Plan, pack_units, register, unit_span

CHILD_FRACTION = 1 / 3


@register(
    "parent-child",
    "Parent-child",
    "Retrieves small children (whole sentences packed up to L/3 inside one provision) and "
    "delivers each child's whole provision with its heading path, once per context.",
    order=8,
)
def parent_child(doc: Document, p: Params) -> Plan:
    """Children: each provision's body units packed up to ``CHILD_FRACTION * L`` characters (a
    longer unit alone). Each child's parent, delivered in its place, is the whole body of its
    provision (the preamble before any heading included)."""
    bodies, parents = [], []
    for prov in doc.provisions:
        if prov.first >= prov.stop:
            continue
        parent = unit_span(doc, prov.first, prov.stop)
        for a, b in pack_units(doc, prov.first, prov.stop, p.size * CHILD_FRACTION):
            bodies.append(unit_span(doc, a, b))
            parents.append(parent)
    return Plan(
        tuple(bodies), path_prefix=True, resolve_refs=p.resolve_refs, parents=tuple(parents)
    )
