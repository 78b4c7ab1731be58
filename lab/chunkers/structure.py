"""Structure-aware chunking (StrucChunk-style): one chunk per provision, never crossing one."""

from __future__ import annotations

from ..parse import Document
from .base import Params, Plan, pack_units, register, unit_span


@register(
    "structure",
    "Structure-aware",
    "One chunk per provision with its heading path; long provisions split on sentences; "
    "cited provisions' text appended when references are resolved.",
    order=3,
)
def structure(doc: Document, p: Params) -> Plan:
    bodies = []
    for prov in doc.provisions:
        if prov.first < prov.stop:
            runs = pack_units(doc, prov.first, prov.stop, p.size)
            bodies.extend(unit_span(doc, a, b) for a, b in runs)
    return Plan(tuple(bodies), path_prefix=True, resolve_refs=p.resolve_refs)
