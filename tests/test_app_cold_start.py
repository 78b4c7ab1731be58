"""A cold start, in a fresh interpreter each: the page frame is drawn before the engine is
imported, a deep link does not import it twice, and the dense stack stays out until dense
retrieval is switched on. (How long a cold start takes is measured in
``benchmarks/bench_cold_start.py``, not here.)"""

import ast
import json
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from app_support import ROOT

from lab import embed

# what the server starts importing as it starts (ui/warmup.py), written out
LIBRARIES = ("numpy", "scipy.sparse", "pyarrow", "pandas", "pyarrow.pandas_compat")
VIEWS = ("ui.state", "ui.link_notices", "ui.choices", "ui.documents", "ui.overview")

pytestmark = pytest.mark.app  # AppTest runs: `pytest -m "not app and not browser"` skips them

# Run in a fresh interpreter: an AppTest of the entry point (plain AppTest, as a fresh server
# process sees it), optionally with the engine made unimportable, printing what was drawn.
SCRIPT = """
import json, sys
sys.path[:0] = [{root!r}, {tests!r}]
if {block_engine!r}:
    class NoEngine:
        def find_spec(self, name, path=None, target=None):
            if name == "lab" or name.startswith("lab."):
                raise ImportError("the engine is not importable here")
    sys.meta_path.insert(0, NoEngine())
from streamlit.testing.v1 import AppTest
app = AppTest.from_file({entry!r}, default_timeout=120)
app.query_params.update({query!r})
for page in {pages!r}:
    if page:
        app.switch_page(page)
    app.run()
    print(json.dumps({{
        "page": page,
        "titles": [t.value for t in app.title],
        "captions": [c.value for c in app.caption],
        "exceptions": [e.message for e in app.exception],
        "modules": sorted(m for m in {watch!r} if m in sys.modules),
    }}))
"""
DENSE_STACK = ("torch", "sentence_transformers", "transformers")
TITLES = {
    "app_pages/recall_tables.py": "Recall tables",
    "app_pages/sweep_charts.py": "Sweep charts",
    "app_pages/compare.py": "Compare",
    "app_pages/question_drilldown.py": "Question drill-down",
    "app_pages/chunk_graph.py": "Chunk graph",
    "app_pages/your_corpus.py": "Your corpus",
    "app_pages/index_overview.py": "Index overview",
}
PAGES = (None, *TITLES)


def fresh_run(pages, block_engine=False, query=None, watch=DENSE_STACK) -> list[dict]:
    code = SCRIPT.format(
        root=str(ROOT),
        tests=str(ROOT / "tests"),
        block_engine=block_engine,
        entry=str(ROOT / "streamlit_app.py"),
        query=query or {},
        pages=list(pages),
        watch=list(watch),
    )
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_the_page_frame_is_drawn_before_the_engine_is_imported():
    (run,) = fresh_run([None], block_engine=True)
    assert run["exceptions"]  # the engine could not be imported...
    assert run["titles"] == ["Index overview"]  # ...yet the page's title was already drawn
    assert any("Starting the lab" in c for c in run["captions"])


@pytest.mark.parametrize(("page", "title"), list(TITLES.items()))
def test_a_cold_deep_link_draws_its_frame_before_the_engine_too(page, title):
    """A deep link runs the entry point too (the pages live in ``app_pages/``, which Streamlit
    does not serve on its own, see ``ui/__init__.py``): the frame comes before the engine."""
    (run,) = fresh_run([page], block_engine=True)
    assert run["titles"] == [title]
    assert any("Starting the lab" in c for c in run["captions"])


def test_the_dense_stack_is_imported_only_once_dense_is_switched_on():
    runs = fresh_run(PAGES)
    assert [r["exceptions"] for r in runs] == [[]] * len(PAGES)
    assert [r["modules"] for r in runs] == [[]] * len(PAGES)
    (dense,) = fresh_run([None], query={"dense": "true"}, watch=("torch",))
    assert dense["exceptions"] == []
    assert dense["modules"] == (["torch"] if embed.dense_status()[0] else [])


def test_the_first_page_leaves_out_what_only_other_pages_and_inputs_need():
    """scipy.stats (the Compare page's tests), BeautifulSoup (HTML documents), networkx (the
    chunk graph) and Altair (the other pages' charts; the first page's strip is written out)
    are imported when they are needed, not with the first page."""
    (run,) = fresh_run([None], watch=("scipy.stats", "bs4", "networkx", "altair"))
    assert run["exceptions"] == []
    assert run["modules"] == []


# `streamlit run streamlit_app.py` serves it as an st.App whose lifespan imports the engine ------


def test_streamlit_run_finds_the_app_and_importing_the_entry_point_draws_nothing():
    """Streamlit's own discovery (what ``streamlit run`` does) finds ``app``; importing the file,
    as the server does, builds the ``st.App`` of this very script and neither draws (no
    ScriptRunContext warning) nor imports the engine."""
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "streamlit_app.py")
    assert (found.is_asgi_app, found.import_string) == (True, "streamlit_app:app")
    probe = (
        "import json, sys\n"
        "import streamlit_app\n"
        "from streamlit.starlette import App\n"
        "app = streamlit_app.app\n"
        "print(json.dumps([isinstance(app, App), str(app.script_path),"
        " sorted(m for m in ('lab', 'pandas', 'scipy', 'pyarrow') if m in sys.modules)]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ScriptRunContext" not in done.stderr
    is_app, script, heavy = json.loads(done.stdout.strip().splitlines()[-1])
    assert (is_app, script, heavy) == (True, str(ROOT / "streamlit_app.py"), [])


def test_the_lifespan_imports_the_engine_and_a_broken_engine_still_lets_the_script_go_on():
    probe = """
import asyncio, json, sys
block = {block!r}
if block:
    class NoEngine:
        def find_spec(self, name, path=None, target=None):
            if name == "lab" or name.startswith("lab."):
                raise ImportError("the engine is not importable here")
    sys.meta_path.insert(0, NoEngine())
import streamlit_app
from ui import warmup

async def serve():
    async with warmup.lifespan(streamlit_app.app):
        await asyncio.to_thread(warmup.wait)

asyncio.run(serve())
print(json.dumps([m for m in warmup.MODULES if m in sys.modules]))
"""
    everything = [*LIBRARIES, "lab", *VIEWS]
    for block, imported in [(False, everything), (True, list(LIBRARIES))]:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(probe.format(block=block))],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert json.loads(done.stdout.strip().splitlines()[-1]) == imported


def test_a_started_server_imports_the_engine_before_any_browser_connects():
    """The server's memory maps show the compiled parts of pandas and scipy.sparse (and so the
    engine, imported after them) loaded while no session was ever opened."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [
        sys.executable, "-m", "streamlit", "run", "streamlit_app.py",
        "--server.headless", "true", "--server.port", str(port),
    ]  # fmt: skip
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    maps = Path(f"/proc/{process.pid}/maps")
    wanted = ("/pandas/_libs/", "/scipy/sparse/", "/pyarrow/")
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            loaded = maps.read_text()
            if all(w in loaded for w in wanted):
                break
            time.sleep(0.2)
        assert process.poll() is None, "streamlit exited"
        assert [w for w in wanted if w not in maps.read_text()] == []
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_no_two_ui_modules_import_each_other():
    """The server's thread imports ui modules while a page file may import them too (see
    ``ui/warmup.py``): two threads can only wait on each other forever if modules import each
    other, so ui's module-level imports (those under ``if TYPE_CHECKING`` aside) form no cycle."""
    graph = {}
    for path in (ROOT / "ui").glob("*.py"):
        name = "ui" if path.stem == "__init__" else f"ui.{path.stem}"
        graph[name] = set()
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names = [node.module] if node.module else [a.name for a in node.names]
                graph[name] |= {f"ui.{n}" for n in names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ui."):
                graph[name].add(node.module)
            elif isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name.startswith("ui.")}
    assert len(graph) > 20 and graph["ui.state"] >= {"ui.cache", "ui.links"}
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import cycle: {' -> '.join((*path, name))}"
        if name not in done:
            for other in sorted(graph.get(name, ())):
                visit(other, (*path, name))
            done.add(name)

    for name in sorted(graph):
        visit(name, ())
