"""Indexes, rankings and index statistics kept for reuse across runs, sweeps and budgets."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from weakref import WeakKeyDictionary

from .config import LabConfig, embedder_for, reranker_for, tokenizer_for
from .corpus import Corpus
from .index import Index, build_index, guarded, training_key
from .lru import bounded_get
from .metrics import IndexStats, index_stats
from .retrieval import KEPT_BUDGETS, Retrieval


class LabCache:
    """Indexes, rankings and sweep rows kept for reuse across runs, sweeps and budgets (least
    recently used ones dropped past ``max_indexes``, four times as many rankings, sixteen times
    as many sweep cells). An index serves every corpus of the same documents whose questions
    teach its chunker the same (all of them, for a chunker that learns nothing), so writing a
    question does not chunk again. Safe to share between threads."""

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
        ``keep`` is False (then only looked up, or built and handed out). The documents are
        read with ``config.parser``: the key holds that reading's documents digest."""
        corpus = corpus.read_with(config.parser)
        size = size or config.size
        key = _index_key(corpus, config, chunker, size)
        index = self._get(
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
                heading_guard=config.heading_guard and guarded(chunker),
                tokenizer=tokenizer_for(config),
            ),
            self.max_indexes,
            keep,
        )
        if index.corpus.digest == corpus.digest:
            return index
        moved = index.over(corpus)  # the same documents with other questions: chunked already
        with self._lock:
            if key in self._indexes:
                self._indexes[key] = moved
        return moved

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
        ids: tuple[str, ...] | None = None,
        keep: bool = True,
    ) -> Retrieval:
        """Rankings of the split's questions (``ids``: of those questions, whatever their
        split), with their metadata filters as ``config.filters`` says (``unfiltered``: only the
        questions that have one, ranked as if they had none); kept unless ``keep`` is False."""
        filters = config.filters and not unfiltered
        questions = index.corpus.split(config.split)
        if ids is not None:
            questions = tuple(q for q in index.corpus.questions if q.id in ids)
        if unfiltered:
            questions = tuple(q for q in questions if q.filter)
        return self._get(
            self._retrievals,
            retrieval_key(index.corpus, config, index.chunker, index.size, mode, unfiltered, ids),
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
    corpus: Corpus,
    config: LabConfig,
    chunker: str,
    size: int,
    mode: str,
    unfiltered: bool = False,
    ids: tuple[str, ...] | None = None,
) -> tuple:
    """Everything a retrieval of ``chunker``'s index at ``size`` in ``mode`` depends on (``ids``:
    the questions asked, when not the split's)."""
    return (
        _index_key(corpus, config, chunker, size),
        corpus.digest,
        ids if ids is not None else config.split,
        mode,
        config.rerank,
        config.rerank_top,
        config.filters and not unfiltered,
        unfiltered,
    )


def _index_key(corpus: Corpus, config: LabConfig, chunker: str, size: int) -> tuple:
    """Everything an index depends on: the questions only as far as its chunker learns."""
    return (
        corpus.documents_digest,
        training_key(corpus, chunker),
        chunker,
        size,
        config.overlap,
        config.headers,
        config.refs,
        config.dense,
        config.late,
        config.heading_guard and guarded(chunker),
        config.tokenizer,
    )
