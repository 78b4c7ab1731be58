"""``bench``: run every benchmark script of ``benchmarks/`` (the timing code lives there, not in
the engine) and print the figures."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path


def register(commands) -> None:
    """Add the command to ``commands``, what ``ArgumentParser.add_subparsers`` returned."""
    bench = commands.add_parser(
        "bench", help="run every benchmark script of benchmarks/ and print the figures"
    )
    bench.add_argument(
        "--quick", action="store_true", help="tiny sizes and few repeats: a smoke run"
    )
    bench.add_argument(
        "--only", metavar="NAME[,NAME...]", help="only these scripts (handbook: bench_handbook.py)"
    )
    bench.add_argument(
        "--output", type=Path, metavar="FILE", help="write the figures here, not stdout"
    )
    bench.set_defaults(handler=_cmd_bench)


def _cmd_bench(args: argparse.Namespace) -> int:
    """Run ``benchmarks/run_all.py``."""
    runner = Path(__file__).resolve().parents[2] / "benchmarks" / "run_all.py"
    if not runner.is_file():
        raise ValueError(f"no benchmarks here: {runner} is missing (they come with the checkout)")
    flags = ["--quick"] * args.quick + ["--only", args.only] * bool(args.only)
    flags += ["--output", str(args.output)] * (args.output is not None)
    sys.stdout.flush()
    return subprocess.run([sys.executable, str(runner), *flags]).returncode
