"""Each stage's plain rule and its fast path give the same results, bit for bit, reached through
their public names (no module constant patched): the structural edges, the bounded lexical edges,
personalised PageRank, the whole chunk graph (``build_graph(..., fast=...)``) and BM25's scores."""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from samples import corpora, zipf_weights

from lab import build_corpus, build_index, load_collection
from lab.bm25 import BM25, bm25_scores_plain
from lab.fast.graph import cosine_edges, seeded_power_iteration, structure_edges
from lab.generate import generate_corpus
from lab.graph import (
    ChunkGraph,
    build_graph,
    cosine_edges_plain,
    pagerank_power_iteration,
    structure_edges_plain,
)

TECHNOVA = Path(__file__).resolve().parent.parent / "data" / "technova" / "collection.json"
CHUNKERS = ["fixed", "sentence", "structure", "qes-dp", "qes-greedy", "parent-child"]


def same_arrays(got, want) -> bool:
    return len(got) == len(want) and all(
        a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        for a, b in zip(got, want, strict=True)
    )


@pytest.fixture(scope="module")
def generated():
    text, qe = generate_corpus(40_000, 20)
    return build_corpus({"generated": text}, qe)


# --- structural edges ---------------------------------------------------------------------------


@pytest.mark.parametrize("chunker", CHUNKERS)
@pytest.mark.parametrize("resolve_refs", [True, False])
def test_structure_edges_fast_are_the_plain_rule_on_the_handbook(handbook, chunker, resolve_refs):
    index = build_index(handbook, chunker, 250)
    args = (index.chunks, handbook.documents, resolve_refs)
    want = structure_edges_plain(*args)
    assert same_arrays(structure_edges(*args), want)
    assert len(want[0]) == len(index.chunks) - 1 and len(want[1])
    assert bool(len(want[2])) is resolve_refs


@pytest.mark.parametrize("chunker", ["sentence", "structure", "by-type"])
def test_structure_edges_fast_are_the_plain_rule_on_a_collection(chunker):
    corpus = load_collection(TECHNOVA)
    index = build_index(corpus, chunker, 350)
    args = (index.chunks, corpus.documents, True)
    want = structure_edges_plain(*args)
    assert same_arrays(structure_edges(*args), want)
    # chunks of different documents are never neighbours
    assert len(want[0]) == len(index.chunks) - len(corpus.documents)


@given(corpora(), st.sampled_from(["fixed", "structure", "qes-greedy"]), st.booleans())
def test_structure_edges_fast_are_the_plain_rule_on_generated_documents(corpus, chunker, refs):
    index = build_index(corpus, chunker, 120)
    args = (index.chunks, corpus.documents, refs)
    assert same_arrays(structure_edges(*args), structure_edges_plain(*args))


def test_structure_edges_by_hand():
    # chunk 0 touches provision 0 (section A); 1 touches 0 and 1 (A); 2 touches 2 (B) and cites
    # 0; 3 is in the second document, touches its provision 0 and cites provision 2 of that
    # document, which it does not have.
    class P:
        def __init__(self, section):
            self.section = section

    class D:
        def __init__(self, *sections):
            self.provisions = [P(s) for s in sections]

    class C:
        def __init__(self, doc, provisions, cites=()):
            self.doc, self.provisions, self.cites = doc, provisions, cites

    chunks = [C(0, (0,)), C(0, (0, 1)), C(0, (2,), (0,)), C(1, (0,), (2,))]
    documents = [D("A", "A", "B"), D("A")]
    adjacency, hierarchy, xref = structure_edges_plain(chunks, documents, True)
    n = 4
    assert adjacency.tolist() == [0 * n + 1, 1 * n + 2]
    # 1 -> first holder of provision 0 (chunk 0); provision 1's first holder (1) -> its
    # section's first chunk (0); provision 2 of section B starts its own section
    assert hierarchy.tolist() == [0 * n + 1]
    assert xref.tolist() == [0 * n + 2, 1 * n + 2]
    assert same_arrays(structure_edges(chunks, documents, True), (adjacency, hierarchy, xref))


# --- lexical edges ------------------------------------------------------------------------------


def random_weights(rng, n, terms, density):
    """A canonical chunk x term matrix of positive weights, a third of its rows repeated (pairs
    at a cosine of 1, rows with many equal neighbours)."""
    m = sp.random(n, terms, density=density, random_state=rng, format="csr")
    m.data = 0.05 + m.data * 3
    m = sp.csr_matrix(sp.vstack([m, m[: n // 3], m[: n // 5]]))
    m.sort_indices()
    return m


@given(
    st.integers(2, 90), st.integers(1, 40), st.floats(0.02, 0.6), st.integers(0, 2**32 - 1),
    st.sampled_from([1, 2, 5, 16, 10**6]), st.sampled_from([0.05, 0.2, 0.5]),
)  # fmt: skip
@settings(max_examples=80, deadline=None)
def test_cosine_edges_fast_are_the_plain_rule(n, terms, density, seed, m, tau):
    matrix = random_weights(np.random.default_rng(seed), n, terms, density)
    assert same_arrays(cosine_edges(matrix, 0.5, tau, m), cosine_edges_plain(matrix, 0.5, tau, m))


@given(
    st.integers(2, 120), st.integers(2, 60), st.integers(1, 30), st.integers(0, 12),
    st.integers(0, 2**32 - 1), st.sampled_from([1, 3, 16, 10**6]),
    st.sampled_from([0.05, 0.2, 0.21, 0.5]),
)  # fmt: skip
@settings(max_examples=120, deadline=None)
def test_cosine_edges_fast_are_the_plain_rule_on_zipf_rows(n, terms, length, repeats, seed, m, tau):
    # BM25-like rows: a few common terms in most rows, weighing less, the global common prefix
    # short; copies and copies nudged by one part in 1e9 (cosines at 1 and just below, ties)
    matrix = zipf_weights(np.random.default_rng(seed), n, terms, length, repeats)
    assert same_arrays(cosine_edges(matrix, 0.5, tau, m), cosine_edges_plain(matrix, 0.5, tau, m))


@pytest.mark.parametrize("neighbours", [1, 4, 16])
@pytest.mark.parametrize("chunker", ["fixed", "sentence", "structure", "qes-greedy"])
def test_cosine_edges_fast_are_the_plain_rule_on_a_generated_corpus(generated, chunker, neighbours):
    matrix = build_index(generated, chunker, 120).bm25.matrix
    want = cosine_edges_plain(matrix, 0.5, 0.2, neighbours)
    assert same_arrays(cosine_edges(matrix, 0.5, 0.2, neighbours), want)
    assert len(want[0]) > 50


def test_cosine_edges_of_no_chunks_one_chunk_or_no_terms_are_empty():
    for matrix in (sp.csr_matrix((0, 3)), sp.csr_matrix(np.ones((1, 3))), sp.csr_matrix((4, 0))):
        for edges in (cosine_edges(matrix, 0.5, 0.2, 16), cosine_edges_plain(matrix, 0.5, 0.2)):
            assert all(len(a) == 0 for a in edges)


# --- PageRank -----------------------------------------------------------------------------------


def random_graph(rng, n, density, sinks, fast=True):
    """A symmetric graph with positive weights; the first ``sinks`` chunks have no edge."""
    upper = sp.random(n, n, density=density, random_state=rng, format="coo")
    keep = (upper.row < upper.col) & (upper.row >= sinks) & (upper.col >= sinks)
    rows, cols = upper.row[keep], upper.col[keep]
    weights = 0.1 + upper.data[keep]
    half = sp.csr_matrix((weights, (rows, cols)), shape=(n, n))
    return ChunkGraph(n, {"lexical": (rows, cols, weights)}, sp.csr_matrix(half + half.T), fast)


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
def test_blocked_pagerank_is_the_power_iteration_over_every_column(n, q, sinks, seed):
    rng = np.random.default_rng(seed)
    graph = random_graph(rng, n, 0.08, sinks)
    plain = random_graph(np.random.default_rng(seed), n, 0.08, sinks, fast=False)
    restart = seeded_restart(rng, n, q, empty=q // 7)
    walk, dangling = graph.transition()
    for iterations in (0, 1, 2, 25):
        want = pagerank_power_iteration(
            walk.astype(np.float32), np.flatnonzero(dangling), restart, 0.5, iterations
        ).astype(float)
        assert graph.pagerank(restart, iterations=iterations).tobytes() == want.tobytes()
        assert plain.pagerank(restart, iterations=iterations).tobytes() == want.tobytes()
    rows, cols = np.nonzero(restart)
    shuffled = rng.permutation(len(rows))  # the seeds may come in any order
    got = graph.seeded_pagerank(rows[shuffled], cols[shuffled], restart[rows, cols][shuffled], q)
    assert got.shape == (q, n) and got.dtype == np.float32  # the floats it is iterated in
    assert got.astype(float).tobytes() == np.ascontiguousarray(want.T).tobytes()


def chain_walk(n: int, sinks: int) -> tuple[sp.csr_array, np.ndarray]:
    """The walk of a path of chunks (mass reaches one more chunk each step), the last
    ``sinks`` chunks without an edge, in float32."""
    ends = n - sinks
    rows = np.arange(ends - 1)
    half = sp.csr_matrix((0.2 + (rows % 7) / 10, (rows, rows + 1)), shape=(n, n))
    walk, dangling = ChunkGraph(n, {}, sp.csr_matrix(half + half.T)).transition()
    return sp.csr_array(walk.astype(np.float32)), np.flatnonzero(dangling)


@pytest.mark.parametrize(("n", "q", "sinks", "alpha"), [(90, 5, 0, 0.5), (120, 7, 4, 0.15)])
def test_pagerank_from_seeds_is_the_power_iteration_while_the_mass_spreads(n, q, sinks, alpha):
    # On a path the mass reaches a chunk or two more each step: the first steps multiply only
    # the reached chunks' columns, the later ones the whole walk.
    walk, dangling = chain_walk(n, sinks)
    rng = np.random.default_rng(n)
    restart = seeded_restart(rng, n - sinks, q, empty=1)
    restart = np.vstack([restart, np.zeros((sinks, q))]).astype(np.float32)
    restart[n - 1, 0] = 0.25 if sinks else 0.0  # a seed at a dangling chunk
    rows, cols = np.nonzero(restart)
    for iterations in (0, 1, 3, 25, 80):
        want = pagerank_power_iteration(walk, dangling, restart, alpha, iterations)
        got = seeded_power_iteration(
            walk, dangling, rows, cols, restart[rows, cols], q, alpha, iterations
        )
        assert got.dtype == np.float32 and got.tobytes() == want.tobytes()


def test_seeded_pagerank_of_no_chunks_or_no_questions_is_empty():
    none = np.zeros(0, dtype=np.int64)
    for fast in (True, False):
        empty = ChunkGraph(0, {}, sp.csr_matrix((0, 0)), fast)
        assert empty.seeded_pagerank(none, none, none, 3).shape == (3, 0)
        graph = random_graph(np.random.default_rng(0), 5, 0.5, 0, fast)
        assert graph.seeded_pagerank(none, none, none, 0).shape == (0, 5)


# --- the whole graph ----------------------------------------------------------------------------


def assert_same_graph(fast: ChunkGraph, plain: ChunkGraph) -> None:
    assert list(fast.edges) == list(plain.edges) == ["adjacency", "hierarchy", "lexical", "xref"]
    for kind in plain.edges:
        assert same_arrays(fast.edges[kind], plain.edges[kind]), kind
    a, b = fast.matrix, plain.matrix
    assert same_arrays((a.indptr, a.indices, a.data), (b.indptr, b.indices, b.data))


def graphs(index, **options):
    args = (index.chunks, index.corpus.documents, index.bm25.matrix, True)
    return build_graph(*args, **options), build_graph(*args, fast=False, **options)


@pytest.mark.parametrize("chunker", CHUNKERS)
def test_fast_graph_is_the_plain_graph_on_the_handbook(handbook, chunker):
    fast, plain = graphs(build_index(handbook, chunker, 250))
    assert_same_graph(fast, plain)
    assert all(len(e[0]) for e in plain.edges.values())  # every kind of edge is there
    assert fast.fast and not plain.fast


def test_fast_graph_is_the_plain_graph_on_a_collection_and_a_generated_corpus(generated):
    assert_same_graph(*graphs(build_index(load_collection(TECHNOVA), "structure", 350)))
    assert_same_graph(*graphs(build_index(generated, "sentence", 120), neighbours=3))


@given(corpora())
def test_fast_graph_is_the_plain_graph_on_generated_documents(corpus):
    assert_same_graph(*graphs(build_index(corpus, "structure", 120)))


# --- BM25 ---------------------------------------------------------------------------------------

WORDS = "abcdefgh"
documents = st.lists(st.lists(st.sampled_from(WORDS), max_size=7), max_size=60)
queries = st.lists(st.lists(st.sampled_from(WORDS + "xyz"), max_size=6), max_size=20)


@given(documents, queries, st.sampled_from([(1.2, 0.75), (0.0, 0.0), (2.0, 1.0)]))
@example([], [["a"]], (1.2, 0.75))
@example([[], []], [[], ["a", "a"]], (1.2, 0.75))
@example([["a", "a", "b"], [], ["b", "c", "a", "a"]], [["a", "b", "a"], ["c"]], (1.2, 0.75))
def test_bm25_scores_are_the_plain_formula(documents, queries, params):
    k1, b = params
    got = BM25(documents, k1, b).scores(queries)
    want = bm25_scores_plain(documents, queries, k1, b)
    assert got.shape == want.shape and got.tobytes() == want.tobytes()


def test_cosine_edges_fast_are_the_plain_rule_on_repeated_text():
    # one paragraph repeated: chunks with the same terms and weights, hundreds of neighbours each
    paragraph = (
        "A dark window is at least 90 minutes of full darkness before moonrise. A visitor is "
        "anyone on site who is neither staff nor a registered researcher. Only dim red light "
        "is permitted there.\n\n"
    )
    corpus = build_corpus({"repeated": paragraph * 60}, None)
    for chunker in ("fixed", "sentence"):
        matrix = build_index(corpus, chunker, 100).bm25.matrix
        for neighbours in (1, 16):
            want = cosine_edges_plain(matrix, 0.5, 0.2, neighbours)
            assert same_arrays(cosine_edges(matrix, 0.5, 0.2, neighbours), want)
            degree = np.bincount(np.concatenate(want[:2]), minlength=matrix.shape[0])
            assert np.median(degree) >= neighbours and degree.max() > neighbours
