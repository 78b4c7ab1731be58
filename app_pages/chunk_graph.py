"""Chunk graph: one chunker's graph of chunks, sized by PageRank for the chosen question."""

import streamlit as st

from ui import cache, choices, context, draw, graph, state
from ui.draw import md_escape

settings = state.current()
corpus = cache.corpus(settings.corpus, settings.parser)
names = state.chunker_options(settings.dense)
default = "structure" if "structure" in settings.chunkers else settings.chunkers[0]
seeds = "hybrid fusion (BM25 + dense, RRF)" if settings.dense else "BM25"

st.title("Chunk graph")
st.caption(
    f"Graph retrieval (SpectRAG-lite): the top 3 chunks by {seeds} seed a personalised PageRank "
    f"that spreads along the edges; the blend of that score and PageRank ranks the chunks."
)
if "graph" not in settings.modes:
    chosen = " and ".join(settings.modes)
    st.info(
        f"This page shows graph mode. The modes chosen in the sidebar ({chosen}) rank chunks "
        "without the graph."
    )
elif settings.dense:
    st.caption("Dense and hybrid retrieval rank chunks without the graph; only graph mode uses it.")
left, right = st.columns([1, 2])
with left:
    chunker = choices.page_selectbox(
        "Chunker", names, key="graph_chunker", index=names.index(default)
    )
with right:
    types = choices.page_pills("Edge types", list(graph.EDGE_COLORS), key="graph_edges")
draw.training_notices(corpus, settings.split, (chunker,))
view = graph.graph_view(corpus, settings.config, chunker, settings.question)
q = context.question(corpus, settings.question)

if view.total == 0:
    st.info("This chunker made no chunks of the corpus.")
else:
    graph.edge_metrics(corpus, settings.config, chunker, view)
    if q is None:
        st.info("No question chosen: node sizes are uniform. Pick a question in the sidebar.")
    else:
        st.markdown(f"**{md_escape(q.id)}** · {md_escape(q.question)}")
    if len(view.nodes) < view.total:
        st.info(
            f"The graph has {view.total:,} chunks; this shows {len(view.nodes):,}: the "
            "question's seeds, picks and evidence holders and the best-ranked others."
        )
    chosen = graph.chosen_node(view)
    st.vega_lite_chart(
        spec=graph.graph_spec(
            corpus, settings.config, chunker, settings.question, tuple(types or ()), chosen
        ),
        width="stretch",
        key=graph.CHART_KEY,
        on_select=graph.node_clicked,
        selection_mode="node",
    )
    st.caption(
        "Circle area: PageRank mass for the question. Fill: what the assembler did with the "
        "chunk in graph mode. Red ring: holds an evidence span whole. Dashed ring: a PageRank "
        "seed. Numbers are chunk numbers; ▼ marks the chunk shown below. Click a chunk to read "
        "it (double-click clears)."
    )
    graph.chunk_panel(corpus, settings.config, chunker, view, settings.question)
