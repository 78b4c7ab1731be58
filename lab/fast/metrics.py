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
    # every (question, chunk holding one of its spans) pair once, by question, then chunk
    pairs = np.unique(spans.question[spans.holder_span] * n + spans.holder_chunk)
    question, chunk = np.divmod(pairs, max(n, 1))
    holding = np.bincount(question, minlength=q)
    top = max(KS)
    head = order[:, :top]
    keys = (np.arange(q)[:, None] * n + head).ravel()
    found = np.searchsorted(pairs, keys).clip(max=max(len(pairs) - 1, 0))
    hits = (pairs[found] == keys).reshape(head.shape) if len(pairs) else np.zeros(head.shape, bool)
    hits &= np.arange(head.shape[1]) < shown[:, None]
    recall, precision = {}, {}
    for k in KS:
        within = np.count_nonzero(hits[:, :k], axis=1)
        recall[k] = np.divide(within, holding, out=np.zeros(q), where=holding > 0, dtype=np.float64)
        precision[k] = within / k
    reciprocal = np.zeros(q)
    score = scores[question, chunk]
    offered = score > 0
    question, chunk, score = question[offered], chunk[offered], score[offered]
    # per question its best-ranked holder: the highest score, then the lowest index
    first = np.lexsort((chunk, -score, question))
    firsts = first[np.r_[True, np.diff(question[first]) != 0]] if len(first) else first
    asked, best, s = question[firsts], chunk[firsts], score[firsts]
    look = order[asked] == best[:, None]
    seen = look.any(axis=1) & (look.argmax(axis=1) < shown[asked])
    position = np.where(seen, look.argmax(axis=1), 0)
    past = np.flatnonzero(~seen)  # ranked past the first look: counted
    for lo in range(0, len(past), ROWS):
        rows = past[lo : lo + ROWS]
        block, at = scores[asked[rows]], s[rows][:, None]
        position[rows] = np.count_nonzero(block > at, axis=1) + np.count_nonzero(
            (block == at) & (np.arange(n) < best[rows][:, None]), axis=1
        )
    reciprocal[asked] = 1 / (position + 1)
    return (
        q,
        {k: sum(recall[k].tolist()) / q for k in KS},
        {k: sum(precision[k].tolist()) / q for k in KS},
        sum(reciprocal.tolist()) / q,
    )
