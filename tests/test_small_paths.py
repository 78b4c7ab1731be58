"""The small-input paths of index and graph building against the general ones, bit for bit: the
structural edges in plain Python against their array steps, distinct pairs marked in a table
against a sort, the summed graph matrix and BM25's matrices from SciPy's kernels against
``scipy.sparse``'s constructors, and one-block rare shares against the blocked product."""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given
from hypothesis import strategies as st
from samples import corpora

import lab.bm25 as bm25_module
import lab.graph as graph_module
from lab import build_index, load_collection
from lab.bm25 import BM25

TECHNOVA = Path(__file__).resolve().parent.parent / "data" / "technova" / "collection.json"
CHUNKERS = ["fixed", "sentence", "structure", "qes-dp", "qes-greedy", "parent-child"]


def same_array(got: np.ndarray, want: np.ndarray) -> bool:
    return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def same_csr(got: sp.csr_matrix, want: sp.csr_matrix) -> bool:
    return (
        type(got) is type(want)
        and got.shape == want.shape
        and same_array(got.indptr, want.indptr)
        and same_array(got.indices, want.indices)
        and same_array(got.data, want.data)
        and got.has_sorted_indices == want.has_sorted_indices
        and got.has_canonical_format == want.has_canonical_format
    )


# --- structural edges: plain Python on small graphs, array steps on large ones ----------------


def assert_structures_agree(index, resolve_refs):
    chunks, documents = index.chunks, index.corpus.documents
    want = graph_module._structure(chunks, documents, resolve_refs)
    got = graph_module._small_structure(chunks, documents, resolve_refs)
    for kind, a, b in zip(("adjacency", "hierarchy", "xref"), got, want, strict=True):
        assert same_array(a, b), kind
    return want


@pytest.mark.parametrize("chunker", CHUNKERS)
@pytest.mark.parametrize("size", [120, 450])
def test_small_structure_is_the_array_steps_on_the_handbook(handbook, chunker, size):
    index = build_index(handbook, chunker, size)
    adjacency, hierarchy, xref = assert_structures_agree(index, True)
    assert len(adjacency) == len(index.chunks) - 1  # one document: every neighbour pair
    assert len(hierarchy) and len(xref)
    assert not len(assert_structures_agree(index, False)[2])


@pytest.mark.parametrize("chunker", ["sentence", "structure", "by-type"])
def test_small_structure_is_the_array_steps_on_a_collection(chunker):
    corpus = load_collection(TECHNOVA)
    index = build_index(corpus, chunker, 350)
    adjacency, _, _ = assert_structures_agree(index, True)
    # chunks of different documents are never neighbours
    assert len(adjacency) == len(index.chunks) - len(corpus.documents)


@given(corpora(), st.sampled_from(["fixed", "structure", "qes-greedy"]), st.booleans())
def test_small_structure_is_the_array_steps_on_generated_documents(corpus, chunker, refs):
    assert_structures_agree(build_index(corpus, chunker, 120), refs)


def test_small_structure_by_hand():
    # chunk 0 touches provision 0 (section A); 1 touches 0 and 1 (A); 2 touches 2 (B) and
    # cites 0; 3 is in the second document, touches its provision 0 and cites provision 2 of
    # that document, which it does not have.
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
    adjacency, hierarchy, xref = graph_module._small_structure(chunks, documents, True)
    n = 4
    assert adjacency.tolist() == [0 * n + 1, 1 * n + 2]
    # 1 -> first holder of provision 0 (chunk 0); provision 1's first holder (1) -> its
    # section's first chunk (0); provision 2 of section B starts its own section
    assert hierarchy.tolist() == [0 * n + 1]
    assert xref.tolist() == [0 * n + 2, 1 * n + 2]
    want = graph_module._structure(chunks, documents, True)
    assert all(same_array(a, b) for a, b in zip((adjacency, hierarchy, xref), want, strict=True))


# --- distinct pairs: a table of marks or a sort -----------------------------------------------


@given(
    st.integers(1, 40),
    st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=120),
)
def test_pair_keys_marked_in_a_table_are_the_sorted_distinct_keys(n, pairs):
    i = np.array([a % n for a, _ in pairs], dtype=np.int64)
    j = np.array([b % n for _, b in pairs], dtype=np.int64)
    old = graph_module.PAIR_MARKS
    try:
        graph_module.PAIR_MARKS = 0
        sorted_keys = graph_module._pair_keys(i, j, n)
        graph_module.PAIR_MARKS = 1 << 16
        marked = graph_module._pair_keys(i, j, n)
    finally:
        graph_module.PAIR_MARKS = old
    assert same_array(marked, sorted_keys)
    reduced = [(a % n, b % n) for a, b in pairs]
    want = sorted({min(a, b) * n + max(a, b) for a, b in reduced if a != b})
    assert marked.tolist() == want


# --- the graph matrix: SciPy's kernels on our arrays, or its constructor ----------------------


@given(st.integers(0, 30), st.integers(0, 400), st.integers(0, 2**32 - 1))
@example(20, 400, 1)  # rows of more than 16 entries: SciPy's sort is not stable there
@example(1, 40, 2)  # one chunk, every entry a duplicate
def test_summed_matrix_is_scipys_construction(n, m, seed):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, max(n, 1), m) if n else np.zeros(0, dtype=np.int64)
    cols = rng.integers(0, max(n, 1), m) if n else np.zeros(0, dtype=np.int64)
    # weights that add up differently in different orders
    data = rng.choice([1.0, 0.3, 0.1 * rng.random(), 0.5 * rng.random()], size=len(rows))
    want = sp.csr_matrix((data, (rows, cols)), shape=(n, n))
    got = graph_module._summed_csr(data, rows, cols, n)
    assert same_csr(got, want)


def test_summed_matrix_of_sorted_rows_with_duplicates_is_not_sorted_again():
    # canonical but for a duplicate: SciPy sums it without sorting (a sort may swap the two)
    rows = np.array([0, 0, 0, 1, 1], dtype=np.int64)
    cols = np.array([0, 1, 1, 0, 1], dtype=np.int64)
    data = np.array([1.0, 0.3, 0.1, 1.0, 0.5])
    got = graph_module._summed_csr(data, rows, cols, 2)
    assert got.toarray().tolist() == [[1.0, 0.4], [1.0, 0.5]]
    assert same_csr(got, sp.csr_matrix((data, (rows, cols)), shape=(2, 2)))


def graphs_both_ways(index, monkeypatch):
    """The index's graph by the small paths and by the general ones."""
    args = (index.chunks, index.corpus.documents, index.bm25.matrix, True)
    with monkeypatch.context() as m:
        m.setattr(graph_module, "SMALL_STRUCTURE", 0)
        m.setattr(graph_module, "PAIR_MARKS", 0)
        m.setattr(graph_module, "LEXICAL_ROW_BLOCK", 1)
        m.setattr(graph_module, "coo_tocsr", None)
        general = graph_module.build_graph(*args)
    with monkeypatch.context() as m:
        m.setattr(graph_module, "SMALL_STRUCTURE", 10**6)
        m.setattr(graph_module, "PAIR_MARKS", 1 << 30)
        m.setattr(graph_module, "LEXICAL_ROW_BLOCK", 10**6)
        small = graph_module.build_graph(*args)
    return small, general


def assert_same_graph(small, general):
    assert list(small.edges) == list(general.edges) == ["adjacency", "hierarchy", "lexical", "xref"]
    for kind in general.edges:
        for a, b in zip(small.edges[kind], general.edges[kind], strict=True):
            assert same_array(a, b), kind
    assert same_csr(small.matrix, general.matrix)


@pytest.mark.parametrize("chunker", CHUNKERS)
def test_small_graph_is_the_general_graph_on_the_handbook(monkeypatch, handbook, chunker):
    small, general = graphs_both_ways(build_index(handbook, chunker, 250), monkeypatch)
    assert_same_graph(small, general)
    assert all(len(e[0]) for e in general.edges.values())  # every kind of edge is there


def test_small_graph_is_the_general_graph_on_a_collection(monkeypatch):
    index = build_index(load_collection(TECHNOVA), "structure", 350)
    assert_same_graph(*graphs_both_ways(index, monkeypatch))


@given(corpora())
def test_small_graph_is_the_general_graph_on_generated_documents(corpus):
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert_same_graph(*graphs_both_ways(build_index(corpus, "structure", 120), monkeypatch))


# --- BM25's matrices ----------------------------------------------------------------------------

WORDS = "abcdefghij"
documents = st.lists(st.lists(st.sampled_from(WORDS), max_size=9), max_size=40)


def scipy_matrices(docs, k1=1.2, b=0.75):
    """BM25's weight matrix as first written: ``sp.csr_matrix((weights, (rows, cols)))`` of the
    sorted distinct (document, term) pairs, and its ``.T.tocsr()``."""
    vocab = {t: i for i, t in enumerate(dict.fromkeys(t for d in docs for t in d))}
    n_docs, n_terms = len(docs), len(vocab)
    lengths = np.array([len(d) for d in docs], dtype=np.int64)
    flat = np.array([vocab[t] for d in docs for t in d], dtype=np.int64)
    pairs, tf = np.unique(
        np.repeat(np.arange(n_docs), lengths) * n_terms + flat, return_counts=True
    )
    rows, cols = pairs // max(n_terms, 1), pairs % max(n_terms, 1)
    tf = tf.astype(float)
    df = np.bincount(cols, minlength=n_terms).astype(float)
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    avgdl = lengths.mean() if n_docs and lengths.mean() > 0 else 1.0
    norm = k1 * (1 - b + b * lengths[rows] / avgdl)
    weights = idf[cols] * tf * (k1 + 1) / (tf + norm)
    matrix = sp.csr_matrix((weights, (rows, cols)), shape=(n_docs, n_terms))
    return matrix, matrix.T.tocsr()


@pytest.mark.parametrize("kernels", [True, False], ids=["kernel", "public"])
@given(docs=documents)
@example(docs=[])
@example(docs=[[], []])
@example(docs=[["a", "a", "b"], [], ["b", "c", "a", "a"]])
def test_bm25_matrices_are_scipys_construction(kernels, docs):
    with pytest.MonkeyPatch.context() as monkeypatch:
        if not kernels:
            monkeypatch.setattr(bm25_module, "csr_tocsc", None)
        bm25 = BM25(docs)
    matrix, by_term = scipy_matrices(docs)
    assert same_csr(bm25.matrix, matrix)
    assert same_csr(bm25._by_term, by_term)


@given(st.lists(st.integers(0, 50), max_size=80), st.sampled_from([0, 7, 10**6]), st.booleans())
def test_distinct_counts_are_uniques(keys, spread, few_repeats):
    keys = np.array([k * spread + k for k in keys], dtype=np.int64)  # dense or far apart
    got, counts = bm25_module._distinct_counts(keys, few_repeats=few_repeats)
    want, want_counts = np.unique(keys, return_counts=True)
    assert same_array(got, want) and same_array(counts, want_counts)


# --- the PageRank walk and the rankings ---------------------------------------------------------


def test_walk_is_the_transition_in_float32(monkeypatch, handbook):
    rng = np.random.default_rng(3)
    graphs = [graphs_both_ways(build_index(handbook, "structure", 250), monkeypatch)[0]]
    for n in (1, 6, 40):
        upper = sp.triu(sp.random(n, n, density=0.2, random_state=rng, format="csr"), k=1)
        upper.data = 0.1 + upper.data
        graphs.append(graph_module.ChunkGraph(n, {}, sp.csr_matrix(upper + upper.T)))
    for graph in graphs:
        walk, dangling = graph.transition()
        fast, sinks = graph._walk
        assert same_array(fast.indptr, walk.indptr) and same_array(fast.indices, walk.indices)
        assert same_array(fast.data, walk.data.astype(np.float32))
        assert same_array(sinks, np.flatnonzero(dangling))
        assert np.allclose(walk.sum(axis=0)[0, ~dangling], 1.0)  # column-stochastic


def test_fast_ranking_is_the_dataclass(handbook):
    import dataclasses

    from lab.retrieve import Ranking, _ranking

    score, bm25 = np.array([0.0, 2.0, 1.0, 2.0]), np.array([0.0, 1.0, 3.0, 1.0])
    for args in [(score, bm25, None, (), None, None), (score, bm25, bm25 * 2, (1, 2), bm25, score)]:
        want, got = Ranking(*args), _ranking(*args)
        assert type(got) is Ranking
        assert vars(got) == vars(want)  # the same fields, rerank and allowed None
        assert got.order.tolist() == [1, 3, 2] and got.offered == 3
        with pytest.raises(dataclasses.FrozenInstanceError):
            got.score = bm25
        assert dataclasses.replace(got, allowed=(0,)).allowed == (0,)


# --- tokens: each new word learned once ---------------------------------------------------------


@given(
    st.lists(
        st.sampled_from(["the", "Rules", "rule", "a", "x", "pets", "pet's", "Coming"]), max_size=30
    ),
    st.lists(st.sampled_from(["rules", "the", "coming", "pets"]), max_size=4),
)
def test_tokens_with_some_words_known_are_the_plain_tokens(words, known):
    from lab import text as text_module

    text = " ".join(words)
    plain = [
        text_module.stem(w)
        for w in text.lower().replace("'", "").split()
        if len(w) > 1 and w not in text_module.STOP_WORDS
    ]
    text_module._KNOWN.clear()
    for word in known:  # what earlier texts taught
        text_module._KNOWN[word] = text_module.stem(word) if word != "the" else ""
    assert text_module.tokenize(text) == plain
    assert set(text.lower().replace("'", "").split()) <= set(text_module._KNOWN)
    assert text_module.tokenize(text) == plain  # now every word is known


def test_tokens_past_the_word_cache_limit_keep_every_word(monkeypatch):
    from lab import text as text_module

    monkeypatch.setattr(text_module, "KNOWN_WORDS", 4)
    text_module._KNOWN.clear()
    assert text_module.tokenize("alpha beta gamma") == ["alpha", "beta", "gamma"]
    # two new words overflow the cache: it starts afresh with all five of this text
    assert text_module.tokenize("gamma alpha delta epsilon rules") == [
        "gamma", "alpha", "delta", "epsilon", "rul",
    ]  # fmt: skip
    assert sorted(text_module._KNOWN) == ["alpha", "delta", "epsilon", "gamma", "rules"]
    text_module._KNOWN.clear()
