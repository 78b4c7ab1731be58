"""Chunk a corpus once per configuration and index it for retrieval."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

import numpy as np

from .assemble import TermCounts, term_counts
from .bm25 import BM25
from .chunkers import (
    CHUNKERS,
    GUARDED,
    Chunk,
    Params,
    Training,
    chunk_document,
    chunker_status,
)
from .collection import POLICY_CHUNKER
from .corpus import Corpus
from .graph import ChunkGraph, build_graph
from .text import tokenize

DEFAULT_OVERLAP = 50


def check_chunking(chunker: str, size: int, overlap: int) -> None:
    """Validate chunking parameters early, naming what is allowed."""
    if chunker not in CHUNKERS:
        raise ValueError(f"unknown chunker {chunker!r}; choose one of {', '.join(CHUNKERS)}")
    ok, status = chunker_status(chunker)
    if not ok:
        raise ValueError(status)
    if not isinstance(size, int) or size < 20:
        raise ValueError(f"size must be a whole number of characters >= 20, got {size!r}")
    if not isinstance(overlap, int) or overlap < 0:
        raise ValueError(f"overlap must be a whole number >= 0, got {overlap!r}")
    if CHUNKERS[chunker].overlap and overlap >= size:
        raise ValueError(f"overlap must be smaller than size for {chunker} ({overlap} >= {size})")


def learns(corpus: Corpus, chunker: str) -> bool:
    """Whether ``chunker`` learns from the corpus's train questions: a supervised chunker, or
    the by-type policy when it gives one of the corpus's document types a supervised one."""
    if chunker == POLICY_CHUNKER:
        return any(CHUNKERS[corpus.policy.entry(t).chunker].supervised for t in corpus.types)
    return CHUNKERS[chunker].supervised


def guarded(chunker: str) -> bool:
    """Whether the heading guard changes what ``chunker`` cuts: the guarded chunkers, and the
    by-type policy (which may give a document one of them)."""
    return chunker in GUARDED or chunker == POLICY_CHUNKER


def training_for(corpus: Corpus, doc: int) -> Training:
    """Evidence of the corpus's train questions in document ``doc``, in unit terms (a question
    whose evidence spans several documents counts with its spans in this one), with each such
    question's tokens."""
    held = [
        (spans, q)
        for q in corpus.split("train")
        if (spans := tuple((e.first, e.last) for e in q.evidence if e.doc == doc))
    ]
    return Training(
        tuple(spans for spans, _ in held), tuple(tuple(tokenize(q.question)) for _, q in held)
    )


def training_key(corpus: Corpus, chunker: str) -> tuple | None:
    """What ``chunker`` learns from the corpus's questions: its train questions' text (which
    ``qes-retrieval`` ranks windows for) and evidence, in unit terms and in order (None: it
    learns nothing)."""
    if not learns(corpus, chunker):
        return None
    return tuple(
        (q.question, tuple((e.doc, e.first, e.last) for e in q.evidence))
        for q in corpus.split("train")
    )


# What an index computes from its documents alone, kept when it moves to other questions.
QUESTION_FREE = (
    "doc_of",
    "words",
    "delivered_tokens",
    "delivered_terms",
    "delivery_keys",
    "vectors",
    "graph",
    "doc_names",
    "pick_fields",
    "tokens",
    "heading_starts",
    "source_table",
)


@dataclass(frozen=True, eq=False)
class Index:
    """The chunks of one chunker over a corpus, with BM25 and (on demand) the chunk graph."""

    corpus: Corpus = field(repr=False)
    chunker: str
    size: int
    overlap: int
    headers: bool
    refs: str  # reference placement: "delivered", "index-only" or "off"
    chunks: tuple[Chunk, ...] = field(repr=False)
    objective: float | None
    bm25: BM25 = field(repr=False)
    embedder: object | None = field(default=None, repr=False)  # lab.embed.Embedder
    late: bool = False
    cuts: tuple[tuple[int, ...], ...] = field(default=(), repr=False)  # per document (Plan.cuts)
    doc_sizes: tuple[int, ...] = ()  # the L each document was cut with (by-type: its policy's)
    heading_guard: bool = False  # the guarded chunkers never cut after a heading

    def over(self, corpus: Corpus) -> Index:
        """This index for ``corpus``: the same documents with other questions, from which the
        chunker learns what it learned here (``training_key`` equal). Chunks, BM25, vectors and
        the chunk graph are shared; which chunks hold each evidence span is found afresh."""
        if corpus.documents_digest != self.corpus.documents_digest:
            raise ValueError("an index moves only to a corpus of the same documents")
        if training_key(corpus, self.chunker) != training_key(self.corpus, self.chunker):
            raise ValueError(f"{self.chunker} learns from other train questions in that corpus")
        moved = replace(self, corpus=corpus)
        for name in QUESTION_FREE:
            if name in self.__dict__:
                moved.__dict__[name] = self.__dict__[name]
        return moved

    tokenizer: object | None = field(default=None, repr=False)  # lab.tokens.Tokenizer
    notes: tuple[str, ...] = ()  # what adapters' libraries rewrote, per document and chunk

    def limit(self, chunk: Chunk) -> int:
        """The size limit ``L`` the chunk's document was cut with."""
        return self.doc_sizes[chunk.doc] if self.doc_sizes else self.size

    @cached_property
    def doc_of(self) -> np.ndarray:
        """The document of each chunk."""
        return np.fromiter((c.doc for c in self.chunks), dtype=np.int64, count=len(self.chunks))

    @property
    def resolve_refs(self) -> bool:
        """Whether cited provisions are resolved at all (delivered or in the index only)."""
        return self.refs != "off"

    @property
    def train_questions(self) -> int | None:
        """Train questions a supervised chunker learned from (0: it ran untrained); None for a
        chunker that learns nothing."""
        if not learns(self.corpus, self.chunker):
            return None
        return len(self.corpus.split("train"))

    @property
    def unit(self) -> str:
        """What ``words`` counts: "words", or "NAME tokens" with a tokenizer."""
        return "words" if self.tokenizer is None else f"{self.tokenizer.name} tokens"

    @cached_property
    def words(self) -> np.ndarray:
        """What the context budget counts of each chunk: the words it delivers, or with a
        tokenizer its tokens (``tokens``)."""
        if self.tokenizer is not None:
            return np.asarray(self.tokens, dtype=np.int64)
        return np.fromiter((c.words for c in self.chunks), dtype=np.int64, count=len(self.chunks))

    @cached_property
    def tokens(self) -> list[int] | None:
        """Tokens of the tokenizer each chunk delivers (None without a tokenizer)."""
        if self.tokenizer is None:
            return None
        return self.tokenizer.counts([c.text for c in self.chunks])

    @cached_property
    def delivered_tokens(self) -> list[list[int]]:
        """Token ids of what each chunk delivers, for the assembler's novelty rule."""
        if all(c.search is None for c in self.chunks):
            return self.bm25.token_ids
        vocab: dict[str, int] = {}
        return [[vocab.setdefault(t, len(vocab)) for t in tokenize(c.text)] for c in self.chunks]

    @cached_property
    def delivered_terms(self) -> TermCounts:
        """``delivered_tokens`` as counts of distinct tokens, what the novelty rule reads."""
        return term_counts(self.delivered_tokens)

    @cached_property
    def delivery_keys(self) -> list[int] | None:
        """Chunks that deliver the same text share a key (parent-child); None when all differ."""
        if all(c.search is None for c in self.chunks):
            return None
        keys: dict[tuple, int] = {}
        return [keys.setdefault((c.doc, c.source), len(keys)) for c in self.chunks]

    @cached_property
    def vectors(self) -> np.ndarray:
        """Unit-length embeddings of the chunks (dense retrieval); late chunking pools them from
        token vectors of whole sections."""
        from .embed import DenseUnavailable, late_vectors

        if self.embedder is None:
            raise DenseUnavailable(
                "dense retrieval is off for this index: choose an embedding model"
            )
        if not self.late:
            return self.embedder.encode([c.search_text for c in self.chunks])
        out = np.zeros((len(self.chunks), self.embedder.dim), dtype=np.float32)
        for d, doc in enumerate(self.corpus.documents):
            ks = [k for k, c in enumerate(self.chunks) if c.doc == d]
            if ks:
                spans = [self.chunks[k].search_source or self.chunks[k].source[0] for k in ks]
                out[ks] = late_vectors(self.embedder, doc.text, doc.sections, spans)
        return out

    @cached_property
    def graph(self) -> ChunkGraph:
        return build_graph(self.chunks, self.corpus.documents, self.bm25.matrix, self.resolve_refs)

    @cached_property
    def holders(self) -> dict[tuple, np.ndarray]:
        """Chunks holding each evidence span whole, keyed by ``Evidence.key``: the ``(doc,
        start, end)`` span, or for evidence that accepts any occurrence, all of them (a chunk
        holding any one holds it)."""
        return {key: np.asarray(ks, dtype=np.int64) for key, ks in self.holder_lists.items()}

    @cached_property
    def source_table(self) -> dict[int, tuple[list[tuple[int, int, int]], list[int], int]]:
        """Per document, every source range of a chunk as ``(start, end, chunk)`` in order,
        their starts, and the longest range's length: where ``holder_lists`` looks."""
        by_doc: dict[int, list[tuple[int, int, int]]] = {}
        for k, c in enumerate(self.chunks):
            for s, e in c.source:
                by_doc.setdefault(c.doc, []).append((s, e, k))
        tables = {}
        for doc, ranges in by_doc.items():
            ranges.sort()
            longest = max(e - s for s, e, _ in ranges)
            tables[doc] = (ranges, [s for s, _, _ in ranges], longest)
        return tables

    @cached_property
    def holder_lists(self) -> dict[tuple, tuple[int, ...]]:
        """``holders`` as tuples of ints (ascending), for scoring question by question."""
        tables = self.source_table

        def holding(doc: int, start: int, end: int) -> set[int]:
            ranges, starts, longest = tables.get(doc, ([], [], 0))
            hi = bisect_right(starts, start)
            lo = bisect_right(starts, end - longest - 1)
            return {k for s, e, k in ranges[lo:hi] if e >= end}

        found: dict[tuple, tuple[int, ...]] = {}
        for q in self.corpus.questions:
            for ev in q.evidence:
                key = ev.key
                if key not in found:
                    spans = [key] if ev.occurrences is None else ev.occurrences
                    found[key] = tuple(sorted(set().union(*(holding(*o) for o in spans))))
        return found

    @cached_property
    def doc_names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.corpus.documents)

    @cached_property
    def pick_fields(self) -> list[tuple]:
        """Per chunk: its id, words, source ranges, document name and tokens (a context's
        ``Pick``)."""
        names, tokens = self.doc_names, self.tokens or [None] * len(self.chunks)
        return [
            (c.id, c.words, c.source, names[c.doc], t)
            for c, t in zip(self.chunks, tokens, strict=True)
        ]

    @cached_property
    def heading_starts(self) -> int:
        """How many chunks start at a heading (:func:`starts_at_heading`)."""
        return sum(starts_at_heading(self, c) for c in self.chunks)

    def holding(self, ev) -> np.ndarray:
        """Indices of chunks one of whose source ranges contains evidence ``ev``."""
        return self.holders[ev.key]


def starts_at_heading(index: Index, chunk) -> bool:
    """True when the chunk's body begins at a heading line, or right after one whose path its
    prefix carries."""
    doc = index.corpus.documents[chunk.doc]
    text, start = doc.text, chunk.start
    while start < chunk.end and text[start].isspace():
        start += 1
    u = bisect_left(doc.unit_starts, start)
    if u == len(doc.units) or doc.unit_starts[u] != start:
        return False
    unit = doc.units[u]
    if unit.kind == "heading":
        return True
    return (
        u > 0 and doc.units[u - 1].kind == "heading" and unit.provision in chunk.prefix_provisions
    )


def chunk_tokens(doc, chunk: Chunk) -> list[str]:
    """``tokenize(chunk.text)``, reusing the document's unit tokens for the body."""
    if chunk.search is not None or chunk.layout is not None:
        return tokenize(chunk.search_text)
    start, end = chunk.source[0]
    tail = chunk.text[len(chunk.prefix) + end - start :]
    body = doc.tokens(start, end)
    if chunk.prefix:
        body[:0] = prefix_tokens(chunk.prefix)
    if tail:
        body += tokenize(tail)
    return body


@lru_cache(maxsize=4096)
def prefix_tokens(prefix: str) -> tuple[str, ...]:
    return tuple(tokenize(prefix))


def build_index(
    corpus: Corpus,
    chunker: str,
    size: int,
    *,
    overlap: int = DEFAULT_OVERLAP,
    headers: bool = False,
    refs: str = "delivered",
    embedder=None,
    late: bool = False,
    heading_guard: bool = False,
    tokenizer=None,
) -> Index:
    """Chunk every document of ``corpus`` with ``chunker`` and index the chunks with BM25 (and,
    with an ``embedder``, for dense retrieval; ``late`` pools chunk vectors from whole sections).
    ``refs`` places cited provisions' text: "delivered", "index-only" or "off"; ``heading_guard``
    keeps the guarded chunkers from cutting between a heading and its first unit
    (:mod:`lab.chunkers.guard`). With a ``tokenizer`` (``lab.tokens.Tokenizer``), ``size``,
    ``overlap`` and the budget the index's ``words`` are read against count its tokens."""
    check_chunking(chunker, size, overlap)
    params = Params(  # what every document's chunker is given; refs checked here
        size,
        overlap,
        refs=refs,
        embedder=embedder,
        policy=corpus.policy,
        heading_guard=heading_guard,
        tokenizer=tokenizer,
    )
    if (CHUNKERS[chunker].dense or late) and embedder is None:
        from .embed import DenseUnavailable

        what = "late chunking" if late else f"the {chunker} chunker"
        raise DenseUnavailable(f"{what} needs an embedding model: turn dense embeddings on")
    chunks: list[Chunk] = []
    cuts = []
    notes: list[str] = []
    objective = None
    types = corpus.types
    sizes = tuple(
        corpus.policy.resolve(t, size, overlap, embedder is not None).size
        if chunker == POLICY_CHUNKER
        else size
        for t in types
    )
    trained = learns(corpus, chunker)  # the others are given no training: they read none
    for d, doc in enumerate(corpus.documents):
        made, plan = chunk_document(
            doc,
            d,
            chunker,
            replace(
                params,
                training=training_for(corpus, d) if trained else Training(),
                doc_type=types[d],
            ),
            headers=headers,
            first_id=len(chunks),
        )
        chunks.extend(made)
        cuts.append(plan.cuts)
        notes.extend(f"{chunker} on {doc.name}, {note}" for note in plan.notes)
        if plan.objective is not None:
            objective = round((objective or 0.0) + plan.objective, 6)
    bm25 = BM25([chunk_tokens(corpus.documents[c.doc], c) for c in chunks])
    return Index(
        corpus,
        chunker,
        size,
        overlap,
        headers,
        refs,
        tuple(chunks),
        objective,
        bm25,
        embedder,
        late,
        tuple(cuts),
        sizes,
        heading_guard,
        tokenizer,
        tuple(notes),
    )
