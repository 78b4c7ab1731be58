"""Load documents and question-evidence (QE) sets into a validated corpus.

Every problem with the input becomes an :class:`InputError` with a precise message; the valid
part of the input still loads. Evidence strings are located whitespace-insensitively.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from .parse import Document, parse_document

SPLITS = ("train", "test")
MAX_DOCUMENT_CHARS = 5_000_000
MAX_QE_CHARS = 5_000_000

_WORD = re.compile(r"\S+")
KEY_WORDS = 3


class CorpusError(ValueError):
    """The input cannot make a corpus at all (no usable document)."""


@dataclass(frozen=True, slots=True)
class InputError:
    """Something in the input that could not be used, and why. ``question`` is its id, if any."""

    message: str
    question: str | None = None
    severity: str = "error"  # "error": left out; "warning": used, with a caveat


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
    id: str
    question: str
    split: str
    doc: int
    evidence: tuple[Evidence, ...]
    case: str | None = None


@dataclass(frozen=True, eq=False)
class Corpus:
    """Parsed documents, the questions whose evidence was found, and what could not be used."""

    documents: tuple[Document, ...]
    questions: tuple[Question, ...]
    errors: tuple[InputError, ...]
    digest: str

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
        return ", ".join(d.name for d in self.documents)


class _Locator:
    """Finds text in a document with any run of whitespace matching any other run."""

    def __init__(self, text: str):
        words = list(_WORD.finditer(text))
        self.flat = " ".join(m.group() for m in words)
        if not words:
            self.offsets = np.zeros(0, dtype=np.int64)
            return
        starts = np.fromiter((m.start() for m in words), dtype=np.int64, count=len(words))
        lengths = np.fromiter(
            (m.end() - m.start() for m in words), dtype=np.int64, count=len(words)
        )
        flat_starts = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]])
        # each word and the space after it keep one shift from flat to original offsets
        shift = np.repeat(starts - flat_starts, lengths + 1)[: len(self.flat)]
        self.offsets = np.arange(len(self.flat), dtype=np.int64) + shift

    @cached_property
    def word_starts(self) -> dict[str, list[int]]:
        """Flat offsets of every run of ``KEY_WORDS`` words (fewer at the very end), by the run."""
        words = self.flat.split(" ")
        table: dict[str, list[int]] = {}
        pos = 0
        for i, word in enumerate(words):
            table.setdefault(" ".join(words[i : i + KEY_WORDS]), []).append(pos)
            pos += len(word) + 1
        return table

    def find_all(self, needle: str, limit: int | None = None) -> list[tuple[int, int]]:
        """Occurrences that start at a word, in order; failing those, anywhere (as ``str.find``)."""
        flat_needle = " ".join(needle.split())
        if not flat_needle:
            return []
        key = flat_needle.split(" ", KEY_WORDS)[:KEY_WORDS]
        hits = []
        if len(key) == KEY_WORDS:
            starts = self.word_starts.get(" ".join(key), ())
            hits = [p for p in starts if self.flat.startswith(flat_needle, p)]
        if not hits:
            anywhere = []
            pos = self.flat.find(flat_needle)
            while pos >= 0:
                anywhere.append(pos)
                pos = self.flat.find(flat_needle, pos + 1)
            hits = [p for p in anywhere if p == 0 or self.flat[p - 1] == " "] or anywhere
        return [
            (int(self.offsets[p]), int(self.offsets[p + len(flat_needle) - 1]) + 1)
            for p in hits[:limit]
        ]

    def find_at(self, needle: str, start: int) -> tuple[int, int] | None:
        """The occurrence that begins at original offset ``start``."""
        flat_needle = " ".join(needle.split())
        i = int(np.searchsorted(self.offsets, start))
        if not flat_needle or i >= len(self.offsets) or self.offsets[i] != start:
            return None
        if not self.flat.startswith(flat_needle, i):
            return None
        return start, int(self.offsets[i + len(flat_needle) - 1]) + 1


def _preview(text: str, words: int = 6) -> str:
    parts = text.split()
    head = " ".join(parts[:words])
    return head + (" ..." if len(parts) > words else "")


def decode_text(data: bytes | str, what: str) -> str:
    """UTF-8 text from an upload; a precise CorpusError for binary or non-UTF-8 input."""
    if isinstance(data, str):
        return data
    if b"\x00" in data[:8192]:
        raise CorpusError(f"{what} looks like a binary file, not text.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"{what} is not UTF-8 text (bad byte at position {exc.start}); save it as UTF-8."
        ) from None


def parse_qe(raw: str | bytes | dict | list) -> tuple[list[dict], list[InputError]]:
    """Question objects from QE JSON (an object with "questions" or a bare list)."""
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
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            return [], [
                InputError(
                    f"The QE JSON is not valid JSON: {exc.msg} "
                    f"at line {exc.lineno}, column {exc.colno}."
                )
            ]
    items = raw.get("questions") if isinstance(raw, dict) else raw
    if not isinstance(items, list):
        return [], [
            InputError(
                'The QE JSON must be a list of questions or an object with a "questions" list.'
            )
        ]
    return items, []


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
    if doc is None:
        if len(doc_names) > 1:
            return None, [
                InputError(
                    f'no "doc": the corpus has {len(doc_names)} documents; '
                    f"name one of {sorted(doc_names)}.",
                    qid,
                )
            ]
        doc_index = 0
    elif str(doc) in doc_names:
        doc_index = doc_names[str(doc)]
    else:
        return None, [InputError(f"unknown doc {doc!r}; the corpus has {sorted(doc_names)}.", qid)]
    case = item.get("case")
    return {
        "id": qid,
        "question": text.strip(),
        "split": split,
        "doc": doc_index,
        "evidence": evidence,
        "case": str(case) if case is not None else None,
    }, []


def _locate(
    entry: object, qid: str, doc_index: int, document: Document, locator: _Locator
) -> tuple[Evidence | None, list[InputError]]:
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
    span = None
    if pinned is not None:
        span = locator.find_at(text, pinned)
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
        found = locator.find_all(text, limit=2)
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
    return Evidence(
        text, doc_index, start, end, document.unit_at(start), document.unit_at(end - 1)
    ), errors


def build_corpus(documents: dict[str, str], qe: str | bytes | dict | list | None) -> Corpus:
    """A corpus from document texts by name and QE JSON (text, parsed object or list)."""
    if not documents:
        raise CorpusError("No document was given.")
    parsed: list[Document] = []
    for name, text in documents.items():
        text = decode_text(text, f"Document {name!r}")
        if len(text) > MAX_DOCUMENT_CHARS:
            raise CorpusError(
                f"Document {name!r} is {len(text):,} characters; "
                f"the limit is {MAX_DOCUMENT_CHARS:,}."
            )
        if not text.strip():
            raise CorpusError(f"Document {name!r} is empty.")
        parsed.append(parse_document(text, name))
    doc_names = {d.name: i for i, d in enumerate(parsed)}
    locators: dict[int, _Locator] = {}

    items, errors = parse_qe(qe) if qe is not None else ([], [])
    questions: list[Question] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        checked, problems = _check_question(item, index, seen, doc_names)
        errors.extend(problems)
        if checked is None:
            continue
        doc_index = checked["doc"]
        if doc_index not in locators:
            locators[doc_index] = _Locator(parsed[doc_index].text)
        evidence, ok = [], True
        for entry in checked["evidence"]:
            ev, problems = _locate(
                entry, checked["id"], doc_index, parsed[doc_index], locators[doc_index]
            )
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
                    doc_index,
                    tuple(evidence),
                    checked["case"],
                )
            )

    digest = hashlib.sha256()
    for d in parsed:
        digest.update(d.name.encode() + b"\0" + d.text.encode() + b"\0")
    digest.update(
        json.dumps(
            [
                [q.id, q.question, q.split, q.doc, [(e.start, e.end) for e in q.evidence]]
                for q in questions
            ]
        ).encode()
    )
    return Corpus(tuple(parsed), tuple(questions), tuple(errors), digest.hexdigest()[:16])


def load_corpus(doc: str | Path | list[str | Path], qe: str | Path | None = None) -> Corpus:
    """Load document file(s) and a QE JSON file. Document names are the file stems."""
    paths = [Path(p) for p in (doc if isinstance(doc, list) else [doc])]
    documents: dict[str, bytes] = {}
    for path in paths:
        if not path.is_file():
            raise CorpusError(f"No such document file: {path}")
        documents[path.stem] = path.read_bytes()
    if qe is None:
        return build_corpus(documents, None)
    qe_path = Path(qe)
    if not qe_path.is_file():
        raise CorpusError(f"No such QE file: {qe_path}")
    return build_corpus(documents, qe_path.read_bytes())
