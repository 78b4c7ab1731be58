"""chonkie's chunkers. chonkie reports each chunk's offsets; they are kept where they hold the
chunk's text, and the chunk is located like a string where they do not."""

from __future__ import annotations

from ...parse import Document
from ..base import Params, Plan, register
from .locate import offsets_plan

INSTALL = "pip install -r requirements-pipelines.txt"
REQUIRES = ("chonkie",)


def tokenizer_of(p: Params):
    """What chonkie is given as its tokenizer: the lab tokenizer's library object, or
    ``"character"``."""
    return "character" if p.tokenizer is None else p.tokenizer.backend


def recursive_chunker(p: Params):
    """``RecursiveChunker(tokenizer, chunk_size=L)`` (it has no overlap)."""
    from chonkie import RecursiveChunker

    return RecursiveChunker(tokenizer=tokenizer_of(p), chunk_size=p.size)


def token_chunker(p: Params):
    """``TokenChunker(tokenizer, chunk_size=L, chunk_overlap=overlap)``."""
    from chonkie import TokenChunker

    return TokenChunker(tokenizer=tokenizer_of(p), chunk_size=p.size, chunk_overlap=p.overlap)


def semantic_chunker(p: Params):
    """``SemanticChunker(SentenceTransformerEmbeddings(model), chunk_size=L)`` with the lab's
    embedding model; chonkie counts its size in that model's tokens."""
    from chonkie import SemanticChunker
    from chonkie.embeddings import SentenceTransformerEmbeddings

    if p.embedder is None:
        raise ValueError("the chonkie-semantic chunker needs an embedder (dense embeddings)")
    embeddings = SentenceTransformerEmbeddings(p.embedder.load())
    return SemanticChunker(embedding_model=embeddings, chunk_size=p.size)


def _plan(doc: Document, chunker) -> Plan:
    return offsets_plan(doc.text, ((c.text, c.start_index, c.end_index) for c in chunker(doc.text)))


@register(
    "chonkie-recursive",
    "chonkie recursive",
    "chonkie's RecursiveChunker: splits at paragraphs, then sentences, punctuation, words and "
    "characters, merging pieces up to L (no overlap).",
    order=34,
    units=False,
    kind="adapter",
    requires=REQUIRES,
    install=INSTALL,
)
def chonkie_recursive(doc: Document, p: Params) -> Plan:
    return _plan(doc, recursive_chunker(p))


@register(
    "chonkie-token",
    "chonkie token",
    "chonkie's TokenChunker: windows of L tokens (characters without a tokenizer), step "
    "L - overlap.",
    order=35,
    overlap=True,
    units=False,
    kind="adapter",
    requires=REQUIRES,
    install=INSTALL,
)
def chonkie_token(doc: Document, p: Params) -> Plan:
    return _plan(doc, token_chunker(p))


@register(
    "chonkie-semantic",
    "chonkie semantic",
    "chonkie's SemanticChunker with the lab's embedding model: cuts where adjacent sentences' "
    "similarity drops, chunks up to L of the model's tokens.",
    order=36,
    dense=True,
    units=False,
    kind="adapter",
    requires=REQUIRES,
    install=INSTALL,
)
def chonkie_semantic(doc: Document, p: Params) -> Plan:
    return _plan(doc, semantic_chunker(p))
