"""DOCX with python-docx: paragraphs and tables in document order; headings from the paragraph
styles (``Title``, ``Heading 1`` to ``Heading 9``) and from short paragraphs set all in bold (a
label such as "DESCRIPTION" in a document written without heading styles: one level below the
styled heading before it), list paragraphs as list items, tables as table rows with their
cells. A file that is not a readable DOCX is refused with the reason."""

from __future__ import annotations

import io
import re
import zipfile

from ..parse import UnitBuilder
from ..problems import CorpusError
from .blocks import Block, build

_HEADING_STYLE = re.compile(r"(?i)heading\s*(\d)")
_SENTENCE_END = re.compile(r"[.,;:!?]$")
MAX_LABEL_WORDS = 10


def bold_label(paragraph, text: str) -> bool:
    """Whether a paragraph reads as a heading set in bold: every run with text is bold, and it
    is short (at most ten words, 80 characters) and ends without sentence punctuation."""
    runs = [r for r in paragraph.runs if r.text.strip()]
    return (
        bool(runs)
        and all(r.bold for r in runs)
        and len(text) <= 80
        and len(text.split()) <= MAX_LABEL_WORDS
        and not _SENTENCE_END.search(text)
    )


def _open(data: bytes):
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        return docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        reason = str(exc) or type(exc).__name__
        raise CorpusError(f"is not a readable DOCX file ({reason})") from None


def _style(paragraph) -> str:
    try:
        return paragraph.style.name or ""
    except (AttributeError, KeyError, ValueError):
        return ""


def blocks_of(document) -> list[Block]:
    """The document's blocks in order: headings, paragraphs, list items and tables."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    blocks: list[Block] = []
    has_title = any(_style(p) == "Title" for p in document.paragraphs)
    first_item = True
    above = int(has_title)  # the level of the last styled heading
    for child in document.element.body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = Paragraph(child, document)
            text = " ".join(paragraph.text.split())
            if not text:
                continue
            style = _style(paragraph)
            heading = _HEADING_STYLE.search(style)
            if style == "Title":
                blocks.append(Block("heading", text, level=1))
            elif heading:
                above = min(int(heading.group(1)) + has_title, 6)
                blocks.append(Block("heading", text, level=above))
            elif "list" in style.lower():
                blocks.append(Block("item", text, marker="- ", first=first_item))
                first_item = False
                continue
            elif bold_label(paragraph, text):
                blocks.append(Block("heading", text, level=min(above + 1, 6)))
            else:
                blocks.append(Block("para", text))
            first_item = True
        elif tag == "tbl":
            table = Table(child, document)
            rows = []
            for r, row in enumerate(table.rows):
                cells = [" ".join(cell.text.split()) for cell in row.cells]
                rows.append((cells, r == 0))
            if rows:
                blocks.append(Block("table", rows=rows))
            first_item = True
    return blocks


def read(data: bytes) -> UnitBuilder:
    """The units of DOCX ``data``."""
    return build(blocks_of(_open(data)))
