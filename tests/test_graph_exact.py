"""The chunk graph's rules against what they mean: the lexical edges against the all-pairs cosine
(every pair at the threshold, then each chunk's strongest m), the plain cosine's floats against
the brute-force product, the structural edges by hand, the score blend by its formula. Fast and
plain paths held equal: tests/test_rules.py."""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from samples import corpora, zipf_weights

from lab import build_index, load_collection
from lab.fast.graph import _dense_columns, _order_of_distinct, _sparse_row_sums, cosine_edges
from lab.graph import ChunkGraph, cosine_edges_plain, structure_edges_plain
from lab.retrieve import _blend


def random_graph(rng, n, density, sinks):
    """A symmetric graph with positive weights; the first ``sinks`` chunks have no edge."""
    upper = sp.random(n, n, density=density, random_state=rng, format="coo")
    keep = (upper.row < upper.col) & (upper.row >= sinks) & (upper.col >= sinks)
    rows, cols = upper.row[keep], upper.col[keep]
    weights = 0.1 + upper.data[keep]
    half = sp.csr_matrix((weights, (rows, cols)), shape=(n, n))
    return ChunkGraph(n, {"lexical": (rows, cols, weights)}, sp.csr_matrix(half + half.T))


def seeded_restart(rng, n, q, empty=0):
    """Up to three seeds per column with weights summing to 1; the last ``empty`` columns none."""
    restart = np.zeros((n, q))
    for j in range(q - empty):
        seeds = rng.choice(n, size=min(n, int(rng.integers(1, 4))), replace=False)
        weights = rng.random(len(seeds)) + 0.01
        restart[seeds, j] = weights / weights.sum()
    return restart


def test_seeded_pagerank_of_no_chunks_or_no_questions_is_empty():
    rng = np.random.default_rng(0)
    none = np.zeros(0, dtype=np.int64)
    assert ChunkGraph(0, {}, sp.csr_matrix((0, 0))).seeded_pagerank(none, none, none, 3).shape == (
        3,
        0,
    )
    assert random_graph(rng, 5, 0.5, 0).seeded_pagerank(none, none, none, 0).shape == (0, 5)


@pytest.mark.parametrize(("unseeded", "masked"), [(0.2, 0.3), (0.0, 0.3), (0.0, 0.0), (0.5, 0.0)])
def test_blend_is_the_spec_formula_row_by_row_with_unseeded_and_masked_rows_at_zero(
    unseeded, masked
):
    rng = np.random.default_rng(3)
    first, mass = rng.random((150, 40)), rng.random((150, 40)) + 0.01
    seeded = rng.random(150) >= unseeded
    mask = rng.random((150, 40)) >= masked if masked else None
    got = _blend(first, mass, seeded, mask)
    for j in range(150):
        want = 0.6 * first[j] / first[j].max() + 0.4 * mass[j] / mass[j].max()
        if mask is not None:
            want = np.where(mask[j], want, 0.0)
        assert np.array_equal(got[j], want if seeded[j] else np.zeros(40))


# --- lexical edges ------------------------------------------------------------------------------

# Rows of a term-weight matrix whose cosines are exactly 0.2 (5/25) in real arithmetic: |x| = 5,
# |y| = 5, x . y = 1 + 4 = 5 on terms 0 and 1; and |z| = 1 with x . z = 1 on term 0.
AT_THRESHOLD = [
    {0: 1.0, 1: 2.0, 2: 2.0, 3: 4.0},
    {0: 1.0, 1: 2.0, 4: 2.0, 5: 4.0},
    {0: 3.0},
]


def random_weights(rng, n, terms, density, exact_rows=()):
    """A chunk x term matrix of positive weights, some rows empty, one row repeated, then the
    ``exact_rows`` appended."""
    m = sp.random(n, terms, density=density, random_state=rng, format="lil")
    m[rng.integers(n)] = 0.0
    if n > 3:
        m[n - 1] = m[1]
    m = sp.csr_matrix(m)
    m.data = 0.05 + m.data * rng.random(len(m.data)) * 3
    extra = sp.lil_matrix((len(exact_rows), terms))
    for i, row in enumerate(exact_rows):
        for t, w in row.items():
            extra[i, t] = w
    out = sp.csr_matrix(sp.vstack([m, extra]))
    out.sort_indices()
    return out


def brute_force_lexical(matrix):
    dense = matrix.toarray()
    norms = np.linalg.norm(dense, axis=1)
    unit = np.divide(dense, norms[:, None], out=np.zeros_like(dense), where=norms[:, None] > 0)
    cosine = unit @ unit.T
    i, j = np.nonzero(np.triu(cosine >= 0.2 - 1e-12, k=1))
    return {(int(a), int(b)): 0.5 * cosine[a, b] for a, b in zip(i, j, strict=True)}


@pytest.mark.parametrize("neighbours", [10**6, 16])
@pytest.mark.parametrize(
    ("n", "terms", "density", "seed"),
    [(30, 12, 0.3, 1), (60, 40, 0.1, 2), (80, 25, 0.25, 3), (120, 300, 0.03, 4), (7, 5, 0.6, 5)],
)
def test_lexical_edges_match_brute_force_all_pairs_cosine(neighbours, n, terms, density, seed):
    rng = np.random.default_rng(seed)
    matrix = random_weights(rng, n, max(terms, 6), density, AT_THRESHOLD)
    rows, cols, weights = cosine_edges(matrix, 0.5, 0.2, neighbours)
    got = {(int(i), int(j)): w for i, j, w in zip(rows, cols, weights, strict=True)}
    want = brute_force_lexical(matrix)
    if neighbours < 10**6:
        want = strongest_of_each(want, neighbours)
    assert set(got) == set(want)
    for pair, weight in want.items():
        assert got[pair] == pytest.approx(weight, rel=1e-12)
    assert list(zip(rows, cols, strict=True)) == sorted(got)  # row by row, i < j
    if neighbours < 10**6:
        return
    x, y, z = n, n + 1, n + 2  # the rows at a cosine of exactly 0.2
    assert got[(x, y)] == pytest.approx(0.1, rel=1e-12)
    assert got[(x, z)] == pytest.approx(0.1, rel=1e-12)
    assert (y, z) in got  # cosine 1/5 too: y . z = 3 / (5 * 3)


def strongest_of_each(pairs, m):
    """The pairs one of whose ends has the other among its ``m`` strongest (ties by position),
    from brute-force cosines rounded to 9 digits (ties in real arithmetic tie here)."""
    near = {}
    for (i, j), w in pairs.items():
        near.setdefault(i, []).append((-round(w, 9), j))
        near.setdefault(j, []).append((-round(w, 9), i))
    kept = {(min(i, j), max(i, j)) for i, row in near.items() for _, j in sorted(row)[:m]}
    return {pair: pairs[pair] for pair in kept}


def test_each_chunk_keeps_its_strongest_neighbours_ties_by_position():
    # chunk 0 is close to every other chunk (they share its term t0 at decreasing weight);
    # chunks 1..5 are also equal to one another pairwise on term t1
    lil = sp.lil_matrix((6, 2))
    lil[0, 0] = 1.0
    for k in range(1, 6):
        lil[k, 0], lil[k, 1] = 1.0, 0.2 + 0.01 * k
    matrix = sp.csr_matrix(lil)
    want_all = brute_force_lexical(matrix)
    assert {(0, j) for j in range(1, 6)} <= set(want_all)
    for m in (1, 2, 3, 5):
        rows_, cols, _ = cosine_edges(matrix, 0.5, 0.2, m)
        got = set(zip(rows_.tolist(), cols.tolist(), strict=True))
        assert got == set(strongest_of_each(want_all, m))
        plain = cosine_edges_plain(matrix, 0.5, 0.2, m)
        assert all(a.tobytes() == b.tobytes() for a, b in zip(plain, (rows_, cols, _), strict=True))
    # one neighbour each: every chunk of 1..5 chooses its nearest, and 0 chooses chunk 1
    rows_, cols, _ = cosine_edges(matrix, 0.5, 0.2, 1)
    assert len(rows_) <= 6 and len(rows_) < len(want_all)


def sparse_lexical(matrix, tau=0.2):
    """The lexical edges as first written, in scipy's sparse operations: unit rows split at the
    same df prefix into rare and common parts, the rare dot products from the full product
    ``rare @ rare.T``, the common ones from ``common[i].multiply(common[j]).sum(axis=1)``."""
    n = matrix.shape[0]
    unit = matrix.copy()
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
    crossing = entry_rank[by_row_rank][mass >= tau * (1 - 1e-9)]
    in_prefix = rank_of_term[unit.indices] < (crossing.min() if len(crossing) else len(df))
    rare, common = unit.copy(), unit.copy()
    rare.data = np.where(in_prefix, 0.0, unit.data)
    common.data = np.where(in_prefix, unit.data, 0.0)
    rare.eliminate_zeros()
    common.eliminate_zeros()
    common_norm = np.sqrt(np.asarray(common.multiply(common).sum(axis=1)).ravel())
    shared = sp.triu(rare @ rare.T, k=1).tocoo()
    rows, cols, rare_dot = shared.row, shared.col, shared.data
    maybe = rare_dot + common_norm[rows] * common_norm[cols] >= tau - 1e-12
    rows, cols, rare_dot = rows[maybe], cols[maybe], rare_dot[maybe]
    common_dot = np.asarray(common[rows].multiply(common[cols]).sum(axis=1)).ravel()
    cosine = rare_dot + common_dot
    keep = cosine >= tau - 1e-12
    return {
        (int(i), int(j)): 0.5 * c
        for i, j, c in zip(rows[keep], cols[keep], cosine[keep], strict=True)
    }


@pytest.mark.parametrize("seed", range(6))
def test_plain_lexical_floats_are_the_sparse_products_on_all_pairs(seed):
    rng = np.random.default_rng(seed)
    n, terms = int(rng.integers(20, 160)), int(rng.integers(10, 200))
    matrix = random_weights(rng, n, terms, 0.02 + 0.2 * rng.random(), AT_THRESHOLD)
    matrix = sp.csr_matrix(sp.vstack([matrix, matrix[: n // 3]]))  # pairs at a cosine of 1
    for tau in (0.2, 0.05, 0.5):
        rows, cols, weights = cosine_edges_plain(matrix, 0.5, tau, 10**6)
        got = {(int(i), int(j)): w for i, j, w in zip(rows, cols, weights, strict=True)}
        want = sparse_lexical(matrix, tau)
        assert len(want) > 3
        assert got == want  # float for float
        brute = brute_force_lexical(matrix) if tau == 0.2 else None
        if brute is not None:
            assert set(got) == set(brute)


@pytest.mark.parametrize("tau", [0.2, 0.1, 0.5])
@pytest.mark.parametrize("seed", range(8))
def test_pairs_sharing_a_rare_term_hold_every_pair_at_the_threshold(seed, tau):
    # the candidates (pairs sharing a term past the common prefix) are a superset of the edges:
    # on BM25-like rows, whose common prefix is short, every pair at the threshold by the
    # all-pairs cosine is an edge of the plain rule and of the fast path
    rng = np.random.default_rng(seed)
    matrix = zipf_weights(rng, 150, int(rng.integers(8, 80)), int(rng.integers(3, 40)), 10)
    dense = matrix.toarray()
    unit = dense / np.linalg.norm(dense, axis=1)[:, None]
    i, j = np.nonzero(np.triu(unit @ unit.T >= tau - 1e-12, k=1))
    assert len(i) > 5
    want = set(zip(i.tolist(), j.tolist(), strict=True))
    for edges in (
        cosine_edges_plain(matrix, 0.5, tau, 10**6),
        cosine_edges(matrix, 0.5, tau, 10**6),
    ):
        assert set(zip(edges[0].tolist(), edges[1].tolist(), strict=True)) == want


def test_sparse_row_sums_are_scipys():
    rng = np.random.default_rng(4)
    for width in (1, 5, 9, 40, 300):  # rows of fewer and more than 8 entries (pairwise sums)
        dense = rng.random((60, width)) * (rng.random((60, width)) < 0.6)
        dense[7] = 0.0
        dense[:, 0] *= 1e-12
        want = np.asarray(sp.csr_matrix(dense).sum(axis=1)).ravel()
        got = _sparse_row_sums(dense)
        assert got.tobytes() == want.tobytes()
        assert got[7] == 0.0


# --- structural edges ---------------------------------------------------------------------------

TECHNOVA = Path(__file__).resolve().parent.parent / "data" / "technova" / "collection.json"


def assert_structure_matches_naive(corpus, chunker, size, resolve_refs):
    index = build_index(corpus, chunker, size, refs="delivered" if resolve_refs else "off")
    n = len(index.chunks)
    plain = structure_edges_plain(index.chunks, corpus.documents, resolve_refs)
    want = {
        kind: [(int(k) // n, int(k) % n) for k in keys]
        for kind, keys in zip(("adjacency", "hierarchy", "xref"), plain, strict=True)
    }
    for kind, pairs in want.items():
        rows, cols, _ = index.graph.edges[kind]
        assert rows.dtype == cols.dtype == np.int64
        assert list(zip(rows.tolist(), cols.tolist(), strict=True)) == pairs, kind
    return want


@pytest.mark.parametrize("chunker", ["fixed", "structure", "qes-greedy", "parent-child"])
@pytest.mark.parametrize("resolve_refs", [True, False])
def test_structural_edges_match_the_pairwise_definition_on_the_handbook(
    handbook, chunker, resolve_refs
):
    want = assert_structure_matches_naive(handbook, chunker, 250, resolve_refs)
    assert want["hierarchy"] and (bool(want["xref"]) is resolve_refs)


@pytest.mark.parametrize("chunker", ["sentence", "structure", "by-type"])
def test_structural_edges_match_the_pairwise_definition_on_a_collection(chunker):
    corpus = load_collection(TECHNOVA)
    assert len(corpus.documents) > 1
    assert_structure_matches_naive(corpus, chunker, 350, True)


@given(corpora())
def test_structural_edges_match_the_pairwise_definition_on_generated_documents(corpus):
    assert_structure_matches_naive(corpus, "structure", 120, True)


def test_order_of_distinct_keys_is_their_argsort():
    rng = np.random.default_rng(5)
    for m, high in [(0, 1), (1, 1), (7, 10), (5_000, 10**6), (3_000, 2**62)]:  # the last too wide
        keys = rng.choice(high, size=m, replace=False) if high < 10**7 else rng.integers(0, high, m)
        assert len(np.unique(keys)) == m
        assert np.array_equal(_order_of_distinct(keys), np.argsort(keys))


def test_dense_columns_keep_the_used_terms_in_term_order():
    row_of = np.array([0, 0, 1, 2, 2, 2])
    terms = np.array([3, 9, 3, 0, 5, 9])
    values = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    keep = np.array([True, True, True, False, False, True])
    got = _dense_columns(3, row_of, terms, values, keep)
    assert got.tolist() == [[1.0, 2.0], [3.0, 0.0], [0.0, 6.0]]  # columns: terms 3 and 9
    assert _dense_columns(3, row_of, terms, values, keep & False).shape == (3, 0)
