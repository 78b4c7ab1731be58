"""Table rows: one chunk per row, each cell labelled with its column's name."""

from __future__ import annotations

from ..parse import Document, Table, TableRow
from .base import Params, Plan, Rendered, register, split_long
from .recursive import split_units

LABEL = ": "
CELL_SEPARATOR = " | "

Cell = tuple[int, int, int]  # (column, start, end)


def render_row(
    doc: Document,
    table: Table,
    row: TableRow,
    piece: tuple[tuple[int, int], list[Cell]] | None = None,
) -> Rendered:
    """``[heading path] Model: WH-500 | Battery: 8 h | ...``: every non-empty cell after its
    column's name (cells past the header's last column, or in a table without a header, stand
    alone). The chunk delivers the row and the header row.

    A ``piece`` of a row too long for one chunk (its range and cells, see :func:`split_row`)
    delivers those cells and their column names."""
    text = doc.text
    unit = doc.units[row.unit]
    provision = doc.provisions[unit.provision]
    prefix = f"[{provision.path}] " if provision.path else ""
    names = table.header.cells if table.header is not None else ()
    named = (provision.index,) if provision.path else ()
    if piece is None:
        body, cells = (unit.start, unit.end), list(_cells(row))
        header = [] if table.header is None else [doc.units[table.header.unit]]
        source = [body, *((h.start, h.end) for h in header)]
    else:
        body, cells = piece
        source = [body, *(names[c[0]] for c in cells if _named(names, c[0]))]
        source += [(a, b) for _, a, b in cells if not body[0] <= a < b <= body[1]]
    parts: list[str] = [prefix]
    layout: list[tuple[int, int, int]] = []
    pos = len(prefix)
    for column, a, b in cells:
        if pos > len(prefix):
            parts.append(CELL_SEPARATOR)
            pos += len(CELL_SEPARATOR)
        if _named(names, column):
            ha, hb = names[column]
            layout.append((ha, hb, pos))
            parts.append(text[ha:hb] + LABEL)
            pos += hb - ha + len(LABEL)
        layout.append((a, b, pos))
        parts.append(text[a:b])
        pos += b - a
    return Rendered(prefix, "".join(parts), tuple(source), tuple(layout), named)


def _cells(row: TableRow):
    return ((i, a, b) for i, (a, b) in enumerate(row.cells) if a < b)


def _named(names: tuple[tuple[int, int], ...], column: int) -> bool:
    return column < len(names) and names[column][0] < names[column][1]


def split_row(text: str, row: TableRow, size: int) -> list[tuple[tuple[int, int], list[Cell]]]:
    """A row longer than ``size`` characters as pieces that fit: runs of whole cells, each run
    spanning at most ``size`` characters; a cell longer than that alone is split where
    :func:`~lab.chunkers.base.split_long` cuts a sentence, every part under its column. Each
    piece is its range and its cells, in row order; a piece without the row's first cell gets
    it in front (the row's key: which model, which version), unless that cell is itself too
    long."""
    pieces: list[tuple[tuple[int, int], list[Cell]]] = []
    run: list[Cell] = []
    key = next(_cells(row), None)

    def close() -> None:
        if run:
            pieces.append(((run[0][1], run[-1][2]), list(run)))
            run.clear()

    for column, a, b in _cells(row):
        if b - a > size:
            close()
            start = a
            for end in split_long(text, a, b, size):
                pieces.append(((start, end), [(column, start, end)]))
                start = end
                while start < b and text[start].isspace():
                    start += 1
            continue
        if run and b - run[0][1] > size:
            close()
        run.append((column, a, b))
    close()
    if key is None or key[2] - key[1] > size:
        return pieces
    return [(span, cells if cells[0][0] == key[0] else [key, *cells]) for span, cells in pieces]


@register(
    "table-rows",
    "Table rows",
    "One chunk per table row, each cell labelled with its column name, under the table's "
    "heading path; text outside tables is chunked like recursive.",
    order=9,
    rows=True,
)
def table_rows(doc: Document, p: Params) -> Plan:
    """Every data row of a table is a body of its own, delivered as :func:`render_row` makes it
    (a header row travels with each of its table's rows instead of being a chunk). The units
    between tables are split as :mod:`recursive` splits them, but for the headings right
    before a table: the rows carry those in their heading path. A row longer than ``L`` is cut
    into pieces at cell boundaries (:func:`split_row`), each with its column names; the plan's
    ``cuts`` say where."""
    units = doc.units
    rows = doc.table_rows
    carried = {t.header.unit for t in doc.tables if t.header is not None and t.rows}
    bodies: list[tuple[int, int]] = []
    rendered: dict[int, Rendered] = {}
    cuts: list[int] = []
    first = 0
    for u in range(len(units) + 1):
        at_table = u < len(units) and (u in rows or u in carried)
        if u < len(units) and not at_table:
            continue
        stop = u
        while at_table and stop > first and units[stop - 1].kind == "heading":
            stop -= 1
        if first < stop:
            bodies.extend(split_units(doc, first, stop, p.size))
        first = u + 1
        if u not in rows:
            continue
        table, row = rows[u]
        if units[u].end - units[u].start <= p.size:
            rendered[len(bodies)] = render_row(doc, table, row)
            bodies.append((units[u].start, units[u].end))
            continue
        pieces = split_row(doc.text, row, p.size)
        for piece in pieces:
            rendered[len(bodies)] = render_row(doc, table, row, piece)
            bodies.append(piece[0])
        cuts.extend(piece[0][1] for piece in pieces[:-1])
    return Plan(tuple(bodies), rendered=rendered, cuts=tuple(cuts))
