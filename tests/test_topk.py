"""Batch top-k against a full sort: the best ``k`` positive scores, best first, ties in index
order (SPEC 5, flat: "ties: document order"), for dense rows, sparse rows and BM25 queries."""

import numpy as np
import scipy.sparse as sp
from hypothesis import example, given
from hypothesis import strategies as st

from lab.bm25 import BM25
from lab.topk import _packed_order, _run_floor, best_first, top, top_csr, top_rows


def top_sparse_rows(matrix, k, floor=None):
    """``top_csr`` of a scipy CSR matrix."""
    return top_csr(matrix.indptr, matrix.indices, matrix.data, k, floor)


# Few distinct values, zeros and negatives among them: most rows have ties at the cut.
TIED_VALUES = [-1.5, 0.0, 0.0, 0.0, 0.25, 0.5, 0.5, 1.0, 2.0, 3.0, np.inf]


def full_sort(row, k: int) -> list[int]:
    """The oracle: every index with a positive score, by score (highest first) then index."""
    ranked = sorted((i for i, s in enumerate(row) if s > 0), key=lambda i: (-row[i], i))
    return ranked[:k]


@st.composite
def tied_matrices(draw, max_rows: int = 6, max_cols: int = 160):
    """Questions x chunks scores drawn from a few values (so ties abound), or from a wide range."""
    q, n = draw(st.integers(0, max_rows)), draw(st.integers(0, max_cols))
    if draw(st.booleans()):
        cells = st.sampled_from(TIED_VALUES)
    else:
        cells = st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=True)
    values = draw(st.lists(cells, min_size=q * n, max_size=q * n))
    return np.array(values, dtype=float).reshape(q, n)


@given(tied_matrices(), st.integers(0, 45))
@example(np.array([[0.0, 2.0, 1.0, 2.0, 3.0], [1.0, 1.0, 1.0, 1.0, 1.0]]), 3)
@example(np.tile([1.0, 0.5] * 60, (3, 1)), 10)  # 60 tied best scores, cut at 10: the first 10
@example(np.full((2, 200), 5e-324), 1)  # the least positive float still counts as positive
def test_top_rows_matches_a_full_sort_ties_in_index_order(scores, k):
    expected = [full_sort(row.tolist(), k) for row in scores]
    assert [t.tolist() for t in top_rows(scores, k)] == expected
    assert [top(row, k).tolist() for row in scores] == expected
    assert [t.tolist() for t in top_rows(scores.astype(np.float32), k)] == [
        full_sort(row.tolist(), k) for row in scores.astype(np.float32)
    ]


def test_top_rows_finds_the_best_scores_after_the_last_whole_round_of_the_floors_sets():
    """The floor's sets take every 4k-th entry up to the last whole round: a row's best scores in
    the entries after it (in no set) are still found, first."""
    k = 3
    n = 4 * k * 5 + 7  # seven entries after the last whole round
    scores = np.zeros((3, n))
    scores[0, -7:] = [9.0, 8.0, 0.0, 7.0, 0.0, 6.5, 6.0]  # the best ones, all in the tail
    scores[0, :20] = 1.0
    scores[1, -1] = 0.5  # the only positive score is the last entry
    scores[2, ::5] = 2.0  # ties everywhere, the tail's too: index order
    expected = [full_sort(row.tolist(), k) for row in scores]
    assert [t.tolist() for t in top_rows(scores, k)] == expected
    assert expected[0] == [n - 7, n - 6, n - 4] and expected[1] == [n - 1]


def test_top_rows_of_a_hand_made_matrix():
    scores = np.zeros((2, 100))
    scores[0, [7, 70, 40, 3]] = [2.0, 9.0, 2.0, 2.0]  # 9 first, then the 2s in index order
    scores[1, 50:] = 1.0  # all tied: the first five from 50
    assert [t.tolist() for t in top_rows(scores, 3)] == [[70, 3, 7], [50, 51, 52]]
    assert [t.tolist() for t in top_rows(scores, 5)] == [[70, 3, 7, 40], [50, 51, 52, 53, 54]]


@st.composite
def sparse_rows(draw):
    """A CSR matrix whose rows keep their entries in a shuffled column order (as a sparse
    product leaves them), explicit zeros and negatives included, and the same matrix dense."""
    dense = draw(tied_matrices(max_rows=6, max_cols=120))
    q, n = dense.shape
    stored = draw(st.lists(st.booleans(), min_size=q * n, max_size=q * n))
    stored = np.array(stored, dtype=bool).reshape(q, n)
    dense = np.where(stored, dense, 0.0)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    columns = [rng.permutation(np.flatnonzero(r)) for r in stored]
    indptr = np.cumsum([0, *map(len, columns)])
    indices = np.concatenate([np.zeros(0, dtype=np.int64), *columns])
    data = dense[np.repeat(np.arange(q), np.diff(indptr)), indices]
    return sp.csr_matrix((data, indices, indptr), shape=(q, n)), dense


@given(sparse_rows(), st.integers(0, 30))
def test_top_sparse_rows_match_a_full_sort_of_the_dense_rows(matrix_and_dense, k):
    matrix, dense = matrix_and_dense
    expected = [full_sort(row.tolist(), k) for row in dense]
    assert [t.tolist() for t in top_sparse_rows(matrix, k)] == expected


def test_top_sparse_rows_ignore_absent_entries_and_keep_index_order_on_ties():
    # Row 0 stores 5 entries in the order 9, 2, 4, 0, 7; three of them tie at 1.0.
    matrix = sp.csr_matrix(
        (
            [1.0, 1.0, 3.0, -2.0, 1.0, 0.5],
            [9, 2, 4, 0, 7, 5],
            [0, 5, 5, 6],
        ),
        shape=(3, 10),
    )
    assert [t.tolist() for t in top_sparse_rows(matrix, 3)] == [[4, 2, 7], [], [5]]
    assert [t.tolist() for t in top_sparse_rows(matrix, 9)] == [[4, 2, 7, 9], [], [5]]


def testbest_first_orders_huge_column_numbers_too():
    # Keys (row, rank, column) that no longer fit one 64-bit integer take the three-key sort.
    rows = np.array([0, 0, 0, 1])
    cols = np.array([2**61, 5, 2**60, 3])
    values = np.array([1.0, 1.0, 2.0, 4.0])
    assert [t.tolist() for t in best_first(rows, cols, values, 2, 2)] == [[2**60, 5], [3]]


@given(
    st.lists(st.lists(st.sampled_from("abcdef"), max_size=6), min_size=1, max_size=60),
    st.lists(st.lists(st.sampled_from("abcdefg"), max_size=4), max_size=12),
    st.integers(1, 12),
    st.sampled_from([1, 5, 256]),
)
def test_bm25_top_is_a_full_sort_of_its_scores(documents, queries, k, block):
    # Six words over up to 60 short documents: many documents tie on a query.
    bm25 = BM25(documents)
    scores = bm25.scores(queries)
    expected = [full_sort(row.tolist(), k) for row in scores]
    assert [t.tolist() for t in bm25.top(queries, k, block)] == expected


@given(tied_matrices(max_rows=4, max_cols=700), st.integers(1, 40), st.booleans())
@example(np.tile(np.r_[np.zeros(64), 1.0], (2, 10))[:, :650], 5, False)  # every 65th entry
@example(np.tile(np.arange(1000.0) % 7, (3, 1)), 20, True)  # ties run over the tail columns
def test_wide_rows_match_a_full_sort(scores, k, transposed):
    # Rows many times wider than their runs, ties across run ends; a transposed (not C-ordered)
    # matrix is read the same.
    if transposed:
        scores = np.ascontiguousarray(scores.T).T
    expected = [full_sort(row.tolist(), k) for row in scores]
    assert [t.tolist() for t in top_rows(scores, k)] == expected


@given(sparse_rows(), st.integers(1, 30), st.sampled_from(["exact", "below", "positive"]))
def test_top_sparse_rows_with_a_callers_floor(matrix_and_dense, k, kind):
    # The floor a caller knows may be the k-th best score itself (ties at it kept), lower, or
    # none at all (a row's entries below it never matter).
    matrix, dense = matrix_and_dense
    expected = [full_sort(row.tolist(), k) for row in dense]
    kth = np.array([dense[i, e[-1]] if len(e) == k else 0.0 for i, e in enumerate(expected)])
    floor = {"exact": kth, "below": kth / 2, "positive": np.zeros(len(kth))}[kind]
    assert [t.tolist() for t in top_sparse_rows(matrix, k, floor)] == expected


def test_long_sparse_rows_take_a_second_floor_from_their_first_entries():
    # 300 entries per row, 3 rows, all above the caller's floor of 0: the second floor comes
    # from the first 64 left and the best 5 survive it, ties at 2.0 in column order.
    rng = np.random.default_rng(7)
    dense = rng.choice([0.5, 1.0, 2.0], size=(3, 300))
    dense[1, [250, 10, 299]] = [9.0, 9.0, 8.0]
    matrix = sp.csr_matrix(dense)
    expected = [full_sort(row.tolist(), 5) for row in dense]
    assert expected[1] == [10, 250, 299, *expected[1][3:]]
    assert [t.tolist() for t in top_sparse_rows(matrix, 5, np.zeros(3))] == expected


@st.composite
def long_sparse_rows(draw):
    """A CSR matrix of up to 4 rows holding up to 700 entries each (rows many times longer than
    4 k, so that the floor comes from runs of several entries), tie-heavy, in shuffled column
    order, with empty and short rows among them; and the same matrix dense."""
    q = draw(st.integers(1, 4))
    lengths = draw(st.lists(st.sampled_from([0, 3, 50, 333, 700]), min_size=q, max_size=q))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    values = rng.choice(TIED_VALUES[:-1], size=sum(lengths)) if draw(st.booleans()) else None
    if values is None:
        values = rng.uniform(-1.0, 10.0, size=sum(lengths))
    n = max(lengths)
    columns = [rng.permutation(n)[:length] for length in lengths]
    indptr = np.cumsum([0, *lengths])
    indices = np.concatenate([np.zeros(0, dtype=np.int64), *columns])
    dense = np.zeros((q, n))
    dense[np.repeat(np.arange(q), lengths), indices] = values
    return sp.csr_matrix((values, indices, indptr), shape=(q, n)), dense


@given(long_sparse_rows(), st.integers(1, 12), st.sampled_from(["none", "below", "exact"]))
@example(
    (
        sp.csr_matrix(np.tile(np.r_[np.zeros(15), 1.0], (2, 40))),
        np.tile(np.r_[np.zeros(15), 1.0], (2, 40)),
    ),
    3,
    "none",
)  # one positive entry per run of 16: every run maximum ties, cut at 3 in column order
def test_long_sparse_rows_match_a_full_sort(matrix_and_dense, k, kind):
    matrix, dense = matrix_and_dense
    expected = [full_sort(row.tolist(), k) for row in dense]
    kth = np.array([dense[i, e[-1]] if len(e) == k else 0.0 for i, e in enumerate(expected)])
    floor = {"none": None, "below": kth / 2, "exact": kth}[kind]
    assert [t.tolist() for t in top_sparse_rows(matrix, k, floor)] == expected


def test_run_floor_takes_runs_wholly_inside_a_row():
    # Two rows of 60 and 8 entries, k = 2: 4 k = 8 runs of 8 entries (8 is the least power of
    # two with 8 runs x 8 entries >= 34, the average row). Row 0 has 7 runs wholly inside it:
    # maxima 5 (run 0), 7 (run 1, which also holds the 6) and 4 (run 5), so its floor is 5,
    # below its true second best 6. Run 7 (entries 56-63) straddles both rows and holds row 1's
    # 9: it must not lift row 0's floor to 7. Row 1 has no run wholly inside: the least
    # positive float.
    data = np.zeros(68)
    data[[3, 12, 13, 40, 62]] = [5.0, 7.0, 6.0, 4.0, 9.0]
    indptr = np.array([0, 60, 68])
    assert _run_floor(indptr, data, 2).tolist() == [5.0, 5e-324]
    indices = np.r_[np.arange(60), np.arange(8)]
    assert [t.tolist() for t in top_csr(indptr, indices, data, 2)] == [[12, 13], [2]]


def oracle_best_first(rows, cols, values, q: int, k: int) -> list[list[int]]:
    """Per row, its columns by value (highest first), then column; the first k."""
    entries = sorted(zip(rows.tolist(), (-values).tolist(), cols.tolist(), strict=True))
    per_row: list[list[int]] = [[] for _ in range(q)]
    for row, _, col in entries:
        per_row[row].append(col)
    return [cols_of_row[:k] for cols_of_row in per_row]


def near_ties(dtype) -> list:
    """1, the floats just above and below it, 2, and (last three) values far apart."""
    one = dtype(1.0)
    return [one, np.nextafter(one, dtype(2)), np.nextafter(one, dtype(0)), dtype(2.0)] + [
        dtype(1e-30),
        dtype(1e30),
        dtype(np.inf),
    ]


@st.composite
def entries(draw):
    """Entries (row, column, positive value), each (row, column) once, values drawn from a few
    that lie one float apart and a few far apart (so that a packed sort key must drop bits),
    as float64 or (as top_rows may pass) float32."""
    q, n = draw(st.integers(1, 5)), draw(st.integers(1, 40))
    cells = draw(st.lists(st.booleans(), min_size=q * n, max_size=q * n))
    at = np.flatnonzero(cells)
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    pool = near_ties(dtype)[: draw(st.sampled_from([4, 7]))]
    values = np.array([draw(st.sampled_from(pool)) for _ in at], dtype=dtype)
    return at // n, at % n, values, q


@given(entries(), st.integers(1, 12))
def test_best_first_matches_a_full_sort_one_float_apart(case, k):
    rows, cols, values, q = case
    expected = oracle_best_first(rows, cols, values.astype(float), q, k)
    assert [t.tolist() for t in best_first(rows, cols, values, q, k)] == expected


def test_best_first_is_not_fooled_when_the_packed_key_merges_two_values():
    # Row 0 holds 1.0 at column 3 and the next float up at column 5: 5 comes first. Row 1 spans
    # 1e-300 .. 1e300, so the key keeps only the high bits of each value and puts 1.0 and its
    # neighbour in one slot, ordered by column (3 first); the check sees row 0's values rise
    # and the ranked sort decides.
    up = np.nextafter(1.0, 2.0)
    rows, cols = np.array([0, 0, 1, 1]), np.array([3, 5, 0, 1])
    values = np.array([1.0, up, 1e-300, 1e300])
    assert _packed_order(rows, cols, values, 2) is None
    assert [t.tolist() for t in best_first(rows, cols, values, 2, 2)] == [[5, 3], [1, 0]]
    # Without the far values the key keeps every bit: its order is taken as it is.
    order = _packed_order(rows[:2], cols[:2], values[:2], 1)
    assert order is not None and order.tolist() == [1, 0]
