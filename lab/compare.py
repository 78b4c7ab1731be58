"""Compare two configurations on the same questions: which questions B fixed or broke, and
whether the difference is more than noise.

A configuration here is one chunker in one retrieval mode with all its settings (a ``LabConfig``
naming one chunker and one mode). Each question gets a verdict under A and under B; a question
B passes and A fails is *fixed*, the reverse *broken*. With a few dozen questions one question
moves a recall by several points, so the counts come with the exact McNemar test on the changed
questions, a paired bootstrap interval of the difference in recall, and Wilson intervals of both
recalls (:mod:`lab.stats`). Measure before and after every change, one change at a time: when A
and B differ in more than one setting, the comparison says so.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING

from .adaptive import ADAPTIVE
from .cache import LabCache
from .chunkers import CHUNKERS, references_switched
from .config import LabConfig
from .corpus import Corpus
from .depth import Depth, ranking_depth
from .embed import DEFAULT_MODEL
from .formats import parser_label
from .leaders import Leaders, leaders
from .metrics import Metrics, QuestionResult
from .rerank import DEFAULT_RERANKER
from .run import LabResult, run_lab
from .stats import (
    CONFIDENCE,
    mcnemar_exact,
    mcnemar_interval,
    paired_bootstrap,
    wilson_interval,
)

if TYPE_CHECKING:  # pandas is imported by the methods that build tables, not with the lab
    import pandas as pd

ALPHA = 1 - CONFIDENCE  # a p-value below this is called significant
FIXED, BROKEN, SAME = "fixed", "broken", "same"
TRANSITIONS = (FIXED, BROKEN, SAME)
MEASURES = ("complete", "partial")

ALIASES = {"chunker": "chunkers", "mode": "modes"}  # a comparison's side has one of each
OLD_NAMES = {"resolve_refs": "refs"}  # the on/off switch refs replaced: false is refs=off
NAMES = {field: name for name, field in ALIASES.items()}
SWITCHED_ON = {"dense": DEFAULT_MODEL, "rerank": DEFAULT_RERANKER}  # "dense=true" names these
TRUE, FALSE = ("true", "on", "yes", "1"), ("false", "off", "no", "0")
# Shares in JSON: recall over n questions moves in steps of 1/n, and resampled intervals end on
# such steps too; four decimals tell apart any two of them for n under 10,000 and drop the
# float noise of a subtraction (0.04999999999999999 is 0.05).
DECIMALS = 4
EMBEDDING_MODES = ("dense", "hybrid", "graph")  # graph: seeded from the hybrid fusion


def share(x: float) -> float:
    """A share (recall, a difference of recalls, an interval end) as JSON gives it."""
    return round(x, DECIMALS) + 0.0  # + 0.0: no "-0.0"


def uses_embeddings(config: LabConfig) -> bool:
    """Whether a configuration's results depend on its dense model: dense or hybrid retrieval,
    graph mode (seeded from the hybrid fusion when dense is on), a chunker that needs
    embeddings, late chunking or reranking. With dense off, never."""
    if config.dense is None:
        return False
    return (
        any(m in EMBEDDING_MODES for m in config.modes)
        or any(CHUNKERS[c].dense for c in config.chunkers)
        or config.late
        or config.rerank is not None
    )


def label(config: LabConfig) -> str:
    """ "chunker · mode" of a configuration with one of each."""
    return f"{' + '.join(config.chunkers)} · {' + '.join(config.modes)}"


def setting_names() -> list[str]:
    """The settings a comparison's side can name: every field of ``LabConfig``, one chunker and
    one mode."""
    return [NAMES.get(f.name, f.name) for f in fields(LabConfig)]


def _coerce(name: str, hint, text: str):
    """``text`` as a value of the ``LabConfig`` field ``name`` whose type is ``hint``."""
    low = text.strip().lower()
    if hint is bool:
        if low not in TRUE + FALSE:
            raise ValueError(f"{name} must be true or false, got {text!r}")
        return low in TRUE
    if hint is int:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{name} must be a whole number, got {text!r}") from None
    if hint == int | str:  # a budget: words, or "adaptive"
        if low == ADAPTIVE:
            return ADAPTIVE
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{name} must be a whole number or {ADAPTIVE}, got {text!r}") from None
    if hint == tuple[int, ...]:  # budgets: 40+120+300
        try:
            return tuple(int(part) for part in text.split("+"))
        except ValueError:
            raise ValueError(f"{name} must be whole numbers joined by +, got {text!r}") from None
    if hint == tuple[str, ...]:
        return (text.strip(),)
    if isinstance(hint, types.UnionType) and type(None) in typing.get_args(hint):
        if low in FALSE + ("none",):
            return None
        return SWITCHED_ON.get(name, text.strip()) if low in TRUE else text.strip()
    if hint is str:
        return text.strip()
    raise ValueError(f"{name} cannot be given as text")


def configure(base: LabConfig, settings: str | Mapping[str, str]) -> LabConfig:
    """``base`` with ``settings`` changed: ``"chunker=structure,mode=graph,refs=off"`` or a
    mapping of setting names to values (names from :func:`setting_names`; the older
    ``resolve_refs=true|false`` still reads as ``refs``, false being "off"). Raises
    ``ValueError`` naming an unknown setting or a value that does not fit."""
    if isinstance(settings, str):
        pairs = []
        for item in (p.strip() for p in settings.split(",")):
            if not item:
                continue
            name, eq, value = item.partition("=")
            if not eq or not name.strip():
                raise ValueError(f"expected NAME=VALUE, got {item!r}")
            pairs.append((name.strip(), value))
    else:
        pairs = list(settings.items())
    hints = typing.get_type_hints(LabConfig)
    changes: dict[str, object] = {}
    given: dict[str, str] = {}  # field: the name that set it
    for name, value in pairs:
        field = ALIASES.get(name, OLD_NAMES.get(name, name))
        if field not in hints:
            raise ValueError(f"unknown setting {name!r}; settings are {', '.join(setting_names())}")
        if field in changes:
            if given[field] == name:
                raise ValueError(f"{name} is given twice")
            both = " and ".join(sorted((name, given[field])))
            raise ValueError(f"{field} is given twice ({both} are one setting)")
        given[field] = name
        if name in OLD_NAMES:
            changes[field] = references_switched(base.refs, _coerce(name, bool, value))
        else:
            changes[field] = _coerce(name, hints[field], value)
    return replace(base, **changes)


@dataclass(frozen=True)
class Difference:
    """One setting whose value differs between A and B."""

    setting: str
    a: object
    b: object

    def __str__(self) -> str:
        return f"{self.setting} ({shown(self.a)} → {shown(self.b)})"


def shown(value) -> str:
    """A setting's value in words: a one-item tuple as its item, booleans and None as on/off."""
    if isinstance(value, tuple):
        return " + ".join(map(str, value))
    if isinstance(value, bool):
        return "on" if value else "off"
    return "off" if value is None else str(value)


def differences(
    a: LabConfig, b: LabConfig, formats: frozenset[str] | None = None
) -> tuple[Difference, ...]:
    """Every setting (field of ``LabConfig``) whose value differs, the parser (the first stage)
    first, then in field order; with ``formats`` (the corpus's), the parser as the readings it
    gives them (``main → page``), and only when those differ."""
    found = []
    for f in sorted(fields(LabConfig), key=lambda f: f.name != "parser"):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "parser" and formats is not None:
            x, y = parser_label(x, formats), parser_label(y, formats)
        if x != y:
            found.append(Difference(NAMES.get(f.name, f.name), x, y))
    return tuple(found)


@dataclass(frozen=True)
class Recall:
    """``hits`` of ``n`` questions, with the Wilson interval of the share."""

    hits: int
    n: int
    low: float
    high: float

    @classmethod
    def of(cls, verdicts: Sequence[bool]) -> Recall:
        hits, n = sum(verdicts), len(verdicts)
        return cls(hits, n, *wilson_interval(hits, n))

    @property
    def value(self) -> float:
        return self.hits / self.n if self.n else 0.0

    def as_dict(self) -> dict:
        return {
            "recall": share(self.value),
            "questions": self.hits,
            "interval": [share(self.low), share(self.high)],
        }


@dataclass(frozen=True)
class Transitions:
    """How the verdicts of one measure (complete or partial recall) moved from A to B."""

    measure: str
    fixed: int  # B passes, A did not
    broken: int  # A passed, B does not
    kept: int  # both pass
    failed: int  # neither passes
    a: Recall
    b: Recall
    p_value: float  # exact McNemar, two-sided
    ci: tuple[float, float]  # paired bootstrap interval of B's recall minus A's
    exact_ci: tuple[float, float]  # the exact McNemar test's own interval of the same

    @classmethod
    def of(cls, measure: str, a: Sequence[bool], b: Sequence[bool]) -> Transitions:
        pairs = list(zip(a, b, strict=True))
        fixed = sum(1 for x, y in pairs if y and not x)
        broken = sum(1 for x, y in pairs if x and not y)
        return cls(
            measure=measure,
            fixed=fixed,
            broken=broken,
            kept=sum(1 for x, y in pairs if x and y),
            failed=sum(1 for x, y in pairs if not x and not y),
            a=Recall.of(a),
            b=Recall.of(b),
            p_value=mcnemar_exact(fixed, broken),
            ci=paired_bootstrap(a, b),
            exact_ci=mcnemar_interval(fixed, broken, len(pairs)),
        )

    @property
    def difference(self) -> float:
        return self.b.value - self.a.value

    @property
    def significant(self) -> bool:
        return self.p_value < ALPHA

    def verdict(self) -> str:
        """The transitions and their significance in plain words."""
        n = self.a.n
        if self.fixed == self.broken == 0:
            return (
                f"B fixes no question and breaks none: A and B give the same {self.measure} "
                f"verdicts on all {n} questions."
            )
        low, high = self.exact_ci
        sentence = (
            f"B {self.moves()}: {points(self.difference)} points (95% interval "
            f"{points(low)} to {points(high)}). With {n} questions this difference is "
            f"{'' if self.significant else 'not '}significant (exact McNemar test, "
            f"p = {p_text(self.p_value)}); the interval "
            f"{'leaves out' if self.significant else 'includes'} zero."
        )
        changed, needed = self.fixed + self.broken, fewest_significant()
        if changed < needed:
            sentence += (
                f" Only {changed} question{'s' * (changed != 1)} changed; at least {needed}, "
                "all the same way, would be needed to be significant."
            )
        return sentence

    def moves(self) -> str:
        """ "fixes 2 questions and breaks 1"."""
        fixes = f"fixes {self.fixed} question{'s' * (self.fixed != 1)}"
        return f"{fixes} and {f'breaks {self.broken}' if self.broken else 'breaks none'}"

    def as_dict(self) -> dict:
        return {
            "fixed": self.fixed,
            "broken": self.broken,
            "unchanged_pass": self.kept,
            "unchanged_fail": self.failed,
            "a": self.a.as_dict(),
            "b": self.b.as_dict(),
            "difference": share(self.difference),
            "p_value": self.p_value,
            "ci": [share(x) for x in self.ci],
            "exact_ci": [share(x) for x in self.exact_ci],
        }


def fewest_significant() -> int:
    """The fewest changed questions, all going one way, that the exact McNemar test calls
    significant (6 at the 5% level)."""
    changed = 1
    while mcnemar_exact(changed, 0) >= ALPHA:
        changed += 1
    return changed


def points(x: float) -> str:
    """A share as signed percentage points: whole points, one decimal when that would read
    as zero ("+0.4"), "0" for none."""
    value = 100 * x
    if value == 0:
        return "0"
    return f"{value:+.0f}" if abs(value) >= 0.5 else f"{value:+.1f}"


def p_text(p: float) -> str:
    """A p-value to two decimals, three below 0.1 (so 0.05 is never a rounded 0.0496)."""
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


@dataclass(frozen=True)
class QuestionChange:
    """One question under A and B: verdicts ``complete|partial|miss`` and the transitions of
    complete and of partial recall (``fixed|broken|same``)."""

    id: str
    text: str
    a: str
    b: str
    transition: str
    partial_transition: str


def _transition(a: bool, b: bool) -> str:
    return FIXED if b and not a else BROKEN if a and not b else SAME


@dataclass(frozen=True, eq=False)
class Comparison:
    """A against B on the same questions."""

    a: LabConfig
    b: LabConfig
    differences: tuple[Difference, ...]
    questions: tuple[QuestionChange, ...]
    complete: Transitions
    partial: Transitions
    metrics_a: Metrics
    metrics_b: Metrics
    depth_a: Depth
    depth_b: Depth
    # questions one side scored and the other did not (B reading its own corpus may not
    # locate every question's evidence): left out of the comparison
    only_a: tuple[str, ...] = ()
    only_b: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        """What B did to complete recall, in plain words, and to partial recall when complete
        recall did not move but partial did."""
        text = self.complete.verdict()
        c, p = self.complete, self.partial
        if c.fixed == c.broken == 0 and p.fixed + p.broken:
            text += (
                f" Partial recall (some evidence in the context) moved: B {p.moves()} "
                f"({points(p.difference)} points, p = {p_text(p.p_value)})."
            )
        return text

    @property
    def warning(self) -> str | None:
        """Set when A and B differ in more than one setting."""
        if len(self.differences) < 2:
            return None
        names = ", ".join(d.setting for d in self.differences)
        return (
            f"A and B differ in {len(self.differences)} settings ({names}): change one thing at "
            "a time, or you cannot tell which change made the difference."
        )

    def transitions(self, measure: str) -> Transitions:
        return {"complete": self.complete, "partial": self.partial}[measure]

    def frame(self) -> pd.DataFrame:
        """One row per question: its text, verdicts and transitions."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "id": q.id,
                    "question": q.text,
                    "a": q.a,
                    "b": q.b,
                    "transition": q.transition,
                    "partial_transition": q.partial_transition,
                }
                for q in self.questions
            ],
            columns=["id", "question", "a", "b", "transition", "partial_transition"],
        )

    def to_dict(self) -> dict:
        return {
            "a": _config_dict(self.a),
            "b": _config_dict(self.b),
            "differences": [
                {"setting": d.setting, "a": shown(d.a), "b": shown(d.b)} for d in self.differences
            ],
            "questions": [
                {"id": q.id, "a": q.a, "b": q.b, "transition": q.transition} for q in self.questions
            ],
            "complete": self.complete.as_dict(),
            "partial": self.partial.as_dict(),
            "verdict": self.verdict,
            "warning": self.warning,
            "depth": {"a": self.depth_a.as_dict(), "b": self.depth_b.as_dict()},
        } | ({"only_a": list(self.only_a), "only_b": list(self.only_b)} if self.unmatched else {})

    @property
    def unmatched(self) -> str | None:
        """Which questions only one side scored, in words (None when both scored the same)."""
        if not self.only_a and not self.only_b:
            return None
        parts = [
            f"{len(ids)} only {side} ({', '.join(ids[:5])}{', ...' if len(ids) > 5 else ''})"
            for side, ids in (("A", self.only_a), ("B", self.only_b))
            if ids
        ]
        return (
            f"Compared on the {len(self.questions)} questions both sides scored; left out: "
            + "; ".join(parts)
            + " (their evidence was not found in the other side's reading)."
        )


def _config_dict(config: LabConfig) -> dict:
    """The configuration as JSON-ready data, with its "chunker · mode" label."""
    values = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(config).items()}
    return {"label": label(config), **values}


def check_pair(corpus: Corpus, a: LabConfig, b: LabConfig) -> None:
    """Raise ``ValueError`` unless A and B are two configurations of one chunker and one mode
    each that score the same, non-empty set of questions and differ in a setting that matters
    here (a parser that reads ``corpus``'s documents as A's does is no difference)."""
    for side, config in (("A", a), ("B", b)):
        for what, values in (("chunker", config.chunkers), ("mode", config.modes)):
            if len(values) != 1:
                raise ValueError(
                    f"{side} must name one {what}, got {len(values)} ({shown(values)}): "
                    f"set {what}=NAME"
                )
    if a.split != b.split:
        raise ValueError(
            f"A and B must score the same questions: A uses the {a.split} split, "
            f"B the {b.split} split"
        )
    if not differences(a, b, frozenset(info.format for info in corpus.info)):
        raise ValueError(
            f"A and B are the same configuration ({label(a)}): change one setting of B"
        )
    if not corpus.split(a.split):
        counts = ", ".join(
            f"{sum(q.split == s for q in corpus.questions)} {s}" for s in ("train", "test")
        )
        raise ValueError(
            f"{corpus.name} has no {a.split} questions to compare on (it has {counts}): "
            "choose another split"
        )


def compare_results(corpus: Corpus, a: LabResult, b: LabResult) -> Comparison:
    """Compare the single runs of two results on the same questions of ``corpus``. Where A's
    and B's parsers read its documents differently, questions are matched by id and those only
    one side scored are left out, named in ``only_a`` and ``only_b``."""
    check_pair(corpus, a.config, b.config)
    corpus, corpus_b = corpus.read_with(a.config.parser), corpus.read_with(b.config.parser)
    ra, rb = a.runs[0].questions, b.runs[0].questions
    only_a = only_b = ()
    if corpus_b is corpus:
        if [q.id for q in ra] != [q.id for q in rb]:
            raise ValueError("A and B were scored on different questions")
    else:
        ids_a, ids_b = {q.id for q in ra}, {q.id for q in rb}
        only_a = tuple(q.id for q in ra if q.id not in ids_b)
        only_b = tuple(q.id for q in rb if q.id not in ids_a)
        by_id = {q.id: q for q in rb}
        ra = [q for q in ra if q.id in by_id]
        rb = [by_id[q.id] for q in ra]
        if not ra:
            raise ValueError("A and B have no question in common to compare on")
    text = {q.id: q.question for q in (*corpus_b.questions, *corpus.questions)}
    questions = tuple(
        QuestionChange(
            x.id,
            text.get(x.id, ""),
            x.verdict,
            y.verdict,
            _transition(x.complete, y.complete),
            _transition(x.partial, y.partial),
        )
        for x, y in zip(ra, rb, strict=True)
    )
    return Comparison(
        a=a.config,
        b=b.config,
        differences=differences(a.config, b.config, frozenset(i.format for i in corpus.info)),
        questions=questions,
        complete=_measure("complete", ra, rb),
        partial=_measure("partial", ra, rb),
        metrics_a=a.runs[0].metrics,
        metrics_b=b.runs[0].metrics,
        depth_a=ranking_depth(ra),
        depth_b=ranking_depth(rb),
        only_a=only_a,
        only_b=only_b,
    )


def _measure(measure: str, a: Sequence[QuestionResult], b: Sequence[QuestionResult]) -> Transitions:
    return Transitions.of(
        measure, [getattr(r, measure) for r in a], [getattr(r, measure) for r in b]
    )


def compare(
    corpus: Corpus,
    a: LabConfig,
    b: LabConfig,
    cache: LabCache | None = None,
    *,
    cache_b: LabCache | None = None,
) -> Comparison:
    """Run A and B (one chunker and one mode each) on the corpus's questions of their split and
    compare them question by question. Each side reads the documents with its ``parser``;
    where the readings differ, B runs on its own (with ``cache_b``) and questions match by
    id."""
    check_pair(corpus, a, b)
    cache = cache or LabCache()
    result_a = run_lab(corpus, a, cache=cache)
    same_reading = corpus.read_with(a.parser) is corpus.read_with(b.parser)
    result_b = run_lab(corpus, b, cache=cache if same_reading else cache_b or LabCache())
    return compare_results(corpus, result_a, result_b)


__all__ = [
    "Comparison",
    "Difference",
    "Leaders",
    "QuestionChange",
    "Recall",
    "Transitions",
    "compare",
    "compare_results",
    "configure",
    "differences",
    "leaders",
    "p_text",
    "points",
    "setting_names",
    "uses_embeddings",
]
