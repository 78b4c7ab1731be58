"""Load documents and question-evidence (QE) sets into a validated corpus.

Every problem with the input becomes an :class:`InputError` with a precise message; the valid
part of the input still loads. Evidence strings are located whitespace-insensitively.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from .collection import (
    DEFAULT,
    DocumentInfo,
    Meta,
    Policy,
    Source,
    check_type,
    infer_type,
    known_types,
    matches,
    parse_policy,
    parse_source,
    read_manifest,
    resolve_name,
)
from .decode import decode_text, normalise_newlines, read_input, shift_offset
from .evidence import Evidence, Locator, accepts_any, locate, other_forms, preview
from .formats import (
    FORMATS,
    binary_format,
    canonical_parser,
    document_format,
    parser_label,
    read_binary,
    suffix_format,
)
from .parse import Document
from .problems import CorpusError, InputError
from .qe import check_question, entry_doc, parse_qe

MAX_DOCUMENT_CHARS = 5_000_000


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
    used. ``parser`` is the reading its documents were read with (None: each format's
    default); it keeps what it was built from (``sources``, ``qe``, the errors found before)
    to read them again with another (:meth:`read_with`)."""

    documents: tuple[Document, ...]
    questions: tuple[Question, ...]
    errors: tuple[InputError, ...]
    digest: str
    info: tuple[DocumentInfo, ...]
    policy: Policy = DEFAULT
    title: str | None = None  # a manifest's name
    # per document, the offsets in the file as given of the CRs its line endings lost
    removed: tuple[tuple[int, ...], ...] = ()
    parser: str | None = None
    sources: tuple[Source, ...] = field(default=(), repr=False)
    qe: object = field(default=None, repr=False)
    given_errors: tuple[InputError, ...] = field(default=(), repr=False)

    def __hash__(self) -> int:
        return hash(self.digest)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Corpus) and other.digest == self.digest

    @cached_property
    def documents_digest(self) -> str:
        """What an index is built from: the documents with their types, metadata and formats,
        and the policy. Corpora that differ only in their questions share it."""
        return _documents_hash(self.documents, self.info, self.policy).hexdigest()[:16]

    @cached_property
    def _readings(self) -> dict[str | None, Corpus]:
        return {}

    def read_with(self, parser: str | None) -> Corpus:
        """This corpus with its documents read by ``parser`` (a ``LabConfig.parser`` setting):
        itself when that reads every one of its documents as it was read, else the same
        inputs built again (once; kept with this corpus)."""
        parser = canonical_parser(parser)
        formats = frozenset(info.format for info in self.info)
        if parser_label(parser, formats) == parser_label(self.parser, formats):
            return self
        if parser not in self._readings:
            if not self.sources:
                raise ValueError(
                    f"{self.name} keeps no sources to read again with the {parser} parser: "
                    "build it with build_corpus, load_corpus or load_collection"
                )
            read = build_corpus(self.sources, self.qe, self.policy, title=self.title, parser=parser)
            self._readings[parser] = _with_errors(read, self.given_errors)
        return self._readings[parser]

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


class _Documents:
    """The parsed documents with their evidence locators (built on first use)."""

    def __init__(self, parsed: list[Document], removed: list[list[int]]):
        self.parsed = parsed
        self.removed = removed
        self._locators: dict[int, Locator] = {}

    def locator(self, d: int) -> Locator:
        if d not in self._locators:
            self._locators[d] = Locator(self.parsed[d].text)
        return self._locators[d]

    def locate(
        self, entry: object, qid: str, d: int | None
    ) -> tuple[Evidence | None, list[InputError]]:
        """Find an evidence entry in document ``d``, or in whichever document holds it."""
        if d is not None:
            return locate(entry, qid, d, self.parsed[d], self.locator(d), self.removed[d])
        text = entry.get("text") if isinstance(entry, dict) else entry
        if not isinstance(text, str) or not text.strip():
            return None, [InputError("an evidence entry is empty or not text.", qid)]
        holders = self._holders(entry, text)
        for alt in other_forms(text) if not holders else ():  # NFD evidence, NFC document...
            holders = self._holders(entry, alt)
            if holders:
                break
        if not holders:
            n = len(self.parsed)
            return None, [
                InputError(
                    f"evidence not found in any of the {n} documents: {preview(text)!r}", qid
                )
            ]
        if len(holders) > 1 and accepts_any(entry):
            return self._everywhere(entry, qid, holders)
        first = holders[0]
        ev, errors = locate(
            entry, qid, first, self.parsed[first], self.locator(first), self.removed[first]
        )
        if len(holders) > 1:
            names = ", ".join(self.parsed[d].name for d in holders)
            errors.append(
                InputError(
                    f"evidence {preview(text)!r} occurs in several documents ({names}); "
                    f'using {self.parsed[first].name} (name one with "doc").',
                    qid,
                    "warning",
                )
            )
        return ev, errors

    def _everywhere(
        self, entry: dict, qid: str, holders: list[int]
    ) -> tuple[Evidence | None, list[InputError]]:
        """Evidence that accepts any occurrence, at every occurrence in every document of
        ``holders``."""
        found, errors = [], []
        for d in holders:
            ev, problems = locate(entry, qid, d, self.parsed[d], self.locator(d), self.removed[d])
            errors += problems
            if ev is not None:
                found.append(ev)
        if not found:
            return None, errors
        everywhere = tuple(o for ev in found for o in ev.occurrences)
        return replace(found[0], occurrences=everywhere), errors

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


def _digested(ev: Evidence) -> tuple:
    """What the corpus digest reads of an evidence span: where it is, and every place that
    counts when it accepts any occurrence."""
    if ev.occurrences is None:
        return (ev.doc, ev.start, ev.end)
    return (ev.doc, ev.start, ev.end, ev.occurrences)


def _read_documents(
    sources: list[Source], policy: Policy, parser: str | None = None
) -> tuple[list[Document], list[DocumentInfo], list[list[int]], list[InputError]]:
    """Decode, check and parse every source; with several, one that cannot be used is reported
    and left out (with one, it refuses the corpus)."""
    parsed, infos, removed, errors = [], [], [], []
    known = known_types(policy)
    for source in sources:
        name = source.name
        try:
            format = source.format or binary_format(name, source.data)
            if format is not None and FORMATS.get(format) and FORMATS[format].binary:
                document, crs = read_binary(source.data, name, format, parser), []
            else:
                text, crs = normalise_newlines(decode_text(source.data, f"Document {name!r}"))
                if len(text) > MAX_DOCUMENT_CHARS:
                    raise CorpusError(
                        f"Document {name!r} is {len(text):,} characters; "
                        f"the limit is {MAX_DOCUMENT_CHARS:,}."
                    )
                if not text.strip():
                    raise CorpusError(f"Document {name!r} is empty.")
                format = format or document_format(name, text)
                try:
                    document = parse_source(text, name, format, parser, source.headings)
                except RecursionError:  # a reader's recursion on markup nested thousands deep
                    raise CorpusError(
                        f"Document {name!r} nests its markup too deeply to be read."
                    ) from None
                if FORMATS[format].extracted:
                    crs = []  # its text is the extracted one: the file's CRs are not in it
                if source.headings and not FORMATS[format].patterns:
                    errors.append(
                        InputError(
                            f"{name}: heading patterns apply to plain text and markdown; this "
                            f"{format} document is read without them",
                            severity="warning",
                            document=name,
                        )
                    )
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
    parser: str | None = None,
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
    parsed, infos, removed, problems = _read_documents(sources, policy, parser)
    errors.extend(problems)
    doc_names = {d.name: i for i, d in enumerate(parsed)}
    docs = _Documents(parsed, removed)

    items, problems = parse_qe(qe) if qe is not None else ([], [])
    errors.extend(problems)
    questions: list[Question] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        checked, problems = check_question(item, index, seen, doc_names)
        errors.extend(problems)
        if checked is None:
            continue
        evidence, ok = [], True
        for entry in checked["evidence"]:
            d, problem = entry_doc(entry, checked["doc"], doc_names, checked["id"])
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

    digest = _documents_hash(parsed, infos, policy)
    digest.update(
        json.dumps(
            [
                [q.id, q.question, q.split, q.filter, [_digested(e) for e in q.evidence]]
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
        tuple(tuple(crs) for crs in removed),
        canonical_parser(parser),
        tuple(sources),
        qe,
    )


def _documents_hash(documents: Sequence[Document], infos: Sequence[DocumentInfo], policy: Policy):
    """The sha256 of what an index is built from (see ``Corpus.documents_digest``)."""
    digest = hashlib.sha256()
    for d, info in zip(documents, infos, strict=True):
        digest.update(d.name.encode() + b"\0" + d.text.encode() + b"\0")
        digest.update(json.dumps([info.type, info.meta, info.format]).encode())
    digest.update(json.dumps(policy.as_dict(), sort_keys=True).encode())
    return digest


def load_corpus(
    doc: str | Path | list[str | Path],
    qe: str | Path | None = None,
    types: Mapping[str, str] | None = None,
    parser: str | None = None,
) -> Corpus:
    """Load document file(s) and a QE JSON file. Document names are the file stems (the format
    comes from the file name's ending); ``types`` gives some of them a type (by name, file name
    or stem; the others' types are inferred); ``parser`` chooses a format's reading."""
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
        data = read_input(path, "document file")
        sources.append(Source(path.stem, data, given.get(k), format=suffix_format(path.name)))
    if qe is None:
        return build_corpus(sources, None, parser=parser)
    return build_corpus(sources, read_input(Path(qe), "QE file"), parser=parser)


def build_collection(
    manifest: str | bytes | dict,
    fetch: Callable[[str], bytes | None],
    qe: str | bytes | dict | list | None = None,
    *,
    where: str = "collection.json",
    extra: Sequence[Source] = (),
    parser: str | None = None,
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
    corpus = build_corpus(sources, questions, read.policy, title=read.name, parser=parser)
    return _with_errors(corpus, read.errors)


def load_collection(
    manifest: str | Path, qe: str | Path | None = None, parser: str | None = None
) -> Corpus:
    """Load the collection a manifest (``collection.json``) lists, its paths relative to the
    manifest's folder; ``qe`` replaces the manifest's questions file."""
    path = Path(manifest)
    data = read_input(path, "collection manifest")
    base = path.parent

    def fetch(name: str) -> bytes | None:
        target = base / name
        return read_input(target, "file") if os.path.lexists(target) else None

    questions = None if qe is None else read_input(Path(qe), "QE file")
    return build_collection(data, fetch, questions, where=path.name, parser=parser)


def _with_errors(corpus: Corpus, errors: Sequence[InputError]) -> Corpus:
    """``corpus`` with ``errors`` (found before it was built) reported first."""
    if not errors:
        return corpus
    return replace(corpus, errors=(*errors, *corpus.errors), given_errors=tuple(errors))
