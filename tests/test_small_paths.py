"""The index's own constructions against the plain ones, bit for bit: BM25's matrices against
``scipy.sparse``'s constructors, distinct counts against ``np.unique``, the PageRank walk against
the transition, the fast ranking record against the dataclass, tokens with a word cache against
plain tokens."""

from pathlib import Path

import numpy as np
import scipy.sparse as sp
from hypothesis import example, given
from hypothesis import strategies as st

import lab.bm25 as bm25_module
import lab.graph as graph_module
from lab import build_index
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


@given(docs=documents)
@example(docs=[])
@example(docs=[[], []])
@example(docs=[["a", "a", "b"], [], ["b", "c", "a", "a"]])
def test_bm25_matrices_are_scipys_construction(docs):
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


def test_walk_is_the_transition_in_float32(handbook):
    rng = np.random.default_rng(3)
    graphs = [build_index(handbook, "structure", 250).graph]
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
    vocabulary = text_module.Vocabulary()
    vocabulary.tokenize(" ".join(known))  # what earlier texts taught
    assert vocabulary.tokenize(text) == plain
    assert set(text.lower().replace("'", "").split()) <= set(vocabulary.known)
    assert vocabulary.tokenize(text) == plain  # now every word is known
    assert text_module.tokenize(text) == plain  # the tokenizer's own vocabulary


def test_tokens_past_the_vocabulary_limit_keep_every_word():
    from lab.text import Vocabulary

    vocabulary = Vocabulary(limit=4)
    assert vocabulary.tokenize("alpha beta gamma") == ["alpha", "beta", "gamma"]
    # two new words overflow the vocabulary: it starts afresh with all five of this text
    assert vocabulary.tokenize("gamma alpha delta epsilon rules") == [
        "gamma", "alpha", "delta", "epsilon", "rul",
    ]  # fmt: skip
    assert sorted(vocabulary.known) == ["alpha", "delta", "epsilon", "gamma", "rules"]
