"""The default budget x size sweep on the bundled handbook, median over repeats:
``python benchmarks/bench_sweep.py [REPEATS]``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab.bench import Report, bench_sweep, format_report  # noqa: E402

if __name__ == "__main__":
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(format_report(Report(quick=False, timings=[bench_sweep(repeats)])), end="")
