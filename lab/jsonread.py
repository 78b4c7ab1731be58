"""JSON from users, bounded: nesting deeper than a limit and integers longer than a limit never
reach Python's recursive parser or its integer conversion, and each becomes one clear message.

Python's ``json.loads`` recurses once per level (100,000 nested brackets raise
``RecursionError``) and refuses integers of more than 4,300 digits with a bare ``ValueError``.
Every reader of user JSON (QE files, collection manifests, uploads, imports) goes through
:func:`loads` (refuse what is too deep) or :func:`loads_capped` (leave what is too deep out).
"""

from __future__ import annotations

import json
import re
from functools import partial

from .problems import CorpusError

MAX_DEPTH = 32  # a QE file needs 5 levels and a manifest 4; anything deeper is not ours
MAX_DIGITS = 100  # no offset, count or id a user means has more digits than this


class JsonError(CorpusError):
    """JSON that cannot be read; ``notes`` are what reading it had said before it failed."""

    def __init__(self, message: str, notes: tuple[str, ...] = ()):
        super().__init__(message)
        self.notes = notes


_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def cap_nesting(text: str, limit: int = MAX_DEPTH) -> tuple[str, int | None]:
    """JSON ``text`` with each value nested deeper than ``limit`` levels replaced by ``null``, and
    the offset where the first such value began (None when none did)."""
    if text.count("[") + text.count("{") <= limit:
        return text, None
    pieces: list[str] = []
    depth, pos, cut, first = 0, 0, None, None
    for m in _JSON_TOKEN.finditer(text):
        token = m.group()
        if token in ("[", "{"):
            depth += 1
            if depth == limit + 1:
                cut = m.start()
        elif token in ("]", "}"):
            if depth == limit + 1 and cut is not None:
                pieces += [text[pos:cut], "null"]
                pos, first, cut = m.end(), cut if first is None else first, None
            depth -= 1
    if cut is not None:  # never closed: the rest is dropped, and the JSON error says where
        pieces.append(text[pos:cut])
        return "".join(pieces), cut if first is None else first
    if first is None:
        return text, None
    pieces.append(text[pos:])
    return "".join(pieces), first


NOT_SHALLOW = object()


def shallow(text: str, limit: int = MAX_DEPTH) -> object:
    """``json.loads(text)`` when it is valid JSON nested at most ``limit`` levels deep with no
    integer longer than :data:`MAX_DIGITS` (what :func:`loads_capped` leaves as it is), else
    :data:`NOT_SHALLOW`."""
    huge: list[int] = []
    try:
        value = json.loads(text, parse_int=partial(_int, huge))
    except (ValueError, RecursionError):
        return NOT_SHALLOW
    if huge:
        return NOT_SHALLOW
    level, depth = [value], 0
    while level:
        level = [v for v in level if isinstance(v, (list, dict))]
        if level:
            depth += 1
            if depth > limit:
                return NOT_SHALLOW
        level = [c for v in level for c in (v.values() if isinstance(v, dict) else v)]
    return value


def _int(huge: list[int], digits: str) -> int | None:
    """An integer of at most :data:`MAX_DIGITS` digits; None (noted in ``huge``) beyond."""
    length = len(digits.lstrip("-"))
    if length > MAX_DIGITS:
        huge.append(length)
        return None
    return int(digits)


def _where(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line}, column {offset - text.rfind(chr(10), 0, offset)}"


def _parse(text: str, what: str) -> tuple[object, list[str]]:
    huge: list[int] = []
    try:
        value = json.loads(text, parse_int=partial(_int, huge))
    except json.JSONDecodeError as exc:
        raise JsonError(
            f"{what} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}."
        ) from None
    if not huge:
        return value, []
    count = (
        f"a number of {huge[0]:,} digits"
        if len(huge) == 1
        else f"{len(huge)} numbers of up to {max(huge):,} digits"
    )
    return value, [
        f"{what} holds {count}; a number longer than {MAX_DIGITS} digits is read as null."
    ]


def loads(text: str, what: str, limit: int = MAX_DEPTH) -> tuple[object, list[str]]:
    """``text`` parsed as JSON, and a note per thing left out. :class:`CorpusError` naming
    ``what`` and the place when it is not valid JSON or nests deeper than ``limit`` levels;
    an integer longer than :data:`MAX_DIGITS` digits is read as null (one note says so)."""
    _, deep = cap_nesting(text, limit)
    if deep is not None:
        raise JsonError(f"{what} nests deeper than {limit} levels at {_where(text, deep)}.")
    return _parse(text, what)


def loads_capped(text: str, what: str, limit: int = MAX_DEPTH) -> tuple[object, list[str]]:
    """Like :func:`loads`, but a value nested deeper than ``limit`` levels is read as null (one
    note says where the first one was) instead of refusing the whole text."""
    value = shallow(text, limit)
    if value is not NOT_SHALLOW:
        return value, []
    capped, deep = cap_nesting(text, limit)
    notes = []
    if deep is not None:
        notes.append(
            f"{what} nests deeper than {limit} levels at {_where(capped, deep)}; values that "
            "deep were left out."
        )
    try:
        value, huge = _parse(capped, what)
    except JsonError as exc:
        raise JsonError(str(exc), tuple(notes)) from None
    return value, notes + huge


def loads_or_none(text: str, limit: int = MAX_DEPTH) -> object:
    """``text`` parsed as JSON by :func:`loads_capped`, or None when it is not JSON: for a guess
    at what a file is, where its own reader reports the problem."""
    try:
        return loads_capped(text, "the text", limit)[0]
    except JsonError:
        return None
