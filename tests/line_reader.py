"""The markdown reader as it was before blank and heading lines were read a stretch at a time:
every line a rule may read specially goes through the rules one by one. The tests hold
``parse_document`` to it (``test_line_rules``, ``test_fast_paths``), comparing the
``document_contents`` of both."""

from dataclasses import astuple

from lab.formats.text import (
    _ATX,
    _ATX_EMPTY,
    _DECORATION,
    _FENCE,
    _LIST_ITEM,
    _NUMBERED,
    _PLAIN,
    _SETEXT,
    _TABLE_ROW,
    _TABLE_RULE,
    LineReader,
)
from lab.parse import _cells, _lines


class LineByLine(LineReader):
    """``parse_document``'s reader with every special line read on its own."""

    def run(self) -> None:
        text = self.text
        lines, starts = _lines(text)
        # The paragraph's lines, ``(start, end)``: of a run of plain lines only the first and the
        # last, all that is read of it (where it starts and ends, whether it is a single line).
        para: list[tuple[int, int]] = []
        para_kind = "sentence"
        fence: str | None = None
        fence_start = 0

        def flush() -> None:
            nonlocal para, para_kind
            if para:
                s, e = para[0][0], para[-1][1]
                if para_kind == "sentence":
                    self.add_prose(s, e)
                else:
                    marker = _LIST_ITEM.match(text, s, e)
                    self.add_prose(s, e, skip=marker.end() - s if marker else 0)
            para, para_kind = [], "sentence"

        # Only lines a rule may read specially go through the rules one by one; a run of plain
        # lines between them closes any table and joins the paragraph (or the open code fence).
        special = [i for i, m in enumerate(map(_PLAIN.match, lines)) if m is None]
        plain = self.plain_headings(lines)
        self.numbered_depth = int(self.divides_numbered(lines, plain))
        if plain:
            special = sorted({*special, *plain})
        done = 0  # lines before this one are read
        for i in special:
            if i > done:
                self.table_open = False  # closed by a plain line
                if fence is None:
                    self.join_lines(para, lines, starts, done, i)
            done = i + 1
            line = lines[i]
            if not line.strip():  # a blank line: no table row, never closes a fence
                self.table_open = False
                if fence is None and para:
                    flush()
                continue
            s = starts[i]
            e = s + len(line)
            if line[0] == "#" and fence is None and (m := _ATX.match(line)):
                # A heading line as the rules below read it: no table row, rule or fence.
                self.table_open = False
                if para:
                    flush()
                self.add_heading(s, e, len(m.group(1)), m.group(2))
                continue
            if not _TABLE_ROW.match(line) and not _TABLE_RULE.match(line):
                self.close_table()
            if fence is not None:
                if line.lstrip().startswith(fence):
                    self.add_block(fence_start, e, "code")
                    fence = None
                continue
            if m := _FENCE.match(line):
                flush()
                fence, fence_start = m.group(1)[:3], s
                continue
            if (head := plain.get(i)) is not None:
                flush()
                self.add_heading(s + len(line) - len(line.lstrip()), e, *head)
                continue
            if m := _ATX.match(line):
                flush()
                self.add_heading(s, e, len(m.group(1)), m.group(2))
                continue
            if _ATX_EMPTY.match(line):
                flush()
                continue
            if _SETEXT.match(line) and len(para) == 1 and para_kind == "sentence":
                ps, pe = para[0]
                if len(text[ps:pe].strip()) <= 80 and not _DECORATION.match(text[ps:pe]):
                    para = []
                    self.add_heading(
                        ps, pe, 1 if line.strip()[0] == "=" else 2, text[ps:pe].strip()
                    )
                    continue
            if _TABLE_RULE.match(line) and self.table_open and self.mark_header():
                continue
            if _DECORATION.match(line) or _TABLE_RULE.match(line):
                flush()
                self.close_table()
                continue
            # Only a line that starts with a number can be a numbered heading.
            if _NUMBERED.match(line):
                prev_blank = i == 0 or not lines[i - 1].strip()
                listed = any(
                    0 <= j < len(lines)
                    and _NUMBERED.match(lines[j]) is not None
                    and _LIST_ITEM.match(lines[j]) is not None
                    for j in (i - 1, i + 1)
                )
                numbered = self.numbered_heading((s, e), prev_blank or not para, listed)
                if numbered is not None:
                    flush()
                    heading_end, level, title, body = numbered
                    self.add_heading(s, heading_end, level, title)
                    # The body may start on the heading's line and run on over the next lines.
                    para = [(body, e)] if text[body:e].strip() else []
                    continue
            if _TABLE_ROW.match(line):
                flush()
                self.add_row(s, e, _cells(text, s, e))
                continue
            if _LIST_ITEM.match(line):
                flush()
                para, para_kind = [(s, e)], "item"
                continue
            para.append((s, e))
        if done < len(lines):
            self.close_table()
            if fence is None:
                self.join_lines(para, lines, starts, done, len(lines))
        flush()
        if fence is not None:
            self.add_block(fence_start, len(text), "code")


def document_contents(doc) -> tuple:
    """Everything a parsed document holds, as plain values to compare."""
    return (
        doc.title,
        [tuple(u) for u in doc.units],
        [astuple(p) for p in doc.provisions],
        [astuple(r) for r in doc.references],
        doc.unit_starts,
        doc.tables,
        doc.problems,
        doc.unit_ends,
        doc.unit_provisions,
    )
