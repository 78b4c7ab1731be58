"""Collections: documents with a name, a type and metadata, a chunking policy per type, and the
manifest (``collection.json``) that lists them. Read before parsing; types are inferred after.

A manifest::

    {"documents": [{"path": "firmware-changelog.md", "type": "changelog",
                    "meta": {"product": "WH-1000"}}, ...],
     "questions": "questions.json",
     "policy": {"changelog": {"chunker": "structure"},
                "spec-table": {"chunker": "table-rows", "size": 300}}}

Paths are relative to the manifest. A document without a type gets one inferred from its format
and structure (:func:`infer_type`); the policy's entries replace the default ones
(:data:`DEFAULT_POLICY`) type by type. A question's ``filter`` keeps retrieval to documents
whose metadata match it (:func:`matches`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from . import jsonread
from .chunkers import CHUNKERS
from .decode import InputFileError, decode_text
from .formats import heading_patterns, read_document
from .formats.plain import RELEASE
from .parse import Document
from .problems import CorpusError, InputError

DOCUMENT_TYPES = {
    "changelog": "version entries (release notes, firmware changelogs)",
    "procedure": "numbered steps under headings (troubleshooting guides, quick starts)",
    "spec-table": "mostly a table (specifications, comparisons)",
    "faq": "questions with their answers",
    "policy": "numbered provisions (policies, terms, licences, handbooks)",
    "transcript": "speaker turns without headings (calls, chats)",
    "reference": "man pages and API references (NAME, SYNOPSIS, OPTIONS; one entry per function)",
    "other": "anything else",
}
OTHER = "other"
POLICY_CHUNKER = "by-type"
FALLBACK_CHUNKER = "recursive"  # for a dense chunker when embeddings are off
DEFAULT_POLICY = {
    "changelog": "structure",
    "procedure": "structure",
    "spec-table": "table-rows",
    "faq": "structure",
    "policy": "structure",
    "transcript": "sentence",
    "reference": "structure",
    OTHER: "recursive",
}
MIN_SIZE = 20

Meta = tuple[tuple[str, tuple[str, ...]], ...]  # sorted (key, values) pairs


@dataclass(frozen=True, slots=True)
class PolicyEntry:
    """The chunker one document type is cut with; ``size`` and ``overlap`` (None: the lab's
    settings) fix its parameters."""

    chunker: str
    size: int | None = None
    overlap: int | None = None
    headings: tuple[str, ...] = ()  # heading patterns for documents of the type

    def describe(self) -> str:
        fixed = [f"L = {self.size}"] if self.size else []
        fixed += [f"overlap {self.overlap}"] if self.overlap is not None else []
        return self.chunker + (f" ({', '.join(fixed)})" if fixed else "")


@dataclass(frozen=True, slots=True)
class Choice:
    """The chunker and parameters a policy gives one document, and why they differ from the
    policy's entry (None when they do not)."""

    chunker: str
    size: int
    overlap: int
    note: str | None = None


@dataclass(frozen=True)
class Policy:
    """Document type -> :class:`PolicyEntry`; a type it does not name gets ``other``'s entry."""

    entries: tuple[tuple[str, PolicyEntry], ...] = tuple(
        (t, PolicyEntry(c)) for t, c in DEFAULT_POLICY.items()
    )

    def entry(self, doc_type: str) -> PolicyEntry:
        table = dict(self.entries)
        return table.get(doc_type) or table.get(OTHER) or PolicyEntry(FALLBACK_CHUNKER)

    def resolve(self, doc_type: str, size: int, overlap: int, dense: bool) -> Choice:
        """What a document of ``doc_type`` is cut with, given the lab's ``size`` and ``overlap``
        and whether embeddings are on: a chunker that needs them falls back to
        :data:`FALLBACK_CHUNKER` while they are off, and an overlap that would not be smaller
        than a fixed size is halved to fit."""
        entry = self.entry(doc_type)
        chunker, note = entry.chunker, None
        if CHUNKERS[chunker].dense and not dense:
            chunker = FALLBACK_CHUNKER
            note = f"{entry.chunker} needs dense embeddings: {chunker} while they are off"
        size = entry.size or size
        overlap = overlap if entry.overlap is None else entry.overlap
        if CHUNKERS[chunker].overlap and overlap >= size:
            overlap = size // 2
        return Choice(chunker, size, overlap, note)

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(t for t, _ in self.entries)

    def as_dict(self) -> dict[str, dict]:
        return {
            t: {
                k: v
                for k, v in (("chunker", e.chunker), ("size", e.size), ("overlap", e.overlap))
                if v is not None
            }
            for t, e in self.entries
        }


DEFAULT = Policy()


@dataclass(frozen=True, slots=True)
class Source:
    """One document to load: its name, raw content, given type (None: infer one), metadata and
    format (None: from the name's extension, else by looking)."""

    name: str
    data: bytes | str
    type: str | None = None
    meta: Meta = ()
    format: str | None = None
    headings: tuple[str, ...] = ()  # patterns of heading lines no rule reads (the manifest's)


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """What the collection says about a parsed document: its type and where the type came from
    ("given" or the inference's reason), metadata, and format."""

    name: str
    type: str = OTHER
    type_source: str = "given"
    meta: Meta = ()
    format: str = "text"

    @property
    def meta_dict(self) -> dict[str, str | list[str]]:
        return {k: v[0] if len(v) == 1 else list(v) for k, v in self.meta}

    def describe_meta(self) -> str:
        return ", ".join(f"{k}={'/'.join(v)}" for k, v in self.meta)


# --- formats and types ---------------------------------------------------------------------------


def parse_source(
    text: str, name: str, format: str, parser: str | None = None, headings: tuple[str, ...] = ()
) -> Document:
    """Parse ``text`` in its format (with the reading ``parser`` names, where it offers one;
    lines the ``headings`` patterns match are headings, where the format takes patterns)."""
    patterns = heading_patterns(list(headings), name) if headings else ()
    return read_document(text, name, format, parser, patterns)


_HEADING_MARKS = re.compile(r"^\s*#{1,6}\s*|\s*#+\s*$")
_VERSION = re.compile(
    r"(?i)^\[?(?:v(?:ersion)?\s*|release\s+)\d+(?:\.\d+)*|^\[?v?\d+(?:\.\d+)+\]?(?=\s*(?:$|[-\u2013\u2014(:]|\d))"
)
_NUMBERED_LABEL = re.compile(r"^\d{1,3}(?:\.\d{1,3})*\.?\s+\S")
_SPEAKER = re.compile(r"^\s*(?:\[[\d:. ]+\]\s*)?[A-Z][\w.' -]{0,30}:\s+\S")
_STEP = re.compile(r"^\s*\d{1,3}[.)]\s+\S")
# A man page's section names, and a heading that names an API entry (a function, option, setting
# or method: ``asn1_create_element``, ``max_queue_size``, ``open()``, ``Path.read_text``).
MAN_SECTIONS = frozenset(
    "name synopsis description options exit status return value environment files examples "
    "see also bugs author authors reporting bugs copyright notes errors".split(" ")
) | {"exit status", "return value", "see also", "reporting bugs"}
_API_ENTRY = re.compile(r"(?:--?[\w-]+|[A-Za-z_][\w.]*(?:_[\w.]+|\(\)|\.\w+))")
NAME_HINTS = (
    (re.compile(r"change|release|news|history"), "changelog"),
    (re.compile(r"faq|questions"), "faq"),
    (re.compile(r"transcript|call|chat"), "transcript"),
    (re.compile(r"polic|terms|licen[cs]e|agreement|handbook"), "policy"),
    (re.compile(r"guide|manual|troubleshoot|how-?to|quick-?start"), "procedure"),
    (re.compile(r"spec|comparison"), "spec-table"),
)


def infer_type(doc: Document) -> tuple[str, str]:
    """A document type read from the document's structure (its name when the structure says
    nothing), with the reason in words."""
    text = doc.text
    labels = [
        _HEADING_MARKS.sub("", text[u.start : u.end])
        for k, u in enumerate(doc.units)
        if u.kind == "heading" and not (k == 0 and doc.title)
    ]
    body = [u for u in doc.units if u.kind != "heading"]
    body_chars = sum(u.end - u.start for u in body) or 1
    row_chars = sum(u.end - u.start for u in body if u.kind == "row")
    if doc.tables and row_chars >= 0.4 * body_chars:
        return "spec-table", f"table rows hold {row_chars / body_chars:.0%} of its text"
    lines = [line for line in text.splitlines() if line.strip()]
    speakers = sum(1 for line in lines if _SPEAKER.match(line))
    if len(labels) <= 1 and len(lines) >= 4 and speakers >= 0.5 * len(lines):
        return "transcript", f"{speakers} of {len(lines)} lines open with a speaker's name"
    n = len(labels)
    man = sum(1 for label in labels if label.strip().lower() in MAN_SECTIONS)
    if man >= 3 and man >= 0.5 * n:
        return "reference", f"{man} of {n} headings are a man page's sections"
    entries = sum(1 for label in labels if _API_ENTRY.fullmatch(label.strip()))
    if n >= 3 and entries >= 0.5 * n:
        return "reference", f"{entries} of {n} headings name functions, options or settings"
    versions = sum(1 for label in labels if _VERSION.match(label) or RELEASE.fullmatch(label))
    if n >= 2 and versions >= 0.5 * n:
        return "changelog", f"{versions} of {n} headings name a version"
    questions = sum(1 for label in labels if label.rstrip().endswith("?"))
    if n >= 2 and questions >= 0.4 * n:
        return "faq", f"{questions} of {n} headings are questions"
    numbered = sum(1 for label in labels if _NUMBERED_LABEL.match(label))
    if n >= 3 and numbered >= 0.5 * n:
        return "policy", f"{numbered} of {n} headings are numbered provisions"
    # Steps are numbered list items with text after them: a navigation list's bare links
    # ("1. Intro") or a licence's bare section numbers are no steps.
    steps = sum(
        1
        for u in body
        if _STEP.match(text[u.start : u.end]) and len(text[u.start : u.end].split()) >= 4
    )
    if n >= 1 and steps >= 3:
        return "procedure", f"{steps} numbered steps under {n} heading{'s' * (n != 1)}"
    stem = PurePosixPath(doc.name).stem.lower()
    for pattern, doc_type in NAME_HINTS:
        if pattern.search(stem):
            return doc_type, f"its name {doc.name!r} suggests it"
    return OTHER, "no structure of a known type"


# --- metadata and filters ------------------------------------------------------------------------


def _values(value: object) -> tuple[str, ...] | None:
    """Metadata values as strings; None when ``value`` is not a scalar or a list of scalars."""
    items = value if isinstance(value, list) else [value]
    if not items or any(isinstance(v, (dict, list)) or v is None for v in items):
        return None
    return tuple(str(v).lower() if isinstance(v, bool) else str(v) for v in items)


def parse_meta(raw: object, what: str) -> tuple[Meta, list[str]]:
    """Metadata from a JSON object of strings, numbers, booleans or lists of them; what could
    not be used, in words (each a clause: the caller says what became of it)."""
    if raw is None:
        return (), []
    if not isinstance(raw, dict):
        return (), [f"{what} is not an object of key: value pairs"]
    meta, problems = [], []
    for key, value in raw.items():
        values = _values(value)
        if values is None:
            problems.append(
                f"{what} {key!r} is an empty list"
                if value == []
                else f"{what} {key!r} is not a string, number or list of them"
            )
        else:
            meta.append((str(key), values))
    return tuple(sorted(meta)), problems


def matches(meta: Meta, filter: Meta) -> bool:
    """A document's metadata pass a filter when, for every key of the filter, the document has
    that key and shares at least one value with it. A document without the key does not pass."""
    own = dict(meta)
    return all(key in own and set(own[key]) & set(values) for key, values in filter)


def describe_filter(filter: Meta) -> str:
    return ", ".join(f"{k} = {' or '.join(v)}" for k, v in filter)


# --- policy --------------------------------------------------------------------------------------


def parse_policy(raw: object, where: str = "the policy") -> tuple[Policy, list[InputError]]:
    """The default policy with the entries of ``raw`` (type -> {"chunker", "size", "overlap"} or
    a chunker name) in place of the defaults; an entry that cannot be used is reported and the
    default kept."""
    if raw is None:
        return DEFAULT, []
    if not isinstance(raw, dict):
        return DEFAULT, [
            InputError(f"{where} is not an object of type: entry; the default is used")
        ]
    table = {t: PolicyEntry(c) for t, c in DEFAULT_POLICY.items()}
    errors = []
    allowed = [c for c in CHUNKERS if c != POLICY_CHUNKER]
    for doc_type, value in raw.items():
        spec = {"chunker": value} if isinstance(value, str) else value
        label = f"{where} for {doc_type!r}"
        keep = f"; {table[doc_type].describe()} is used" if doc_type in table else "; left out"
        if not isinstance(spec, dict):
            errors.append(InputError(f'{label} is not an object with a "chunker"{keep}'))
            continue
        chunker = spec.get("chunker")
        if chunker not in allowed:
            what = "the policy itself" if chunker == POLICY_CHUNKER else "unknown chunker"
            errors.append(
                InputError(
                    f"{label} names {what} {chunker!r}; choose one of {', '.join(allowed)}{keep}"
                )
            )
            continue
        size, overlap, bad = spec.get("size"), spec.get("overlap"), []
        if size is not None and (not _whole(size) or size < MIN_SIZE):
            bad.append(f"size {size!r} is not a whole number >= {MIN_SIZE}")
            size = None
        if overlap is not None and (not _whole(overlap) or overlap < 0):
            bad.append(f"overlap {overlap!r} is not a whole number >= 0")
            overlap = None
        for problem in bad:
            errors.append(
                InputError(f"{label}: {problem}; the lab's setting is used", severity="warning")
            )
        patterns, problem = _patterns(spec.get("headings"), label)
        if problem is not None:
            errors.append(problem)
        table[str(doc_type)] = PolicyEntry(chunker, size, overlap, patterns)
    return Policy(tuple(table.items())), errors


def _patterns(raw: object, what: str) -> tuple[tuple[str, ...], InputError | None]:
    """The heading patterns of a manifest's ``"headings"`` (none when absent), or a warning
    saying why they are not used."""
    if raw is None:
        return (), None
    try:
        heading_patterns(raw, what)
    except ValueError as exc:
        return (), InputError(f"{exc}; no heading patterns are used", severity="warning")
    return tuple(raw), None


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_type(
    name: str, doc_type: object, known: tuple[str, ...]
) -> tuple[str | None, list[InputError]]:
    """A given type if it is known (a built-in type or one the policy names); None (infer one)
    with a warning otherwise."""
    if doc_type is None:
        return None, []
    if isinstance(doc_type, str) and doc_type in known:
        return doc_type, []
    return None, [
        InputError(
            f"unknown type {doc_type!r} for {name}; known types are {', '.join(known)} (a policy "
            "entry adds one): its type is inferred instead",
            severity="warning",
            document=name,
        )
    ]


def known_types(policy: Policy) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*DOCUMENT_TYPES, *policy.types]))


# --- manifest ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Manifest:
    """What a manifest lists: the documents it could read, the questions file's content (None
    when it names none or it cannot be read), the policy, and what went wrong."""

    sources: tuple[Source, ...]
    questions: bytes | str | None
    policy: Policy
    errors: tuple[InputError, ...]
    name: str | None = None


def read_manifest(
    raw: str | bytes | dict,
    fetch: Callable[[str], bytes | str | None],
    where: str = "collection.json",
    questions: bool = True,
) -> Manifest:
    """Read a manifest; ``fetch(path)`` returns a listed file's content, or None when it does
    not exist (``questions``: fetch the questions file it names too). A document that cannot be
    read is reported and left out; a manifest that is not a JSON object with a "documents" list
    raises :class:`CorpusError`."""
    notes: list[str] = []
    if not isinstance(raw, dict):
        raw, notes = jsonread.loads(decode_text(raw, where), where)
    items = raw.get("documents") if isinstance(raw, dict) else None
    if not isinstance(items, list) or not items:
        raise CorpusError(f'{where} must be an object with a "documents" list of documents.')
    policy, errors = parse_policy(raw.get("policy"), f"{where}: the policy")
    errors = [*(InputError(n) for n in notes), *errors]
    known = known_types(policy)
    sources: list[Source] = []
    seen: set[str] = set()
    for k, item in enumerate(items, start=1):
        spec = {"path": item} if isinstance(item, str) else item
        if not isinstance(spec, dict) or not isinstance(spec.get("path"), str):
            errors.append(InputError(f'{where}: document #{k} has no "path"; it was left out'))
            continue
        path = spec["path"]
        name = str(spec.get("name") or path)
        if name in seen:
            errors.append(
                InputError(f"{where}: a second document is named {name!r}; left out", document=name)
            )
            continue
        try:
            data = fetch(path)
        except (OSError, InputFileError) as exc:
            why = exc.reason if isinstance(exc, InputFileError) else _cannot_read(exc)
            errors.append(
                InputError(f"{where} names {path!r}, but {why}; it was left out", document=name)
            )
            continue
        if data is None:
            errors.append(
                InputError(
                    f"{where} names {path!r}, which does not exist; it was left out", document=name
                )
            )
            continue
        seen.add(name)
        doc_type, problems = check_type(name, spec.get("type"), known)
        errors.extend(problems)
        meta, notes = parse_meta(spec.get("meta"), f"{where}: the meta of {name}")
        errors.extend(
            InputError(f"{n}; it was ignored", severity="warning", document=name) for n in notes
        )
        patterns, problem = _patterns(spec.get("headings"), f"{where}: {name}")
        if problem is not None:
            errors.append(problem)
        if not patterns and doc_type is not None:
            patterns = policy.entry(doc_type).headings
        sources.append(Source(name, data, doc_type, meta, headings=patterns))
    content = None
    qe_path = raw.get("questions") if questions else None
    if qe_path is not None:
        if not isinstance(qe_path, str):
            errors.append(InputError(f'{where}: "questions" must be the path of a QE JSON file'))
        else:
            try:
                content = fetch(qe_path)
                missing = "which does not exist"
            except (OSError, InputFileError) as exc:
                why = exc.reason if isinstance(exc, InputFileError) else _cannot_read(exc)
                content, missing = None, f"but {why}"
            if content is None:
                errors.append(
                    InputError(f"{where} names the questions file {qe_path!r}, {missing}")
                )
    name = raw.get("name") if isinstance(raw.get("name"), str) else None
    return Manifest(tuple(sources), content, policy, tuple(errors), name)


def _cannot_read(exc: OSError) -> str:
    return f"it cannot be read ({exc.strerror or type(exc).__name__})"


def resolve_name(ref: str, names: Mapping[str, int]) -> int | None:
    """The document ``ref`` names: its exact name, else the one document whose file name or stem
    is ``ref``'s (``faq.md`` finds a document named ``faq`` and the other way round)."""
    if ref in names:
        return names[ref]
    stem = PurePosixPath(ref).stem
    found = {i for name, i in names.items() if PurePosixPath(name).stem in (ref, stem)}
    return found.pop() if len(found) == 1 else None
