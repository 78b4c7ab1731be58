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

import re
from collections.abc import Iterable
from difflib import SequenceMatcher
from functools import cached_property
from itertools import repeat
from operator import getitem

import numpy as np

from ..base import Plan

MIN_MATCHED = 0.5  # of a rewritten chunk's characters, for it to be placed at all
SHOWN = 3  # rewritten pieces quoted in a note
SPACED_TRIES = 16  # chunks found by a pattern before the squeezed document is built instead
GAP = 2000  # characters past the previous chunk's end a chunk is first looked for within
PROBE = 32  # characters of a chunk searched for before the whole of it is compared
ADDED_HEAD = 4  # characters a library may add before a chunk's text (WordPiece's "##")
ADDED_REST = 8  # characters at least of a chunk's own text after what was added, to look for it


# The code points ``str.isspace`` holds true for: what ``str.split`` splits at.
SPACES = np.array(
    [*range(0x09, 0x0E), *range(0x1C, 0x21), 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
     0x2028, 0x2029, 0x202F, 0x205F, 0x3000],
    dtype=np.uint32,
)  # fmt: skip
_IS_SOLID = np.ones(int(SPACES.max()) + 2, dtype=bool)  # by code point; the last: any above
_IS_SOLID[SPACES] = False
_ASCII_SPACES = bytes(int(c) for c in SPACES if c < 0x80)


class Squeezed:
    """The document without whitespace: ``text`` (``"".join(source.split())``) and, for each of
    its characters, its position in the document (``at``); ``lower`` is ``text`` lowercased
    when that keeps its length."""

    def __init__(self, source: str):
        # The code points: one byte each when they all fit (ASCII), else four.
        if source.isascii():
            raw = source.encode("ascii")
            self.at = np.flatnonzero(_IS_SOLID.take(np.frombuffer(raw, dtype=np.uint8)))
            self.text = raw.translate(None, _ASCII_SPACES).decode("ascii")
            return
        codes = np.frombuffer(source.encode("utf-32-le"), dtype=np.uint32)
        solid = _IS_SOLID.take(codes, mode="clip")
        self.at = np.flatnonzero(solid)
        self.text = codes[solid].tobytes().decode("utf-32-le")

    @cached_property
    def lower(self) -> str | None:
        lower = self.text.lower()
        return lower if len(lower) == len(self.text) else None

    def index(self, position: int) -> int:
        """The first squeezed character at or after document ``position``."""
        return int(self.at.searchsorted(position))

    def span(self, first: int, stop: int) -> tuple[int, int]:
        """The document range of squeezed characters ``first..stop-1``."""
        return int(self.at[first]), int(self.at[stop - 1]) + 1


def _find(haystack: str, needle: str, start: int, end: int, stop: int | None = None) -> int:
    """The first occurrence of ``needle`` starting in ``[start, stop)`` that reaches past
    ``end``, or failing that the first starting there (-1: none). Searched by its first
    ``PROBE`` characters, each hit checked whole (a short needle is found several times
    faster)."""
    head, first = needle[:PROBE], -1
    limit = len(haystack) if stop is None else min(len(haystack), stop + len(head))
    i = haystack.find(head, start, limit)
    while i != -1:
        if haystack.startswith(needle, i):
            if i + len(needle) > end:
                return i
            if first == -1:
                first = i
        i = haystack.find(head, i + 1, limit)
    return first


def _spaced(text: str, piece: str, start: int, end: int, stop: int) -> tuple[int, int] | None:
    """Where ``piece`` occurs with any whitespace between its words, starting in
    ``[start, stop)`` (chosen as :func:`_find` chooses), or None."""
    pattern = re.compile(r"\s+".join(map(re.escape, piece.split())))
    limit = min(len(text), stop + len(piece))
    first = m = pattern.search(text, start, limit)
    while m is not None and m.end() <= end:
        m = pattern.search(text, m.start() + 1, limit)
    m = m or first
    return None if m is None else m.span()


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "\u2026")


def locate(text: str, pieces: Iterable[str]) -> Plan:
    """The plan whose bodies are the document ranges of ``pieces`` (in order; empty ones
    dropped), with a note for every piece that is not the document's text verbatim. Each piece
    is looked for first where it should be, starting at most ``GAP`` characters past the
    previous one's end, then anywhere after."""
    bodies: list[tuple[int, int]] = []
    notes: list[str] = []
    squeezed: Squeezed | None = None
    prev_start, prev_end = -1, 0
    find, verbatim = text.find, text.startswith
    pieces = list(pieces)
    heads = map(getitem, pieces, repeat(slice(PROBE)))
    for k, (piece, head) in enumerate(zip(pieces, heads, strict=True), start=1):
        if not piece or piece.isspace():
            continue
        start, stop = prev_start + 1, prev_end + GAP
        # The common case, as :func:`_find` decides it: the first occurrence of the head is the
        # piece, and it reaches past the previous piece.
        i = find(head, start, stop + len(head))
        if i != -1 and i + len(piece) > prev_end and verbatim(piece, i):
            bodies.append((i, i + len(piece)))
            prev_start, prev_end = bodies[-1]
            continue
        i = _find(text, piece, start, prev_end, stop)
        note = None
        if i != -1:
            span = (i, i + len(piece))
        elif (
            squeezed is None
            and len(notes) < SPACED_TRIES
            and (span := _spaced(text, piece, start, prev_end, stop)) is not None
        ):
            note = "the library changed its whitespace"
        else:
            squeezed = squeezed or Squeezed(text)
            span, note = _rewritten(squeezed, text, piece, start, prev_end, stop)
        if note is not None:
            notes.append(f"chunk {k}: {note}")
        if span is None:
            continue
        bodies.append(span)
        prev_start, prev_end = span
    return Plan(tuple(bodies), notes=tuple(notes))


def _rewritten(
    sq: Squeezed, text: str, piece: str, start: int, end: int, stop: int
) -> tuple[tuple[int, int] | None, str | None]:
    """Where a piece that is not verbatim near ``[start, stop)`` comes from, and what differs
    (None: nothing, it is verbatim further on)."""
    solid = "".join(piece.split())
    first, last = sq.index(start), sq.index(end)
    for bound in (sq.index(stop), None):
        j = _find(sq.text, solid, first, last, bound)
        if j != -1:
            return sq.span(j, j + len(solid)), "the library changed its whitespace"
        if sq.lower is not None:
            j = _find(sq.lower, solid.lower(), first, last, bound)
            if j != -1:
                return sq.span(j, j + len(solid)), "the library changed its case and whitespace"
        if bound is not None and (i := _find(text, piece, start, end)) != -1:
            return (i, i + len(piece)), None
        hit = _after_added_head(sq, solid, first, last, bound)
        if hit is not None:
            return hit
    # compared with case ignored where lowercasing keeps lengths (an uncased tokenizer's text)
    hay, mine = (sq.text, solid) if sq.lower is None else (sq.lower, solid.lower())
    window = hay[first : first + 2 * len(solid) + 200]
    blocks = [
        b
        for b in SequenceMatcher(None, mine, window, autojunk=False).get_matching_blocks()
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


def _after_added_head(
    sq: Squeezed, solid: str, first: int, last: int, bound: int | None
) -> tuple[tuple[int, int], str] | None:
    """Where ``solid`` occurs (case ignored where lowercasing keeps lengths) once its first
    one to ``ADDED_HEAD`` characters are dropped, as text a library put before the chunk's own:
    a WordPiece decoder starts a window that begins inside a word with ``##``."""
    haystack, needle = (sq.text, solid) if sq.lower is None else (sq.lower, solid.lower())
    for cut in range(1, min(ADDED_HEAD, len(needle) - ADDED_REST) + 1):
        j = _find(haystack, needle[cut:], first, last, bound)
        if j != -1:
            added = (
                f"the library added {solid[:cut]!r} before its text (case and whitespace ignored)"
            )
            return sq.span(j, j + len(needle) - cut), added
    return None


def offsets_plan(text: str, chunks: Iterable[tuple[str, int, int]]) -> Plan:
    """The plan of chunks a library returned with their own offsets ``(text, start, end)``:
    a chunk whose offsets hold its text exactly keeps them; the others are located like
    strings (:func:`locate`), with notes."""
    chunks = list(chunks)
    if all(text[s:e] == t for t, s, e in chunks):
        return Plan(tuple((s, e) for t, s, e in chunks if t.strip()))
    return locate(text, (t for t, _, _ in chunks))
