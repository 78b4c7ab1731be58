"""Sentences: where a paragraph's sentences end (a full stop, question or exclamation mark and the
whitespace after it, but not an abbreviation's period), for one paragraph or for all of a text's
paragraphs at once (:func:`prose_units`, array arithmetic over the whole text's breaks)."""

from __future__ import annotations

import re
from contextlib import suppress
from itertools import accumulate
from typing import NamedTuple

import numpy as np

ABBREVIATIONS = frozenset(
    "e.g. i.e. dr. no. mr. mrs. ms. prof. vs. cf. fig. st. approx. incl. nos. art. para.".split()
)

_END_REST = r"[.!?]*[\"'\u201d\u2019)\]]*(?=\s)"  # what follows a sentence end's first mark
_SENTENCE_END = re.compile(f"[.!?]{_END_REST}")
# A sentence break is a sentence end and the whitespace after it. One pattern per first mark: with
# a literal first character the regex engine jumps from one to the next, where a character class
# has it try every position of the text (three times slower).
_BREAKS = tuple(re.compile(f"({re.escape(mark)}{_END_REST})\\s*") for mark in ".!?")
# The period's break with the whitespace after it as a group of its own (for ``re.split``).
_PERIOD_PARTS = re.compile(f"(\\.{_END_REST})(\\s*)")
# The two characters before an abbreviation's period, lowercase: a sentence end after any other
# two needs no further test in ``add_prose``.
_ABBREVIATION_TAILS = frozenset(a[-3:-1] for a in ABBREVIATIONS)
_TAIL_CODES = np.array(sorted(ord(a) << 8 | ord(b) for a, b in _ABBREVIATION_TAILS))


class Breaks(NamedTuple):
    """Sentence breaks (a sentence end and the whitespace after it) in order, as a search for
    them from left to right finds them: each one's first punctuation mark
    (``dots``), the end of its punctuation (``stops``: where a sentence ends) and of the
    whitespace after it (``afters``); ``maybe`` lists the matches whose two characters before
    the punctuation may end an abbreviation."""

    dots: list[int]
    stops: list[int]
    afters: list[int]
    maybe: list[int]


def _period_breaks(text: str, start: int, end: int) -> tuple[list[int], list[int], list[int]]:
    """The ``dots``, ``stops`` and ``afters`` of the breaks that start with a period, as a search
    of ``text[start:end]`` finds them: from the lengths of the pieces ``re.split`` cuts (the
    text before a break, its punctuation, the whitespace after it, the text before the next...),
    which it cuts at C speed where a search makes a match object for each."""
    piece = text if start == 0 and end == len(text) else text[start:end]
    parts = _PERIOD_PARTS.split(piece)
    at = list(accumulate(map(len, parts), initial=start))  # where each piece starts
    n = len(parts) // 3
    return at[1::3][:n], at[2::3], at[3::3]


def sentence_breaks(text: str, start: int, end: int) -> Breaks:
    """The :class:`Breaks` a search of ``text[start:end]`` finds."""
    dots, stops, afters = _period_breaks(text, start, end)
    others = [
        (m.start(), m.end(1), m.end()) for p in _BREAKS[1:] for m in p.finditer(text, start, end)
    ]
    if others:
        found = sorted([*zip(dots, stops, afters, strict=True), *others])
        dots, stops, afters = map(list, zip(*found, strict=True))
        if len(set(stops)) < len(stops):
            # A run of mixed marks ("?!") is found from each of its marks, every time with the
            # same end; the search from left to right finds it from its first.
            first = {}
            for dot, stop, after in reversed(found):
                first[stop] = (dot, after)
            found = sorted((dot, stop, after) for stop, (dot, after) in first.items())
            dots, stops, afters = map(list, zip(*found, strict=True))
    return Breaks(dots, stops, afters, _maybe_abbreviations(text, dots))


def _maybe_abbreviations(text: str, dots: list[int]) -> list[int]:
    """The breaks whose two characters before the punctuation, lowercased, may end an
    abbreviation. In a Latin-1 text with many breaks, looked up in its bytes with the ASCII
    letters lowered, all at once (no other character there lowers to an ASCII one)."""
    data = None
    if len(dots) >= 256:
        with suppress(UnicodeEncodeError):
            data = text.encode("latin-1").lower()
    if data is None or len(data) < 2:
        return [k for k, d in enumerate(dots) if text[d - 2 : d].lower() in _ABBREVIATION_TAILS]
    codes = np.frombuffer(data, dtype=np.uint8)
    at = np.array(dots, dtype=np.int64)
    past_two = at >= 2  # before the third character the slice holds fewer than two
    at[~past_two] = 2
    pairs = codes[at - 2].astype(np.int64) << 8 | codes[at - 1]
    return np.flatnonzero(past_two & np.isin(pairs, _TAIL_CODES)).tolist()


def _sentences(
    text: str, breaks: Breaks, first: int, stop: int, cursor: int, begin: int
) -> tuple[list[tuple[int, int]], int]:
    """The sentences that breaks ``first..stop-1`` end, but at an abbreviation's period, as
    ``(start, end)``; and where the text after the last one starts."""
    dots, stops, afters, _ = breaks
    spans = []
    for j in range(first, stop):
        dot = dots[j]
        if text[dot - 2 : dot].lower() in _ABBREVIATION_TAILS:
            word_start = text.rfind(" ", cursor, dot) + 1
            word_start = max(word_start, text.rfind("\n", cursor, dot) + 1, cursor)
            word = text[word_start : dot + 1].lower().lstrip("(\"'\u201c")
            if word in ABBREVIATIONS:
                continue
        # Ends with punctuation, starts after whitespace: nothing to trim.
        spans.append((begin, stops[j]))
        cursor, begin = stops[j], afters[j]
    return spans, cursor


def _abbreviations(
    text: str, breaks: Breaks, starts: np.ndarray, first: np.ndarray, stop: np.ndarray
) -> list[int]:
    """The breaks among ``first[i]..stop[i]-1`` of the paragraphs starting at ``starts`` that
    end no sentence: an abbreviation's period, as :func:`_sentences` reads it.

    That reads the word before a period back to the last space or line break after where the
    sentence began: the paragraph's start, or the end of the last break that ended one. Read
    back to the end of the break just before instead, the word is the same when a space or
    line break comes between; otherwise it holds the whitespace that follows every break, as
    it would have, and no abbreviation holds whitespace."""
    dots, stops, _, maybe = breaks
    if not maybe:
        return []
    owner = np.searchsorted(starts, np.asarray(dots)[maybe], "right") - 1
    firsts, ends, begins = first.tolist(), stop.tolist(), starts.tolist()
    found = []
    for j, i in zip(maybe, owner.tolist(), strict=True):
        if i < 0 or not firsts[i] <= j < ends[i]:
            continue
        dot = dots[j]
        cursor = stops[j - 1] if j > firsts[i] else begins[i]
        word_start = text.rfind(" ", cursor, dot) + 1
        word_start = max(word_start, text.rfind("\n", cursor, dot) + 1, cursor)
        if text[word_start : dot + 1].lower().lstrip("(\"'\u201c") in ABBREVIATIONS:
            found.append(j)
    return found


def prose_units(
    text: str, breaks: Breaks, prose: list[tuple[int, int, int, int, int]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sentences :meth:`UnitBuilder.add_prose` makes of each paragraph ``(start, end,
    skip, ...)`` given the whole text's breaks, in order: their starts, ends and paragraphs."""
    starts, ends, skips = (np.array(c, dtype=np.int64) for c in list(zip(*prose, strict=True))[:3])
    # Prose starts after whitespace (a line break, or the blanks after a list marker or a
    # heading's number) and ends before a line break, so no break of the whole text straddles
    # its start, and those inside it are the ones a search of it alone finds (the last may
    # differ when it reaches the end, where ``add_prose`` reads none).
    dots, stops, afters, _ = (np.array(c, dtype=np.int64) for c in breaks)
    first = np.searchsorted(dots, starts + skips)
    stop = np.searchsorted(dots, ends)
    # A break that reaches the paragraph's end ends nothing.
    stop = np.minimum(np.maximum(np.searchsorted(stops, ends), first), stop)
    begin = np.array(
        [
            s if s >= e or not text[s].isspace() else _skip_space(text, s, e)
            for s, e in zip(starts.tolist(), ends.tolist(), strict=True)
        ],
        dtype=np.int64,
    )
    # Without the breaks at an abbreviation's period, every break ends a sentence.
    kept = np.ones(len(dots), dtype=bool)
    kept[_abbreviations(text, breaks, starts, first, stop)] = False
    stops, afters = stops[kept], afters[kept]
    kept_before = np.concatenate(([0], np.cumsum(kept)))
    first, stop = kept_before[first], kept_before[stop]
    count = stop - first
    # The rest after the last sentence starts at the first non-space, when there is one.
    after_last = afters[np.maximum(stop - 1, 0)] if len(afters) else stop
    rest = np.where(count > 0, after_last, begin)
    has_rest = rest < ends
    sizes = count + has_rest
    para = np.repeat(np.arange(len(sizes)), sizes)
    k = np.arange(len(para)) - np.repeat(np.cumsum(sizes) - sizes, sizes)  # unit in paragraph
    unit_starts = np.empty(len(para), dtype=np.int64)
    unit_ends = np.empty(len(para), dtype=np.int64)
    # Sentences the breaks end: the first from the paragraph's first non-space, each next from
    # the whitespace after the one before.
    sentence = k < count[para]
    p, k = para[sentence], k[sentence]
    j = first[p] + k
    unit_starts[sentence] = np.where(k == 0, begin[p], afters[j - 1])
    unit_ends[sentence] = stops[j]
    last = ~sentence
    unit_starts[last] = rest[para[last]]
    unit_ends[last] = [
        e if not text[e - 1].isspace() else _trim(text, r, e)[1]
        for r, e in zip(rest[has_rest].tolist(), ends[has_rest].tolist(), strict=True)
    ]
    return unit_starts, unit_ends, para


def _skip_space(text: str, start: int, end: int) -> int:
    """The first non-space of ``text[start:end]`` (``end`` when there is none)."""
    while start < end and text[start].isspace():
        start += 1
    return start


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
