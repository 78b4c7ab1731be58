"""PDF with pypdf: the text layer page by page, headings from the layout.

pypdf's text visitor hands over each run of text with its font and size; a line's size is its
largest run's. The body size is the size most of the text is set in; a short line set larger,
or in bold at body size or above, without a sentence's end, is a heading, its level the rank of
its size among the headings' sizes (bold at body size deepest). A line that recurs on most pages
(a running header or footer) is no heading. Lines between headings are paragraphs, a bullet or
number at a line's start begins a list item. Page numbers are kept (``Document.page_starts``,
``Document.page_at``). A PDF whose pages hold no text (a scan) or that cannot be opened
(encrypted, corrupt) is refused with the reason.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass

from ..parse import UnitBuilder
from ..problems import CorpusError
from .blocks import Block, build

HEADING_RATIO = 1.15  # a heading is set this much larger than the body, or in bold
MAX_HEADING_CHARS = 100
MAX_HEADING_WORDS = 14
_ITEM = re.compile(r"(?:[\u2022\u25cf\u25aa\u2013*-]|\d{1,2}[.)]|\([a-z0-9]\))\s+\S")
_SENTENCE_END = re.compile(r"[.,;:]$")
_NUMBERED = re.compile(r"\d{1,2}(?:\.\d{1,2})*\.?\s+\S")
_NUMBER_ONLY = re.compile(r"[\divxlcIVXLC. -]*")


@dataclass
class Line:
    text: str
    size: float
    bold: bool
    page: int


def _lines(reader) -> list[Line]:
    """Every line of the text layer, with its size and whether it is all bold."""
    lines: list[Line] = []
    for number, page in enumerate(reader.pages, 1):
        runs: list[tuple[str, float, bool]] = []

        def visit(text, cm, tm, font, size, runs=runs):
            scale = abs(tm[3] * cm[3]) if tm and cm and tm[3] and cm[3] else 1.0
            name = str((font or {}).get("/BaseFont", "")) if hasattr(font, "get") else ""
            runs.append((text, round(size * scale, 1), "bold" in name.lower()))

        page.extract_text(visitor_text=visit)
        text, sizes, bolds = "", [], []
        for chunk, size, bold in [*runs, ("\n", 0.0, False)]:
            parts = chunk.split("\n")
            for k, part in enumerate(parts):
                if k:
                    if text.strip():
                        size_ = max(sizes) if sizes else 0.0
                        lines.append(Line(" ".join(text.split()), size_, all(bolds), number))
                    text, sizes, bolds = "", [], []
                if part.strip():
                    text += part
                    sizes.append(size)
                    bolds.append(bold)
                else:
                    text += part
    return lines


def _open(data: bytes):
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise CorpusError("is encrypted (it needs a password); decrypt it first")
        return reader
    except CorpusError:
        raise
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        raise CorpusError(f"is not a readable PDF ({exc})") from None


def _title_page(lines: list[Line], heads: list[Line], body: float) -> Line | None:
    """The document's title: the largest heading line of the first page's opening (the lines
    before its first body text or numbered heading), whose other large lines (authors,
    affiliations) are then no headings."""
    ids = {id(h) for h in heads}
    opening = []
    for line in lines:
        if line.page > 1 or id(line) not in ids or _NUMBERED.match(line.text):
            break
        opening.append(line)
    return max(opening, key=lambda line: line.size) if opening else None


def blocks_of(lines: list[Line], pages: int) -> list[Block]:
    """The headings, paragraphs and list items of the lines."""
    weights = Counter()
    for line in lines:
        weights[line.size] += len(line.text)
    body = weights.most_common(1)[0][0] if weights else 0.0
    recurring = Counter(line.text for line in lines)
    running = {t for t, n in recurring.items() if pages >= 3 and n >= max(3, pages // 2)}

    def heading(line: Line) -> bool:
        text = line.text
        if (
            (text in running and line.page > 1)
            or _NUMBER_ONLY.fullmatch(text)
            or _SENTENCE_END.search(text)
        ):
            return False
        if len(text) > MAX_HEADING_CHARS or len(text.split()) > MAX_HEADING_WORDS:
            return False
        return line.size >= body * HEADING_RATIO or (line.bold and line.size >= body)

    heads = [line for line in lines if heading(line)]
    title = _title_page(lines, heads, body)
    if title is not None:
        heads = [h for h in heads if h is title or h.page > 1 or _NUMBERED.match(h.text)]
        running.discard(title.text)
    head_ids = {id(h) for h in heads}
    sizes = sorted({h.size for h in heads if h.size >= body * HEADING_RATIO}, reverse=True)
    blocks: list[Block] = []
    para: list[Line] = []

    def flush() -> None:
        if para:
            text = " ".join(p.text for p in para)
            blocks.append(Block("para", text, page=para[0].page))
            para.clear()

    for line in lines:
        if id(line) in head_ids:
            flush()
            level = sizes.index(line.size) + 1 if line.size in sizes else len(sizes) + 1
            blocks.append(Block("heading", line.text, level=min(level, 6), page=line.page))
            continue
        if line.text in running and line is not title:
            continue
        if para and (_ITEM.match(line.text) or line.page != para[-1].page):
            flush()
        para.append(line)
    flush()
    return blocks


def no_text(pages: int) -> str:
    """Why a PDF whose pages hold no text cannot be read."""
    return (
        f"has no text layer: its {pages} page{'s' * (pages != 1)} hold only images "
        "(a scan?); run OCR on it (for example ocrmypdf) and load the result"
    )


PARSERS = ("pypdf", "layout")  # pypdf's text layer (the default), pdfminer's layout analysis


def units_of(lines: list[Line], pages: int) -> UnitBuilder:
    """The units of a PDF's extracted ``lines`` (either extractor's), or the scan message."""
    if not lines:
        raise CorpusError(no_text(pages))
    builder = build(blocks_of(lines, pages))
    builder.pages = pages
    return builder


def read(data: bytes) -> UnitBuilder:
    """The units of PDF ``data``'s text layer as pypdf extracts it, headings read from its
    fonts (the other extractor: :mod:`lab.formats.pdf_layout`)."""
    reader = _open(data)
    return units_of(_lines(reader), len(reader.pages))
