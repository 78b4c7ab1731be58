"""The single run: every chunker in every retrieval mode on a corpus's questions, scored
(``run_lab``), and one question's result with everything behind it (``explain``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from .adaptive import fit, signals
from .assemble import Context, assemble
from .cache import LabCache
from .chunkers.base import ChunkerFailed
from .config import LabConfig, Progress
from .corpus import Corpus, InputError, Question
from .diagnosis import context_note
from .index import Index, learns
from .metrics import (
    IndexStats,
    Metrics,
    QuestionResult,
    aggregate,
    occurrence_dict,
    score_question,
)
from .retrieval import Retrieval
from .retrieve import RERANK_TOP, Ranking, rank

if TYPE_CHECKING:  # pandas is imported by the methods that build tables, not with the lab
    import pandas as pd


def untrained_chunkers(corpus: Corpus, chunkers: Iterable[str]) -> tuple[str, ...]:
    """The supervised chunkers among ``chunkers`` that have no train question to learn from: with
    nothing to keep intact, qes-dp only packs units as few chunks as fit and qes-greedy only
    covers the text with windows, so they must not pass for trained ones (by-type among them
    when the collection's policy gives a document one of those)."""
    if corpus.split("train"):
        return ()
    return tuple(c for c in chunkers if learns(corpus, c))


@dataclass(frozen=True, eq=False)
class Run:
    """One chunker in one mode: its metrics, index statistics and per-question results (with
    the questions' metadata filters applied). ``unfiltered`` holds the results of the questions
    that have a filter, retrieved without it, and ``unfiltered_metrics`` the metrics with those
    in place (None when no question has a filter)."""

    chunker: str
    mode: str
    metrics: Metrics
    index: IndexStats
    questions: tuple[QuestionResult, ...]
    unfiltered: tuple[QuestionResult, ...] = ()
    unfiltered_metrics: Metrics | None = None
    budgets: tuple[int, ...] = ()  # each question's budget, when adaptive

    def to_dict(self) -> dict:
        out = {
            "chunker": self.chunker,
            "mode": self.mode,
            "metrics": self.metrics.as_dict(),
            "index": self.index.as_dict(),
            "questions": [question_dict(r) for r in self.questions],
        }
        if self.budgets:
            out["mean_budget"] = round(sum(self.budgets) / len(self.budgets), 2)
            for q, budget in zip(out["questions"], self.budgets, strict=True):
                q["budget"] = budget
        if self.unfiltered_metrics is not None:
            out["metrics_without_filters"] = self.unfiltered_metrics.as_dict()
            out["questions_without_filters"] = [question_dict(r) for r in self.unfiltered]
        return out


def question_dict(r: QuestionResult) -> dict:
    """One question's result as JSON: offsets are in the text of the document ``doc`` names."""
    return {
        "id": r.id,
        "split": r.split,
        "partial": r.partial,
        "complete": r.complete,
        "context": [
            {
                "chunk": p.chunk,
                "doc": p.doc,
                "rank": p.rank,
                "words": p.words,
                "tokens": p.tokens,
                "source": [list(s) for s in p.source],
            }
            for p in r.context
        ],
        "evidence": [
            {
                "doc": e.doc,
                "span": list(e.span),
                "in_context": e.in_context,
                "diagnosis": e.diagnosis,
                "detail": e.detail,
                "rank": e.rank,
            }
            | (occurrence_dict(e, r.context) if e.occurrences else {})
            for e in r.evidence
        ],
    }


@dataclass(frozen=True, eq=False)
class LabResult:
    config: LabConfig
    runs: tuple[Run, ...]
    errors: tuple[InputError, ...] = ()

    def run(self, chunker: str, mode: str) -> Run:
        for r in self.runs:
            if r.chunker == chunker and r.mode == mode:
                return r
        raise KeyError(f"no run for {chunker} / {mode}")

    def to_dict(self) -> dict:
        return {
            "config": asdict(self.config),
            "runs": [r.to_dict() for r in self.runs],
            "errors": [
                {"question": e.question, "message": e.message, "severity": e.severity}
                for e in self.errors
            ],
        }

    def metrics_frame(self) -> pd.DataFrame:
        """One row per chunker x mode; when questions carry metadata filters, recall without
        them too (``complete_without_filters``, ``partial_without_filters``)."""
        rows = []
        for r in self.runs:
            row = {"chunker": r.chunker, "mode": r.mode, **r.metrics.as_dict()}
            if r.unfiltered_metrics is not None:
                row["complete_without_filters"] = r.unfiltered_metrics.complete
                row["partial_without_filters"] = r.unfiltered_metrics.partial
            rows.append(row)
        import pandas as pd

        return pd.DataFrame(rows)

    def index_frame(self) -> pd.DataFrame:
        """One row per chunker."""
        seen: dict[str, dict] = {}
        for r in self.runs:
            seen.setdefault(r.chunker, {"chunker": r.chunker, **r.index.as_dict()})
        import pandas as pd

        return pd.DataFrame(list(seen.values()))

    def questions_frame(self) -> pd.DataFrame:
        """One row per question x chunker x mode: the verdict and why evidence missed, the
        documents its evidence is in, and its verdict without its filter (when it has one)."""
        rows = []
        context = "context_tokens" if self.config.tokenizer else "context_words"
        for r in self.runs:
            unfiltered = {u.id: u.verdict for u in r.unfiltered}
            for q in r.questions:
                docs = list(dict.fromkeys(e.doc for e in q.evidence))
                rows.append(
                    {
                        "question": q.id,
                        "split": q.split,
                        "chunker": r.chunker,
                        "mode": r.mode,
                        "partial": q.partial,
                        "complete": q.complete,
                        "verdict": q.verdict,
                        context: q.words,
                        "chunks": len(q.context),
                        "missed": sum(not e.in_context for e in q.evidence),
                        "diagnosis": "; ".join(
                            sorted({e.diagnosis for e in q.evidence if e.diagnosis})
                        ),
                        "documents": ", ".join(docs),
                        "multi_doc": len(docs) > 1,
                        "verdict_without_filter": unfiltered.get(q.id),
                    }
                )
        import pandas as pd

        return pd.DataFrame(rows)


def question_budgets(
    cache: LabCache,
    retrieval: Retrieval,
    config: LabConfig,
    budgets: Sequence[int],
    keep: bool = True,
) -> tuple[int, ...]:
    """Each question's adaptive budget (:mod:`lab.adaptive`): fitted on the train questions of
    the same index and mode (their rankings, and whether each candidate budget completes
    them), then read off each of ``retrieval``'s questions' ranking and words. ``keep``: keep
    the train questions' rankings in ``cache``."""
    budgets = sorted(set(budgets))
    train = cache.retrieval(
        retrieval.index, replace(config, split="train"), retrieval.mode, keep=keep
    )
    complete = np.array(
        [[r.complete for r in train.evaluate(b)] for b in budgets], dtype=bool
    ).T.reshape(len(train.questions), len(budgets))
    model = fit(signals(train), [q.question for q in train.questions], complete, budgets)
    chosen = model.predict(signals(retrieval), [q.question for q in retrieval.questions])
    return tuple(chosen.tolist())


def question_budget(
    corpus: Corpus,
    config: LabConfig,
    chunker: str,
    mode: str,
    question_id: str,
    cache: LabCache | None = None,
) -> int:
    """The budget ``config`` gives one question of its split in one configuration: the fixed
    budget, or the question's adaptive budget as :func:`run_lab` fits it (the largest candidate
    for a question outside the split)."""
    if not config.adaptive:
        return config.budget
    cache = cache or LabCache()
    retrieval = cache.retrieval(cache.index(corpus, config, chunker), config, mode)
    ids = [q.id for q in retrieval.questions]
    if question_id not in ids:
        return config.words
    chosen = question_budgets(cache, retrieval, config, config.adaptive_budgets)
    return chosen[ids.index(question_id)]


def run_lab(
    corpus: Corpus,
    config: LabConfig | None = None,
    progress: Progress | None = None,
    cache: LabCache | None = None,
    *,
    questions: Sequence[str] | None = None,
) -> LabResult:
    """Run every configured chunker in every configured mode on the questions of the split
    (``questions``: on the questions with these ids, whatever their split). With metadata
    filters on, questions that have one are also ranked without it: each run's
    ``unfiltered_metrics`` say what recall would be without filters. The documents are read
    with ``config.parser`` (:meth:`~lab.corpus.Corpus.read_with`)."""
    config, cache = config or LabConfig(), cache or LabCache()
    corpus = corpus.read_with(config.parser)
    ids = None
    if questions is not None:
        ids = tuple(dict.fromkeys(questions))
        unknown = sorted(set(ids) - {q.id for q in corpus.questions})
        if unknown:
            raise ValueError(f"no question of the corpus has the id(s) {', '.join(unknown)}")
    runs = []
    total = len(config.chunkers) * len(config.modes)
    asked = (
        corpus.split(config.split) if ids is None else [q for q in corpus.questions if q.id in ids]
    )
    filtered = config.filters and any(q.filter for q in asked)
    failed = []
    for chunker in config.chunkers:
        try:
            index = cache.index(corpus, config, chunker)
        except ChunkerFailed as err:  # a plugin's fault: the other chunkers still run
            failed.append(InputError(str(err)))
            continue
        stats = cache.stats(index, config.words)
        for mode in config.modes:
            retrieval = cache.retrieval(index, config, mode, ids=ids)
            results, metrics, budgets = _evaluated(cache, retrieval, config)
            unfiltered, without = (), None
            if filtered:
                apart = cache.retrieval(index, config, mode, True, ids)
                unfiltered = _evaluated(cache, apart, config)[0]
                replaced = {r.id: r for r in unfiltered}
                without = aggregate([replaced.get(r.id, r) for r in results])
            runs.append(Run(chunker, mode, metrics, stats, results, unfiltered, without, budgets))
            if progress:
                progress(len(runs), total)
    return LabResult(config, tuple(runs), (*corpus.errors, *failed))


def _evaluated(
    cache: LabCache, retrieval: Retrieval, config: LabConfig
) -> tuple[tuple[QuestionResult, ...], Metrics, tuple[int, ...]]:
    """``retrieval``'s results at ``config``'s budget, their metrics, and each question's budget
    when it is adaptive (empty when fixed)."""
    if not config.adaptive:
        return retrieval.evaluate(config.budget), retrieval.metrics(config.budget), ()
    budgets = question_budgets(cache, retrieval, config, config.adaptive_budgets)
    results = retrieval.evaluate_each(budgets)
    return results, aggregate(results), budgets


@dataclass(frozen=True, eq=False)
class Explanation:
    """Everything behind one question's result in one configuration."""

    question: Question
    index: Index
    ranking: Ranking
    context: Context
    result: QuestionResult

    def frame(self, limit: int | None = None) -> pd.DataFrame:
        """The ranking: offered chunks best first, with scores, size in what the budget counts
        (column "words", or "tokens" with a tokenizer) and what the assembler did."""
        holders = {int(k) for ev in self.question.evidence for k in self.index.holding(ev)}
        rows = []
        order = self.ranking.order if limit is None else self.ranking.order[:limit]
        ranking = self.ranking
        documents = self.index.corpus.documents
        sizes, unit = self.index.words, "words" if self.index.tokenizer is None else "tokens"
        for pos, k in enumerate(order.tolist()):
            c, size = self.index.chunks[k], int(sizes[k])
            row = {
                "rank": pos + 1,
                "chunk": c.id,
                "document": documents[c.doc].name,
                "bm25": float(ranking.bm25[k]),
                "pagerank": float(ranking.pagerank[k]) if ranking.pagerank is not None else None,
                "score": float(ranking.score[k]),
                unit: size,
                "seed": k in ranking.seeds,
                "evidence": k in holders,
                "decision": (decision := self.context.decision(k, pos, size)),
                "why": context_note(self.context, decision, k, pos, size, self.index),
            }
            if ranking.dense is not None:
                row |= {
                    "dense": float(ranking.dense[k]),
                    "bm25 rank": ranking.rank_by("bm25", k),
                    "dense rank": ranking.rank_by("dense", k),
                    "fused rank": ranking.rank_by("fused", k),
                }
            if ranking.rerank is not None:
                row |= {
                    "rerank": float(ranking.rerank[k]),
                    "reranked rank": ranking.rank_by("rerank", k),
                }
            rows.append(row)
        import pandas as pd

        return pd.DataFrame(rows)


def explain(
    index: Index,
    question: Question,
    mode: str,
    budget: int,
    reranker=None,
    rerank_top: int = RERANK_TOP,
    filters: bool = True,
) -> Explanation:
    """Rank, assemble and score one question, keeping the intermediate results."""
    ranking = rank(
        index, [question], mode, reranker=reranker, rerank_top=rerank_top, filters=filters
    )[0]
    context = assemble(
        ranking, index.words, index.delivered_tokens, budget, keys=index.delivery_keys
    )
    result = score_question(index, question, ranking, context)
    return Explanation(question, index, ranking, context, result)


__all__ = [
    "Explanation",
    "LabResult",
    "Run",
    "explain",
    "question_budget",
    "question_budgets",
    "run_lab",
    "untrained_chunkers",
]
