"""Chunking Lab engine: parse, chunk, index, retrieve, assemble and score. No UI code here.

>>> from lab import load_corpus, LabConfig, run_lab
>>> corpus = load_corpus("data/handbook.md", "data/handbook_qe.json")
>>> result = run_lab(corpus, LabConfig(size=450, budget=120, split="test"))
"""

from .chunkers import CHUNKERS, Chunk
from .cluster import ClusterError, DistributedUnavailable, distributed_status
from .cluster import connect as connect_cluster
from .corpus import (
    MAX_DOCUMENT_CHARS,
    MAX_QE_CHARS,
    Corpus,
    CorpusError,
    InputError,
    Question,
    build_corpus,
    load_corpus,
)
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
    sweep_cell,
)

__all__ = [
    "CHUNKERS",
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
    "ClusterError",
    "Corpus",
    "CorpusError",
    "DistributedUnavailable",
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
    "build_corpus",
    "build_index",
    "connect_cluster",
    "distributed_status",
    "explain",
    "load_corpus",
    "parse_document",
    "run_lab",
    "sweep",
    "sweep_cell",
]
