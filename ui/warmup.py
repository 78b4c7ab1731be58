"""The first page's imports, started as the server starts instead of with the first page.

Streamlit runs the app's script only once a browser has connected, and a browser connects only
after loading Streamlit's frontend: one to two seconds in which the server has nothing to do.
``streamlit run streamlit_app.py`` serves the app as an ``st.App`` whose lifespan calls
:func:`start`, so what the first page needs (numpy, scipy.sparse, pyarrow, pandas, the engine,
the sidebar's and the index overview's ui modules) is imported in those seconds, on a background
thread. The entry point calls :func:`wait` before its own imports. AppTest, and ``streamlit run``
of a page file, never start it, and ``wait`` then returns at once.

The thread imports these modules while the server waits for the browser; should a script's
import of one meet the thread's, it waits for it, which is safe as long as no two of these modules
import each other (``tests/test_app_cold_start.py`` checks that ui's modules do not).
"""

from __future__ import annotations

import importlib
import inspect
import threading
from contextlib import asynccontextmanager, suppress

# In the order they depend on each other: libraries, the engine, then the views.
MODULES = (
    "numpy",
    "scipy.sparse",
    "pyarrow",
    "pandas",
    "pyarrow.pandas_compat",
    "lab",
    "ui.state",
    "ui.link_notices",
    "ui.choices",
    "ui.documents",
    "ui.overview",
)

_done = threading.Event()
_thread: threading.Thread | None = None


def _import() -> None:
    try:
        with suppress(Exception):  # the script's own import raises it again, on the page
            for name in MODULES:
                importlib.import_module(name)
        # Streamlit looks at the call stack once, on a process's first element
        # (``inspect.stack``), which finds the file of every module loaded: about 0.1 s with
        # these loaded. Finding them here fills the ``inspect`` cache that lookup reads.
        inspect.getmodule(_import.__code__)
    finally:
        _done.set()


def start() -> None:
    """Import :data:`MODULES` on a daemon thread (once per process)."""
    global _thread
    if _thread is None:
        _thread = threading.Thread(target=_import, name="chunking-lab-warmup", daemon=True)
        _thread.start()


def pending() -> bool:
    """True while the imports :func:`start` began are still running."""
    return _thread is not None and not _done.is_set()


def wait() -> None:
    """Return once the imports :func:`start` began are done (at once when it never ran)."""
    if _thread is not None:
        _done.wait()


@asynccontextmanager
async def lifespan(_app):
    """``st.App``'s lifespan: start the imports; the server answers meanwhile."""
    start()
    yield
