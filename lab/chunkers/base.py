"""The chunk contract shared by every chunker, and the registry that names them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..parse import Document

REFERENCE_CHARS = 320
REFERENCE_MARK = "\u21b3"


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable piece of a document.

    ``source`` lists the ``[start, end)`` ranges of the document whose text ``text`` contains:
    first the body, then any resolved reference text. ``text[len(prefix):]`` starts with
    ``document.text[source[0][0]:source[0][1]]``. ``words`` counts whitespace-separated words of
    ``text`` (prefix and references included): it is what the context budget counts.
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
    search: str | None = None  # what retrieval matches when it differs from ``text`` (parent-child)
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
    evidence spans."""

    questions: tuple[tuple[tuple[int, int], ...], ...] = ()

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


@dataclass(frozen=True, slots=True)
class Params:
    """What every chunker is given: the size limit ``L`` in characters, the window overlap, the
    training evidence, whether references are resolved, an embedder (dense chunkers only), and
    the document's type with the collection's policy (``lab.collection.Policy``: the by-type
    chunker)."""

    size: int
    overlap: int = 50
    training: Training = Training()
    resolve_refs: bool = True
    embedder: object | None = None
    doc_type: str = "other"
    policy: object | None = None


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
):
    """Register a planner ``plan(doc, params) -> Plan``.

    ``order`` places the chunker in listings (simplest first); ``dense`` chunkers need an
    embedder; ``overlap`` chunkers use the overlap parameter."""

    def wrap(fn):
        CHUNKERS[name] = ChunkerSpec(
            name, label, description, fn, supervised, order, dense, overlap
        )
        ordered = sorted(CHUNKERS.values(), key=lambda spec: spec.order)
        CHUNKERS.clear()
        CHUNKERS.update((spec.name, spec) for spec in ordered)
        return fn

    return wrap


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
