"""Markdown by CommonMark's rules, read with markdown-it-py (the CommonMark reference
implementation for Python, with GitHub's pipe tables enabled).

markdown-it-py finds the blocks (ATX and setext headings, paragraphs, list items, block quotes,
fenced and indented code, pipe tables) and the lines each one covers; the units are ranges of
those lines in the original text, so offsets are exact. A numbered list item is a list item,
never a heading. A heading's title is its text without inline markup. A list item's first
paragraph starts at its marker (``1. ``), which never ends a sentence.
"""

from __future__ import annotations

import re
from functools import cache

from ..parse import UnitBuilder, _cells
from .prose import ProseBatch

# Where markdown-it-py breaks lines (it normalises "\r\n" and "\r" to "\n" first).
_LINE_BREAK = re.compile(r"\r\n?|\n")
# Block-quote marks and indentation before a block's first character.
_CONTAINER = re.compile(r"[ \t>]*")
_MARKER = re.compile(r"[ \t>]*(?:[-*+]|\d{1,9}[.)])[ \t]*")


@cache
def _parser(inline: bool = True):
    """CommonMark with pipe tables; without ``inline``, the blocks and their lines only (no
    inline pass: only headings need their inline content read, for their titles, and reading
    every paragraph's was most of a long document's time)."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark").enable("table")
    return parser if inline else parser.disable("inline")


def _line_starts(text: str) -> list[int]:
    """Where each line starts, as markdown-it-py numbers them, and (last) the text's end."""
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(text))]
    if starts[-1] != len(text):
        starts.append(len(text))
    return starts


def _title(content: str, env: dict) -> str:
    """The text of a heading's inline ``content`` without its markup (emphasis, links, code
    marks), its reference links resolved by the document's definitions (``env``)."""
    parts = []
    (inline,) = _parser().parseInline(content, env)
    for child in inline.children or ():
        if child.type in ("text", "code_inline", "html_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return " ".join("".join(parts).split())


class _Reader(ProseBatch):
    def __init__(self, text: str, patterns: tuple[re.Pattern, ...] = ()):
        super().__init__(text)
        self.starts = _line_starts(text)
        self.patterns = patterns

    def line_end(self, line: int) -> int:
        """Where line ``line`` ends, before its line break."""
        start, stop = self.starts[line], self.starts[line + 1]
        raw = self.text[start:stop]
        return start + len(raw.rstrip("\r\n"))

    def span(self, lines: list[int]) -> tuple[int, int]:
        return self.starts[lines[0]], self.line_end(lines[1] - 1)

    def pattern_heading(self, lines: list[int], start: int, end: int) -> bool:
        """Read a paragraph whose first line a pattern matches as that heading and the rest;
        False when none matches."""
        first_end = self.line_end(lines[0])
        line = self.text[start:first_end].strip()
        if not any(p.search(line) for p in self.patterns):
            return False
        self.add_heading(
            start + _CONTAINER.match(self.text, start, first_end).end() - start, first_end, 2, line
        )
        if lines[1] - lines[0] > 1:
            self.add_prose(self.starts[lines[0] + 1], end)
        return True

    def run(self) -> None:
        env: dict = {}
        tokens = _parser(inline=False).parse(self.text, env)
        items: list[int] = []  # first line of each open list item
        fresh = False  # the next paragraph opens the innermost list item
        for k, token in enumerate(tokens):
            kind = token.type
            if kind == "list_item_open":
                items.append(token.map[0])
                fresh = True
            elif kind == "list_item_close":
                items.pop()
                fresh = False
            elif kind == "heading_open":
                s, e = self.span(token.map)
                if token.markup in ("=", "-"):  # setext: the underline is no part of it
                    e = self.line_end(token.map[1] - 2)
                self.add_heading(s, e, int(token.tag[1]), _title(tokens[k + 1].content, env))
                fresh = False
            elif kind == "paragraph_open":
                s, e = self.span(token.map)
                if fresh and items and token.map[0] == items[-1]:
                    marker = _MARKER.match(self.text, s, e)
                    self.add_prose(s, e, skip=marker.end() - s if marker else 0)
                elif self.patterns and self.pattern_heading(token.map, s, e):
                    pass
                else:
                    self.add_prose(_CONTAINER.match(self.text, s, e).end(), e)
                fresh = False
            elif kind in ("fence", "code_block"):
                self.add_block(*self.span(token.map), "code")
                fresh = False
            elif kind == "html_block":
                s, e = self.span(token.map)
                self.add_prose(_CONTAINER.match(self.text, s, e).end(), e)
                fresh = False
            elif kind == "tr_open":
                s, e = self.span(token.map)
                self.add_row(s, e, _cells(self.text, s, e))
                if tokens[k - 1].type == "thead_open":
                    self.mark_header()
            elif kind == "table_close":
                self.close_table()
            elif kind == "table_open":
                fresh = False


def read(source: str, headings: tuple[re.Pattern, ...] = ()) -> UnitBuilder:
    """The units of markdown ``source``; a paragraph whose first line ``headings`` match starts
    with that heading."""
    reader = _Reader(source, headings)
    reader.run()
    return reader
