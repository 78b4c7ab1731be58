"""Window chunkers: fixed character windows and sentence windows."""

from __future__ import annotations

from ..parse import Document
from .base import Params, Plan, pack_units, register, unit_span


@register(
    "fixed",
    "Fixed window",
    "Windows of L characters, step L - overlap, cut mid-word by design; the last window ends at "
    "the end of the text.",
    order=1,
    overlap=True,
    units=False,
)
def fixed(doc: Document, p: Params) -> Plan:
    n, size = len(doc.text), p.size
    starts = list(range(0, max(n - size, 0) + 1, size - p.overlap))
    if starts[-1] + size < n:
        starts.append(n - size)
    return Plan(tuple((s, min(s + size, n)) for s in starts))


@register(
    "sentence",
    "Sentence window",
    "Whole sentences packed up to L characters (one longer than L is split at clause "
    "punctuation or between words); the next window starts with up to `overlap` characters of "
    "the previous one's trailing sentences.",
    order=2,
    overlap=True,
)
def sentence(doc: Document, p: Params) -> Plan:
    runs = pack_units(doc, 0, len(doc.units), p.size, p.overlap)
    return Plan(tuple(unit_span(doc, a, b) for a, b in runs))
