"""The shared sidebar: every setting is a widget bound to the URL, read back as one ``Settings``.

Each widget's ``key`` is its query parameter, set with ``bind="query-params"``
(``?size=600&budget=80&chunker=structure&chunker=qes-dp&question=q07``). Streamlit seeds a bound
widget from the URL on page load, writes changes back, leaves default values out, and silently
drops a value the widget cannot take. :func:`url_notices` names what it dropped, so a pasted link
that falls back to defaults says why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

import streamlit as st
from streamlit.navigation.page import StreamlitPage
from streamlit.runtime.pages_manager import PagesManager

from lab import CHUNKERS, SPLITS, LabConfig
from lab import LEXICAL_MODES as MODES

from . import cache
from .draw import md_escape

BIND = "query-params"
SIZE_RANGE = (100, 4000)
BUDGET_RANGE = (10, 1000)
SETTINGS_KEY = "settings"
URL_KEY = "url_at_load"  # the query parameters of the session's first run; {} on later runs
NOTICES_KEY = "url_notices"
LINK_KEY = "link_params"  # page-level bound widgets' values, for the share link
ENTRY_KEY = "entry_point_running"  # True while streamlit_app.py runs the page

EXPECTED = {
    "corpus": "a corpus of this session (a pasted corpus is not part of a link)",
    "chunker": "one or more of " + ", ".join(CHUNKERS),
    "mode": "flat and/or graph",
    "size": f"a whole number of characters from {SIZE_RANGE[0]} to {SIZE_RANGE[1]}",
    "budget": f"a whole number of words from {BUDGET_RANGE[0]} to {BUDGET_RANGE[1]}",
    "split": "one of " + ", ".join(SPLITS),
    "headers": "true or false",
    "resolve_refs": "true or false",
    "question": "a question id of the chosen corpus and split",
}
NUMBERS = {"size", "budget"}
FLAGS = {"headers", "resolve_refs"}


@dataclass(frozen=True)
class Settings:
    """What the sidebar says: the pages read this, never the widgets."""

    corpus: str = cache.HANDBOOK
    chunkers: tuple[str, ...] = tuple(CHUNKERS)
    modes: tuple[str, ...] = MODES
    size: int = LabConfig.size
    budget: int = LabConfig.budget
    split: str = LabConfig.split
    headers: bool = LabConfig.headers
    resolve_refs: bool = LabConfig.resolve_refs
    question: str | None = None

    @property
    def config(self) -> LabConfig:
        return LabConfig(
            chunkers=self.chunkers,
            modes=self.modes,
            size=self.size,
            budget=self.budget,
            split=self.split,
            headers=self.headers,
            resolve_refs=self.resolve_refs,
        )

    def params(self) -> dict[str, list[str]]:
        """Every setting as its query parameter values."""
        return {
            "corpus": [self.corpus],
            "chunker": list(self.chunkers),
            "mode": list(self.modes),
            "size": [str(self.size)],
            "budget": [str(self.budget)],
            "split": [self.split],
            "headers": [str(self.headers).lower()],
            "resolve_refs": [str(self.resolve_refs).lower()],
            "question": [self.question] if self.question else [],
        }

    def link_params(self) -> dict[str, list[str]]:
        """The settings a link must carry: those off their defaults, and the question."""
        default = Settings().params()
        return {
            key: values
            for key, values in self.params().items()
            if values and (key == "question" or values != default[key])
        }


def _as_number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _accepted(key: str, given: str, used: Sequence[str]) -> bool:
    if key in NUMBERS:
        return _as_number(given) is not None and _as_number(given) == float(used[0])
    if key in FLAGS:
        return given.lower() == used[0]
    return given in used


def _shown(text: str, limit: int = 40) -> str:
    return md_escape(text if len(text) <= limit else text[: limit - 1] + "…")


def url_notices(url: Mapping[str, Sequence[str]], settings: Settings) -> list[str]:
    """One message per setting whose value in the loaded URL was not taken."""
    used = settings.params()
    notices = []
    for key, given in url.items():
        if key not in EXPECTED:
            continue
        rejected = [v for v in given if not _accepted(key, v, used[key])]
        if not rejected:
            continue
        bad = ", ".join(f"{key}={_shown(v)}" for v in rejected)
        now = ", ".join(md_escape(v) for v in used[key]) or "none"
        notices.append(
            f"Ignored **{bad}** from the link: expected {EXPECTED[key]}. Using **{now}**."
        )
    return notices


def sidebar() -> Settings:
    """Draw the shared sidebar (once per run, from the entry point) and return its settings."""
    first_run = NOTICES_KEY not in st.session_state
    url = {k: st.query_params.get_all(k) for k in st.query_params} if first_run else {}
    st.session_state[URL_KEY] = url
    st.session_state[LINK_KEY] = {}
    with st.sidebar:
        st.subheader("Experiment")
        corpus_name = st.selectbox("Corpus", cache.corpus_names(), key="corpus", bind=BIND)
        corpus = cache.corpus(corpus_name)
        split = st.radio(
            "Questions",
            SPLITS,
            horizontal=True,
            key="split",
            bind=BIND,
            help="Score the test questions, the train questions (the QES chunkers learn from "
            "these), or all of them.",
        )
        chunkers = st.multiselect(
            "Chunkers",
            list(CHUNKERS),
            default=list(CHUNKERS),
            key="chunker",
            bind=BIND,
            help="  \n".join(f"**{s.name}**: {s.description}" for s in CHUNKERS.values()),
        )
        modes = st.segmented_control(
            "Retrieval",
            MODES,
            selection_mode="multi",
            default=list(MODES),
            key="mode",
            bind=BIND,
            help="flat: BM25 ranking. graph: BM25 blended with personalised "
            "PageRank over the chunk graph.",
        )
        size = st.number_input(
            "Chunk size L (characters)",
            *SIZE_RANGE,
            value=LabConfig.size,
            step=50,
            key="size",
            bind=BIND,
        )
        budget = st.slider(
            "Context budget (words)",
            *BUDGET_RANGE,
            value=LabConfig.budget,
            step=10,
            key="budget",
            bind=BIND,
        )
        headers = st.toggle(
            "Heading-path prefixes",
            value=LabConfig.headers,
            key="headers",
            bind=BIND,
            help="Prefix every chunk with the heading path of each provision it touches.",
        )
        refs = st.toggle(
            "Resolve cross-references",
            value=LabConfig.resolve_refs,
            key="resolve_refs",
            bind=BIND,
            help="Append cited provisions to structure chunks; add reference edges "
            "to the chunk graph.",
        )
        questions = corpus.split(split)
        question = st.selectbox(
            "Question",
            [q.id for q in questions],
            key="question",
            bind=BIND,
            help="The question the drill-down and graph pages explain.",
        )
        if question is not None:
            text = next(q.question for q in questions if q.id == question)
            st.caption(md_escape(text))
        if not chunkers:
            st.caption(":material/info: No chunker chosen: showing all of them.")
        if not modes:
            st.caption(":material/info: No retrieval mode chosen: showing both.")
    settings = Settings(
        corpus=corpus_name,
        chunkers=tuple(c for c in CHUNKERS if c in chunkers) or tuple(CHUNKERS),
        modes=tuple(m for m in MODES if m in (modes or ())) or MODES,
        size=int(size),
        budget=int(budget),
        split=split,
        headers=headers,
        resolve_refs=refs,
        question=question,
    )
    if first_run:
        st.session_state[NOTICES_KEY] = url_notices(url, settings)
    st.session_state[SETTINGS_KEY] = settings
    return settings


def run(page: StreamlitPage, settings: Settings) -> None:
    """Run the chosen page with the share link in the sidebar: drawn first, so a page that stops
    early still has it, and again once the page has added its own choices to it."""
    link = st.sidebar.empty()
    _draw_link(link, settings, page)
    st.session_state[ENTRY_KEY] = True
    try:
        page.run()
    finally:
        st.session_state[ENTRY_KEY] = False
    _draw_link(link, settings, page)


def _draw_link(slot, settings: Settings, page: StreamlitPage) -> None:
    with slot.container():
        st.caption("Share link: this view, settings included")
        st.code(share_link(settings, page.url_path), language=None, wrap_lines=True)


def current() -> Settings:
    """The settings the sidebar produced in this run.

    When a Streamlit process's first request is a deep link to a page, Streamlit sees the
    ``pages/`` folder and runs that file on its own (its older multipage mode), skipping the
    entry point. Switching that mode off and rerunning sends the request through
    ``streamlit_app.py``, which builds the sidebar and then runs the page.
    """
    if not st.session_state.get(ENTRY_KEY):
        PagesManager.uses_pages_directory = False
        st.rerun()
    return st.session_state[SETTINGS_KEY]


def page_selectbox(
    label: str, options: Sequence[str], *, key: str, index: int = 0, **kwargs
) -> str:
    """A page-level selectbox bound to the URL under ``key``, checked like the sidebar's."""
    value = st.selectbox(label, options, index=index, key=key, bind=BIND, **kwargs)
    given = st.session_state.get(URL_KEY, {}).get(key)
    if given and any(v not in options for v in given):
        bad = ", ".join(f"{key}={_shown(v)}" for v in given)
        st.warning(f"Ignored **{bad}** from the link. Using **{md_escape(value)}**.")
    if value != options[index]:
        st.session_state[LINK_KEY][key] = [value]
    return value


def _dismiss_notices() -> None:
    st.session_state[NOTICES_KEY] = []


def show_notices() -> None:
    """Warn about link values that fell back to defaults, until the user dismisses them."""
    notices = st.session_state.get(NOTICES_KEY)
    if not notices:
        return
    with st.container(border=True):
        for notice in notices:
            st.warning(notice, icon=":material/link_off:")
        st.button("Dismiss", key="dismiss_url_notices", type="tertiary", on_click=_dismiss_notices)


def share_link(settings: Settings, url_path: str) -> str:
    """The full URL of the current view: page, settings and page-level choices."""
    base = st.context.url or f"/{url_path}"
    params = settings.link_params() | st.session_state.get(LINK_KEY, {})
    query = urlencode(params, doseq=True)
    return f"{base.split('?')[0]}?{query}" if query else base
