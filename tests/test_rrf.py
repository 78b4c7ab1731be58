"""Reciprocal Rank Fusion against the hand-computed pairing-question table of the seed article."""

import numpy as np
import pytest

from lab.retrieve import Ranking, reciprocal_rank_fusion

# Chunks 0..3 are the article's rows; 4..9 fill the other BM25 and vector ranks.
BM25_RANK = {0: 1, 1: 2, 2: 6, 3: 9, 4: 3, 5: 4, 6: 5, 7: 7, 8: 8}
VECTOR_RANK = {0: 2, 1: 4, 2: 1, 3: 3, 4: 5, 5: 6, 6: 7, 7: 8, 8: 9}
EXPECTED = {0: 1 / 61 + 1 / 62, 1: 1 / 62 + 1 / 64, 2: 1 / 66 + 1 / 61, 3: 1 / 69 + 1 / 63}


def scores_from_ranks(ranks: dict[int, int], n: int = 10) -> np.ndarray:
    score = np.zeros(n)
    for chunk, rank in ranks.items():
        score[chunk] = 100.0 - rank
    return score


def test_rrf_reproduces_the_articles_table():
    fused = reciprocal_rank_fusion(scores_from_ranks(BM25_RANK), scores_from_ranks(VECTOR_RANK))
    for chunk, value in EXPECTED.items():
        assert fused[chunk] == pytest.approx(value)
    assert [round(fused[c], 4) for c in range(4)] == [0.0325, 0.0318, 0.0315, 0.0304]


def test_fusion_moves_the_pairing_chunk_into_the_top_three():
    bm25, vector = scores_from_ranks(BM25_RANK), scores_from_ranks(VECTOR_RANK)
    fused = reciprocal_rank_fusion(bm25, vector)
    assert Ranking(vector, bm25).head(3).tolist() == [2, 0, 3]  # vector alone: pairing is 4th
    assert Ranking(fused, bm25).head(3).tolist() == [0, 1, 2]  # fused: pairing is 2nd


def test_a_chunk_absent_from_one_list_gets_only_the_other_lists_share():
    bm25 = np.array([3.0, 0.0, 1.0])
    vector = np.array([0.2, 0.9, -0.1])  # negative cosine: not in the vector list
    fused = reciprocal_rank_fusion(bm25, vector)
    assert fused.tolist() == pytest.approx([1 / 61 + 1 / 62, 1 / 61, 1 / 62])


def test_ranking_reports_each_signals_rank():
    bm25, vector = scores_from_ranks(BM25_RANK), scores_from_ranks(VECTOR_RANK)
    fused = reciprocal_rank_fusion(bm25, vector)
    ranking = Ranking(fused, bm25, dense=vector, fused=fused)
    assert [ranking.rank_by(kind, 1) for kind in ("bm25", "dense", "fused")] == [2, 4, 2]
    assert ranking.rank_by("dense", 9) is None  # never scored
    assert ranking.rank_by("rerank", 1) is None  # no reranker ran
