"""Every benchmark script of this folder (``bench_*.py``), one after another, each in its own
process; their figures on stdout. ``python -m lab bench`` runs this.

    python benchmarks/run_all.py [--quick] [--only NAME[,NAME...]] [--output FILE]

``--quick`` passes ``--quick`` (tiny inputs, targets not judged) to the scripts that take it and
skips the others (app start in a browser, dense models, Dask clusters: minutes each). ``--only``
runs the named scripts (``handbook`` for ``bench_handbook.py``). A script that fails is reported
and the rest still run; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def scripts(only: list[str] | None = None) -> list[Path]:
    found = sorted(HERE.glob("bench_*.py"))
    if only is None:
        return found
    names = {p.stem.removeprefix("bench_"): p for p in found}
    unknown = [n for n in only if n not in names]
    if unknown:
        raise SystemExit(f"no benchmark named {', '.join(unknown)}; there are {', '.join(names)}")
    return [names[n] for n in only]


def takes_quick(script: Path) -> bool:
    """Whether the script accepts ``--quick`` (its usage line shows it)."""
    return "--quick" in script.read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny inputs: a smoke run")
    parser.add_argument("--only", metavar="NAME[,NAME...]", help="run only these scripts")
    parser.add_argument("--output", type=Path, metavar="FILE", help="write the figures here too")
    args = parser.parse_args(argv)
    only = [n.strip() for n in args.only.split(",") if n.strip()] if args.only else None
    lines: list[str] = []
    failed = []

    def show(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    for script in scripts(only):
        extra = []
        if args.quick:
            if not takes_quick(script):
                show(f"== {script.name}: skipped in a quick run (it has no --quick)")
                continue
            extra = ["--quick"]
        show(f"== {script.name}")
        print(f"bench: running {script.name} {' '.join(extra)}".rstrip(), file=sys.stderr)
        done = subprocess.run(
            [sys.executable, str(script), *extra], cwd=HERE, capture_output=True, text=True
        )
        if done.stdout.strip():
            show(done.stdout.rstrip())
        if done.returncode != 0:
            failed.append(script.name)
            tail = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
            show(f"{script.name} failed (exit {done.returncode}): {tail[0]}")
    if args.output:
        partial = args.output.with_name(f".{args.output.name}.part")  # whole or not at all
        partial.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.replace(partial, args.output)
        print(f"note: wrote {args.output}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
