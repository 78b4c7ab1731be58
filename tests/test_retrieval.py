"""BM25 and personalised PageRank against naive oracles; the chunk graph; ranking; the assembler."""

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given
from hypothesis import strategies as st
from samples import corpora

from lab import build_corpus, build_index
from lab.assemble import assemble
from lab.bm25 import BM25
from lab.graph import ChunkGraph
from lab.retrieve import Ranking, rank, top_rows
from lab.text import tokenize

# The spec's numbers and names, written here so that a wrong constant in the code fails a test.
LEXICAL_WEIGHT = 0.5  # SPEC 5, graph: a lexical edge weighs 0.5 x cosine ...
LEXICAL_MIN_COSINE = 0.2  # ... when the cosine is at least 0.2
PICKED = "picked"
OVER_BUDGET = "over budget"  # SPEC 6's diagnoses of a missed evidence span
NEAR_DUPLICATE = "near-duplicate"
BELOW_CUT = "below the cut"

# --- BM25 -------------------------------------------------------------------------------------


def naive_bm25(documents, query, k1=1.2, b=0.75):
    """SPEC section 5, one document at a time: idf = ln(1 + (N - df + 0.5) / (df + 0.5))."""
    n = len(documents)
    avgdl = sum(map(len, documents)) / n
    scores = []
    for doc in documents:
        score = 0.0
        for term in query:
            df = sum(term in d for d in documents)
            if df == 0:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            tf = doc.count(term)
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        scores.append(score)
    return scores


def test_bm25_three_document_example_computed_by_hand():
    # rank_bm25's README corpus, tokenised the same way (split on spaces, case kept).
    corpus = ["Hello there good man!", "It is quite windy in London", "How is the weather today?"]
    bm25 = BM25([doc.split(" ") for doc in corpus])
    scores = bm25.scores([["windy", "London"]])[0]
    # Both terms: df = 1, N = 3 -> idf = ln(1 + 2.5 / 1.5) = ln(8/3) = 0.980829.
    # Document 2 has 6 tokens, avgdl = 5: 2.2 / (1 + 1.2 * (0.25 + 0.75 * 6/5)) = 2.2 / 2.38.
    expected = 2 * math.log(8 / 3) * 2.2 / 2.38
    assert expected == pytest.approx(1.813298, abs=1e-6)
    assert scores == pytest.approx([0.0, expected, 0.0])


def test_bm25_counts_repeated_query_terms_and_ignores_unknown_ones():
    bm25 = BM25([["comet", "dome"], ["dome", "dome", "lens"]])
    once = bm25.scores([["comet"]])[0]
    assert bm25.scores([["comet", "comet", "zebra"]])[0] == pytest.approx(2 * once)


def test_bm25_top_gives_each_query_its_best_documents_with_positive_scores():
    bm25 = BM25([["apple", "pear"], ["apple"], ["plum"], ["apple", "plum"]])
    queries = [["apple"], ["plum", "plum"], ["kiwi"], ["apple", "pear"]]
    # apple: the one-word document first, the two two-word ones tied (document order); plum:
    # the shorter document first; kiwi: nothing; apple pear: only document 0 has both.
    expected = [[1, 0, 3], [2, 3], [], [0, 1, 3]]
    for block in (1, 3, 128):  # scored a block of queries at a time: the same answers
        assert [t.tolist() for t in bm25.top(queries, 5, block)] == expected
    assert [t.tolist() for t in bm25.top(queries, 1)] == [[1], [2], [], [0]]


def test_bm25_rejects_bad_parameters():
    with pytest.raises(ValueError, match="k1 >= 0 and 0 <= b <= 1"):
        BM25([["a"]], b=1.5)


@given(
    st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=12), min_size=1, max_size=8),
    st.lists(st.lists(st.sampled_from("abcdefghij"), max_size=5), min_size=1, max_size=3),
)
def test_bm25_matches_the_naive_formula(documents, queries):
    with np.errstate(all="raise"):
        fast = BM25(documents).scores(queries)
    if sum(map(len, documents)) == 0:
        assert not fast.any()
        return
    expected = [naive_bm25(documents, q) for q in queries]
    np.testing.assert_allclose(fast, expected, rtol=1e-9, atol=1e-12)


def test_bm25_over_handbook_chunks_matches_the_naive_formula(handbook):
    index = build_index(handbook, "structure", 450)
    documents = [tokenize(c.text) for c in index.chunks]
    queries = [tokenize(q.question) for q in handbook.questions]
    expected = [naive_bm25(documents, q) for q in queries]
    np.testing.assert_allclose(index.bm25.scores(queries), expected, rtol=1e-9, atol=1e-12)


def test_bm25_of_empty_and_stop_word_only_documents_is_zero():
    with np.errstate(all="raise"):
        assert not BM25([[], []]).scores([["comet"]]).any()
        assert BM25([]).scores([["comet"]]).shape == (1, 0)
        assert BM25([["comet"]]).scores([]).shape == (0, 1)


# --- PageRank ---------------------------------------------------------------------------------


def networkx_pagerank(graph: ChunkGraph, restart: np.ndarray) -> np.ndarray:
    personalization = {k: float(v) for k, v in enumerate(restart) if v > 0}
    ranks = nx.pagerank(
        graph.to_networkx(),
        alpha=0.5,
        personalization=personalization,
        weight="weight",
        tol=1e-12,
        max_iter=1000,
    )
    return np.array([ranks[k] for k in range(graph.n)])


@pytest.mark.parametrize("chunker", ["sentence", "structure", "qes-greedy"])
@pytest.mark.parametrize("resolve_refs", [True, False])
def test_pagerank_matches_networkx_on_handbook_graphs(handbook, chunker, resolve_refs):
    index = build_index(handbook, chunker, 350, refs="delivered" if resolve_refs else "off")
    bm25 = index.bm25.scores([tokenize(q.question) for q in handbook.questions[:4]])
    restart = np.zeros((len(index.chunks), len(bm25)))
    for q, row in enumerate(bm25):
        top = np.argsort(-row, kind="stable")[:3]
        restart[top, q] = row[top] / row[top].sum()
    mass = index.graph.pagerank(restart)
    for q in range(len(bm25)):
        np.testing.assert_allclose(
            mass[:, q], networkx_pagerank(index.graph, restart[:, q]), atol=1e-6
        )


def small_graph(n, pairs, weights):
    rows = np.array([i for i, _ in pairs], dtype=np.int64)
    cols = np.array([j for _, j in pairs], dtype=np.int64)
    w = np.asarray(weights, dtype=float)
    upper = sp.csr_matrix((w, (rows, cols)), shape=(n, n))
    return ChunkGraph(n, {"adjacency": (rows, cols, w)}, sp.csr_matrix(upper + upper.T))


@pytest.mark.parametrize(
    "restart", [[0.5, 0.0, 0.0, 0.5, 0.0], [0.0, 0.2, 0.0, 0.0, 0.8], [1.0, 0, 0, 0, 0]]
)
def test_pagerank_with_a_dangling_chunk_matches_networkx(restart):
    # Chunks 0-1-2 form a path, 3 is joined to 1 only; chunk 4 has no edge at all.
    graph = small_graph(5, [(0, 1), (1, 2), (1, 3)], [1.0, 0.3, 0.8])
    restart = np.asarray(restart)
    mass = graph.pagerank(restart[:, None])[:, 0]
    np.testing.assert_allclose(mass, networkx_pagerank(graph, restart), atol=1e-6)
    assert mass.sum() == pytest.approx(1.0, abs=1e-6)


def test_pagerank_hand_checked_two_chunk_graph():
    # p = 0.5 p0 + 0.5 swap(p) with p0 = (1, 0): the fixed point is (2/3, 1/3).
    graph = small_graph(2, [(0, 1)], [1.0])
    mass = graph.pagerank(np.array([[1.0], [0.0]]))[:, 0]
    assert mass == pytest.approx([2 / 3, 1 / 3], abs=1e-6)


def test_pagerank_of_an_edgeless_graph_is_the_restart_vector():
    with np.errstate(all="raise"):
        graph = small_graph(3, [], [])
        restart = np.array([[0.25], [0.75], [0.0]])
        assert graph.pagerank(restart) == pytest.approx(restart)


# --- the chunk graph --------------------------------------------------------------------------

RULES = """\
## 1 Definitions

### 1.1 Dark window

A dark window is night time. It lasts an hour.

### 1.2 Torch

Torches are red. Use them as Section 1.1 says.
"""


def edge_set(graph, kind):
    rows, cols, weights = graph.edges[kind]
    return {(int(i), int(j)): float(w) for i, j, w in zip(rows, cols, weights, strict=True)}


def test_graph_edges_carry_their_type_weights():
    corpus = build_corpus({"rules": RULES}, None)
    graph = build_index(corpus, "structure", 450).graph
    assert edge_set(graph, "adjacency") == {(0, 1): 1.0}
    assert edge_set(graph, "hierarchy") == {(0, 1): 0.3}  # 1.2's first chunk -> section's first
    assert edge_set(graph, "xref") == {(0, 1): 1.0}  # 1.2 cites 1.1
    lexical = edge_set(graph, "lexical")[(0, 1)]
    assert 0.2 * 0.5 <= lexical <= 0.5  # 0.5 x a cosine between 0.2 and 1
    g = graph.to_networkx()
    assert g[0][1]["weight"] == pytest.approx(1.0 + 0.3 + 1.0 + lexical)
    assert graph.matrix[0, 1] == graph.matrix[1, 0] == pytest.approx(g[0][1]["weight"])


def test_reference_edges_need_resolve_refs():
    corpus = build_corpus({"rules": RULES}, None)
    graph = build_index(corpus, "structure", 450, refs="off").graph
    assert edge_set(graph, "xref") == {}
    assert set(edge_set(graph, "adjacency")) == {(0, 1)}


def test_hierarchy_links_chunks_of_one_provision_to_its_first_chunk():
    corpus = build_corpus({"rules": RULES}, None)
    graph = build_index(corpus, "structure", 30, overlap=0).graph  # every sentence its own chunk
    assert edge_set(graph, "hierarchy") == {(0, 1): 0.3, (2, 3): 0.3, (0, 2): 0.3}
    assert set(edge_set(graph, "adjacency")) == {(0, 1), (1, 2), (2, 3)}
    assert set(edge_set(graph, "xref")) == {(0, 3), (1, 3)}


def dense_lexical(matrix):
    dense = np.asarray(matrix.todense())
    norms = np.linalg.norm(dense, axis=1)
    unit = np.divide(dense, norms[:, None], out=np.zeros_like(dense), where=norms[:, None] > 0)
    cosine = unit @ unit.T
    return {
        (i, j): LEXICAL_WEIGHT * cosine[i, j]
        for i in range(len(dense))
        for j in range(i + 1, len(dense))
        if cosine[i, j] >= LEXICAL_MIN_COSINE - 1e-12
    }


# Five two-word chunks. Every chunk has the average length, so BM25's tf factor is 1 and a term's
# weight is its idf, ln(1 + (N - df + 0.5) / (df + 0.5)) with N = 5: ln 4 for a word in one chunk,
# ln 2.4 for "comet" (two chunks), ln(12/7) for "orbit" (three).
FIVE = "Comet dome. Comet lens. Orbit yard. Orbit kite. Orbit moth."


def test_lexical_edge_weight_is_half_the_hand_computed_cosine():
    index = build_index(build_corpus({"d": FIVE}, None), "sentence", 20, overlap=0)
    assert [c.text for c in index.chunks] == FIVE.replace(". ", ".|").split("|")
    # Chunks 0 and 1 share "comet": cosine = ln^2 2.4 / (ln^2 2.4 + ln^2 4) = 0.285108.
    cosine = math.log(2.4) ** 2 / (math.log(2.4) ** 2 + math.log(4) ** 2)
    assert cosine == pytest.approx(0.285108, abs=1e-6)
    lexical = edge_set(index.graph, "lexical")
    assert set(lexical) == {(0, 1)}
    assert lexical[(0, 1)] == pytest.approx(0.5 * 0.285108, abs=1e-6)


def test_no_lexical_edge_below_a_cosine_of_0_2():
    index = build_index(build_corpus({"d": FIVE}, None), "sentence", 20, overlap=0)
    # The "orbit" chunks 2, 3, 4 pairwise: ln^2(12/7) / (ln^2(12/7) + ln^2 4) = 0.131, which is
    # above 0.1 but under the 0.2 threshold: no edge between any two of them.
    cosine = math.log(12 / 7) ** 2 / (math.log(12 / 7) ** 2 + math.log(4) ** 2)
    assert cosine == pytest.approx(0.131317, abs=1e-6)
    assert not set(edge_set(index.graph, "lexical")) & {(2, 3), (2, 4), (3, 4)}


def assert_lexical_matches_all_pairs(index):
    got = edge_set(index.graph, "lexical")
    want = dense_lexical(index.bm25.matrix)
    assert set(got) == set(want)
    for pair, weight in want.items():
        assert got[pair] == pytest.approx(weight)


@pytest.mark.parametrize("chunker", ["fixed", "structure", "qes-dp"])
def test_lexical_edges_match_all_pairs_cosine_on_the_handbook(handbook, chunker):
    assert_lexical_matches_all_pairs(build_index(handbook, chunker, 250))


@given(corpora())
def test_lexical_edges_match_all_pairs_cosine_on_generated_documents(corpus):
    assert_lexical_matches_all_pairs(build_index(corpus, "sentence", 120))


# --- ranking ----------------------------------------------------------------------------------


TIES = (
    "Comet rules apply here tonight. Dome rules apply here tonight. "
    "Comet rules apply to visiting groups tonight."
)


def test_flat_ranking_offers_positive_scores_best_first_ties_in_document_order():
    corpus = build_corpus(
        {"d": TIES},
        [{"id": "q", "question": "rules", "evidence": ["Dome rules apply here tonight."]}],
    )
    index = build_index(corpus, "structure", 45, overlap=0)  # one sentence per chunk
    (ranking,) = rank(index, corpus.questions, "flat")
    assert len(index.chunks) == 3
    scores = ranking.score
    assert scores[0] == scores[1] > scores[2] > 0  # the longer chunk scores lower
    assert ranking.order.tolist() == [0, 1, 2]
    assert ranking.positions().tolist() == [0, 1, 2]


def test_top_rows_of_many_questions_at_once_keep_ties_in_document_order():
    scores = np.array(
        [
            [0.0, 2.0, 1.0, 2.0, 3.0],  # a tie at the cut: chunk 1 goes before chunk 3
            [1.0, 1.0, 1.0, 1.0, 1.0],  # all tied: the first three
            [0.0, 0.0, 0.5, 0.0, 0.0],  # one positive score: one chunk offered
            [0.0, -1.0, 0.0, 0.0, 0.0],  # nothing positive: nothing offered
        ]
    )
    assert [t.tolist() for t in top_rows(scores, 3)] == [[4, 1, 3], [0, 1, 2], [2], []]
    assert [t.tolist() for t in top_rows(scores, 2)] == [[4, 1], [0, 1], [2], []]
    assert [t.tolist() for t in top_rows(scores, 9)] == [[4, 1, 3, 2], [0, 1, 2, 3, 4], [2], []]
    assert top_rows(np.zeros((2, 0)), 3)[1].tolist() == []


def test_question_without_matching_words_offers_nothing():
    corpus = build_corpus(
        {"d": TIES},
        [{"id": "q", "question": "zebra?", "evidence": ["Dome rules apply here tonight."]}],
    )
    index = build_index(corpus, "structure", 45, overlap=0)
    with np.errstate(all="raise"):
        for mode in ("flat", "graph"):
            (ranking,) = rank(index, corpus.questions, mode)
            assert len(ranking.order) == 0 and not ranking.score.any()
            assert ranking.positions().tolist() == [-1, -1, -1]


def test_graph_score_blends_normalised_bm25_and_pagerank(handbook):
    index = build_index(handbook, "structure", 450)
    questions = handbook.questions[:5]
    flat = rank(index, questions, "flat")
    for f, g in zip(flat, rank(index, questions, "graph"), strict=True):
        top = [int(k) for k in np.argsort(-f.score, kind="stable")[:3] if f.score[k] > 0]
        assert list(g.seeds) == top
        expected = 0.6 * f.score / f.score.max() + 0.4 * g.pagerank / g.pagerank.max()
        assert g.score == pytest.approx(expected)
        assert (g.score[g.order] > 0).all()
        assert sorted(g.score[g.order].tolist(), reverse=True) == g.score[g.order].tolist()


def test_graph_mode_reuses_flat_modes_bm25_scores_of_the_same_questions(handbook):
    index = build_index(handbook, "fixed", 250)
    questions, others = handbook.questions[:6], handbook.questions[6:9]
    flat, graph = rank(index, questions, "flat"), rank(index, questions, "graph")
    other = rank(index, others, "flat")
    for f, g in zip(flat, graph, strict=True):
        assert np.shares_memory(f.bm25, g.bm25)
        assert not g.bm25.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            g.bm25[0] = 1.0
    for f, o in zip(flat[:3], other, strict=True):
        assert not np.shares_memory(f.bm25, o.bm25)
    want = index.bm25.scores([tokenize(q.question) for q in others])
    assert np.array_equal(np.array([o.bm25 for o in other]), want)


def test_graph_score_of_a_hand_computed_two_chunk_graph():
    # Only chunk 0 matches, so it is the one seed: restart (1, 0). Two chunks joined by one edge
    # give PageRank (2/3, 1/3) whatever its weight. Blended: 0.6 x 1 + 0.4 x 1 = 1 for chunk 0,
    # 0.6 x 0 + 0.4 x (1/3) / (2/3) = 0.2 for chunk 1, which graph mode now offers.
    corpus = build_corpus(
        {"d": "Comet rules apply. Dome talks end."},
        [{"id": "q", "question": "Where is the comet?", "evidence": ["Dome talks end."]}],
    )
    index = build_index(corpus, "sentence", 20, overlap=0)
    assert len(index.chunks) == 2
    (graph,) = rank(index, corpus.questions, "graph")
    assert graph.seeds == (0,)
    assert graph.pagerank == pytest.approx([2 / 3, 1 / 3], abs=1e-6)
    assert graph.score == pytest.approx([1.0, 0.2], abs=1e-6)


def test_pagerank_restarts_from_the_three_best_bm25_chunks_only():
    # Four one-sentence documents: no adjacency across documents, no hierarchy, and "comet", in
    # every chunk, is too common for a lexical edge. With no edges PageRank is its restart
    # vector: the three seeds' scores, normalised; the fourth chunk gets no mass.
    docs = {
        "a": "Comet dome.",
        "b": "Comet lens yard.",
        "c": "Comet kite moth orbit.",
        "d": "Comet pulsar quasar nebula zenith.",
    }
    qe = [{"id": "q", "question": "Where is the comet?", "evidence": ["Comet dome."], "doc": "a"}]
    corpus = build_corpus(docs, qe)
    index = build_index(corpus, "sentence", 40, overlap=0)
    assert sum(index.graph.edge_counts().values()) == 0
    (flat,) = rank(index, corpus.questions, "flat")
    (graph,) = rank(index, corpus.questions, "graph")
    s = flat.score
    assert s[0] > s[1] > s[2] > s[3] > 0  # shorter chunks score higher
    assert graph.seeds == (0, 1, 2)
    assert graph.pagerank == pytest.approx([*(s[:3] / s[:3].sum()), 0.0], abs=1e-6)
    # The fourth chunk's score is its BM25 share alone: 0.6 x s3 / s0.
    assert graph.score[3] == pytest.approx(0.6 * s[3] / s[0], abs=1e-6)


def test_four_letter_query_words_match_the_longer_forms_stemmed_to_them():
    # SPEC 5: only tokens longer than four characters lose a suffix. "sing" stays "sing", and
    # "singing" is stemmed to it; "rings" (five) becomes "ring", the query's four-letter word.
    corpus = build_corpus(
        {"d": "The choir is singing tonight. Bronze rings hang here. The dome opens late."},
        [
            {"id": "s", "question": "When do they sing?", "evidence": ["The dome opens late."]},
            {"id": "r", "question": "Where is the ring?", "evidence": ["The dome opens late."]},
        ],
    )
    index = build_index(corpus, "sentence", 30, overlap=0)
    assert len(index.chunks) == 3
    sing, ring = rank(index, corpus.questions, "flat")
    assert sing.order.tolist() == [0]
    assert ring.order.tolist() == [1]


def test_unknown_mode_names_the_allowed_ones(handbook):
    index = build_index(handbook, "fixed", 450)
    with pytest.raises(ValueError, match="choose one of flat, graph, dense, hybrid"):
        rank(index, handbook.questions, "sparse")


# --- the assembler ----------------------------------------------------------------------------


def tokens(*chunks):
    return [np.asarray(t, dtype=np.int64) for t in chunks]


DISTINCT = tokens(*(range(k, k + 10) for k in range(0, 50, 10)))


def test_overflowing_chunk_lets_smaller_one_in():
    context = assemble(np.array([0, 1]), np.array([50, 10]), DISTINCT, budget=30)
    assert context.picked == (1,)
    assert context.skipped == {0: OVER_BUDGET}
    assert context.words == 10


def test_near_duplicate_is_skipped():
    # Chunk 1 shares 8 of its 10 tokens with chunk 0: 20% new, under the 30% rule.
    chunks = tokens(range(10), [*range(8), 100, 101], range(50, 60))
    context = assemble(np.array([0, 1, 2]), np.array([5, 5, 5]), chunks, budget=100)
    assert context.picked == (0, 2)
    assert context.skipped == {1: NEAR_DUPLICATE}


def test_chunk_exactly_thirty_percent_new_is_taken():
    chunks = tokens(range(10), [*range(7), 100, 101, 102])
    assert assemble(np.array([0, 1]), np.array([5, 5]), chunks, budget=100).picked == (0, 1)


def test_novelty_threshold_lies_between_a_quarter_and_a_third_new():
    # Chunk 1 brings 1 new token of 4 (25%, under 30%): skipped. Chunk 2 brings 1 of 3 (33%): taken.
    chunks = tokens(range(6), [0, 1, 2, 100], [0, 1, 200])
    context = assemble(np.array([0, 1, 2]), np.array([5, 5, 5]), chunks, budget=100)
    assert context.picked == (0, 2)
    assert context.skipped == {1: NEAR_DUPLICATE}


def test_novelty_rule_does_not_apply_to_an_empty_context():
    chunks = tokens([], [1, 2])  # a chunk of stop words only has no new tokens at all
    context = assemble(np.array([0, 1]), np.array([3, 3]), chunks, budget=100)
    assert context.picked == (0, 1)


def test_chunks_below_the_cut_are_those_after_nothing_more_fits():
    context = assemble(np.array([0, 1, 2, 3]), np.array([10, 10, 10, 10]), DISTINCT, budget=20)
    assert context.picked == (0, 1) and context.words == 20
    assert context.cut == 2
    assert [context.decision(k, pos) for pos, k in enumerate([0, 1, 2, 3])] == [
        PICKED,
        PICKED,
        BELOW_CUT,
        BELOW_CUT,
    ]
    assert context.decision(3, -1) is None  # never offered


def test_skipped_for_space_then_cut_once_nothing_left_fits():
    # Budget 25: take 10, skip 20 (over budget), take 10; 5 words are left, and neither the 30
    # nor the 8 below can fit: the cut.
    words = np.array([10, 20, 10, 30, 8])
    context = assemble(np.arange(5), words, DISTINCT, budget=25)
    assert context.picked == (0, 2) and context.positions == (0, 2)
    assert context.skipped == {1: OVER_BUDGET}
    assert context.cut == 3
    assert context.decision(1, 1, 20) == OVER_BUDGET
    assert context.decision(4, 4, 8) == BELOW_CUT
    # Past the cut, a chunk longer than the whole budget could never have fitted.
    assert context.decision(3, 3, 30) == OVER_BUDGET


def test_nothing_offered_gives_an_empty_context():
    with np.errstate(all="raise"):
        context = assemble(np.array([], dtype=np.int64), np.array([5]), DISTINCT[:1], budget=10)
    assert (context.picked, context.skipped, context.cut, context.words) == ((), {}, 0, 0)


def assemble_by_the_rule(words, chunk_tokens, budget):
    """SPEC 5's assembler over chunks offered in index order, one at a time: skip a chunk that
    would pass the budget; skip one less than 30% of whose tokens are new to the context (a chunk
    without tokens adds nothing new), unless the context is empty; take the rest."""
    picked, over, duplicates, used, seen = [], set(), set(), 0, set()
    for k, (w, t) in enumerate(zip(words, chunk_tokens, strict=True)):
        if used + w > budget:
            over.add(k)
            continue
        new = sum(1 for x in t if x not in seen)
        if picked and (not t or 10 * new < 3 * len(t)):
            duplicates.add(k)
            continue
        picked.append(k)
        used += w
        seen.update(t)
    return tuple(picked), over, duplicates


@given(
    st.lists(
        st.tuples(st.integers(1, 40), st.lists(st.integers(0, 12), max_size=10)),
        min_size=1,
        max_size=12,
    ),
    st.integers(1, 120),
)
@example([(5, list(range(10))), (5, [*range(7), 100, 101, 102])], 100)  # 30% new: taken
@example([(5, list(range(10))), (5, [*range(8), 100, 101])], 100)  # 20% new: skipped
@example([(5, [1, 2, 3]), (5, [1, 2, 3, 4])], 100)  # 25% new: skipped
@example([(5, [1, 2]), (5, [1, 2, 3])], 100)  # a third new: taken
def test_assembler_follows_the_rule_one_chunk_at_a_time(chunks, budget):
    words = [w for w, _ in chunks]
    chunk_tokens = [t for _, t in chunks]
    context = assemble(np.arange(len(chunks)), np.array(words), tokens(*chunk_tokens), budget)
    picked, over, duplicates = assemble_by_the_rule(words, chunk_tokens, budget)
    assert context.picked == picked
    assert {k for k, why in context.skipped.items() if why == NEAR_DUPLICATE} == duplicates
    # Past the cut nothing fits any more: the rule skips those chunks for space too.
    assert {k for k, why in context.skipped.items() if why == OVER_BUDGET} <= over


@given(
    st.lists(
        st.tuples(st.integers(1, 60), st.lists(st.integers(0, 15), max_size=8)),
        min_size=1,
        max_size=12,
    ),
    st.integers(1, 120),
    st.randoms(use_true_random=False),
)
def test_assembler_never_exceeds_the_budget_and_accounts_for_every_offered_chunk(
    chunks, budget, rnd
):
    order = list(range(len(chunks)))
    rnd.shuffle(order)
    words = np.array([w for w, _ in chunks])
    context = assemble(np.array(order), words, tokens(*(t for _, t in chunks)), budget)
    assert context.words == sum(words[k] for k in context.picked) <= budget
    decided = set(context.picked) | set(context.skipped)
    assert decided == set(order[: context.cut])
    # Nothing below the cut would have fitted in the room left.
    assert all(words[k] > budget - context.words for k in order[context.cut :])


def test_graph_never_joins_consecutive_chunks_of_different_documents():
    docs = {
        "alpha": "Comet rules apply. Dome rules apply.",
        "beta": "Comet talks start. Dome talks end.",
    }
    corpus = build_corpus(docs, None)
    index = build_index(corpus, "sentence", 20, overlap=0)
    assert [c.doc for c in index.chunks] == [0, 0, 1, 1]
    assert set(edge_set(index.graph, "adjacency")) == {(0, 1), (2, 3)}


@st.composite
def rankings(draw):
    """Scores with ties and non-positive entries, and chunks of small random sizes."""
    n = draw(st.integers(1, 150))
    score = np.array(
        draw(
            st.lists(st.sampled_from([0.0, -1.0, 0.5, 1.0, 1.5, 2.25, 3.0]), min_size=n, max_size=n)
        )
    )
    score += np.array(draw(st.lists(st.sampled_from([0.0, 0.0, 1e-3]), min_size=n, max_size=n)))
    words = np.array(draw(st.lists(st.integers(1, 30), min_size=n, max_size=n)))
    chunk_tokens = draw(st.lists(st.lists(st.integers(0, 40), max_size=6), min_size=n, max_size=n))
    return Ranking(score, score), words, chunk_tokens


@given(rankings())
def test_ranking_order_head_and_positions_agree_with_a_full_sort(drawn):
    ranking, _, _ = drawn
    full = [int(k) for k in np.argsort(-ranking.score, kind="stable") if ranking.score[k] > 0]
    assert ranking.order.tolist() == full
    assert ranking.head(5).tolist() == full[:5]
    positions = ranking.positions()
    assert [ranking.position(k) for k in range(len(ranking.score))] == positions.tolist()


@given(rankings(), st.integers(1, 600))
def test_assembling_a_ranking_lazily_equals_assembling_its_full_order(drawn, budget):
    ranking, words, chunk_tokens = drawn
    lazy = assemble(ranking, words, chunk_tokens, budget)
    full = assemble(ranking.order, words, chunk_tokens, budget)
    assert (lazy.picked, lazy.skipped, lazy.cut, lazy.words, lazy.positions) == (
        full.picked,
        full.skipped,
        full.cut,
        full.words,
        full.positions,
    )
    order = ranking.order.tolist()
    for pos, k in enumerate(order):
        assert lazy.decision(k, pos, int(words[k])) == full.decision(k, pos, int(words[k]))
