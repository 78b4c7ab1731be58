"""The engine's imports, started as the server starts instead of with the first page.

Streamlit runs the app's script only once a browser has connected, and a browser connects only
after loading Streamlit's frontend: one to two seconds in which the server has nothing to do.
``streamlit run streamlit_app.py`` serves the app as an ``st.App`` whose lifespan calls
:func:`start`, so the libraries the first page needs (numpy, scipy.sparse, pyarrow, pandas) and
the engine are imported in those seconds, on a background thread. The entry point calls
:func:`wait` before its own imports, so a script never imports a module the thread is still
importing; AppTest and plain ``streamlit run`` of a page file never start it, and ``wait`` then
returns at once.
"""

from __future__ import annotations

import importlib
import threading
from contextlib import asynccontextmanager, suppress

# In the order they depend on each other: the engine last. Nothing of ui/ (the script imports
# those itself, after wait()), so no page run can hold one of these while this thread waits for
# it.
MODULES = ("numpy", "scipy.sparse", "pyarrow", "pandas", "pyarrow.pandas_compat", "lab")

_done = threading.Event()
_thread: threading.Thread | None = None


def _import() -> None:
    try:
        with suppress(Exception):  # the script's own import raises it again, on the page
            for name in MODULES:
                importlib.import_module(name)
    finally:
        _done.set()


def start() -> None:
    """Import :data:`MODULES` on a daemon thread (once per process)."""
    global _thread
    if _thread is None:
        _thread = threading.Thread(target=_import, name="chunking-lab-warmup", daemon=True)
        _thread.start()


def wait() -> None:
    """Return once the imports :func:`start` began are done (at once when it never ran)."""
    if _thread is not None:
        _done.wait()


@asynccontextmanager
async def lifespan(_app):
    """``st.App``'s lifespan: start the imports; the server answers meanwhile."""
    start()
    yield
