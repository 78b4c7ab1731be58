"""Indexes, rankings and index statistics kept for reuse across runs, sweeps and budgets."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from weakref import WeakKeyDictionary

from .config import LabConfig, embedder_for, reranker_for
from .corpus import Corpus
from .index import Index, build_index
from .lru import bounded_get
from .metrics import IndexStats, index_stats
from .retrieval import KEPT_BUDGETS, Retrieval


class LabCache:
    """Indexes, rankings and sweep rows kept for reuse across runs, sweeps and budgets (least
    recently used ones dropped past ``max_indexes``, four times as many rankings, sixteen times
    as many sweep cells). Safe to share between threads."""

    def __init__(self, max_indexes: int = 32):
        self.max_indexes = max_indexes
        self._indexes: OrderedDict[tuple, Index] = OrderedDict()
        self._retrievals: OrderedDict[tuple, Retrieval] = OrderedDict()
        self._rows: OrderedDict[tuple, tuple[dict, ...]] = OrderedDict()
        self._stats: WeakKeyDictionary[Index, OrderedDict] = WeakKeyDictionary()
        self._lock = threading.Lock()

    def index(
        self,
        corpus: Corpus,
        config: LabConfig,
        chunker: str,
        size: int | None = None,
        keep: bool = True,
    ) -> Index:
        """``chunker``'s index of ``corpus`` at ``size`` (``config.size`` if None), kept unless
        ``keep`` is False (then only looked up, or built and handed out)."""
        size = size or config.size
        key = _index_key(corpus, config, chunker, size)
        return self._get(
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
            keep,
        )

    def stats(self, index: Index, budget: int) -> IndexStats:
        """``index_stats(index, budget)``, kept while the index lives (``KEPT_BUDGETS`` each)."""
        with self._lock:
            kept = self._stats.setdefault(index, OrderedDict())
        return bounded_get(
            self._lock, kept, budget, lambda: index_stats(index, budget), KEPT_BUDGETS
        )

    def retrieval(
        self,
        index: Index,
        config: LabConfig,
        mode: str,
        unfiltered: bool = False,
        keep: bool = True,
    ) -> Retrieval:
        """Rankings of the split's questions, with their metadata filters as ``config.filters``
        says (``unfiltered``: only the questions that have one, ranked as if they had none);
        kept unless ``keep`` is False."""
        filters = config.filters and not unfiltered
        questions = index.corpus.split(config.split)
        if unfiltered:
            questions = tuple(q for q in questions if q.filter)
        return self._get(
            self._retrievals,
            retrieval_key(index.corpus, config, index.chunker, index.size, mode, unfiltered),
            lambda: Retrieval.of(
                index, questions, mode, reranker_for(config), config.rerank_top, filters
            ),
            4 * self.max_indexes,
            keep,
        )

    def rows(self, key: tuple, make: Callable[[], tuple[dict, ...]]) -> tuple[dict, ...]:
        """The sweep rows kept under ``key``, made by ``make()`` when missing."""
        return bounded_get(self._lock, self._rows, key, make, 16 * self.max_indexes)

    def _get(self, table: OrderedDict, key, make: Callable, limit: int, keep: bool):
        if keep:
            return bounded_get(self._lock, table, key, make, limit)
        with self._lock:
            found = table.get(key)
        return found if found is not None else make()


def retrieval_key(
    corpus: Corpus, config: LabConfig, chunker: str, size: int, mode: str, unfiltered: bool = False
) -> tuple:
    """Everything a retrieval of ``chunker``'s index at ``size`` in ``mode`` depends on."""
    return (
        _index_key(corpus, config, chunker, size),
        config.split,
        mode,
        config.rerank,
        config.rerank_top,
        config.filters and not unfiltered,
        unfiltered,
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
