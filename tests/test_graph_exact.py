"""The chunk graph's fast paths against plain oracles, float for float: personalised PageRank
iterated a block of columns at a time against the dense iteration over every column at once, and
the lexical edges against the all-pairs cosine."""

import numpy as np
import pytest
import scipy.sparse as sp

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
     (200, 300, 20, 6), (90, 257, 1, 7), (300, 131, 0, 8)],
)  # fmt: skip
def test_blocked_pagerank_gives_the_dense_iterations_floats(n, q, sinks, seed):
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


def test_seeded_pagerank_of_no_chunks_or_no_questions_is_empty():
    rng = np.random.default_rng(0)
    none = np.zeros(0, dtype=np.int64)
    assert ChunkGraph(0, {}, sp.csr_matrix((0, 0))).seeded_pagerank(none, none, none, 3).shape == (
        3,
        0,
    )
    assert random_graph(rng, 5, 0.5, 0).seeded_pagerank(none, none, none, 0).shape == (0, 5)


def test_blend_is_the_spec_formula_row_by_row_with_unseeded_and_masked_rows_at_zero():
    rng = np.random.default_rng(3)
    first, mass = rng.random((150, 40)), rng.random((150, 40)) + 0.01
    seeded = rng.random(150) > 0.2
    mask = rng.random((150, 40)) > 0.3
    got = _blend(first, mass, seeded, mask)
    for j in range(150):
        want = 0.6 * first[j] / first[j].max() + 0.4 * mass[j] / mass[j].max()
        want = np.where(mask[j], want, 0.0) if seeded[j] else np.zeros(40)
        assert np.array_equal(got[j], want)
