"""The assembler on arrays across questions (``assemble_questions``) against its rule for one
question (``assemble``), through public names: the same picks, ranks, words and cuts."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab import LabCache, LabConfig, build_corpus, explain, load_collection
from lab.assemble import (
    FIRST_LOOK,
    NEAR_DUPLICATE,
    OVER_BUDGET,
    assemble,
    assemble_questions,
    first_looks,
    passed_over,
    picked_ranks,
    term_counts,
    the_cuts,
)
from lab.generate import generate_corpus
from lab.metrics import EvidenceSpans, verdicts
from lab.retrieval import PLAIN_CELLS, Retrieval
from lab.retrieve import Ranking

ROOT = Path(__file__).resolve().parent.parent


def both_ways(scores, words, tokens, budgets, keys=None):
    """Per budget, per question: (picked, positions, cut, words) by the array path and by the
    rule for one question."""
    terms = term_counts(tokens)
    key_array = None if keys is None else np.asarray(keys)
    looks = first_looks(scores, words)
    out = []
    every = assemble_questions(scores, words, terms, budgets, key_array, looks=looks)
    for budget, picks in zip(budgets, every, strict=True):
        ranks = picked_ranks(scores, picks)
        cuts = the_cuts(scores, words, looks, picks, ranks, budget)
        for j, row in enumerate(scores):
            mine = picks.rows == j
            got = (
                tuple(picks.chunks[mine].tolist()),
                tuple(ranks[mine].tolist()),
                int(cuts[j]),
                int(picks.used[j]),
            )
            rule = assemble(Ranking(row, row), words, tokens, budget, keys=keys)
            out.append((got, (rule.picked, rule.positions, rule.cut, rule.words)))
    return out


@st.composite
def retrievals(draw):
    """Chunks (words, token ids, delivery keys or none), questions' scores (ties and zeros
    among them), budgets; sometimes more chunks than a first look."""
    n = draw(st.integers(1, 3 * FIRST_LOOK))
    q = draw(st.integers(1, 6))
    words = np.array(draw(st.lists(st.integers(1, 60), min_size=n, max_size=n)))
    tokens = draw(st.lists(st.lists(st.integers(0, 25), max_size=12), min_size=n, max_size=n))
    keys = draw(st.none() | st.lists(st.integers(0, 5), min_size=n, max_size=n))
    cells = st.lists(st.integers(0, 6), min_size=n, max_size=n)
    scores = np.array(draw(st.lists(cells, min_size=q, max_size=q)), dtype=float) / 2
    budgets = sorted(draw(st.sets(st.integers(1, 400), min_size=1, max_size=6)))
    return scores, words, tokens, keys, budgets


@settings(max_examples=300, deadline=None)
@given(retrievals())
def test_assembling_all_questions_at_once_follows_the_rule_for_each(drawn):
    scores, words, tokens, keys, budgets = drawn
    for got, rule in both_ways(scores, words, tokens, budgets, keys):
        assert got == rule


def test_a_short_chunk_far_down_a_long_ranking_is_found_past_the_first_look():
    # 40 chunks of 50 words rank first, then one of 5 words: budget 60 takes the first long one
    # and, past the first look, the short one (position 40); the cut comes after it.
    words = np.array([50] * 40 + [5])
    tokens = [[k] for k in range(41)]
    scores = np.arange(41, 0, -1, dtype=float)[None, :]
    [(got, rule)] = both_ways(scores, words, tokens, [60])
    assert got == rule == ((0, 40), (0, 40), 41, 55)


def test_a_near_duplicate_that_would_exactly_fill_the_budget_is_passed_over_as_one():
    # Chunk 1 repeats chunk 0's tokens and has exactly the 10 words left of 20: it fits, and is
    # skipped for being old news. One word longer, it would be over budget.
    context = assemble(np.array([0, 1]), np.array([10, 10]), [[1, 2, 3], [1, 2, 3]], 20)
    assert (context.picked, context.cut, context.words) == ((0,), 2, 10)
    assert context.skipped == {1: NEAR_DUPLICATE}
    assert passed_over(10, None, [10], [], 20) == NEAR_DUPLICATE
    assert passed_over(11, None, [10], [], 20) == OVER_BUDGET
    assert passed_over(10, 4, [10], [4], 20) == "already delivered"


def test_verdicts_by_hand():
    # Question 0 has spans 0 (held by chunk 3) and 1 (chunks 4, 5); question 1 span 2 (chunk 3);
    # question 2 has no span. Question 0 picked 5, question 1 picked 4.
    spans = EvidenceSpans(3, np.array([0, 0, 1]), np.array([0, 1, 1, 2]), np.array([3, 4, 5, 3]))
    partial, complete = verdicts(spans, np.array([0, 1]), np.array([5, 4]))
    assert partial.tolist() == [True, False, False]
    assert complete.tolist() == [False, False, True]


def generated():
    text, qe = generate_corpus(60_000, 40)
    return build_corpus({"generated": text}, qe)


@pytest.mark.parametrize("mode", ["flat", "graph"])
@pytest.mark.parametrize("chunker", ["sentence", "structure", "parent-child"])
def test_results_on_arrays_equal_each_question_explained_alone(handbook, chunker, mode):
    for corpus in (handbook, generated()):
        index = LabCache().index(corpus, LabConfig(split="all", size=250), chunker)
        retrieval = Retrieval.of(index, corpus.questions, mode, by_question=False)
        for budget in (40, 120, 400):
            results = retrieval.evaluate(budget)
            for q, result in zip(corpus.questions, results, strict=True):
                assert explain(index, q, mode, budget).result == result


TECHNOVA = "data/technova/collection.json"


@pytest.mark.parametrize("mode", ["flat", "graph"])
@pytest.mark.parametrize("chunker", ["fixed", "structure", "qes-greedy", "parent-child"])
def test_question_by_question_and_on_arrays_give_the_same_results(handbook, chunker, mode):
    """The one switch (``Retrieval.by_question``; by default the small retrievals go question by
    question): the same results, metrics and kept budgets either way, with filters and
    parent-child's delivery keys, at budgets from nothing fits to everything fits."""
    technova = load_collection(ROOT / TECHNOVA)
    for corpus in (handbook, technova, generated()):
        index = LabCache().index(corpus, LabConfig(split="all", size=250), chunker)
        plain, arrays = (
            Retrieval.of(index, corpus.questions, mode, by_question=by) for by in (True, False)
        )
        assert plain.by_question_at(5) and not arrays.by_question_at(1)
        budgets = [10, 40, 120, 400, 5000]
        assert plain.metrics_at(budgets) == arrays.metrics_at(budgets)
        for budget in budgets:
            assert plain.evaluate(budget) == arrays.evaluate(budget)


def test_small_retrievals_go_question_by_question_and_large_ones_on_arrays(handbook):
    index = LabCache().index(handbook, LabConfig(split="all"), "structure")
    assert len(handbook.questions) * len(index.chunks) <= PLAIN_CELLS
    small = Retrieval.of(index, handbook.questions, "flat")
    assert small.by_question_at(1) and not small.by_question_at(5)  # a sweep's budgets: arrays
    big = generated()
    index = LabCache().index(big, LabConfig(split="all", size=250), "structure")
    assert len(big.questions) * len(index.chunks) > PLAIN_CELLS
    assert not Retrieval.of(index, big.questions, "flat").by_question_at(1)
