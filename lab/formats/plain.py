"""The heading shapes plain texts use, and where their context says a line is a heading.

Shapes: release lines of changelogs and NEWS files (``2.3.1 (2021-05-04)``, ``Version 0.14
(21-Mar-2004)``, ``* Noteworthy changes in release 1.12``, Debian's ``pkg (1.2-3) unstable;``),
question lines of FAQs (``Q: ...``, ``1. Is it thread-safe?``, a line ending with ``?`` and an
indented answer under it), ALL-CAPS section lines at the margin (a man page's NAME, SYNOPSIS,
OPTIONS), ``ARTICLE IV`` / ``Section 3`` clause lines, and Emacs outline stars (``* Title``,
``** Sub``) in a file that declares outline mode. Underlined (``===``/``---``) and numbered
(``1.2 Title``) headings are read by the line reader itself.

A line of a shape is a heading only where its context says so: it is short, ends without
sentence punctuation (a question its ``?``), follows a blank line (or the text's start, or a
form feed), has body text under it, and is not a list item among list items or a table row;
and the shape recurs (two lines or more), so a lone line that happens to look like one is not
taken for structure.
"""

from __future__ import annotations

import re

MAX_CHARS = 80
MAX_CAPS_WORDS = 8

RELEASE = re.compile(
    r"(?:(?:No\s+)?(?:(?:Noteworthy|User-visible|Major|major|Notable)\s+)?[Cc]hanges\s+"
    r"(?:in|for|since|from)\s+(?:[A-Z][\w-]*\s+)?|What'?s\s+[Nn]ew\s+in\s+(?:\S+\s+)?"
    r"|[A-Z][\w-]*\s+(?=v?\d))?"
    r"(?:(?:[Vv]ersion|VERSION|[Rr]elease|RELEASE)\s+)?v?\d+(?:\.\d+)+[\w.+~-]*"
    r"(?:\s+(?:to|or|and)\s+v?\d+(?:\.\d+)+[\w.+~-]*)?"
    r"(?:\s*(?:[-:,\u2013\u2014]\s*)?[(\[].*|\s+[-\u2013\u2014:]\s+.*|:)?"
)
_DEBIAN = re.compile(r"[a-z0-9][a-z0-9.+-]+ \([^)\s]+\) [a-z][\w/-]*(?: [a-z][\w/-]*)*;.*")
_QUESTION = re.compile(r"(?:Q(?:uestion)?\s*\d*\s*[:.)]\s*\S.*|\d{1,3}[.)]\s+\S.*\?|\S.*\?)")
_CAPS = re.compile(r"[A-Z][A-Z0-9 ,&/()'\-]*[A-Z0-9)]")
_CLAUSE = re.compile(
    r"(?:ARTICLE|Article|SECTION|Section|CHAPTER|Chapter|PART|Part)\s+"
    r"(?:[IVXLCDM]+|\d+(?:\.\d+)*|[A-Z])\b\.?(?:\s*[-:.\u2013\u2014]?\s+\S.*)?"
    r"|(?:APPENDIX|Appendix|ANNEX|Annex)(?:\s+(?:[IVXLCDM]+|\d+|[A-Z])\b)?\.?"
    r"(?:\s*[-:.\u2013\u2014]?\s+\S.*)?"
)
_END_MARK = re.compile(r"END\b")  # "END OF TERMS AND CONDITIONS" closes a part, opens none
_OUTLINE = re.compile(r"(\*{1,4})[ \t]+(\S.*?)[ \t]*")
_OUTLINE_MODE = re.compile(r"-\*-.*\boutline\b.*-\*-")
_LIST = re.compile(r"[ \t]*(?:[-*+\u2022]|\d{1,3}[.)]|[a-z][.)])[ \t]+\S")
_COLUMNS = re.compile(r"\S(?: {3,}|\t)\S")  # cells laid out in columns: a table row
_SENTENCE_END = re.compile(r"[.,;!]$")
_UNDERLINE = re.compile(r"[ \t]*([=\-~^*+#_])\1{2,}[ \t]*")

# Each shape: its name, its pattern, the level its headings get, and whether it must stand at
# the margin (no indentation).
SHAPES = (
    ("version", RELEASE, 2, False),
    ("debian", _DEBIAN, 2, True),
    ("clause", _CLAUSE, 2, False),
    ("caps", _CAPS, 2, True),
    ("question", _QUESTION, 3, True),
)


def _blank_before(lines: list[str], i: int) -> bool:
    return i == 0 or not lines[i - 1].strip() or lines[i - 1].strip() == "\f"


def _body_after(lines: list[str], i: int) -> bool:
    """Whether body text follows line ``i`` (after at most one blank line)."""
    return any(j < len(lines) and lines[j].strip() for j in (i + 1, i + 2))


def _shape(lines: list[str], i: int, indent: int = 0) -> tuple[str, int, str] | None:
    """The shape line ``i`` has, its level and title, or None when its context says it is no
    heading; ``indent`` is the text's margin (the least indentation of its lines)."""
    line = lines[i]
    title = line.strip().lstrip("\f").strip()
    if not title or len(title) > MAX_CHARS or not _blank_before(lines, i):
        return None
    if not _body_after(lines, i) or "|" in title or _COLUMNS.search(title):
        return None
    if i + 1 < len(lines) and _UNDERLINE.fullmatch(lines[i + 1]):
        return None  # underlined: the line reader reads it
    margin = len(line) - len(line.lstrip()) == indent
    for name, pattern, level, at_margin in SHAPES:
        if at_margin and not margin:
            continue
        if not pattern.fullmatch(title):
            continue
        if name == "caps" and (
            len(title.split()) > MAX_CAPS_WORDS
            or sum(c.isalpha() for c in title) < 3
            or _END_MARK.match(title)
        ):
            continue
        if name == "clause" and title.endswith(".") and not title.endswith(".."):
            title = title[:-1]  # "APPENDIX: How to apply the License to your work."
        if name == "question":
            if _listed(lines, i) and not title.endswith("?"):
                continue
        elif _SENTENCE_END.search(title):
            continue
        if name != "question" and _listed(lines, i):
            continue
        return name, level, title
    return None


def _listed(lines: list[str], i: int) -> bool:
    """Whether line ``i`` is a list item with a list item right before or after it."""
    if not _LIST.match(lines[i]):
        return False
    return any(0 <= j < len(lines) and _LIST.match(lines[j]) for j in (i - 1, i + 1))


def _outline_headings(lines: list[str]) -> dict[int, tuple[int, str]]:
    """Emacs outline-mode headings (``* Title``, ``** Sub``) of a file that declares the mode:
    star lines between blank lines that read as titles, not as entries (no sentence end, no
    colon); release lines without stars at the margin are top-level headings too."""
    found = {}
    for i, line in enumerate(lines):
        if not _blank_before(lines, i):
            continue
        m = _OUTLINE.fullmatch(line)
        if m and i + 1 < len(lines) and not lines[i + 1].strip():
            if len(m.group(2)) <= MAX_CHARS and not re.search(r"[.,;:!]$", m.group(2)):
                found[i] = (len(m.group(1)), m.group(2))
        elif not m and not line[:1].isspace() and RELEASE.fullmatch(line.strip()):
            found[i] = (1, line.strip())
    return found


def plain_headings(lines: list[str], skip: set[int] = frozenset()) -> dict[int, tuple[int, str]]:
    """The heading lines of a plain text's ``lines`` (none of ``skip``, the lines of code blocks),
    with their level and title."""
    if lines and any(_OUTLINE_MODE.search(line) for line in lines[:3]):
        return _outline_headings(lines)
    title = centred_title(lines)
    block = _block(lines, title) if title is not None else set()
    indent = min(
        (
            len(line) - len(line.lstrip())
            for i, line in enumerate(lines)
            if line.strip() and i not in block
        ),
        default=0,
    )
    by_shape: dict[str, dict[int, tuple[int, str]]] = {}
    for i in range(len(lines)):
        if i in skip or i in block or not _blank_before(lines, i):
            continue
        found = _shape(lines, i, indent)
        if found is not None:
            name, level, title_ = found
            by_shape.setdefault(name, {})[i] = (level, title_)
    # Dividers recur as caps lines and clause lines together (a licence's "TERMS AND
    # CONDITIONS" and its "APPENDIX: ...").
    dividers = len(by_shape.get("caps", ())) + len(by_shape.get("clause", ()))
    shapes = {
        name: found
        for name, found in by_shape.items()
        if len(found) >= 2 or (name in ("caps", "clause") and dividers >= 2)
    }
    if "question" in shapes and not shapes.keys() - {"question"}:
        shapes["question"] = {i: (2, title) for i, (_, title) in shapes["question"].items()}
    if "debian" in shapes:
        shapes.pop("version", None)  # a Debian changelog's entries name versions too
    found = {i: head for found in shapes.values() for i, head in found.items()}
    if title is not None:
        found[title] = (1, lines[title].strip())
    return found


def _width(lines: list[str]) -> int:
    """The right edge of a text's lines: the length nine in ten of its lines stay within."""
    lengths = sorted(len(line.rstrip()) for line in lines if line.strip())
    return lengths[(len(lengths) * 9) // 10] if lengths else 0


def centred_title(lines: list[str]) -> int | None:
    """The line of a text's centred title, or None: its first line, when it is short, starts
    with a capital, ends without sentence punctuation, is indented so that its margins balance
    within the text's line width (a text of fixed-width lines, 60 characters or more) and has
    body text under it (after the lines centred with it: a version, an address)."""
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return None
    line = lines[first].rstrip()
    title = line.strip()
    width = _width(lines)
    left = len(line) - len(title)
    right = width - len(line)
    if width < 60 or left < 8 or abs(left - right) > max(4, width // 8):
        return None
    if len(title) > MAX_CHARS or len(title.split()) > 10 or not title[:1].isupper():
        return None
    if _SENTENCE_END.search(title) or title.endswith(":"):
        return None
    rest = _block(lines, first)
    return first if any(line.strip() for line in lines[max(rest) + 1 :]) else None


def _block(lines: list[str], first: int) -> set[int]:
    """Line ``first`` and the non-blank lines right under it."""
    end = first + 1
    while end < len(lines) and lines[end].strip():
        end += 1
    return set(range(first, end))


def fenced_lines(lines: list[str]) -> set[int]:
    """The lines of markdown code fences (their fence lines too)."""
    inside, fence = set(), None
    for i, line in enumerate(lines):
        mark = line.lstrip(" ")[:3]
        if fence is None and mark in ("```", "~~~") and len(line) - len(line.lstrip(" ")) <= 3:
            fence = mark
            inside.add(i)
        elif fence is not None:
            inside.add(i)
            if line.lstrip().startswith(fence):
                fence = None
    return inside
