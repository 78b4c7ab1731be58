"""The best ``k`` positive scores of a row, or of many rows at once: ties in index order.

Many rows are served without sorting them. Each row gets a floor, a lower bound on its ``k``-th
best score: the ``k``-th largest of any ``k`` or more of its entries is one. Dense rows are cut
into ``RUNS_PER_K * k`` disjoint sets (every ``RUNS_PER_K * k``-th entry; the few after the last
whole round in none), and the ``k``-th largest set maximum is the floor (those ``k`` maxima are
``k`` distinct entries). Sparse rows do the same with runs of a fixed length (a power of two,
so that all their maxima come from halving the entries pairwise), raised to the caller's floor
when it has one (BM25 knows one from its terms), and then take a second floor from the first
``REFINE_WIDTH`` entries at or above the first when many are left.
Only the entries at or above the floor (a few more than ``k``) are sorted, by score, then index.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

RUNS_PER_K = 4  # runs per row for the floor: more runs, a higher floor, a longer first pass
REFINE_WIDTH = 64  # entries per row a second floor is taken from (sparse rows)
REFINE_OVER = 2  # take a second floor when more than this many times k entries per row are left
POSITIVE = np.nextafter(0.0, 1.0)  # the least positive float: score >= POSITIVE is score > 0


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
    """``top(row, k)`` for every row of ``scores`` (questions x chunks), found for all rows at
    once."""
    q, n = scores.shape
    if k <= 0 or q == 0 or n == 0:
        return [np.zeros(0, dtype=np.int64) for _ in range(q)]
    matrix = np.ascontiguousarray(scores)
    flat = matrix.ravel()
    floor = np.full(q, POSITIVE)
    runs = RUNS_PER_K * k
    if n > runs:
        # sets of every runs-th entry (disjoint as runs are; a view, no copy; the last few
        # entries in none), their maxima one elementwise reduction
        length = n // runs
        maxima = matrix[:, : runs * length].reshape(q, length, runs).max(axis=1)
        floor = np.fmax(floor, _kth_largest(maxima, k))
    at = np.flatnonzero(scores >= floor[:, None])
    return best_first(at // n, at % n, flat[at], q, k)


def top_csr(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    k: int,
    floor: np.ndarray | None = None,
) -> list[np.ndarray]:
    """``top(row, k)`` for every row of a sparse matrix given as its CSR arrays ``indptr``,
    ``indices``, ``data`` (absent entries score 0; no entry stored twice, in any column order),
    without making it dense. ``floor``, if given, holds per row a lower bound the caller knows
    for the row's ``k``-th best score."""
    q = len(indptr) - 1
    if k <= 0 or q <= 0:
        return [np.zeros(0, dtype=np.int64) for _ in range(max(q, 0))]
    return best_first(*csr_candidates(indptr, indices, data, k, floor), q, k)


def csr_candidates(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    k: int,
    floor: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries of a sparse matrix (as for ``top_csr``, ``k`` >= 1) that may be among their
    row's ``k`` best positive ones, as parallel arrays of rows, columns and values: every entry
    of ``top_csr``'s answer is among them, and a few more."""
    q = len(indptr) - 1
    lengths = np.diff(indptr)
    runs = _run_floor(indptr, data, k)
    floor = runs if floor is None else np.fmax(floor, runs)
    at = np.flatnonzero(data >= np.repeat(floor, lengths))
    bounds = np.searchsorted(at, indptr)  # row r's entries left: at[bounds[r]:bounds[r + 1]]
    counts = np.diff(bounds)
    rows = np.repeat(np.arange(q), counts)
    values = data[at]
    if len(at) > REFINE_OVER * k * q:
        # A second floor: the k-th largest of each row's first REFINE_WIDTH entries left.
        width = min(int(counts.max()), REFINE_WIDTH)
        if width >= k:
            place = np.arange(len(at)) - bounds[rows]
            inside = place < width
            first = np.zeros((q, width))
            first[rows[inside], place[inside]] = values[inside]
            floor = np.fmax(floor, np.sort(first, axis=1)[:, width - k])
            kept = values >= floor[rows]
            at, rows, values = at[kept], rows[kept], values[kept]
    return rows, indices[at], values


def _run_floor(indptr: np.ndarray, data: np.ndarray, k: int) -> np.ndarray:
    """Per CSR row, a floor of at least the least positive float: the ``k``-th largest maximum
    of the first ``RUNS_PER_K * k`` runs of ``run`` neighbouring entries that lie wholly inside
    the row (``k`` maxima of disjoint entries of the row), ``run`` the least power of two that
    makes that many runs as long as the average row. Runs are cut at multiples of ``run`` in
    ``data``, so that their maxima come from halving ``data`` pairwise."""
    q = len(indptr) - 1
    floor = np.full(q, POSITIVE)
    width, run = RUNS_PER_K * k, 1
    while run * width * q < len(data):
        run *= 2
    runs = len(data) // run
    if runs < k:
        return floor
    first = -(-indptr[:-1] // run)  # the first run starting in the row
    inside = indptr[1:] // run - first  # how many runs lie wholly inside the row
    width = min(width, int(inside.max()))
    if width < k:
        return floor
    # The runs' maxima, and a 0 after them that the places past a row's runs take.
    maxima = np.empty(runs + 1)
    maxima[runs] = 0.0
    if run == 1:
        maxima[:runs] = data[:runs]
    else:
        halves = data[: runs * run]
        while len(halves) > 2 * runs:
            halves = np.maximum(halves[0::2], halves[1::2])
        np.maximum(halves[0::2], halves[1::2], out=maxima[:runs])
    place = np.arange(width)
    taken = maxima[np.where(place < inside[:, None], first[:, None] + place, runs)]
    return np.fmax(floor, np.sort(taken, axis=1)[:, width - k])


def _kth_largest(values: np.ndarray, k: int) -> np.ndarray:
    """Per row, the ``k``-th largest value (a sort of short rows: quicker than partitioning)."""
    return np.sort(values, axis=1)[:, -k]


def best_first(
    rows: np.ndarray, cols: np.ndarray, values: np.ndarray, q: int, k: int
) -> list[np.ndarray]:
    """Per row of ``q``, the first ``k`` of its entries ordered by value (highest first), then
    column: the entries come as parallel arrays, each (row, column) once."""
    order = _packed_order(rows, cols, values, q)
    if order is None:
        order = _ranked_order(rows, cols, values, q)
    rows, cols = rows[order], cols[order].astype(np.int64)
    counts = np.bincount(rows, minlength=q)
    first = np.cumsum(counts) - counts
    place = np.arange(len(rows)) - first[rows]
    kept = place < k
    if q * k > 2 * len(rows):  # most rows short of k entries: a slice of the kept ones each
        ends = np.cumsum(np.minimum(counts, k)).tolist()
        cols = cols[kept]
        return [cols[a:b] for a, b in pairwise([0, *ends])]
    # One view per row of a q x k table, cut short for a row with fewer than k entries; the
    # entries past a row's k-th go to one spare cell after the table.
    table = np.empty(q * k + 1, dtype=np.int64)
    table[np.where(kept, rows * k + place, q * k)] = cols
    out = list(table[: q * k].reshape(q, k))
    for row in np.flatnonzero(counts < k).tolist():
        out[row] = out[row][: counts[row]]
    return out


def _packed_order(
    rows: np.ndarray, cols: np.ndarray, values: np.ndarray, q: int
) -> np.ndarray | None:
    """The order of the entries by row, value (highest first), then column, from one sort of
    integer keys (row, -value, column); None where it cannot be trusted. Positive floats order
    as their bit patterns, so ``-value`` is the distance of a value's bits below the largest
    value's; its lowest bits are dropped when the three do not fit one key, and the order is
    kept only if no row's values rise in it (no two values were merged in the wrong order)."""
    width = int(cols.max(initial=0)) + 1
    values = values.astype(np.float64, copy=False)  # float32 widens exactly
    if not len(values) or not values.min() > 0:
        return None
    bits = values.view(np.int64)
    top = int(bits.max())
    spread, room = top - int(bits.min()), 2**62 // (q * width)
    if room < 1:
        return None
    shift = 0
    while (spread >> shift) >= room:
        shift += 1
    rows = rows.astype(np.int64, copy=False)
    order = np.argsort((rows * ((spread >> shift) + 1) + ((top - bits) >> shift)) * width + cols)
    ranked, by_row = values[order], rows[order]
    if np.any((ranked[1:] > ranked[:-1]) & (by_row[1:] == by_row[:-1])):
        return None
    return order


def _ranked_order(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, q: int) -> np.ndarray:
    """The order of the entries by row, value (highest first), then column: one sort of unique
    integer keys (row, rank of -value, column), so that no stable sort is needed (equal values
    share a rank)."""
    by_value = np.argsort(-values)
    ranked = -values[by_value]
    rank = np.empty(len(values), dtype=np.int64)
    rank[by_value] = np.cumsum(np.concatenate(([False], ranked[1:] != ranked[:-1])))
    ranks, width = int(rank.max(initial=0)) + 1, int(cols.max(initial=0)) + 1
    if q * ranks * width < 2**62:
        return np.argsort((rows * ranks + rank) * width + cols)
    return np.lexsort((cols, rank, rows))
