"""Question drill-down: one question through every chunker and mode, the modes side by side."""

import streamlit as st

from lab import CHUNKERS, describe_filter, scored_on_training
from ui import cache, context, drilldown, state
from ui.draw import REFS_NOTE, grid, md_escape, training_notices

settings = state.current()
corpus = cache.corpus(settings.corpus, settings.parser)
q = context.question(corpus, settings.question)

st.title("Question drill-down")
if q is None:
    st.info(
        f"This corpus has no {settings.split} questions: choose another split in the sidebar, "
        "or load questions on the **Your corpus** page."
    )
else:
    case = f" · case: {md_escape(q.case)}" if q.case else ""
    st.markdown(f"#### {md_escape(q.question)}")
    st.caption(
        f"{md_escape(q.id)} · {q.split} · {len(q.evidence)} evidence "
        f"{'span' if len(q.evidence) == 1 else 'spans'}{case} · "
        f"L = {settings.size} {state.size_unit(settings)} · {state.budget_note(settings)} · "
        f"{REFS_NOTE[settings.refs]}" + state.retrieval_note(settings, " · ")
    )
    if q.filter and not settings.filters:
        st.caption(
            f"Metadata filter: **{md_escape(describe_filter(q.filter))}**, switched off in the "
            "sidebar: retrieval ranks every document."
        )
    elif q.filter:
        kept = corpus.allowed(q)
        st.caption(
            f"Metadata filter: **{md_escape(describe_filter(q.filter))}**: retrieval ranks only "
            f"the chunks of {len(kept)} of the {len(corpus.documents)} documents "
            f"({md_escape(', '.join(corpus.documents[d].name for d in kept)) or 'none'})."
        )
    training_notices(corpus, settings.split, settings.chunkers, settings.adaptive)
    cache.parents_notice(corpus, settings.config)
    drilldown.evidence_list(corpus, q)

    views = {
        (chunker, mode): drilldown.view(corpus, settings.config, chunker, mode, q.id)
        for chunker in settings.chunkers
        for mode in settings.modes
    }
    st.subheader("Every configuration")
    trained = scored_on_training(corpus, settings.split, settings.chunkers)
    st.dataframe(drilldown.overview(views, settings.chunkers, settings.modes, trained))
    st.caption(
        "complete: all the evidence is in the context · partial: some of it · miss: none. "
        "After the dot: why the missing evidence missed."
    )

    st.subheader("Ranking and context")
    for tab, chunker in zip(st.tabs(list(settings.chunkers)), settings.chunkers, strict=True):
        mine = [views[chunker, mode] for mode in settings.modes]
        with tab:
            st.caption(f"**{CHUNKERS[chunker].label}.** {CHUNKERS[chunker].description}")
            for column, v in zip(grid(len(mine)), mine, strict=True):
                with column:
                    drilldown.draw_view(v, rows=max(len(m.ranking) for m in mine))
