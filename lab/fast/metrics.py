"""The ranking metrics' fast path: ``lab.metrics.ranking_means`` of ``rank_questions`` for every
question of a retrieval at once, from its questions x chunks scores, first looks and evidence
holders as arrays (no record per question), float for float."""

from __future__ import annotations

import numpy as np

from ..metrics import KS, EvidenceSpans, RankingMeans, ranking_means

ROWS = 64  # questions whose best holders are ranked together (their rows read while in cache)


def ranking_means_of_scores(
    scores: np.ndarray, order: np.ndarray, shown: np.ndarray, spans: EvidenceSpans
) -> RankingMeans:
    """``ranking_means(rank_questions(...))`` for the rows of ``scores`` (questions x chunks; a
    chunk with a positive score is offered), each row's first chunks in rank order ``order[j,
    :shown[j]]`` (at least ``max(KS)`` unless all it offers) and the chunks holding each evidence
    span (``spans``): recall@k and precision@k over the chunks holding some span of a question,
    and the reciprocal rank of its best-ranked one."""
    q, n = scores.shape
    if q == 0:
        return ranking_means([])
    relevant = np.zeros((q, n), dtype=bool)
    relevant[spans.question[spans.holder_span], spans.holder_chunk] = True
    holding = np.count_nonzero(relevant, axis=1)
    top = max(KS)
    head = order[:, :top]
    hits = np.zeros(head.shape, dtype=bool)
    if n:
        hits = relevant[np.arange(q)[:, None], head] & (np.arange(head.shape[1]) < shown[:, None])
    recall, precision = {}, {}
    for k in KS:
        within = np.count_nonzero(hits[:, :k], axis=1)
        recall[k] = np.divide(within, holding, out=np.zeros(q), where=holding > 0, dtype=np.float64)
        precision[k] = within / k
    reciprocal = np.zeros(q)
    for lo in range(0, q, ROWS):
        block, held = scores[lo : lo + ROWS], relevant[lo : lo + ROWS]
        offered = held & (block > 0)
        has = np.flatnonzero(offered.any(axis=1))
        if not len(has):
            continue
        block, offered = block[has], offered[has]
        best = np.where(offered, block, -np.inf).max(axis=1)[:, None]
        chunk = (offered & (block == best)).argmax(axis=1)  # ties: the lowest index first
        position = np.count_nonzero(block > best, axis=1) + np.count_nonzero(
            (block == best) & (np.arange(n) < chunk[:, None]), axis=1
        )
        reciprocal[lo + has] = 1 / (position + 1)
    return (
        q,
        {k: sum(recall[k].tolist()) / q for k in KS},
        {k: sum(precision[k].tolist()) / q for k in KS},
        sum(reciprocal.tolist()) / q,
    )
