"""The app side of Chunking Lab: the shared sidebar (``state``), every cached engine call
(``cache``) and shared drawing helpers (``draw``). The engine itself lives in ``lab``.

When a server's first request is a deep link to a page, Streamlit sees the ``pages/`` folder and
runs that page's file on its own (its older multipage mode), skipping ``streamlit_app.py``.
Every page imports this package first, so the detour is turned back here, before the engine is
imported: the older mode is switched off and the run restarts through the entry point, which
draws the page frame at once (``ui.state.current`` does the same when this package is loaded
already: under ``streamlit run streamlit_app.py`` the server imports it as it starts, and starts
importing the engine too, see ``ui/warmup.py``).
"""

import streamlit as _st
from streamlit.runtime.pages_manager import PagesManager as _PagesManager

if _PagesManager.uses_pages_directory and _st.runtime.exists():
    _PagesManager.uses_pages_directory = False
    _st.rerun()
