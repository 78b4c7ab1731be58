"""Blocks laid out as plain text: the reader of a format that is not text (HTML, PDF, DOCX) finds
its blocks (headings, paragraphs, list items, code, tables), and :func:`build` lays them out as
the document's text (headings on lines of their own, blocks separated by blank lines, list items
one per line with their marker, table rows one per line with cells joined by ``" | "``) and
adds their units with exact offsets into it."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..parse import UnitBuilder

CELL_SEPARATOR = " | "


@dataclass
class Block:
    kind: str  # "heading" | "para" | "item" | "code" | "table"
    text: str = ""
    level: int = 0  # heading level
    marker: str = ""  # list marker, e.g. "- " or "3. "
    rows: list[tuple[list[str], bool]] = field(default_factory=list)  # table: (cells, header?)
    first: bool = False  # the first item of its list: a blank line separates it from the last
    page: int = 1  # the page it is on (PDF), counting from 1


def layout(blocks: list[Block]) -> tuple[str, list[tuple[Block, int, list]]]:
    """The extracted text, and where each block (and each table row and cell) sits in it."""
    parts: list[str] = []
    placed = []
    pos = 0
    previous = None
    for block in blocks:
        if parts:
            tight = previous == block.kind == "item" and not block.first
            sep = "\n" if tight else "\n\n"
            parts.append(sep)
            pos += len(sep)
        if block.kind == "table":
            rows = []
            for r, (cells, header) in enumerate(block.rows):
                if r:
                    parts.append("\n")
                    pos += 1
                ranges, start = [], pos
                for c, cell in enumerate(cells):
                    if c:
                        parts.append(CELL_SEPARATOR)
                        pos += len(CELL_SEPARATOR)
                    ranges.append((pos, pos + len(cell)))
                    parts.append(cell)
                    pos += len(cell)
                rows.append((start, pos, ranges, header))
            placed.append((block, -1, rows))
        else:
            text = block.marker + block.text
            placed.append((block, pos, [text]))
            parts.append(text)
            pos += len(text)
        previous = block.kind
    return "".join(parts), placed


def _page_starts(placed: list[tuple[Block, int, list]]) -> tuple[int, ...]:
    """Where each page after the first starts in the text, when the blocks have pages."""
    starts: list[int] = []
    page = 1
    for block, start, extra in placed:
        at = extra[0][0] if block.kind == "table" and extra else start
        while block.page > page:
            starts.append(at)
            page += 1
    return tuple(starts)


def build(blocks: list[Block]) -> UnitBuilder:
    """The units of ``blocks`` laid out as text (the builder's ``text``)."""
    text, placed = layout(blocks)
    builder = UnitBuilder(text)
    for block, start, extra in placed:
        if block.kind == "table":
            for r, (a, b, cells, header) in enumerate(extra):
                builder.add_row(a, b, cells)
                if r == 0 and header:
                    builder.mark_header()
            builder.close_table()
            continue
        end = start + len(extra[0])
        if block.kind == "heading":
            builder.add_heading(start, end, block.level, block.text)
        elif block.kind == "code":
            builder.add_block(start, end, "code")
        elif block.kind == "item":
            builder.add_prose(start, end, skip=len(block.marker))
        else:
            builder.add_prose(start, end)
    builder.page_starts = _page_starts(placed)
    return builder
