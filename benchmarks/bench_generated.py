"""A generated structured corpus: timing, per-stage breakdown and (with ``--profile``) the cProfile
hotspots of one full run.

    python benchmarks/bench_generated.py [--chars N] [--questions N] [--repeats N] [--profile]
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab.bench import (  # noqa: E402
    FULL,
    GOAL_GENERATED,
    Report,
    bench_generated,
    format_report,
    profile_run,
    stage_breakdown,
)
from lab.generate import generate_corpus  # noqa: E402

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=1_000_000)
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    text, qe = generate_corpus(args.chars, args.questions)
    goal = GOAL_GENERATED if args.chars == 1_000_000 else None
    report = Report(quick=False, timings=[bench_generated(text, qe, args.repeats, goal=goal)])
    report.stages.append(stage_breakdown(f"generated {len(text):,} chars", text, qe))
    if args.profile:
        report.profile_label = f"generated {len(text):,} chars, {args.questions} questions"
        report.by_own, report.by_total = profile_run(text, qe, FULL, top=20)
    print(format_report(report), end="")
