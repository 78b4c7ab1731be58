"""Table rows: one chunk per row, each cell labelled with its column's name."""

from __future__ import annotations

from ..parse import Document, Table, TableRow
from .base import Params, Plan, Rendered, register
from .recursive import split_units

LABEL = ": "
CELL_SEPARATOR = " | "


def render_row(doc: Document, table: Table, row: TableRow) -> Rendered:
    """``[heading path] Model: WH-500 | Battery: 8 h | ...``: every non-empty cell after its
    column's name (cells past the header's last column, or in a table without a header, stand
    alone). The chunk delivers the row and the header row."""
    text = doc.text
    provision = doc.provisions[doc.units[row.unit].provision]
    prefix = f"[{provision.path}] " if provision.path else ""
    names = table.header.cells if table.header is not None else ()
    parts: list[str] = [prefix]
    layout: list[tuple[int, int, int]] = []
    pos = len(prefix)
    for i, (a, b) in enumerate(row.cells):
        if a == b:
            continue
        if pos > len(prefix):
            parts.append(CELL_SEPARATOR)
            pos += len(CELL_SEPARATOR)
        if i < len(names) and names[i][0] < names[i][1]:
            ha, hb = names[i]
            layout.append((ha, hb, pos))
            parts.append(text[ha:hb] + LABEL)
            pos += hb - ha + len(LABEL)
        layout.append((a, b, pos))
        parts.append(text[a:b])
        pos += b - a
    unit = doc.units[row.unit]
    source = [(unit.start, unit.end)]
    if table.header is not None:
        header = doc.units[table.header.unit]
        source.append((header.start, header.end))
    named = (provision.index,) if provision.path else ()
    return Rendered(prefix, "".join(parts), tuple(source), tuple(layout), named)


@register(
    "table-rows",
    "Table rows",
    "One chunk per table row, each cell labelled with its column name, under the table's "
    "heading path; text outside tables is chunked like recursive.",
    order=9,
)
def table_rows(doc: Document, p: Params) -> Plan:
    """Every data row of a table is a body of its own, delivered as :func:`render_row` makes it
    (a header row travels with each of its table's rows instead of being a chunk). The units
    between tables are split as :mod:`recursive` splits them, but for the headings right
    before a table: the rows carry those in their heading path."""
    units = doc.units
    rows = doc.table_rows
    carried = {t.header.unit for t in doc.tables if t.header is not None and t.rows}
    bodies: list[tuple[int, int]] = []
    rendered: dict[int, Rendered] = {}
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
        if u in rows:
            rendered[len(bodies)] = render_row(doc, *rows[u])
            bodies.append((units[u].start, units[u].end))
    return Plan(tuple(bodies), rendered=rendered)
