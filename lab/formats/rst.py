"""reStructuredText: section titles by their adornment, paragraphs, list items and literal blocks.

A section title is a line underlined (or overlined and underlined) by one punctuation character
repeated at least as long as the title; the levels are the adornment styles in the order the
document introduces them, as docutils assigns them. A paragraph ending in ``::`` and the
``code``/``code-block``/``sourcecode`` directives introduce a literal block (a code unit: a
``# comment`` in one is no heading); a grid or simple table is a code unit too; comments
(``.. text``) and transitions are no content; other directives' bodies are read as text.
"""

from __future__ import annotations

import re

from ..parse import _lines
from .prose import ProseBatch

_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1+[ \t]*")
_LIST = re.compile(r"[ \t]*(?:[-*+\u2022]|#\.|\d{1,3}[.)]|\(?[a-zA-Z0-9]\))[ \t]+(?=\S)")
_CODE_DIRECTIVE = re.compile(r"\.\.[ \t]+(?:code|code-block|sourcecode|highlight)::")
_DIRECTIVE = re.compile(r"\.\.[ \t]+[\w:-]+::")
_COMMENT = re.compile(r"\.\.(?:[ \t]|$)")
_TABLE_BORDER = re.compile(r"[ \t]*(?:\+[-=+]+\+|=+(?:[ \t]+=+)+)[ \t]*")


_ROLE = re.compile(r":[\w.+-]+(?::[\w.+-]+)*:`([^`]*)`|`([^`]*)`_{0,2}|``([^`]*)``")
_EMPHASIS = re.compile(r"\*\*?([^*]+)\*\*?")
_REFERENCE_TARGET = re.compile(r"\s*<[^>]*>$")


def _plain(title: str) -> str:
    """A title without inline markup: roles, literals, emphasis and link targets."""

    def inner(m: re.Match) -> str:
        return _REFERENCE_TARGET.sub("", next(g for g in m.groups() if g is not None))

    title = title.replace("``", "`")
    return " ".join(_EMPHASIS.sub(r"\1", _ROLE.sub(inner, title)).split())


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _title(lines: list[str], i: int) -> tuple[str, bool, int] | None:
    """When a section title starts at line ``i``: its adornment style (the character and whether
    it is overlined), and how many lines it covers; None otherwise."""
    line = lines[i]
    n = len(lines)
    over = _ADORNMENT.fullmatch(line)
    if over and i + 2 < n and lines[i + 1].strip():
        title, under = lines[i + 1], _ADORNMENT.fullmatch(lines[i + 2])
        if under and under.group(1) == over.group(1) and len(line.rstrip()) >= len(title.strip()):
            return over.group(1), True, 3
    if not line.strip() or line[:1].isspace() or over or i + 1 >= n:
        return None
    under = _ADORNMENT.fullmatch(lines[i + 1])
    if under and len(lines[i + 1].rstrip()) >= len(line.rstrip()) and len(lines[i + 1]) >= 2:
        return under.group(1), False, 2
    return None


class _Reader(ProseBatch):
    def run(self) -> None:
        text = self.text
        lines, starts = _lines(text)
        styles: list[tuple[str, bool]] = []
        n = len(lines)

        def end_of(line: int) -> int:
            return starts[line] + len(lines[line])

        def block_end(i: int, indent: int) -> int:
            """The line after the block indented deeper than ``indent`` that starts at ``i``."""
            j = i
            while j < n and (not lines[j].strip() or _indent(lines[j]) > indent):
                j += 1
            while j > i and not lines[j - 1].strip():
                j -= 1
            return j

        i = 0
        literal_next = False  # the paragraph before ended with "::"
        literal_indent = 0  # that paragraph's indentation: the literal block is indented deeper
        while i < n:
            line = lines[i]
            if not line.strip():
                i += 1
                continue
            indent = _indent(line)
            if literal_next and indent > literal_indent:
                stop = block_end(i, literal_indent)
                self.add_block(starts[i], end_of(stop - 1), "code")
                literal_next = False
                i = stop
                continue
            literal_next = False
            title = _title(lines, i)
            if title is not None:
                char, over, size = title
                if (char, over) not in styles:
                    styles.append((char, over))
                row = i + 1 if over else i
                self.add_heading(
                    starts[row] + _indent(lines[row]),
                    end_of(row),
                    styles.index((char, over)) + 1,
                    _plain(lines[row]),
                )
                i += size
                continue
            stripped = line.lstrip()
            if _ADORNMENT.fullmatch(line) and len(stripped) >= 4:
                i += 1  # a transition
                continue
            if _CODE_DIRECTIVE.match(stripped):
                stop = block_end(i + 1, indent)
                if stop > i + 1:
                    first = i + 1
                    while first < stop and (
                        not lines[first].strip() or lines[first].lstrip().startswith(":")
                    ):
                        first += 1  # the directive's options
                    if first < stop:
                        self.add_block(starts[first], end_of(stop - 1), "code")
                i = max(stop, i + 1)
                continue
            if _COMMENT.match(stripped) and not _DIRECTIVE.match(stripped):
                i = max(block_end(i + 1, indent), i + 1)
                continue
            if _TABLE_BORDER.fullmatch(line):
                stop = i + 1
                while stop < n and lines[stop].strip():
                    stop += 1
                self.add_block(starts[i], end_of(stop - 1), "code")
                i = stop
                continue
            # A paragraph or list item: lines up to a blank line, a new item or a title.
            stop = i + 1
            while stop < n and lines[stop].strip() and not _LIST.match(lines[stop]):
                if _title(lines, stop) is not None or _ADORNMENT.fullmatch(lines[stop]):
                    break
                stop += 1
            s, e = starts[i], end_of(stop - 1)
            if _DIRECTIVE.match(stripped):
                s += len(_DIRECTIVE.match(stripped).group()) + indent
            marker = _LIST.match(line)
            self.add_prose(s, e, skip=marker.end() - marker.start() if marker else 0)
            literal_next = lines[stop - 1].rstrip().endswith("::")
            literal_indent = indent
            i = stop


def read(source: str) -> ProseBatch:
    """The units of reStructuredText ``source``."""
    reader = _Reader(source)
    reader.run()
    return reader
