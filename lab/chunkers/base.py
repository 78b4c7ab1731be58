"""The chunk contract shared by every chunker, and the registry that names them."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from operator import sub
from typing import NamedTuple

from ..parse import Document, Table, TableRow, Unit

REFERENCE_CHARS = 320
REFERENCE_MARK = "\u21b3"
# Where the text of a cited provision goes: into the chunk and its budget, into the index only
# (retrieval matches it, the context never carries it), or nowhere.
REFERENCE_PLACEMENTS = ("delivered", "index-only", "off")


def reference_placement(refs: str = "delivered") -> str:
    """``refs`` if it names a placement (``REFERENCE_PLACEMENTS``); else a ValueError."""
    if refs not in REFERENCE_PLACEMENTS:
        raise ValueError(f"refs must be one of {', '.join(REFERENCE_PLACEMENTS)}, got {refs!r}")
    return refs


def references_switched(refs: str, on: bool) -> str:
    """The placement ``refs`` with references switched on or off: off is "off"; on keeps
    ``refs``, or "delivered" where ``refs`` is "off". What an old link's on/off switch
    ``resolve_refs=true|false`` says beside ``refs`` (read only where old links are translated:
    ``lab.compare``, ``ui.link_notices``), and the chunk graph's other graph to compare with."""
    reference_placement(refs)
    if not on:
        return "off"
    return "delivered" if refs == "off" else refs


class ChunkerFailed(ValueError):
    """A chunker the user brought (a plugin) failed, or returned what the lab cannot use."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable piece of a document.

    ``source`` lists the ``[start, end)`` ranges of the document whose text ``text`` contains:
    first the body, then any delivered reference text. ``text[len(prefix):]`` starts with
    ``document.text[source[0][0]:source[0][1]]``. ``words`` counts whitespace-separated words of
    ``text`` (prefix and delivered references included): it is what the context budget counts.
    ``search`` is what retrieval matches instead of ``text``, when it differs: parent-child's
    child, and references placed in the index only (appended there, not delivered).
    """

    id: str
    doc: int
    text: str
    source: tuple[tuple[int, int], ...]
    prefix: str
    provisions: tuple[int, ...]  # provisions the body touches
    prefix_provisions: tuple[int, ...]  # provisions named in the prefix
    cites: tuple[int, ...]  # provisions the body cites (resolved cross-references)
    words: int
    search: str | None = None  # what retrieval matches when it differs from ``text``
    search_source: tuple[int, int] | None = None  # the range ``search`` was cut from
    # Where pieces of the document sit in ``text`` when its source ranges are not laid out
    # verbatim: ``(start, end, position in text)`` (table rows: each cell after its column name).
    layout: tuple[tuple[int, int, int], ...] | None = None

    @property
    def search_text(self) -> str:
        """The text retrieval scores: the chunk itself, or the child a parent is delivered for."""
        return self.text if self.search is None else self.search

    @property
    def start(self) -> int:
        return self.source[0][0]

    @property
    def end(self) -> int:
        return self.source[0][1]

    @property
    def body_chars(self) -> int:
        return self.source[0][1] - self.source[0][0]


@dataclass(frozen=True, slots=True)
class Training:
    """Training evidence of one document: per question, the unit ranges ``(first, last)`` of its
    evidence spans, and (``queries``, when given) the question's tokens, for the chunkers that
    model retrieval."""

    questions: tuple[tuple[tuple[int, int], ...], ...] = ()
    queries: tuple[tuple[str, ...], ...] = ()

    @property
    def spans(self) -> tuple[tuple[int, int], ...]:
        """Distinct evidence spans, in unit terms."""
        return tuple(sorted({s for q in self.questions for s in q}))

    @property
    def groups(self) -> tuple[tuple[int, int], ...]:
        """For each multi-evidence question, the unit range its whole evidence needs."""
        return tuple(
            (min(s[0] for s in q), max(s[1] for s in q)) for q in self.questions if len(q) > 1
        )

    def renumbered(self, first_piece: tuple[int, ...]) -> Training:
        """The same evidence over pieces: unit ``u`` became pieces ``first_piece[u]`` to
        ``first_piece[u + 1] - 1``."""
        return Training(
            tuple(
                tuple((first_piece[a], first_piece[b + 1] - 1) for a, b in q)
                for q in self.questions
            ),
            self.queries,
        )


@dataclass(frozen=True, slots=True)
class Params:
    """What every chunker is given: the size limit ``L`` in characters, the window overlap, the
    training evidence, where cited provisions' text goes (``refs``, one of
    ``REFERENCE_PLACEMENTS``), an embedder (dense chunkers only), and the document's type with
    the collection's policy (``lab.collection.Policy``: the by-type chunker), and whether the
    heading guard is on (:mod:`lab.chunkers.guard`: the chunkers it names never cut between a
    heading and its first unit). Built once per index; per document only the training and type
    are replaced."""

    size: int
    overlap: int = 50
    training: Training = Training()
    refs: str = "delivered"
    embedder: object | None = None
    doc_type: str = "other"
    policy: object | None = None
    heading_guard: bool = False
    tokenizer: object | None = None  # lab.tokens.Tokenizer: size and overlap count its tokens

    def __post_init__(self) -> None:
        reference_placement(self.refs)

    @property
    def resolve_refs(self) -> bool:
        """Whether cited provisions are resolved at all (delivered or in the index only)."""
        return self.refs != "off"

    @property
    def length(self) -> Callable[[str], int]:
        """How long a text is in the unit ``size`` counts: its tokens, or ``len``."""
        return len if self.tokenizer is None else self.tokenizer.count


@dataclass(frozen=True, slots=True)
class Rendered:
    """A body delivered as other text than its range verbatim: ``text`` (``prefix`` included)
    holds the document's ``[start, end)`` pieces at the text positions ``layout`` gives, and
    delivers the ranges ``source``; ``named`` are the provisions its prefix names."""

    prefix: str
    text: str
    source: tuple[tuple[int, int], ...]
    layout: tuple[tuple[int, int, int], ...]
    named: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Plan:
    """What a chunker decides: body ranges in document order, plus anything it reports.

    ``parents``, when given, holds for each body the range delivered in its place (parent-child
    chunking retrieves the small body and delivers the parent). ``rendered`` maps a body's index
    to the text it is delivered as, when that is not its range verbatim (table rows)."""

    bodies: tuple[tuple[int, int], ...]
    objective: float | None = None
    path_prefix: bool = False  # structure chunks always carry their heading path
    resolve_refs: bool = False  # structure chunks append referenced provisions' text
    parents: tuple[tuple[int, int], ...] | None = None
    rendered: Mapping[int, Rendered] | None = None
    cuts: tuple[int, ...] = ()  # where units longer than L were split (piece ends)
    notes: tuple[str, ...] = ()  # what an adapter's library did that the ranges cannot show


@dataclass(frozen=True)
class ChunkerSpec:
    name: str
    label: str
    description: str
    plan: Callable[[Document, Params], Plan] = field(repr=False)
    supervised: bool = False
    order: int = 0
    dense: bool = False  # needs an embedder
    overlap: bool = False  # uses the overlap parameter
    units: bool = True  # cuts on units (a unit longer than L is split into pieces first)
    rows: bool = False  # renders table rows itself: they reach it whole, however long
    kind: str = "lab"  # "lab", "adapter" (another library's), "plugin" or "pipeline" (named)
    requires: tuple[str, ...] = ()  # modules it imports (adapters)
    install: str = ""  # the command that installs them


CHUNKERS: dict[str, ChunkerSpec] = {}


def register(
    name: str,
    label: str,
    description: str,
    *,
    order: int,
    supervised: bool = False,
    dense: bool = False,
    overlap: bool = False,
    units: bool = True,
    rows: bool = False,
    kind: str = "lab",
    requires: tuple[str, ...] = (),
    install: str = "",
):
    """Register a planner ``plan(doc, params) -> Plan``.

    ``order`` places the chunker in listings (simplest first); ``dense`` chunkers need an
    embedder; ``overlap`` chunkers use the overlap parameter; ``units`` chunkers cut on unit
    boundaries and are given a document whose units all fit in ``L`` (:func:`fit_units`), but
    for the table rows of a ``rows`` chunker, which splits those itself. ``kind`` says whose
    chunker it is; ``requires`` lists the modules it needs and ``install`` the command that
    brings them (where they are missing it is listed as unavailable: :func:`chunker_status`)."""

    def wrap(fn):
        CHUNKERS[name] = ChunkerSpec(
            name,
            label,
            description,
            fn,
            supervised,
            order,
            dense,
            overlap,
            units,
            rows,
            kind,
            requires,
            install,
        )
        ordered = sorted(CHUNKERS.values(), key=lambda spec: spec.order)
        CHUNKERS.clear()
        CHUNKERS.update((spec.name, spec) for spec in ordered)
        return fn

    return wrap


def missing_modules(spec: ChunkerSpec) -> list[str]:
    """The modules ``spec`` needs that are not importable here (no import of theirs happens;
    a dotted name's parent package is imported to look inside it)."""
    return [m for m in spec.requires if not _importable(m)]


def _importable(module: str) -> bool:
    """Whether ``module`` can be imported: ``find_spec`` of ``a.b`` raises when ``a`` itself is
    not installed, which means the same as finding nothing."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def chunker_status(name: str) -> tuple[bool, str]:
    """Whether the chunker ``name`` can run here, and if not, what to install."""
    spec = CHUNKERS[name]
    missing = missing_modules(spec)
    if not missing:
        return True, ""
    return False, f"{name} needs {' and '.join(missing)}: `{spec.install}`"


def unit_span(doc: Document, first: int, stop: int) -> tuple[int, int]:
    """Character range covered by units ``first..stop-1``."""
    return doc.units[first].start, doc.units[stop - 1].end


def pack_units(
    doc: Document, first: int, stop: int, size: int, overlap: int = 0
) -> list[tuple[int, int]]:
    """Pack whole units ``first..stop-1`` into runs spanning at most ``size`` characters.

    When the next unit does not fit, the run closes and the next one starts with the closing run's
    trailing units whose joined span stays within ``overlap`` (when the next unit still fits after
    them). A unit longer than ``size`` forms a run alone. Returns unit index ranges ``(a, b)``.
    """
    units = doc.units
    runs: list[tuple[int, int]] = []
    a = first
    i = first
    while i < stop:
        if i > a and units[i].end - units[a].start > size:
            runs.append((a, i))
            b = i
            if overlap > 0:
                while b - 1 > a and units[i - 1].end - units[b - 1].start <= overlap:
                    b -= 1
                if b < i and units[i].end - units[b].start > size:
                    b = i
            a = b
            continue
        i += 1
    if a < stop:
        runs.append((a, stop))
    return runs


_CLAUSE_END = re.compile(r"[,;:]+[\"'\u201d\u2019)\]]*(?=\s)|(?<=\s)[\u2013\u2014-](?=\s)")
_SPACE = re.compile(r"\s+")
_LINE_BREAK = re.compile(r"\n")
_CELL_BAR = re.compile(r"(?<!\\)(?=\|)")  # just before a table row's cell separator


def split_long(text: str, start: int, end: int, size: int, kind: str = "sentence") -> list[int]:
    """Where to cut ``text[start:end]`` so that no piece is longer than ``size``: piece ends, in
    order (the last is ``end``); the next piece starts at the next non-space character.

    Cuts fall, by preference, at line breaks (code blocks only) or before a cell's ``|`` (table
    rows only), after clause punctuation (``,;:`` or a spaced dash), then between words, each
    time as close as possible to an even share of what is left, and never in the first half of
    a piece when a line break, a cell or punctuation is the reason; a single word longer than
    ``size`` is cut at ``size``. Linear in the length."""
    ends: list[int] = []
    first = {"code": [_LINE_BREAK], "row": [_CELL_BAR]}.get(kind, [])
    preferences = [*first, _CLAUSE_END]
    while end - start > size:
        share = (end - start) / -(-(end - start) // size)  # an even share of the pieces left
        target = start + share
        cut = None
        for pattern in preferences:
            found = [m.end() for m in pattern.finditer(text, start + size // 2, start + size + 1)]
            found = [c for c in found if start < c <= start + size]
            if found:
                cut = min(found, key=lambda c: (abs(c - target), -c))
                break
        if cut is None:
            gaps = [m.start() for m in _SPACE.finditer(text, start + 1, start + size + 1)]
            gaps = [g for g in gaps if g > start]
            cut = min(gaps, key=lambda g: (abs(g - target), -g)) if gaps else start + size
        text_end = cut
        while text_end > start and text[text_end - 1].isspace():
            text_end -= 1
        ends.append(text_end)
        start = cut
        while start < end and text[start].isspace():
            start += 1
    ends.append(end)
    return ends


class Fit(NamedTuple):
    """A document whose units fit in ``L``: ``cuts`` are the piece ends where a longer unit was
    split, and unit ``u`` of the original became pieces ``first_piece[u]`` to
    ``first_piece[u + 1] - 1``."""

    doc: Document
    cuts: tuple[int, ...]
    first_piece: tuple[int, ...]


def fit_units(doc: Document, size: int, whole: Collection[int] = ()) -> Fit:
    """``doc`` with every unit longer than ``size`` characters split into pieces that fit
    (:func:`split_long`). Pieces keep their unit's kind, provision and block; provisions and
    tables are renumbered to the pieces (a split table row is known by its first piece);
    heading lines and the units ``whole`` names stay whole. The document itself comes back
    when every unit fits."""
    units = doc.units
    long = [u for u, n in enumerate(map(sub, doc.unit_ends, doc.unit_starts)) if n > size]
    long = [u for u in long if units[u].kind != "heading" and u not in whole]
    if not long:
        return Fit(doc, (), tuple(range(len(units) + 1)))
    pieces: list[Unit] = []
    first_piece: list[int] = []
    cuts: list[int] = []
    done = 0  # units before this one are placed
    for i in long:
        # Units that fit stay as they are, one piece each.
        first_piece.extend(range(len(pieces), len(pieces) + i - done))
        pieces.extend(units[done:i])
        first_piece.append(len(pieces))
        done = i + 1
        u = units[i]
        start = u.start
        ends = split_long(doc.text, u.start, u.end, size, u.kind)
        for end in ends:
            pieces.append(Unit(start, end, u.kind, u.provision, u.block))
            start = end
            while start < u.end and doc.text[start].isspace():
                start += 1
        cuts.extend(ends[:-1])
    first_piece.extend(range(len(pieces), len(pieces) + len(units) - done))
    pieces.extend(units[done:])
    first_piece.append(len(pieces))

    def moved(p):
        heading = None if p.heading is None else first_piece[p.heading]
        return replace(p, heading=heading, first=first_piece[p.first], stop=first_piece[p.stop])

    def row(r: TableRow | None) -> TableRow | None:
        return None if r is None else replace(r, unit=first_piece[r.unit])

    fitted = replace(
        doc,
        units=tuple(pieces),
        provisions=tuple(moved(p) for p in doc.provisions),
        unit_starts=tuple(u.start for u in pieces),
        tables=tuple(Table(row(t.header), tuple(map(row, t.rows))) for t in doc.tables),
    )
    return Fit(fitted, tuple(cuts), tuple(first_piece))


def fitted_plan(spec: ChunkerSpec, doc: Document, params: Params) -> Plan:
    """``spec``'s plan of ``doc``. A chunker that cuts on units plans the document
    :func:`fit_units` makes (training evidence renumbered to its pieces), and the plan's
    ``cuts`` say where long units were split, its own cuts (a ``rows`` chunker's long rows)
    included."""
    if not spec.units:
        return spec.plan(doc, params)
    whole = {r.unit for t in doc.tables for r in (t.header, *t.rows) if r is not None}
    fitted, cuts, first_piece = fit_units(doc, params.size, whole if spec.rows else ())
    if not cuts:
        return spec.plan(doc, params)
    plan = spec.plan(fitted, replace(params, training=params.training.renumbered(first_piece)))
    return replace(plan, cuts=tuple(sorted({*cuts, *plan.cuts})))
