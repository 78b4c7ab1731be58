"""Recursive chunking: headings, then paragraphs, then sentences, then words.

The LangChain ``RecursiveCharacterTextSplitter`` idea over parsed units: a piece longer than
``L`` is split at the coarsest separator it contains, the parts are merged back greedily while
they fit, and a part still too long is split at the next, finer separator.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..parse import Document, Unit
from .base import Params, Plan, register

_WORD = re.compile(r"\S+")


# Finer and finer separators: the units among ``first + 1..stop - 1`` that start a new piece.
LEVELS: tuple[Callable[[tuple[Unit, ...], int, int], list[int]], ...] = (
    # headings
    lambda units, first, stop: [i for i in range(first + 1, stop) if units[i].kind == "heading"],
    # paragraphs, list items, rows, code blocks
    lambda units, first, stop: [
        i for i in range(first + 1, stop) if units[i].block != units[i - 1].block
    ],
    # sentences
    lambda units, first, stop: list(range(first + 1, stop)),
)


def split_words(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    """Pack the words of ``text[start:end]`` into spans of at most ``size`` characters; a word
    longer than ``size`` is cut every ``size`` characters."""
    spans: list[tuple[int, int]] = []
    for m in _WORD.finditer(text, start, end):
        a, b = m.span()
        if spans and b - spans[-1][0] <= size:
            spans[-1] = (spans[-1][0], b)
            continue
        while b - a > size:
            spans.append((a, a + size))
            a += size
        spans.append((a, b))
    return spans


def split_units(
    doc: Document, first: int, stop: int, size: int, level: int = 0
) -> list[tuple[int, int]]:
    """Bodies covering units ``first..stop-1``, none longer than ``size``, split recursively
    from the ``level``-th separator on."""
    units = doc.units
    start, end = units[first].start, units[stop - 1].end
    if end - start <= size:
        return [(start, end)]
    if level == len(LEVELS):
        return split_words(doc.text, start, end, size)
    cuts = [first, *LEVELS[level](units, first, stop)]
    merged: list[tuple[int, int]] = []
    for a, b in zip(cuts, [*cuts[1:], stop], strict=True):
        if merged and units[b - 1].end - units[merged[-1][0]].start <= size:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return [body for a, b in merged for body in split_units(doc, a, b, size, level + 1)]


@register(
    "recursive",
    "Recursive",
    "Splits only what is longer than L: at headings, then paragraphs, then sentences, then "
    "words; neighbouring pieces merged back while they fit within L.",
    order=6,
)
def recursive(doc: Document, p: Params) -> Plan:
    """Bodies cover every unit and none is longer than ``L``. A piece longer than ``L`` is split
    at its headings (each heading starts a piece), consecutive pieces are merged greedily while
    the merged span stays within ``L``, and a piece still too long is split the same way at its
    paragraphs (blocks), then its sentences (units), then at whitespace (a word longer than ``L``
    is cut at ``L``)."""
    if not doc.units:
        return Plan(())
    return Plan(tuple(split_units(doc, 0, len(doc.units), p.size)))
