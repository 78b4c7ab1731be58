"""Server time of a rerun of each app page on the bundled handbook, through AppTest: a warm
rerun (every cache hit: nothing changed, or a setting came back), the rerun after moving the
budget slider to a new value (that budget's results are computed), and a switch to the page
from another one (the navigation's click): its first visit, then once every page has been
visited. Median and fastest of the repeats: ``python benchmarks/bench_app.py [REPEATS]``."""

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from app_support import open_app  # noqa: E402

from lab import DEFAULT_BUDGETS  # noqa: E402

GOAL_MS = 300
GOAL_SWITCH_MS = 500  # server time of a page switch (issue 8)
PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "app_pages").glob("*.py"))


def rerun_ms(page: str, budgets: list[int | None]) -> str:
    """Median and fastest rerun, in ms, moving the budget to each value (None: no change)."""
    app = open_app(page)
    app.run()
    times = []
    for budget in budgets:
        if budget is not None:
            app.slider(key="budget").set_value(budget)
        start = time.perf_counter()
        app.run()
        times.append(1000 * (time.perf_counter() - start))
    return f"{statistics.median(times):.0f} / {min(times):.0f}"


def switch_ms(repeats: int) -> tuple[dict[str, str], dict[str, str]]:
    """Milliseconds of the first switch to each page in a fresh app (its modules imported, its
    results computed), and median and fastest of the later switches, from the page before it."""
    app = open_app()
    first = {}
    for page in PAGES:
        start = time.perf_counter()
        app.switch_page(page).run()
        first[page] = f"{1000 * (time.perf_counter() - start):.0f}"
    times: dict[str, list[float]] = {page: [] for page in PAGES}
    for _ in range(repeats):
        for page in PAGES:
            start = time.perf_counter()
            app.switch_page(page).run()
            times[page].append(1000 * (time.perf_counter() - start))
    return first, {p: f"{statistics.median(t):.0f} / {min(t):.0f}" for p, t in times.items()}


if __name__ == "__main__":
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    new_budgets = [b for b in range(130, 1000, 10) if b not in DEFAULT_BUDGETS][:repeats]
    first, switches = switch_ms(repeats)
    head = f"{'page':<28}{'warm rerun':>14}{'new budget':>14}{'first visit':>13}{'switch to':>14}"
    print(f"{head}   ms, median / fastest")
    for page in PAGES:
        warm = rerun_ms(page, [None] * repeats)
        change = rerun_ms(page, new_budgets)
        print(f"{page:<28}{warm:>14}{change:>14}{first[page]:>13}{switches[page]:>14}")
    print(f"goal: a warm rerun within {GOAL_MS} ms, a page switch within {GOAL_SWITCH_MS} ms")
