"""PDF with pdfminer.six's layout analysis (``parser="layout"``): the second PDF extractor.

pdfminer groups a page's characters into text lines by their positions (``LAParams``), so the
reading order and the line breaks are the layout's rather than the content stream's. Each line's
size is its largest character's (``LTChar.size``) and it is bold when all its letters are set in
a bold font (``LTChar.fontname``); from those lines on, headings, paragraphs, list items and
pages are read exactly as the pypdf reader reads its lines (:func:`lab.formats.pdf.blocks_of`),
so the two extractors differ only in what they extract.
"""

from __future__ import annotations

import io

from ..parse import UnitBuilder
from ..problems import CorpusError
from .pdf import Line, units_of


def _line(box, page: int) -> Line | None:
    from pdfminer.layout import LTChar

    chars = [c for c in box if isinstance(c, LTChar) and c.get_text().strip()]
    text = " ".join(box.get_text().split())
    if not text or not chars:
        return None
    size = round(max(c.size for c in chars), 1)
    bold = all("bold" in c.fontname.lower() for c in chars)
    return Line(text, size, bold, page)


def _lines(data: bytes) -> tuple[list[Line], int]:
    """Every text line of the layout in reading order, and the number of pages."""
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams, LTTextContainer, LTTextLine
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFSyntaxError
    from pdfminer.psparser import PSException

    lines: list[Line] = []
    pages = 0
    try:
        for number, layout in enumerate(extract_pages(io.BytesIO(data), laparams=LAParams()), 1):
            pages = number
            for element in layout:
                if not isinstance(element, LTTextContainer):
                    continue
                boxes = [element] if isinstance(element, LTTextLine) else list(element)
                for box in boxes:
                    if isinstance(box, LTTextLine) and (line := _line(box, number)):
                        lines.append(line)
    except (PDFPasswordIncorrect, PDFEncryptionError):
        raise CorpusError("is encrypted (it needs a password); decrypt it first") from None
    except (PDFSyntaxError, PSException, ValueError, KeyError, OSError, TypeError) as exc:
        raise CorpusError(f"is not a readable PDF ({exc or type(exc).__name__})") from None
    return lines, pages


def read(data: bytes) -> UnitBuilder:
    """The units of PDF ``data``'s text layer as pdfminer's layout analysis lays it out."""
    return units_of(*_lines(data))
