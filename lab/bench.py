"""Timings of the engine: the bundled handbook, generated corpora of 100 KB and 1 MB, and the
default sweep grid, each a median over repeats of ``time.perf_counter``; a per-stage breakdown
and a cProfile of the largest run show where the time goes.

Run by ``python -m lab bench`` and ``benchmarks/``, never by the test suite.
"""

from __future__ import annotations

import cProfile
import pstats
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter

from .corpus import build_corpus
from .generate import generate_corpus
from .metrics import aggregate, index_stats, score_question
from .parse import parse_document
from .run import DEFAULT_BUDGETS, DEFAULT_SIZES, LabConfig, Retrieval, index_for, run_lab, sweep

ROOT = Path(__file__).resolve().parent.parent
HANDBOOK = ROOT / "data" / "handbook.md"
HANDBOOK_QE = ROOT / "data" / "handbook_qe.json"

# Every chunker in both modes, scoring every question (train and test).
FULL = LabConfig(split="all")

GOAL_HANDBOOK = 0.011  # seconds per full run
GOAL_GENERATED = 5.0  # seconds per full run of the 1 MB corpus
GOAL_SCALING = 12.0  # 1 MB time / 100 KB time
GOAL_SWEEP = 2.0  # seconds for the default grid on the handbook

Log = Callable[[str], None]


@dataclass(frozen=True)
class Timing:
    """Seconds of each repeat of one benchmark, and its goal (seconds) if it has one."""

    name: str
    seconds: tuple[float, ...]
    goal: float | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def best(self) -> float:
        return min(self.seconds)


@dataclass(frozen=True)
class Stages:
    """Seconds per stage of one full run: loading once, then each stage per chunker."""

    label: str
    parse: float  # parse_document alone
    load: float  # build_corpus: parse + validate questions + locate evidence
    per_chunker: dict[str, dict[str, float]]

    STAGES = ("index", "stats", "graph", "rank flat", "rank graph", "assemble", "score")


@dataclass(frozen=True)
class Hotspot:
    function: str
    calls: int
    own: float  # seconds inside the function itself
    total: float  # seconds including callees


@dataclass
class Report:
    quick: bool
    timings: list[Timing] = field(default_factory=list)
    scaling: tuple[str, float, float | None] | None = None  # label, ratio, goal
    stages: list[Stages] = field(default_factory=list)
    profile_label: str = ""
    by_own: list[Hotspot] = field(default_factory=list)
    by_total: list[Hotspot] = field(default_factory=list)

    def format(self) -> str:
        return format_report(self)


def _repeat(fn: Callable[[], object], repeats: int) -> tuple[float, ...]:
    times = []
    for _ in range(repeats):
        start = perf_counter()
        fn()
        times.append(perf_counter() - start)
    return tuple(times)


def _handbook_texts() -> tuple[str, str]:
    return HANDBOOK.read_text(encoding="utf-8"), HANDBOOK_QE.read_text(encoding="utf-8")


def bench_handbook(repeats: int = 50, config: LabConfig = FULL) -> Timing:
    """Load and parse the handbook from in-memory strings, then run every chunker x mode."""
    text, qe = _handbook_texts()
    seconds = _repeat(lambda: run_lab(build_corpus({"handbook": text}, qe), config), repeats)
    return Timing(f"handbook full run ({_label(config)})", seconds, GOAL_HANDBOOK)


def bench_generated(
    text: str, qe: dict, repeats: int = 3, config: LabConfig = FULL, goal: float | None = None
) -> Timing:
    """Load a generated corpus from memory and run every chunker x mode on it."""
    seconds = _repeat(lambda: run_lab(build_corpus({"generated": text}, qe), config), repeats)
    return Timing(f"generated {_size(len(text))}, {len(qe['questions'])} questions", seconds, goal)


def bench_sweep(
    repeats: int = 5,
    config: LabConfig = FULL,
    budgets: tuple[int, ...] = DEFAULT_BUDGETS,
    sizes: tuple[int, ...] = DEFAULT_SIZES,
    goal: float | None = GOAL_SWEEP,
) -> Timing:
    """The budget x size sweep on the handbook (corpus loaded once, outside the timing)."""
    text, qe = _handbook_texts()
    corpus = build_corpus({"handbook": text}, qe)
    seconds = _repeat(lambda: sweep(corpus, config, budgets, sizes), repeats)
    grid = f"{len(budgets)} budgets x {len(sizes)} sizes"
    return Timing(f"handbook sweep ({grid}, {_label(config)})", seconds, goal)


class _Laps:
    """A stopwatch adding the seconds since the previous lap to a stage."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(Stages.STAGES, 0.0)
        self.last = perf_counter()

    def __call__(self, stage: str) -> None:
        now = perf_counter()
        self.seconds[stage] += now - self.last
        self.last = now


def stage_breakdown(label: str, text: str, qe: dict | str, config: LabConfig = FULL) -> Stages:
    """Time each stage of one full run separately, in the order ``run_lab`` runs them."""
    start = perf_counter()
    parse_document(text, "bench")
    parse = perf_counter() - start
    start = perf_counter()
    corpus = build_corpus({"bench": text}, qe)
    load = perf_counter() - start
    questions = corpus.split(config.split)
    per_chunker = {}
    for chunker in config.chunkers:
        lap = _Laps()
        index = index_for(corpus, config, chunker)
        lap("index")
        index_stats(index, config.budget)
        lap("stats")
        if "graph" in config.modes:
            _ = index.graph
            lap("graph")
        for mode in config.modes:
            retrieval = Retrieval.of(index, questions, mode)
            lap(f"rank {mode}")
            contexts = retrieval.contexts(config.budget)
            lap("assemble")
            triples = zip(questions, retrieval.rankings, contexts, strict=True)
            aggregate([score_question(index, q, r, c) for q, r, c in triples])
            lap("score")
        per_chunker[chunker] = lap.seconds
    return Stages(label, parse, load, per_chunker)


def profile_run(
    text: str, qe: dict | str, config: LabConfig = FULL, top: int = 15
) -> tuple[list[Hotspot], list[Hotspot]]:
    """cProfile one load + full run: the ``top`` functions by own time, and the ``top`` lab
    functions by time including callees."""
    profiler = cProfile.Profile()
    profiler.enable()
    run_lab(build_corpus({"generated": text}, qe), config)
    profiler.disable()
    rows = [
        Hotspot(_where(*key), calls, own, total)
        for key, (_, calls, own, total, _) in pstats.Stats(profiler).stats.items()
    ]
    by_own = sorted(rows, key=lambda h: -h.own)[:top]
    lab = [h for h in rows if h.function.startswith("lab/")]
    by_total = sorted(lab, key=lambda h: -h.total)[:top]
    return by_own, by_total


def _where(file: str, line: int, function: str) -> str:
    if file == "~":
        return function
    path = Path(file)
    if path.is_relative_to(ROOT):
        shown = path.relative_to(ROOT).as_posix()
    elif "site-packages" in path.parts:
        shown = "/".join(path.parts[path.parts.index("site-packages") + 1 :])
    else:
        shown = path.name
    return f"{shown}:{line}({function})"


def run_all(quick: bool = False, log: Log | None = None) -> Report:
    """Every benchmark: full sizes and repeats, or tiny ones with ``quick`` (a smoke run)."""
    say = log or (lambda _: None)
    report = Report(quick)
    say("handbook full run")
    report.timings.append(bench_handbook(repeats=5 if quick else 50))
    small, large, n_questions = (10_000, 20_000, 40) if quick else (100_000, 1_000_000, 1000)
    generated = {}
    for target in (small, large):
        say(f"generating {_size(target)} with {n_questions} questions")
        generated[target] = generate_corpus(target, n_questions)
        say(f"timing {_size(target)}")
        goal = GOAL_GENERATED if target == 1_000_000 else None
        report.timings.append(
            bench_generated(*generated[target], repeats=2 if quick else 3, goal=goal)
        )
    ratio = report.timings[-1].median / report.timings[-2].median
    report.scaling = (f"{_size(large)} / {_size(small)}", ratio, None if quick else GOAL_SCALING)
    say("sweep")
    if quick:
        report.timings.append(
            bench_sweep(repeats=1, budgets=(40, 120), sizes=(250, 450), goal=None)
        )
    else:
        report.timings.append(bench_sweep())
    for target, (text, qe) in generated.items():
        say(f"stages {_size(target)}")
        report.stages.append(stage_breakdown(f"generated {_size(target)}", text, qe))
    say(f"profiling {_size(large)}")
    report.profile_label = f"generated {_size(large)}, {n_questions} questions, {_label(FULL)}"
    report.by_own, report.by_total = profile_run(*generated[large], top=8 if quick else 20)
    return report


def _label(config: LabConfig) -> str:
    modes = " + ".join(config.modes)
    return f"{len(config.chunkers)} chunkers x {modes}, split {config.split}"


def _size(chars: int) -> str:
    return f"{chars / 1_000_000:.1f} MB" if chars >= 950_000 else f"{chars / 1000:.0f} KB"


def _seconds(s: float) -> str:
    return f"{1000 * s:.1f} ms" if s < 1 else f"{s:.2f} s"


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max(map(len, col)) for col in zip(header, *rows, strict=True)]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in (header, *rows)
    ]
    return "\n".join(lines)


def _status(value: float, goal: float | None) -> str:
    if goal is None:
        return ""
    return "ok" if value <= goal else f"over ({value / goal:.1f}x goal)"


def format_report(report: Report) -> str:
    """The figures as plain-text tables."""
    rows = [
        (
            t.name,
            str(len(t.seconds)),
            _seconds(t.median),
            _seconds(t.best),
            "" if t.goal is None else f"<= {_seconds(t.goal)}",
            _status(t.median, t.goal),
        )
        for t in report.timings
    ]
    if report.scaling:
        label, ratio, goal = report.scaling
        rows.append(
            (
                f"scaling {label}",
                "",
                f"{ratio:.1f}x",
                "",
                "" if goal is None else f"<= {goal:g}x",
                _status(ratio, goal),
            )
        )
    out = [
        "Timings" + (" (quick: tiny sizes, goals not applied)" if report.quick else ""),
        _table(("benchmark", "runs", "median", "best", "goal", "status"), rows),
    ]
    for st in report.stages:
        stage_rows = [
            (chunker, *(_seconds(row[s]) for s in Stages.STAGES), _seconds(sum(row.values())))
            for chunker, row in st.per_chunker.items()
        ]
        totals = [sum(row[s] for row in st.per_chunker.values()) for s in Stages.STAGES]
        stage_rows.append(("all chunkers", *map(_seconds, totals), _seconds(sum(totals))))
        out += [
            "",
            f"Stages, {st.label} ({_label(FULL)}): parse {_seconds(st.parse)}, "
            f"load (parse + locate evidence) {_seconds(st.load)}, "
            f"total {_seconds(st.load + sum(totals))}",
            _table(("chunker", *Stages.STAGES, "total"), stage_rows),
        ]
    for title, spots in (
        ("own time", report.by_own),
        ("time with callees, lab functions", report.by_total),
    ):
        out += [
            "",
            f"Profile hotspots by {title} ({report.profile_label})",
            _table(
                ("function", "calls", "own", "with callees"),
                [(h.function, str(h.calls), _seconds(h.own), _seconds(h.total)) for h in spots],
            ),
        ]
    return "\n".join(out) + "\n"
