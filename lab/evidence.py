"""Locate evidence strings in a document: any run of whitespace matches any other run, and
look-alike characters (quotes, dashes, ligatures, soft hyphens) are folded when the text as typed
is not found, with a warning naming what differed. A pinned ``start`` picks one occurrence;
``"occurrence": "any"`` accepts every one."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .decode import original_offset, shift_offset
from .parse import Document
from .problems import InputError

KEY_WORDS = 3
SCAN_CHARS = 1_000_000  # text a locator reads needle by needle before it indexes the runs of words

# Look-alike characters that keyboards, word processors and PDF extraction put in place of one
# another, by kind, with the plain text each folds to. Evidence not found as typed is looked for
# again with both texts folded, and the difference is reported.
LOOKALIKES: dict[str, dict[str, str]] = {
    "quotes": dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'")
    | dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
    "dashes": dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    "ligatures": {
        "\ufb00": "ff",
        "\ufb01": "fi",
        "\ufb02": "fl",
        "\ufb03": "ffi",
        "\ufb04": "ffl",
        "\ufb05": "st",
        "\ufb06": "st",
    },
    "ellipses": {"\u2026": "..."},
    "soft hyphens": dict.fromkeys("\u00ad\u200b\u200c\u200d\u2060", ""),
}
_FOLD = {c: plain for table in LOOKALIKES.values() for c, plain in table.items()}
_FOLD_TABLE = str.maketrans(_FOLD)
_FOLDED_CHAR = re.compile("[" + "".join(_FOLD) + "]")
# The plain forms count too when saying what differs ("'" against "\u2019").
_KIND_OF = {c: kind for kind, table in LOOKALIKES.items() for c in table} | {
    "'": "quotes",
    '"': "quotes",
    "-": "dashes",
}


OCCURRENCES = ("first", "any")  # the values of an evidence entry's "occurrence"


@dataclass(frozen=True, slots=True)
class Evidence:
    """An evidence string located in document ``doc`` at ``[start, end)``, covering units
    ``first..last`` (inclusive). ``occurrences``: for evidence that accepts any occurrence,
    every place it occurs as ``(doc, start, end)``, in order (the first is this one); a
    context holding any of them holds the evidence. None: only this one counts."""

    text: str
    doc: int
    start: int
    end: int
    first: int
    last: int
    occurrences: tuple[tuple[int, int, int], ...] | None = None

    @property
    def places(self) -> tuple[tuple[int, int, int], ...]:
        """Every ``(doc, start, end)`` a context may hold it at."""
        return self.occurrences or ((self.doc, self.start, self.end),)

    @property
    def key(self) -> tuple:
        """What a chunk must hold a copy of: ``(doc, start, end)``, or for evidence that
        accepts any occurrence, the tuple of all of them."""
        if self.occurrences is None:
            return (self.doc, self.start, self.end)
        return self.occurrences


# Whitespace as ``str.split`` reads it, by code point (none lies above U+3000); the entry past the
# last stands for every code point above.
_SPACE_CODES = np.zeros(0x3002, dtype=bool)
_SPACE_CODES[[c for c in range(0x3001) if chr(c).isspace()]] = True


def _flat_offsets(text: str) -> np.ndarray:
    """The original offset of each character of ``" ".join(text.split())``: every non-space
    character, and for the space between two words the first whitespace character after the
    first word."""
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    space = _SPACE_CODES[np.minimum(codes, len(_SPACE_CODES) - 1)]
    solid = np.flatnonzero(~space)
    if not len(solid):
        return solid.astype(np.int64)
    keep = ~space
    keep[1:] |= ~space[:-1]  # the first space after a word ...
    keep[solid[-1] + 1 :] = False  # ... that has a word after it
    return np.flatnonzero(keep).astype(np.int64)


_MULTIPLIER = 1_000_003


def _combine(hashes: Iterable[np.ndarray]) -> np.ndarray:
    """Hashes of runs of words from their words' hashes, position by position (int64 wrapping:
    ``h = h * 1_000_003 + word``)."""
    out = np.zeros(0, dtype=np.int64)
    for k, h in enumerate(hashes):
        out = h.astype(np.int64) if k == 0 else out * np.int64(_MULTIPLIER) + h
    return out


def _run_hash(words: Iterable[str]) -> int:
    """:func:`_combine` of one run of words, in Python ints."""
    out = None
    for word in words:
        h = hash(word)
        out = h if out is None else (out * _MULTIPLIER + h + 2**63) % 2**64 - 2**63
    return out


class Locator:
    """Finds text in a document with any run of whitespace matching any other run; failing that,
    with look-alike characters folded (:data:`LOOKALIKES`).

    ``scan_chars``: the text it reads needle by needle (``str.find``) before it indexes the
    runs of ``KEY_WORDS`` words by their hashes and bisects; both find the same words, the
    index sooner on a long text searched often. 0 indexes at once."""

    def __init__(self, text: str, scan_chars: int = SCAN_CHARS):
        self.text = text
        self.scan_chars = scan_chars
        # the words joined by one space, and each flat character's original offset (a space
        # between two words stands at the first whitespace character after the first)
        self.words = text.split()
        self.flat = " ".join(self.words)
        self.offsets = _flat_offsets(text)
        self.scanned = 0  # characters read by ``word_hits`` before it indexed the runs

    @cached_property
    def _runs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each word's flat offset, and the runs of ``KEY_WORDS`` words (by their first word)
        ordered by a hash of the run, with the sorted hashes: a run is found by bisection."""
        words = self.words or [""]  # ``self.flat.split(" ")``
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        starts = np.cumsum(lengths + 1) - lengths - 1
        count = len(words) - KEY_WORDS + 1
        hashes = np.fromiter(map(hash, words), dtype=np.int64, count=len(words))
        runs = _combine(hashes[k : k + count] for k in range(KEY_WORDS))
        order = np.argsort(runs)
        return starts, order, runs[order]

    def word_hits(self, needle: str) -> list[int]:
        """Flat offsets of the words where the flat ``needle`` begins with its first
        ``KEY_WORDS`` words whole, in order (none when it has fewer words)."""
        run = needle.split(" ", KEY_WORDS)[:KEY_WORDS]
        if len(run) < KEY_WORDS:
            return []
        flat, end = self.flat, len(run) - 1 + sum(map(len, run))
        if self.scanned + len(flat) <= self.scan_chars and "_runs" not in self.__dict__:
            # A short text, or the first few needles: reading the text costs less than
            # indexing its runs.
            self.scanned += len(flat)
            hits, p, last = [], flat.find(needle), len(flat)
            while p >= 0:
                if (p == 0 or flat[p - 1] == " ") and (p + end == last or flat[p + end] == " "):
                    hits.append(p)
                p = flat.find(needle, p + 1)
            return hits
        starts, order, hashes = self._runs
        key = _run_hash(run)
        lo = int(hashes.searchsorted(key, "left"))
        hi = int(hashes.searchsorted(key, "right"))
        # the same hash: the same words, unless two runs' hashes collide
        hits = [
            p
            for p in starts[order[lo:hi]].tolist()
            if flat.startswith(needle, p) and (p + end == len(flat) or flat[p + end] == " ")
        ]
        hits.sort()
        return hits

    @cached_property
    def folded(self) -> tuple[str, np.ndarray]:
        """The flat text with look-alikes folded, and the flat offset of each folded character."""
        lengths = np.ones(len(self.flat), dtype=np.int64)
        for m in _FOLDED_CHAR.finditer(self.flat):
            lengths[m.start()] = len(_FOLD[m.group()])
        return self.flat.translate(_FOLD_TABLE), np.repeat(np.arange(len(self.flat)), lengths)

    def _haystack(self, needle: str, folded: bool) -> tuple[str, str, np.ndarray | None]:
        flat_needle = " ".join(needle.split())
        if not folded:
            return self.flat, flat_needle, None
        hay, to_flat = self.folded
        return hay, flat_needle.translate(_FOLD_TABLE), to_flat

    def _span(self, p: int, length: int, to_flat: np.ndarray | None) -> tuple[int, int]:
        """Original ``[start, end)`` of ``length`` haystack characters from position ``p``."""
        first, last = (p, p + length - 1) if to_flat is None else to_flat[[p, p + length - 1]]
        return int(self.offsets[first]), int(self.offsets[last]) + 1

    def find_all(
        self, needle: str, limit: int | None = None, *, folded: bool = False
    ) -> list[tuple[int, int]]:
        """Occurrences that start at a word, in order; failing those, anywhere (as ``str.find``).
        ``folded``: look-alike characters folded in both texts."""
        hay, flat_needle, to_flat = self._haystack(needle, folded)
        if not flat_needle:
            return []
        hits = [] if folded else self.word_hits(flat_needle)
        if not hits:
            anywhere = []
            pos = hay.find(flat_needle)
            while pos >= 0:
                anywhere.append(pos)
                pos = hay.find(flat_needle, pos + 1)
            hits = [p for p in anywhere if p == 0 or hay[p - 1] == " "] or anywhere
        return [self._span(p, len(flat_needle), to_flat) for p in hits[:limit]]

    def find_at(self, needle: str, start: int, *, folded: bool = False) -> tuple[int, int] | None:
        """The occurrence that begins at original offset ``start``, or at the first character
        after whitespace there (evidence copied with a leading space pins the space)."""
        text = self.text
        while start < len(text) and text[start].isspace():
            start += 1
        hay, flat_needle, to_flat = self._haystack(needle, folded)
        i = int(np.searchsorted(self.offsets, start))
        if not flat_needle or i >= len(self.offsets) or self.offsets[i] != start:
            return None
        if to_flat is not None:
            i = int(np.searchsorted(to_flat, i))
        if not hay.startswith(flat_needle, i):
            return None
        return self._span(i, len(flat_needle), to_flat)


def _unpinned(text: str, pinned: int, qid: str, locator: Locator, removed: list[int]) -> InputError:
    """The warning for a pinned start the evidence is not at: where it does occur (counted as
    the pin is), and that the first occurrence is used instead."""
    found = locator.find_all(text, limit=4) or locator.find_all(text, limit=4, folded=True)
    where = ", ".join(str(original_offset(s, removed)) for s, _ in found[:3])
    more = ", ..." if len(found) > 3 else ""
    occurs = f"; it occurs at {where}{more}" if found else ""
    return InputError(
        f"evidence {preview(text)!r} is not at start {pinned}{occurs}; using the first occurrence.",
        qid,
        "warning",
    )


def preview(text: str, words: int = 6) -> str:
    parts = text.split()
    head = " ".join(parts[:words])
    return head + (" ..." if len(parts) > words else "")


def _lookalike_note(found: str, typed: str) -> str:
    """What the document's text differs by from the typed evidence, kind by kind."""
    parts = []
    for kind in LOOKALIKES:
        ours = sorted({c for c in found if _KIND_OF.get(c) == kind})
        theirs = sorted({c for c in typed if _KIND_OF.get(c) == kind})
        if ours != theirs:
            parts.append(f"{kind} ({_chars(ours)} in the document, {_chars(theirs)} typed)")
    return "; ".join(parts) or "look-alike characters"


def _chars(chars: list[str]) -> str:
    if not chars:
        return "none"
    return " ".join(c if c.isprintable() and not c.isspace() else f"U+{ord(c):04X}" for c in chars)


def other_forms(text: str) -> list[str]:
    """``text`` in the Unicode normal forms it is not in (NFC: composed accents, NFD:
    decomposed), the same words as a reader sees them."""
    forms = (unicodedata.normalize(form, text) for form in ("NFC", "NFD"))
    return [alt for alt in dict.fromkeys(forms) if alt != text]


def locate(
    entry: object,
    qid: str,
    doc_index: int,
    document: Document,
    locator: Locator,
    removed: list[int] = (),
) -> tuple[Evidence | None, list[InputError]]:
    """Find one evidence entry: at its pinned start (an offset of the text as given, before line
    endings were normalised), else its first occurrence, or with ``"occurrence": "any"`` every
    occurrence; failing that, the same with look-alike characters folded, with a warning that
    says what differed."""
    pinned, occurrence = None, OCCURRENCES[0]
    if isinstance(entry, dict):
        text, pinned = entry.get("text"), entry.get("start")
        occurrence = entry.get("occurrence", occurrence)
        if occurrence not in OCCURRENCES:
            return None, [
                InputError(
                    f'evidence occurrence {occurrence!r} is not one of "first" or "any".', qid
                )
            ]
        if pinned is not None and (
            not isinstance(pinned, int) or isinstance(pinned, bool) or pinned < 0
        ):
            return None, [
                InputError(f"evidence start {pinned!r} is not a non-negative integer.", qid)
            ]
    else:
        text = entry
    if not isinstance(text, str) or not text.strip():
        return None, [InputError("an evidence entry is empty or not text.", qid)]
    errors: list[InputError] = []
    if occurrence == "any" and pinned is not None:
        errors.append(
            InputError(
                f'evidence {preview(text)!r} is pinned ("start") and accepts any occurrence; '
                "using the pinned one.",
                qid,
                "warning",
            )
        )
    if occurrence == "any" and pinned is None:
        return _every_occurrence(text, qid, doc_index, document, locator)
    span, folded = None, False
    if pinned is not None:
        at = shift_offset(pinned, removed)
        for folded in (False, True):
            span = locator.find_at(text, at, folded=folded)
            if span is not None:
                break
        if span is None:
            errors.append(_unpinned(text, pinned, qid, locator, removed))
    if span is None:
        for folded in (False, True):
            found = locator.find_all(text, limit=2, folded=folded)
            if found:
                break
        for alt in other_forms(text) if not found else ():
            found, folded = locator.find_all(alt, limit=2), False
            if found:
                errors.append(
                    InputError(
                        f"evidence {preview(text)!r} writes accented letters in another Unicode "
                        "form than the document (composed or decomposed); it was matched in "
                        "the document's form.",
                        qid,
                        "warning",
                    )
                )
                break
        if not found:
            return None, [InputError(f"evidence not found: {preview(text)!r}", qid)]
        span = found[0]
        if len(found) > 1 and pinned is None:
            errors.append(
                InputError(
                    f"evidence {preview(text)!r} occurs more than once; "
                    'using the first occurrence (pin one with "start", or accept any with '
                    '"occurrence": "any").',
                    qid,
                    "warning",
                )
            )
    start, end = span
    if folded:
        errors.append(
            InputError(
                f"evidence {preview(text)!r} is not in the document as typed; it matches "
                f"where they differ in {_lookalike_note(document.text[start:end], text)}: "
                "using that match.",
                qid,
                "warning",
            )
        )
    return Evidence(
        text, doc_index, start, end, document.unit_at(start), document.unit_at(end - 1)
    ), errors


def accepts_any(entry: object) -> bool:
    """Whether an evidence entry accepts any occurrence (``"occurrence": "any"``, not pinned)."""
    return (
        isinstance(entry, dict) and entry.get("occurrence") == "any" and entry.get("start") is None
    )


def _every_occurrence(
    text: str, qid: str, doc_index: int, document: Document, locator: Locator
) -> tuple[Evidence | None, list[InputError]]:
    """Evidence ``text`` at every place it occurs in the document (as typed, failing that with
    look-alike characters folded): the first is its span, all of them its ``occurrences``."""
    for folded in (False, True):
        found = locator.find_all(text, folded=folded)
        if found:
            break
    if not found:
        return None, [InputError(f"evidence not found: {preview(text)!r}", qid)]
    start, end = found[0]
    errors = []
    if folded:
        errors.append(
            InputError(
                f"evidence {preview(text)!r} is not in the document as typed; it matches "
                f"where they differ in {_lookalike_note(document.text[start:end], text)}: "
                "using those matches.",
                qid,
                "warning",
            )
        )
    occurrences = tuple((doc_index, s, e) for s, e in found)
    first, last = document.unit_at(start), document.unit_at(end - 1)
    return Evidence(text, doc_index, start, end, first, last, occurrences), errors
