"""Parse a markdown or plain-text document into units, provisions and cross-references.

Units are the atoms every chunker cuts on: sentences, heading lines, list items, table rows and
code blocks, each with ``[start, end)`` offsets into the original text. A provision is a heading at
level 3 or deeper (or a numbered ``x.y`` heading) with the units under it; section text before
the first provision becomes a provision of its own, and text before any heading is the preamble.
A table is a run of row units; a row followed by a ``|---|`` rule is its header, and every row
keeps the ranges of its cells. Other formats (HTML) feed the same :class:`UnitBuilder`.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate, chain, count, pairwise, repeat
from operator import add
from typing import NamedTuple

import numpy as np

from .text import tokenize, tokenize_many

PATH_SEPARATOR = " \u203a "

ABBREVIATIONS = frozenset(
    "e.g. i.e. dr. no. mr. mrs. ms. prof. vs. cf. fig. st. approx. incl. nos. art. para.".split()
)

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_ATX_EMPTY = re.compile(r"^ {0,3}(#{1,6})[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_DECORATION = re.compile(
    r"^[ \t]*(?:[-*_=~+#.:|]|[\u2500-\u259f])[ \t]*(?:[-*_=~+#.:|\u2500-\u259f][ \t]*){2,}$"
)
_NUMBERED = re.compile(r"[ \t]*(\d{1,3}(?:\.\d{1,3})*)(\.?)[ \t]+(\S.*?)[ \t]*$")
_LIST_ITEM = re.compile(
    r"[ \t]*(?:[-*+\u2022]|\d{1,3}[.)]|[a-z][.)]|\([a-z0-9]{1,3}\))[ \t]+(?=\S)"
)
_TABLE_ROW = re.compile(r"^[ \t]*\|")
_CELL_BAR = re.compile(r"(?<!\\)\|")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```+|~~~+)")
_END_REST = r"[.!?]*[\"'\u201d\u2019)\]]*(?=\s)"  # what follows a sentence end's first mark
_SENTENCE_END = re.compile(f"[.!?]{_END_REST}")
# A sentence break is a sentence end and the whitespace after it. One pattern per first mark: with
# a literal first character the regex engine jumps from one to the next, where a character class
# has it try every position of the text (three times slower).
_BREAKS = tuple(re.compile(f"({re.escape(mark)}{_END_REST})\\s*") for mark in ".!?")
# The period's break with the whitespace after it as a group of its own (for ``re.split``).
_PERIOD_PARTS = re.compile(f"(\\.{_END_REST})(\\s*)")
_TITLE_START = re.compile(r"[\"'\u201c\u2018(]?[A-Z\u00c0-\u00de]")
_LEADING_NUMBER = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?(?=\s|$)")
# The leading look-ahead only lets the engine skip to the letters a reference can start with
# (``(?i:s)`` matches s, S and the long s).
_REFERENCE = re.compile(
    r"(?=[Ss\u017f\u00a7])(?:\b(?i:sections?)|\u00a7\u00a7?)\s*(\d+(?:\.\d+)*)(?:\([A-Za-z0-9]+\))*"
    r"((?:\s*(?:,|\band\b|\bor\b|&|\bto\b)\s*(?:\u00a7\s*)?\d+(?:\.\d+)*(?:\([A-Za-z0-9]+\))*)*)"
)
_REFERENCE_TAIL = re.compile(r"\d+(?:\.\d+)*")
# A line no markdown rule reads specially: after spaces and tabs its first character is none that
# starts a heading, list item, table, fence, rule or numbered heading, nor other whitespace (a
# blank line, or one ``str.lstrip`` would read differently), nor a letter list marker ``a.``/``b)``.
_PLAIN = re.compile(r"[ \t]*(?![a-z][.)])[^\s\d#|`~*+=_.:(\u2022\u2500-\u259f-]")
# The two characters before an abbreviation's period, lowercase: a sentence end after any other
# two needs no further test in ``add_prose``.
_ABBREVIATION_TAILS = frozenset(a[-3:-1] for a in ABBREVIATIONS)
_TAIL_CODES = np.array(sorted(ord(a) << 8 | ord(b) for a, b in _ABBREVIATION_TAILS))

MAX_TITLE_WORDS = 10
MAX_INLINE_TITLE_WORDS = 6


class Unit(NamedTuple):
    """An atom of text: ``text[start:end]`` is a sentence, heading line, list item, row or code.

    A named tuple: a megabyte of text has some 12,000 units, and a tuple is built from its
    values at C speed (:func:`_make_units`), several times faster than a dataclass."""

    start: int
    end: int
    kind: str  # "sentence" (list items too) | "heading" | "row" | "code"
    provision: int  # index into Document.provisions, -1 for headings that own no provision
    block: int = -1  # the paragraph, list item, row, code block or heading line it belongs to


@dataclass(frozen=True, slots=True)
class Heading:
    start: int
    end: int
    level: int
    number: str | None
    title: str

    @property
    def label(self) -> str:
        return f"{self.number} {self.title}".strip() if self.number else self.title


@dataclass(frozen=True, slots=True)
class Provision:
    """A heading with the units under it, or the preamble before any heading."""

    index: int
    id: str | None  # the heading's number, e.g. "1.3", when it has one
    title: str
    path: str  # "1 Definitions › 1.3 Red-light zone"; "" for the preamble
    section: str  # first element of the path: provisions of one section share it
    heading: int | None  # unit index of the heading line
    first: int  # first body unit
    stop: int  # one past the last body unit

    @property
    def label(self) -> str:
        return f"{self.id} {self.title}".strip() if self.id else (self.title or "Preamble")


@dataclass(frozen=True, slots=True)
class Reference:
    """``Section 1.3`` at ``[start, end)`` inside provision ``source`` resolves to ``target``."""

    start: int
    end: int
    source: int
    target: int


@dataclass(frozen=True, slots=True)
class TableRow:
    """A row unit of a table and the ``[start, end)`` ranges of its cells' text."""

    unit: int
    cells: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class Table:
    """Consecutive rows: the header row (column names), when the table has one, and the others."""

    header: TableRow | None
    rows: tuple[TableRow, ...]


@dataclass(frozen=True, eq=False)
class Document:
    name: str
    text: str
    title: str | None
    units: tuple[Unit, ...]
    provisions: tuple[Provision, ...]
    references: tuple[Reference, ...]
    unit_starts: tuple[int, ...] = field(repr=False)
    tables: tuple[Table, ...] = ()
    format: str = "markdown"  # "markdown" (plain text too) or "html": ``text`` is then extracted
    problems: tuple[str, ...] = ()  # what the parser read leniently (ragged tables, bad HTML)

    @cached_property
    def reference_starts(self) -> list[int]:
        return [r.start for r in self.references]

    @cached_property
    def sections(self) -> list[tuple[int, int]]:
        """Character spans of the top-level sections (consecutive provisions of one section)."""
        spans: list[tuple[int, int]] = []
        current = None
        for p in self.provisions:
            first = p.heading if p.heading is not None else p.first
            last = p.stop - 1 if p.stop > p.first else first
            if first >= len(self.units):
                continue
            start, end = self.units[first].start, self.units[last].end
            if spans and p.section == current and p.section:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
            current = p.section
        return spans

    @cached_property
    def unit_ends(self) -> list[int]:
        return [u.end for u in self.units]

    @cached_property
    def unit_provisions(self) -> list[int]:
        return [u.provision for u in self.units]

    @cached_property
    def unit_tokens(self) -> list[list[str]]:
        """BM25 tokens of every unit (tokens never cross a unit boundary)."""
        text = self.text
        return tokenize_many([text[u.start : u.end] for u in self.units])

    def tokens(self, start: int, end: int) -> list[str]:
        """Tokens of ``text[start:end]``, from the units' tokens when the range is whole units."""
        first = bisect_left(self.unit_starts, start)
        last = bisect_left(self.unit_ends, end)
        if (
            first < last + 1 <= len(self.units)
            and self.unit_starts[first] == start
            and self.unit_ends[last] == end
        ):
            tokens, at = self._all_unit_tokens
            return tokens[at[first] : at[last + 1]]
        return tokenize(self.text[start:end])

    @cached_property
    def _all_unit_tokens(self) -> tuple[list[str], list[int]]:
        """The units' tokens in one list, and where each unit's begin (and the last ends)."""
        per_unit = self.unit_tokens
        return list(chain.from_iterable(per_unit)), list(accumulate(map(len, per_unit), initial=0))

    def unit_at(self, pos: int) -> int:
        """Index of the last unit starting at or before ``pos`` (0 when none does)."""
        return max(bisect_right(self.unit_starts, pos) - 1, 0)

    def body_span(self, provision: Provision) -> tuple[int, int] | None:
        """Character range of a provision's body units, or None for an empty body."""
        if provision.first >= provision.stop:
            return None
        return self.units[provision.first].start, self.units[provision.stop - 1].end

    @property
    def heading_count(self) -> int:
        return sum(1 for u in self.units if u.kind == "heading")

    @cached_property
    def table_rows(self) -> dict[int, tuple[Table, TableRow]]:
        """Every data row of a table, by its unit index, with its table."""
        return {row.unit: (table, row) for table in self.tables for row in table.rows}


# Setting a frozen dataclass's slots directly makes one 3-5x faster than its ``__init__``, which
# goes through ``object.__setattr__`` for each field (a long document has tens of thousands). The
# constructor is written out field by field, as ``dataclasses`` writes ``__init__``.
def fast_constructor(cls: type) -> Callable[..., object]:
    """``cls(*values)`` for a frozen slots dataclass, all fields given in order."""
    names = tuple(cls.__dataclass_fields__)
    scope = {f"set_{name}": getattr(cls, name).__set__ for name in names}
    scope |= {"new": object.__new__, "cls": cls}
    sets = "".join(f"    set_{name}(obj, {name})\n" for name in names)
    exec(f"def make({', '.join(names)}):\n    obj = new(cls)\n{sets}    return obj\n", scope)
    return scope["make"]


_new_heading = fast_constructor(Heading)
_new_provision = fast_constructor(Provision)
_new_reference = fast_constructor(Reference)


def _heading(start: int, end: int, level: int, title: str) -> Heading:
    """The heading of the line ``text[start:end]`` with this level and title: a leading number
    (``1.3``) becomes its number."""
    number_match = _LEADING_NUMBER.match(title)
    if number_match:
        return _new_heading(
            start, end, level, number_match.group(1), title[number_match.end() :].strip()
        )
    return _new_heading(start, end, level, None, title.strip())


def _atx(line: str) -> tuple[int, str] | None:
    """The level and title of an ATX heading line that starts with ``#`` (as :data:`_ATX`
    reads them), or None when it is none."""
    level = len(line) - len(line.lstrip("#"))
    if level > 6 or line[level : level + 1] not in (" ", "\t") or line[-1] in " \t#":
        # Past six marks, or with no blank after them, no heading; one ending in blanks or
        # marks: the pattern finds where its title ends.
        m = _ATX.match(line)
        return (len(m.group(1)), m.group(2)) if m else None
    # The pattern's title starts after the blanks after the marks and, with nothing to trim at
    # the line's end, runs to it.
    return level, line[level:].lstrip(" \t")


Columns = tuple[Sequence[int], Sequence[int], Sequence[str], Sequence[int]]


def _columns(raw: list[tuple[int, int, str, int]]) -> Columns:
    """The starts, ends, kinds and blocks of units given as ``(start, end, kind, block)``."""
    if not raw:
        return (), (), (), ()
    starts, ends, kinds, blocks = zip(*raw, strict=True)
    return starts, ends, kinds, blocks


def _make_units(columns: Columns, provision: list[int]) -> tuple[Unit, ...]:
    """``Unit(start, end, kind, provision[i], block)`` for the ``i``-th unit of ``columns``."""
    starts, ends, kinds, blocks = columns
    values = zip(starts, ends, kinds, provision, blocks, strict=True)
    return tuple(map(tuple.__new__, repeat(Unit), values))


# What ``str.splitlines`` breaks lines at, besides "\n".
_OTHER_LINE_BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def _lines(text: str) -> tuple[list[str], list[int]]:
    """Every line of ``text`` without its line break, and where each starts (and, last, the
    text's end)."""
    if any(c in text for c in _OTHER_LINE_BREAKS):
        raw = text.splitlines(keepends=True)
        return [line.rstrip("\r\n") for line in raw], list(accumulate(map(len, raw), initial=0))
    # Lines end at "\n" alone: split there; line ``i`` starts after ``i`` line breaks.
    lines = text.split("\n")
    if not lines[-1]:  # the text ends with a line break, or is empty: no line after it
        lines.pop()
    starts = list(map(add, accumulate(map(len, lines), initial=0), count()))
    starts[-1] = len(text)
    return lines, starts


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


def _sentence_breaks(text: str, start: int, end: int) -> Breaks:
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


def _is_short_title(rest: str) -> bool:
    body = rest.rstrip(".:")
    return (
        bool(_TITLE_START.match(rest))
        and len(rest) <= 80
        and len(body.split()) <= MAX_TITLE_WORDS
        and not _SENTENCE_END.search(body + " ")
    )


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


def _prose_units(
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


class UnitBuilder:
    """Collects the units, headings and tables of ``text`` as a reader of its format finds them;
    :meth:`document` then works out provisions, paths and references. Markdown is read by
    :func:`parse_document`; other formats (``lab.html``) lay out their text and call the ``add_*``
    methods in order."""

    def __init__(self, text: str):
        self.text = text
        self.units: list[tuple[int, int, str, int]] = []
        self.headings: dict[int, Heading] = {}  # unit index -> heading
        self.block = -1  # units added until the next block starts belong to this one
        self.tables: list[tuple[TableRow | None, list[TableRow]]] = []
        self.table_open = False
        self.problems: list[str] = []

    def add(self, start: int, end: int, kind: str) -> None:
        text = self.text
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            self.units.append((start, end, kind, self.block))

    def add_block(self, start: int, end: int, kind: str) -> None:
        """Add a unit that is a block of its own: a heading line, table row or code block."""
        self.block += 1
        self.add(start, end, kind)

    def add_heading(self, start: int, end: int, level: int, title: str) -> None:
        self.headings[len(self.units)] = _heading(start, end, level, title)
        self.add_block(start, end, "heading")

    def sentence_breaks(self, start: int, end: int) -> tuple[Breaks, int, int]:
        """The sentence breaks a search of ``text[start:end]`` finds: a :class:`Breaks` and the
        range ``[first, stop)`` of its entries that are those."""
        breaks = _sentence_breaks(self.text, start, end)
        return breaks, 0, len(breaks.stops)

    def add_prose(self, start: int, end: int, skip: int = 0) -> None:
        """Split ``text[start:end]`` into sentences; ``skip`` chars of list marker never end one."""
        self.block += 1
        text, units, block = self.text, self.units, self.block
        cursor = start  # where the sentence began: an abbreviation's word starts at or after it
        begin = start  # the same without the whitespace before the sentence
        while begin < end and text[begin].isspace():
            begin += 1
        breaks, first, stop = self.sentence_breaks(start + skip, end)
        dots, stops, afters, maybe = breaks
        stop = bisect_left(stops, end, first, stop)  # a break that reaches the end ends nothing
        if first < stop:
            k = bisect_left(maybe, first)
            if k == len(maybe) or maybe[k] >= stop:  # no abbreviation: every break ends one
                begins = [begin, *afters[first : stop - 1]]
                units.extend(zip(begins, stops[first:stop], repeat("sentence"), repeat(block)))
                cursor = stops[stop - 1]
            else:
                spans, cursor = _sentences(text, breaks, first, stop, cursor, begin)
                units.extend((a, b, "sentence", block) for a, b in spans)
        self.add(cursor, end, "sentence")

    def add_row(self, start: int, end: int, cells: Sequence[tuple[int, int]]) -> None:
        """Add a table row with its cells' ranges; it continues the open table or starts one."""
        unit = len(self.units)
        self.add_block(start, end, "row")
        if len(self.units) == unit:
            return
        if not self.table_open:
            self.tables.append((None, []))
            self.table_open = True
        self.tables[-1][1].append(TableRow(unit, tuple(cells)))

    def mark_header(self) -> bool:
        """Make the open table's only row its header; False when it has none or several."""
        if not self.table_open or self.tables[-1][0] is not None or len(self.tables[-1][1]) != 1:
            return False
        self.tables[-1] = (self.tables[-1][1][0], [])
        return True

    def close_table(self) -> None:
        self.table_open = False

    def document(self, name: str, format: str = "markdown") -> Document:
        """The document these units make: provisions, heading paths and cross-references."""
        columns = self.unit_columns()
        tables = tuple(Table(header, tuple(rows)) for header, rows in self.tables)
        for table in tables:
            self.problems.extend(_ragged(self.text, table))
        return _structure(self, columns, name, format, tables)

    def unit_columns(self) -> Columns:
        """The units' starts, ends, kinds and blocks, in order."""
        return _columns(self.units)


def _ragged(text: str, table: Table) -> list[str]:
    """A note for a table whose rows do not all have as many cells as its header."""
    if table.header is None:
        return []
    width = len(table.header.cells)
    odd = [row for row in table.rows if len(row.cells) != width]
    if not odd:
        return []
    first = odd[0]
    s, e = first.cells[0] if first.cells else (0, 0)
    head = " | ".join(text[a:b] for a, b in table.header.cells[:3])
    return [
        f"the table with columns {head!r} has {len(odd)} row(s) whose cell count differs from "
        f"its {width} columns (first: {' '.join(text[s:e].split())[:30]!r}, "
        f"{len(first.cells)} cells); cells are matched to columns from the left and a missing "
        "cell is left out"
    ]


class _Markdown(UnitBuilder):
    """Reads markdown or plain text line by line into units."""

    def __init__(self, text: str):
        super().__init__(text)
        self.breaks = _sentence_breaks(text, 0, len(text))
        # Paragraphs read and not yet split into sentences: ``(start, end, skip, block, units
        # added before it)``. :meth:`unit_columns` splits them all at once, at the end.
        self.prose: list[tuple[int, int, int, int, int]] = []
        self.heading_clock: dict[int, int] = {}  # a heading's unit index: paragraphs before it
        self.merged: Columns | None = None  # all units, once the paragraphs are split

    def add_prose(self, start: int, end: int, skip: int = 0) -> None:
        self.block += 1
        self.prose.append((start, end, skip, self.block, len(self.units)))

    def add_heading(self, start: int, end: int, level: int, title: str) -> None:
        self.heading_clock[len(self.units)] = len(self.prose)
        super().add_heading(start, end, level, title)

    def unit_columns(self) -> Columns:
        """Split the paragraphs read into sentences, as :meth:`UnitBuilder.add_prose` would
        one by one, and put their units among the others, renumbering headings and rows."""
        if self.merged is not None:
            return self.merged
        if not self.prose:
            return super().unit_columns()
        _, _, _, blocks, before = (
            np.array(c, dtype=np.int64) for c in zip(*self.prose, strict=True)
        )
        starts, ends, para = _prose_units(self.text, self.breaks, self.prose)
        prose_before = np.concatenate(([0], np.cumsum(np.bincount(para, minlength=len(before)))))
        fixed = self.units
        total = len(fixed) + len(para)
        new_starts = np.empty(total, dtype=np.int64)
        new_ends = np.empty(total, dtype=np.int64)
        new_blocks = np.empty(total, dtype=np.int64)
        kinds = np.full(total, "sentence", dtype=object)
        # A paragraph's units come after the units added before it was read; a unit added
        # after ``k`` paragraphs moves on by their units.
        where = np.arange(len(para)) + before[para]
        new_starts[where], new_ends[where], new_blocks[where] = starts, ends, blocks[para]
        fixed_at = np.arange(len(fixed))
        fixed_at += prose_before[np.searchsorted(before, fixed_at, "right")]
        if fixed:
            f_starts, f_ends, f_kinds, f_blocks = zip(*fixed, strict=True)
            new_starts[fixed_at], new_ends[fixed_at] = f_starts, f_ends
            new_blocks[fixed_at], kinds[fixed_at] = f_blocks, f_kinds
        clock, cum = self.heading_clock, prose_before.tolist()
        self.headings = {k + cum[clock[k]]: h for k, h in self.headings.items()}
        moved = fixed_at.tolist()
        self.tables = [
            (
                None if header is None else TableRow(moved[header.unit], header.cells),
                [TableRow(moved[row.unit], row.cells) for row in rows],
            )
            for header, rows in self.tables
        ]
        self.merged = new_starts.tolist(), new_ends.tolist(), kinds.tolist(), new_blocks.tolist()
        return self.merged

    def numbered_heading(
        self, line: tuple[int, int], prev_blank: bool, neighbours_listed: bool
    ) -> tuple[int, int, str, int] | None:
        """Read ``1.3 Title`` / ``2. Title. Body`` / ``3. Long provision text`` as a heading.

        Returns the heading unit's end, its level and title, and where the body text starts on
        the line (the line's end when none does); None when the line is not a heading."""
        start, end = line
        m = _NUMBERED.match(self.text, start, end)
        if not m or m.end() != end:
            return None
        number, dot, rest = m.group(1), m.group(2), m.group(3)
        multi = "." in number
        if not multi and (not dot or neighbours_listed or not prev_blank):
            return None
        if not _TITLE_START.match(rest):
            return None
        level = number.count(".") + 2
        rest_start = m.start(3)
        if _is_short_title(rest):
            return end, level, f"{number} {rest.rstrip('.:')}", end
        first = _SENTENCE_END.search(rest)
        if first and len(rest[: first.start()].split()) <= MAX_INLINE_TITLE_WORDS:
            title_end = rest_start + first.end()
            return title_end, level, f"{number} {rest[: first.start()]}", title_end
        return (m.end(2) if dot else m.end(1)), level, number, rest_start

    @staticmethod
    def join_lines(
        para: list[tuple[int, int]], lines: list[str], starts: list[int], first: int, stop: int
    ) -> None:
        """Add plain lines ``first..stop-1`` to the paragraph: the first and the last."""
        for i in (first, stop - 1) if stop - first > 1 else (first,):
            para.append((starts[i], starts[i] + len(lines[i])))

    def simple_stretch(
        self,
        lines: list[str],
        starts: list[int],
        simple: list[int],
        heads: dict[int, tuple[int, str]],
    ) -> None:
        """Read lines ``simple[0]..simple[-1]`` outside a code fence and with no paragraph open,
        where ``simple`` are the only blank and ``#`` heading lines (``heads``: level and title)
        and the others plain: each run of plain lines between two is a paragraph (the next blank
        or heading line ends it). As :meth:`add_prose` and :meth:`add_heading` would, inline."""
        units, prose, headings, clock = self.units, self.prose, self.headings, self.heading_clock
        block = self.block
        prev = simple[0] - 1
        for i in simple:
            if i > prev + 1:  # a run of plain lines since the last
                block += 1
                end = starts[i - 1] + len(lines[i - 1])
                prose.append((starts[prev + 1], end, 0, block, len(units)))
            head = heads.get(i)
            if head is not None:
                line = lines[i]
                s = starts[i]
                k = len(units)
                clock[k] = len(prose)
                headings[k] = _heading(s, s + len(line), *head)
                block += 1
                units.append((s, s + len(line.rstrip()), "heading", block))  # starts with "#"
            prev = i
        self.block = block

    def run(self) -> None:
        text = self.text
        lines, starts = _lines(text)
        # The paragraph's lines, ``(start, end)``: of a run of plain lines only the first and the
        # last, all that is read of it (where it starts and ends, whether it is a single line).
        para: list[tuple[int, int]] = []
        para_kind = "sentence"
        fence: str | None = None
        fence_start = 0

        def flush() -> None:
            nonlocal para, para_kind
            if para:
                s, e = para[0][0], para[-1][1]
                if para_kind == "sentence":
                    self.add_prose(s, e)
                else:
                    marker = _LIST_ITEM.match(text, s, e)
                    self.add_prose(s, e, skip=marker.end() - s if marker else 0)
            para, para_kind = [], "sentence"

        # Only lines a rule may read specially go through the rules one by one; a run of plain
        # lines between them closes any table and joins the paragraph (or the open code fence).
        # Blank lines and ``#`` heading lines (the most common) are read a stretch at a time.
        special = [i for i, m in enumerate(map(_PLAIN.match, lines)) if m is None]
        heads = {i: h for i in special if lines[i][:1] == "#" and (h := _atx(lines[i]))}
        simple = [i for i in special if i in heads or not lines[i].strip()]
        others = [i for i in special if i not in heads and lines[i].strip()] if simple else special
        done = 0  # lines before this one are read
        at = 0  # the next simple line, in ``simple``
        for i in [*others, len(lines)]:
            if at < len(simple) and simple[at] < i:
                stop = bisect_left(simple, i, at)
                if fence is None:
                    # The plain lines before the first join the paragraph, which it ends.
                    if simple[at] > done:
                        self.join_lines(para, lines, starts, done, simple[at])
                    flush()
                    self.simple_stretch(lines, starts, simple[at:stop], heads)
                done = simple[stop - 1] + 1
                at = stop
                self.table_open = False
            if i == len(lines):
                break
            if i > done:
                self.table_open = False  # closed by a plain line
                if fence is None:
                    self.join_lines(para, lines, starts, done, i)
            done = i + 1
            line = lines[i]
            s = starts[i]
            e = s + len(line)
            if not _TABLE_ROW.match(line) and not _TABLE_RULE.match(line):
                self.close_table()
            if fence is not None:
                if line.lstrip().startswith(fence):
                    self.add_block(fence_start, e, "code")
                    fence = None
                continue
            if m := _FENCE.match(line):
                flush()
                fence, fence_start = m.group(1)[:3], s
                continue
            if m := _ATX.match(line):
                flush()
                self.add_heading(s, e, len(m.group(1)), m.group(2))
                continue
            if _ATX_EMPTY.match(line):
                flush()
                continue
            if _SETEXT.match(line) and len(para) == 1 and para_kind == "sentence":
                ps, pe = para[0]
                if len(text[ps:pe].strip()) <= 80 and not _DECORATION.match(text[ps:pe]):
                    para = []
                    self.add_heading(
                        ps, pe, 1 if line.strip()[0] == "=" else 2, text[ps:pe].strip()
                    )
                    continue
            if _TABLE_RULE.match(line) and self.table_open and self.mark_header():
                continue
            if _DECORATION.match(line) or _TABLE_RULE.match(line):
                flush()
                self.close_table()
                continue
            # Only a line that starts with a number can be a numbered heading.
            if _NUMBERED.match(line):
                prev_blank = i == 0 or not lines[i - 1].strip()
                listed = any(
                    0 <= j < len(lines)
                    and _NUMBERED.match(lines[j]) is not None
                    and _LIST_ITEM.match(lines[j]) is not None
                    for j in (i - 1, i + 1)
                )
                numbered = self.numbered_heading((s, e), prev_blank or not para, listed)
                if numbered is not None:
                    flush()
                    heading_end, level, title, body = numbered
                    self.add_heading(s, heading_end, level, title)
                    # The body may start on the heading's line and run on over the next lines.
                    para = [(body, e)] if text[body:e].strip() else []
                    continue
            if _TABLE_ROW.match(line):
                flush()
                self.add_row(s, e, _cells(text, s, e))
                continue
            if _LIST_ITEM.match(line):
                flush()
                para, para_kind = [(s, e)], "item"
                continue
            para.append((s, e))
        if done < len(lines):
            self.close_table()
            if fence is None:
                self.join_lines(para, lines, starts, done, len(lines))
        flush()
        if fence is not None:
            self.add_block(fence_start, len(text), "code")


def _split_title(headings: dict[int, Heading]) -> tuple[str | None, int | None]:
    """The document title: a single level-1 heading that is the document's first unit (text
    before it would otherwise join the preamble across the title)."""
    if 0 not in headings:
        return None, None
    top = [i for i, h in headings.items() if h.level == 1]
    if top == [0] and len(headings) > 1:
        return headings[0].label, 0
    return None, None


def _provision_level(headings: dict[int, Heading], title_unit: int | None) -> int:
    """Headings at this level or deeper (or numbered x.y) are provisions."""
    shown = [h for i, h in headings.items() if i != title_unit]
    if not shown:
        return 99
    if any(h.level >= 3 or (h.number and "." in h.number) for h in shown):
        return 3
    return max(h.level for h in shown)


def parse_document(text: str, name: str = "document") -> Document:
    """Parse ``text`` (markdown or plain) into units, provisions and resolved cross-references."""
    parser = _Markdown(text)
    parser.run()
    return parser.document(name)


def _cells(text: str, start: int, end: int) -> tuple[tuple[int, int], ...]:
    """The trimmed ranges of a pipe-table row's cells (``\\|`` is a pipe inside a cell); the
    blank pieces outside the outer pipes are not cells."""
    bars = [start - 1, *(m.start() for m in _CELL_BAR.finditer(text, start, end)), end]
    pieces = [_trim(text, a + 1, b) for a, b in pairwise(bars)]
    if pieces and pieces[0][0] == pieces[0][1]:
        pieces = pieces[1:]
    if pieces and pieces[-1][0] == pieces[-1][1]:
        pieces = pieces[:-1]
    return tuple(pieces)


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


def _structure(
    builder: UnitBuilder, columns: Columns, name: str, format: str, tables: tuple[Table, ...]
) -> Document:
    text = builder.text
    headings = builder.headings
    title, title_unit = _split_title(headings)
    provision_level = _provision_level(headings, title_unit)

    # The units between two headings are a block (the title, unit 0 when there is one, in none):
    # its heading, the heading's unit, and the range of units under it.
    n = len(columns[0])
    cuts = sorted(i for i in headings if i != title_unit)
    blocks = [(None, None, 0 if title_unit is None else 1, cuts[0] if cuts else n)]
    blocks += [(headings[i], i, i + 1, stop) for i, stop in zip(cuts, [*cuts[1:], n], strict=False)]

    provisions: list[Provision] = []
    unit_provision = [-1] * n
    stack: list[Heading] = []
    paths: list[str] = []  # the heading path down to each heading of the stack
    for h, heading_unit, first, stop in blocks:
        if h is not None:
            while stack and stack[-1].level >= h.level:
                stack.pop()
                paths.pop()
            paths.append(f"{paths[-1]}{PATH_SEPARATOR}{h.label}" if paths else h.label)
            stack.append(h)
        is_provision = h is not None and (
            h.level >= provision_level or (h.number and "." in h.number)
        )
        if first >= stop and not is_provision:
            continue
        index = len(provisions)
        if first >= stop:  # an empty body: where it would start
            first = stop = (heading_unit or 0) + 1
        provisions.append(
            _new_provision(
                index,
                h.number if h else None,  # id
                h.title if h else "",
                paths[-1] if h is not None else "",  # path
                paths[0] if h is not None else "",  # section: the top heading's label
                heading_unit,
                first,
                stop,
            )
        )
        unit_provision[first:stop] = [index] * (stop - first)
        if heading_unit is not None:
            unit_provision[heading_unit] = index

    units = _make_units(columns, unit_provision)
    starts, ends = tuple(columns[0]), list(columns[1])
    doc = Document(
        name=name,
        text=text,
        title=title,
        units=units,
        provisions=tuple(provisions),
        references=_references(text, units, provisions),
        unit_starts=starts,
        tables=tables,
        format=format,
        problems=tuple(builder.problems),
    )
    # The columns chunking reads first, filled in as their properties would compute them.
    doc.__dict__.update(unit_ends=ends, unit_provisions=unit_provision)
    return doc


# Where a reference can start: at a ``§``, or at the letter before an "ection" of the lowercased
# text (in "section", ``(?i:i)`` also matches the dotless ı); each needle with how far before it
# the reference starts.
_REFERENCE_NEEDLES = (("\u00a7", 0), ("ection", 1), ("ect\u0131on", 1))
# The same in a Latin-1 text's bytes (the dotless ı is none of its characters).
_REFERENCE_BYTE_NEEDLES = ((b"\xa7", 0), (b"ection", 1))


def _lowered(text: str) -> str | bytes | None:
    """Where :func:`_reference_candidates` looks for the needles: ``text`` lowercased, or, for
    a Latin-1 text, its bytes with the ASCII letters lowered (no other character lowers to a
    needle's, and ``str.lower`` is several times slower there than on ASCII); None when a
    letter lowers to two (only ``İ`` does), so that positions differ."""
    if text.isascii():
        return text.lower()
    if "\u0130" in text:
        return None
    try:
        return text.encode("latin-1").lower()
    except UnicodeEncodeError:
        return text.lower()


def _reference_candidates(low: str | bytes) -> tuple[list[int], list[int]]:
    """Where a match of :data:`_REFERENCE` can start in the text ``low`` is :func:`_lowered`
    from, in order, and where the text must reach for each (its needle's end)."""
    found = []
    for needle, back in _REFERENCE_NEEDLES if isinstance(low, str) else _REFERENCE_BYTE_NEEDLES:
        at = low.find(needle)
        while at >= 0:
            found.append((at - back, at + len(needle)))
            at = low.find(needle, at + 1)
    found.sort()
    return [c for c, _ in found], [reach for _, reach in found]


def _reference_matches(
    text: str,
    low: str | bytes | None,
    start: int,
    end: int,
    candidates: tuple[list[int], list[int]] | None = None,
) -> Iterator[re.Match]:
    """The matches of :data:`_REFERENCE` in ``text[start:end]``, left to right. ``low`` is
    :func:`_lowered` of ``text`` (or ``text.lower()`` when as long): unless None, a match starts
    only at one of its :func:`_reference_candidates` (given, or found here), so the pattern is
    tried there alone."""
    if low is None:
        yield from _REFERENCE.finditer(text, start, end)
        return
    starts, reaches = candidates if candidates is not None else _reference_candidates(low)
    resume = start
    for k in range(bisect_left(starts, start), bisect_left(starts, end)):
        at = starts[k]
        if reaches[k] <= end and at >= resume and (m := _REFERENCE.match(text, at, end)):
            yield m
            resume = m.end()


def _references(
    text: str, units: tuple[Unit, ...], provisions: list[Provision]
) -> tuple[Reference, ...]:
    """Resolve ``Section x.y`` / ``Sections a, b and c`` / ``§ x.y`` inside provision bodies."""
    by_id: dict[str, int] = {}
    for p in provisions:
        if p.id is not None:
            by_id.setdefault(p.id, p.index)
    refs: list[Reference] = []
    low = _lowered(text)
    # Each provision's body: its index and character range, in document order.
    bodies = [
        (p.index, units[p.first].start, units[p.stop - 1].end)
        for p in provisions
        if p.first < p.stop
    ]
    candidates = None
    if low is not None:
        candidates = _reference_candidates(low)
        # Only the bodies a candidate may lie in (the last starting at or before it) are read.
        body_starts = [start for _, start, _ in bodies]
        holding = {bisect_right(body_starts, c) - 1 for c in candidates[0]}
        bodies = [bodies[k] for k in sorted(holding) if k >= 0]
    for index, start, end in bodies:
        for m in _reference_matches(text, low, start, end, candidates):
            numbers = [m.group(1), *_REFERENCE_TAIL.findall(m.group(2) or "")]
            for number in numbers:
                target = by_id.get(number)
                if target is not None and target != index:
                    refs.append(_new_reference(m.start(), m.end(), index, target))
    return tuple(sorted(refs, key=lambda r: r.start))
