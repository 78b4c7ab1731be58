"""The chunk graph's fast paths: the structural edges in array steps and the bounded lexical edges
block by block, each giving ``lab.graph``'s plain rule (``structure_edges_plain``,
``cosine_edges_plain``) exactly, in public NumPy and SciPy operations only."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np
import scipy.sparse as sp

PAIR_BLOCK = 8192  # candidate pairs whose common-term products are formed together
PRODUCT_ENTRIES = 1 << 21  # bound on the rare-term product entries formed at once (one block)
INT64_MAX = int(np.iinfo(np.int64).max)


def structure_edges(
    chunks: Sequence, documents: Sequence, resolve_refs: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``structure_edges_plain`` in array steps: the adjacency, hierarchy and cross-reference
    pairs as sorted, distinct keys ``i * n + j`` (i < j)."""
    n = len(chunks)
    doc = np.fromiter((c.doc for c in chunks), dtype=np.int64, count=n)
    after = np.flatnonzero(doc[1:] == doc[:-1]) + 1  # chunks following one of their document

    # every (chunk, provision it touches), in chunk order; provisions numbered across documents
    sizes = np.array([len(d.provisions) for d in documents], dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(sizes)])
    holder = np.repeat(np.arange(n), [len(c.provisions) for c in chunks])
    touched = start[doc[holder]] + np.fromiter(
        chain.from_iterable(c.provisions for c in chunks), dtype=np.int64, count=len(holder)
    )
    sections: dict[tuple[int, str], int] = {}
    section_of = np.array(
        [sections.setdefault((d, p.section), len(sections)) for d, document in enumerate(documents)
         for p in document.provisions],
        dtype=np.int64,
    )  # fmt: skip
    provisions, at = np.unique(touched, return_index=True)
    first_chunk = np.zeros(start[-1], dtype=np.int64)
    first_chunk[provisions] = holder[at]
    section_first = np.zeros(len(sections), dtype=np.int64)
    seen, at = np.unique(section_of[touched], return_index=True)
    section_first[seen] = holder[at]
    hierarchy = (
        np.concatenate([holder, first_chunk[provisions]]),
        np.concatenate([first_chunk[touched], section_first[section_of[provisions]]]),
    )

    empty = np.zeros(0, dtype=np.int64)
    xref = (empty, empty)
    if resolve_refs:
        citer = np.repeat(np.arange(n), [len(c.cites) for c in chunks])
        target = np.fromiter(
            chain.from_iterable(c.cites for c in chunks), dtype=np.int64, count=len(citer)
        )
        own = (target >= 0) & (target < sizes[doc[citer]])
        citer, cited = citer[own], start[doc[citer[own]]] + target[own]
        by_provision = np.argsort(touched, kind="stable")
        lo = np.searchsorted(touched[by_provision], cited, side="left")
        count = np.searchsorted(touched[by_provision], cited, side="right") - lo
        offset = np.repeat(lo - (np.cumsum(count) - count), count) + np.arange(count.sum())
        xref = (np.repeat(citer, count), holder[by_provision[offset]])
    return _pair_keys(after - 1, after, n), _pair_keys(*hierarchy, n), _pair_keys(*xref, n)


def _pair_keys(i: np.ndarray, j: np.ndarray, n: int) -> np.ndarray:
    """The distinct pairs ``(min, max)`` of ``i`` and ``j``, self-pairs dropped, as sorted keys
    ``min * n + max``."""
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    return np.unique((lo * n + hi)[lo != hi]).astype(np.int64)


def cosine_edges(term_weights: sp.csr_matrix, weight: float, min_cosine: float, neighbours: int):
    """``cosine_edges_plain`` without the all-pairs product, in memory bounded by the chunks
    times ``neighbours`` plus one block.

    The most widespread terms (the longest prefix, by document frequency, whose share of every
    chunk's squared norm stays below ``min_cosine``) cannot lift a pair to the threshold on their
    own, so only pairs sharing a rarer term are candidates. Rows go ``PRODUCT_ENTRIES`` product
    entries at a time against every row after them (each pair once); a candidate's rare dot
    product is SciPy's ``rare @ rare.T`` sum (over the shared terms in term order, the same from
    either row), its common one ``_sparse_row_sums`` of the dense common parts. Each chunk's
    strongest ``neighbours`` so far are kept (``Strongest``); a candidate whose bound (rare dot
    plus the product of the common norms) falls below the weakest kept of both its chunks
    cannot enter either list and is not computed further."""
    n = term_weights.shape[0]
    empty = np.zeros(0, dtype=np.int64)
    if n < 2 or term_weights.nnz == 0:
        return empty, empty, np.zeros(0)
    terms = term_weights.indices
    row_of = np.repeat(np.arange(n), np.diff(term_weights.indptr))
    norms = np.sqrt(np.bincount(row_of, weights=term_weights.data**2, minlength=n))
    unit = term_weights.data / norms[row_of]

    df = np.bincount(terms, minlength=term_weights.shape[1])
    rank_of_term = np.empty_like(df)
    rank_of_term[np.argsort(-df, kind="stable")] = np.arange(len(df))
    entry_rank = rank_of_term[terms]
    by_row_rank = _order_of_distinct(row_of * len(df) + entry_rank)  # by row, then by rank
    mass = np.cumsum(unit[by_row_rank] ** 2)
    row_sorted = row_of[by_row_rank]
    starts = np.searchsorted(row_sorted, np.arange(n))
    mass -= np.concatenate([[0.0], mass])[starts][row_sorted]
    crossing = entry_rank[by_row_rank][mass >= min_cosine * (1 - 1e-9)]
    prefix = int(crossing.min()) if len(crossing) else len(df)
    is_common = (rank_of_term < prefix)[terms]

    common_part = _dense_columns(n, row_of, terms, unit, is_common)
    common_norm = np.sqrt(_sparse_row_sums(common_part * common_part))
    rare = ~is_common & (unit != 0)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row_of[rare], minlength=n))])
    rare_part = sp.csr_matrix((unit[rare], terms[rare], indptr), shape=term_weights.shape)
    # Rows by decreasing common norm: a block's first row bounds what the common terms add to
    # any pair from it on, so one comparison drops most of a block's products.
    order = np.argsort(-common_norm, kind="stable")
    ranked, ranked_norm = rare_part[order], common_norm[order]
    # the entries a row's product holds at most: its terms' posting lengths
    postings = np.bincount(ranked.indices, minlength=ranked.shape[1])
    row_of_ranked = np.repeat(np.arange(n), np.diff(ranked.indptr))
    size = np.bincount(row_of_ranked, weights=postings[ranked.indices], minlength=n)
    ends = np.cumsum(size)
    floor = min_cosine - 1e-12
    strongest = Strongest(n, neighbours)
    lo = 0
    while lo < n:
        hi = max(lo + 1, int(np.searchsorted(ends, ends[lo] - size[lo] + PRODUCT_ENTRIES)))
        shared = ranked[lo:hi] @ ranked[lo:].T  # the block against the ranks from it on
        # a later rank's common norm is at most this row's: a bound without looking it up
        counts = np.diff(shared.indptr)
        r = np.repeat(np.arange(hi - lo), counts)
        reach = np.repeat(floor - ranked_norm[lo:hi] ** 2 - 1e-9, counts)
        near = np.flatnonzero((shared.data >= reach) & (shared.indices > r))
        i, j = order[lo + r[near]], order[lo + shared.indices[near]]
        rows, cols, rare_dot = np.minimum(i, j), np.maximum(i, j), shared.data[near]
        bound = rare_dot + common_norm[rows] * common_norm[cols]
        weakest = strongest.weakest - 1e-9
        open_ = (bound >= floor) & ((bound >= weakest[rows]) | (bound >= weakest[cols]))
        rows, cols, rare_dot = rows[open_], cols[open_], rare_dot[open_]
        common_dot = np.zeros(len(rows))
        for at in range(0, len(rows), PAIR_BLOCK):
            pairs = slice(at, at + PAIR_BLOCK)
            products = common_part[rows[pairs]] * common_part[cols[pairs]]
            common_dot[pairs] = _sparse_row_sums(products)
        cosine = rare_dot + common_dot
        keep = cosine >= floor
        strongest.add(rows[keep], cols[keep], cosine[keep])
        lo = hi
    rows, cols, cosine = strongest.edges()
    return rows, cols, weight * cosine


class Strongest:
    """Each chunk's ``m`` strongest neighbours so far (largest cosine first, ties by the
    neighbour's position), kept as at most ``m`` entries per chunk plus the pairs added since
    the last trim; ``edges`` is the union of the lists (a pair kept when either end keeps it)."""

    def __init__(self, n: int, m: int):
        self.n, self.m = n, m
        self.limit = max(1 << 20, 2 * n * m)  # pending entries before the lists are trimmed
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.pending = 0
        self.weakest = np.full(n, -np.inf)  # the m-th strongest cosine so far (-inf: fewer)

    def add(self, i: np.ndarray, j: np.ndarray, cosine: np.ndarray) -> None:
        """Pairs ``i < j`` at ``cosine``: a neighbour of each end."""
        self.parts += [(i, j, cosine), (j, i, cosine)]
        self.pending += 2 * len(i)
        if self.pending > self.limit:
            self._trim()

    def _trim(self) -> None:
        chunk, other, cosine = (np.concatenate(p) for p in zip(*self.parts, strict=True))
        order = np.lexsort((other, -cosine, chunk))
        chunk, other, cosine = chunk[order], other[order], cosine[order]
        first = np.searchsorted(chunk, chunk, side="left")
        keep = np.arange(len(chunk)) - first < self.m
        chunk, other, cosine = chunk[keep], other[keep], cosine[keep]
        self.parts, self.pending = [(chunk, other, cosine)], len(chunk)
        counts = np.bincount(chunk, minlength=self.n)
        full = np.flatnonzero(counts == self.m)
        ends = np.cumsum(counts)
        self.weakest[full] = cosine[ends[full] - 1]

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The kept pairs ``(i, j, cosine)``, i < j, by i then j."""
        empty = np.zeros(0, dtype=np.int64)
        if not self.parts:
            return empty, empty, np.zeros(0)
        self._trim()
        chunk, other, cosine = self.parts[0]
        lo, hi = np.minimum(chunk, other), np.maximum(chunk, other)
        keys, at = np.unique(lo * self.n + hi, return_index=True)
        rows, cols = np.divmod(keys, self.n)
        return rows.astype(np.int64), cols.astype(np.int64), cosine[at]


def _order_of_distinct(keys: np.ndarray) -> np.ndarray:
    """``np.argsort(keys)`` of distinct non-negative integers: their positions sorted along with
    them in the low digits of one key (a plain sort, faster than an argsort), if they fit."""
    m = len(keys)
    if m and int(keys.max()) < INT64_MAX // m - 1:
        return np.sort(keys * m + np.arange(m)) % m
    return np.argsort(keys)


def _dense_columns(n, row_of, terms, values, keep) -> np.ndarray:
    """The entries ``keep`` of a sparse chunk x term matrix (given by ``row_of``, ``terms`` and
    ``values``) as a dense matrix over the terms they use, in term order."""
    kept = terms[keep]
    used = np.bincount(kept, minlength=int(terms.max(initial=-1)) + 1) > 0
    dense = np.zeros((n, np.count_nonzero(used)))
    dense[row_of[keep], (np.cumsum(used) - 1)[kept]] = values[keep]  # used terms before it
    return dense


def _sparse_row_sums(products: np.ndarray) -> np.ndarray:
    """Each row's sum as scipy sums a sparse matrix's rows (``np.add.reduceat`` over the row's
    nonzero entries in column order), 0 for a row of zeros."""
    nonzero = products != 0
    counts = np.count_nonzero(nonzero, axis=1)
    sums = np.zeros(len(products))
    filled = np.flatnonzero(counts)
    if len(filled):
        sums[filled] = np.add.reduceat(products[nonzero], (np.cumsum(counts) - counts)[filled])
    return sums
