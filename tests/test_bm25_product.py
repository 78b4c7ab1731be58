"""BM25's product (the weights kept by term) against a term-count matrix built by scipy.sparse
times the transposed weights, bit for bit, and BM25.top's floors against a full sort of those
scores."""

import numpy as np
import scipy.sparse as sp
from hypothesis import example, given
from hypothesis import strategies as st

from lab.bm25 import BM25

WORDS = "abcdefgh"  # few words, short documents: many documents score alike


def public_product(bm25: BM25, queries) -> np.ndarray:
    """Queries x documents the plain way: a term-count matrix built by scipy.sparse (unknown
    words dropped, repeats summed) times the transposed weights, made dense by SciPy."""
    rows, cols = [], []
    for i, query in enumerate(queries):
        for word in query:
            if word in bm25.vocab:
                rows.append(i)
                cols.append(bm25.vocab[word])
    counts = sp.csr_matrix(
        (np.ones(len(rows)), (rows, cols)), shape=(len(queries), len(bm25.vocab))
    )
    return (counts @ bm25.matrix.T.tocsr()).toarray()


def full_sort(row, k: int) -> list[int]:
    """Every index with a positive score, by score (highest first) then index; the first k."""
    return sorted((i for i, s in enumerate(row) if s > 0), key=lambda i: (-row[i], i))[:k]


documents = st.lists(st.lists(st.sampled_from(WORDS), max_size=7), max_size=120)
queries = st.lists(st.lists(st.sampled_from(WORDS + "xyz"), max_size=6), max_size=40)


@given(documents, queries, st.integers(1, 15), st.sampled_from([1, 7, 256]))
@example([["a", "b"], ["b"], ["a"], []], [["a", "a", "b"], ["x"], [], ["b", "a"]], 2, 1)
@example([["a"]] * 30 + [["a", "b"]] * 30, [["a"], ["b", "a", "b"]], 3, 256)  # 30-way ties
def test_scores_are_scipys_product_bit_for_bit_and_top_is_their_full_sort(
    documents, queries, k, block
):
    bm25 = BM25(documents)
    scores, top = bm25.scores(queries), bm25.top(queries, k, block)
    expected = public_product(bm25, queries)
    assert scores.shape == (len(queries), len(documents))
    assert scores.tobytes() == expected.tobytes()  # the same floats, bit for bit
    assert [t.tolist() for t in top] == [full_sort(row.tolist(), k) for row in expected]


def test_scores_of_a_hand_made_index():
    # Two documents, one word each twice or once: df(a) = 2, idf = ln(1 + 0.5 / 2.5) = ln 1.2.
    bm25 = BM25([["a", "a"], ["a"]], k1=1.2, b=0.0)
    idf = np.log(1.2)
    twice, once = idf * 2 * 2.2 / (2 + 1.2), idf * 1 * 2.2 / (1 + 1.2)
    np.testing.assert_allclose(
        bm25.scores([["a"], ["a", "a"], ["z"]]),
        [[twice, once], [2 * twice, 2 * once], [0.0, 0.0]],
        rtol=1e-15,
    )
    assert [t.tolist() for t in bm25.top([["a"], ["z"], []], 5)] == [[0, 1], [], []]


def test_empty_index_and_empty_questions():
    assert BM25([]).scores([["a"]]).shape == (1, 0)
    assert [t.tolist() for t in BM25([]).top([["a"]], 3)] == [[]]
    assert BM25([[], []]).scores([["a"], []]).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert BM25([["a"]]).top([], 3) == []
    assert [t.tolist() for t in BM25([["a"]]).top([["a"]], 0)] == [[]]


def test_many_documents_share_the_floor_of_a_frequent_word():
    # 400 documents, word "a" in all, at two lengths: 200 tie at the best score. The floor from
    # "a"'s 10th largest weight equals the best score itself; all tied documents reach it and
    # the first ten in document order are kept.
    documents = [["a", "b"] if i % 2 else ["a"] for i in range(400)]
    top = BM25(documents).top([["a"], ["b", "a"], ["b"]], 10)
    assert [t.tolist() for t in top] == [
        list(range(0, 20, 2)),
        list(range(1, 21, 2)),
        list(range(1, 21, 2)),
    ]
