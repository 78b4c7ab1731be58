"""Recursive chunking: headings, then paragraphs, then sentences, then words.

The LangChain ``RecursiveCharacterTextSplitter`` idea over parsed units: a piece longer than
``L`` is split at the coarsest separator it contains, the parts are merged back greedily while
they fit, and a part still too long is split at the next, finer separator.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from ..parse import Document
from .base import Params, Plan, register

_WORD = re.compile(r"\S+")


def separators(doc: Document, first: int, stop: int) -> tuple[list[int], list[int]]:
    """The units among ``first + 1..stop - 1`` that start a new piece at the two coarsest
    separators, in order: headings, and new blocks (paragraphs, list items, rows, code blocks);
    at the finest, sentences, every unit does."""
    units = doc.units
    headings = [i for i in range(first + 1, stop) if units[i].kind == "heading"]
    blocks = [i for i in range(first + 1, stop) if units[i].block != units[i - 1].block]
    return headings, blocks


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


def split_units(doc: Document, first: int, stop: int, size: int) -> list[tuple[int, int]]:
    """Bodies covering units ``first..stop-1``, none longer than ``size``, split recursively
    at headings, then blocks, then sentences, then words."""
    if doc.unit_ends[stop - 1] - doc.unit_starts[first] <= size:
        return [(doc.unit_starts[first], doc.unit_ends[stop - 1])]
    return _split(doc, first, stop, size, separators(doc, first, stop))


def _split(
    doc: Document, first: int, stop: int, size: int, cut_at: tuple[list[int], ...]
) -> list[tuple[int, int]]:
    """:func:`split_units`, given the units that start a piece at the coarser two separators
    (over a range at least ``first..stop-1``). Pieces wait on a stack, the next one on top, each
    with the separator it is split at next."""
    starts, ends, text = doc.unit_starts, doc.unit_ends, doc.text
    bodies: list[tuple[int, int]] = []
    todo = [(first, stop, 0)]
    while todo:
        first, stop, level = todo.pop()
        if ends[stop - 1] - starts[first] <= size:
            bodies.append((starts[first], ends[stop - 1]))
            continue
        if level == 3:
            bodies.extend(split_words(text, starts[first], ends[stop - 1], size))
            continue
        if level == 2:
            cuts = range(first, stop)
        else:
            found = cut_at[level]
            cuts = [first, *found[bisect_right(found, first) : bisect_left(found, stop)]]
        merged: list[tuple[int, int]] = []
        for a, b in zip(cuts, [*cuts[1:], stop], strict=True):
            if merged and ends[b - 1] - starts[merged[-1][0]] <= size:
                merged[-1] = (merged[-1][0], b)
            else:
                merged.append((a, b))
        todo.extend((a, b, level + 1) for a, b in reversed(merged))
    return bodies


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
