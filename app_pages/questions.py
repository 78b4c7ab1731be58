"""Questions: write the corpus's questions and mark their evidence by clicking sentences, see how
every chunker does on each, draft some with an LLM, and save them as a new corpus."""

import streamlit as st

from lab import qe_text
from ui import cache, draw, question_draft, questions, state

settings = state.current()
mine = cache.corpus(settings.corpus)

st.title("Questions")
st.caption(
    f"Corpus: {draw.md_escape(mine.name)}. Write the questions your retrieval must answer and "
    "mark the sentences each needs. Nothing changes until you save: saving keeps a new corpus "
    "on this server (a bundled corpus is never changed), and every page runs on it."
)
notice = question_draft.take_notice()
if notice:
    kind, message = notice
    getattr(st, kind)(draw.md_escape(message))

inputs = question_draft.inputs_for(settings.corpus)
if inputs is None:
    st.error("This corpus's files cannot be read, so its questions cannot be edited here.")
    st.stop()
work = question_draft.draft(mine)
current, problem = question_draft.corpus_with(inputs, work.items)

st.subheader(f"{len(work.items)} question{'s' * (len(work.items) != 1)}")
if work.items:
    questions.questions_table(work, current, settings)
    questions.table_actions(work)
else:
    st.info(
        "No questions yet. Write the first one below: type it, find its evidence and click "
        "the sentences. Or import a dataset you have (Chroma, SQuAD, ragas, lists) on **Your "
        "corpus**, or draft questions with `python -m lab generate`."
    )
    if work.history:
        st.button("Undo", on_click=questions.undo, args=(work,))

editing = st.session_state.get(questions.EDITING)
st.subheader(f"Edit {draw.md_escape(editing)}" if editing else "Write a question")
questions.editor_fields(mine)
marked, verdicts = st.columns(2, gap="large")
with marked:
    st.markdown("**Evidence**")
    questions.marked_evidence(mine)
item, missing = questions.edited_item(work)
with verdicts:
    if item is None:
        st.caption(draw.md_escape(missing))
    else:
        st.markdown("**How every chunker does on it**")
        questions.every_chunker(inputs, work, item, settings)
    row = st.container(horizontal=True)
    row.button(
        f"Save {draw.md_escape(editing)}" if editing else "Add question",
        type="primary",
        disabled=item is None,
        on_click=questions.keep_item,
        args=(work, item, inputs),
    )
    row.button("Clear", on_click=questions.clear_editor)
questions.find_units(mine)
questions.paste_evidence(inputs, mine)

endpoint = question_draft.llm_endpoint()
if endpoint is not None:
    questions.llm_panel(inputs, work, endpoint)

st.subheader("Save")
st.caption(
    "A new corpus with these questions, kept on this server: the sidebar switches to it and the "
    "share link reopens it. Or download the questions, or the whole collection."
)
row = st.container(horizontal=True)
row.button(
    "Save as a new corpus",
    type="primary",
    icon=":material/save:",
    disabled=not work.items,
    on_click=question_draft.save,
    args=(inputs, work.items),
)
row.download_button(
    "Download QE JSON",
    qe_text(work.items),
    "questions.json",
    "application/json",
    icon=":material/download:",
    on_click="ignore",
)
row.download_button(
    "Download the collection (.zip)",
    lambda: question_draft.collection_zip(inputs, work.items),
    "collection.zip",
    "application/zip",
    icon=":material/folder_zip:",
    on_click="ignore",
)
