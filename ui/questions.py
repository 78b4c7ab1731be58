"""The Questions page's views: the corpus's questions with how the sidebar's configuration does
on each, the editor (a question, its split and filter, evidence marked by clicking units found by
words or a phrase, or pasted and checked like the loader checks it), how every chunker does on the
question being written, and the questions an LLM drafted, for review.

Every text the user or a document supplies reaches the screen as data (tables) or through
``md_escape``; evidence made by clicking a unit is the document's own text at its offsets."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from lab import Corpus, LLMError, draft_questions, next_id, search
from lab.marking import KIND_NAMES, Hit, entry, readable

from . import cache, question_draft
from .draw import config_label, md_escape, short
from .link_notices import chunker_options
from .question_draft import Draft

EDITING = "qp_editing"  # the id of the question in the editor (None: a new one)
EVIDENCE = "qp_evidence"  # the editor's evidence entries
TEXT, SPLIT, FILTER, QUERY, DOC, PASTE, PAGE = (
    "qp_text",
    "qp_split",
    "qp_filter",
    "qp_query",
    "qp_doc",
    "qp_paste",
    "qp_page",
)
PICK = "qp_pick"  # the question the table's actions apply to
ASKED = "qp_llm_asked"  # "Draft questions" was clicked: draft on the next run that gets there
PER_PAGE = 12
ALL_DOCUMENTS = "All documents"


def _evidence() -> list[dict]:
    return st.session_state.setdefault(EVIDENCE, [])


def _key(e: dict) -> tuple[str, int]:
    return e["doc"], e.get("start", -1)


# --- the questions table ----------------------------------------------------------------------


def verdicts(mine: Corpus, settings) -> dict[str, dict[str, str]]:
    """Question id -> configuration label -> verdict, for the sidebar's configuration."""
    if not mine.questions:
        return {}
    result = cache.lab(mine, replace(settings.config, split="all", parser=mine.parser))
    out: dict[str, dict[str, str]] = {}
    for run in result.runs:
        for q in run.questions:
            out.setdefault(q.id, {})[config_label(run.chunker, run.mode)] = q.verdict
    return out


def questions_table(work: Draft, mine: Corpus | None, settings) -> None:
    """The draft's questions, with how the sidebar's configuration does on each."""
    import pandas as pd

    found = verdicts(mine, settings) if mine is not None else {}
    names = {d: n for d, n in enumerate(d.name for d in mine.documents)} if mine else {}
    rows = []
    for item in work.items:
        docs = list(dict.fromkeys(str(e.get("doc", "?")) for e in item["evidence"]))
        row = {
            "id": item["id"],
            "question": item["question"],
            "split": item.get("split", "test"),
            "evidence": len(item["evidence"]),
            "documents": ", ".join(docs) if len(names) > 1 else "",
            "filter": ", ".join(f"{k}={v}" for k, v in (item.get("filter") or {}).items()),
        }
        row |= found.get(item["id"], {})
        rows.append(row)
    frame = pd.DataFrame(rows)
    if len(names) <= 1:
        frame = frame.drop(columns=["documents"])
    if not any(item.get("filter") for item in work.items):
        frame = frame.drop(columns=["filter"])
    st.dataframe(
        frame,
        hide_index=True,
        height=min(38 + 35 * len(frame), 318),
        column_config={
            "id": st.column_config.TextColumn(pinned=True),
            "question": st.column_config.TextColumn(width="large", pinned=True),
        },
    )
    st.caption(
        "The right-hand columns: complete (every evidence span in the context), partial (some) "
        "or miss, for each chunker and mode the sidebar chooses, at its size and budget."
    )


def table_actions(work: Draft) -> None:
    """Edit, delete, move and undo, on the question picked."""
    ids = [i["id"] for i in work.items]
    row = st.container(horizontal=True, vertical_alignment="bottom")
    picked = row.selectbox(
        "Question",
        ids,
        key=PICK,
        width=340,
        format_func=lambda q: (
            f"{q} · {short(next(i['question'] for i in work.items if i['id'] == q), 50)}"
        ),
    )
    k = ids.index(picked) if picked in ids else 0
    row.button("Edit", icon=":material/edit:", on_click=_edit, args=(work, picked))
    row.button("Delete", icon=":material/delete:", on_click=_delete, args=(work, picked))
    row.button(
        "Up",
        icon=":material/arrow_upward:",
        on_click=_move,
        args=(work, k, -1),
        disabled=k == 0,
    )
    row.button(
        "Down",
        icon=":material/arrow_downward:",
        on_click=_move,
        args=(work, k, 1),
        disabled=k >= len(ids) - 1,
    )
    row.button(
        "Undo", icon=":material/undo:", on_click=undo, args=(work,), disabled=not work.history
    )


def _edit(work: Draft, qid: str) -> None:
    item = next(i for i in work.items if i["id"] == qid)
    st.session_state[EDITING] = qid
    st.session_state[TEXT] = item["question"]
    st.session_state[SPLIT] = item.get("split", "test")
    st.session_state[FILTER] = _filter_text(item.get("filter"))
    st.session_state[EVIDENCE] = [dict(e) for e in item["evidence"]]


def _filter_text(filter: dict | None) -> str:
    return ", ".join(
        f"{k}={'|'.join(v) if isinstance(v, list) else v}" for k, v in (filter or {}).items()
    )


def _delete(work: Draft, qid: str) -> None:
    work.change([i for i in work.items if i["id"] != qid])
    question_draft.notify(f"Deleted {qid}. Undo brings it back.", "info")


def _move(work: Draft, k: int, step: int) -> None:
    items = list(work.items)
    items[k], items[k + step] = items[k + step], items[k]
    work.change(items)
    st.session_state[PICK] = items[k + step]["id"]


def undo(work: Draft) -> None:
    work.undo()
    question_draft.notify("Undid the last change.", "info")


# --- the editor -------------------------------------------------------------------------------


def clear_editor() -> None:
    st.session_state.pop(EDITING, None)
    for key in (TEXT, FILTER, PASTE):
        st.session_state[key] = ""
    st.session_state[EVIDENCE] = []
    st.session_state[SPLIT] = "test"


def editor_fields(mine: Corpus) -> None:
    st.text_input(
        "Question",
        key=TEXT,
        placeholder="Is flash photography allowed on the observing terrace?",
        help="The question as a user would ask it. Mark below every sentence an answer needs.",
    )
    left, right = st.columns(2)
    left.radio(
        "Split",
        ("test", "train"),
        key=SPLIT,
        horizontal=True,
        help="Test questions are scored; the qes chunkers learn from train questions.",
    )
    if any(info.meta for info in mine.info):
        right.text_input(
            "Filter (optional)",
            key=FILTER,
            placeholder="product=WH-1000",
            help="key=value pairs, comma-separated; value1|value2 accepts either. Retrieval "
            "then ranks only the documents whose metadata match.",
        )


def parse_filter(text: str) -> tuple[dict | None, str | None]:
    """A filter from ``key=value, key=a|b``; None and why when it cannot be read."""
    if not text.strip():
        return None, None
    out = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            return None, f"The filter part {part.strip()!r} is not key=value."
        values = [v.strip() for v in value.split("|") if v.strip()]
        out[key.strip()] = values[0] if len(values) == 1 else values
    return out, None


def marked_evidence(mine: Corpus) -> None:
    """The evidence marked so far, each with a button that removes it."""
    evidence = _evidence()
    if not evidence:
        st.caption("No evidence marked yet: find the sentences below and click them.")
        return
    for k, e in enumerate(evidence):
        text, button = st.columns([12, 1], vertical_alignment="center")
        where = f"**{md_escape(e['doc'])}**" if len(mine.documents) > 1 else ""
        text.markdown(f"{k + 1}. {where} {md_escape(readable(e['text']))}")
        button.button(
            "",
            icon=":material/close:",
            key=f"qp_remove_{k}",
            on_click=_remove,
            args=(k,),
            help="Remove this evidence",
        )


def _remove(k: int) -> None:
    evidence = _evidence()
    if 0 <= k < len(evidence):
        evidence.pop(k)


def find_units(mine: Corpus) -> None:
    """Search the documents and click units to mark (or unmark) them as evidence."""
    names = [d.name for d in mine.documents]
    search_at, doc_at, page_at = st.columns([3, 2, 1], vertical_alignment="bottom")
    query = search_at.text_input(
        "Find evidence",
        key=QUERY,
        placeholder='words, or "an exact phrase"',
        help="Units (sentences, list items, table rows) holding every word; a phrase in quotes "
        "must appear as it is. Leave empty to read the documents from the start.",
    )
    doc = None
    if len(names) > 1:
        choice = doc_at.selectbox("In", [ALL_DOCUMENTS, *names], key=DOC)
        doc = None if choice == ALL_DOCUMENTS else names.index(choice)
    hits = search(mine, query, doc)
    if not hits:
        st.info("No sentence, list item or row holds all of that. Try fewer words.")
        return
    pages = (len(hits) + PER_PAGE - 1) // PER_PAGE
    page = 1
    if pages > 1:
        page = int(
            page_at.number_input(f"Page of {pages:,}", 1, pages, key=f"{PAGE}_{query}_{doc}")
        )
    shown = hits[(page - 1) * PER_PAGE : page * PER_PAGE]
    st.caption(
        f"{len(hits):,} unit{'s' * (len(hits) != 1)}"
        + (
            f", {(page - 1) * PER_PAGE + 1}–{(page - 1) * PER_PAGE + len(shown)} shown"
            if pages > 1
            else ""
        )
        + ". Click one to mark it as evidence, again to unmark it."
    )
    marked = {_key(e) for e in _evidence()}
    group = None
    for hit in shown:
        path = readable(hit.path)
        where = " › ".join(p for p in (names[hit.doc] if len(names) > 1 else "", path) if p)
        if where != group:
            st.markdown(f"**{md_escape(where or 'Before the first heading')}**")
            group = where
        key = f"qp_unit_{hit.key}"
        st.session_state[key] = (names[hit.doc], hit.start) in marked
        text = md_escape(readable(hit.text, hit.kind))
        label = text if hit.kind == "sentence" else f"*{KIND_NAMES[hit.kind]}:* {text}"
        st.checkbox(label, key=key, on_change=_toggle, args=(mine, hit), width="stretch")


def _toggle(mine: Corpus, hit: Hit) -> None:
    evidence = _evidence()
    mark = entry(mine, hit.doc, hit.start, hit.end)
    if st.session_state.get(f"qp_unit_{hit.key}"):
        if _key(mark) not in {_key(e) for e in evidence}:
            evidence.append(mark)
    else:
        st.session_state[EVIDENCE] = [e for e in evidence if _key(e) != _key(mark)]


def paste_evidence(inputs, mine: Corpus) -> None:
    """A passage typed or pasted, checked like the loader checks QE evidence."""
    with st.expander("…or paste a passage's exact text"):
        st.text_area(
            "Evidence text",
            key=PASTE,
            height=90,
            help="Found whitespace-insensitively; look-alike quotes and dashes are allowed, with "
            "a warning, as when a QE file loads.",
        )
        st.button("Add as evidence", on_click=_add_pasted, args=(inputs, mine))


def _add_pasted(inputs, mine: Corpus) -> None:
    text = st.session_state.get(PASTE, "")
    probe = {"id": "pasted", "question": "pasted", "evidence": [text]}
    built, refused = question_draft.corpus_with(inputs, [probe])
    if built is None:
        question_draft.notify(refused or "The passage could not be checked.", "error")
        return
    problems = [e for e in built.errors if e.question == "pasted"]
    if not built.questions:
        question_draft.notify(problems[0].message if problems else "Not found.", "error")
        return
    (found,) = built.questions[0].evidence
    mark = entry(built, found.doc, found.start, found.end)
    if _key(mark) not in {_key(e) for e in _evidence()}:
        _evidence().append(mark)
    st.session_state[PASTE] = ""
    warnings = "; ".join(e.message for e in problems)
    question_draft.notify(
        "Found and marked" + (f", with a warning: {warnings}" if warnings else "."),
        "warning" if warnings else "success",
    )


def edited_item(work: Draft) -> tuple[dict | None, str | None]:
    """The question the editor holds, or None and what it lacks."""
    text = st.session_state.get(TEXT, "").strip()
    if not text:
        return None, "Type the question."
    if not _evidence():
        return None, "Mark at least one evidence sentence."
    filter, problem = parse_filter(st.session_state.get(FILTER, ""))
    if problem:
        return None, problem
    qid = st.session_state.get(EDITING) or next_id(work.items)
    item = {
        "id": qid,
        "question": text,
        "split": st.session_state.get(SPLIT, "test"),
        "evidence": [dict(e) for e in _evidence()],
    }
    if filter:
        item["filter"] = filter
    return item, None


def with_item(work: Draft, item: dict) -> list[dict]:
    """The draft's questions with ``item`` in place of its namesake, or after them."""
    items = [item if i["id"] == item["id"] else i for i in work.items]
    return items if any(i["id"] == item["id"] for i in work.items) else [*items, item]


def every_chunker(inputs, work: Draft, item: dict, settings) -> None:
    """How every chunker (in the sidebar's modes, size and budget) does on the question."""
    import pandas as pd

    built, refused = question_draft.corpus_with(inputs, with_item(work, item))
    if built is None or not any(q.id == item["id"] for q in built.questions):
        problems = [e.message for e in (built.errors if built else []) if e.question == item["id"]]
        st.error(md_escape(problems[0] if problems else refused or "This question cannot load."))
        return
    config = replace(
        settings.config,
        chunkers=tuple(chunker_options(settings.dense)),
        split="all",
        parser=built.parser,  # the reading whose text its evidence was marked in
    )
    result = cache.lab(built, config, (item["id"],))
    rows: dict[str, dict] = {}
    for run in result.runs:
        verdict = next(q.verdict for q in run.questions if q.id == item["id"])
        rows.setdefault(run.chunker, {"chunker": run.chunker})[run.mode] = verdict
    st.dataframe(pd.DataFrame(list(rows.values())), hide_index=True)
    st.caption(
        f"Every chunker on this question at L = {settings.size} characters and a budget of "
        f"{settings.budget} words, in the sidebar's retrieval modes."
    )


def keep_item(work: Draft, item: dict, inputs) -> None:
    """Put the editor's question in the draft when the loader accepts it (a button callback)."""
    built, refused = question_draft.corpus_with(inputs, with_item(work, item))
    problems = [e.message for e in (built.errors if built else []) if e.question == item["id"]]
    if built is None or not any(q.id == item["id"] for q in built.questions):
        question_draft.notify(problems[0] if problems else refused or "It cannot load.", "error")
        return
    editing = st.session_state.get(EDITING)
    work.change(with_item(work, item))
    clear_editor()
    question_draft.notify(f"{'Saved' if editing else 'Added'} {item['id']}.")


# --- drafting with an LLM ---------------------------------------------------------------------


def llm_panel(inputs, work: Draft, endpoint) -> None:
    """Draft questions with the server's LLM, for review: accept, edit or reject each."""
    with st.expander(
        f"Draft with an LLM ({md_escape(endpoint.model)})", icon=":material/auto_awesome:"
    ):
        st.caption(
            "The model reads excerpts of the documents and proposes questions with their "
            "evidence; only questions whose every evidence sentence is in the text come back, "
            "for you to accept, edit or reject. Nothing joins the corpus until you accept it."
        )
        left, right = st.columns([1, 3], vertical_alignment="bottom")
        count = int(left.number_input("How many", 1, 30, 5, key="qp_llm_count"))
        right.button("Draft questions", icon=":material/auto_awesome:", on_click=_ask)
        if st.session_state.pop(ASKED, False):  # kept until a run gets this far
            _draft(inputs, work, endpoint, count)
        review = st.session_state.get(question_draft.REVIEW, [])
        for k, item in enumerate(review):
            st.markdown(f"**{md_escape(item['question'])}**")
            for e in item["evidence"]:
                st.markdown(f"- {md_escape(e['doc'])}: {md_escape(readable(e['text']))}")
            a, b, c, _ = st.columns([1, 1, 1, 5])
            for column, action in zip((a, b, c), ("accept", "edit", "reject"), strict=True):
                column.button(
                    action.capitalize(),
                    key=f"qp_{action}_{k}",
                    on_click=_review,
                    args=(inputs, work, k, action),
                )


def _ask() -> None:
    st.session_state[ASKED] = True


def _draft(inputs, work: Draft, endpoint, count: int) -> None:
    existing = tuple(i["question"] for i in work.items)
    with st.status("Asking the model…", expanded=True) as status:
        try:
            made = draft_questions(
                inputs.documents,
                endpoint,
                count,
                existing=existing,
                progress=lambda d: status.update(
                    label=f"Request {d.requests}: {len(d.questions)} grounded question(s) so far"
                ),
            )
        except (LLMError, ValueError) as exc:
            status.update(label="The model could not be asked", state="error")
            st.error(md_escape(str(exc)))
            return
        for note in made.notes:
            st.caption(md_escape(note))
        for d in made.dropped:
            st.caption(f"Dropped {md_escape(short(d.question, 60))}: {md_escape(d.reason)}")
        done = f"{len(made.questions)} grounded question(s) to review"
        status.update(
            label=done + (f" ({md_escape(made.stopped)})" if made.stopped else ""), state="complete"
        )
    st.session_state[question_draft.REVIEW] = [
        *st.session_state.get(question_draft.REVIEW, []),
        *made.questions,
    ]


def _review(inputs, work: Draft, k: int, action: str) -> None:
    review = st.session_state.get(question_draft.REVIEW, [])
    if not 0 <= k < len(review):
        return
    item = review.pop(k)
    if action == "accept":
        work.change([*work.items, {**item, "id": next_id(work.items)}])
        question_draft.notify("Accepted: it is in the table above.")
    elif action == "edit":
        clear_editor()
        st.session_state[TEXT] = item["question"]
        st.session_state[SPLIT] = item.get("split", "test")
        st.session_state[EVIDENCE] = _pinned(inputs, item)
        question_draft.notify("In the editor below: change it, then add it.", "info")
    else:
        question_draft.notify("Rejected.", "info")


def _pinned(inputs, item: dict) -> list[dict]:
    """The item's evidence pinned where the loader finds it, so the units it covers show as
    marked (as it came, when it cannot be found)."""
    built, _ = question_draft.corpus_with(inputs, [{**item, "id": "review"}])
    if built is None or not built.questions:
        return [dict(e) for e in item["evidence"]]
    return [entry(built, e.doc, e.start, e.end) for e in built.questions[0].evidence]
