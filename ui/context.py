"""Chunk text with evidence highlighted, shared by the drill-down and the chunk graph.

Document text reaches the screen only HTML-escaped (:func:`segments_html`)."""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from lab import Corpus, Question


def question(of: Corpus, qid: str | None) -> Question | None:
    """The corpus's question with id ``qid``, if any."""
    return next((q for q in of.questions if q.id == qid), None)


def where(of: Corpus, doc: int, start: int) -> str:
    """Label of the provision holding character ``start`` of document ``doc``, after the
    document's name when the corpus has several, and its page in a paged document (PDF)."""
    document = of.documents[doc]
    p = document.units[document.unit_at(start)].provision if document.units else -1
    label = document.provisions[p].label if p >= 0 else "(before the first heading)"
    page = document.page_at(start)
    label += f" (page {page})" if page is not None else ""
    return f"{document.name} › {label}" if len(of.documents) > 1 else label


def evidence_in(q: Question | None, doc: int) -> tuple[list[tuple[int, int]], list[int]]:
    """The question's evidence spans in document ``doc`` (each place evidence that accepts any
    occurrence occurs) and their 1-based numbers among all of its evidence."""
    if q is None:
        return [], []
    found = [(n, (s, t)) for n, e in enumerate(q.evidence, 1) for d, s, t in e.places if d == doc]
    return [s for _, s in found], [n for n, _ in found]


CONTEXT_STYLE = """
<style>
.cx-chunk { white-space: pre-wrap; font-size: 0.88rem; line-height: 1.65; padding: 0.45rem 0.7rem;
            border: 1px solid #dde2ee; border-radius: 6px; margin-bottom: 0.5rem; }
.cx-head { font-size: 0.78rem; color: #475569; font-weight: 600; margin-bottom: 0.2rem; }
.cx-meta { color: #64748b; font-style: italic; }
.cx-ev { background: #d3f9d8; border-bottom: 2px solid #2f9e44; }
.cx-part { background: #fff3bf; border-bottom: 2px dashed #f08c00; }
.cx-n { font-size: 0.68rem; font-weight: 700; color: #fff; background: #2f9e44; border-radius: 3px;
        padding: 0 3px; margin-right: 2px; vertical-align: 1px; }
.cx-part .cx-n { background: #f08c00; }
</style>
"""


@dataclass(frozen=True)
class Segment:
    """A run of a chunk's text: ``kind`` is "meta" (prefix or reference label), "text",
    "evidence" (a span the chunk holds whole) or "part" (a piece of a span it cuts);
    ``number`` is the 1-based evidence number where a highlighted span begins."""

    text: str
    kind: str
    number: int | None = None


def source_offsets(chunk, document_text: str) -> list[tuple[int, int, int]]:
    """Where each source range of ``chunk`` sits in its text: ``(start, end, text_position)``
    (a table row's cells and column names, where its chunker laid them out)."""
    if chunk.layout is not None:
        return list(chunk.layout)
    placed, cursor = [], len(chunk.prefix)
    for start, end in chunk.source:
        at = chunk.text.find(document_text[start:end], cursor)
        if at < 0:
            continue
        placed.append((start, end, at))
        cursor = at + end - start
    return placed


def segments(
    chunk, document_text: str, spans: list[tuple[int, int]], numbers: list[int] | None = None
) -> list[Segment]:
    """Split ``chunk.text`` into segments with evidence ``spans`` (document offsets; numbered
    ``numbers``, 1, 2, ... by default) marked: whole where one source range holds a span, as a
    part where the chunk holds only some of it."""
    text = chunk.text
    placed = source_offsets(chunk, document_text)
    marks: dict[int, tuple[str, int]] = {}  # text position -> (kind, evidence number)
    for number, (s, e) in zip(numbers or range(1, len(spans) + 1), spans, strict=True):
        whole = any(start <= s and e <= end for start, end in chunk.source)
        for start, end, at in placed:
            a, b = max(start, s), min(end, e)
            if a >= b:
                continue
            kind = "evidence" if whole else "part"
            for pos in range(at + a - start, at + b - start):
                marks.setdefault(pos, (kind, number))
    covered = np.zeros(len(text), dtype=bool)
    for start, end, at in placed:
        covered[at : at + end - start] = True
    out: list[Segment] = []
    previous = None
    for pos, ch in enumerate(text):
        kind, number = marks.get(pos, ("text" if covered[pos] else "meta", None))
        key = (kind, number)
        if out and key == previous:
            out[-1] = Segment(out[-1].text + ch, out[-1].kind, out[-1].number)
        else:
            out.append(Segment(ch, kind, number))
        previous = key
    return out


def segments_html(parts: list[Segment]) -> str:
    """Segments as HTML; every piece of text is escaped."""
    out = []
    for part in parts:
        piece = html.escape(part.text)
        if part.kind == "meta":
            out.append(f'<span class="cx-meta">{piece}</span>')
        elif part.kind in ("evidence", "part"):
            css = "cx-ev" if part.kind == "evidence" else "cx-part"
            out.append(f'<span class="{css}"><span class="cx-n">{part.number}</span>{piece}</span>')
        else:
            out.append(piece)
    return "".join(out)


def chunk_html(
    title: str,
    chunk,
    document_text: str,
    spans: list[tuple[int, int]],
    numbers: list[int] | None = None,
) -> str:
    """One chunk as a bordered block: an escaped title line, then its highlighted text."""
    body = segments_html(segments(chunk, document_text, spans, numbers))
    return f'<div class="cx-chunk"><div class="cx-head">{html.escape(title)}</div>{body}</div>'
