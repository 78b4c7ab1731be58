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
    times ``neighbours``, one block, and the distinct rows' common terms as a dense matrix.

    The most widespread terms (the longest prefix, by document frequency, whose share of every
    chunk's squared norm stays below ``min_cosine``) cannot lift a pair to the threshold on their
    own, so only pairs sharing a rarer term are candidates. Chunks with the same term weights
    (repeated text) are one group: every pair between two groups has the same cosine, to the
    last digit. The groups go ``PRODUCT_ENTRIES`` product entries at a time against every group
    after them (each pair once, a group with itself if it has two chunks); a candidate's rare
    dot product is SciPy's ``rare @ rare.T`` sum (over the shared terms in term order, the same
    from either row), its common one ``_sparse_row_sums`` of the dense common parts. Each
    group's strongest neighbours so far are kept (``Strongest``); a candidate whose bound (rare
    dot plus the product of the common norms) falls below the weakest kept of both its groups
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

    group = _same_rows(term_weights)
    first = np.unique(group, return_index=True)[1]  # each group's first chunk, in group order
    k = len(first)
    size = np.bincount(group, minlength=k)
    kept = np.zeros(n, dtype=bool)
    kept[first] = True  # the groups' rows: their first chunks'
    row_group = group[row_of]
    rep = kept[row_of]
    common_part = _dense_columns(k, row_group[rep], terms[rep], unit[rep], is_common[rep])
    common_norm = np.sqrt(_sparse_row_sums(common_part * common_part))
    # Groups by decreasing common norm: a block's first group bounds what the common terms add
    # to any pair from it on, so one comparison drops most of a block's products.
    order = np.argsort(-common_norm, kind="stable")
    ranked_norm, several = common_norm[order], size[order] > 1
    rare = np.flatnonzero(rep & ~is_common & (unit != 0))  # by group, then by term
    counts = np.bincount(row_group[rare], minlength=k)[order]
    indptr = np.concatenate([[0], np.cumsum(counts)])
    group_start = np.concatenate([[0], np.cumsum(np.bincount(row_group[rare], minlength=k))])
    at = rare[np.repeat(group_start[order], counts) + np.arange(indptr[-1])
              - np.repeat(indptr[:-1], counts)]  # fmt: skip
    ranked = sp.csr_matrix((unit[at], terms[at], indptr), shape=(k, term_weights.shape[1]))
    # the entries a row's product holds at most: its terms' posting lengths
    postings = np.bincount(ranked.indices, minlength=ranked.shape[1])
    row_of_ranked = np.repeat(np.arange(k), np.diff(ranked.indptr))
    reach = np.bincount(row_of_ranked, weights=postings[ranked.indices], minlength=k)
    ends = np.cumsum(reach)
    floor = min_cosine - 1e-12
    strongest = Strongest(group, first, size, neighbours)
    lo = 0
    while lo < k:
        hi = max(lo + 1, int(np.searchsorted(ends, ends[lo] - reach[lo] + PRODUCT_ENTRIES)))
        block, later = (ranked, ranked) if hi - lo == k else (ranked[lo:hi], ranked[lo:])
        shared = block @ later.T  # the block against the ranks from it on
        # a later rank's common norm is at most this row's: a bound without looking it up
        counts = np.diff(shared.indptr)
        bar = np.repeat(floor - ranked_norm[lo:hi] ** 2 - 1e-9, counts)
        high = np.flatnonzero(shared.data >= bar)  # then only these: each pair once
        r = np.searchsorted(shared.indptr, high, side="right") - 1
        c = shared.indices[high]
        pair = (c > r) | ((c == r) & several[lo + r])
        near, r, c = high[pair], r[pair], c[pair]
        i, j = order[lo + r], order[lo + c]
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


def _same_rows(matrix: sp.csr_matrix) -> np.ndarray:
    """A group number per row: rows with the same terms and weights share one (numbered by their
    first row, in row order). Rows are grouped by a hash of their entries, each checked against
    its group's first row entry by entry (a row that differs is a group of its own)."""
    n = matrix.shape[0]
    lengths = np.diff(matrix.indptr)
    with np.errstate(over="ignore"):
        mixed = matrix.indices.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        mixed ^= np.ascontiguousarray(matrix.data, dtype=np.float64).view(np.uint64)
        mixed *= np.uint64(0xBF58476D1CE4E5B9)
        mixed ^= mixed >> np.uint64(29)
        mixed *= np.uint64(0x94D049BB133111EB)
        sums = np.zeros(n, dtype=np.uint64)
        filled = np.flatnonzero(lengths)
        if len(filled):
            sums[filled] = np.add.reduceat(mixed, matrix.indptr[filled])
        sums = sums * np.uint64(0x9E3779B97F4A7C15) + lengths.astype(np.uint64)
    _, first, group = np.unique(sums, return_index=True, return_inverse=True)
    if len(first) == n:  # no two rows alike
        return np.arange(n)
    lead = first[group.ravel()]  # each row's group's first row
    entry_lead = np.repeat(matrix.indptr[lead], lengths) + (
        np.arange(matrix.nnz) - np.repeat(matrix.indptr[:-1], lengths)
    )
    entry_lead = np.minimum(entry_lead, max(matrix.nnz - 1, 0))  # (a row longer than its lead)
    differs = (matrix.indices != matrix.indices[entry_lead]) | (
        matrix.data != matrix.data[entry_lead]
    )
    row_of = np.repeat(np.arange(n), lengths)
    alone = (np.bincount(row_of[differs], minlength=n) > 0) | (lengths != lengths[lead])
    lead = np.where(alone, np.arange(n), lead)
    # numbered by first row: the leads in row order
    leads, number = np.unique(lead, return_inverse=True)
    return number.ravel().astype(np.int64)


class Strongest:
    """Each group's strongest neighbours so far: for a group of one chunk its ``m`` strongest
    chunks (largest cosine first, ties by position), for a larger group ``m + 1`` (one of them
    may be the chunk itself). A group's kept entries are other groups (and itself) at a cosine,
    each standing for its chunks in position order; entries are trimmed to those that can hold
    one of the first ``m`` (or ``m + 1``) chunks. ``edges`` expands them to chunks and takes the
    union of every chunk's list (a pair kept when either end keeps it)."""

    def __init__(self, group: np.ndarray, first: np.ndarray, size: np.ndarray, m: int):
        self.group, self.first, self.size, self.m = group, first, size, m
        k = len(first)
        self.room = m + (size > 1)  # the chunks a group's list holds
        self.limit = max(1 << 20, 4 * k * (m + 1))  # pending entries before the lists are trimmed
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.pending = 0
        self.weakest = np.full(k, -np.inf)  # the cosine of the last chunk a list holds (-inf: room)

    def add(self, i: np.ndarray, j: np.ndarray, cosine: np.ndarray) -> None:
        """Group pairs ``i <= j`` at ``cosine``: a neighbour of each end (once for ``i == j``)."""
        other = i != j
        self.parts += [(i, j, cosine), (j[other], i[other], cosine[other])]
        self.pending += len(i) + int(other.sum())
        if self.pending > self.limit:
            self._trim()

    def _trim(self) -> None:
        group, other, cosine = (np.concatenate(p) for p in zip(*self.parts, strict=True))
        order = np.lexsort((-cosine, group))
        group, other, cosine = group[order], other[order], cosine[order]
        held = np.minimum(self.size[other], self.room[group])  # chunks an entry can give
        before = np.cumsum(held) - held
        start = np.searchsorted(group, group, side="left")
        before -= before[start]  # chunks of the stronger entries of the same group
        full = before + held >= self.room[group]
        # the entry holding a group's last kept chunk, and every entry at least as strong
        last = np.full(len(self.first), -np.inf)
        at = np.flatnonzero(full & (before < self.room[group]))
        last[group[at]] = cosine[at]
        keep = cosine >= last[group]
        self.parts = [(group[keep], other[keep], cosine[keep])]
        self.pending = int(keep.sum())
        self.weakest = np.maximum(self.weakest, last)

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The kept chunk pairs ``(i, j, cosine)``, i < j, by i then j."""
        empty = np.zeros(0, dtype=np.int64)
        if not self.parts:
            return empty, empty, np.zeros(0)
        n = len(self.group)
        if len(self.first) == n:  # every group one chunk (numbered as its chunk): no expansion
            chunk, other, cosine = (np.concatenate(p) for p in zip(*self.parts, strict=True))
            order = np.lexsort((other, -cosine, chunk))
            chunk, other, cosine = chunk[order], other[order], cosine[order]
            top = np.arange(len(chunk)) - np.searchsorted(chunk, chunk, side="left") < self.m
            return _union(chunk[top], other[top], cosine[top], n)
        self._trim()
        group, other, cosine = self.parts[0]
        # each entry's chunks: the first ones of the other group, in position order
        by_group = np.argsort(self.group, kind="stable")
        starts = np.concatenate([[0], np.cumsum(self.size)])
        held = np.minimum(self.size[other], self.room[group])
        entry = np.repeat(np.arange(len(group)), held)
        offset = np.arange(len(entry)) - np.repeat(np.cumsum(held) - held, held)
        chunk = by_group[starts[other][entry] + offset]
        group, cosine = group[entry], cosine[entry]
        order = np.lexsort((chunk, -cosine, group))
        group, chunk, cosine = group[order], chunk[order], cosine[order]
        start = np.searchsorted(group, group, side="left")
        top = np.arange(len(group)) - start < self.room[group]
        group, chunk, cosine = group[top], chunk[top], cosine[top]
        # every chunk takes its group's list without itself, the first m of it
        count = np.bincount(group, minlength=len(self.first))
        list_start = np.concatenate([[0], np.cumsum(count)])
        mine = count[self.group]
        owner = np.repeat(np.arange(n), mine)
        at = np.repeat(list_start[self.group], mine) + (
            np.arange(mine.sum()) - np.repeat(np.cumsum(mine) - mine, mine)
        )
        neighbour, strength = chunk[at], cosine[at]
        other_chunk = neighbour != owner
        counted = np.concatenate([[0], np.cumsum(other_chunk)])  # before each place
        rank = counted[1:] - np.repeat(counted[np.cumsum(mine) - mine], mine)  # within the list
        take = other_chunk & (rank <= self.m)
        return _union(owner[take], neighbour[take], strength[take], n)


def _union(chunk: np.ndarray, other: np.ndarray, cosine: np.ndarray, n: int):
    """The distinct pairs of ``chunk`` and ``other`` as ``(i, j, cosine)``, i < j, by i then j."""
    lo, hi = np.minimum(chunk, other), np.maximum(chunk, other)
    keys, first = np.unique(lo * n + hi, return_index=True)
    rows, cols = np.divmod(keys, n)
    return rows.astype(np.int64), cols.astype(np.int64), cosine[first]


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


REACHED_SHARE = 0.5  # steps multiply only the reached chunks' columns while so few are reached


def seeded_power_iteration(
    walk: sp.csr_array,
    sinks: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    weights: np.ndarray,
    q: int,
    alpha: float,
    iterations: int,
) -> np.ndarray:
    """``lab.graph.pagerank_power_iteration`` of the n x q restart holding float32 ``weights``
    at ``(rows, cols)`` (each position once, zeros elsewhere), the same floats: the restart's
    terms (``alpha p0`` and the dangling mass's return) are added at the seeds only, since
    adding a zero elsewhere leaves every (non-negative) entry as it was. While the mass has
    reached at most ``REACHED_SHARE`` of the chunks, a step multiplies only the walk's columns
    of the chunks it has reached: the others' products are zeros, and SciPy adds a row's
    products in the order of its entries, the kept ones in the same order."""
    n = walk.shape[0]
    p0 = np.zeros((n, q), dtype=np.float32)
    p0[rows, cols] = weights
    follow, stay = np.float32(1 - alpha), np.float32(alpha)
    base = stay * weights
    p, spread = p0, False
    for _ in range(iterations):
        if not spread:  # the first steps: only the chunks the mass has reached so far
            reached = np.flatnonzero(p.any(axis=1))
            spread = len(reached) > REACHED_SHARE * n
        step = walk @ p if spread else walk[:, reached] @ p[reached]
        if len(sinks):
            step[rows, cols] += weights * p[sinks].sum(axis=0)[cols]
        step *= follow
        step[rows, cols] += base
        p = step
    return p


TRANSPOSE_COLUMNS = 512  # rows of the iterate written out together (a block stays in cache)


def put_transposed(out: np.ndarray, block: np.ndarray) -> None:
    """``out[:] = block.T`` (``out`` q x n, ``block`` n x q), a band of rows at a time."""
    for at in range(0, block.shape[0], TRANSPOSE_COLUMNS):
        out[:, at : at + TRANSPOSE_COLUMNS] = block[at : at + TRANSPOSE_COLUMNS].T
