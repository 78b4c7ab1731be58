"""Plain text (and markdown read leniently), line by line: ATX and setext headings, numbered
headings (``1.3 Title``, ``2. Title. Body``), list items, pipe-table rows, code fences; decoration
lines (``-----``, box drawing) are not content. The reader for ``.txt`` and files without a
markdown, HTML or other known extension; :func:`parse_document` is its public face."""

from __future__ import annotations

import re
from bisect import bisect_left

from ..parse import Document, _cells, _heading, _lines
from ..sentences import _SENTENCE_END
from .plain import fenced_lines, plain_headings
from .prose import ProseBatch

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_ATX_EMPTY = re.compile(r"^ {0,3}(#{1,6})[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_DECORATION = re.compile(
    r"^[ \t]*(?:[-*_=~+#.:|]|[\u2500-\u259f])[ \t]*(?:[-*_=~+#.:|\u2500-\u259f][ \t]*){2,}$"
)
_NUMBERED = re.compile(r"[ \t]*(\d{1,3}(?:\.\d{1,3})*)(\.?)[ \t]+(\S.*?)[ \t]*$")
_LIST_ITEM = re.compile(
    r"[ \t]*(?:[-*+\u2022]|\d{1,3}[.)]|[a-z][.)]|\([a-z0-9]{1,3}\))[ \t]+(?=\S)"
)
_TABLE_ROW = re.compile(r"^[ \t]*\|")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```+|~~~+)")
_TITLE_START = re.compile(r"[\"'\u201c\u2018(]?[A-Z\u00c0-\u00de]")
# A line no markdown rule reads specially: after spaces and tabs its first character is none that
# starts a heading, list item, table, fence, rule or numbered heading, nor other whitespace (a
# blank line, or one ``str.lstrip`` would read differently), nor a letter list marker ``a.``/``b)``.
_PLAIN = re.compile(r"[ \t]*(?![a-z][.)])[^\s\d#|`~*+=_.:(\u2022\u2500-\u259f-]")


MAX_TITLE_WORDS = 10
MAX_INLINE_TITLE_WORDS = 6


def _is_short_title(rest: str) -> bool:
    body = rest.rstrip(".:")
    return (
        bool(_TITLE_START.match(rest))
        and len(rest) <= 80
        and len(body.split()) <= MAX_TITLE_WORDS
        and not _SENTENCE_END.search(body + " ")
    )


def _atx(line: str) -> tuple[int, str] | None:
    """The level and title of an ATX heading line that starts with ``#`` (as :data:`_ATX`
    reads them), or None when it is none."""
    level = len(line) - len(line.lstrip("#"))
    if level > 6 or line[level : level + 1] not in (" ", "\t") or line[-1] in " \t#":
        # Past six marks, or with no blank after them, no heading; one ending in blanks or
        # marks: the pattern finds where its title ends.
        m = _ATX.match(line)
        return (len(m.group(1)), m.group(2)) if m else None
    # The pattern's title starts after the blanks after the marks and, with nothing to trim at
    # the line's end, runs to it.
    return level, line[level:].lstrip(" \t")


class LineReader(ProseBatch):
    """Reads markdown or plain text line by line into units; a line that matches one of
    ``patterns`` (regular expressions, the manifest's ``"headings"``) is a heading too."""

    def __init__(self, text: str, patterns: tuple[re.Pattern, ...] = ()):
        super().__init__(text)
        self.patterns = patterns
        self.numbered_depth = 0  # 1 where numbered headings sit under a plain divider

    @staticmethod
    def divides_numbered(lines: list[str], plain: dict[int, tuple[int, str]]) -> bool:
        """Whether a level-2 plain heading (a divider such as "TERMS AND CONDITIONS") has a
        numbered heading (``1. Definitions.``) as its next line of text: the numbered headings
        are then its children, a level below it."""
        for i, (level, _) in plain.items():
            if level != 2:
                continue
            j = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
            m = _NUMBERED.match(lines[j]) if j is not None else None
            if m and (m.group(2) or "." in m.group(1)) and j not in plain:
                return True
        return False

    def numbered_heading(
        self, line: tuple[int, int], prev_blank: bool, neighbours_listed: bool
    ) -> tuple[int, int, str, int] | None:
        """Read ``1.3 Title`` / ``2. Title. Body`` / ``3. Long provision text`` as a heading.

        Returns the heading unit's end, its level and title, and where the body text starts on
        the line (the line's end when none does); None when the line is not a heading."""
        start, end = line
        m = _NUMBERED.match(self.text, start, end)
        if not m or m.end() != end:
            return None
        number, dot, rest = m.group(1), m.group(2), m.group(3)
        multi = "." in number
        if not multi and (not dot or neighbours_listed or not prev_blank):
            return None
        if not _TITLE_START.match(rest):
            return None
        level = number.count(".") + 2 + self.numbered_depth
        rest_start = m.start(3)
        if _is_short_title(rest):
            return end, level, f"{number} {rest.rstrip('.:')}", end
        first = _SENTENCE_END.search(rest)
        if first and len(rest[: first.start()].split()) <= MAX_INLINE_TITLE_WORDS:
            title_end = rest_start + first.end()
            return title_end, level, f"{number} {rest[: first.start()]}", title_end
        return (m.end(2) if dot else m.end(1)), level, number, rest_start

    def plain_headings(self, lines: list[str]) -> dict[int, tuple[int, str]]:
        """The plain-text heading lines (:func:`lab.formats.plain.plain_headings`) and those the
        patterns match, none of them in a code fence."""
        fenced = any("```" in line or "~~~" in line for line in lines)
        skip = fenced_lines(lines) if fenced else set()
        found = plain_headings(lines, skip)
        for i, line in enumerate(lines):
            if (
                i not in skip
                and line.strip()
                and any(p.search(line.strip()) for p in self.patterns)
            ):
                found[i] = (2, line.strip())
        return found

    @staticmethod
    def join_lines(
        para: list[tuple[int, int]], lines: list[str], starts: list[int], first: int, stop: int
    ) -> None:
        """Add plain lines ``first..stop-1`` to the paragraph: the first and the last."""
        for i in (first, stop - 1) if stop - first > 1 else (first,):
            para.append((starts[i], starts[i] + len(lines[i])))

    def simple_stretch(
        self,
        lines: list[str],
        starts: list[int],
        simple: list[int],
        heads: dict[int, tuple[int, str]],
    ) -> None:
        """Read lines ``simple[0]..simple[-1]`` outside a code fence and with no paragraph open,
        where ``simple`` are the only blank and ``#`` heading lines (``heads``: level and title)
        and the others plain: each run of plain lines between two is a paragraph (the next blank
        or heading line ends it). As :meth:`add_prose` and :meth:`add_heading` would, inline."""
        units, prose, headings, clock = self.units, self.prose, self.headings, self.heading_clock
        block = self.block
        prev = simple[0] - 1
        for i in simple:
            if i > prev + 1:  # a run of plain lines since the last
                block += 1
                end = starts[i - 1] + len(lines[i - 1])
                prose.append((starts[prev + 1], end, 0, block, len(units)))
            head = heads.get(i)
            if head is not None:
                line = lines[i]
                s = starts[i]
                k = len(units)
                clock[k] = len(prose)
                headings[k] = _heading(s, s + len(line), *head)
                block += 1
                units.append((s, s + len(line.rstrip()), "heading", block))  # starts with "#"
            prev = i
        self.block = block

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
        # Blank lines and ``#`` heading lines (the most common) are read a stretch at a time.
        special = [i for i, m in enumerate(map(_PLAIN.match, lines)) if m is None]
        plain = self.plain_headings(lines)
        self.numbered_depth = int(self.divides_numbered(lines, plain))
        if plain:
            special = sorted({*special, *plain})
        heads = {i: h for i in special if lines[i][:1] == "#" and (h := _atx(lines[i]))}
        simple = [i for i in special if i in heads or not lines[i].strip()]
        others = [i for i in special if i not in heads and lines[i].strip()] if simple else special
        done = 0  # lines before this one are read
        at = 0  # the next simple line, in ``simple``
        for i in [*others, len(lines)]:
            if at < len(simple) and simple[at] < i:
                stop = bisect_left(simple, i, at)
                if fence is None:
                    # The plain lines before the first join the paragraph, which it ends.
                    if simple[at] > done:
                        self.join_lines(para, lines, starts, done, simple[at])
                    flush()
                    self.simple_stretch(lines, starts, simple[at:stop], heads)
                done = simple[stop - 1] + 1
                at = stop
                self.table_open = False
            if i == len(lines):
                break
            if i > done:
                self.table_open = False  # closed by a plain line
                if fence is None:
                    self.join_lines(para, lines, starts, done, i)
            done = i + 1
            line = lines[i]
            s = starts[i]
            e = s + len(line)
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


def read(source: str, headings: tuple[re.Pattern, ...] = ()) -> LineReader:
    """The units of plain text (or leniently read markdown) ``source``; lines ``headings``
    match are headings too."""
    reader = LineReader(source, headings)
    reader.run()
    return reader


def parse_document(text: str, name: str = "document") -> Document:
    """Parse ``text`` (plain, or markdown read leniently) into units, provisions and resolved
    cross-references."""
    return read(text).document(name, "text")
