"""Every benchmark, figures on stdout: ``python benchmarks/run_all.py [--quick] [--output FILE]``.

The same as ``python -m lab bench``: the handbook full run, generated corpora of 100 KB and 1 MB
(1,000 questions) with a per-stage breakdown and a cProfile of the 1 MB run, and the default
sweep grid on the handbook. About two minutes; ``--quick`` is a smoke run with tiny sizes.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab.cli import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(["bench", *sys.argv[1:]]))
