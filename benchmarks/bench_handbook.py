"""Full run on the bundled handbook (load + parse from memory, every chunker x mode, every
question), median over repeats: ``python benchmarks/bench_handbook.py [REPEATS]``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab.bench import Report, bench_handbook, format_report  # noqa: E402

if __name__ == "__main__":
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    print(format_report(Report(quick=False, timings=[bench_handbook(repeats)])), end="")
