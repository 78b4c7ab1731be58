"""Exact source ranges for chunks another library returned as strings.

A library hands back text; the lab needs ``[start, end)`` ranges of the document. Chunks are
found in order: each one at its first occurrence after the previous chunk's start that reaches
past the previous chunk's end (a chunk wholly inside the previous one is taken there only when
it occurs nowhere later). A chunk whose text is not in the document verbatim is looked for with
whitespace ignored, then with case ignored too, and last by its longest matching pieces; each of
those is reported in the plan's notes with what differs. A chunk with too little of its text in
the document is left out, and that is reported too: nothing is placed silently.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from difflib import SequenceMatcher

from ..base import Plan

MIN_MATCHED = 0.5  # of a rewritten chunk's characters, for it to be placed at all
SHOWN = 3  # rewritten pieces quoted in a note


class Squeezed:
    """The document without whitespace: ``text`` and, for each of its characters, its position
    in the document (``at``); ``lower`` is ``text`` lowercased when that keeps its length."""

    def __init__(self, source: str):
        self.at = [i for i, c in enumerate(source) if not c.isspace()]
        self.text = "".join(source[i] for i in self.at)
        lower = self.text.lower()
        self.lower = lower if len(lower) == len(self.text) else None

    def index(self, position: int) -> int:
        """The first squeezed character at or after document ``position``."""
        return bisect_left(self.at, position)

    def span(self, first: int, stop: int) -> tuple[int, int]:
        """The document range of squeezed characters ``first..stop-1``."""
        return self.at[first], self.at[stop - 1] + 1


def _find(haystack: str, needle: str, start: int, end: int) -> int:
    """The first occurrence of ``needle`` at or after ``start`` that reaches past ``end``, or
    failing that the first at or after ``start`` (-1: none)."""
    first = i = haystack.find(needle, start)
    while i != -1 and i + len(needle) <= end:
        i = haystack.find(needle, i + 1)
    return first if i == -1 else i


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "\u2026")


def locate(text: str, pieces: Iterable[str]) -> Plan:
    """The plan whose bodies are the document ranges of ``pieces`` (in order; empty ones
    dropped), with a note for every piece that is not the document's text verbatim."""
    bodies: list[tuple[int, int]] = []
    notes: list[str] = []
    squeezed: Squeezed | None = None
    prev_start, prev_end = -1, 0
    for k, piece in enumerate(pieces, start=1):
        if not piece.strip():
            continue
        i = _find(text, piece, prev_start + 1, prev_end)
        if i != -1:
            span = (i, i + len(piece))
        else:
            squeezed = squeezed or Squeezed(text)
            span, note = _rewritten(squeezed, piece, prev_start + 1, prev_end)
            notes.append(f"chunk {k}: {note}")
            if span is None:
                continue
        bodies.append(span)
        prev_start, prev_end = span
    return Plan(tuple(bodies), notes=tuple(notes))


def _rewritten(
    sq: Squeezed, piece: str, start: int, end: int
) -> tuple[tuple[int, int] | None, str]:
    """Where a piece that is not verbatim in the document comes from, and what differs."""
    solid = "".join(piece.split())
    first, last = sq.index(start), sq.index(end)
    j = _find(sq.text, solid, first, last)
    if j != -1:
        return sq.span(j, j + len(solid)), "the library changed its whitespace"
    if sq.lower is not None:
        j = _find(sq.lower, solid.lower(), first, last)
        if j != -1:
            return sq.span(j, j + len(solid)), "the library changed its case and whitespace"
    window = sq.text[first : first + 2 * len(solid) + 200]
    blocks = [
        b
        for b in SequenceMatcher(None, solid, window, autojunk=False).get_matching_blocks()
        if b.size >= 3
    ]
    matched = sum(b.size for b in blocks)
    if matched < MIN_MATCHED * len(solid):
        return None, f"not in the document ({_short(piece)}), left out"
    added, at = [], 0
    for b in blocks:
        if b.a > at:
            added.append(solid[at : b.a])
        at = b.a + b.size
    if at < len(solid):
        added.append(solid[at:])
    span = sq.span(first + blocks[0].b, first + blocks[-1].b + blocks[-1].size)
    shown = ", ".join(_short(a) for a in added[:SHOWN]) + (", ..." if len(added) > SHOWN else "")
    return span, f"the library rewrote it (text not in the document: {shown or 'none'})"


def offsets_plan(text: str, chunks: Iterable[tuple[str, int, int]]) -> Plan:
    """The plan of chunks a library returned with their own offsets ``(text, start, end)``:
    a chunk whose offsets hold its text exactly keeps them; the others are located like
    strings (:func:`locate`), with notes."""
    chunks = list(chunks)
    if all(text[s:e] == t for t, s, e in chunks):
        return Plan(tuple((s, e) for t, s, e in chunks if t.strip()))
    return locate(text, (t for t, _, _ in chunks))
