"""Chunkers: one file each, one signature, one registry (:data:`CHUNKERS`)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import replace
from itertools import chain, repeat

import numpy as np

from ..parse import Document, fast_constructor
from . import (  # noqa: F401  (register the chunkers)
    adapters,
    by_type,
    parent_child,
    qes_dp,
    qes_greedy,
    qes_retrieval,
    recursive,
    semantic,
    structure,
    table_rows,
    windows,
)
from .base import (
    CHUNKERS,
    REFERENCE_CHARS,
    REFERENCE_MARK,
    REFERENCE_PLACEMENTS,
    Chunk,
    ChunkerSpec,
    Params,
    Plan,
    Rendered,
    Training,
    chunker_status,
    fitted_plan,
    reference_placement,
    references_switched,
)
from .guard import GUARDED

__all__ = [
    "CHUNKERS",
    "GUARDED",
    "REFERENCE_PLACEMENTS",
    "Chunk",
    "ChunkerSpec",
    "Params",
    "Plan",
    "Rendered",
    "Training",
    "chunk_document",
    "chunker_status",
    "reference_placement",
    "references_switched",
    "token_sized_plan",
]


_new_chunk = fast_constructor(Chunk)  # a document's chunks: thousands

# 1 for the Latin-1 characters ``str.split`` splits at, 0 for the others, by code.
_LATIN_SPACE = bytes(chr(c).isspace() for c in range(256))


def word_counts(text: str, spans: Sequence[tuple[int, int]]) -> list[int]:
    """``len(text[start:end].split())`` of each span. When the spans cover most of a Latin-1
    text, its word starts are found in one numpy pass (splitting a megabyte into words takes
    several times longer)."""
    covered = sum(end - start for start, end in spans)
    if len(spans) < 64 or covered < len(text) // 2 or not text:
        return [len(text[a:b].split()) for a, b in spans]
    try:
        data = text.encode("latin-1")
    except UnicodeEncodeError:
        return [len(text[a:b].split()) for a, b in spans]
    solid = np.frombuffer(data.translate(_LATIN_SPACE), dtype=np.uint8) == 0
    first = solid.copy()  # where a word starts
    first[1:] &= ~solid[:-1]
    word_starts = np.flatnonzero(first)
    bounds = np.fromiter(chain.from_iterable(spans), dtype=np.int64, count=2 * len(spans))
    starts, ends = bounds[0::2], bounds[1::2]
    # The words starting inside a span, and one more when it starts inside a word.
    at = np.minimum(starts, len(text) - 1)
    inside = solid[at] & ~first[at] & (starts < ends)
    counts = word_starts.searchsorted(ends) - word_starts.searchsorted(starts) + inside
    return counts.tolist()


def touched_provisions(doc: Document, start: int, end: int) -> tuple[int, ...]:
    """Provisions owning a unit that overlaps ``[start, end)``, in document order."""
    return _touched(doc, [(start, end)])[0]


def _touched(doc: Document, spans: Sequence[tuple[int, int]]) -> list[tuple[int, ...]]:
    """:func:`touched_provisions` of each span (the units' ranges bisected for all at once when
    there are many)."""
    starts, ends, owners = doc.unit_starts, doc.unit_ends, doc.unit_provisions
    if len(spans) < 64 or not starts:
        firsts, stops = [], []
        for start, end in spans:
            first = max(bisect_right(starts, start) - 1, 0)  # the unit at ``start`` (``unit_at``)
            stop = bisect_left(starts, end)
            if first < stop and ends[first] <= start:  # units after it start after ``start``
                first += 1
            firsts.append(first)
            stops.append(stop)
    else:
        bounds = np.fromiter(chain.from_iterable(spans), dtype=np.int64, count=2 * len(spans))
        unit_starts = np.array(starts, dtype=np.int64)
        first = np.maximum(unit_starts.searchsorted(bounds[0::2], "right") - 1, 0)
        stop = unit_starts.searchsorted(bounds[1::2], "left")
        first += (first < stop) & (np.array(ends, dtype=np.int64)[first] <= bounds[0::2])
        firsts, stops = first.tolist(), stop.tolist()
    found = []
    for first, stop in zip(firsts, stops, strict=True):
        touched = dict.fromkeys(owners[first:stop])
        touched.pop(-1, None)
        found.append(tuple(touched))
    return found


def cited_provisions(doc: Document, start: int, end: int) -> tuple[int, ...]:
    """Targets of the cross-references inside ``[start, end)``, first mention first."""
    return _cited(doc, [(start, end)])[0]


def _cited(doc: Document, spans: Sequence[tuple[int, int]]) -> list[tuple[int, ...]]:
    """:func:`cited_provisions` of each span (the references bisected for all at once when
    there are many spans)."""
    refs = doc.references
    if not refs:
        return [()] * len(spans)
    at = doc.reference_starts
    if len(spans) < 64:
        ranges = [(bisect_left(at, start), bisect_left(at, end)) for start, end in spans]
    else:
        bounds = np.fromiter(chain.from_iterable(spans), dtype=np.int64, count=2 * len(spans))
        ranges = np.array(at, dtype=np.int64).searchsorted(bounds).reshape(-1, 2).tolist()
    targets = [r.target for r in refs]
    return [
        tuple(dict.fromkeys(targets[first:stop])) if first < stop else () for first, stop in ranges
    ]


def reference_excerpt(
    doc: Document, provision: int, limit: int = REFERENCE_CHARS
) -> tuple[int, int] | None:
    """Up to ``limit`` characters of a provision's body, cut back to a word boundary."""
    span = doc.body_span(doc.provisions[provision])
    if span is None:
        return None
    start, end = span
    if end - start > limit:
        cut = doc.text.rfind(" ", start, start + limit + 1)
        end = cut if cut > start else start + limit
        while end > start and doc.text[end - 1].isspace():
            end -= 1
    return start, end


MIN_SIZE = 20  # characters: the smallest L the lab's own chunkers are run with


def token_sized_plan(spec: ChunkerSpec, doc: Document, params: Params) -> Plan:
    """The plan of a chunker that counts characters, sized so that no body holds more than
    ``params.size`` tokens of ``params.tokenizer``: the largest character size (found by
    bisection between ``MIN_SIZE`` and ten characters a token) at which every body fits, the
    overlap scaled with it. Where none fits, the plan at ``MIN_SIZE``."""
    tokenizer, size, overlap = params.tokenizer, params.size, params.overlap

    def plan_at(chars: int) -> tuple[Plan, bool]:
        shared = replace(params, size=chars, overlap=overlap * chars // size, tokenizer=None)
        plan = fitted_plan(spec, doc, shared)
        counts = tokenizer.counts([doc.text[s:e] for s, e in plan.bodies])
        return plan, max(counts, default=0) <= size

    lo, hi = MIN_SIZE, max(MIN_SIZE, 10 * size)
    best, fits = plan_at(hi)
    if fits:
        return best
    best = None
    while lo < hi:
        mid = (lo + hi) // 2
        plan, fits = plan_at(mid)
        if fits:
            best, lo = plan, mid + 1
        else:
            hi = mid
    return best if best is not None else plan_at(MIN_SIZE)[0]


def plan_document(spec: ChunkerSpec, doc: Document, params: Params) -> Plan:
    """``spec``'s plan of ``doc``: adapters and plugins measure with ``params.tokenizer``
    themselves; the lab's own chunkers are sized to it by :func:`token_sized_plan`."""
    if params.tokenizer is None or spec.kind != "lab":
        return fitted_plan(spec, doc, params)
    return token_sized_plan(spec, doc, params)


def chunk_document(
    doc: Document,
    doc_index: int,
    chunker: str,
    params: Params,
    *,
    headers: bool = False,
    first_id: int = 0,
) -> tuple[list[Chunk], Plan]:
    """Chunk one document with a registered chunker and build each chunk's delivered text.

    ``params`` (:class:`~lab.chunkers.base.Params`) is what the chunker is given: the size and
    overlap (with ``params.tokenizer``, in its tokens: :func:`plan_document`), the training, the
    document's type and the collection's policy (the by-type chunker), the heading guard, and
    ``params.refs``, where the text of cited provisions goes for chunkers that resolve
    references: "delivered" (appended to the chunk), "index-only" (appended to what retrieval
    matches only) or "off". Chunkers that cut on units see the document with every unit longer
    than the size split into pieces that fit (:func:`~lab.chunkers.base.fitted_plan`); the plan's
    ``cuts`` say where. ``headers`` puts each chunk's heading path before its text; chunk ids
    count from ``first_id``."""
    plan = plan_document(CHUNKERS[chunker], doc, params)
    text = doc.text
    provisions = doc.provisions
    delivered_spans = plan.parents if plan.parents else plan.bodies
    all_touched = _touched(doc, delivered_spans)
    all_cites = _cited(doc, delivered_spans)
    verbatim = word_counts(text, delivered_spans)  # the words of each body as it stands
    if (
        not plan.rendered
        and not plan.parents
        and not (plan.path_prefix or headers)
        and not (plan.resolve_refs and any(all_cites))
    ):
        # Every chunk is its body verbatim, with nothing before or after it.
        return _verbatim_chunks(
            text, chunker, doc_index, first_id, plan.bodies, all_touched, all_cites, verbatim
        ), plan
    chunks = []
    for k, piece in enumerate(plan.bodies):
        if plan.rendered and k in plan.rendered:
            chunk_id = f"{chunker}-{first_id + k}"
            chunks.append(_rendered_chunk(doc, doc_index, chunk_id, piece, plan.rendered[k]))
            continue
        start, end = delivered_spans[k]
        touched = all_touched[k]
        named = (
            tuple(p for p in touched if provisions[p].path) if plan.path_prefix or headers else ()
        )
        prefix = "".join(f"[{provisions[p].path}] " for p in named) if named else ""
        cites = all_cites[k]
        cited, excerpts = [], []
        if plan.resolve_refs:
            for target in cites:
                excerpt = reference_excerpt(doc, target)
                if excerpt is None:
                    continue
                p = provisions[target]
                cited.append(f"{REFERENCE_MARK} Section {p.label}: {text[excerpt[0] : excerpt[1]]}")
                excerpts.append(excerpt)
        delivered = params.refs == "delivered"
        body = prefix + text[start:end]
        if cited and delivered:
            body = " ".join([body, *cited])
        source = [(start, end), *(excerpts if delivered else ())]
        search = None
        if plan.parents:
            child = tuple(p for p in touched_provisions(doc, *piece) if provisions[p].path)
            search = "".join(f"[{provisions[p].path}] " for p in child if headers)
            search += text[piece[0] : piece[1]]
        if cited and not delivered:
            search = " ".join([body if search is None else search, *cited])
        chunks.append(
            _new_chunk(
                f"{chunker}-{first_id + k}",  # id
                doc_index,
                body,  # text
                tuple(source),
                prefix,
                touched,  # provisions
                named,  # prefix_provisions
                cites,
                verbatim[k] if len(body) == end - start else len(body.split()),  # words
                search,
                piece if plan.parents else None,  # search_source
                None,  # layout
            )
        )
    return chunks, plan


def _verbatim_chunks(
    text: str,
    chunker: str,
    doc_index: int,
    first_id: int,
    bodies: Sequence[tuple[int, int]],
    touched: list[tuple[int, ...]],
    cites: list[tuple[int, ...]],
    words: list[int],
) -> list[Chunk]:
    """The chunks of ``bodies`` as :func:`chunk_document` builds them one by one when each is
    its body's text alone (no heading path, no reference text, no parent), built column by
    column."""
    n = len(bodies)
    return list(
        map(
            _new_chunk,
            [f"{chunker}-{k}" for k in range(first_id, first_id + n)],  # id
            repeat(doc_index, n),
            [text[start:end] for start, end in bodies],  # text
            [((start, end),) for start, end in bodies],  # source
            repeat("", n),  # prefix
            touched,  # provisions
            repeat((), n),  # prefix_provisions
            cites,
            words,
            repeat(None, n),  # search
            repeat(None, n),  # search_source
            repeat(None, n),  # layout
        )
    )


def _rendered_chunk(
    doc: Document, doc_index: int, chunk_id: str, piece: tuple[int, int], r: Rendered
) -> Chunk:
    """The chunk of a body the chunker renders itself (a table row with its column names)."""
    return Chunk(
        id=chunk_id,
        doc=doc_index,
        text=r.text,
        source=r.source,
        prefix=r.prefix,
        provisions=touched_provisions(doc, *piece),
        prefix_provisions=r.named,
        cites=(),
        words=len(r.text.split()),
        layout=r.layout,
    )
