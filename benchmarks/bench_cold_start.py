"""Cold start and page switches as a user sees them, in Debian's Chromium at 1440x900, and the
server's side of the first page.

Starts ``streamlit run streamlit_app.py`` and, from the moment the process starts, times: the
server answering its health check, the navigation drawn, the page title drawn, the sidebar
drawn, the page finished (its chart drawn, the script idle) and the share link's button drawn
at the sidebar's foot (its popover defers the code block's highlighter, the frontend's largest
script, to the first click).

The server's own time comes from Streamlit's script-run events, logged by the process itself
(see ``SERVER``; the app is not changed): when the browser's session was created ("browser
connected", after the frontend has loaded), when the first script run started, that run's wall
time, all runs' wall time until the page finished, and "server time": the health check plus
those runs, the figure issue 8's "server time" target is about (the rest is the browser loading
the frontend and drawing).

On a shared machine those wait for a core, so the work behind them is given too: the server's
CPU seconds until it answers and then for the first page (imports, the engine's first run,
drawing), and the seconds the browser tab's main thread was busy (Chrome's ``TaskDuration``:
the frontend's scripts, styles, layout; on a loaded machine this includes waiting for a core
mid-task). Then, on the warm server, the median time from clicking each page in the navigation
to that page's title and to the page finished. ``python benchmarks/bench_cold_start.py
[--pinned] [REPEATS] [FOLDER ...]`` (default 3 cold starts of the app in this checkout; FOLDERs
time other checkouts of it, such as an older commit, taking turns with each other; --pinned
runs the server on CPU 0 and Chromium on CPU 1, as when the browser is on another machine).
"""

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests")]

from app_support import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

WAIT_MS = 180_000
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
# the share link's popover button, or the code block older checkouts drew in its place
SHARE = ", ".join(
    f'[data-testid="stSidebar"] [data-testid="{tid}"]' for tid in ["stPopoverButton", "stCode"]
)
PAGES = ("Recall tables", "Sweep charts", "Question drill-down", "Chunk graph", "Your corpus")
GOAL_FIRST_PAGE = 3.0  # seconds from server start to the first page (issue 8)
GOAL_SWITCH = 0.5  # seconds per page switch (issue 8)
# Starts the server as `python -m streamlit` does, with Streamlit's own script-run events written
# to the file $BENCH_EVENTS as "<monotonic seconds> <what>" lines: "connected" when a browser's
# session is created, then each run's SCRIPT_STARTED and SCRIPT_STOPPED_... (ScriptRunnerEvent
# names, sent from the script's thread as the run starts and ends). The app knows nothing of it,
# so any checkout can be timed, and CLOCK_MONOTONIC is the same clock in this process.
SERVER = """
import os, sys, time
from streamlit.runtime.app_session import AppSession
log = open(os.environ["BENCH_EVENTS"], "a", buffering=1)
init, on_event = AppSession.__init__, AppSession._on_scriptrunner_event
def timed_init(self, *args, **kwargs):
    log.write(f"{time.monotonic()} connected\\n")
    init(self, *args, **kwargs)
def timed_event(self, sender, event, *args, **kwargs):
    if event.name.startswith("SCRIPT_"):
        log.write(f"{time.monotonic()} {event.name}\\n")
    on_event(self, sender, event, *args, **kwargs)
AppSession.__init__, AppSession._on_scriptrunner_event = timed_init, timed_event
from streamlit.web.cli import main
sys.argv[0] = "streamlit"
main()
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(base: str, process: subprocess.Popen) -> None:
    while process.poll() is None:
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as response:
                if response.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("streamlit exited")


def _cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) process ``pid`` has used, from Linux's /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _finished(page) -> None:
    for _ in range(2):  # a rerun may start right after the first one ends
        page.wait_for_timeout(150)
        page.locator(IDLE).wait_for(timeout=WAIT_MS)


def cold_start(browser, root: Path = ROOT, server_cpus: tuple[str, ...] = ()) -> dict[str, float]:
    """Seconds from the server process starting to each milestone of the first page."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    command = [
        sys.executable, "-c", SERVER, "run", "streamlit_app.py",
        "--server.headless", "true", "--server.port", str(port),
    ]  # fmt: skip
    with tempfile.TemporaryFile() as log, tempfile.NamedTemporaryFile("r") as events:
        env = os.environ | {"BENCH_EVENTS": events.name}
        start = time.monotonic()
        process = subprocess.Popen(
            [*server_cpus, *command], cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            _healthy(base, process)
            marks = {"server up": time.monotonic() - start}
            server_cpu = _cpu_seconds(process.pid)
            page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
            devtools = page.context.new_cdp_session(page)
            devtools.send("Performance.enable")
            page.goto(base)
            page.locator('[data-testid="stSidebarNav"]').wait_for(timeout=WAIT_MS)
            marks["navigation drawn"] = time.monotonic() - start
            page.get_by_role("heading", name="Index overview", level=1).wait_for(timeout=WAIT_MS)
            marks["page title drawn"] = time.monotonic() - start
            sidebar = page.locator('[data-testid="stSidebar"]').get_by_text("Experiment")
            sidebar.wait_for(timeout=WAIT_MS)
            marks["sidebar drawn"] = time.monotonic() - start
            page.locator('[data-testid="stVegaLiteChart"]').first.wait_for(timeout=WAIT_MS)
            _finished(page)
            marks["page finished"] = time.monotonic() - start
            page.locator(SHARE).first.wait_for()
            marks["share link drawn"] = time.monotonic() - start
            marks |= server_time(events.read(), start, marks)
            marks["CPU: server until up"] = server_cpu
            marks["CPU: server, first page"] = _cpu_seconds(process.pid) - server_cpu
            metrics = devtools.send("Performance.getMetrics")["metrics"]
            marks["busy: browser tab, first page"] = next(
                m["value"] for m in metrics if m["name"] == "TaskDuration"
            )
            marks |= page_switches(page)
            page.context.close()
            return marks
        finally:
            process.terminate()
            process.wait(timeout=30)


def server_time(events: str, start: float, marks: dict[str, float]) -> dict[str, float]:
    """The server's side of the first page, from the script-run events ``SERVER`` logged (their
    monotonic seconds less ``start``, the process start): when the browser connected, the first
    script run's wall time (its start to its end), and all runs' until the page finished (a
    rerun may follow the first one); the server time is the server up plus those runs."""
    lines = [line.split() for line in events.splitlines()]
    finished = marks["page finished"]
    times = [(float(t) - start, what) for t, what in lines if float(t) - start <= finished]
    connected = next(t for t, what in times if what == "connected")
    runs, run_start = [], None
    for t, what in times:
        if what == "SCRIPT_STARTED":
            run_start = t
        elif what.startswith("SCRIPT_STOPPED") and run_start is not None:
            runs.append((run_start, t))
            run_start = None
    return {
        "server: browser connected": connected,
        "server: first run started": runs[0][0],
        "server: first script run": runs[0][1] - runs[0][0],
        "server: script runs, first page": sum(end - begin for begin, end in runs),
        "server time: up + first page runs": marks["server up"] + sum(e - b for b, e in runs),
        "server: runs, first page (count)": len(runs),
    }


def page_switches(page) -> dict[str, float]:
    """Median seconds from a click in the navigation to the page's title, and to it finished,
    over every page visited twice (the second visit is warm)."""
    titles, done = [], []
    for _ in range(2):
        for title in (*PAGES, "Index overview"):
            t0 = time.perf_counter()
            page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
            page.get_by_role("heading", name=title, level=1).wait_for(timeout=WAIT_MS)
            titles.append(time.perf_counter() - t0)
            _finished(page)
            done.append(time.perf_counter() - t0 - 0.3)  # less the two idle-check pauses
    half = len(titles) // 2
    return {
        "switch: title (first visit)": statistics.median(titles[:half]),
        "switch: finished (first visit)": statistics.median(done[:half]),
        "switch: title (warm)": statistics.median(titles[half:]),
        "switch: finished (warm)": statistics.median(done[half:]),
    }


def report(root: Path, runs: list[dict[str, float]]) -> None:
    print(f"{root}: {len(runs)} cold starts")
    print(f"{'milestone':<34}{'median s':>10}{'fastest s':>11}")
    for key in runs[0]:
        values = [r[key] for r in runs]
        print(f"{key:<34}{statistics.median(values):>10.2f}{min(values):>11.2f}")


def pinned_chromium(folder: Path) -> Path:
    """A launcher in ``folder`` that runs Chromium on CPU 1 only."""
    launcher = folder / "chromium-cpu1"
    launcher.write_text(f'#!/bin/sh\nexec taskset -c 1 {CHROMIUM} "$@"\n')
    launcher.chmod(0o755)
    return launcher


if __name__ == "__main__":
    # --pinned: the server on CPU 0 and Chromium on CPU 1 (Linux's taskset), as when the browser
    # runs on another machine than the server; without it they share every core.
    args = [a for a in sys.argv[1:] if a != "--pinned"]
    pinned = len(args) < len(sys.argv) - 1
    repeats = int(args[0]) if args else 3
    roots = [Path(a).resolve() for a in args[1:]] or [ROOT]
    runs: dict[Path, list] = {root: [] for root in roots}
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as folder:
        chromium = pinned_chromium(Path(folder)) if pinned else CHROMIUM
        browser = playwright.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        server_cpus = ("taskset", "-c", "0") if pinned else ()
        for _ in range(repeats):  # checkouts in turn, so a machine's drift touches each alike
            for root in roots:
                runs[root].append(cold_start(browser, root, server_cpus))
        browser.close()
    for root in roots:
        report(root, runs[root])
    if pinned:
        print("server on CPU 0, Chromium on CPU 1")
    print(f"goals (issue 8): first page <= {GOAL_FIRST_PAGE} s, page switch <= {GOAL_SWITCH} s")
