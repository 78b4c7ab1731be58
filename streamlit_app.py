"""Chunking Lab: the entry point. Draws the page frame, builds the shared sidebar once, then runs
the chosen page.

``streamlit run streamlit_app.py`` first imports this file as a module, finds ``app`` and serves
it as an ``st.App``: its lifespan starts importing the engine (numpy, scipy, pandas: about a
second) while the browser is still loading Streamlit's frontend (see ``ui/warmup.py``). Streamlit
then runs this file as the app's script, ``__main__``, for every page view. The navigation and
the page's title are drawn before the engine is needed, so the page is never blank; the dense
stack (torch, sentence-transformers) is imported only once dense retrieval is switched on.
"""

import sys
from pathlib import Path

import streamlit as st

from ui import warmup

# A local file: a ":material/...:" page icon makes the browser fetch the favicon from Google's
# font server on every page, which fails offline and tells a third party about every visit.
FAVICON = Path(__file__).resolve().parent / "ui" / "assets" / "favicon.svg"


def main() -> None:
    st.set_page_config(page_title="Chunking Lab", page_icon=str(FAVICON), layout="wide")
    page = st.navigation(
        {
            "Results": [
                st.Page(
                    "app_pages/index_overview.py",
                    title="Index overview",
                    icon=":material/view_day:",
                    default=True,
                ),
                st.Page(
                    "app_pages/recall_tables.py",
                    title="Recall tables",
                    icon=":material/table_chart:",
                ),
                st.Page(
                    "app_pages/sweep_charts.py", title="Sweep charts", icon=":material/monitoring:"
                ),
                st.Page("app_pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
            ],
            "Explain": [
                st.Page(
                    "app_pages/question_drilldown.py",
                    title="Question drill-down",
                    icon=":material/search_insights:",
                ),
                st.Page("app_pages/chunk_graph.py", title="Chunk graph", icon=":material/hub:"),
            ],
            "Data": [
                st.Page(
                    "app_pages/your_corpus.py", title="Your corpus", icon=":material/upload_file:"
                ),
                st.Page("app_pages/questions.py", title="Questions", icon=":material/quiz:"),
            ],
        }
    )
    frame = st.empty()
    if "ui.state" not in sys.modules or warmup.pending():  # the engine is still to be loaded
        with frame.container():
            st.title(page.title)
            st.caption(":material/hourglass_top: Starting the lab: loading the engine…")
    warmup.wait()  # the imports the server began as it started are done

    from ui import link_notices, state  # after the frame, which must not wait for the engine

    settings = state.sidebar(page)
    link_notices.show_notices()
    state.run(page, settings, frame)


if __name__ == "__main__":  # Streamlit running the app's script
    main()
else:  # imported by `streamlit run` (or an ASGI server): the app it serves
    app = st.App(__file__, lifespan=warmup.lifespan)
