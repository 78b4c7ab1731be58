"""The chunk graph (SpectRAG-lite) and personalised PageRank over it.

Sahinoglu et al., "SpectRAG: Weighted Chunk Graphs for Token-Budgeted Context Selection in
Multi-Hop RAG" (2026). Edges: adjacency, hierarchy, lexical (cosine of BM25-weighted term
vectors, each chunk keeping its ``LEXICAL_NEIGHBOURS`` strongest) and cross-references; an edge's
weight is the sum of its types' weights.

Each stage's plain rule is a public function here (``structure_edges_plain``,
``cosine_edges_plain``, ``pagerank_power_iteration``); its fast path is in ``lab.fast.graph`` (or,
for PageRank, ``ChunkGraph.seeded_pagerank``). ``build_graph(..., fast=...)`` is the one place that
chooses, for the edges and for the graph's PageRank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .chunkers import Chunk
from .fast import graph as fast_graph
from .parse import Document

EDGE_WEIGHTS = {"adjacency": 1.0, "hierarchy": 0.3, "lexical": 0.5, "xref": 1.0}
LEXICAL_MIN_COSINE = 0.2
LEXICAL_NEIGHBOURS = 16  # m: the strongest lexical neighbours each chunk keeps (SPEC 5)
RESTART = 0.5
ITERATIONS = 25
PAGERANK_BLOCK = 128  # restart columns iterated together


@dataclass(frozen=True, eq=False)
class ChunkGraph:
    """Undirected weighted graph over chunks; ``edges[type]`` holds ``(i, j, weight)``, i < j.
    ``fast``: PageRank by its blocked path (else ``pagerank_power_iteration`` over every column
    at once); the same floats either way."""

    n: int
    edges: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]
    matrix: sp.csr_matrix  # symmetric, summed weights
    fast: bool = True

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

    @cached_property
    def _walk(self) -> tuple[sp.csr_array, np.ndarray]:
        """``transition``'s walk in float32, as a sparse array, and the dangling chunks."""
        weights, dangling = self._walk_weights()
        matrix = self.matrix
        walk = sp.csr_array(
            (weights.astype(np.float32), matrix.indices, matrix.indptr), shape=matrix.shape
        )
        return walk, np.flatnonzero(dangling)

    def pagerank(
        self, restart: np.ndarray, alpha: float = RESTART, iterations: int = ITERATIONS
    ) -> np.ndarray:
        """Personalised PageRank of each column of ``restart`` (n x q, columns summing to 1):
        ``pagerank_power_iteration`` on this graph's walk, as float64."""
        restart = np.asarray(restart, dtype=np.float32)
        rows, cols = np.nonzero(restart)
        mass = self.seeded_pagerank(
            rows, cols, restart[rows, cols], restart.shape[1], alpha, iterations
        )
        return mass.T.astype(float)

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
        position once) and zeros elsewhere, transposed and in the float32 it is iterated in
        (half the memory of float64, the same values): q x n, row j for restart column j.

        The fast path: columns never mix, so they are iterated ``PAGERANK_BLOCK`` at a time (the
        iterate stays in cache, memory stays n x block), each block's restart added at its seeds
        only (``lab.fast.graph.seeded_power_iteration``); the same floats as every column at
        once."""
        mass = np.zeros((q, self.n), dtype=np.float32)
        if self.n == 0 or q == 0:
            return mass
        walk, sinks = self._walk
        order = np.argsort(cols, kind="stable")
        rows, cols = rows[order], cols[order]
        weights = np.asarray(weights, dtype=np.float32)[order]
        if not self.fast:
            restart = np.zeros((self.n, q), dtype=np.float32)
            restart[rows, cols] = weights
            return np.ascontiguousarray(
                pagerank_power_iteration(walk, sinks, restart, alpha, iterations).T
            )
        # near-equal blocks: none is one column wide unless q is (numpy sums one column pairwise)
        blocks = -(-q // PAGERANK_BLOCK)
        bounds = [q * b // blocks for b in range(blocks + 1)]
        cuts = np.searchsorted(cols, bounds).tolist()
        for b in range(blocks):
            lo, hi = bounds[b], bounds[b + 1]
            seeds = slice(cuts[b], cuts[b + 1])
            block = fast_graph.seeded_power_iteration(
                walk,
                sinks,
                rows[seeds],
                cols[seeds] - lo,
                weights[seeds],
                hi - lo,
                alpha,
                iterations,
            )
            fast_graph.put_transposed(mass[lo:hi], block)
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


def pagerank_power_iteration(
    walk: sp.csr_array,
    sinks: np.ndarray,
    restart: np.ndarray,
    alpha: float = RESTART,
    iterations: int = ITERATIONS,
) -> np.ndarray:
    """Personalised PageRank by power iteration, ``p <- alpha p0 + (1 - alpha) W^T D^-1 p`` from
    ``p = p0``, for every column of ``restart`` (``p0``, n x q) at once, in float32 (ranks, not
    digits, matter here). ``walk`` is ``W^T D^-1`` (``ChunkGraph.transition``) in float32; the
    mass at the dangling chunks ``sinks`` returns to ``p0`` (as in networkx)."""
    p0 = np.asarray(restart, dtype=np.float32)
    follow, stay = np.float32(1 - alpha), np.float32(alpha)
    base = stay * p0
    p = p0.copy()
    for _ in range(iterations):
        step = walk @ p
        if len(sinks):
            step += p0 * p[sinks].sum(axis=0)
        step *= follow
        step += base
        p = step
    return p


def build_graph(
    chunks: Sequence[Chunk],
    documents: Sequence[Document],
    term_weights: sp.csr_matrix,
    resolve_refs: bool,
    weights: dict[str, float] = EDGE_WEIGHTS,
    min_cosine: float = LEXICAL_MIN_COSINE,
    neighbours: int = LEXICAL_NEIGHBOURS,
    fast: bool = True,
) -> ChunkGraph:
    """Build the chunk graph; ``term_weights`` is the chunk x term BM25 weight matrix. ``fast``
    chooses the fast paths (``lab.fast.graph``, blocked PageRank) or the plain rules; they give
    the same graph, float for float."""
    n = len(chunks)
    structure = fast_graph.structure_edges if fast else structure_edges_plain
    lexical = fast_graph.cosine_edges if fast else cosine_edges_plain
    adjacency, hierarchy, xref = structure(chunks, documents, resolve_refs)
    edges = {
        "adjacency": _weighted(adjacency, n, weights["adjacency"]),
        "hierarchy": _weighted(hierarchy, n, weights["hierarchy"]),
        "lexical": lexical(term_weights, weights["lexical"], min_cosine, neighbours),
        "xref": _weighted(xref, n, weights["xref"]),
    }
    rows = np.concatenate([e[0] for e in edges.values()] + [e[1] for e in edges.values()])
    cols = np.concatenate([e[1] for e in edges.values()] + [e[0] for e in edges.values()])
    data = np.concatenate([e[2] for e in edges.values()] * 2)
    return ChunkGraph(n, edges, sp.csr_matrix((data, (rows, cols)), shape=(n, n)), fast)


def _weighted(keys: np.ndarray, n: int, weight: float) -> tuple[np.ndarray, ...]:
    """The pairs of sorted, distinct keys ``i * n + j`` (i < j) as rows, columns and weights."""
    rows, cols = np.divmod(keys, max(n, 1))
    return rows, cols, np.full(len(keys), weight)


def structure_edges_plain(
    chunks: Sequence[Chunk], documents: Sequence[Document], resolve_refs: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """SPEC 5's adjacency, hierarchy and cross-reference pairs, pair by pair, as sorted distinct
    keys ``i * n + j`` (i < j): chunks next to each other in a document; a chunk and the first
    chunk touching each provision it touches, and that one and the first chunk touching the
    provision's section; a chunk and every chunk touching a provision of its document it cites
    (when ``resolve_refs``)."""
    n = len(chunks)
    adjacency = {(k - 1, k) for k in range(1, n) if chunks[k - 1].doc == chunks[k].doc}
    first_of: dict[tuple[int, int], int] = {}  # (document, provision): its first chunk
    members: dict[tuple[int, int], list[int]] = {}  # (document, provision): its chunks
    section_first: dict[tuple[int, str], int] = {}  # (document, section): its first chunk
    for k, c in enumerate(chunks):
        for p in c.provisions:
            first_of.setdefault((c.doc, p), k)
            members.setdefault((c.doc, p), []).append(k)
            section_first.setdefault((c.doc, documents[c.doc].provisions[p].section), k)
    hierarchy = {(k, first_of[(c.doc, p)]) for k, c in enumerate(chunks) for p in c.provisions}
    for (doc, p), k in first_of.items():
        hierarchy.add((k, section_first[(doc, documents[doc].provisions[p].section)]))
    xref: set[tuple[int, int]] = set()
    if resolve_refs:
        for k, c in enumerate(chunks):
            for target in c.cites:
                xref.update((k, m) for m in members.get((c.doc, target), ()))
    return tuple(
        np.array(sorted({min(i, j) * n + max(i, j) for i, j in pairs if i != j}), dtype=np.int64)
        for pairs in (adjacency, hierarchy, xref)
    )


def cosine_edges_plain(
    term_weights: sp.csr_matrix,
    weight: float = EDGE_WEIGHTS["lexical"],
    min_cosine: float = LEXICAL_MIN_COSINE,
    neighbours: int = LEXICAL_NEIGHBOURS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lexical edges, ``(i, j, weight * cosine)`` with i < j, by i then j: each chunk's
    ``neighbours`` strongest chunks among those whose term vectors' cosine with it is at least
    ``min_cosine`` (largest cosine first, ties by position), an edge kept when either end keeps
    it. Where no chunk has more than ``neighbours`` such chunks, every pair at the threshold.

    The cosine's floats, in scipy's sparse operations on the unit rows: the terms split at the
    longest prefix by document frequency whose share of every chunk's squared norm stays below
    ``min_cosine`` (those common terms alone cannot reach it), the rare dot product from the
    all-pairs product ``rare @ rare.T``, the common one ``common[i].multiply(common[j])`` summed
    (``term_weights`` canonical, as BM25 builds it)."""
    n = term_weights.shape[0]
    unit = sp.csr_matrix(term_weights, copy=True)
    row_of = np.repeat(np.arange(n), np.diff(unit.indptr))
    unit.data = unit.data / np.sqrt(np.bincount(row_of, weights=unit.data**2, minlength=n))[row_of]
    df = np.bincount(unit.indices, minlength=unit.shape[1])
    rank_of_term = np.empty_like(df)
    rank_of_term[np.argsort(-df, kind="stable")] = np.arange(len(df))
    entry_rank = rank_of_term[unit.indices]
    by_row_rank = np.argsort(row_of * len(df) + entry_rank)
    mass = np.cumsum(unit.data[by_row_rank] ** 2)
    row_sorted = row_of[by_row_rank]
    mass -= np.concatenate([[0.0], mass])[np.searchsorted(row_sorted, np.arange(n))][row_sorted]
    crossing = entry_rank[by_row_rank][mass >= min_cosine * (1 - 1e-9)]
    in_prefix = entry_rank < (crossing.min() if len(crossing) else len(df))
    rare, common = unit.copy(), unit.copy()
    rare.data = np.where(in_prefix, 0.0, unit.data)
    common.data = np.where(in_prefix, unit.data, 0.0)
    rare.eliminate_zeros()
    common.eliminate_zeros()
    common_norm = np.sqrt(np.asarray(common.multiply(common).sum(axis=1)).ravel())
    shared = sp.triu(rare @ rare.T, k=1).tocoo()
    rows, cols, rare_dot = shared.row, shared.col, shared.data
    maybe = rare_dot + common_norm[rows] * common_norm[cols] >= min_cosine - 1e-12
    rows, cols, rare_dot = rows[maybe], cols[maybe], rare_dot[maybe]
    common_dot = np.asarray(common[rows].multiply(common[cols]).sum(axis=1)).ravel()
    cosine = rare_dot + common_dot
    keep = cosine >= min_cosine - 1e-12
    at_threshold = {
        (int(i), int(j)): float(c)
        for i, j, c in zip(rows[keep], cols[keep], cosine[keep], strict=True)
    }
    near: dict[int, list[tuple[float, int]]] = {}
    for (i, j), c in at_threshold.items():
        near.setdefault(i, []).append((-c, j))
        near.setdefault(j, []).append((-c, i))
    kept = sorted(
        {(min(i, j), max(i, j)) for i, row in near.items() for _, j in sorted(row)[:neighbours]}
    )
    return (
        np.array([i for i, _ in kept], dtype=np.int64),
        np.array([j for _, j in kept], dtype=np.int64),
        np.array([weight * at_threshold[pair] for pair in kept], dtype=float),
    )
