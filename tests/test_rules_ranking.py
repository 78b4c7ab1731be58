"""The ranking metrics' plain rule (``ranking_means`` of ``rank_questions``, question by question)
and their fast path on arrays (``lab.metrics.ranking_means_of_scores``) give the same means,
float for float, reached through their public names."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab import build_corpus, build_index, load_collection
from lab.assemble import first_looks
from lab.generate import generate_corpus
from lab.metrics import (
    aggregate,
    evidence_spans,
    question_holders,
    rank_questions,
    ranking_means,
    ranking_means_of_scores,
)
from lab.retrieval import Retrieval
from lab.retrieve import Ranking

TECHNOVA = Path(__file__).resolve().parent.parent / "data" / "technova" / "collection.json"


def both(index, questions, rankings):
    """The plain means and the fast ones of ``rankings`` (one per question)."""
    scores = np.stack([r.score for r in rankings])
    looks = first_looks(scores, index.words)
    heads = [row[:m] for row, m in zip(looks.order.tolist(), looks.shown.tolist(), strict=True)]
    whole = (looks.shown == looks.offered).tolist()
    plain = ranking_means(rank_questions(index, questions, rankings, heads, whole))
    spans = evidence_spans(question_holders(index, questions))
    return plain, ranking_means_of_scores(scores, looks.order, looks.shown, spans)


@pytest.fixture(scope="module")
def generated():
    text, qe = generate_corpus(60_000, 60)
    return build_corpus({"generated": text}, qe)


@pytest.mark.parametrize("chunker", ["fixed", "sentence", "structure", "qes-dp", "qes-greedy"])
@pytest.mark.parametrize("mode", ["flat", "graph"])
def test_fast_ranking_means_are_the_plain_rule_on_the_handbook(handbook, chunker, mode):
    index = build_index(handbook, chunker, 250)
    retrieval = Retrieval.of(index, handbook.questions, mode)
    plain, fast = both(index, retrieval.questions, retrieval.rankings)
    assert fast == plain
    assert 0 < plain[3] < 1  # some question finds its evidence first, some does not


@pytest.mark.parametrize("mode", ["flat", "graph"])
def test_fast_ranking_means_are_the_plain_rule_on_a_generated_corpus_and_a_collection(
    generated, mode
):
    for corpus in (generated, load_collection(TECHNOVA)):
        index = build_index(corpus, "sentence", 350)
        retrieval = Retrieval.of(index, corpus.questions, mode)
        plain, fast = both(index, retrieval.questions, retrieval.rankings)
        assert fast == plain


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 5, 40]), st.floats(0.0, 0.9))
def test_fast_ranking_means_are_the_plain_rule_with_ties_and_few_offered(
    generated, seed, levels, off
):
    """Scores with a few levels (many ties) and many chunks not offered: long ties, whole looks,
    questions none of whose holders is offered."""
    index = build_index(generated, "fixed", 250)
    rng = np.random.default_rng(seed)
    questions = generated.questions
    rankings = []
    for _ in questions:
        score = rng.integers(0, levels + 1, len(index.chunks)).astype(float)
        score[rng.random(len(score)) < off] = 0.0
        rankings.append(Ranking(score, score))
    plain, fast = both(index, questions, rankings)
    assert fast == plain


def test_a_retrievals_metrics_are_the_means_of_its_results(handbook):
    index = build_index(handbook, "structure", 350)
    retrieval = Retrieval.of(index, handbook.questions, "graph")
    for budget in (40, 120, 400):
        assert retrieval.metrics(budget) == aggregate(retrieval.evaluate(budget))


def test_ranking_means_of_no_questions_are_zero(handbook):
    index = build_index(handbook, "fixed", 250)
    spans = evidence_spans([])
    empty = np.zeros((0, len(index.chunks)))
    looks = first_looks(empty, index.words)
    means = ranking_means_of_scores(empty, looks.order, looks.shown, spans)
    assert means == (0, dict.fromkeys((1, 3, 5, 10), 0.0), dict.fromkeys((1, 3, 5, 10), 0.0), 0.0)
