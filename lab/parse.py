"""A document's records: units, headings, provisions, tables and cross-references.

Units are the atoms every chunker cuts on: sentences, heading lines, list items, table rows and
code blocks, each with ``[start, end)`` offsets into the original text. A provision is a heading at
level 3 or deeper (or a numbered ``x.y`` heading) with the units under it; section text before
the first provision becomes a provision of its own, and text before any heading is the preamble.
A table is a run of row units; a row followed by a ``|---|`` rule is its header, and every row
keeps the ranges of its cells. Every format's reader (:mod:`lab.formats`) feeds a
:class:`UnitBuilder`.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate, chain, count, pairwise, repeat
from operator import add
from typing import NamedTuple

from .sentences import Breaks, _sentences, _trim, sentence_breaks
from .text import tokenize, tokenize_many

PATH_SEPARATOR = " \u203a "


_CELL_BAR = re.compile(r"(?<!\\)\|")
_LEADING_NUMBER = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?(?=\s|$)")
# The leading look-ahead only lets the engine skip to the letters a reference can start with
# (``(?i:s)`` matches s, S and the long s).
_REFERENCE = re.compile(
    r"(?=[Ss\u017f\u00a7])(?:\b(?i:sections?)|\u00a7\u00a7?)\s*(\d+(?:\.\d+)*)(?:\([A-Za-z0-9]+\))*"
    r"((?:\s*(?:,|\band\b|\bor\b|&|\bto\b)\s*(?:\u00a7\s*)?\d+(?:\.\d+)*(?:\([A-Za-z0-9]+\))*)*)"
)
_REFERENCE_TAIL = re.compile(r"\d+(?:\.\d+)*")


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
    format: str = "text"  # a name in ``lab.formats.FORMATS``; for HTML ``text`` is extracted
    problems: tuple[str, ...] = ()  # what the parser read leniently (ragged tables, bad HTML)
    headings: tuple[Heading, ...] = ()  # every heading the reader found, in order (the outline)
    pages: int = 0  # a paged format's (PDF) page count, 0 for the others
    page_starts: tuple[int, ...] = ()  # where each page after the first starts in ``text``

    def page_at(self, pos: int) -> int | None:
        """The page (from 1) that offset ``pos`` of the text is on, None when unpaged."""
        return bisect_right(self.page_starts, pos) + 1 if self.pages else None

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
        self.pages = 0  # a paged format's page count
        self.page_starts: tuple[int, ...] = ()

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
        breaks = sentence_breaks(self.text, start, end)
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

    def document(self, name: str, format: str = "text") -> Document:
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
        headings=tuple(headings[i] for i in sorted(headings)),
        pages=builder.pages,
        page_starts=builder.page_starts,
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
