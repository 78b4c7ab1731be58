"""Ranking metrics held to trec_eval's: recall@k, precision@k and MRR computed by ir-measures
(through pytrec_eval, trec_eval's own code) on the same rankings and the same relevance give
the lab's numbers (issue 21, item 19). A chunk is relevant to a question when it holds one of
its evidence spans whole; a run lists the chunks each ranking offered, best first."""

import pytest

from lab import LabConfig, build_index, explain, run_lab

ir_measures = pytest.importorskip(
    "ir_measures", reason="ir-measures is not installed: pip install -r requirements-dev.txt"
)
from ir_measures import RR, P, R  # noqa: E402 - after the skip

KS = (1, 3, 5, 10)
MEASURES = [*(R @ k for k in KS), *(P @ k for k in KS), RR]


def trec_inputs(index, questions, mode, budget):
    """Qrels (every chunk holding an evidence span, relevance 1) and a run (each ranking's
    chunks with descending scores, so trec_eval's order is the lab's), with the lab's own
    per-question results."""
    qrels, run, ours = [], [], {}
    for q in questions:
        ex = explain(index, q, mode, budget)
        ours[q.id] = ex.result
        relevant = {int(k) for ev in q.evidence for k in index.holding(ev)}
        qrels += [ir_measures.Qrel(q.id, index.chunks[k].id, 1) for k in sorted(relevant)]
        order = ex.ranking.order.tolist()
        run += [
            ir_measures.ScoredDoc(q.id, index.chunks[k].id, float(len(order) - p))
            for p, k in enumerate(order)
        ]
    return qrels, run, ours


@pytest.mark.parametrize("mode", ["flat", "graph"])
@pytest.mark.parametrize("chunker", ["fixed", "structure", "qes-greedy"])
def test_recall_precision_and_mrr_match_trec_eval(handbook, chunker, mode):
    questions = handbook.split("all")
    index = build_index(handbook, chunker, 450)
    qrels, run, ours = trec_inputs(index, questions, mode, 120)
    theirs = {}
    for m in ir_measures.iter_calc(MEASURES, qrels, run):
        theirs[m.query_id, str(m.measure)] = m.value
    judged = {qrel.query_id for qrel in qrels}
    assert len(judged) >= 20  # most questions have a chunk holding evidence
    for qid, result in ours.items():
        if qid not in judged:  # trec_eval skips a question nothing is relevant to; we count 0
            assert result.reciprocal_rank == 0 and not any(result.recall_at.values())
            continue
        for k in KS:
            assert result.recall_at[k] == pytest.approx(theirs[qid, f"R@{k}"], abs=1e-12)
            assert result.precision_at[k] == pytest.approx(theirs[qid, f"P@{k}"], abs=1e-12)
        assert result.reciprocal_rank == pytest.approx(theirs[qid, "RR"], abs=1e-12)


def test_the_run_means_are_trec_evals_over_every_question(handbook):
    """The lab's means are over every scored question, as trec_eval's with ``-c``."""
    config = LabConfig(chunkers=("structure",), modes=("flat",), split="all")
    metrics = run_lab(handbook, config).runs[0].metrics
    index = build_index(handbook, "structure", 450)
    qrels, run, _ = trec_inputs(index, handbook.split("all"), "flat", config.budget)
    per_query: dict[str, dict[str, float]] = {}
    for m in ir_measures.iter_calc(MEASURES, qrels, run):
        per_query.setdefault(str(m.measure), {})[m.query_id] = m.value
    n = len(handbook.split("all"))
    for k in KS:
        assert metrics.recall_at[k] == pytest.approx(sum(per_query[f"R@{k}"].values()) / n)
        assert metrics.precision_at[k] == pytest.approx(sum(per_query[f"P@{k}"].values()) / n)
    assert metrics.mrr == pytest.approx(sum(per_query["RR"].values()) / n)
