"""Document formats: one reader module per format behind one interface.

A reader is a function ``read(source) -> UnitBuilder``: it lays out the document's text (the
source itself for text formats, the extracted text for HTML) and adds its blocks in reading
order (headings with their level and title, paragraphs, list items, table rows with their cells,
code blocks) with exact character offsets into that text; :meth:`~lab.parse.UnitBuilder.document`
then makes the records every later stage reads (units, provisions, heading paths, references).

:data:`FORMATS` lists the readers; :func:`document_format` picks one by a document's name (its
extension) or, failing that, by looking; :func:`read_document` reads a document in its format.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..parse import Document, UnitBuilder
from ..problems import CorpusError
from . import docx, html, markdown, pdf, pdf_layout, rst, text


@dataclass(frozen=True, slots=True)
class Format:
    """A format: its name, the name endings that mark it, its reader and what it is."""

    name: str
    suffixes: tuple[str, ...]
    read: Callable[..., UnitBuilder]
    description: str
    parsers: tuple[str, ...] = ()  # the readings it offers (``parser=``), the default first
    binary: bool = False  # read from the file's bytes (PDF, DOCX), not from decoded text
    patterns: bool = False  # takes heading patterns (the manifest's "headings")
    # its text is extracted from markup, not the file's own: pinned starts count in that text
    extracted: bool = False


def read_pdf(data: bytes, parser: str = "pypdf") -> UnitBuilder:
    """A PDF's units by the extractor ``parser`` names: pypdf's text layer (the default) or
    pdfminer.six's layout analysis (``"layout"``)."""
    if parser not in pdf.PARSERS:
        raise ValueError(f"unknown PDF parser {parser!r}; choose from {', '.join(pdf.PARSERS)}")
    return (pdf_layout.read if parser == "layout" else pdf.read)(data)


FORMATS = {
    f.name: f
    for f in (
        Format(
            "markdown",
            (".md", ".markdown", ".mdown", ".mkd"),
            markdown.read,
            "markdown (CommonMark, pipe tables)",
            patterns=True,
        ),
        Format(
            "html",
            (".html", ".htm", ".xhtml"),
            html.read,
            "HTML (its extracted text)",
            html.PARSERS,
            extracted=True,
        ),
        Format("rst", (".rst", ".rest"), rst.read, "reStructuredText (titles by adornment)"),
        Format(
            "pdf",
            (".pdf",),
            read_pdf,
            "PDF (its text layer, headings from fonts)",
            pdf.PARSERS,
            binary=True,
        ),
        Format("docx", (".docx",), docx.read, "DOCX (headings from styles)", binary=True),
        Format(
            "text", (".txt",), text.read, "plain text (markdown headings read too)", patterns=True
        ),
    )
}
DEFAULT_FORMAT = "text"

_HTML_START = re.compile(
    r"\A\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S
)


def suffix_format(name: str) -> str | None:
    """The format a file name's ending names, or None."""
    lowered = name.lower()
    return next((f.name for f in FORMATS.values() if lowered.endswith(f.suffixes)), None)


def document_format(name: str, source: str) -> str:
    """The format of a document called ``name``: by its name's ending; else "html" for text that
    opens like an HTML page, and "text" for any other (plain text, markdown headings read too)."""
    by_name = suffix_format(name)
    if by_name is not None:
        return by_name
    if _HTML_START.match(source[:2000]):
        return "html"
    return DEFAULT_FORMAT


def binary_format(name: str, data: bytes | str) -> str | None:
    """The binary format (PDF, DOCX) of a document by its name's ending or its first bytes, or
    None for a text document."""
    by_name = suffix_format(name)
    if by_name is not None:
        return by_name if FORMATS[by_name].binary else None
    if isinstance(data, bytes):
        if data[:5] == b"%PDF-":
            return "pdf"
        if data[:4] == b"PK\x03\x04" and b"word/" in data[:4000]:
            return "docx"
    return None


def read_binary(data: bytes | str, name: str, format: str, parser: str | None = None) -> Document:
    """Read a binary document (PDF, DOCX), with the reading ``parser`` names for its format (see
    :func:`reading`); one that cannot be read raises :class:`~lab.problems.CorpusError` naming
    it and the reason."""
    if isinstance(data, str):
        raise CorpusError(f"Document {name!r} is a {format.upper()} file given as text")
    choice = reading(check_parser(parser) if parser else None, format)
    try:
        builder = FORMATS[format].read(data, choice) if choice else FORMATS[format].read(data)
    except CorpusError as exc:
        raise CorpusError(f"Document {name!r} {exc}.") from None
    except ImportError as exc:
        raise CorpusError(
            f"Document {name!r} is {format.upper()}, which needs {exc.name}: "
            "pip install -r requirements.txt"
        ) from None
    return builder.document(name, format)


# Every reading some format offers, each name one format's: HTML "main" (content) or "page",
# PDF "pypdf" or "layout" (pdfminer.six). A ``parser`` setting names one reading, or one per
# format joined by commas ("page,layout"); a format it names no reading of reads its default.
PARSERS = tuple(p for f in FORMATS.values() for p in f.parsers)


def check_parser(parser: str) -> str:
    """``parser`` when it names known readings, at most one per format (``"layout"``,
    ``"page,layout"``); else ``ValueError`` saying what to choose."""
    names = [p.strip() for p in parser.split(",")]
    unknown = [p for p in names if p not in PARSERS]
    if unknown or not names:
        raise ValueError(
            f"unknown parser {unknown[0] if unknown else parser!r}; choose from "
            f"{', '.join(PARSERS)} (one per format, joined by commas: page,layout)"
        )
    for f in FORMATS.values():
        mine = [p for p in names if p in f.parsers]
        if len(mine) > 1:
            raise ValueError(f"parser {parser!r} names two {f.name} readings: {', '.join(mine)}")
    return ",".join(names)


def canonical_parser(parser: str | None) -> str | None:
    """``parser`` checked (:func:`check_parser`) with the formats' default readings left out,
    in format order; None when it names only defaults. Two settings that read every document
    alike are then equal: ``"main"`` is None, ``"layout,page"`` is ``"page,layout"``."""
    if parser is None:
        return None
    if not isinstance(parser, str):
        raise ValueError(f"parser must be a name like 'page' or 'page,layout', got {parser!r}")
    names = check_parser(parser).split(",")
    kept = [p for f in FORMATS.values() for p in f.parsers[1:] if p in names]
    return ",".join(kept) or None


def reading(parser: str | None, format: str) -> str | None:
    """The reading of ``format`` that the ``parser`` setting names, or None (its default)."""
    if not parser:
        return None
    offered = FORMATS[format].parsers if format in FORMATS else ()
    return next((p.strip() for p in parser.split(",") if p.strip() in offered), None)


def parser_options(formats: set[str] | frozenset[str]) -> list[str]:
    """The settings a corpus of ``formats`` may choose among: one reading of each of its formats
    that offer several, joined by commas, the defaults first (HTML and PDF: ``main,pypdf``,
    ``main,layout``, ``page,pypdf``, ``page,layout``); empty when none offers several."""
    offering = [f.parsers for name, f in FORMATS.items() if name in formats and f.parsers]
    return [",".join(c) for c in itertools.product(*offering)] if offering else []


def default_reading(parser: str | None) -> bool:
    """Whether ``parser`` names only the formats' default readings (or nothing)."""
    return not parser or all(
        any(p.strip() == f.parsers[0] for f in FORMATS.values() if f.parsers)
        for p in parser.split(",")
    )


def parser_label(parser: str | None, formats: set[str] | frozenset[str]) -> str:
    """The readings ``parser`` gives the formats ``formats`` (those that offer several), each
    its default where ``parser`` names none: ``"main"``, ``"main,layout"``."""
    return ",".join(
        reading(parser, f) or FORMATS[f].parsers[0]
        for f in FORMATS
        if f in formats and FORMATS[f].parsers
    )


def heading_patterns(patterns: object, what: str) -> tuple[re.Pattern, ...]:
    """The regular expressions of a manifest's ``"headings"`` list; ``ValueError`` naming
    ``what`` when it is no list of valid patterns."""
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise ValueError(f'{what}: "headings" must be a list of regular expressions')
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            raise ValueError(
                f"{what}: the heading pattern {pattern!r} is invalid ({exc})"
            ) from None
    return tuple(compiled)


def read_document(
    source: str,
    name: str,
    format: str,
    parser: str | None = None,
    headings: tuple[re.Pattern, ...] = (),
) -> Document:
    """Read ``source`` in ``format`` (a name in :data:`FORMATS`) into a document; ``parser``
    chooses the reading of a format that has several (HTML: "main" content or whole "page";
    several joined by commas, one per format; None: the format's default; see :func:`reading`)
    and is ignored by the others; lines ``headings`` match are
    headings in the formats that take patterns (plain text, markdown)."""
    if format not in FORMATS:
        raise ValueError(f"unknown document format {format!r}; choose from {', '.join(FORMATS)}")
    if parser is not None:
        check_parser(parser)
    spec = FORMATS[format]
    if choice := reading(parser, format):
        return spec.read(source, choice).document(name, format)
    if headings and spec.patterns:
        return spec.read(source, headings).document(name, format)
    return spec.read(source).document(name, format)


def outline(document: Document) -> list[dict[str, int | str]]:
    """The headings the reader found, in order: ``{"level", "title", "start"}`` with the title
    as shown in heading paths (its number, then its text without markup) and ``start`` the
    heading's offset in the document's text as the lab reads it."""
    return [{"level": h.level, "title": h.label, "start": h.start} for h in document.headings]
