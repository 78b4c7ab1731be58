"""A generated structured corpus (``lab.generate``): the full run on 1 MB with 1,000 questions,
how the time grows from 100 KB to 1 MB (same 1,000 questions), and how the chunk graph's build
grows with it (it must stay linear: 10x the text, at most about 10x the time).

Full run: load from memory, 5 chunkers x flat and graph, every question; caches emptied each
repeat.

    python benchmarks/bench_generated.py [--repeats N] [--quick]
"""

import statistics

from common import arguments, cpu_seconds, figure, generated, seconds, verdict

from lab import LabCache, LabConfig, build_corpus, run_lab
from lab.graph import build_graph

TARGET_1MB = 2.0
TARGET_GROWTH = 10.0
FULL = LabConfig(split="all")


def full_run(text: str, qe: dict) -> None:
    run_lab(build_corpus({"generated": text}, qe), FULL, cache=LabCache())


def graph_build(text: str, qe: dict) -> list[float]:
    """CPU seconds of building each default chunker's chunk graph (the index built before)."""
    corpus, times = build_corpus({"generated": text}, qe), []
    for chunker in FULL.chunkers:
        index = LabCache().index(corpus, FULL, chunker)
        args = (index.chunks, corpus.documents, index.bm25.matrix, True)
        times.append(statistics.median(cpu_seconds(lambda a=args: build_graph(*a), 3)))
    return times


def main() -> None:
    args = arguments(__doc__, repeats=3)
    small, large, questions = (10_000, 100_000, 50) if args.quick else (100_000, 1_000_000, 1000)
    corpora = {chars: generated(chars, questions) for chars in (small, large)}
    label = {
        chars: f"{chars / 1e6:g} MB" if chars >= 1e6 else f"{chars // 1000} KB" for chars in corpora
    }
    full_run(*corpora[small])
    runs = {}
    for chars, (text, qe) in corpora.items():
        runs[chars] = cpu_seconds(lambda t=text, q=qe: full_run(t, q), args.repeats)
        target = TARGET_1MB if chars == 1_000_000 else None
        name = f"generated {label[chars]}, {len(qe['questions'])} questions, full run"
        print(figure(name, runs[chars], target, args.quick))
    growth = statistics.median(runs[large]) / statistics.median(runs[small])
    line = f"growth {label[small]} -> {label[large]}: {growth:.1f}x for {large // small}x the text"
    if not args.quick:
        line += f"; target <= {TARGET_GROWTH:g}x: " + verdict(growth <= TARGET_GROWTH, growth / 10)
    print(line)
    graphs = {chars: graph_build(*corpora[chars]) for chars in (small, large)}
    total = {chars: sum(t) for chars, t in graphs.items()}
    each = [b / a for a, b in zip(graphs[small], graphs[large], strict=True)]
    print(
        f"graph build, 5 chunkers: {seconds(total[small])} at {label[small]}, "
        f"{seconds(total[large])} at {label[large]}: {total[large] / total[small]:.1f}x "
        f"(per chunker: {', '.join(f'{r:.1f}x' for r in each)})"
    )


if __name__ == "__main__":
    main()
