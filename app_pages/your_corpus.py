"""Your corpus: paste or upload a document and its questions, check them, run the lab on them."""

import streamlit as st

from lab import MAX_DOCUMENT_CHARS, MAX_QE_CHARS
from ui import cache, corpus_input, corpus_report, importing, state, uploads
from ui.corpus_input import DOC, NAME, QE

settings = state.current()

st.title("Your corpus")
st.caption(
    "Paste or upload a markdown, plain-text, reStructuredText or HTML document, or upload a PDF "
    "or DOCX (or several, with a collection manifest) and its questions with their evidence "
    "sentences (QE JSON). A corpus that loads is kept on this server, files and manifest "
    "included, so a link can carry it."
)
left, right = st.columns(2)
left.button("Fill in the bundled example", on_click=corpus_input.fill_example, type="tertiary")
right.button(
    "Fill in the TechNova support collection",
    on_click=corpus_input.fill_collection,
    type="tertiary",
)

left, right = st.columns(2)
with left:
    st.subheader("Document")
    st.text_input(
        "Name",
        key=corpus_input.widget(NAME),
        on_change=corpus_input.keep,
        args=(NAME,),
        help='Questions may name it in their "doc" field.',
    )
    st.text_area(
        "Markdown, plain text or HTML",
        key=corpus_input.widget(DOC),
        on_change=corpus_input.keep,
        args=(DOC,),
        height=320,
        placeholder="# Title\n\n## 1 Section\n\n### 1.1 Provision\n\nText…",
        help=f"At most {MAX_DOCUMENT_CHARS:,} characters.",
    )
    st.file_uploader(  # any name: licence files have no extension; the text decides
        f"…or upload a file: markdown, plain text, reStructuredText, HTML, PDF or DOCX "
        f"(up to {corpus_input.UPLOAD_MB} MB)",
        type=None,
        key=corpus_input.UPLOADER[DOC],
        on_change=corpus_input.take_upload,
        args=(DOC,),
        max_upload_size=corpus_input.UPLOAD_MB,
    )
with right:
    st.subheader("Questions")
    st.text_area(
        "QE JSON",
        key=corpus_input.widget(QE),
        on_change=corpus_input.keep,
        args=(QE,),
        height=398,
        placeholder=corpus_input.QE_EXAMPLE,
        help=f"At most {MAX_QE_CHARS:,} characters. Leave empty to explore the chunking only.",
    )
    st.file_uploader(
        f"…or upload a .json file (up to {corpus_input.UPLOAD_MB} MB)",
        type=["json"],
        key=corpus_input.UPLOADER[QE],
        on_change=corpus_input.take_upload,
        args=(QE,),
        max_upload_size=corpus_input.UPLOAD_MB,
    )
    with st.expander("QE JSON format"):
        st.code(corpus_input.QE_EXAMPLE, language="json")
        st.markdown(corpus_input.QE_HELP)
corpus_input.upload_errors()
st.subheader("Several documents")
uploads.draw(lambda text: corpus_input.put(QE, text))
importing.draw()

st.button("Check and load", type="primary", on_click=corpus_input.load)
corpus_report.draw_report()

if cache.USER_CORPUS_KEY in st.session_state:
    st.subheader("Run it")
    corpus_input.kept_note()
    if settings.corpus != cache.USER:
        st.info(
            f"The sidebar shows the {settings.corpus}. Switch it to your corpus to see every "
            "page on it."
        )
        st.button("Use my corpus", on_click=corpus_input.use, type="primary")
    else:
        corpus_input.draw_run(cache.corpus(cache.USER, settings.parser), settings)
    st.button("Forget my corpus", on_click=corpus_input.forget, type="tertiary")
