"""The sweep: recall over the budget x size grid, one task per chunker and size, here or on a
Dask cluster (``lab.cluster``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from .cache import LabCache, retrieval_key
from .config import DEFAULT_BUDGETS, DEFAULT_SIZES, LabConfig, Progress
from .corpus import Corpus
from .index import Index, check_chunking
from .metrics import aggregate
from .retrieval import Retrieval
from .run import question_budgets

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, eq=False)
class SweepResult:
    config: LabConfig
    rows: tuple[dict, ...]

    def frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(list(self.rows))

    def to_dict(self) -> dict:
        return {"config": asdict(self.config), "rows": list(self.rows)}


def sweep(
    corpus: Corpus,
    config: LabConfig | None = None,
    budgets: Iterable[int] = DEFAULT_BUDGETS,
    sizes: Iterable[int] = DEFAULT_SIZES,
    progress: Progress | None = None,
    cache: LabCache | None = None,
    client=None,
) -> SweepResult:
    """Recall over the budget x size grid for every chunker and mode: chunk and index once per size,
    rank once per mode, assemble once per budget.

    The work is one task per chunker and size (:func:`sweep_cell`); ``progress(done, total)``
    counts finished tasks. Without a ``client`` the tasks run here, one after another, reusing
    ``cache``. With a ``distributed.Client`` they run on its Dask cluster (see
    :mod:`lab.cluster`): the corpus is sent to the workers once, indexes (and their embeddings)
    are built there, and the rows come back in the same order, identical to a serial run.
    The documents are read with ``config.parser`` first (here, before any is sent).
    """
    config = config or LabConfig()
    corpus = corpus.read_with(config.parser)
    budgets, sizes = sorted(set(budgets)), sorted(set(sizes))
    if not budgets or not sizes:
        raise ValueError("give at least one budget and one size")
    for b in budgets:
        replace(config, budget=b)
    for s in sizes:
        for chunker in config.chunkers:
            check_chunking(chunker, s, config.overlap)
    cells = [(chunker, size) for size in sizes for chunker in config.chunkers]
    if client is not None:
        from .cluster import sweep_on_cluster

        parts = sweep_on_cluster(
            client, sweep_cell, corpus, config, cells, tuple(budgets), progress
        )
    else:
        cache = cache or LabCache()
        parts = []
        for chunker, size in cells:
            parts.append(sweep_cell(corpus, config, chunker, size, budgets, cache))
            if progress:
                progress(len(parts), len(cells))
    return SweepResult(config, tuple(row for part in parts for row in part))


def sweep_cell(
    corpus: Corpus,
    config: LabConfig,
    chunker: str,
    size: int,
    budgets: Sequence[int],
    cache: LabCache | None = None,
) -> tuple[dict, ...]:
    """One task of a sweep: the rows of one chunker at one size, for every mode of ``config``
    and every budget, from a single index (its embeddings included) and one ranking per mode.
    ``cache`` keeps the rows; the index and rankings are used from it when it has them, and
    otherwise dropped with the task, so that a sweep holds one cell's arrays at a time. With an
    adaptive ``config`` each mode adds a row for the adaptive budget (:func:`adaptive_row`) and
    every row says whether it is that one."""
    cache = cache or LabCache()
    corpus = corpus.read_with(config.parser)
    budgets = tuple(budgets)
    index: list[Index] = []  # built on the first mode whose rows are not kept

    def made(mode: str) -> tuple[dict, ...]:
        index[:] = index or [cache.index(corpus, config, chunker, size, keep=False)]
        retrieval = cache.retrieval(index[0], config, mode, keep=False)
        rows = mode_rows(index[0], retrieval, budgets)
        if not config.adaptive:
            return rows
        fixed = tuple({**row, "adaptive": False} for row in rows)
        return (*fixed, adaptive_row(cache, retrieval, config, budgets, rows[-1]))

    rows = []
    for mode in config.modes:
        key = (*retrieval_key(corpus, config, chunker, size, mode), budgets, config.adaptive)
        rows += cache.rows(key, lambda mode=mode: made(mode))
    return tuple(rows)


def mode_rows(index: Index, retrieval: Retrieval, budgets: Sequence[int]) -> tuple[dict, ...]:
    """The sweep rows of one index in one mode at every budget of ``budgets``."""
    lengths = np.sort(index.words)
    over = (len(lengths) - np.searchsorted(lengths, budgets, side="right")).tolist()
    rows = []
    for budget, metrics, too_long in zip(budgets, retrieval.metrics_at(budgets), over, strict=True):
        rows.append(
            {
                "chunker": index.chunker,
                "mode": retrieval.mode,
                "size": index.size,
                "budget": budget,
                "questions": metrics.questions,
                "partial": metrics.partial,
                "partial_low": metrics.partial_ci[0],
                "partial_high": metrics.partial_ci[1],
                "complete": metrics.complete,
                "complete_low": metrics.complete_ci[0],
                "complete_high": metrics.complete_ci[1],
                "gap": metrics.gap,
                "mean_context_words": metrics.mean_context_words,
                "chunks": len(index.chunks),
                "over_budget_chunks": too_long,
                "fits": too_long < len(lengths),
            }
        )
    return tuple(rows)


def adaptive_row(
    cache: LabCache, retrieval: Retrieval, config: LabConfig, budgets: Sequence[int], like: dict
) -> dict:
    """The adaptive budget's sweep row: a point on the budget curve at its mean budget (its
    candidates are the sweep's budgets)."""
    chosen = question_budgets(cache, retrieval, config, budgets, keep=False)
    metrics = aggregate(retrieval.evaluate_each(chosen))
    longest = max(budgets)
    lengths = retrieval.index.words
    return {
        **like,
        "budget": round(sum(chosen) / len(chosen), 2) if chosen else float(longest),
        "questions": metrics.questions,
        "partial": metrics.partial,
        "partial_low": metrics.partial_ci[0],
        "partial_high": metrics.partial_ci[1],
        "complete": metrics.complete,
        "complete_low": metrics.complete_ci[0],
        "complete_high": metrics.complete_ci[1],
        "gap": metrics.gap,
        "mean_context_words": metrics.mean_context_words,
        "over_budget_chunks": int((lengths > longest).sum()),
        "fits": bool((lengths <= longest).any()),
        "adaptive": True,
    }


__all__ = ["SweepResult", "sweep", "sweep_cell"]
