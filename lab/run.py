"""The lab's front door: run every chunker in every retrieval mode on a corpus and score it."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

import numpy as np

from .adaptive import ADAPTIVE, fit, signals
from .assemble import FIRST_LOOK, Context, Look, Outcome, offered_order, walk, walk_ranking
from .chunkers import CHUNKERS, REFERENCE_PLACEMENTS, reference_placement
from .chunkers.base import ChunkerFailed
from .corpus import Corpus, InputError, Question
from .diagnosis import context_note
from .index import (
    DEFAULT_OVERLAP,
    Index,
    build_index,
    check_chunking,
    guarded,
    learns,
    training_key,
)
from .metrics import (
    IndexStats,
    Metrics,
    QuestionResult,
    RankedQuestion,
    RankingMeans,
    aggregate,
    index_stats,
    occurrence_dict,
    rank_questions,
    ranking_means,
    score_question,
    score_questions,
    tally,
)
from .retrieve import LEXICAL_MODES, MODES, RERANK_TOP, Ranking, rank_scored, top_rows

if TYPE_CHECKING:  # pandas is imported by the methods that build tables, not with the lab
    import pandas as pd

SPLITS = ("test", "train", "all")
DEFAULT_CHUNKERS = ("fixed", "sentence", "structure", "qes-dp", "qes-greedy")
DEFAULT_BUDGETS = (40, 60, 80, 120, 160, 200, 300, 400)
DEFAULT_SIZES = (250, 350, 450, 600, 800)
KEPT_BUDGETS = 16  # per ranking: scored results of this many budgets are kept
RESTMIN_TRIES = 64  # shortest chunks tried first for the assembler's first look
FULL_SORT = 64  # on an index of at most this many chunks, whole rankings are sorted at once
IN_PLACE = 1024  # rankings of at least this many chunks are read in place when they can be
LOOK_ROWS = 128  # rankings whose first looks are found together

Progress = Callable[[int, int], None]


def question_count(n: int, split: str) -> str:
    """``n`` questions of ``split`` in words: "13 test questions", "1 train question", "all 25
    questions"."""
    noun = f"question{'s' * (n != 1)}"
    return f"all {n} {noun}" if split == "all" else f"{n} {split} {noun}"


@dataclass(frozen=True)
class LabConfig:
    """One experiment: which chunkers and modes, the chunk size ``L`` in characters, the context
    budget in words, the question split, and the toggles. ``refs`` places the text of cited
    provisions: "delivered" (in the chunk and its budget), "index-only" (retrieval matches it,
    the context does not carry it) or "off"; references also give the chunk graph its
    cross-reference edges unless off. ``dense`` names an embedding model (None: keyword
    retrieval only); it enables the dense and hybrid modes, dense chunkers and ``late``
    chunking, and seeds graph mode from hybrid. ``rerank`` names a cross-encoder that reorders
    the top ``rerank_top`` chunks before assembly. ``filters`` applies the questions' metadata
    filters (each question ranks only the documents whose metadata match it); off, every
    question ranks every document. ``heading_guard`` keeps qes-dp, qes-greedy and qes-retrieval
    from cutting between a heading and its first unit (:mod:`lab.chunkers.guard`; the other
    chunkers cut as before). ``budget="adaptive"`` gives each question its own budget, one of
    ``adaptive_budgets``, fitted on the train questions (:mod:`lab.adaptive`).
    question ranks every document. ``tokenizer`` names one (``lab.tokens``): chunk size, overlap
    and budget then count its tokens, not characters and words.

    ``resolve_refs`` is the older on/off switch, still accepted (False is ``refs="off"``) and
    readable (whether references are resolved at all)."""

    chunkers: tuple[str, ...] = DEFAULT_CHUNKERS
    modes: tuple[str, ...] = LEXICAL_MODES
    size: int = 450
    budget: int | str = 120
    split: str = "test"
    headers: bool = False
    refs: str = REFERENCE_PLACEMENTS[0]
    overlap: int = DEFAULT_OVERLAP
    dense: str | None = None
    late: bool = False
    rerank: str | None = None
    rerank_top: int = RERANK_TOP
    filters: bool = True
    heading_guard: bool = False
    adaptive_budgets: tuple[int, ...] = DEFAULT_BUDGETS
    tokenizer: str | None = None

    @property
    def resolve_refs(self) -> bool:
        """Whether cited provisions are resolved at all (delivered or in the index only)."""
        return self.refs != "off"

    @property
    def adaptive(self) -> bool:
        """Whether each question gets its own budget (``budget="adaptive"``)."""
        return self.budget == ADAPTIVE

    @property
    def words(self) -> int:
        """The fixed budget, or the largest an adaptive one may choose."""
        return max(self.adaptive_budgets) if self.adaptive else self.budget

    def __post_init__(self):
        object.__setattr__(self, "chunkers", tuple(self.chunkers))
        object.__setattr__(self, "adaptive_budgets", tuple(self.adaptive_budgets))
        object.__setattr__(self, "modes", tuple(self.modes))
        reference_placement(self.refs)
        if not self.chunkers:
            raise ValueError(f"choose at least one chunker of {', '.join(CHUNKERS)}")
        for name in self.chunkers:
            check_chunking(name, self.size, self.overlap)
        if not self.modes or any(m not in MODES for m in self.modes):
            raise ValueError(f"modes must be some of {', '.join(MODES)}, got {self.modes!r}")
        if self.dense is None:
            needs = [m for m in self.modes if m not in LEXICAL_MODES]
            needs += [c for c in self.chunkers if CHUNKERS[c].dense]
            needs += ["late chunking"] if self.late else []
            if needs:
                raise ValueError(
                    f"{', '.join(needs)} need(s) dense embeddings: set dense to a model"
                )
        if not isinstance(self.rerank_top, int) or self.rerank_top < 1:
            raise ValueError(f"rerank_top must be a whole number >= 1, got {self.rerank_top!r}")
        if self.budget != ADAPTIVE and (not isinstance(self.budget, int) or self.budget < 1):
            raise ValueError(
                f"budget must be a whole number of words >= 1 or {ADAPTIVE!r}, got {self.budget!r}"
            )
        if not self.adaptive_budgets or any(
            not isinstance(b, int) or b < 1 for b in self.adaptive_budgets
        ):
            raise ValueError(
                "adaptive_budgets must be whole numbers of words >= 1, got "
                f"{self.adaptive_budgets!r}"
            )
        if self.split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {self.split!r}")


def untrained_chunkers(corpus: Corpus, chunkers: Iterable[str]) -> tuple[str, ...]:
    """The supervised chunkers among ``chunkers`` that have no train question to learn from: with
    nothing to keep intact, qes-dp only packs units as few chunks as fit and qes-greedy only
    covers the text with windows, so they must not pass for trained ones (by-type among them
    when the collection's policy gives a document one of those)."""
    if corpus.split("train"):
        return ()
    return tuple(c for c in chunkers if learns(corpus, c))


def _accept_resolve_refs(init: Callable) -> Callable:
    """Let ``LabConfig(resolve_refs=...)`` and ``replace(config, resolve_refs=...)``, the older
    on/off switch, keep working: False is ``refs="off"`` (see ``reference_placement``)."""

    @functools.wraps(init)
    def wrapped(self, *args, resolve_refs: bool | None = None, **kwargs) -> None:
        init(self, *args, **kwargs)
        if resolve_refs is not None:
            object.__setattr__(self, "refs", reference_placement(self.refs, resolve_refs))

    return wrapped


LabConfig.__init__ = _accept_resolve_refs(LabConfig.__init__)


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
                        "context_words": q.words,
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


class Scored:
    """One budget's assembly for every question of a retrieval (the assembler's outcome over
    each question's look) and its metrics; the per-question results are built when asked for."""

    __slots__ = ("looks", "outcomes", "metrics", "results")

    def __init__(self, looks: list[Look], outcomes: list[Outcome], metrics: Metrics):
        self.looks, self.outcomes, self.metrics = looks, outcomes, metrics
        self.results: tuple[QuestionResult, ...] | None = None


@dataclass(frozen=True, eq=False)
class Retrieval:
    """Rankings of one index in one mode for a list of questions, to assemble at any budget."""

    index: Index
    mode: str
    questions: tuple[Question, ...]
    rankings: tuple[Ranking, ...] = field(repr=False)
    # The rankings' scores as one questions x chunks matrix, when ranking left them in one.
    matrix: np.ndarray | None = field(default=None, repr=False)
    _results: OrderedDict = field(default_factory=OrderedDict, repr=False, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, init=False)

    @classmethod
    def of(
        cls,
        index: Index,
        questions: Sequence[Question],
        mode: str,
        reranker=None,
        rerank_top: int = RERANK_TOP,
        filters: bool = True,
    ) -> Retrieval:
        rankings, matrix = rank_scored(
            index, questions, mode, reranker=reranker, rerank_top=rerank_top, filters=filters
        )
        return cls(index, mode, tuple(questions), tuple(rankings), matrix)

    def contexts(self, budget: int) -> list[Context]:
        """Every question's context at ``budget``."""
        scored, keys = self._kept([budget])[0], self.index.delivery_keys
        return [
            Context.of(look, outcome, budget, keys)
            for look, outcome in zip(scored.looks, scored.outcomes, strict=True)
        ]

    def evaluate(self, budget: int) -> tuple[QuestionResult, ...]:
        """Every question's result at ``budget``; kept with their metrics for the last
        ``KEPT_BUDGETS`` budgets asked for."""
        scored = self._kept([budget])[0]
        if scored.results is None:
            scored.results = tuple(
                score_questions(
                    self.index,
                    self.questions,
                    self.rankings,
                    scored.looks,
                    scored.outcomes,
                    budget,
                    self.ranked,
                )
            )
        return scored.results

    def evaluate_each(self, budgets: Sequence[int]) -> tuple[QuestionResult, ...]:
        """Every question's result at its own budget (``budgets[j]`` for question ``j``): the
        adaptive budget's hook into assembly."""
        if len(budgets) != len(self.questions):
            raise ValueError(f"{len(budgets)} budgets for {len(self.questions)} questions")
        at = {b: self.evaluate(b) for b in sorted(set(int(b) for b in budgets))}
        return tuple(at[int(b)][j] for j, b in enumerate(budgets))

    def metrics(self, budget: int) -> Metrics:
        """``aggregate(self.evaluate(budget))``, kept with the results."""
        return self._kept([budget])[0].metrics

    def metrics_at(self, budgets: Sequence[int]) -> list[Metrics]:
        """``self.metrics(b)`` for each budget of ``budgets``, those not kept assembled at once."""
        return [scored.metrics for scored in self._kept(budgets)]

    def _kept(self, budgets: Sequence[int]) -> list[Scored]:
        return bounded_get_many(self._lock, self._results, budgets, self._score, KEPT_BUDGETS)

    def _score(self, budgets: Sequence[int]) -> list[Scored]:
        """Assemble and count hits at every budget of ``budgets`` in one walk per question."""
        ascending = sorted(set(budgets))
        looks, walked = self._walk(ascending)
        means, hits = self._means, self._evidence_at
        scored = {}
        for i, budget in enumerate(ascending):
            outcomes = [w[i] for w in walked]
            partial = complete = words = chunks = 0
            for look, (picks, _, used), (at, every) in zip(looks, outcomes, hits, strict=True):
                found = 0
                for p in picks:
                    found |= at.get(look.ranked[p], 0)
                partial += found != 0
                complete += found == every
                words += used
                chunks += len(picks)
            metrics = tally(means, partial, complete, words, chunks)
            scored[budget] = Scored(looks, outcomes, metrics)
        return [scored[b] for b in budgets]

    def _walk(self, budgets: list[int]) -> tuple[list[Look], list[list[Outcome]]]:
        """Per question, the look the assembler needed and its outcome at each budget: the first
        look, or where a budget walked past it, the whole ranking sorted at once and walked
        (``walk_ranking``: a walk that long is looking for a short chunk far down, and often
        goes far; looks growing fourfold, each sorted again, measured slower)."""
        index = self.index
        marks, keys, words = index.delivered_marks, index.delivery_keys, index.words
        looks = list(self.first_looks)
        walked = [walk(look, budgets, marks, keys) for look in looks]
        for j in _short(looks, walked):
            order = offered_order(self.rankings[j].score)
            looks[j], walked[j] = walk_ranking(order, words, budgets, marks, keys)
        return looks, walked

    @cached_property
    def ranked(self) -> list[RankedQuestion]:
        """Per question, what its result owes to the ranking alone (the same at every budget)."""
        return rank_questions(self.index, self.questions, self.rankings, self.first_looks)

    @cached_property
    def _means(self) -> RankingMeans:
        return ranking_means(self.ranked)

    @cached_property
    def _evidence_at(self) -> list[tuple[dict[int, int], int]]:
        """Per question, the evidence spans each chunk holding some holds (a bit per span), and
        the bits of all its spans."""
        out = []
        for r in self.ranked:
            at: dict[int, int] = {}
            for i, holders in enumerate(r.holders):
                for h in holders:
                    at[h] = at.get(h, 0) | 1 << i
            out.append((at, (1 << len(r.holders)) - 1))
        return out

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_lock"] = None
        state["matrix"] = None  # the rankings hold the same scores
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _lock=threading.Lock())

    def scores(self) -> np.ndarray:
        """Questions x chunks: the score each ranking gives each chunk, read-only (built when
        asked, not kept: the rankings hold the same numbers; the matrix ranking left them in, or
        when they are the rows of one matrix, that matrix, is read in place)."""
        if not self.rankings:
            return np.zeros((0, len(self.index.chunks)))
        if self.matrix is not None:
            matrix = self.matrix.view()
            matrix.flags.writeable = False
            return matrix
        rows = [r.score for r in self.rankings]
        matrix = stacked_rows(rows) if len(rows[0]) >= IN_PLACE else None
        if matrix is None:
            matrix = np.stack(rows)
            matrix.flags.writeable = False
        return matrix

    @cached_property
    def first_looks(self) -> list[Look]:
        """Per question, what the assembler examines first (``look_ahead(ranking, words,
        FIRST_LOOK)``, or the whole ranking on a small index), all questions at once."""
        scores, words = self.scores(), self.index.words
        if scores.shape[1] <= FULL_SORT:
            return whole_looks(scores, words)
        heads, offered = [], []
        for lo in range(0, len(scores), LOOK_ROWS):  # a block's rows read while in cache
            block = scores[lo : lo + LOOK_ROWS]
            heads += top_rows(block, FIRST_LOOK)
            offered += np.count_nonzero(block > 0, axis=1).tolist()
        whole = [len(h) == m for h, m in zip(heads, offered, strict=True)]
        looks = [Look.of(h, None, words) if w else None for h, w in zip(heads, whole, strict=True)]
        rest = [j for j, w in enumerate(whole) if not w]
        if not rest:
            return looks
        # The rows with more offered chunks than their head (FIRST_LOOK each), built together.
        order = np.stack([heads[j] for j in rest])
        sizes = words[order]
        # The shortest offered chunk past the head: try the RESTMIN_TRIES shortest chunks of the
        # index first (shortest first), and all of them for a row none of those settles.
        in_head = np.zeros((len(rest), scores.shape[1]), dtype=bool)
        in_head[np.arange(len(rest))[:, None], order] = True
        shortest = np.argsort(words, kind="stable")[:RESTMIN_TRIES]
        ok = (scores[np.ix_(rest, shortest)] > 0) & ~in_head[:, shortest]
        rest_min = words[shortest[ok.argmax(axis=1)]]
        for r in np.flatnonzero(~ok.any(axis=1)).tolist():
            rest_min[r] = words[(scores[rest[r]] > 0) & ~in_head[r]].min()
        least = np.minimum(
            np.minimum.accumulate(sizes[:, ::-1], axis=1)[:, ::-1], rest_min[:, None]
        )
        for j, ranked, size, low, array in zip(
            rest, order.tolist(), sizes.tolist(), least.tolist(), sizes, strict=True
        ):
            looks[j] = Look(ranked, size, low, False, array)
        return looks


def stacked_rows(rows: list[np.ndarray]) -> np.ndarray | None:
    """``np.stack(rows)`` as a read-only view without copying, when the rows already lie one
    after the other in the memory of one array (the rows of a C-ordered matrix, in order);
    None otherwise."""
    first = rows[0]
    base, size = first.base, first.itemsize
    if base is None or first.ndim != 1 or first.strides != (size,):
        return None
    step, start = len(first) * size, first.__array_interface__["data"][0]
    for j, row in enumerate(rows):
        if (
            row.base is not base
            or row.dtype != first.dtype
            or row.shape != first.shape
            or row.strides != first.strides
            or row.__array_interface__["data"][0] != start + j * step
        ):
            return None
    return np.lib.stride_tricks.as_strided(
        first, shape=(len(rows), len(first)), strides=(step, size), writeable=False
    )


def _short(looks: list[Look], walked: list[list[Outcome]]) -> list[int]:
    """The questions where some budget walked to the end of a partial look."""
    return [
        j
        for j, (look, outcomes) in enumerate(zip(looks, walked, strict=True))
        if not look.whole and any(cut == len(look.ranked) for _, cut, _ in outcomes)
    ]


def whole_looks(scores: np.ndarray, words: np.ndarray) -> list[Look]:
    """Every row's whole ranking as a look (every offered chunk, best first, ties in index
    order), from one sort of all rows."""
    q, n = scores.shape
    order = np.argsort(-scores, axis=1, kind="stable")
    offered = np.count_nonzero(scores > 0, axis=1)
    array = words[order]
    beyond = np.arange(n) >= offered[:, None]
    least = np.minimum.accumulate(np.where(beyond, np.iinfo(np.int64).max, array)[:, ::-1], axis=1)
    ranked, sizes, least = order.tolist(), array.tolist(), least[:, ::-1].tolist()
    return [
        Look(ranked[j][:m], sizes[j][:m], least[j][:m], True, array[j, :m])
        for j, m in enumerate(offered.tolist())
    ]


def bounded_get_many(
    lock: threading.Lock, table: OrderedDict, keys: Sequence, make: Callable, limit: int
) -> list:
    """``[table[key] for key in keys]``, those missing made by one ``make(missing keys)`` (outside
    ``lock``, so other threads are not held up), kept as the most recently used; past ``limit``
    entries the least recently used are dropped."""
    found = {}
    with lock:
        for key in keys:
            if key in table:
                table.move_to_end(key)
                found[key] = table[key]
    missing = [key for key in dict.fromkeys(keys) if key not in found]
    if missing:
        made = make(missing)
        found.update(zip(missing, made, strict=True))
        with lock:
            table.update(zip(missing, made, strict=True))
            while len(table) > limit:
                table.popitem(last=False)
    return [found[key] for key in keys]


def bounded_get(lock: threading.Lock, table: OrderedDict, key, make: Callable, limit: int):
    """``table[key]``, made by ``make()`` when missing (see ``bounded_get_many``)."""
    return bounded_get_many(lock, table, [key], lambda _: [make()], limit)[0]


class LabCache:
    """Indexes and rankings kept for reuse across runs, sweeps and budgets (least recently used
    ones dropped past ``max_indexes``). An index serves every corpus of the same documents
    whose questions teach its chunker the same (all of them, for a chunker that learns
    nothing), so writing a question does not chunk again. Safe to share between threads."""

    def __init__(self, max_indexes: int = 32):
        self.max_indexes = max_indexes
        self._indexes: OrderedDict[tuple, Index] = OrderedDict()
        self._retrievals: OrderedDict[tuple, Retrieval] = OrderedDict()
        self._stats: WeakKeyDictionary[Index, OrderedDict] = WeakKeyDictionary()
        self._lock = threading.Lock()

    def index(
        self, corpus: Corpus, config: LabConfig, chunker: str, size: int | None = None
    ) -> Index:
        size = size or config.size
        key = _index_key(corpus, config, chunker, size)
        index = bounded_get(
            self._lock,
            self._indexes,
            key,
            lambda: build_index(
                corpus,
                chunker,
                size,
                overlap=config.overlap,
                headers=config.headers,
                refs=config.refs,
                embedder=embedder_for(config),
                late=config.late,
                heading_guard=config.heading_guard and guarded(chunker),
                tokenizer=tokenizer_for(config),
            ),
            self.max_indexes,
        )
        if index.corpus.digest == corpus.digest:
            return index
        moved = index.over(corpus)  # the same documents with other questions: chunked already
        with self._lock:
            if key in self._indexes:
                self._indexes[key] = moved
        return moved

    def stats(self, index: Index, budget: int) -> IndexStats:
        """``index_stats(index, budget)``, kept while the index lives (``KEPT_BUDGETS`` each)."""
        with self._lock:
            kept = self._stats.setdefault(index, OrderedDict())
        return bounded_get(
            self._lock, kept, budget, lambda: index_stats(index, budget), KEPT_BUDGETS
        )

    def retrieval(
        self,
        index: Index,
        config: LabConfig,
        mode: str,
        unfiltered: bool = False,
        ids: tuple[str, ...] | None = None,
    ) -> Retrieval:
        """Rankings of the split's questions (``ids``: of those questions, whatever their
        split), with their metadata filters as ``config.filters`` says (``unfiltered``: only the
        questions that have one, ranked as if they had none)."""
        filters = config.filters and not unfiltered
        key = (
            _index_key(index.corpus, config, index.chunker, index.size),
            index.corpus.digest,
            ids if ids is not None else config.split,
            mode,
            config.rerank,
            config.rerank_top,
            filters,
            unfiltered,
        )
        questions = index.corpus.split(config.split)
        if ids is not None:
            questions = tuple(q for q in index.corpus.questions if q.id in ids)
        if unfiltered:
            questions = tuple(q for q in questions if q.filter)
        return bounded_get(
            self._lock,
            self._retrievals,
            key,
            lambda: Retrieval.of(
                index, questions, mode, reranker_for(config), config.rerank_top, filters
            ),
            4 * self.max_indexes,
        )


def _index_key(corpus: Corpus, config: LabConfig, chunker: str, size: int) -> tuple:
    """Everything an index depends on: the questions only as far as its chunker learns."""
    return (
        corpus.documents_digest,
        training_key(corpus, chunker),
        chunker,
        size,
        config.overlap,
        config.headers,
        config.refs,
        config.dense,
        config.late,
        config.heading_guard and guarded(chunker),
        config.tokenizer,
    )


def tokenizer_for(config: LabConfig):
    """The shared tokenizer the configuration names, or None when sizes count characters."""
    if config.tokenizer is None:
        return None
    from .tokens import get_tokenizer

    return get_tokenizer(config.tokenizer)


def embedder_for(config: LabConfig):
    """The shared embedder the configuration names, or None when dense retrieval is off."""
    if config.dense is None:
        return None
    from .embed import get_embedder

    return get_embedder(config.dense)


def reranker_for(config: LabConfig):
    """The shared cross-encoder the configuration names, or None."""
    if config.rerank is None:
        return None
    from .rerank import get_reranker

    return get_reranker(config.rerank)


def question_budgets(
    cache: LabCache, retrieval: Retrieval, config: LabConfig, budgets: Sequence[int]
) -> tuple[int, ...]:
    """Each question's adaptive budget (:mod:`lab.adaptive`): fitted on the train questions of
    the same index and mode (their rankings, and whether each candidate budget completes
    them), then read off each of ``retrieval``'s questions' ranking and words."""
    budgets = sorted(set(budgets))
    train = cache.retrieval(retrieval.index, replace(config, split="train"), retrieval.mode)
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
    ``unfiltered_metrics`` say what recall would be without filters."""
    ids = None
    if questions is not None:
        ids = tuple(dict.fromkeys(questions))
        unknown = sorted(set(ids) - {q.id for q in corpus.questions})
        if unknown:
            raise ValueError(f"no question of the corpus has the id(s) {', '.join(unknown)}")
    return _run_lab(corpus, config or LabConfig(), progress, cache or LabCache(), ids)


def _run_lab(
    corpus: Corpus,
    config: LabConfig,
    progress: Progress | None,
    cache: LabCache,
    ids: tuple[str, ...] | None,
) -> LabResult:
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
            budgets: tuple[int, ...] = ()
            if config.adaptive:
                budgets = question_budgets(cache, retrieval, config, config.adaptive_budgets)
                results = retrieval.evaluate_each(budgets)
                metrics = aggregate(results)
            else:
                results = retrieval.evaluate(config.budget)
                metrics = retrieval.metrics(config.budget)
            unfiltered, without = (), None
            if filtered:
                apart = cache.retrieval(index, config, mode, True, ids)
                unfiltered = (
                    apart.evaluate_each(
                        question_budgets(cache, apart, config, config.adaptive_budgets)
                    )
                    if config.adaptive
                    else apart.evaluate(config.budget)
                )
                replaced = {r.id: r for r in unfiltered}
                without = aggregate([replaced.get(r.id, r) for r in results])
            runs.append(Run(chunker, mode, metrics, stats, results, unfiltered, without, budgets))
            if progress:
                progress(len(runs), total)
    return LabResult(config, tuple(runs), (*corpus.errors, *failed))


@dataclass(frozen=True, eq=False)
class Explanation:
    """Everything behind one question's result in one configuration."""

    question: Question
    index: Index
    ranking: Ranking
    context: Context
    result: QuestionResult

    def frame(self, limit: int | None = None) -> pd.DataFrame:
        """The ranking: offered chunks best first, with scores and what the assembler did."""
        holders = {int(k) for ev in self.question.evidence for k in self.index.holding(ev)}
        rows = []
        order = self.ranking.order if limit is None else self.ranking.order[:limit]
        ranking = self.ranking
        documents = self.index.corpus.documents
        for pos, k in enumerate(order.tolist()):
            c = self.index.chunks[k]
            row = {
                "rank": pos + 1,
                "chunk": c.id,
                "document": documents[c.doc].name,
                "bm25": float(ranking.bm25[k]),
                "pagerank": float(ranking.pagerank[k]) if ranking.pagerank is not None else None,
                "score": float(ranking.score[k]),
                "words": c.words,
                "seed": k in ranking.seeds,
                "evidence": k in holders,
                "decision": (decision := self.context.decision(k, pos, c.words)),
                "why": context_note(self.context, decision, k, pos, c.words, self.index),
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
    retrieval = Retrieval.of(index, [question], mode, reranker, rerank_top, filters)
    context = retrieval.contexts(budget)[0]
    result = score_question(index, question, retrieval.rankings[0], context)
    return Explanation(question, index, retrieval.rankings[0], context, result)


@dataclass(frozen=True, eq=False)
class SweepResult:
    config: LabConfig
    rows: tuple[dict, ...]

    def frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(list(self.rows))

    def to_dict(self) -> dict:
        return {"config": asdict(self.config), "rows": list(self.rows)}


def sweep(
    corpus: Corpus,
    config: LabConfig | None = None,
    budgets: Iterable[int] = DEFAULT_BUDGETS,
    sizes: Iterable[int] = DEFAULT_SIZES,
    progress: Progress | None = None,
    cache: LabCache | None = None,
    client=None,
) -> SweepResult:
    """Recall over the budget x size grid for every chunker and mode: chunk and index once per size,
    rank once per mode, assemble once per budget.

    The work is one task per chunker and size (:func:`sweep_cell`); ``progress(done, total)``
    counts finished tasks. Without a ``client`` the tasks run here, one after another, reusing
    ``cache``. With a ``distributed.Client`` they run on its Dask cluster (see
    :mod:`lab.cluster`): the corpus is sent to the workers once, indexes (and their embeddings)
    are built there, and the rows come back in the same order, identical to a serial run.
    """
    config = config or LabConfig()
    budgets, sizes = sorted(set(budgets)), sorted(set(sizes))
    if not budgets or not sizes:
        raise ValueError("give at least one budget and one size")
    for b in budgets:
        replace(config, budget=b)
    for s in sizes:
        for chunker in config.chunkers:
            check_chunking(chunker, s, config.overlap)
    cells = [(chunker, size) for size in sizes for chunker in config.chunkers]
    if client is not None:
        from .cluster import sweep_on_cluster

        parts = sweep_on_cluster(client, corpus, config, cells, tuple(budgets), progress)
    else:
        cache = cache or LabCache()
        parts = []
        for chunker, size in cells:
            parts.append(sweep_cell(corpus, config, chunker, size, budgets, cache))
            if progress:
                progress(len(parts), len(cells))
    return SweepResult(config, tuple(row for part in parts for row in part))


def sweep_cell(
    corpus: Corpus,
    config: LabConfig,
    chunker: str,
    size: int,
    budgets: Sequence[int],
    cache: LabCache | None = None,
) -> tuple[dict, ...]:
    """One task of a sweep: the rows of one chunker at one size, for every mode of ``config``
    and every budget, from a single index (its embeddings included) and one ranking per mode."""
    cache = cache or LabCache()
    index = cache.index(corpus, config, chunker, size)
    lengths = np.sort(index.words)
    over = (len(lengths) - np.searchsorted(lengths, budgets, side="right")).tolist()
    rows = []
    for mode in config.modes:
        retrieval = cache.retrieval(index, config, mode)
        for budget, metrics, too_long in zip(
            budgets, retrieval.metrics_at(budgets), over, strict=True
        ):
            rows.append(
                {
                    "chunker": chunker,
                    "mode": mode,
                    "size": size,
                    "budget": budget,
                    "questions": metrics.questions,
                    "partial": metrics.partial,
                    "partial_low": metrics.partial_ci[0],
                    "partial_high": metrics.partial_ci[1],
                    "complete": metrics.complete,
                    "complete_low": metrics.complete_ci[0],
                    "complete_high": metrics.complete_ci[1],
                    "gap": metrics.gap,
                    "mean_context_words": metrics.mean_context_words,
                    "chunks": len(index.chunks),
                    "over_budget_chunks": too_long,
                    "fits": too_long < len(lengths),
                }
            )
        if config.adaptive:
            rows.append(_adaptive_row(cache, retrieval, config, budgets, rows[-1]))
    if config.adaptive:
        for row in rows:
            row.setdefault("adaptive", False)
    return tuple(rows)


def _adaptive_row(
    cache: LabCache, retrieval: Retrieval, config: LabConfig, budgets: Sequence[int], like: dict
) -> dict:
    """The adaptive budget's sweep row: a point on the budget curve at its mean budget (its
    candidates are the sweep's budgets)."""
    chosen = question_budgets(cache, retrieval, config, budgets)
    metrics = aggregate(retrieval.evaluate_each(chosen))
    longest = max(budgets)
    lengths = retrieval.index.words
    return {
        **like,
        "budget": round(sum(chosen) / len(chosen), 2) if chosen else float(longest),
        "questions": metrics.questions,
        "partial": metrics.partial,
        "partial_low": metrics.partial_ci[0],
        "partial_high": metrics.partial_ci[1],
        "complete": metrics.complete,
        "complete_low": metrics.complete_ci[0],
        "complete_high": metrics.complete_ci[1],
        "gap": metrics.gap,
        "mean_context_words": metrics.mean_context_words,
        "over_budget_chunks": int((lengths > longest).sum()),
        "fits": bool((lengths <= longest).any()),
        "adaptive": True,
    }


__all__ = [
    "untrained_chunkers",
    "DEFAULT_BUDGETS",
    "DEFAULT_CHUNKERS",
    "DEFAULT_SIZES",
    "Explanation",
    "LabCache",
    "LabConfig",
    "LabResult",
    "Run",
    "SPLITS",
    "SweepResult",
    "explain",
    "question_budget",
    "run_lab",
    "sweep",
    "sweep_cell",
]
