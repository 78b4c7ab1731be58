"""Structure-aware chunking (StrucChunk-style): one chunk per provision, never crossing one."""

from __future__ import annotations

from ..parse import Document
from .base import Plan, Training, pack_units, register, unit_span


@register(
    "structure",
    "Structure-aware",
    "One chunk per provision with its heading path; long provisions split on sentences; "
    "cited provisions' text appended when references are resolved.",
    order=3,
)
def structure(doc: Document, size: int, overlap: int, training: Training, resolve_refs: bool) -> Plan:
    bodies = []
    for p in doc.provisions:
        if p.first < p.stop:
            bodies.extend(unit_span(doc, a, b) for a, b in pack_units(doc, p.first, p.stop, size))
    return Plan(tuple(bodies), path_prefix=True, resolve_refs=resolve_refs)
