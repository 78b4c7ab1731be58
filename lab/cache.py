"""Indexes, rankings and index statistics kept for reuse across runs, sweeps and budgets."""

from __future__ import annotations

import threading
from collections import OrderedDict
from weakref import WeakKeyDictionary

from .config import LabConfig, embedder_for, reranker_for
from .corpus import Corpus
from .index import Index, build_index
from .lru import bounded_get
from .metrics import IndexStats, index_stats
from .retrieval import KEPT_BUDGETS, Retrieval


class LabCache:
    """Indexes and rankings kept for reuse across runs, sweeps and budgets (least recently used
    ones dropped past ``max_indexes``). Safe to share between threads."""

    def __init__(self, max_indexes: int = 32):
        self.max_indexes = max_indexes
        self._indexes: OrderedDict[tuple, Index] = OrderedDict()
        self._retrievals: OrderedDict[tuple, Retrieval] = OrderedDict()
        self._stats: WeakKeyDictionary[Index, OrderedDict] = WeakKeyDictionary()
        self._lock = threading.Lock()

    def index(
        self, corpus: Corpus, config: LabConfig, chunker: str, size: int | None = None
    ) -> Index:
        size = size or config.size
        key = _index_key(corpus, config, chunker, size)
        return bounded_get(
            self._lock,
            self._indexes,
            key,
            lambda: build_index(
                corpus,
                chunker,
                size,
                overlap=config.overlap,
                headers=config.headers,
                refs=config.refs,
                embedder=embedder_for(config),
                late=config.late,
            ),
            self.max_indexes,
        )

    def stats(self, index: Index, budget: int) -> IndexStats:
        """``index_stats(index, budget)``, kept while the index lives (``KEPT_BUDGETS`` each)."""
        with self._lock:
            kept = self._stats.setdefault(index, OrderedDict())
        return bounded_get(
            self._lock, kept, budget, lambda: index_stats(index, budget), KEPT_BUDGETS
        )

    def retrieval(
        self, index: Index, config: LabConfig, mode: str, unfiltered: bool = False
    ) -> Retrieval:
        """Rankings of the split's questions, with their metadata filters as ``config.filters``
        says (``unfiltered``: only the questions that have one, ranked as if they had none)."""
        filters = config.filters and not unfiltered
        key = (
            _index_key(index.corpus, config, index.chunker, index.size),
            config.split,
            mode,
            config.rerank,
            config.rerank_top,
            filters,
            unfiltered,
        )
        questions = index.corpus.split(config.split)
        if unfiltered:
            questions = tuple(q for q in questions if q.filter)
        return bounded_get(
            self._lock,
            self._retrievals,
            key,
            lambda: Retrieval.of(
                index, questions, mode, reranker_for(config), config.rerank_top, filters
            ),
            4 * self.max_indexes,
        )


def _index_key(corpus: Corpus, config: LabConfig, chunker: str, size: int) -> tuple:
    """Everything an index depends on."""
    return (
        corpus.digest,
        chunker,
        size,
        config.overlap,
        config.headers,
        config.refs,
        config.dense,
        config.late,
    )
