"""The app side of Chunking Lab: the shared sidebar (``state``), every cached engine call
(``cache``) and shared drawing helpers (``draw``). The engine itself lives in ``lab``.

The pages live in ``app_pages/``, not ``pages/``: Streamlit lists a ``pages/`` folder beside the
entry point as pages of its own (its older multipage mode), while this app's pages are the ones
``streamlit_app.py`` gives ``st.navigation``; every request, a deep link included, runs the entry
point.
"""
