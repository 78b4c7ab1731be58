"""Score assembled contexts: partial and complete evidence recall, ranking metrics, index
statistics, and a diagnosis for every evidence span that missed the context."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .assemble import (
    BELOW_CUT,
    FIRST_LOOK,
    OVER_BUDGET,
    Context,
    Look,
    Outcome,
    look_ahead,
    passed_over,
)
from .corpus import Question
from .diagnosis import context_note, did_not_fit, note
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


# A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``: setting the
# slots directly builds the thousands of results of a large run about three times faster.
_new = object.__new__
_PICK = tuple(getattr(Pick, f).__set__ for f in Pick.__dataclass_fields__)
_EVIDENCE = tuple(getattr(EvidenceResult, f).__set__ for f in EvidenceResult.__dataclass_fields__)
_RESULT = tuple(getattr(QuestionResult, f).__set__ for f in QuestionResult.__dataclass_fields__)
_RANKED = tuple(getattr(RankedQuestion, f).__set__ for f in RankedQuestion.__dataclass_fields__)


def _pick(fields: tuple[str, int, tuple, str, int | None], rank: int, _set=_PICK) -> Pick:
    """``Pick(chunk, rank, words, source, doc, tokens)`` from ``(chunk, words, source, doc,
    tokens)``, through its slots."""
    obj = _new(Pick)
    _set[0](obj, fields[0])
    _set[1](obj, rank)
    _set[2](obj, fields[1])
    _set[3](obj, fields[2])
    _set[4](obj, fields[3])
    _set[5](obj, fields[4])
    return obj


def _evidence(
    span: tuple[int, int],
    in_context: bool,
    diagnosis: str | None,
    rank: int | None,
    doc: str,
    detail: str | None = None,
    occurrences: tuple[tuple[str, int, int], ...] = (),
    _set=_EVIDENCE,
) -> EvidenceResult:
    """``EvidenceResult(span, in_context, diagnosis, rank, doc, detail, occurrences)``, through
    its slots."""
    obj = _new(EvidenceResult)
    _set[0](obj, span)
    _set[1](obj, in_context)
    _set[2](obj, diagnosis)
    _set[3](obj, rank)
    _set[4](obj, doc)
    _set[5](obj, detail)
    _set[6](obj, occurrences)
    return obj


def _occurrences(ev, names: Sequence[str]) -> tuple[tuple[str, int, int], ...]:
    """``EvidenceResult.occurrences`` of evidence ``ev``."""
    if ev.occurrences is None:
        return ()
    return tuple([(names[d], s, e) for d, s, e in ev.occurrences])


def rank_question(
    index: Index, q: Question, ranking: Ranking, look: Look | None = None
) -> RankedQuestion:
    """The budget-independent part of ``score_question``. ``look``: the ranking's first look
    (``look_ahead(ranking, index.words, FIRST_LOOK)``), if already known: ranks in it are read
    off it, and only an evidence span none of whose holders it shows has its best holder's rank
    counted."""
    if look is None:
        look = look_ahead(ranking, index.words, FIRST_LOOK)
    holding, ranked = index.holder_lists, look.ranked
    held = tuple(holding[ev.key] for ev in q.evidence)
    relevant = set().union(*held)
    where = {k: ranked.index(k) for k in relevant if k in ranked}
    bests = []
    for holders in held:
        shown = [(where[h], h) for h in holders if h in where]
        if shown:
            bests.append(min(shown))
            continue
        score = ranking.score
        offered = [h for h in holders if score[h] > 0] if not look.whole else []
        if not offered:
            bests.append(None)
            continue
        h = max(offered, key=lambda k: (score[k], -k))  # ranked first: ties in index order
        bests.append((ranking.position(h), h))
    ranks = [b[0] for b in bests if b is not None]
    # Relevant chunks ranked above k (k <= FIRST_LOOK: any such chunk is in the look).
    in_look = sorted(where.values())
    within = [(k, bisect_left(in_look, k)) for k in KS]
    n = len(relevant)
    ranked_question, put = _new(RankedQuestion), _RANKED
    put[0](ranked_question, held)
    put[1](ranked_question, tuple(bests))
    put[2](ranked_question, {k: c / n for k, c in within} if n else dict.fromkeys(KS, 0.0))
    put[3](ranked_question, {k: c / k for k, c in within})
    put[4](ranked_question, 1 / (min(ranks) + 1) if ranks else 0.0)
    return ranked_question


def rank_questions(
    index: Index,
    questions: Sequence[Question],
    rankings: Sequence[Ranking],
    looks: Sequence[Look],
) -> list[RankedQuestion]:
    """``rank_question(index, q, ranking, look)`` for every question (``looks``: each ranking's
    first look), in one loop."""
    holding, put = index.holder_lists, _RANKED
    out = []
    waiting = []  # (question, span, holders): no holder of the span shown in a partial look
    for q, look in zip(questions, looks, strict=True):
        held = tuple([holding[ev.key] for ev in q.evidence])
        ranked = look.ranked
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
            if best is None and holders and not look.whole:
                waiting.append((len(out), len(bests), holders))
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
        result = _new(RankedQuestion)
        put[0](result, held)
        put[1](result, bests)
        if n:
            put[2](result, {1: c1 / n, 3: c3 / n, 5: c5 / n, 10: c10 / n})
        else:
            put[2](result, {1: 0.0, 3: 0.0, 5: 0.0, 10: 0.0})
        put[3](result, {1: c1 / 1, 3: c3 / 3, 5: c5 / 5, 10: c10 / 10})
        out.append(result)
    if waiting:
        _rank_past_looks(out, waiting, rankings)
    for result in out:
        bests = result.best
        ranks = [b[0] for b in bests if b is not None]
        put[1](result, tuple(bests))
        put[4](result, 1 / (min(ranks) + 1) if ranks else 0.0)
    return out


def _rank_past_looks(out: list[RankedQuestion], waiting: list, rankings: Sequence[Ranking]) -> None:
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
            out[j].best[i] = (int(count(score > s) + count(score[:h] == s)), h)


def score_question(
    index: Index,
    q: Question,
    ranking: Ranking,
    context: Context,
    ranked: RankedQuestion | None = None,
) -> QuestionResult:
    """Evidence in context, diagnosis of what missed, and ranking metrics for one question.
    ``ranked``: ``rank_question``'s part, if already known."""
    if ranked is None:
        ranked = rank_question(index, q, ranking)
    picked = set(context.picked)
    names = index.doc_names
    evidence = []
    partial, complete = False, True
    for ev, holders, best in zip(q.evidence, ranked.holders, ranked.best, strict=True):
        copies = _occurrences(ev, names)
        if not picked.isdisjoint(holders):
            partial = True
            span, name, rank = (ev.start, ev.end), names[ev.doc], best[0] + 1
            evidence.append(_evidence(span, True, None, rank, name, None, copies))
            continue
        complete = False
        detail = None
        if ranking.allowed is not None and ev.doc not in ranking.allowed:
            diagnosis = FILTERED_OUT
        elif not holders:
            diagnosis = NOT_INTACT
        elif best is None:
            diagnosis = NOT_RANKED
        else:
            words = int(index.words[best[1]])
            diagnosis = context.decision(best[1], best[0], words)
            detail = context_note(context, diagnosis, best[1], best[0], words, index)
        rank = best[0] + 1 if best else None
        span, name = (ev.start, ev.end), names[ev.doc]
        evidence.append(_evidence(span, False, diagnosis, rank, name, detail, copies))
    picks = index.pick_fields
    result, put = _new(QuestionResult), _RESULT
    put[0](result, q.id)
    put[1](result, q.split)
    put[2](result, partial)
    put[3](result, complete)
    put[4](
        result,
        tuple(
            [
                _pick(picks[k], pos + 1)
                for k, pos in zip(context.picked, context.positions, strict=True)
            ]
        ),
    )
    put[5](result, tuple(evidence))
    put[6](result, context.words)
    put[7](result, ranked.recall_at)
    put[8](result, ranked.precision_at)
    put[9](result, ranked.reciprocal_rank)
    return result


def score_questions(
    index: Index,
    questions: Sequence[Question],
    rankings: Sequence[Ranking],
    looks: Sequence[Look],
    outcomes: Sequence[Outcome],
    budget: int,
    ranked: Sequence[RankedQuestion],
) -> list[QuestionResult]:
    """``score_question(index, q, ranking, Context.of(look, outcome, budget, keys), ranked=r)``
    for every question, in one loop: a question's context is built only to say why a chunk
    before its cut was passed over."""
    names, picks, keys = index.doc_names, index.pick_fields, index.delivery_keys
    put, pick, evidence_result = _RESULT, _pick, _evidence
    out = []
    for q, ranking, look, outcome, r in zip(
        questions, rankings, looks, outcomes, ranked, strict=True
    ):
        positions, cut, used = outcome
        order = look.ranked
        taken = [order[p] for p in positions]
        chosen = set(taken)
        evidence = []
        partial, complete = False, True
        for ev, holders, best in zip(q.evidence, r.holders, r.best, strict=True):
            copies = () if ev.occurrences is None else _occurrences(ev, names)
            if not chosen.isdisjoint(holders):
                partial = True
                span, name = (ev.start, ev.end), names[ev.doc]
                evidence.append(evidence_result(span, True, None, best[0] + 1, name, None, copies))
                continue
            complete = False
            detail = None
            if ranking.allowed is not None and ev.doc not in ranking.allowed:
                diagnosis = FILTERED_OUT
            elif not holders:
                diagnosis = NOT_INTACT
            elif best is None:
                diagnosis = NOT_RANKED
            else:
                k, words = best[1], picks[best[1]][1]
                if best[0] >= cut:  # ``Context.decision`` past the cut
                    diagnosis = OVER_BUDGET if words > budget else BELOW_CUT
                    detail = did_not_fit(budget - used, words, budget)
                elif order[best[0]] == k:  # ``Context.decision`` before the cut
                    diagnosis = passed_over(best[0], positions, order, look.sizes, keys, budget)
                    detail = note(
                        diagnosis, best[0], positions, order, look.sizes, budget, k, words, index
                    )
                else:
                    walked = Context.of(look, outcome, budget, keys)
                    diagnosis = walked.decision(k, best[0], words)
                    detail = context_note(walked, diagnosis, k, best[0], words, index)
            rank = best[0] + 1 if best else None
            span, name = (ev.start, ev.end), names[ev.doc]
            evidence.append(evidence_result(span, False, diagnosis, rank, name, detail, copies))
        result = _new(QuestionResult)
        put[0](result, q.id)
        put[1](result, q.split)
        put[2](result, partial)
        put[3](result, complete)
        context = [pick(picks[k], p + 1) for k, p in zip(taken, positions, strict=True)]
        put[4](result, tuple(context))
        put[5](result, tuple(evidence))
        put[6](result, used)
        put[7](result, r.recall_at)
        put[8](result, r.precision_at)
        put[9](result, r.reciprocal_rank)
        out.append(result)
    return out


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
