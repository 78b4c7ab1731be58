"""Index overview: the corpus, each chunker's index, and where one chunker cuts the document."""

import streamlit as st

from lab import CHUNKERS, POLICY_CHUNKER
from ui import cache, choices, documents, draw, overview, state

settings = state.current()
corpus = cache.corpus(settings.corpus, settings.parser)

st.title("Index overview")
st.caption(f"Corpus: {draw.md_escape(corpus.name)}")
overview.corpus_summary(corpus)
if documents.is_collection(corpus):
    st.subheader("Documents")
    st.caption(
        "Each document's type (given by the manifest or inferred from its structure), its "
        "metadata, and the chunker the collection's policy gives it; **by-type** runs that policy."
    )
    st.dataframe(
        documents.documents_table(corpus, settings.config),
        column_config=documents.DOCUMENT_COLUMNS,
        hide_index=True,
    )
    documents.policy_nudge(corpus, settings.chunkers)
overview.outline_view(corpus)
result = cache.lab(corpus, settings.config)

st.subheader("Index statistics")
st.caption(
    f"Chunk size L = {settings.size} {state.size_unit(settings)}; {state.budget_note(settings)}; "
    f"{draw.REFS_NOTE[settings.refs]}. Chars count the body a chunk covers; delivered counts "
    "what the assembler hands over: heading prefix, body and delivered reference text."
    + state.retrieval_note(settings, " Retrieval: ")
)
draw.training_notices(corpus, settings.split, settings.chunkers, settings.adaptive)
cache.parents_notice(corpus, settings.config)
table = overview.index_table(result)
if settings.tokenizer:
    tokens = {
        r.chunker: cache.index(corpus, settings.config, r.chunker).tokens for r in result.runs
    }
    table = overview.with_tokens(table, tokens)
columns = overview.index_columns(
    int(table["chunks"].max()), sum(len(q.evidence) for q in corpus.questions)
)
st.dataframe(overview.shown(table, overview.INDEX_MAIN), column_config=columns, hide_index=True)
with st.expander("More index statistics: delivered sizes, long sentences, training"):
    st.dataframe(overview.shown(table, overview.INDEX_MORE), column_config=columns, hide_index=True)

st.subheader("Boundary map")
names = state.chunker_options(settings.dense)
left, right = st.columns(2)
with left:
    chunker = choices.page_selectbox(
        "Chunker", names, key="map", index=names.index(settings.chunkers[0])
    )
doc = 0
if len(corpus.documents) > 1:
    with right:
        doc_names = [d.name for d in corpus.documents]
        doc = doc_names.index(choices.page_selectbox("Document", doc_names, key="doc"))
st.caption(f"**{CHUNKERS[chunker].label}.** {CHUNKERS[chunker].description}")
if chunker == POLICY_CHUNKER:
    info = corpus.info[doc]
    config = settings.config
    choice = corpus.policy.resolve(info.type, config.size, config.overlap, settings.dense)
    st.caption(
        f"This document is a **{draw.md_escape(info.type)}**: the policy cuts it with "
        f"**{choice.chunker}**."  # a registered chunker: the policy refuses any other name
    )
if corpus.info[doc].format == "html":
    st.caption("An HTML document: the map shows its extracted text, where evidence is found.")

index = cache.index(corpus, settings.config, chunker)
if any(c.search_source for c in index.chunks):
    st.caption(
        "Retrieval matches the small children drawn here; each delivers its parent (the grey "
        "**parents** row), once per context."
    )
view = ("map", chunker, doc, settings.config)
strip = cache.view(corpus, (*view, "strip"), overview.strip_data, index, doc, settings.budget)
draw.chart(cache.spec(overview.boundary_strip, index.unit), **strip)
st.caption(overview.STRIP_CAPTION)
text_chars = len(corpus.documents[doc].text)
if text_chars > overview.MAP_CHARS:
    st.info(
        f"The document has {text_chars:,} characters; the map below shows the first "
        f"{overview.MAP_CHARS:,}. The strip above covers all of it."
    )
st.html(cache.view(corpus, (*view, "text"), overview.boundary_html, index, doc, settings.budget))
