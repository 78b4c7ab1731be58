"""The chunk graph (SpectRAG-lite) and personalised PageRank over it.

Sahinoglu et al., "SpectRAG: Weighted Chunk Graphs for Token-Budgeted Context Selection in
Multi-Hop RAG" (2026). Edges: adjacency, hierarchy, lexical (cosine of BM25-weighted term
vectors) and cross-references; an edge's weight is the sum of its types' weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain

import numpy as np
import scipy.sparse as sp

from .chunkers import Chunk
from .parse import Document

try:  # SciPy's sparse kernels, called on our arrays (the product with an output sized by us)
    from scipy.sparse._sparsetools import (
        coo_tocsr,
        csr_has_canonical_format,
        csr_has_sorted_indices,
        csr_matmat,
        csr_matvecs,
        csr_row_index,
        csr_sort_indices,
        csr_sum_duplicates,
        csr_tocsc,
        csr_todense,
    )
except ImportError:  # a SciPy without them: its public operations instead
    csr_matmat = csr_matvecs = csr_row_index = csr_todense = csr_tocsc = coo_tocsr = None

EDGE_WEIGHTS = {"adjacency": 1.0, "hierarchy": 0.3, "lexical": 0.5, "xref": 1.0}
LEXICAL_MIN_COSINE = 0.2
RESTART = 0.5
ITERATIONS = 25
PAGERANK_BLOCK = 128  # restart columns iterated together
SMALL_GRAPH = 256  # chunks up to which the restart is added as a dense matrix, not by position
LEXICAL_ROW_BLOCK = 128  # chunks whose lexical pairs are found together
PAIR_BLOCK = 8192  # candidate pairs whose common-term products are formed together
SMALL_STRUCTURE = 64  # chunks up to which the structural edges are found in plain Python
PAIR_MARKS = 1 << 16  # chunks squared up to which distinct pairs are marked in a table, not sorted
INT32_MAX, INT64_MAX = int(np.iinfo(np.int32).max), int(np.iinfo(np.int64).max)


@dataclass(frozen=True, eq=False)
class ChunkGraph:
    """Undirected weighted graph over chunks; ``edges[type]`` holds ``(i, j, weight)``, i < j."""

    n: int
    edges: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]
    matrix: sp.csr_matrix  # symmetric, summed weights

    def transition(self) -> tuple[sp.csr_matrix, np.ndarray]:
        """``W^T D^-1`` (column-stochastic where the degree is positive) and the dangling mask."""
        weights, dangling = self._walk_weights()
        walk = sp.csr_matrix(self.matrix)  # the same structure (not copied), new weights
        walk.data = weights
        return walk, dangling

    def _walk_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """The weights of ``transition``'s walk, entry by entry of ``matrix``, and the dangling
        mask."""
        matrix = self.matrix
        # astype: bincount of an edgeless graph returns integers even with weights
        degree = np.bincount(matrix.indices, weights=matrix.data, minlength=self.n).astype(float)
        dangling = degree == 0
        inv = np.divide(1.0, degree, out=np.zeros_like(degree), where=~dangling)
        return matrix.data * inv[matrix.indices], dangling

    def pagerank(
        self, restart: np.ndarray, alpha: float = RESTART, iterations: int = ITERATIONS
    ) -> np.ndarray:
        """Personalised PageRank ``p <- alpha p0 + (1 - alpha) W^T D^-1 p`` for each column of
        ``restart`` (n x q, columns summing to 1), starting from ``p0``. Mass at dangling chunks
        returns to ``p0`` (as in networkx). Computed in float32: ranks, not digits, matter here."""
        restart = np.asarray(restart, dtype=np.float32)
        rows, cols = np.nonzero(restart)
        mass = self.seeded_pagerank(
            rows, cols, restart[rows, cols], restart.shape[1], alpha, iterations
        )
        return mass.T

    @cached_property
    def _walk(self) -> tuple[sp.csr_array, np.ndarray]:
        """``transition``'s walk in float32, as a sparse array (its product is the cheaper
        call), and the dangling chunks (built on the matrix's arrays, without ``transition``'s
        own sparse matrix)."""
        weights, dangling = self._walk_weights()
        matrix = self.matrix
        fast = sp.csr_array(
            (weights.astype(np.float32), matrix.indices, matrix.indptr), shape=matrix.shape
        )
        return fast, np.flatnonzero(dangling)

    def seeded_pagerank(
        self,
        rows: np.ndarray,
        cols: np.ndarray,
        weights: np.ndarray,
        q: int,
        alpha: float = RESTART,
        iterations: int = ITERATIONS,
    ) -> np.ndarray:
        """``pagerank`` of the n x q restart matrix holding ``weights`` at ``(rows, cols)`` (each
        position once) and zeros elsewhere, transposed: q x n, row j for restart column j.

        The same floats as iterating all columns at once: columns never mix, and a zero restart
        entry adds nothing, so the columns are iterated ``PAGERANK_BLOCK`` at a time (the iterate
        stays in cache) and the restart is added at its nonzero entries only (on a small graph,
        where one call costs more than the arithmetic, as a dense matrix: adding 0 is exact).
        The first step multiplies the restart as a sparse matrix: each chunk's sum takes the
        same nonzero products in the same order, and the zero ones add nothing."""
        mass = np.zeros((q, self.n))
        if self.n == 0 or q == 0:
            return mass
        walk, sinks = self._walk
        order = np.argsort(cols, kind="stable")
        rows, cols = rows[order], cols[order]
        weights = np.asarray(weights, dtype=np.float32)[order]
        # near-equal blocks: none is one column wide unless q is (numpy sums one column pairwise)
        blocks = -(-q // PAGERANK_BLOCK)
        bounds = [q * b // blocks for b in range(blocks + 1)]
        cuts = np.searchsorted(cols, bounds).tolist()
        follow, stay = np.float32(1 - alpha), np.float32(alpha)
        small = self.n <= SMALL_GRAPH
        for b in range(blocks):
            lo, hi = bounds[b], bounds[b + 1]
            seeds = slice(cuts[b], cuts[b + 1])
            width, column = hi - lo, cols[seeds] - lo
            at = rows[seeds] * width + column
            p = np.zeros((self.n, width), dtype=np.float32)
            p.reshape(-1)[at] = weights[seeds]
            step = np.empty_like(p)
            if small:
                p0, base = p.copy(), stay * p
            else:
                p0 = weights[seeds]
                base = stay * p0
            for k in range(iterations):
                if k or small:
                    _walk_times(walk, p, step)
                else:
                    _walk_times_sparse(walk, rows[seeds], column, p0, step)
                if small:
                    if len(sinks):
                        step += p0 * p[sinks].sum(axis=0)
                    step *= follow
                    step += base
                else:
                    if len(sinks):
                        step.reshape(-1)[at] += p0 * p[sinks].sum(axis=0)[column]
                    step *= follow
                    step.reshape(-1)[at] += base
                p, step = step, p
            mass[lo:hi] = p.T
        return mass

    def to_networkx(self):
        """The graph as ``networkx.Graph``: edge attributes ``weight`` and one per edge type."""
        import networkx as nx

        g = nx.Graph()
        g.add_nodes_from(range(self.n))
        for kind, (rows, cols, weights) in self.edges.items():
            for i, j, w in zip(rows.tolist(), cols.tolist(), weights.tolist(), strict=True):
                if g.has_edge(i, j):
                    g[i][j][kind] = w
                    g[i][j]["weight"] += w
                else:
                    g.add_edge(i, j, weight=w, **{kind: w})
        return g

    def edge_counts(self) -> dict[str, int]:
        return {kind: len(rows) for kind, (rows, _, _) in self.edges.items()}


def _walk_times(walk: sp.csr_array, p: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = walk @ p`` (both n x width, C order), by SciPy's kernel when there is one:
    it adds each row's products into zeros in the row's order, as ``@`` does."""
    if csr_matvecs is None:
        out[...] = walk @ p
        return
    n, width = p.shape
    _zero(out)
    csr_matvecs(n, n, width, walk.indptr, walk.indices, walk.data, p.reshape(-1), out.reshape(-1))


def _zero(out: np.ndarray) -> None:
    """``out.fill(0)`` for a C-ordered array, as bytes (the zero float is all zero bytes): a
    memset, about a third faster than filling floats."""
    out.reshape(-1).view(np.uint8).fill(0)


def _walk_times_sparse(
    walk: sp.csr_array, rows: np.ndarray, cols: np.ndarray, values: np.ndarray, out: np.ndarray
) -> None:
    """``out[...] = walk @ p`` for ``p`` zero but for ``values`` at ``(rows, cols)`` (each
    position once), as a sparse product: per entry, the same nonzero products in the same order
    (the chunk's neighbours in index order) as the dense product sums, without its zero ones."""
    n, width = out.shape
    if csr_matmat is None:
        out[...] = walk @ sp.csr_array((values, (rows, cols)), shape=(n, width)).toarray()
        return
    index = walk.indptr.dtype
    order = np.argsort(rows * width + cols)
    p_indptr = np.zeros(n + 1, dtype=index)
    np.cumsum(np.bincount(rows, minlength=n), out=p_indptr[1:])
    p_cols, p_values = cols[order].astype(index), values[order]
    # each of a restart entry's chunk's neighbours takes a product of it
    bound = int(np.diff(walk.indptr)[rows].sum())
    out_indptr = np.empty(n + 1, dtype=index)
    out_cols, out_values = np.empty(bound, dtype=index), np.empty(bound, dtype=np.float32)
    csr_matmat(n, width, walk.indptr, walk.indices, walk.data, p_indptr, p_cols, p_values,
               out_indptr, out_cols, out_values)  # fmt: skip
    _zero(out)
    csr_todense(n, width, out_indptr, out_cols, out_values, out.reshape(-1))


def build_graph(
    chunks: Sequence[Chunk],
    documents: Sequence[Document],
    term_weights: sp.csr_matrix,
    resolve_refs: bool,
    weights: dict[str, float] = EDGE_WEIGHTS,
    min_cosine: float = LEXICAL_MIN_COSINE,
) -> ChunkGraph:
    """Build the chunk graph; ``term_weights`` is the chunk x term BM25 weight matrix."""
    n = len(chunks)
    structure = _small_structure if n <= SMALL_STRUCTURE else _structure
    adjacency, hierarchy, xref = structure(chunks, documents, resolve_refs)
    edges = {
        "adjacency": _weighted(adjacency, n, weights["adjacency"]),
        "hierarchy": _weighted(hierarchy, n, weights["hierarchy"]),
        "lexical": _lexical(term_weights, weights["lexical"], min_cosine),
        "xref": _weighted(xref, n, weights["xref"]),
    }
    rows = np.concatenate([e[0] for e in edges.values()] + [e[1] for e in edges.values()])
    cols = np.concatenate([e[1] for e in edges.values()] + [e[0] for e in edges.values()])
    data = np.concatenate([e[2] for e in edges.values()] * 2)
    return ChunkGraph(n, edges, _summed_csr(data, rows, cols, n))


def _weighted(keys: np.ndarray, n: int, weight: float) -> tuple[np.ndarray, ...]:
    """The pairs of sorted, distinct keys ``i * n + j`` (i < j) as rows, columns and weights."""
    rows, cols = np.divmod(keys, max(n, 1))
    return rows, cols, np.full(len(keys), weight)


def _structure(
    chunks: Sequence[Chunk], documents: Sequence[Document], resolve_refs: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The adjacency, hierarchy and cross-reference pairs (sorted, distinct keys ``i * n + j``,
    i < j): chunks next to each other in a document; a chunk and the first chunk touching each
    provision it touches, and that one and the first chunk touching the provision's section; a
    chunk and every chunk touching a provision of its document it cites (when resolved)."""
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


def _small_structure(
    chunks: Sequence[Chunk], documents: Sequence[Document], resolve_refs: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_structure`` in plain Python, one pass over the chunks (and one over their citations):
    on a few dozen chunks, cheaper than its array steps."""
    n = len(chunks)
    adjacency, hierarchy, xref = [], set(), set()
    first_of: dict[tuple[int, int], int] = {}  # (document, provision): first chunk touching it
    section_first: dict[tuple[int, str], int] = {}  # (document, section): the same
    members: dict[tuple[int, int], list[int]] = {}  # (document, provision): chunks touching it
    previous = -1
    for k, c in enumerate(chunks):
        d = c.doc
        if d == previous:
            adjacency.append((k - 1) * n + k)
        previous = d
        provisions = documents[d].provisions
        for p in c.provisions:
            key = (d, p)
            first = first_of.get(key)
            if first is None:
                first_of[key] = first = k
                section = section_first.setdefault((d, provisions[p].section), k)
                if section != k:
                    hierarchy.add(section * n + k)
            elif first != k:
                hierarchy.add(first * n + k)
            members.setdefault(key, []).append(k)
    if resolve_refs:
        for k, c in enumerate(chunks):
            d = c.doc
            for target in c.cites:
                for m in members.get((d, target), ()):
                    if m != k:
                        xref.add(min(k, m) * n + max(k, m))
    return tuple(np.array(sorted(keys), dtype=np.int64) for keys in (adjacency, hierarchy, xref))


def _pair_keys(i: np.ndarray, j: np.ndarray, n: int) -> np.ndarray:
    """The distinct pairs ``(min, max)`` of ``i`` and ``j``, self-pairs dropped, as sorted keys
    ``min * n + max``."""
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    keys = (lo * n + hi)[lo != hi]
    if n * n <= PAIR_MARKS:  # a table of every pair: its marked places are the sorted keys
        marks = np.zeros(n * n, dtype=bool)
        marks[keys] = True
        return np.flatnonzero(marks)
    return np.unique(keys)


def _summed_csr(data: np.ndarray, rows: np.ndarray, cols: np.ndarray, n: int) -> sp.csr_matrix:
    """``sp.csr_matrix((data, (rows, cols)), shape=(n, n))`` (duplicates add up): the same
    kernels SciPy calls, in its order, on our arrays, without its checks and conversions (which
    cost more than the work on a small graph)."""
    if coo_tocsr is None or max(len(data), n) >= INT32_MAX:
        return sp.csr_matrix((data, (rows, cols)), shape=(n, n))
    index, nnz = np.int32, len(data)
    indptr = np.empty(n + 1, dtype=index)
    indices, values = np.empty(nnz, dtype=index), np.empty(nnz)
    coo_tocsr(n, n, nnz, rows.astype(index), cols.astype(index), data, indptr, indices, values)
    if not csr_has_canonical_format(n, indptr, indices):
        if not csr_has_sorted_indices(n, indptr, indices):  # SciPy sorts only then
            csr_sort_indices(n, indptr, indices, values)
        csr_sum_duplicates(n, n, indptr, indices, values)
        nnz = int(indptr[-1])
        indices, values = indices[:nnz].copy(), values[:nnz].copy()
    matrix = sp.csr_matrix((values, indices, indptr), shape=(n, n))
    matrix.has_canonical_format = True
    return matrix


def _lexical(term_weights: sp.csr_matrix, weight: float, min_cosine: float):
    """Pairs whose term vectors' cosine is at least ``min_cosine``, weighted ``weight * cosine``.

    Exact, without the all-pairs product: the most widespread terms (the longest prefix, by
    document frequency, whose share of every chunk's squared norm stays below ``min_cosine``)
    cannot lift a pair to the threshold on their own, so only pairs sharing a rarer term are
    candidates; their full cosine is then computed. Its floats are scipy's: the rare terms' dot
    product as the sparse product ``rare @ rare.T`` sums it, the common terms' as a sparse row
    sum of ``common[i].multiply(common[j])`` (``term_weights`` in canonical form, as BM25 builds
    it: sorted, distinct terms in each row)."""
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
    common = rank_of_term < prefix

    is_common = common[terms]
    rare = ~is_common & (unit != 0)
    common_part = _dense_columns(n, row_of, terms, unit, is_common)
    common_norm = np.sqrt(_sparse_row_sums(common_part * common_part))
    counts = np.bincount(row_of[rare], minlength=n)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    rare_part = (indptr, terms[rare], unit[rare], term_weights.shape[1])
    rows, cols, rare_dot = _rare_shares(*rare_part, common_norm, min_cosine - 1e-12)
    maybe = rare_dot + common_norm[rows] * common_norm[cols] >= min_cosine - 1e-12
    rows, cols, rare_dot = rows[maybe], cols[maybe], rare_dot[maybe]
    common_dot = np.zeros(len(rows))
    for lo in range(0, len(rows), PAIR_BLOCK):
        pairs = slice(lo, lo + PAIR_BLOCK)
        common_dot[pairs] = _sparse_row_sums(common_part[rows[pairs]] * common_part[cols[pairs]])
    cosine = rare_dot + common_dot
    keep = cosine >= min_cosine - 1e-12
    order = np.lexsort((cols[keep], rows[keep]))
    return (
        rows[keep][order].astype(np.int64),
        cols[keep][order].astype(np.int64),
        weight * cosine[keep][order],
    )


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


def _rare_shares(
    indptr: np.ndarray,
    terms: np.ndarray,
    values: np.ndarray,
    n_terms: int,
    common_norm: np.ndarray,
    floor: float,
):
    """Pairs ``i != j`` sharing a rare term whose rare dot product (as the full product
    ``rare @ rare.T`` sums it, ``rare`` the chunk x term CSR matrix of ``indptr``, ``terms``,
    ``values``) could reach ``floor`` with the common terms' help, as ``(min, max, dot)``, in no
    particular order.

    The rows go by decreasing common norm, ``LEXICAL_ROW_BLOCK`` at a time, each block against
    the rows from it on in that order (each pair once), so the common terms add at most
    ``common_norm[i]`` times the block's first norm, and the rows of a block need nearly the
    same rare dot product. SciPy's product kernel is called directly, its output sized from the
    terms' posting lengths (no counting pass first): for each row it sums the products over the
    shared terms in the row's term order, as ``@`` does (the same sum from either row)."""
    n, nnz = len(indptr) - 1, len(terms)
    if csr_matmat is None or max(nnz, 2 * n_terms + 1) >= INT32_MAX:
        rare = sp.csr_matrix((values, terms, indptr), shape=(n, n_terms))
        return _rare_shares_public(rare, common_norm, floor)
    index = np.int32
    indptr, terms = indptr.astype(index, copy=False), terms.astype(index, copy=False)
    if n <= LEXICAL_ROW_BLOCK:
        return _rare_shares_one_block(indptr, terms, values, n_terms)
    order = np.argsort(-common_norm, kind="stable").astype(index)
    # rank r is chunk order[r], each row's terms in the same order
    ranked_indptr = np.zeros(n + 1, dtype=index)
    np.cumsum(np.diff(indptr)[order], out=ranked_indptr[1:])
    ranked_terms, ranked_values = np.empty(nnz, dtype=index), np.empty(nnz)
    csr_row_index(n, order, indptr, terms, values, ranked_terms, ranked_values)
    indptr, terms, values = ranked_indptr, ranked_terms, ranked_values
    # The postings by term, each by decreasing rank, so the ranks from a block on are a prefix
    # of each: the kernel reads term t's postings between b_indptr[2t] and b_indptr[2t + 1],
    # and the rows 2t + 1 of this doubled matrix are the postings of earlier ranks, unread.
    reverse_indptr = indptr[-1] - indptr[::-1]
    reverse_terms, reverse_values = np.empty(nnz, dtype=index), np.empty(nnz)
    csr_row_index(n, np.arange(n - 1, -1, -1, dtype=index), indptr, terms, values,
                  reverse_terms, reverse_values)  # fmt: skip
    posting_start = np.empty(n_terms + 1, dtype=index)
    posting_rank, posting_value = np.empty(nnz, dtype=index), np.empty(nnz)
    csr_tocsc(n, n_terms, reverse_indptr, reverse_terms, reverse_values,
              posting_start, posting_rank, posting_value)  # fmt: skip
    posting_rank = n - 1 - posting_rank
    lengths = np.diff(posting_start)  # per term, its postings from the block's rank on
    b_indptr = np.repeat(posting_start, 2)[1:]
    doubled = 2 * terms
    found, previous = [], 0
    for lo in range(0, n, LEXICAL_ROW_BLOCK):
        hi = min(n, lo + LEXICAL_ROW_BLOCK)
        if lo:
            lengths -= np.bincount(terms[indptr[previous] : indptr[lo]], minlength=n_terms)
            previous = lo
        np.add(posting_start[:-1], lengths, out=b_indptr[1::2])
        a_terms = terms[indptr[lo] : indptr[hi]]
        bound = min(int(lengths[a_terms].sum()), (hi - lo) * (n - lo))
        out_indptr = np.empty(hi - lo + 1, dtype=index)
        out_ranks = np.empty(bound, dtype=index)
        out_dots = np.empty(bound)
        csr_matmat(
            hi - lo, n, indptr[lo : hi + 1] - indptr[lo], doubled[indptr[lo] : indptr[hi]],
            values[indptr[lo] : indptr[hi]], b_indptr, posting_rank, posting_value,
            out_indptr, out_ranks, out_dots,
        )  # fmt: skip
        reach = common_norm[order[lo:hi]] * common_norm[order[lo]] + 1e-9
        threshold = floor - reach  # increasing down the block
        near = np.flatnonzero(out_dots[: out_indptr[-1]] >= threshold[0])
        rows = np.searchsorted(out_indptr, near, side="right") - 1
        cols, dots = out_ranks[near], out_dots[near]
        keep = (dots >= threshold[rows]) & (cols > lo + rows)
        i, j = order[lo + rows[keep]], order[cols[keep]]
        found.append((np.minimum(i, j), np.maximum(i, j), dots[keep]))
    return tuple(np.concatenate(parts) for parts in zip(*found, strict=True))


def _rare_shares_one_block(
    indptr: np.ndarray, terms: np.ndarray, values: np.ndarray, n_terms: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_rare_shares`` of rows that make one block: every pair sharing a rare term (the caller
    keeps those that can reach the floor), from one kernel product of the rows by their postings
    without reordering them. Each pair's products are summed in the order of its terms, as in
    the blocks (the floats do not depend on which of the two rows leads)."""
    n, nnz, index = len(indptr) - 1, len(terms), indptr.dtype
    posting_start = np.empty(n_terms + 1, dtype=index)
    posting_row, posting_value = np.empty(nnz, dtype=index), np.empty(nnz)
    csr_tocsc(n, n_terms, indptr, terms, values, posting_start, posting_row, posting_value)
    out_indptr = np.empty(n + 1, dtype=index)
    out_cols, out_dots = np.empty(n * n, dtype=index), np.empty(n * n)
    csr_matmat(n, n, indptr, terms, values, posting_start, posting_row, posting_value,
               out_indptr, out_cols, out_dots)  # fmt: skip
    found = int(out_indptr[-1])
    rows = np.repeat(np.arange(n), np.diff(out_indptr))
    cols = out_cols[:found]
    upper = cols > rows
    return rows[upper], cols[upper], out_dots[:found][upper]


def _rare_shares_public(rare_part: sp.csr_matrix, common_norm: np.ndarray, floor: float):
    """``_rare_shares`` through SciPy's public product (a SciPy without its kernels)."""
    n = rare_part.shape[0]
    found = []
    for lo in range(0, n, LEXICAL_ROW_BLOCK):
        hi = min(n, lo + LEXICAL_ROW_BLOCK)
        later = rare_part[lo:] if lo else rare_part
        shared = (rare_part[lo:hi] if hi - lo < n else rare_part) @ later.T
        reach = common_norm[lo:hi] * common_norm[lo:].max() + 1e-9
        near = np.flatnonzero(shared.data >= np.repeat(floor - reach, np.diff(shared.indptr)))
        rows = lo + np.searchsorted(shared.indptr, near, side="right") - 1
        cols = lo + shared.indices[near]
        upper = rows < cols
        found.append((rows[upper], cols[upper], shared.data[near][upper]))
    return tuple(np.concatenate(parts) for parts in zip(*found, strict=True))
