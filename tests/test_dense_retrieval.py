"""Dense, hybrid, hybrid-seeded graph, late chunking and reranking through the engine."""

import numpy as np
import pytest

from lab import MODES, LabCache, LabConfig, build_index, explain, run_lab
from lab.embed import DenseUnavailable, dense_status
from lab.retrieve import rank, reciprocal_rank_fusion, top

DENSE = "all-MiniLM-L6-v2"
needs_model = pytest.mark.skipif(not dense_status()[0], reason=dense_status()[1])


class ShortestFirst:
    """A stand-in cross-encoder: prefers shorter texts (deterministic, no model)."""

    def score(self, query, texts):
        return np.array([-float(len(t)) for t in texts])


def test_dense_settings_are_required_by_what_needs_them(handbook):
    with pytest.raises(ValueError, match="dense, hybrid need"):
        LabConfig(modes=MODES)
    with pytest.raises(ValueError, match="semantic need"):
        LabConfig(chunkers=("semantic",))
    with pytest.raises(ValueError, match="late chunking need"):
        LabConfig(late=True)
    with pytest.raises(DenseUnavailable, match="semantic chunker needs an embedding model"):
        build_index(handbook, "semantic", 450)
    with pytest.raises(DenseUnavailable, match="dense retrieval needs an embedding model"):
        rank(build_index(handbook, "structure", 450), handbook.questions, "dense")


def test_reranker_reorders_only_the_head(handbook):
    index = build_index(handbook, "structure", 450)
    q = handbook.questions[0]
    plain = rank(index, [q], "flat")[0]
    reranked = rank(index, [q], "flat", reranker=ShortestFirst(), rerank_top=5)[0]
    head = plain.head(5)
    lengths = [len(index.chunks[k].search_text) for k in head]
    assert reranked.head(5).tolist() == [int(head[i]) for i in np.argsort(lengths, kind="stable")]
    assert reranked.order[5:].tolist() == plain.order[5:].tolist()
    assert reranked.rank_by("rerank", int(head[int(np.argmin(lengths))])) == 1
    assert reranked.rank_by("rerank", int(plain.order[6])) is None  # below the reranked head


@needs_model
def test_every_mode_runs_and_complete_never_exceeds_partial(handbook):
    result = run_lab(handbook, LabConfig(modes=MODES, dense=DENSE))
    assert {(r.chunker, r.mode) for r in result.runs} >= {("structure", m) for m in MODES}
    for run in result.runs:
        assert run.metrics.complete <= run.metrics.partial
        assert all(q.words <= 120 for q in run.questions)


@needs_model
def test_dense_retrieval_bridges_the_vocabulary_gap(handbook):
    """Keyword search cannot match "8-year-old" to "children under 10"; MiniLM can."""
    result = run_lab(handbook, LabConfig(chunkers=("structure",), modes=MODES, dense=DENSE))
    verdict = {r.mode: next(q for q in r.questions if q.id == "q08").complete for r in result.runs}
    assert verdict["dense"] and not verdict["flat"]


@needs_model
def test_hybrid_fuses_bm25_and_dense_ranks(handbook):
    index = LabCache().index(handbook, LabConfig(dense=DENSE), "structure")
    q = next(q for q in handbook.questions if q.id == "q07")
    hybrid = rank(index, [q], "hybrid")[0]
    assert np.allclose(hybrid.fused, reciprocal_rank_fusion(hybrid.bm25, hybrid.dense))
    assert np.allclose(hybrid.score, hybrid.fused)
    dense = rank(index, [q], "dense")[0]
    assert np.allclose(dense.score, index.vectors @ index.embedder.encode([q.question])[0])


@needs_model
def test_graph_mode_is_seeded_from_hybrid_when_dense_is_on(handbook):
    index = LabCache().index(handbook, LabConfig(dense=DENSE), "structure")
    q = next(q for q in handbook.questions if q.id == "q07")
    graph = rank(index, [q], "graph")[0]
    assert graph.seeds == tuple(top(graph.fused, 3).tolist())
    frame = explain(index, q, "hybrid", 120).frame()
    assert {"bm25 rank", "dense rank", "fused rank"} <= set(frame.columns)


@needs_model
def test_late_chunking_pools_vectors_in_context(handbook):
    plain = LabCache().index(handbook, LabConfig(dense=DENSE), "structure")
    late = LabCache().index(handbook, LabConfig(dense=DENSE, late=True), "structure")
    assert late.vectors.shape == plain.vectors.shape
    assert np.allclose(np.linalg.norm(late.vectors, axis=1), 1, atol=1e-5)
    similarity = np.sum(late.vectors * plain.vectors, axis=1)
    assert (similarity < 0.999).any() and (similarity > 0.3).all()
    result = run_lab(
        handbook, LabConfig(chunkers=("structure",), modes=("dense",), dense=DENSE, late=True)
    )
    assert result.runs[0].metrics.partial > 0


@needs_model
def test_semantic_chunker_runs_end_to_end(handbook):
    result = run_lab(
        handbook, LabConfig(chunkers=("semantic",), modes=("flat", "hybrid"), dense=DENSE)
    )
    assert all(r.index.max_chars <= 450 for r in result.runs)
    assert all(r.metrics.complete <= r.metrics.partial for r in result.runs)
