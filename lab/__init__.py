"""Chunking Lab engine: parse, chunk, index, retrieve, assemble and score. No UI code here.

>>> from lab import load_corpus, LabConfig, run_lab
>>> corpus = load_corpus("data/handbook.md", "data/handbook_qe.json")
>>> result = run_lab(corpus, LabConfig(size=450, budget=120, split="test"))
"""

from .chunkers import CHUNKERS, Chunk
from .collection import (
    DEFAULT_POLICY,
    DOCUMENT_TYPES,
    POLICY_CHUNKER,
    DocumentInfo,
    Policy,
    PolicyEntry,
    Source,
    describe_filter,
    infer_type,
)
from .corpus import (
    MAX_DOCUMENT_CHARS,
    MAX_QE_CHARS,
    Corpus,
    CorpusError,
    InputError,
    Question,
    build_collection,
    build_corpus,
    load_collection,
    load_corpus,
)
from .html_doc import parse_html
from .index import Index, build_index
from .metrics import DIAGNOSES, EXPLAIN
from .parse import Document, parse_document
from .retrieve import LEXICAL_MODES, MODES
from .run import (
    DEFAULT_BUDGETS,
    DEFAULT_CHUNKERS,
    DEFAULT_SIZES,
    SPLITS,
    Explanation,
    LabCache,
    LabConfig,
    LabResult,
    Run,
    SweepResult,
    explain,
    run_lab,
    sweep,
)

__all__ = [
    "CHUNKERS",
    "DEFAULT_POLICY",
    "DOCUMENT_TYPES",
    "POLICY_CHUNKER",
    "DocumentInfo",
    "Policy",
    "PolicyEntry",
    "Source",
    "describe_filter",
    "infer_type",
    "load_collection",
    "DEFAULT_BUDGETS",
    "DEFAULT_CHUNKERS",
    "DEFAULT_SIZES",
    "LEXICAL_MODES",
    "DIAGNOSES",
    "EXPLAIN",
    "MAX_DOCUMENT_CHARS",
    "MAX_QE_CHARS",
    "MODES",
    "SPLITS",
    "Chunk",
    "Corpus",
    "CorpusError",
    "Document",
    "Explanation",
    "Index",
    "InputError",
    "LabCache",
    "LabConfig",
    "LabResult",
    "Question",
    "Run",
    "SweepResult",
    "build_collection",
    "build_corpus",
    "build_index",
    "explain",
    "load_corpus",
    "parse_document",
    "parse_html",
    "run_lab",
    "sweep",
]
