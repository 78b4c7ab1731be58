"""Load documents and question-evidence (QE) sets into a validated corpus.

Every problem with the input becomes an :class:`InputError` with a precise message; the valid
part of the input still loads. Evidence strings are located whitespace-insensitively.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import numpy as np

from .collection import (
    DEFAULT,
    DocumentInfo,
    Meta,
    Policy,
    Source,
    check_type,
    document_format,
    infer_type,
    known_types,
    matches,
    parse_meta,
    parse_policy,
    parse_source,
    read_manifest,
    resolve_name,
)
from .parse import Document
from .problems import CorpusError, InputError

SPLITS = ("train", "test")
MAX_DOCUMENT_CHARS = 5_000_000
MAX_QE_CHARS = 5_000_000
MAX_NESTING = 32  # a QE file needs 5 levels; anything deeper is left out rather than recursed into

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


@dataclass(frozen=True, slots=True)
class Evidence:
    """An evidence string located in document ``doc`` at ``[start, end)``, covering units
    ``first..last`` (inclusive)."""

    text: str
    doc: int
    start: int
    end: int
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class Question:
    """A question and the evidence a context must hold to answer it, each span in its own
    document. ``filter`` (metadata key -> accepted values) keeps retrieval to the documents whose
    metadata match it."""

    id: str
    question: str
    split: str
    evidence: tuple[Evidence, ...]
    case: str | None = None
    filter: Meta = ()

    @property
    def docs(self) -> tuple[int, ...]:
        """The documents its evidence is in, in the order the evidence names them."""
        return tuple(dict.fromkeys(e.doc for e in self.evidence))

    @property
    def multi_doc(self) -> bool:
        return len(self.docs) > 1


@dataclass(frozen=True, eq=False)
class Corpus:
    """Parsed documents with their type and metadata (``info``, in document order), the
    chunking policy per type, the questions whose evidence was found, and what could not be
    used."""

    documents: tuple[Document, ...]
    questions: tuple[Question, ...]
    errors: tuple[InputError, ...]
    digest: str
    info: tuple[DocumentInfo, ...]
    policy: Policy = DEFAULT
    title: str | None = None  # a manifest's name

    def __hash__(self) -> int:
        return hash(self.digest)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Corpus) and other.digest == self.digest

    def split(self, split: str) -> tuple[Question, ...]:
        """Questions of ``split`` ("train", "test" or "all")."""
        if split == "all":
            return self.questions
        return tuple(q for q in self.questions if q.split == split)

    @property
    def name(self) -> str:
        return self.title or ", ".join(d.name for d in self.documents)

    @property
    def types(self) -> tuple[str, ...]:
        """Each document's type, in document order."""
        return tuple(i.type for i in self.info)

    def allowed(self, question: Question) -> tuple[int, ...] | None:
        """The documents the question's filter lets retrieval use; None when it has no filter."""
        if not question.filter:
            return None
        return tuple(d for d, i in enumerate(self.info) if matches(i.meta, question.filter))


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


class _Locator:
    """Finds text in a document with any run of whitespace matching any other run; failing that,
    with look-alike characters folded (:data:`LOOKALIKES`)."""

    def __init__(self, text: str):
        self.text = text
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
        if self.scanned + len(flat) <= SCAN_CHARS and "_runs" not in self.__dict__:
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


def _preview(text: str, words: int = 6) -> str:
    parts = text.split()
    head = " ".join(parts[:words])
    return head + (" ..." if len(parts) > words else "")


# Byte-order marks, longest first (UTF-32's little-endian mark begins with UTF-16's).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8-sig", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
)


def decode_text(data: bytes | str, what: str) -> str:
    """Text from an upload: UTF-8, or any UTF with a byte-order mark. A precise CorpusError for
    binary input and for text in another encoding."""
    if isinstance(data, str):
        return data
    encoding, name = "utf-8", "UTF-8"
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            encoding, name = codec, label
            break
    else:
        sample = data[:8192]
        if b"\x00" in sample:
            if _looks_like_utf16(sample):
                raise CorpusError(
                    f"{what} is not UTF-8 text: it looks like UTF-16 without a byte-order "
                    "mark; save it as UTF-8."
                )
            raise CorpusError(f"{what} looks like a binary file, not text.")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        fix = "" if name == "UTF-8" else " (its byte-order mark says so)"
        raise CorpusError(
            f"{what} is not {name} text{fix} (bad byte at position {exc.start}); save it as UTF-8."
        ) from None


def _looks_like_utf16(sample: bytes) -> bool:
    """Mostly-ASCII text in UTF-16 has a zero in nearly every other byte, and nowhere else."""
    half = len(sample) // 2
    if half < 2:
        return False
    for zeros, other in ((sample[1::2], sample[0::2]), (sample[0::2], sample[1::2])):
        if zeros.count(0) >= 0.9 * half and other.count(0) <= 0.1 * half:
            return True
    return False


def normalise_newlines(text: str) -> tuple[str, list[int]]:
    """``text`` with CRLF and lone CR line breaks turned into LF, and the original offsets of the
    CRs removed (a pinned start ``s`` of the original is ``shift_offset(s, removed)`` after)."""
    if "\r" not in text:
        return text, []
    removed = [m.start() for m in re.finditer("\r\n", text)]
    return text.replace("\r\n", "\n").replace("\r", "\n"), removed


def shift_offset(offset: int, removed: list[int]) -> int:
    """An offset of the original text in the text with the ``removed`` characters taken out."""
    return offset - bisect_left(removed, offset)


_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def cap_nesting(text: str, limit: int = MAX_NESTING) -> tuple[str, int | None]:
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


_NOT_SHALLOW = object()


def _shallow_json(text: str, limit: int = MAX_NESTING) -> object:
    """``json.loads(text)`` when it is valid JSON nested at most ``limit`` levels deep (what
    :func:`cap_nesting` leaves as it is), else ``_NOT_SHALLOW``."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return _NOT_SHALLOW
    level, depth = [value], 0
    while level:
        level = [v for v in level if isinstance(v, (list, dict))]
        if level:
            depth += 1
            if depth > limit:
                return _NOT_SHALLOW
        level = [c for v in level for c in (v.values() if isinstance(v, dict) else v)]
    return value


def parse_qe(raw: str | bytes | dict | list) -> tuple[list[dict], list[InputError]]:
    """Question objects from QE JSON (an object with "questions" or a bare list)."""
    nesting: list[InputError] = []
    if isinstance(raw, (str, bytes)):
        try:
            text = decode_text(raw, "The QE file")
        except CorpusError as exc:  # the documents are still usable: report, do not raise
            return [], [InputError(str(exc))]
        if len(text) > MAX_QE_CHARS:
            return [], [
                InputError(
                    f"The QE JSON is {len(text):,} characters; the limit is {MAX_QE_CHARS:,}."
                )
            ]
        if not text.strip():
            return [], [InputError("The QE JSON is empty.")]
        raw = _shallow_json(text)
        if raw is _NOT_SHALLOW:  # invalid or too deep: capped, then parsed for the message
            text, deep = cap_nesting(text)
            if deep is not None:
                line = text.count("\n", 0, deep) + 1
                column = deep - text.rfind("\n", 0, deep)
                nesting.append(
                    InputError(
                        f"The QE JSON nests deeper than {MAX_NESTING} levels at line {line}, "
                        f"column {column}; values that deep were left out."
                    )
                )
            try:
                raw = json.loads(text)
            except json.JSONDecodeError as exc:
                return [], [
                    *nesting,
                    InputError(
                        f"The QE JSON is not valid JSON: {exc.msg} "
                        f"at line {exc.lineno}, column {exc.colno}."
                    ),
                ]
    items = raw.get("questions") if isinstance(raw, dict) else raw
    if not isinstance(items, list):
        return [], [
            *nesting,
            InputError(
                'The QE JSON must be a list of questions or an object with a "questions" list.'
            ),
        ]
    return items, nesting


def _check_question(
    item: object, index: int, seen: set[str], doc_names: dict[str, int]
) -> tuple[dict | None, list[InputError]]:
    where = f"question #{index + 1}"
    if not isinstance(item, dict):
        return None, [InputError(f"{where} is not an object.")]
    qid = item.get("id")
    if qid is None or (isinstance(qid, str) and not qid.strip()):
        return None, [InputError(f'{where} has no "id".')]
    qid = str(qid)
    if qid in seen:
        return None, [
            InputError(f"duplicate id {qid!r}: only the first question with it is used.", qid)
        ]
    seen.add(qid)
    text = item.get("question")
    if not isinstance(text, str) or not text.strip():
        return None, [InputError('missing "question" text.', qid)]
    evidence = item.get("evidence")
    if not isinstance(evidence, list) or not evidence:
        return None, [InputError('missing "evidence": give a list of evidence sentences.', qid)]
    split = item.get("split", "test")
    if split not in SPLITS:
        return None, [InputError(f"split {split!r} is not one of {', '.join(SPLITS)}.", qid)]
    doc = item.get("doc")
    doc_index = None
    if doc is not None:
        doc_index = resolve_name(str(doc), doc_names)
        if doc_index is None:
            return None, [_unknown_doc(doc, doc_names, qid)]
    filter, problems = parse_meta(item.get("filter"), "the filter")
    if problems:
        return None, [InputError(problems[0].replace("ignored", "the question is left out"), qid)]
    case = item.get("case")
    return {
        "id": qid,
        "question": text.strip(),
        "split": split,
        "doc": doc_index,
        "evidence": evidence,
        "case": str(case) if case is not None else None,
        "filter": filter,
    }, []


def _unknown_doc(doc: object, doc_names: dict[str, int], qid: str) -> InputError:
    return InputError(f"unknown doc {doc!r}; the corpus has {sorted(doc_names)}.", qid)


def _entry_doc(
    entry: object, default: int | None, doc_names: dict[str, int], qid: str
) -> tuple[int | None, InputError | None]:
    """The document an evidence entry names (its own "doc", else its question's), or None to
    search every document."""
    if isinstance(entry, dict) and entry.get("doc") is not None:
        found = resolve_name(str(entry["doc"]), doc_names)
        if found is None:
            return None, _unknown_doc(entry["doc"], doc_names, qid)
        return found, None
    if default is None and len(doc_names) == 1:
        return 0, None
    return default, None


class _Documents:
    """The parsed documents with their evidence locators (built on first use)."""

    def __init__(self, parsed: list[Document], removed: list[list[int]]):
        self.parsed = parsed
        self.removed = removed
        self._locators: dict[int, _Locator] = {}

    def locator(self, d: int) -> _Locator:
        if d not in self._locators:
            self._locators[d] = _Locator(self.parsed[d].text)
        return self._locators[d]

    def locate(
        self, entry: object, qid: str, d: int | None
    ) -> tuple[Evidence | None, list[InputError]]:
        """Find an evidence entry in document ``d``, or in whichever document holds it."""
        if d is not None:
            return _locate(entry, qid, d, self.parsed[d], self.locator(d), self.removed[d])
        text = entry.get("text") if isinstance(entry, dict) else entry
        if not isinstance(text, str) or not text.strip():
            return None, [InputError("an evidence entry is empty or not text.", qid)]
        holders = self._holders(entry, text)
        if not holders:
            n = len(self.parsed)
            return None, [
                InputError(
                    f"evidence not found in any of the {n} documents: {_preview(text)!r}", qid
                )
            ]
        first = holders[0]
        ev, errors = _locate(
            entry, qid, first, self.parsed[first], self.locator(first), self.removed[first]
        )
        if len(holders) > 1:
            names = ", ".join(self.parsed[d].name for d in holders)
            errors.append(
                InputError(
                    f"evidence {_preview(text)!r} occurs in several documents ({names}); "
                    f'using {self.parsed[first].name} (name one with "doc").',
                    qid,
                    "warning",
                )
            )
        return ev, errors

    def _holders(self, entry: object, text: str) -> list[int]:
        """Documents holding ``text``: at the entry's pinned start when one has it there, else
        anywhere (as typed, failing that with look-alikes folded)."""
        pinned = entry.get("start") if isinstance(entry, dict) else None
        docs = range(len(self.parsed))
        if isinstance(pinned, int) and not isinstance(pinned, bool) and pinned >= 0:
            at = [
                d
                for d in docs
                if self.locator(d).find_at(text, shift_offset(pinned, self.removed[d]))
            ]
            if at:
                return at
        for folded in (False, True):
            found = [d for d in docs if self.locator(d).find_all(text, 1, folded=folded)]
            if found:
                return found
        return []


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


def _locate(
    entry: object,
    qid: str,
    doc_index: int,
    document: Document,
    locator: _Locator,
    removed: list[int] = (),
) -> tuple[Evidence | None, list[InputError]]:
    """Find one evidence entry: at its pinned start (an offset of the text as given, before line
    endings were normalised), else its first occurrence; failing both, the same with look-alike
    characters folded, with a warning that says what differed."""
    pinned = None
    if isinstance(entry, dict):
        text, pinned = entry.get("text"), entry.get("start")
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
    span, folded = None, False
    if pinned is not None:
        at = shift_offset(pinned, removed)
        for folded in (False, True):
            span = locator.find_at(text, at, folded=folded)
            if span is not None:
                break
        if span is None:
            errors.append(
                InputError(
                    f"evidence {_preview(text)!r} is not at start {pinned}; "
                    "using the first occurrence.",
                    qid,
                    "warning",
                )
            )
    if span is None:
        for folded in (False, True):
            found = locator.find_all(text, limit=2, folded=folded)
            if found:
                break
        if not found:
            return None, [InputError(f"evidence not found: {_preview(text)!r}", qid)]
        span = found[0]
        if len(found) > 1 and pinned is None:
            errors.append(
                InputError(
                    f"evidence {_preview(text)!r} occurs more than once; "
                    'using the first occurrence (pin one with "start").',
                    qid,
                    "warning",
                )
            )
    start, end = span
    if folded:
        errors.append(
            InputError(
                f"evidence {_preview(text)!r} is not in the document as typed; it matches "
                f"where they differ in {_lookalike_note(document.text[start:end], text)}: "
                "using that match.",
                qid,
                "warning",
            )
        )
    return Evidence(
        text, doc_index, start, end, document.unit_at(start), document.unit_at(end - 1)
    ), errors


def _read_documents(
    sources: list[Source], policy: Policy
) -> tuple[list[Document], list[DocumentInfo], list[list[int]], list[InputError]]:
    """Decode, check and parse every source; with several, one that cannot be used is reported
    and left out (with one, it refuses the corpus)."""
    parsed, infos, removed, errors = [], [], [], []
    known = known_types(policy)
    for source in sources:
        name = source.name
        try:
            text, crs = normalise_newlines(decode_text(source.data, f"Document {name!r}"))
            if len(text) > MAX_DOCUMENT_CHARS:
                raise CorpusError(
                    f"Document {name!r} is {len(text):,} characters; "
                    f"the limit is {MAX_DOCUMENT_CHARS:,}."
                )
            if not text.strip():
                raise CorpusError(f"Document {name!r} is empty.")
            format = source.format or document_format(name, text)
            document = parse_source(text, name, format)
            if not document.units:
                raise CorpusError(f"Document {name!r} has no text once its markup is removed.")
        except CorpusError as exc:
            if len(sources) == 1:
                raise
            errors.append(InputError(f"{exc} It was left out.", document=name))
            continue
        doc_type, problems = check_type(name, source.type, known)
        errors.extend(problems)
        source_of_type = "given"
        if doc_type is None:
            doc_type, reason = infer_type(document)
            source_of_type = f"inferred: {reason}"
        errors.extend(
            InputError(f"{name}: {note}.", severity="warning", document=name)
            for note in document.problems
        )
        parsed.append(document)
        removed.append(crs)
        infos.append(DocumentInfo(name, doc_type, source_of_type, source.meta, format))
    if not parsed:
        raise CorpusError("No document could be used: " + " ".join(e.message for e in errors))
    return parsed, infos, removed, errors


def build_corpus(
    documents: Mapping[str, str | bytes] | Sequence[Source],
    qe: str | bytes | dict | list | None,
    policy: Policy | Mapping | None = None,
    *,
    title: str | None = None,
) -> Corpus:
    """A corpus from documents (texts by name, or :class:`~lab.collection.Source` records with
    type and metadata), QE JSON (text, parsed object or list) and a chunking policy per type
    (a :class:`~lab.collection.Policy`, or its JSON form; None: the default).

    A document's format is read from its name or content (HTML or markdown), a missing type is
    inferred. Line endings are normalised to LF (a CRLF file chunks as its LF twin); pinned
    evidence starts still count in the text as given. Evidence that names no document (nor its
    question) is looked for in every document."""
    if not documents:
        raise CorpusError("No document was given.")
    errors: list[InputError] = []
    if not isinstance(policy, Policy):
        policy, problems = parse_policy(policy)
        errors.extend(problems)
    sources = (
        [Source(name, data) for name, data in documents.items()]
        if isinstance(documents, Mapping)
        else list(documents)
    )
    parsed, infos, removed, problems = _read_documents(sources, policy)
    errors.extend(problems)
    doc_names = {d.name: i for i, d in enumerate(parsed)}
    docs = _Documents(parsed, removed)

    items, problems = parse_qe(qe) if qe is not None else ([], [])
    errors.extend(problems)
    questions: list[Question] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        checked, problems = _check_question(item, index, seen, doc_names)
        errors.extend(problems)
        if checked is None:
            continue
        evidence, ok = [], True
        for entry in checked["evidence"]:
            d, problem = _entry_doc(entry, checked["doc"], doc_names, checked["id"])
            if problem is not None:
                errors.append(problem)
                ok = False
                break
            ev, problems = docs.locate(entry, checked["id"], d)
            errors.extend(problems)
            if ev is None:
                ok = False
                break
            evidence.append(ev)
        if ok:
            questions.append(
                Question(
                    checked["id"],
                    checked["question"],
                    checked["split"],
                    tuple(evidence),
                    checked["case"],
                    checked["filter"],
                )
            )

    filtered = [q.id for q in questions if q.filter]
    if filtered and not any(info.meta for info in infos):
        errors.append(
            InputError(
                f"{len(filtered)} question(s) carry a metadata filter ({', '.join(filtered[:5])}"
                f"{', ...' if len(filtered) > 5 else ''}), but no document has metadata (a "
                'collection manifest gives each document its "meta"): the filters are ignored.',
                severity="warning",
            )
        )
        questions = [replace(q, filter=()) for q in questions]

    digest = hashlib.sha256()
    for d, info in zip(parsed, infos, strict=True):
        digest.update(d.name.encode() + b"\0" + d.text.encode() + b"\0")
        digest.update(json.dumps([info.type, info.meta, info.format]).encode())
    digest.update(json.dumps(policy.as_dict(), sort_keys=True).encode())
    digest.update(
        json.dumps(
            [
                [q.id, q.question, q.split, q.filter, [(e.doc, e.start, e.end) for e in q.evidence]]
                for q in questions
            ]
        ).encode()
    )
    return Corpus(
        tuple(parsed),
        tuple(questions),
        tuple(errors),
        digest.hexdigest()[:16],
        tuple(infos),
        policy,
        title,
    )


def load_corpus(
    doc: str | Path | list[str | Path],
    qe: str | Path | None = None,
    types: Mapping[str, str] | None = None,
) -> Corpus:
    """Load document file(s) and a QE JSON file. Document names are the file stems; ``types``
    gives some of them a type (by name, file name or stem; the others' types are inferred)."""
    paths = [Path(p) for p in (doc if isinstance(doc, list) else [doc])]
    sources = []
    types = dict(types or {})
    names = {path.stem: k for k, path in enumerate(paths)}
    given: dict[int, str] = {}
    for ref, doc_type in types.items():
        k = resolve_name(ref, names)
        if k is None:
            raise CorpusError(
                f"a type is given for {ref!r}, which is none of the documents ({', '.join(names)})"
            )
        given[k] = doc_type
    for k, path in enumerate(paths):
        if not path.is_file():
            raise CorpusError(f"No such document file: {path}")
        sources.append(Source(path.stem, path.read_bytes(), given.get(k)))
    if qe is None:
        return build_corpus(sources, None)
    qe_path = Path(qe)
    if not qe_path.is_file():
        raise CorpusError(f"No such QE file: {qe_path}")
    return build_corpus(sources, qe_path.read_bytes())


def build_collection(
    manifest: str | bytes | dict,
    fetch: Callable[[str], bytes | None],
    qe: str | bytes | dict | list | None = None,
    *,
    where: str = "collection.json",
    extra: Sequence[Source] = (),
) -> Corpus:
    """The collection a manifest lists: ``fetch(path)`` gives a listed file's bytes (None when
    there is none); ``qe`` replaces the manifest's questions file; ``extra`` documents join the
    listed ones. What the manifest names but cannot be had is reported, the rest loads."""
    read = read_manifest(manifest, fetch, where, questions=qe is None)
    sources = [*read.sources, *(s for s in extra if s.name not in {r.name for r in read.sources})]
    if not sources:
        raise CorpusError(
            f"{where} lists no document that could be read: "
            + " ".join(e.message for e in read.errors)
        )
    questions = read.questions if qe is None else qe
    corpus = build_corpus(sources, questions, read.policy, title=read.name)
    return _with_errors(corpus, read.errors)


def load_collection(manifest: str | Path, qe: str | Path | None = None) -> Corpus:
    """Load the collection a manifest (``collection.json``) lists, its paths relative to the
    manifest's folder; ``qe`` replaces the manifest's questions file."""
    path = Path(manifest)
    if not path.is_file():
        raise CorpusError(f"No such collection manifest: {path}")
    base = path.parent

    def fetch(name: str) -> bytes | None:
        target = base / name
        return target.read_bytes() if target.is_file() else None

    questions = None
    if qe is not None:
        qe_path = Path(qe)
        if not qe_path.is_file():
            raise CorpusError(f"No such QE file: {qe_path}")
        questions = qe_path.read_bytes()
    return build_collection(path.read_bytes(), fetch, questions, where=path.name)


def _with_errors(corpus: Corpus, errors: Sequence[InputError]) -> Corpus:
    """``corpus`` with ``errors`` (found before it was built) reported first."""
    if not errors:
        return corpus
    return Corpus(
        corpus.documents,
        corpus.questions,
        (*errors, *corpus.errors),
        corpus.digest,
        corpus.info,
        corpus.policy,
        corpus.title,
    )
