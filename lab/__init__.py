"""Chunking Lab engine: parse, chunk, index, retrieve, assemble and score; compare two
configurations. No UI code here.

>>> from lab import load_corpus, LabConfig, run_lab, compare, configure
>>> corpus = load_corpus("data/handbook.md", "data/handbook_qe.json")
>>> result = run_lab(corpus, LabConfig(size=450, budget=120, split="test"))
>>> a = configure(LabConfig(), "chunker=structure,mode=flat")
>>> comparison = compare(corpus, a, configure(a, "mode=graph"))
"""

from .adaptive import ADAPTIVE
from .cache import LabCache
from .chunkers import (
    CHUNKERS,
    REFERENCE_PLACEMENTS,
    Chunk,
    chunker_status,
    reference_placement,
    references_switched,
)
from .chunkers.base import ChunkerFailed
from .chunkers.parent_child import parents_over_budget
from .cluster import ClusterError, DistributedUnavailable, distributed_status
from .cluster import connect as connect_cluster
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
from .compare import (
    TRANSITIONS,
    Comparison,
    Leaders,
    compare,
    compare_results,
    configure,
    differences,
    leaders,
    p_text,
    points,
    setting_names,
    uses_embeddings,
)
from .config import (
    DEFAULT_BUDGETS,
    DEFAULT_CHUNKERS,
    DEFAULT_SIZES,
    SPLITS,
    LabConfig,
    question_count,
    reranker_for,
)
from .corpus import (
    MAX_DOCUMENT_CHARS,
    Corpus,
    CorpusError,
    InputError,
    Question,
    build_collection,
    build_corpus,
    load_collection,
    load_corpus,
)
from .csv_export import csv_text
from .decode import decode_text
from .depth import Depth, ranking_depth
from .diagnosis import context_note
from .drafting import Draft, Endpoint, LLMError, draft_questions
from .formats import FORMATS, binary_format, document_format, outline, read_binary, read_document
from .formats.html import parse_html
from .formats.text import parse_document
from .importers import FORMATS as IMPORT_FORMATS
from .importers import Imported, collection_files, import_dataset, open_files, recognise
from .index import Index, build_index
from .jsonread import loads_or_none as json_or_none
from .marking import Hit, next_id, qe_text, question_items, search
from .memory import over_budget as memory_over_budget
from .metrics import DIAGNOSES, EXPLAIN, KS
from .parse import Document
from .plugins import Pipeline, load_config, load_plugin, register_chunker, register_pipeline
from .qe import MAX_QE_CHARS, parse_qe
from .retrieve import LEXICAL_MODES, MODES
from .run import (
    Explanation,
    LabResult,
    Run,
    explain,
    question_budget,
    run_lab,
    untrained_chunkers,
)
from .stats import mcnemar_exact, paired_bootstrap, percent_digits, percent_text, wilson_interval
from .sweeps import SweepResult, sweep, sweep_cell
from .training import TRAINING_SPLITS, scored_on_training, training_warning

__all__ = [
    "ADAPTIVE",
    "CHUNKERS",
    "chunker_status",
    "ChunkerFailed",
    "Pipeline",
    "load_config",
    "load_plugin",
    "register_chunker",
    "register_pipeline",
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
    "KS",
    "MAX_DOCUMENT_CHARS",
    "MAX_QE_CHARS",
    "MODES",
    "REFERENCE_PLACEMENTS",
    "SPLITS",
    "TRANSITIONS",
    "Chunk",
    "ClusterError",
    "Comparison",
    "Corpus",
    "CorpusError",
    "Depth",
    "DistributedUnavailable",
    "Document",
    "Explanation",
    "Index",
    "InputError",
    "LabCache",
    "LabConfig",
    "LabResult",
    "Leaders",
    "Question",
    "Run",
    "SweepResult",
    "build_collection",
    "build_corpus",
    "build_index",
    "connect_cluster",
    "distributed_status",
    "compare",
    "compare_results",
    "configure",
    "context_note",
    "differences",
    "explain",
    "leaders",
    "p_text",
    "points",
    "uses_embeddings",
    "load_corpus",
    "decode_text",
    "memory_over_budget",
    "csv_text",
    "json_or_none",
    "parse_qe",
    "mcnemar_exact",
    "paired_bootstrap",
    "percent_digits",
    "percent_text",
    "parse_document",
    "parse_html",
    "read_document",
    "read_binary",
    "binary_format",
    "outline",
    "document_format",
    "FORMATS",
    "ranking_depth",
    "reference_placement",
    "references_switched",
    "question_count",
    "question_budget",
    "run_lab",
    "reranker_for",
    "setting_names",
    "sweep",
    "sweep_cell",
    "wilson_interval",
    "untrained_chunkers",
    "parents_over_budget",
    "TRAINING_SPLITS",
    "scored_on_training",
    "training_warning",
    "Draft",
    "Endpoint",
    "LLMError",
    "draft_questions",
    "IMPORT_FORMATS",
    "Imported",
    "collection_files",
    "import_dataset",
    "open_files",
    "recognise",
    "Hit",
    "next_id",
    "qe_text",
    "question_items",
    "search",
]
