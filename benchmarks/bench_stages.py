"""Where a full run's time goes: each stage timed apart (load, then per chunker: index, index
statistics, chunk graph, ranking per mode, assembly, scoring) on the handbook and a generated
corpus, and a cProfile of the generated run (the functions with the most time of their own, and
the lab's functions with the most time including callees). Load + full run, every question.

    python benchmarks/bench_stages.py [--repeats N] [--quick]
"""

import cProfile
import pstats
import statistics
import time
from pathlib import Path

from common import ROOT, arguments, clear_caches, generated, handbook_texts, seconds

from lab import LabCache, LabConfig, build_corpus, run_lab
from lab.metrics import index_stats
from lab.retrieval import Retrieval

FULL = LabConfig(split="all")
STAGES = ("index", "stats", "graph", "rank flat", "rank graph", "assemble", "score")


def laps(text: str, qe, config: LabConfig = FULL) -> tuple[float, dict[str, dict[str, float]]]:
    """CPU seconds of loading, and of each stage per chunker, one cold run."""
    clear_caches()
    start = time.process_time()
    corpus = build_corpus({"bench": text}, qe)
    load = time.process_time() - start
    questions = corpus.split(config.split)
    out = {}
    for chunker in config.chunkers:
        spent = dict.fromkeys(STAGES, 0.0)
        clock = [time.process_time()]

        def lap(stage: str, spent: dict = spent, clock: list = clock) -> None:
            now = time.process_time()
            spent[stage] += now - clock[0]
            clock[0] = now

        index = LabCache().index(corpus, config, chunker)
        lap("index")
        index_stats(index, config.budget)
        lap("stats")
        _ = index.graph
        lap("graph")
        for mode in config.modes:
            retrieval = Retrieval.of(index, questions, mode)
            lap(f"rank {mode}")
            retrieval.metrics(config.budget)
            lap("assemble")
            retrieval.evaluate(config.budget)
            lap("score")
        out[chunker] = spent
    return load, out


def stage_table(label: str, text: str, qe, repeats: int) -> str:
    runs = [laps(text, qe) for _ in range(repeats)]
    load = statistics.median(r[0] for r in runs)
    rows = {
        chunker: {s: statistics.median(r[1][chunker][s] for r in runs) for s in STAGES}
        for chunker in FULL.chunkers
    }
    totals = {s: sum(row[s] for row in rows.values()) for s in STAGES}
    table = [("chunker", *STAGES, "total")]
    for name, row in [*rows.items(), ("all chunkers", totals)]:
        table.append((name, *(seconds(row[s]) for s in STAGES), seconds(sum(row.values()))))
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in table
    ]
    head = (
        f"stages, {label} (CPU, median of {repeats}): load {seconds(load)}, "
        f"total {seconds(load + sum(totals.values()))}"
    )
    return "\n".join([head, *lines])


def where(file: str, line: int, function: str) -> str:
    path = Path(file)
    if file == "~":
        return function
    if path.is_relative_to(ROOT):
        return f"{path.relative_to(ROOT).as_posix()}:{line}({function})"
    if "site-packages" in path.parts:
        shown = "/".join(path.parts[path.parts.index("site-packages") + 1 :])
        return f"{shown}:{line}({function})"
    return f"{path.name}:{line}({function})"


def hotspots(label: str, text: str, qe, top: int) -> str:
    clear_caches()
    profiler = cProfile.Profile()
    profiler.enable()
    run_lab(build_corpus({"bench": text}, qe), FULL, cache=LabCache())
    profiler.disable()
    rows = [
        (where(*key), calls, own, total)
        for key, (_, calls, own, total, _) in pstats.Stats(profiler).stats.items()
    ]
    out = [f"profile, {label}: by own time"]
    out += [
        f"  {seconds(o):>9}  {c:>8} calls  {f}"
        for f, c, o, _ in sorted(rows, key=lambda r: -r[2])[:top]
    ]
    out += [f"profile, {label}: lab functions by time with callees"]
    lab = [r for r in rows if r[0].startswith("lab/")]
    out += [
        f"  {seconds(t):>9}  {c:>8} calls  {f}"
        for f, c, _, t in sorted(lab, key=lambda r: -r[3])[:top]
    ]
    return "\n".join(out)


def main() -> None:
    args = arguments(__doc__, repeats=5)
    chars, questions = (10_000, 50) if args.quick else (1_000_000, 1000)
    text, qe = generated(chars, questions)
    size = f"{chars // 1000} KB" if chars < 1_000_000 else "1 MB"
    print(stage_table("handbook", *handbook_texts(), args.repeats))
    print(stage_table(f"generated {size}, {questions} questions", text, qe, 1))
    print(hotspots(f"generated {size}", text, qe, 8 if args.quick else 20))


if __name__ == "__main__":
    main()
