"""The default sweep grid on the handbook (8 budgets x 5 sizes, 5 chunkers x flat and graph,
every question).

Cold: caches emptied, the corpus parsed again, a fresh ``LabCache``. Warm: the same sweep again
on the same corpus and ``LabCache`` (a page rerun: it should only look things up).

    python benchmarks/bench_sweep.py [--repeats N] [--quick]
"""

from common import arguments, cpu_seconds, figure, handbook_texts

from lab import DEFAULT_BUDGETS, DEFAULT_SIZES, LabCache, LabConfig, build_corpus, sweep

TARGET_COLD = 0.3
TARGET_WARM = 0.05
FULL = LabConfig(split="all")


def main() -> None:
    args = arguments(__doc__, repeats=7)
    text, qe = handbook_texts()
    budgets, sizes = (40, 120), (450,)
    if not args.quick:
        budgets, sizes = DEFAULT_BUDGETS, DEFAULT_SIZES

    def cold() -> None:
        sweep(build_corpus({"handbook": text}, qe), FULL, budgets, sizes, cache=LabCache())

    cold()
    grid = f"{len(budgets)} budgets x {len(sizes)} sizes"
    times = cpu_seconds(cold, args.repeats)
    print(figure(f"handbook sweep ({grid}), cold", times, TARGET_COLD, args.quick))
    corpus, cache = build_corpus({"handbook": text}, qe), LabCache()
    sweep(corpus, FULL, budgets, sizes, cache=cache)
    again = lambda: sweep(corpus, FULL, budgets, sizes, cache=cache)  # noqa: E731
    warm = cpu_seconds(again, args.repeats, cold=False)
    print(figure(f"handbook sweep ({grid}), warm LabCache", warm, TARGET_WARM, args.quick))


if __name__ == "__main__":
    main()
