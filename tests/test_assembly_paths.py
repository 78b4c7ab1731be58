"""The fast assembly and scoring paths against the plain rule: every budget of a sweep walked at
once, novelty read from token bit sets, looks shorter than the ranking, whole rankings sorted at
once on small indexes, ranking metrics read off a look, metrics counted without results."""

import pickle
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lab.assemble
import lab.retrieval
from lab import LabCache, LabConfig, build_corpus, run_lab
from lab.assemble import (
    MERGED,
    NEAR_DUPLICATE,
    OVER_BUDGET,
    Context,
    Look,
    look_ahead,
    offered_order,
    passed_over,
    token_marks,
    walk,
    walk_ranking,
)
from lab.generate import generate_corpus
from lab.metrics import KS, aggregate
from lab.retrieval import Retrieval, stacked_rows
from lab.retrieve import rank


def assemble_alone(order, words, tokens, budget, keys=None):
    """The assembler's rule at one budget over a whole ranking, one chunk at a time: stop where no
    chunk left could fit (the cut); skip a chunk whose delivery key is delivered, then one over
    the words left, then one less than 30% of whose tokens (with repeats) are new, unless nothing
    is taken yet; take the rest."""
    picks, skipped, seen, delivered, used = [], {}, set(), set(), 0
    for p, k in enumerate(order):
        if budget - used < min(words[j] for j in order[p:]):
            return tuple(picks), p, used, skipped
        if keys is not None and keys[k] in delivered:
            skipped[k] = MERGED
            continue
        if used + words[k] > budget:
            skipped[k] = OVER_BUDGET
            continue
        new = sum(1 for t in tokens[k] if t not in seen)
        if picks and new / max(1, len(tokens[k])) < 0.3:
            skipped[k] = NEAR_DUPLICATE
            continue
        picks.append(p)
        used += words[k]
        seen.update(tokens[k])
        if keys is not None:
            delivered.add(keys[k])
    return tuple(picks), len(order), used, skipped


@st.composite
def rankings(draw):
    """Chunks (words, token ids, delivery keys or none), a ranking of some of them, budgets."""
    n = draw(st.integers(1, 40))
    words = draw(st.lists(st.integers(1, 60), min_size=n, max_size=n))
    tokens = draw(st.lists(st.lists(st.integers(0, 25), max_size=12), min_size=n, max_size=n))
    keys = draw(st.none() | st.lists(st.integers(0, 5), min_size=n, max_size=n))
    order = draw(st.permutations(range(n)))[: draw(st.integers(0, n))]
    budgets = sorted(draw(st.sets(st.integers(1, 250), min_size=1, max_size=9)))
    return np.array(words), tokens, keys, list(order), budgets


@given(rankings())
def test_walking_all_budgets_at_once_gives_each_what_the_rule_gives_it_alone(drawn):
    words, tokens, keys, order, budgets = drawn
    look = Look.of(np.array(order, dtype=np.int64), None, words)
    outcomes = walk(look, budgets, token_marks(tokens), keys)
    for budget, outcome in zip(budgets, outcomes, strict=True):
        picks, cut, used, skipped = assemble_alone(order, words, tokens, budget, keys)
        assert outcome == (picks, cut, used)
        context = Context.of(look, outcome, budget, keys)
        assert context.picked == tuple(order[p] for p in picks)
        assert context.skipped == skipped


def test_a_near_duplicate_that_would_exactly_fill_the_budget_is_passed_over_as_one():
    # Chunk 1 repeats chunk 0's tokens and has exactly the 10 words left of 20: it fits, and is
    # skipped for being old news. One word longer, it would be over budget.
    words, tokens = np.array([10, 10]), [[1, 2, 3], [1, 2, 3]]
    look = Look.of(np.array([0, 1]), None, words)
    outcome = walk(look, [20], token_marks(tokens))[0]
    assert outcome == ((0,), 2, 10)
    context = Context.of(look, outcome, 20)
    assert context.skipped == {1: NEAR_DUPLICATE}
    assert context.decision(1, 1, 10) == NEAR_DUPLICATE
    assert passed_over(1, (0,), [0, 1], [10, 10], None, 20) == NEAR_DUPLICATE
    assert passed_over(1, (0,), [0, 1], [10, 11], None, 20) == OVER_BUDGET
    assert passed_over(1, (0,), [0, 1], [10, 10], [4, 4], 20) == MERGED  # same delivery key


@given(rankings(), st.integers(1, 3))
def test_runs_of_chunks_too_long_searched_in_windows_skip_what_the_rule_skips(drawn, scan):
    # With a scan of 1-3 chunks, every run of chunks too long for the words left is searched
    # in growing windows (the path long rankings take).
    words, tokens, keys, order, budgets = drawn
    look = Look.of(np.array(order, dtype=np.int64), None, words)
    saved, lab.assemble.SCAN = lab.assemble.SCAN, scan
    try:
        outcomes = walk(look, budgets, token_marks(tokens), keys)
    finally:
        lab.assemble.SCAN = saved
    for budget, outcome in zip(budgets, outcomes, strict=True):
        assert outcome == assemble_alone(order, words, tokens, budget, keys)[:3]


def test_a_window_search_stops_at_the_first_chunk_that_fits(monkeypatch):
    # 60 chunks of 100 words, then two of 5: at budget 50 the walk searches past the 60 (in
    # windows of 1, 4, 16, 64 with a scan of 1) and takes both short ones.
    monkeypatch.setattr(lab.assemble, "SCAN", 1)
    words = np.array([100] * 60 + [5, 5])
    look = Look.of(np.arange(62), None, words)
    marks = token_marks([[k] for k in range(62)])
    assert walk(look, [50, 400], marks) == [((60, 61), 62, 10), ((0, 1, 2, 3), 4, 400)]


@given(rankings(), st.integers(0, 40))
def test_a_partial_look_decides_as_the_whole_ranking_or_asks_for_more(drawn, shown):
    words, tokens, keys, order, budgets = drawn
    if shown >= len(order):
        return
    rest_min = int(min(words[k] for k in order[shown:]))
    look = Look.of(np.array(order[:shown], dtype=np.int64), rest_min, words)
    outcomes = walk(look, budgets, token_marks(tokens), keys)
    for budget, (picks, cut, used) in zip(budgets, outcomes, strict=True):
        whole = assemble_alone(order, words, tokens, budget, keys)
        if cut < shown:
            assert (picks, cut, used) == whole[:3]
        else:  # walked the whole look: the first `shown` decisions are the whole ranking's
            assert cut == shown
            assert picks == tuple(p for p in whole[0] if p < shown)


@given(
    st.lists(st.lists(st.integers(0, 30), max_size=15), min_size=1, max_size=12),
    st.data(),
)
def test_token_bit_sets_count_new_tokens_with_their_repeats(tokens, data):
    marks = token_marks(tokens)
    taken = data.draw(st.sets(st.integers(0, len(tokens) - 1)))
    seen_tokens = {t for k in taken for t in tokens[k]}
    seen = 0
    for k in taken:
        seen |= marks.cover[k]
    for k, chunk in enumerate(tokens):
        new = sum(c for t, c in Counter(chunk).items() if t not in seen_tokens)
        assert marks.lengths[k] - (marks.own[k] & seen).bit_count() == new


def test_token_bit_sets_by_hand():
    # Terms 7 (at most twice in a chunk) and 9 (once): bits 0-1 for 7, bit 2 for 9.
    marks = token_marks([[7, 7, 9], [9], []])
    assert marks.own == [0b111, 0b100, 0] and marks.cover == [0b111, 0b100, 0]
    assert marks.lengths == [3, 1, 0]
    assert (marks.own[0] & marks.cover[1]).bit_count() == 1  # chunk 1 seen: one token of 3 old


@pytest.fixture(scope="module")
def wide():
    """A generated corpus big enough that graph rankings offer hundreds of chunks."""
    text, qe = generate_corpus(60_000, 40, seed=3)
    return build_corpus({"generated": text}, qe)


def test_looking_ahead_gives_what_sorting_whole_rankings_gives(wide, monkeypatch):
    config = LabConfig(split="all", budget=300, chunkers=("sentence", "structure", "qes-greedy"))
    whole = run_lab(wide, config).to_dict()
    longer = []
    offered_order = lab.retrieval.offered_order

    def counted(score):
        longer.append(len(score))
        return offered_order(score)

    monkeypatch.setattr(lab.retrieval, "FULL_SORT", 0)
    monkeypatch.setattr(lab.retrieval, "offered_order", counted)
    assert run_lab(wide, config).to_dict() == whole
    assert longer  # some question's assembler walked past its first look


def test_walks_on_growing_looks_equal_walks_on_whole_rankings(wide):
    budgets = [5, 40, 80, 120, 300, 400, 2000]
    config = LabConfig(split="all", size=250)
    grew = 0
    for chunker in ("sentence", "structure", "qes-greedy"):
        index = LabCache().index(wide, config, chunker)
        marks, words = index.delivered_marks, index.words
        for mode in ("flat", "graph"):
            retrieval = Retrieval.of(index, wide.questions, mode)
            looks, walked = retrieval._walk(budgets)
            for ranking, look, outcomes in zip(retrieval.rankings, looks, walked, strict=True):
                order = np.argsort(-ranking.score, kind="stable")[: ranking.offered]
                whole = Look.of(order, None, words)
                expected = walk(whole, budgets, marks)
                assert [
                    ([look.ranked[p] for p in picks], cut, used) for picks, cut, used in outcomes
                ] == [([order[p] for p in picks], cut, used) for picks, cut, used in expected]
                assert look.ranked == order[: len(look.ranked)].tolist()
                grew += len(look.ranked) > 32
    assert grew  # some walks went past the first look


def test_ranking_metrics_read_off_a_look_equal_the_whole_rankings(wide, monkeypatch):
    monkeypatch.setattr(lab.retrieval, "FULL_SORT", 0)
    config = LabConfig(split="all", size=250)
    index = LabCache().index(wide, config, "sentence")
    deep = 0
    for mode in ("flat", "graph"):
        retrieval = Retrieval.of(index, wide.questions, mode)
        for q, ranking, ranked in zip(
            wide.questions, retrieval.rankings, retrieval.ranked, strict=True
        ):
            positions = ranking.positions()
            best = []
            for ev in q.evidence:
                offered = sorted((int(positions[k]), int(k)) for k in index.holding(ev))
                offered = [pair for pair in offered if pair[0] >= 0]
                best.append(offered[0] if offered else None)
                deep += bool(offered) and offered[0][0] >= 32
            relevant = {int(k) for ev in q.evidence for k in index.holding(ev)}
            ranks = sorted(int(positions[k]) for k in relevant if positions[k] >= 0)
            assert list(ranked.best) == best
            for k in KS:
                within = sum(1 for r in ranks if r < k)
                assert ranked.recall_at[k] == (within / len(relevant) if relevant else 0.0)
                assert ranked.precision_at[k] == within / k
            assert ranked.reciprocal_rank == (1 / (ranks[0] + 1) if ranks else 0.0)
    assert deep  # some evidence ranked past the first look: its rank was counted


def test_metrics_of_many_budgets_at_once_equal_each_budgets_results_aggregated(handbook):
    config = LabConfig(split="all", chunkers=("fixed", "structure", "qes-greedy"))
    budgets = [40, 80, 120, 300, 1000]
    cache = LabCache()
    for chunker in config.chunkers:
        index = cache.index(handbook, config, chunker)
        for mode in config.modes:
            together = Retrieval.of(index, handbook.questions, mode).metrics_at(budgets)
            for budget, metrics in zip(budgets, together, strict=True):
                alone = Retrieval.of(index, handbook.questions, mode)
                assert metrics == aggregate(alone.evaluate(budget))


@given(
    st.lists(
        st.one_of(
            st.sampled_from([0.0, -0.0, -1.0, 0.5, 1.0, 2.0, 5e-324, np.inf, np.nan]),
            st.floats(-1, 3, allow_nan=False),
        ),
        max_size=60,
    )
)
def test_offered_order_is_the_stable_sort_of_positive_scores(values):
    score = np.array(values, dtype=float)
    expected = [k for k in np.argsort(-score, kind="stable").tolist() if score[k] > 0]
    assert offered_order(score).tolist() == expected


def test_rows_of_one_matrix_are_read_in_place_and_others_stacked():
    matrix = np.arange(12.0).reshape(3, 4)
    view = stacked_rows(list(matrix))
    assert np.shares_memory(view, matrix) and not view.flags.writeable
    assert view.tolist() == matrix.tolist()
    assert stacked_rows(list(matrix)[:2]).tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert stacked_rows([matrix[1], matrix[0], matrix[2]]) is None  # out of order
    assert stacked_rows([matrix[0], matrix[2]]) is None  # a row left out
    assert stacked_rows(list(matrix[:, :3])) is None  # rows not next to each other
    assert stacked_rows(list(matrix[:, ::2])) is None  # strided rows
    assert stacked_rows([matrix[0], matrix[1].copy()]) is None  # another array


def test_retrieval_scores_are_the_rankings_scores_whatever_their_memory(wide):
    index = LabCache().index(wide, LabConfig(split="all"), "sentence")
    for mode in ("flat", "graph"):
        retrieval = Retrieval.of(index, wide.questions, mode)
        expected = [r.score.tolist() for r in retrieval.rankings]
        assert retrieval.scores().tolist() == expected
        apart = Retrieval(index, mode, retrieval.questions, tuple(reversed(retrieval.rankings)))
        assert apart.scores().tolist() == expected[::-1]
        assert not apart.scores().flags.writeable


class LongestFirst:
    """A reranker that scores a chunk by its length: enough to move the head of a ranking."""

    def score(self, question, texts):
        return [len(text) for text in texts]


def test_the_matrix_ranking_leaves_holds_every_rankings_scores(wide):
    index = LabCache().index(wide, LabConfig(split="all"), "structure")
    questions = wide.questions
    filtered = [replace(q, filter=(("doc", ("none such",)),)) for q in questions[:3]] + list(
        questions
    )
    for mode, asked, reranker in [
        ("flat", questions, None),
        ("graph", questions, None),
        ("graph", filtered, None),  # filtered rows, and rows with no seed, in the blend
        ("flat", filtered, None),
        ("graph", questions, LongestFirst()),
    ]:
        retrieval = Retrieval.of(index, asked, mode, reranker=reranker)
        expected = [r.score.tolist() for r in retrieval.rankings]
        assert (retrieval.matrix is None) == (reranker is not None)
        assert retrieval.scores().tolist() == expected
        assert not retrieval.scores().flags.writeable
        assert [r.score.tolist() for r in rank(index, asked, mode, reranker=reranker)] == expected
        # pickled without the matrix: the rankings' rows are read instead, to the same results
        again = pickle.loads(pickle.dumps(retrieval))
        assert again.matrix is None and again.scores().tolist() == expected
        assert again.evaluate(120) == retrieval.evaluate(120)
    assert any(not r.seeds for r in Retrieval.of(index, filtered, "graph").rankings)


@pytest.mark.parametrize("rows", [1, 7, 128])
def test_first_looks_built_together_equal_each_rankings_own_look(wide, monkeypatch, rows):
    monkeypatch.setattr(lab.retrieval, "FULL_SORT", 0)
    monkeypatch.setattr(lab.retrieval, "LOOK_ROWS", rows)  # rankings whose looks are found together
    index = LabCache().index(wide, LabConfig(split="all"), "structure")
    partial = 0
    for mode in ("flat", "graph"):
        retrieval = Retrieval.of(index, wide.questions, mode)
        for ranking, look in zip(retrieval.rankings, retrieval.first_looks, strict=True):
            alone = look_ahead(ranking, index.words, 32)
            assert look[:4] == alone[:4]
            assert look.words.tolist() == alone.words.tolist()
            partial += not look.whole
    assert partial  # some rankings offer more than the first look


@given(rankings(), st.integers(1, 6))
def test_walking_a_whole_ranking_from_its_first_chunks_decides_as_walking_all_of_it(drawn, grown):
    words, tokens, keys, order, budgets = drawn
    order = np.array(order, dtype=np.int64)
    marks = token_marks(tokens)
    saved, lab.assemble.GROWN = lab.assemble.GROWN, grown
    try:
        look, outcomes = walk_ranking(order, words, budgets, marks, keys)
    finally:
        lab.assemble.GROWN = saved
    assert outcomes == walk(Look.of(order, None, words), budgets, marks, keys)
    assert look.ranked == order[: len(look.ranked)].tolist()
    assert look.whole == (len(look.ranked) == len(order))
    if not look.whole:
        assert len(look.ranked) == grown
        assert all(cut < grown for _, cut, _ in outcomes)
        alone = look_ahead_of(order, words, grown)
        assert look[:4] == alone[:4] and look.words.tolist() == alone.words.tolist()


def look_ahead_of(order, words, size):
    """The look of the first ``size`` chunks of ``order`` as the assembler builds it alone: the
    fewest words from each position on counting the chunks past it."""
    rest = int(words[order[size:]].min())
    return Look.of(order[:size], rest, words)


def ranked_fields(r):
    return (r.holders, r.best, list(r.recall_at.items()), list(r.precision_at.items()))


def test_questions_ranked_in_one_loop_equal_each_ranked_alone(wide, handbook, monkeypatch):
    from lab.metrics import rank_question, rank_questions

    deep = 0
    for corpus, full_sort in ((wide, 0), (wide, 64), (handbook, 64)):
        monkeypatch.setattr(lab.retrieval, "FULL_SORT", full_sort)
        config = LabConfig(split="all", size=250)
        for chunker in ("sentence", "structure", "parent-child"):
            index = LabCache().index(corpus, config, chunker)
            for mode in ("flat", "graph"):
                retrieval = Retrieval.of(index, corpus.questions, mode)
                together = rank_questions(
                    index, retrieval.questions, retrieval.rankings, retrieval.first_looks
                )
                for q, ranking, look, got in zip(
                    retrieval.questions,
                    retrieval.rankings,
                    retrieval.first_looks,
                    together,
                    strict=True,
                ):
                    alone = rank_question(index, q, ranking)  # its own look
                    assert ranked_fields(got) == ranked_fields(alone)
                    assert type(got.best) is tuple
                    assert got.reciprocal_rank == alone.reciprocal_rank
                    deep += any(b is not None and b[0] >= len(look.ranked) for b in got.best)
    assert deep  # some best holders ranked past a partial look were counted


def scored_both_ways(index, retrieval, budget):
    """Each question's outcome at ``budget`` with its result from ``score_questions`` (one loop)
    and from ``score_question`` (its own context)."""
    from lab.metrics import score_question, score_questions

    scored = retrieval._kept([budget])[0]
    parts = (retrieval.questions, retrieval.rankings, scored.looks, scored.outcomes)
    together = score_questions(index, *parts, budget, retrieval.ranked)
    for q, ranking, look, outcome, r, got in zip(*parts, retrieval.ranked, together, strict=True):
        context = Context.of(look, outcome, budget, index.delivery_keys)
        yield r, outcome, got, score_question(index, q, ranking, context)


def test_questions_scored_in_one_loop_equal_each_scored_alone(wide, handbook, monkeypatch):
    from lab import load_collection

    technova = load_collection("data/technova/collection.json")
    monkeypatch.setattr(lab.retrieval, "FULL_SORT", 0)
    diagnoses = Counter()
    for corpus in (wide, handbook, technova):
        config = LabConfig(split="all", size=250)
        for chunker in ("fixed", "structure", "parent-child"):
            index = LabCache().index(corpus, config, chunker)
            for mode in ("flat", "graph"):
                retrieval = Retrieval.of(index, corpus.questions, mode)
                for budget in (15, 60, 120, 400):
                    for _, _, got, alone in scored_both_ways(index, retrieval, budget):
                        assert got == alone and repr(got) == repr(alone)
                        diagnoses.update(e.diagnosis for e in got.evidence)
    # every way evidence can miss a context came up
    assert set(diagnoses) >= {
        None,
        "filtered out",
        "not intact",
        "over budget",
        "near-duplicate",
        "below the cut",
        "not ranked",
    }, diagnoses


def test_a_missed_holder_exactly_as_long_as_the_budget_is_below_the_cut_not_over_budget(handbook):
    config = LabConfig(split="all", size=250)
    boundary = Counter()
    for chunker in ("fixed", "sentence", "structure"):
        index = LabCache().index(handbook, config, chunker)
        retrieval = Retrieval.of(index, handbook.questions, "flat")
        # budgets equal to the length of some question's best-ranked holder
        budgets = sorted(
            {int(index.words[b[1]]) for r in retrieval.ranked for b in r.best if b is not None}
        )
        for budget in budgets:
            for r, (_, cut, _), got, alone in scored_both_ways(index, retrieval, budget):
                assert got == alone
                for ev, best in zip(got.evidence, r.best, strict=True):
                    past_cut = not ev.in_context and best and best[0] >= cut
                    if past_cut and int(index.words[best[1]]) == budget:
                        # it fits an empty budget exactly: passed over, not too long
                        assert ev.diagnosis == "below the cut"
                        boundary[chunker] += 1
    assert sum(boundary.values()) > 0, boundary
