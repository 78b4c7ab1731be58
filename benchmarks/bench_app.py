"""Server time of a warm rerun of each app page on the bundled handbook (AppTest, median over
repeats; every cache is warm, as when a user changes nothing or returns to a setting):
``python benchmarks/bench_app.py [REPEATS]``. A second table times the rerun after a budget
change, which computes the new budget's results."""

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from app_support import PAGES, open_app  # noqa: E402

GOAL_MS = 300


def warm_rerun_ms(page: str, repeats: int) -> float:
    app = open_app(page)
    app.run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        app.run()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def budget_change_ms(page: str, budgets: list[int]) -> float:
    app = open_app(page)
    times = []
    for budget in budgets:
        app.slider(key="budget").set_value(budget)
        start = time.perf_counter()
        app.run()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


if __name__ == "__main__":
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    print(f"{'page':<30}{'warm rerun ms':>15}{'new budget ms':>15}   (goal <= {GOAL_MS} ms)")
    for page in PAGES:
        warm = warm_rerun_ms(page, repeats)
        change = budget_change_ms(page, [130, 70, 250, 90, 170])
        print(f"{page:<30}{warm:>15.0f}{change:>15.0f}")
