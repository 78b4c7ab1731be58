"""The chunk graph's fast paths against plain oracles, float for float: personalised PageRank
iterated a block of columns at a time against the dense iteration over every column at once, and
the lexical edges against the all-pairs cosine."""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import corpora

import lab.graph as graph_module
from lab import build_index, load_collection
from lab.graph import ChunkGraph
from lab.retrieve import _blend


def random_graph(rng, n, density, sinks):
    """A symmetric graph with positive weights; the first ``sinks`` chunks have no edge."""
    upper = sp.random(n, n, density=density, random_state=rng, format="coo")
    keep = (upper.row < upper.col) & (upper.row >= sinks) & (upper.col >= sinks)
    rows, cols = upper.row[keep], upper.col[keep]
    weights = 0.1 + upper.data[keep]
    half = sp.csr_matrix((weights, (rows, cols)), shape=(n, n))
    return ChunkGraph(n, {"lexical": (rows, cols, weights)}, sp.csr_matrix(half + half.T))


def dense_pagerank(graph, restart, alpha=0.5, iterations=25):
    """``p <- alpha p0 + (1 - alpha) W^T D^-1 p`` over all columns at once, in float32, dangling
    mass back to ``p0``: the iteration as first written."""
    restart = np.asarray(restart, dtype=np.float32)
    walk, dangling = graph.transition()
    walk = walk.astype(np.float32)
    base = np.float32(alpha) * restart
    p = restart.copy()
    for _ in range(iterations):
        step = walk @ p
        if dangling.any():
            step += restart * p[dangling].sum(axis=0)
        step *= np.float32(1 - alpha)
        step += base
        p = step
    return p.astype(float)


def seeded_restart(rng, n, q, empty=0):
    """Up to three seeds per column with weights summing to 1; the last ``empty`` columns none."""
    restart = np.zeros((n, q))
    for j in range(q - empty):
        seeds = rng.choice(n, size=min(n, int(rng.integers(1, 4))), replace=False)
        weights = rng.random(len(seeds)) + 0.01
        restart[seeds, j] = weights / weights.sum()
    return restart


@pytest.mark.parametrize(
    ("n", "q", "sinks", "seed"),
    [(40, 1, 0, 1), (40, 1, 9, 2), (60, 2, 3, 3), (60, 3, 0, 4), (120, 129, 12, 5),
     (200, 300, 20, 6), (90, 257, 1, 7), (300, 131, 0, 8), (280, 40, 9, 9), (257, 3, 30, 10)],
)  # fmt: skip
@pytest.mark.parametrize("small_graph", [0, 256, 10**6])
@pytest.mark.parametrize("kernels", [True, False])
def test_blocked_pagerank_gives_the_dense_iterations_floats(
    monkeypatch, n, q, sinks, seed, small_graph, kernels
):
    # the restart added by position (0), as a dense matrix (10**6) or by the graph's size (256)
    monkeypatch.setattr(graph_module, "SMALL_GRAPH", small_graph)
    if not kernels:  # a SciPy without its kernels: the public products
        monkeypatch.setattr(graph_module, "csr_matvecs", None)
        monkeypatch.setattr(graph_module, "csr_matmat", None)
    rng = np.random.default_rng(seed)
    graph = random_graph(rng, n, 0.08, sinks)
    restart = seeded_restart(rng, n, q, empty=q // 7)
    want = dense_pagerank(graph, restart)
    assert np.array_equal(graph.pagerank(restart), want)
    rows, cols = np.nonzero(restart)
    shuffled = rng.permutation(len(rows))  # the seeds may come in any order
    got = graph.seeded_pagerank(rows[shuffled], cols[shuffled], restart[rows, cols][shuffled], q)
    assert got.shape == (q, n)
    assert np.array_equal(got, want.T)
    # the first steps alone: a first step's rounding would fade out of 25 halving iterations
    for iterations in (0, 1, 2):
        got = graph.pagerank(restart, iterations=iterations)
        assert np.array_equal(got, dense_pagerank(graph, restart, iterations=iterations))


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


@pytest.fixture(params=["kernel", "public product"])
def product_path(request, monkeypatch):
    """Each lexical test twice: SciPy's product kernel called directly, and the fallback through
    its public product (a SciPy without the kernel)."""
    if request.param != "kernel":
        monkeypatch.setattr(graph_module, "csr_matmat", None)
    return request.param


@pytest.mark.parametrize("block", [1, 3, 64, 512])
@pytest.mark.parametrize(
    ("n", "terms", "density", "seed"),
    [(30, 12, 0.3, 1), (60, 40, 0.1, 2), (80, 25, 0.25, 3), (120, 300, 0.03, 4), (7, 5, 0.6, 5)],
)
def test_lexical_edges_match_brute_force_all_pairs_cosine(
    monkeypatch, product_path, block, n, terms, density, seed
):
    monkeypatch.setattr(graph_module, "LEXICAL_ROW_BLOCK", block)
    rng = np.random.default_rng(seed)
    matrix = random_weights(rng, n, max(terms, 6), density, AT_THRESHOLD)
    rows, cols, weights = graph_module._lexical(matrix, 0.5, 0.2)
    got = {(int(i), int(j)): w for i, j, w in zip(rows, cols, weights, strict=True)}
    want = brute_force_lexical(matrix)
    assert set(got) == set(want)
    for pair, weight in want.items():
        assert got[pair] == pytest.approx(weight, rel=1e-12)
    assert list(zip(rows, cols, strict=True)) == sorted(got)  # row by row, i < j
    x, y, z = n, n + 1, n + 2  # the rows at a cosine of exactly 0.2
    assert got[(x, y)] == pytest.approx(0.1, rel=1e-12)
    assert got[(x, z)] == pytest.approx(0.1, rel=1e-12)
    assert (y, z) in got  # cosine 1/5 too: y . z = 3 / (5 * 3)


@pytest.mark.parametrize("block", [1, 4, 50])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rare_shares_are_the_full_products_pairs_that_could_reach_the_floor(
    monkeypatch, product_path, block, seed
):
    monkeypatch.setattr(graph_module, "LEXICAL_ROW_BLOCK", block)
    rng = np.random.default_rng(seed)
    rare = random_weights(rng, 90, 50, 0.08)
    rare.data /= 4
    common_norm = rng.random(90) * 0.45
    full = sp.triu(rare @ rare.T, k=1).tocoo()
    dots = {(int(i), int(j)): d for i, j, d in zip(full.row, full.col, full.data, strict=True)}
    floor = 0.2 - 1e-12
    parts = (rare.indptr, rare.indices, rare.data, rare.shape[1])
    rows, cols, got = graph_module._rare_shares(*parts, common_norm, floor)
    found = {(int(i), int(j)): d for i, j, d in zip(rows, cols, got, strict=True)}
    assert len(found) == len(rows)  # each pair once, as (lower, higher)
    assert all(i < j for i, j in found)
    assert all(dots[pair] == d for pair, d in found.items())  # the full product's floats
    wanted = {p for p, d in dots.items() if d + common_norm[p[0]] * common_norm[p[1]] >= floor}
    assert wanted <= set(found)
    assert len(wanted) > 10


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


@pytest.mark.parametrize("block", [3, 512])
@pytest.mark.parametrize("pair_block", [2, 8192])
@pytest.mark.parametrize("seed", range(6))
def test_lexical_weights_are_the_sparse_products_floats(
    monkeypatch, product_path, block, pair_block, seed
):
    monkeypatch.setattr(graph_module, "LEXICAL_ROW_BLOCK", block)
    monkeypatch.setattr(graph_module, "PAIR_BLOCK", pair_block)
    rng = np.random.default_rng(seed)
    n, terms = int(rng.integers(20, 160)), int(rng.integers(10, 200))
    matrix = random_weights(rng, n, terms, 0.02 + 0.2 * rng.random(), AT_THRESHOLD)
    matrix = sp.csr_matrix(sp.vstack([matrix, matrix[: n // 3]]))  # pairs at a cosine of 1
    for tau in (0.2, 0.05, 0.5):
        rows, cols, weights = graph_module._lexical(matrix, 0.5, tau)
        got = {(int(i), int(j)): w for i, j, w in zip(rows, cols, weights, strict=True)}
        want = sparse_lexical(matrix, tau)
        assert len(want) > 3
        assert got == want  # float for float


def test_sparse_row_sums_are_scipys():
    rng = np.random.default_rng(4)
    for width in (1, 5, 9, 40, 300):  # rows of fewer and more than 8 entries (pairwise sums)
        dense = rng.random((60, width)) * (rng.random((60, width)) < 0.6)
        dense[7] = 0.0
        dense[:, 0] *= 1e-12
        want = np.asarray(sp.csr_matrix(dense).sum(axis=1)).ravel()
        got = graph_module._sparse_row_sums(dense)
        assert got.tobytes() == want.tobytes()
        assert got[7] == 0.0


# --- structural edges ---------------------------------------------------------------------------

TECHNOVA = Path(__file__).resolve().parent.parent / "data" / "technova" / "collection.json"


def naive_structure(chunks, documents, resolve_refs):
    """SPEC 5's adjacency, hierarchy and xref edges, pair by pair in Python sets."""
    adjacency = {(k - 1, k) for k in range(1, len(chunks)) if chunks[k - 1].doc == chunks[k].doc}
    first_of, members, section_first = {}, {}, {}
    for k, c in enumerate(chunks):
        for p in c.provisions:
            first_of.setdefault((c.doc, p), k)
            members.setdefault((c.doc, p), []).append(k)
            section_first.setdefault((c.doc, documents[c.doc].provisions[p].section), k)
    hierarchy = {(k, first_of[(c.doc, p)]) for k, c in enumerate(chunks) for p in c.provisions}
    for (doc, p), k in first_of.items():
        hierarchy.add((k, section_first[(doc, documents[doc].provisions[p].section)]))
    xref = set()
    if resolve_refs:
        for k, c in enumerate(chunks):
            for target in c.cites:
                xref.update((k, m) for m in members.get((c.doc, target), ()))
    kinds = {"adjacency": adjacency, "hierarchy": hierarchy, "xref": xref}
    return {
        kind: sorted({(min(i, j), max(i, j)) for i, j in pairs if i != j})
        for kind, pairs in kinds.items()
    }


def assert_structure_matches_naive(corpus, chunker, size, resolve_refs):
    index = build_index(corpus, chunker, size, refs="delivered" if resolve_refs else "off")
    want = naive_structure(index.chunks, corpus.documents, resolve_refs)
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
        assert np.array_equal(graph_module._order_of_distinct(keys), np.argsort(keys))


def test_dense_columns_keep_the_used_terms_in_term_order():
    row_of = np.array([0, 0, 1, 2, 2, 2])
    terms = np.array([3, 9, 3, 0, 5, 9])
    values = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    keep = np.array([True, True, True, False, False, True])
    got = graph_module._dense_columns(3, row_of, terms, values, keep)
    assert got.tolist() == [[1.0, 2.0], [3.0, 0.0], [0.0, 6.0]]  # columns: terms 3 and 9
    assert graph_module._dense_columns(3, row_of, terms, values, keep & False).shape == (3, 0)


@given(
    st.integers(2, 70), st.integers(1, 30), st.floats(0.02, 0.6), st.sampled_from([1, 2, 5, 128])
)
@settings(max_examples=60, deadline=None)
def test_rare_shares_by_the_kernel_match_the_full_product_on_random_matrices(
    n, terms, density, block
):
    rng = np.random.default_rng([n, terms, int(density * 1000), block])
    rare = sp.random(n, terms, density=density, random_state=rng, format="csr")
    rare.data = 0.01 + rare.data
    rare.sort_indices()
    common_norm = rng.random(n) * 0.45 * (rng.random(n) < 0.8)  # some rows with none
    floor = rng.choice([0.0, 0.05, 0.2])
    full = sp.triu(rare @ rare.T, k=1).tocoo()
    dots = {(int(i), int(j)): d for i, j, d in zip(full.row, full.col, full.data, strict=True)}
    old = graph_module.LEXICAL_ROW_BLOCK
    try:
        graph_module.LEXICAL_ROW_BLOCK = block
        parts = (rare.indptr, rare.indices, rare.data, terms)
        rows, cols, got = graph_module._rare_shares(*parts, common_norm, floor)
    finally:
        graph_module.LEXICAL_ROW_BLOCK = old
    found = {(int(i), int(j)): d for i, j, d in zip(rows, cols, got, strict=True)}
    assert len(found) == len(rows) and all(i < j for i, j in found)
    assert all(dots[pair] == d for pair, d in found.items())  # bit for bit
    wanted = {p for p, d in dots.items() if d + common_norm[p[0]] * common_norm[p[1]] >= floor}
    assert wanted <= set(found)


@given(st.integers(1, 60), st.integers(1, 9), st.floats(0.0, 0.5), st.integers(0, 2**32 - 1))
@settings(max_examples=80, deadline=None)
def test_sparse_first_step_is_the_dense_products_floats(n, width, density, seed):
    rng = np.random.default_rng(seed)
    graph = random_graph(rng, n, density, int(rng.integers(0, n)))
    walk, _ = graph._walk
    restart = seeded_restart(rng, n, width).astype(np.float32)
    rows, cols = np.nonzero(restart)
    want = walk @ restart
    got = np.full((n, width), np.nan, dtype=np.float32)  # every entry written
    graph_module._walk_times_sparse(walk, rows, cols, restart[rows, cols], got)
    assert got.tobytes() == want.tobytes()
