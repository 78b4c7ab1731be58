"""The handbook full run: load the bundled handbook and its 25 questions from memory, then run
every default chunker (5) in both lexical modes, scoring every question (split all).

Cold: caches emptied, a fresh ``LabCache``, the corpus parsed again, each repeat. Warm: the same
corpus and a ``LabCache`` that has seen this configuration (what a page rerun does).

    python benchmarks/bench_handbook.py [--repeats N] [--quick]
"""

from common import arguments, cpu_seconds, figure, handbook_texts

from lab import LabCache, LabConfig, build_corpus, run_lab

TARGET_COLD = 0.011  # the original JavaScript lab's figure
TARGET_WARM = 0.003
FULL = LabConfig(split="all")


def main() -> None:
    args = arguments(__doc__, repeats=60)
    text, qe = handbook_texts()

    def cold() -> None:
        run_lab(build_corpus({"handbook": text}, qe), FULL, cache=LabCache())

    cold()  # imports and first-call set-up are not the run's
    times = cpu_seconds(cold, args.repeats)
    print(figure("handbook full run, cold", times, TARGET_COLD, args.quick))
    corpus, cache = build_corpus({"handbook": text}, qe), LabCache()
    run_lab(corpus, FULL, cache=cache)
    warm = cpu_seconds(lambda: run_lab(corpus, FULL, cache=cache), args.repeats, cold=False)
    print(figure("handbook full run, warm LabCache", warm, TARGET_WARM, args.quick))


if __name__ == "__main__":
    main()
