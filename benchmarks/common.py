"""What the benchmark scripts share: the checkout on ``sys.path``, cold starts, CPU timing, the
test corpora, and one way of printing a figure against its target.

Figures are process CPU seconds (``time.process_time``): on a machine shared with other work,
waiting for a core counts in wall-clock time but not here. Each figure is the median of its
repeats, with the fastest beside it. A "cold" repeat empties every cache of the ``lab`` package
first (its ``functools`` caches); nothing computed in one repeat helps the next.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HANDBOOK = ROOT / "data" / "handbook.md"
HANDBOOK_QE = ROOT / "data" / "handbook_qe.json"
TECHNOVA = ROOT / "data" / "technova" / "collection.json"
PEERS_HINT = "pip install -r requirements-bench.txt"


def arguments(
    doc: str, repeats: int, more: Callable[[argparse.ArgumentParser], None] | None = None
) -> argparse.Namespace:
    """The options every benchmark takes: ``--repeats N`` and ``--quick`` (a smoke run: tiny
    inputs, few repeats, targets not judged); ``more`` adds a script's own."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=repeats, metavar="N")
    parser.add_argument("--quick", action="store_true", help="tiny inputs, a smoke run")
    if more:
        more(parser)
    args = parser.parse_args()
    if args.quick:
        args.repeats = min(args.repeats, 2)
    return args


def clear_caches() -> None:
    """Empty every ``functools`` cache of the ``lab`` package, and every object with a
    ``cache_clear`` of its own, such as the tokenizer's vocabulary (a cold start in a process)."""
    for name, module in list(sys.modules.items()):
        if name != "lab" and not name.startswith("lab."):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type):  # a class's cache_clear empties its instances, one by one
                continue
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()


def cpu_seconds(fn: Callable[[], object], repeats: int, cold: bool = True) -> list[float]:
    """CPU seconds of each of ``repeats`` calls of ``fn`` (caches emptied before each if
    ``cold``)."""
    times = []
    for _ in range(repeats):
        if cold:
            clear_caches()
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return times


def side_by_side(
    ours: Callable[[], object], peer: Callable[[], object], repeats: int, cold: bool = True
) -> tuple[list[float], list[float], float]:
    """Our and the peer's CPU seconds, taking turns (ours, peer, ours, ...) so that a drift in
    the machine's speed touches both alike, and the median of the pairwise ratios ours/peer."""
    a, b = [], []
    for _ in range(repeats):
        a += cpu_seconds(ours, 1, cold)
        b += cpu_seconds(peer, 1, cold=False)
    ratio = statistics.median(x / y for x, y in zip(a, b, strict=True) if y > 0)
    return a, b, ratio


def seconds(s: float) -> str:
    return f"{1000 * s:.1f} ms" if s < 1 else f"{s:.2f} s"


def figure(label: str, times: list[float], target: float | None = None, quick: bool = False) -> str:
    """``label: median (fastest, N runs), target: met / not met``, one line."""
    median = statistics.median(times)
    line = f"{label}: {seconds(median)} median, {seconds(min(times))} fastest, {len(times)} runs"
    if target is not None:
        line += f"; target <= {seconds(target)}: " + verdict(median <= target, median / target)
    return line + (" (quick run: not judged)" if quick and target is not None else "")


def ratio_line(label: str, ratio: float, target: float | None = None) -> str:
    """``label: ours / peer = 0.52x``, with ``target`` the highest ratio that meets it."""
    line = f"{label}: ours / peer = {ratio:.2f}x"
    if target is not None:
        line += f"; target <= {target:.2f}x: " + verdict(ratio <= target, ratio / target)
    return line


def verdict(met: bool, factor: float) -> str:
    return "met" if met else f"not met ({factor:.1f}x over)"


def handbook_texts() -> tuple[str, str]:
    return HANDBOOK.read_text(encoding="utf-8"), HANDBOOK_QE.read_text(encoding="utf-8")


def generated(chars: int, questions: int) -> tuple[str, dict]:
    """A generated structured corpus (``lab.generate``, deterministic)."""
    from lab.generate import generate_corpus

    return generate_corpus(chars, questions)


def missing(module: str) -> str | None:
    """Why a peer library cannot be imported, or None when it can."""
    try:
        __import__(module)
    except ImportError as exc:
        return f"{module} is not installed ({exc}); {PEERS_HINT}"
    return None
