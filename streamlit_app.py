"""Chunking Lab: the entry point. Builds the shared sidebar once, then runs the chosen page."""

import streamlit as st

from ui import state

st.set_page_config(page_title="Chunking Lab", page_icon=":material/view_agenda:", layout="wide")

page = st.navigation(
    {
        "Results": [
            st.Page(
                "pages/index_overview.py",
                title="Index overview",
                icon=":material/view_day:",
                default=True,
            ),
            st.Page("pages/recall_tables.py", title="Recall tables", icon=":material/table_chart:"),
            st.Page("pages/sweep_charts.py", title="Sweep charts", icon=":material/monitoring:"),
            st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
        ],
        "Explain": [
            st.Page(
                "pages/question_drilldown.py",
                title="Question drill-down",
                icon=":material/search_insights:",
            ),
            st.Page("pages/chunk_graph.py", title="Chunk graph", icon=":material/hub:"),
        ],
        "Data": [
            st.Page("pages/your_corpus.py", title="Your corpus", icon=":material/upload_file:"),
        ],
    }
)
settings = state.sidebar()
state.show_notices()
state.run(page, settings)
