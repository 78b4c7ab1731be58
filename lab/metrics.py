"""Score assembled contexts: partial and complete evidence recall, ranking metrics, index
statistics, and a diagnosis for every evidence span that missed the context."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .assemble import BELOW_CUT, OVER_BUDGET, Context, passed_over
from .corpus import Question
from .diagnosis import did_not_fit, note
from .index import Index
from .retrieve import Ranking
from .stats import wilson_interval

KS = (1, 3, 5, 10)  # rank_questions counts ranks below these as written

FILTERED_OUT = "filtered out"
NOT_INTACT = "not intact"
NOT_RANKED = "not ranked"
DIAGNOSES = (FILTERED_OUT, NOT_INTACT, NOT_RANKED, "over budget", "near-duplicate", "below the cut")
EXPLAIN = {
    FILTERED_OUT: "the question's metadata filter left its document out of retrieval",
    NOT_INTACT: "no chunk holds this evidence whole: the chunker cut it apart",
    NOT_RANKED: "the chunks holding it never scored for this question",
    "over budget": "a chunk holding it was offered but did not fit the words left in the budget",
    "near-duplicate": "a chunk holding it was skipped as a near-duplicate of the context",
    "below the cut": "a chunk holding it was ranked after the assembler stopped: it, like every "
    "chunk after it, had more words than were left",
}


@dataclass(frozen=True, slots=True)
class Pick:
    """A chunk in the context: its id, rank, words, and source ranges in document ``doc``."""

    chunk: str
    rank: int
    words: int
    source: tuple[tuple[int, int], ...]
    doc: str = ""
    tokens: int | None = None  # with a tokenizer, the tokens it delivers


@dataclass(frozen=True, slots=True)
class EvidenceResult:
    """One evidence span ``[start, end)`` of document ``doc``: in the context, or why not."""

    span: tuple[int, int]
    in_context: bool
    diagnosis: str | None
    rank: int | None  # rank of the best-ranked chunk holding it, if any was offered
    doc: str = ""
    detail: str | None = None  # why that chunk was passed over, in numbers (``diagnosis.note``)
    # Evidence that accepts any occurrence: every place it occurs, ``(doc, start, end)``; a
    # context holding one holds it. Empty: only ``span`` counts.
    occurrences: tuple[tuple[str, int, int], ...] = ()


def occurrence_dict(e: EvidenceResult, context: Sequence[Pick]) -> dict:
    """Evidence that accepts any occurrence, as JSON: ``"occurrence": "any"`` and every place it
    occurs, each with whether a picked chunk holds it."""
    return {
        "occurrence": "any",
        "occurrences": [
            {
                "doc": doc,
                "span": [start, end],
                "in_context": any(
                    p.doc == doc and s <= start and end <= t for p in context for s, t in p.source
                ),
            }
            for doc, start, end in e.occurrences
        ],
    }


@dataclass(frozen=True, slots=True)
class QuestionResult:
    id: str
    split: str
    partial: bool
    complete: bool
    context: tuple[Pick, ...]
    evidence: tuple[EvidenceResult, ...]
    words: int
    recall_at: dict[int, float] = field(default_factory=dict)
    precision_at: dict[int, float] = field(default_factory=dict)
    reciprocal_rank: float = 0.0

    @property
    def verdict(self) -> str:
        return "complete" if self.complete else "partial" if self.partial else "miss"


@dataclass(frozen=True, slots=True)
class Metrics:
    questions: int
    partial: float
    complete: float
    gap: float
    mean_context_words: float
    mean_chunks: float
    recall_at: dict[int, float]
    precision_at: dict[int, float]
    mrr: float
    complete_ci: tuple[float, float] = (0.0, 1.0)  # Wilson 95% interval of complete recall
    partial_ci: tuple[float, float] = (0.0, 1.0)

    def as_dict(self) -> dict:
        out = {
            "questions": self.questions,
            "partial": self.partial,
            "partial_low": self.partial_ci[0],
            "partial_high": self.partial_ci[1],
            "complete": self.complete,
            "complete_low": self.complete_ci[0],
            "complete_high": self.complete_ci[1],
            "gap": self.gap,
            "mean_context_words": self.mean_context_words,
            "mean_chunks": self.mean_chunks,
        }
        out.update({f"recall@{k}": v for k, v in self.recall_at.items()})
        out.update({f"precision@{k}": v for k, v in self.precision_at.items()})
        out["mrr"] = self.mrr
        return out


@dataclass(frozen=True, slots=True)
class IndexStats:
    chunks: int
    mean_chars: float
    max_chars: int
    index_ratio: float  # characters of chunk text / characters of the corpus
    evidence_intact: float  # share of evidence spans that some chunk holds whole
    heading_starts: float  # share of chunks that start at a heading
    over_size: int  # chunks whose body exceeds the size limit (a heading line longer than L)
    over_budget: int  # chunks longer than the budget in words: they can never be retrieved
    objective: float | None
    long_units: int = 0  # sentences (or rows, code blocks) longer than L, split to fit
    split_evidence: int = 0  # evidence spans no chunk holds because such a split cut them
    # What the assembler delivers: prefix + body + delivered reference text, in characters.
    mean_delivered_chars: float = 0.0
    max_delivered_chars: int = 0
    delivered_over_size: int = 0  # chunks delivering more than L characters
    train_questions: int | None = None  # what a supervised chunker learned from (0: untrained)

    def as_dict(self) -> dict:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


@dataclass(frozen=True, slots=True)
class RankedQuestion:
    """What one question's result owes to the ranking alone, whatever the budget: per evidence
    span its holders and the best-ranked offered one (``(position, chunk)``), and the ranking
    metrics."""

    holders: tuple[tuple[int, ...], ...]
    best: tuple[tuple[int, int] | None, ...]
    recall_at: dict[int, float]
    precision_at: dict[int, float]
    reciprocal_rank: float


def rank_question(index: Index, q: Question, ranking: Ranking) -> RankedQuestion:
    """The budget-independent part of ``score_question``: per evidence span its holders and the
    best-ranked offered one, and the ranking metrics (recall@k and precision@k over the chunks
    holding some evidence span, the reciprocal rank of the first)."""
    held = tuple(index.holder_lists[ev.key] for ev in q.evidence)
    relevant = set().union(*held)
    where = {k: p for k in relevant if (p := ranking.position(k)) >= 0}
    bests = tuple(min(((where[h], h) for h in hs if h in where), default=None) for hs in held)
    ranks = [b[0] for b in bests if b is not None]
    n = len(relevant)
    within = {k: sum(p < k for p in where.values()) for k in KS}
    return RankedQuestion(
        held,
        bests,
        {k: c / n for k, c in within.items()} if n else dict.fromkeys(KS, 0.0),
        {k: c / k for k, c in within.items()},
        1 / (min(ranks) + 1) if ranks else 0.0,
    )


def rank_questions(
    index: Index,
    questions: Sequence[Question],
    rankings: Sequence[Ranking],
    heads: Sequence[list[int]],
    whole: Sequence[bool],
) -> list[RankedQuestion]:
    """``rank_question(index, q, ranking)`` for every question, in one loop, from each ranking's
    first chunks (``heads``, at least ``max(KS)`` of them unless ``whole``: all it offers): ranks
    in a head are read off it, and only an evidence span none of whose holders it shows has its
    best holder's rank counted."""
    holding = index.holder_lists
    parts = []  # per question: held, bests (filled in below), recall_at, precision_at
    waiting = []  # (question, span, holders): no holder of the span shown in a partial look
    for q, ranked, complete in zip(questions, heads, whole, strict=True):
        held = tuple([holding[ev.key] for ev in q.evidence])
        where: dict[int, int] = {}
        bests: list = []
        for holders in held:
            best = None
            for h in holders:
                p = where.get(h)
                if p is None and h in ranked:
                    p = where[h] = ranked.index(h)
                if p is not None and (best is None or p < best[0]):
                    best = (p, h)
            if best is None and holders and not complete:
                waiting.append((len(parts), len(bests), holders))
            bests.append(best)
        # Relevant chunks ranked above k for k in KS (any such chunk is in the look).
        c1 = c3 = c5 = c10 = 0
        for p in where.values():
            if p < 10:
                c10 += 1
                if p < 5:
                    c5 += 1
                    if p < 3:
                        c3 += 1
                        if p < 1:
                            c1 += 1
        n = len(held[0]) if len(held) == 1 else len(set().union(*held))
        if n:
            recall = {1: c1 / n, 3: c3 / n, 5: c5 / n, 10: c10 / n}
        else:
            recall = {1: 0.0, 3: 0.0, 5: 0.0, 10: 0.0}
        parts.append((held, bests, recall, {1: c1 / 1, 3: c3 / 3, 5: c5 / 5, 10: c10 / 10}))
    if waiting:
        _rank_past_looks([bests for _, bests, _, _ in parts], waiting, rankings)
    out = []
    for held, bests, recall, precision in parts:
        ranks = [b[0] for b in bests if b is not None]
        mrr = 1 / (min(ranks) + 1) if ranks else 0.0
        out.append(RankedQuestion(held, tuple(bests), recall, precision, mrr))
    return out


def _rank_past_looks(bests: list[list], waiting: list, rankings: Sequence[Ranking]) -> None:
    """Fill in each waiting span's best holder ``(position, chunk)`` (see ``rank_questions``):
    its offered holder ranked first (the highest score, ties in index order), at its position
    in the whole ranking (``Ranking.position``)."""
    count = np.count_nonzero
    for j, i, holders in waiting:
        score = rankings[j].score
        best = None
        for h, s in zip(holders, score.take(holders).tolist(), strict=True):
            if s > 0 and (best is None or s > best[0]):
                best = (s, h)
        if best is not None:
            s, h = best
            bests[j][i] = (int(count(score > s) + count(score[:h] == s)), h)


def score_question(
    index: Index,
    q: Question,
    ranking: Ranking,
    context: Context,
    ranked: RankedQuestion | None = None,
) -> QuestionResult:
    """Evidence in context, diagnosis of what missed, and ranking metrics for one question.
    ``ranked``: ``rank_question``'s part, if already known."""
    ranked = ranked if ranked is not None else rank_question(index, q, ranking)
    assembled = (context.picked, context.positions, context.cut, context.words)
    return score_questions(index, [q], [ranking], [ranked], [assembled], context.budget)[0]


def occurrences(ev, names: Sequence[str]) -> tuple[tuple[str, int, int], ...]:
    """``EvidenceResult.occurrences`` of evidence ``ev`` (``names``: the documents' names)."""
    if ev.occurrences is None:
        return ()
    return tuple((names[d], s, e) for d, s, e in ev.occurrences)


def pick(fields: tuple[str, int, tuple, str, int | None], rank: int) -> Pick:
    """The ``Pick`` of a chunk at ``rank`` from its ``Index.pick_fields`` entry ``(chunk, words,
    source, doc, tokens)``."""
    chunk, words, source, doc, tokens = fields
    return Pick(chunk, rank, words, source, doc, tokens)


Assembled = tuple[tuple[int, ...], tuple[int, ...], int, int]  # picked, their ranks, cut, words


def score_questions(
    index: Index,
    questions: Sequence[Question],
    rankings: Sequence[Ranking],
    ranked: Sequence[RankedQuestion],
    assembled: Sequence[Assembled],
    budget: int,
) -> list[QuestionResult]:
    """Per question, its result: which evidence spans a chunk in its context holds (partial: some,
    complete: all), why each other one missed, and the ranking metrics. ``assembled``: per
    question the chunks picked at ``budget``, their 0-based ranks, the cut and the words used."""
    names, picks, keys, words = index.doc_names, index.pick_fields, index.delivery_keys, index.words
    out = []
    for q, ranking, r, (taken, positions, cut, used) in zip(
        questions, rankings, ranked, assembled, strict=True
    ):
        chosen = set(taken)
        evidence = []
        for ev, holders, best in zip(q.evidence, r.holders, r.best, strict=True):
            span, name = (ev.start, ev.end), names[ev.doc]
            copies = occurrences(ev, names)
            if not chosen.isdisjoint(holders):
                evidence.append(EvidenceResult(span, True, None, best[0] + 1, name, None, copies))
                continue
            detail = None
            if ranking.allowed is not None and ev.doc not in ranking.allowed:
                diagnosis = FILTERED_OUT
            elif not holders:
                diagnosis = NOT_INTACT
            elif best is None:
                diagnosis = NOT_RANKED
            elif best[0] >= cut:
                words_k = int(words[best[1]])
                diagnosis = OVER_BUDGET if words_k > budget else BELOW_CUT
                detail = did_not_fit(budget - used, words_k, budget, index.unit)
            else:
                before = [k for k, p in zip(taken, positions, strict=True) if p < best[0]]
                words_k = int(words[best[1]])
                diagnosis = passed_over(
                    words_k,
                    None if keys is None else keys[best[1]],
                    [int(words[k]) for k in before],
                    () if keys is None else [keys[k] for k in before],
                    budget,
                )
                detail = note(diagnosis, before, budget, best[1], words_k, index)
            rank = best[0] + 1 if best else None
            evidence.append(EvidenceResult(span, False, diagnosis, rank, name, detail, copies))
        found = [e.in_context for e in evidence]
        context = tuple(pick(picks[k], p + 1) for k, p in zip(taken, positions, strict=True))
        out.append(
            QuestionResult(
                q.id,
                q.split,
                any(found),
                all(found),
                context,
                tuple(evidence),
                used,
                r.recall_at,
                r.precision_at,
                r.reciprocal_rank,
            )
        )
    return out


class EvidenceSpans(NamedTuple):
    """Every evidence span of ``questions`` questions: the question (row) of each span, and each
    (span, chunk holding it whole) pair as parallel arrays."""

    questions: int
    question: np.ndarray
    holder_span: np.ndarray
    holder_chunk: np.ndarray


def evidence_spans(holders: Sequence[Sequence[tuple[int, ...]]]) -> EvidenceSpans:
    """``EvidenceSpans`` of questions given, per question, the chunks holding each of its
    evidence spans (``RankedQuestion.holders``, ``question_holders``)."""
    spans = [h for held in holders for h in held]
    question = np.repeat(np.arange(len(holders)), [len(held) for held in holders])
    holder_span = np.repeat(np.arange(len(spans)), [len(h) for h in spans])
    chunks = np.fromiter((k for h in spans for k in h), dtype=np.int64, count=len(holder_span))
    return EvidenceSpans(
        len(holders), question.astype(np.int64), holder_span.astype(np.int64), chunks
    )


def question_holders(
    index: Index, questions: Sequence[Question]
) -> list[tuple[tuple[int, ...], ...]]:
    """Per question, the chunks of ``index`` holding each of its evidence spans whole."""
    holding = index.holder_lists
    return [tuple([holding[ev.key] for ev in q.evidence]) for q in questions]


def verdicts(
    spans: EvidenceSpans, rows: np.ndarray, chunks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per question, whether its context (question ``rows[i]`` picked ``chunks[i]``) holds some
    of its evidence spans whole (partial) and all of them (complete): a span is in the context
    when a chunk holding it is."""
    width = int(max(spans.holder_chunk.max(initial=0), chunks.max(initial=0))) + 1
    picked = np.zeros(spans.questions * width, dtype=bool)  # questions x chunks: an eighth of
    picked[rows * width + chunks] = True  # the scores the retrieval holds
    holder = spans.question[spans.holder_span] * width + spans.holder_chunk
    inside = np.zeros(len(spans.question), dtype=bool)
    inside[spans.holder_span[picked[holder]]] = True
    found = np.bincount(spans.question, weights=inside, minlength=spans.questions)
    total = np.bincount(spans.question, minlength=spans.questions)
    return found > 0, found == total


def aggregate(results: Sequence[QuestionResult]) -> Metrics:
    """Means over the questions of one configuration, recalls with their Wilson intervals (zeros
    and the interval [0, 1] when there are no questions)."""
    return tally(
        ranking_means(results),
        sum(r.partial for r in results),
        sum(r.complete for r in results),
        sum(r.words for r in results),
        sum(len(r.context) for r in results),
    )


RankingMeans = tuple[int, dict[int, float], dict[int, float], float]


def ranking_means(ranked: Sequence[QuestionResult | RankedQuestion]) -> RankingMeans:
    """The number of questions and the means of their ranking metrics (recall@k, precision@k,
    MRR), which no budget changes."""
    n = len(ranked)
    if n == 0:
        return 0, {k: 0.0 for k in KS}, {k: 0.0 for k in KS}, 0.0
    return (
        n,
        {k: sum(r.recall_at[k] for r in ranked) / n for k in KS},
        {k: sum(r.precision_at[k] for r in ranked) / n for k in KS},
        sum(r.reciprocal_rank for r in ranked) / n,
    )


def tally(means: RankingMeans, partial: int, complete: int, words: int, chunks: int) -> Metrics:
    """``Metrics`` from ``ranking_means`` and, over the questions, how many have some and all of
    their evidence in the context, and the context words and chunks in total."""
    n, recall_at, precision_at, mrr = means
    if n == 0:
        return Metrics(0, 0.0, 0.0, 0.0, 0.0, 0.0, dict(recall_at), dict(precision_at), 0.0)
    return Metrics(
        questions=n,
        partial=partial / n,
        complete=complete / n,
        gap=partial / n - complete / n,
        mean_context_words=words / n,
        mean_chunks=chunks / n,
        recall_at=dict(recall_at),
        precision_at=dict(precision_at),
        mrr=mrr,
        complete_ci=wilson_interval(complete, n),
        partial_ci=wilson_interval(partial, n),
    )


def index_stats(index: Index, budget: int) -> IndexStats:
    """Statistics of one chunker's index; ``budget`` decides which chunks can never fit."""
    chunks = index.chunks
    n = len(chunks)
    corpus = index.corpus
    body = np.fromiter((c.body_chars for c in chunks), dtype=np.int64, count=n)
    delivered = np.fromiter((len(c.text) for c in chunks), dtype=np.int64, count=n)
    total_chars = sum(len(d.text) for d in corpus.documents) or 1
    spans = {ev.key: ev for q in corpus.questions for ev in q.evidence}
    held = index.holder_lists
    intact = sum(1 for key in spans if held[key])
    return IndexStats(
        chunks=n,
        mean_chars=float(body.mean()) if n else 0.0,
        max_chars=int(body.max()) if n else 0,
        index_ratio=sum(len(c.text) for c in chunks) / total_chars,
        evidence_intact=intact / len(spans) if spans else 0.0,
        heading_starts=index.heading_starts / n if n else 0.0,
        over_size=sum(c.body_chars > index.limit(c) for c in chunks),
        over_budget=int((index.words > budget).sum()),
        objective=index.objective,
        long_units=sum(
            len({corpus.documents[d].unit_at(c) for c in cuts}) for d, cuts in enumerate(index.cuts)
        ),
        split_evidence=sum(
            1 for key, ev in spans.items() if not held[key] and _cut_inside(index.cuts, ev)
        ),
        mean_delivered_chars=float(delivered.mean()) if n else 0.0,
        max_delivered_chars=int(delivered.max()) if n else 0,
        delivered_over_size=int((delivered > index.size).sum()),
        train_questions=index.train_questions,
    )


def _cut_inside(cuts: tuple[tuple[int, ...], ...], ev) -> bool:
    """Whether a split of a long unit falls strictly inside evidence span ``ev``."""
    if ev.doc >= len(cuts):
        return False
    doc_cuts = cuts[ev.doc]
    i = bisect_right(doc_cuts, ev.start)
    return i < len(doc_cuts) and doc_cuts[i] < ev.end


# The fast path of ``ranking_means(rank_questions(...))``: every question of a retrieval at once,
# from its scores, first looks and evidence holders as arrays (no record per question), float for
# float (``tests/test_rules_ranking.py`` holds them equal).
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
