"""The best ``k`` positive scores of a row, or of many rows at once: ties in index order."""

from __future__ import annotations

import numpy as np


def top(score: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` best positive scores, best first, ties in index order."""
    positive = int(np.count_nonzero(score > 0))
    k = min(k, positive)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < positive:
        threshold = np.partition(score, len(score) - k)[len(score) - k]
        candidates = np.flatnonzero(score >= threshold)
    else:
        candidates = np.flatnonzero(score > 0)
    return candidates[np.argsort(-score[candidates], kind="stable")][:k]


def top_rows(scores: np.ndarray, k: int) -> list[np.ndarray]:
    """``top(row, k)`` for every row of ``scores`` (questions x chunks), chosen for all rows at
    once: one partition and one sort of the ``k`` candidates per row. Where the ``k``-th best
    positive score is tied with scores past the ``k`` chosen, the tied chunks are taken in
    index order, as ``top`` takes them."""
    q, n = scores.shape
    k = min(k, n)
    if k <= 0 or q == 0:
        return [np.zeros(0, dtype=np.int64) for _ in range(q)]
    if k < n:
        candidates = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    else:
        candidates = np.broadcast_to(np.arange(n), (q, n))
    values = np.take_along_axis(scores, candidates, axis=1)
    taken = np.minimum(np.count_nonzero(scores > 0, axis=1), k)
    if k < n:
        kth = values.min(axis=1)
        tied = np.flatnonzero((kth > 0) & (np.count_nonzero(scores >= kth[:, None], axis=1) > k))
        if len(tied):
            rows, at = scores[tied], kth[tied][:, None]
            equal = rows == at
            room = k - np.count_nonzero(rows > at, axis=1)
            keep = (rows > at) | (equal & (np.cumsum(equal, axis=1) <= room[:, None]))
            candidates = candidates.copy()
            candidates[tied] = np.nonzero(keep)[1].reshape(len(tied), k)
            values = np.take_along_axis(scores, candidates, axis=1)
    order = np.lexsort((candidates, -values), axis=-1)
    candidates = np.take_along_axis(candidates, order, axis=1).astype(np.int64)
    return [candidates[j, :t] for j, t in enumerate(taken.tolist())]
