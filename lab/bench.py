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
from time import perf_counter, process_time

from .corpus import build_corpus
from .generate import generate_corpus
from .metrics import aggregate, index_stats, score_question
from .parse import parse_document
from .run import DEFAULT_BUDGETS, DEFAULT_SIZES, LabCache, LabConfig, Retrieval, run_lab, sweep

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
    """Wall-clock seconds of each repeat of one benchmark, the process CPU seconds of each (a
    check on a busy machine: waiting for a core counts in the first, not in the second), and
    the goal in seconds, if there is one."""

    name: str
    seconds: tuple[float, ...]
    cpu: tuple[float, ...]
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
    scaling: tuple[str, float, float, float | None] | None = None  # label, median, best, goal
    stages: list[Stages] = field(default_factory=list)
    profile_label: str = ""
    by_own: list[Hotspot] = field(default_factory=list)
    by_total: list[Hotspot] = field(default_factory=list)

    def format(self) -> str:
        return format_report(self)


def _repeat(fn: Callable[[], object], repeats: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Wall-clock and CPU seconds of each of ``repeats`` calls."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = perf_counter(), process_time()
        fn()
        wall.append(perf_counter() - start)
        cpu.append(process_time() - start_cpu)
    return tuple(wall), tuple(cpu)


def _handbook_texts() -> tuple[str, str]:
    return HANDBOOK.read_text(encoding="utf-8"), HANDBOOK_QE.read_text(encoding="utf-8")


def bench_handbook(repeats: int = 50, config: LabConfig = FULL) -> Timing:
    """Load and parse the handbook from in-memory strings, then run every chunker x mode."""
    text, qe = _handbook_texts()
    wall, cpu = _repeat(lambda: run_lab(build_corpus({"handbook": text}, qe), config), repeats)
    return Timing(f"handbook full run ({_label(config)})", wall, cpu, GOAL_HANDBOOK)


def bench_generated(
    text: str, qe: dict, repeats: int = 3, config: LabConfig = FULL, goal: float | None = None
) -> Timing:
    """Load a generated corpus from memory and run every chunker x mode on it."""
    wall, cpu = _repeat(lambda: run_lab(build_corpus({"generated": text}, qe), config), repeats)
    name = f"generated {_size(len(text))}, {len(qe['questions'])} questions"
    return Timing(name, wall, cpu, goal)


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
    wall, cpu = _repeat(lambda: sweep(corpus, config, budgets, sizes), repeats)
    grid = f"{len(budgets)} budgets x {len(sizes)} sizes"
    return Timing(f"handbook sweep ({grid}, {_label(config)})", wall, cpu, goal)


class _Laps:
    """A stopwatch adding the seconds since the previous lap to a stage."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(Stages.STAGES, 0.0)
        self.last = perf_counter()

    def __call__(self, stage: str) -> None:
        now = perf_counter()
        self.seconds[stage] += now - self.last
        self.last = now


def stage_breakdown(
    label: str, text: str, qe: dict | str, config: LabConfig = FULL, repeats: int = 1
) -> Stages:
    """Time each stage of a full run separately, in the order ``run_lab`` runs them; medians over
    ``repeats``."""
    laps = [_stage_laps(text, qe, config) for _ in range(repeats)]
    per_chunker = {
        chunker: {s: statistics.median(lap[2][chunker][s] for lap in laps) for s in Stages.STAGES}
        for chunker in config.chunkers
    }
    parse = statistics.median(lap[0] for lap in laps)
    load = statistics.median(lap[1] for lap in laps)
    runs = f", median of {repeats}" if repeats > 1 else ""
    return Stages(f"{label} ({_label(config)}{runs})", parse, load, per_chunker)


def _stage_laps(text: str, qe: dict | str, config: LabConfig):
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
        index = LabCache().index(corpus, config, chunker)
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
    return parse, load, per_chunker


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
    report.timings.append(bench_handbook(repeats=3 if quick else 50))
    small, large, n_questions = (5_000, 10_000, 20) if quick else (100_000, 1_000_000, 1000)
    generated = {}
    for target in (small, large):
        say(f"generating {_size(target)} with {n_questions} questions")
        generated[target] = generate_corpus(target, n_questions)
        say(f"timing {_size(target)}")
        goal = GOAL_GENERATED if target == 1_000_000 else None
        repeats = 2 if quick else 7 if target == small else 3
        report.timings.append(bench_generated(*generated[target], repeats=repeats, goal=goal))
    big, little = report.timings[-1], report.timings[-2]
    report.scaling = (
        f"{_size(len(generated[large][0]))} / {_size(len(generated[small][0]))}",
        big.median / little.median,
        big.best / little.best,
        None if quick else GOAL_SCALING,
    )
    say("sweep")
    if quick:
        report.timings.append(bench_sweep(repeats=1, budgets=(40, 120), sizes=(450,), goal=None))
    else:
        report.timings.append(bench_sweep())
    say("stages handbook")
    report.stages.append(
        stage_breakdown("handbook", *_handbook_texts(), repeats=1 if quick else 20)
    )
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
    title = "Timings" + (" (quick: tiny sizes, goals not applied)" if report.quick else "")
    out = [title, _timings_table(report)]
    for stages in report.stages:
        out += ["", _stages_table(stages)]
    profiles = (("own time", report.by_own), ("time with callees, lab functions", report.by_total))
    for title, spots in profiles:
        if spots:
            out += [
                "",
                f"Profile hotspots by {title} ({report.profile_label})",
                _profile_table(spots),
            ]
    return "\n".join(out) + "\n"


def _timings_table(report: Report) -> str:
    rows = [
        (
            t.name,
            str(len(t.seconds)),
            _seconds(t.median),
            _seconds(t.best),
            _seconds(statistics.median(t.cpu)),
            "" if t.goal is None else f"<= {_seconds(t.goal)}",
            _status(t.median, t.goal),
        )
        for t in report.timings
    ]
    if report.scaling:
        label, ratio, best, goal = report.scaling
        limit = "" if goal is None else f"<= {goal:g}x"
        row = (
            f"scaling {label}",
            "",
            f"{ratio:.1f}x",
            f"{best:.1f}x",
            "",
            limit,
            _status(ratio, goal),
        )
        rows.append(row)
    return _table(("benchmark", "runs", "median", "best", "median cpu", "goal", "status"), rows)


def _stages_table(stages: Stages) -> str:
    rows = [
        (chunker, *(_seconds(row[s]) for s in Stages.STAGES), _seconds(sum(row.values())))
        for chunker, row in stages.per_chunker.items()
    ]
    totals = [sum(row[s] for row in stages.per_chunker.values()) for s in Stages.STAGES]
    rows.append(("all chunkers", *map(_seconds, totals), _seconds(sum(totals))))
    title = (
        f"Stages, {stages.label}: parse {_seconds(stages.parse)}, "
        f"load (parse + locate evidence) {_seconds(stages.load)}, "
        f"total {_seconds(stages.load + sum(totals))}"
    )
    return title + "\n" + _table(("chunker", *Stages.STAGES, "total"), rows)


def _profile_table(spots: list[Hotspot]) -> str:
    return _table(
        ("function", "calls", "own", "with callees"),
        [(h.function, str(h.calls), _seconds(h.own), _seconds(h.total)) for h in spots],
    )
