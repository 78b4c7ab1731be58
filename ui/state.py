"""The shared sidebar: every setting is a widget bound to the URL, read back as one ``Settings``.

Each widget's ``key`` is its query parameter, set with ``bind="query-params"``
(``?size=600&budget=80&chunker=structure&chunker=qes-dp``). Streamlit seeds a bound widget from
the URL on page load, writes changes back, leaves default values out, and silently drops a value
the widget cannot take. Before that, :func:`ui.links.enforce` brings the link's values within
what the widgets take; :mod:`ui.link_notices` names what was changed or dropped, so a pasted
link that falls back to defaults says why. The question (listed with its text) and the stored corpus
(``?question=q07&corpus_id=…``) are parameters written by hand.

Dense retrieval (embeddings, its modes and chunkers, late chunking, a reranker) is the group of
:mod:`ui.dense`; the link's rules and the parameters no widget binds are :mod:`ui.links`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from lab import (
    ADAPTIVE,
    CHUNKERS,
    DEFAULT_BUDGETS,
    DEFAULT_CHUNKERS,
    DEFAULT_SIZES,
    LEXICAL_MODES,
    POLICY_CHUNKER,
    REFERENCE_PLACEMENTS,
    SPLITS,
    Corpus,
    LabConfig,
    Question,
    chunker_status,
    embed,
    memory_over_budget,
)
from lab.formats import FORMATS, default_reading

from . import cache, cluster, corpus_input, dense, links, pipelines
from .choices import LINK_KEY, URL_KEY
from .draw import md_escape, question_label
from .link_notices import (
    BUDGET_RANGE,
    MULTI,
    NOTICES_KEY,
    NUMBERS,
    SIZE_RANGE,
    chunker_options,
    mode_options,
    read_old_refs,
    url_notices,
)
from .settings import ADAPTIVE_KEY, Settings

BIND = links.BIND
SETTINGS_KEY = "settings"
CHUNKER_DEFAULTS_KEY = "chunker_defaults"  # the corpus's default chunkers, last run
FRAME_KEY = "page_frame"  # the entry point's placeholder frame, while the page loads
BOUND = [  # the parameters the sidebar's widgets bind (the question and corpus_id are synced)
    key for key in Settings().params() if key not in ("question", corpus_input.CORPUS_ID)
]

REFS_HELP = (
    "Where the text of a provision cited by number goes (structure and parent-child chunks). "
    "**delivered**: appended to the chunk, so it reaches the context and counts against the "
    "budget. **index-only**: retrieval and the graph use it, the context does not carry it. "
    "**off**: nowhere, and no reference edges in the chunk graph."
)
GUARD_HELP = (
    "qes-dp, qes-greedy and qes-retrieval never cut between a heading and its first unit "
    "(unless the two together are longer than L): the article's stranded headings cannot "
    "happen. The other chunkers cut as before."
)
ADAPTIVE_HELP = (
    "A budget per question instead of the slider's: one of "
    + ", ".join(map(str, DEFAULT_BUDGETS))
    + " words, by the score gap of its ranking, the provisions its top chunks cite and its "
    "cluster among the train questions, fitted on the train questions only. Sweep charts draw "
    "it as a diamond on the budget curves, at its mean budget."
)
PARSER_HELP = (
    "How the HTML and PDF documents are read. HTML **main**: the page's main content, without "
    "navigation, banners, tables of contents and buttons, permalink marks taken off headings; "
    "**page**: the whole page as a browser shows it. PDF **pypdf**: pypdf's text layer; "
    "**layout**: pdfminer.six's layout analysis (lines by their positions on the page). "
    "Headings come from font sizes and bold in both. A corpus with both formats takes one of "
    "each (main,layout). Compare the readings on the Compare page (B's parser)."
)


def parser_title(options: list[str]) -> str:
    """The parser widget's label for a corpus whose readings are ``options``."""
    formats = [
        f.name.upper()
        for f in FORMATS.values()
        if f.parsers and f.parsers[0] in options[0].split(",")
    ]
    return f"{formats[0]} parser" if len(formats) == 1 else f"Parser ({', '.join(formats)})"


FILTERS_HELP = (
    "A question may carry a metadata filter (product, version...): retrieval then ranks only "
    "the chunks of documents whose metadata match it. Off: every question ranks every "
    "document. Only questions with a filter are affected."
)


def sidebar(page: StreamlitPage) -> Settings:
    """Draw the shared sidebar (once per run, from the entry point, for ``page``) and return its
    settings. A switch of page keeps the settings the URL carried (:func:`links.restore`)."""
    links.restore(page.url_path)
    _read_adaptive_budget()
    fixes = links.enforce(NUMBERS, MULTI)
    first_run = NOTICES_KEY not in st.session_state
    old_refs = read_old_refs() if first_run else []
    url = {k: st.query_params.get_all(k) for k in st.query_params} if first_run else {}
    st.session_state[URL_KEY] = url
    st.session_state[LINK_KEY] = {}
    reopened = corpus_input.from_link() if first_run else None
    pipelines.server_config()  # the server's named pipelines, before any chunker is listed
    with st.sidebar:
        st.subheader("Experiment")
        corpus_name = st.selectbox("Corpus", cache.corpus_names(), key="corpus", bind=BIND)
        corpus = cache.corpus(corpus_name)
        parser = _parser_widget(corpus)
        if not default_reading(parser):
            corpus = cache.corpus(corpus_name, parser)
        split = st.radio(
            "Questions",
            SPLITS,
            horizontal=True,
            key="split",
            bind=BIND,
            help="Score the test questions, the train questions (the QES chunkers learn from "
            "these), or all of them.",
        )
        question = _question_picker(corpus.split(split) if corpus else (), first_run)
        methods = st.container()  # chunkers and modes, drawn once the dense toggle is read
        counted = st.selectbox(
            "Count sizes in",
            pipelines.tokenizer_options(),
            key="tokenizer",
            bind=BIND,
            help="Characters (chunk size) and words (budget), or the tokens of a tokenizer: then "
            "chunk size, overlap and the budget all count its tokens.",
        )
        tokenizer = None if counted == pipelines.CHARACTERS else counted
        size = st.number_input(
            f"Chunk size L ({'tokens' if tokenizer else 'characters'})",
            *SIZE_RANGE,
            value=LabConfig.size,
            step=50,
            key="size",
            bind=BIND,
        )
        budget = st.slider(
            f"Context budget ({'tokens' if tokenizer else 'words'})",
            *BUDGET_RANGE,
            value=LabConfig.budget,
            step=10,
            key="budget",
            bind=BIND,
        )
        adaptive = st.toggle(
            "Adaptive budget",
            key=ADAPTIVE_KEY,
            bind=BIND,
            help=ADAPTIVE_HELP,
        )
        headers = st.toggle(
            "Heading-path prefixes",
            value=LabConfig.headers,
            key="headers",
            bind=BIND,
            help="Prefix every chunk with the heading path of each provision it touches.",
        )
        refs = st.radio(
            "Cross-references",
            REFERENCE_PLACEMENTS,
            horizontal=True,
            key="refs",
            bind=BIND,
            help=REFS_HELP,
        )
        filters = st.toggle(
            "Metadata filters",
            value=LabConfig.filters,
            key="filters",
            bind=BIND,
            help=FILTERS_HELP,
        )
        heading_guard = st.toggle(
            "Heading guard",
            value=LabConfig.heading_guard,
            key="heading_guard",
            bind=BIND,
            help=GUARD_HELP,
        )
        choice = dense.group()
        notes = st.container()
        st.caption(cluster.where())
    with methods:
        chunkers, modes = _method_widgets(choice.on, corpus_chunkers(corpus))
        pipelines.show_config_problems()
    choice = dense.check(choice, notes)
    offered = chunker_options(choice.on)
    corpus_id = cache.user_corpus_id() if corpus_name == cache.USER else None
    links.sync(corpus_input.CORPUS_ID, [corpus_id] if corpus_id else [])
    settings = Settings(
        corpus=corpus_name,
        parser=parser,
        chunkers=tuple(c for c in offered if c in chunkers)
        or tuple(c for c in DEFAULT_CHUNKERS if c in offered),
        modes=tuple(m for m in mode_options(choice.on) if m in (modes or ())) or LEXICAL_MODES,
        size=int(size),
        budget=int(budget),
        adaptive=adaptive,
        split=split,
        headers=headers,
        refs=refs,
        filters=filters,
        heading_guard=heading_guard,
        dense=choice.on,
        late=choice.late,
        rerank=choice.rerank,
        rerank_model=choice.rerank_model,
        rerank_top=choice.rerank_top,
        question=question,
        corpus_id=corpus_id,
        rerank_source=choice.rerank_source,
        rerank_problem=choice.rerank_problem,
        tokenizer=tokenizer,
    )
    settings = _without_failing(settings, corpus, notes)
    if first_run:  # a corpus the link names but the store lost is said once, not twice
        lost = {"corpus", "question"} if reopened else set()  # the question was the lost one's
        checked = {k: v for k, v in url.items() if k not in lost}
        st.session_state[NOTICES_KEY] = (
            ([reopened] if reopened else [])
            + url_notices(checked, settings, choice.available, fixes=fixes)
            + old_refs
        )
    st.session_state[SETTINGS_KEY] = settings
    links.keep(page.url_path, BOUND)
    return settings


def _parser_widget(corpus: Corpus | None) -> str:
    """The reading of the corpus's HTML and PDF documents, offered when it has any; for any other
    corpus the default (a link's ``parser=`` is then dropped, and its notice says why)."""
    options = cache.readings(corpus)
    if not options:
        if "parser" in st.query_params:
            del st.query_params["parser"]
        return cache.DEFAULT_PARSER
    return st.radio(
        parser_title(options), options, horizontal=True, key="parser", bind=BIND, help=PARSER_HELP
    )


def _read_adaptive_budget() -> None:
    """A link saying ``budget=adaptive`` (the share link's form) switches the adaptive toggle on;
    the budget slider keeps its default."""
    if NOTICES_KEY in st.session_state:
        return
    given = st.query_params.get_all("budget")
    if given and given[-1].strip().lower() == ADAPTIVE:
        del st.query_params["budget"]
        st.session_state[ADAPTIVE_KEY] = True


def _without_failing(settings: Settings, corpus: Corpus | None, notes) -> Settings:
    """``settings`` without the plugins that fail on the corpus, each said in ``notes``; the
    other chunkers run."""
    if corpus is None:
        return settings
    failed = pipelines.failing(corpus, settings.config)
    for message in failed.values():
        notes.warning(md_escape(message), icon=":material/extension_off:")
    if not failed:
        return settings
    kept = tuple(c for c in settings.chunkers if c not in failed)
    return replace(settings, chunkers=kept or tuple(c for c in DEFAULT_CHUNKERS if c in CHUNKERS))


def _question_picker(questions: Sequence[Question], first_run: bool) -> str | None:
    """The question the drill-down and graph pages explain, listed by id and text.

    A bound selectbox writes its options' labels to the URL, so this one is bound by hand:
    seeded from the link on the session's first run (or when the browser goes back or
    forward), its id written to ``?question=``."""
    ids = [q.id for q in questions]
    given = st.query_params.get_all("question") if first_run else links.changed_outside("question")
    if given and given[-1] in ids:
        st.session_state["question"] = given[-1]
    elif st.session_state.get("question") not in ids:  # a question of another split or corpus
        # Set, not dropped: a value set here is sent to the browser's box, while a dropped one
        # leaves the old question's label showing there until a refresh.
        if ids:
            st.session_state["question"] = ids[0]
        else:
            st.session_state.pop("question", None)
    labels = {q.id: question_label(q.id, q.question) for q in questions}
    question = st.selectbox(
        "Question",
        ids,
        key="question",
        format_func=labels.__getitem__,
        help="The question the drill-down and graph pages explain.",
    )
    links.sync("question", [question] if question else [])
    if question is not None:
        st.caption(md_escape(next(q.question for q in questions if q.id == question)))
    return question


def corpus_chunkers(corpus: Corpus | None) -> tuple[str, ...]:
    """The chunkers a corpus opens with: the default ones, and on a collection of several
    document types its policy (by-type), the result such a collection is about."""
    if corpus is not None and len(corpus.documents) > 1 and len(set(corpus.types)) > 1:
        return (*DEFAULT_CHUNKERS, POLICY_CHUNKER)
    return DEFAULT_CHUNKERS


def _follow_corpus(defaults: list[str]) -> None:
    """When the corpus changes, a chunker choice the user left at the old corpus's defaults
    takes the new corpus's (a choice the user made stays)."""
    before = st.session_state.get(CHUNKER_DEFAULTS_KEY, defaults)
    if before != defaults and st.session_state.get("chunker") == before:
        st.session_state["chunker"] = defaults
    st.session_state[CHUNKER_DEFAULTS_KEY] = defaults


def _method_widgets(dense: bool, defaults: Sequence[str]) -> tuple[list[str], list[str]]:
    """The chunker and retrieval-mode pickers: dense-only choices offered when dense is on;
    the chunkers start at ``defaults`` (the corpus's)."""
    offered = chunker_options(dense)
    default = [c for c in defaults if c in offered]
    _follow_corpus(default)
    chunkers = st.multiselect(
        "Chunkers",
        offered,
        default=default,
        key="chunker",
        bind=BIND,
        help="  \n".join(f"**{CHUNKERS[c].name}**: {CHUNKERS[c].description}" for c in offered),
    )
    needing = [c for c in CHUNKERS if c not in offered and chunker_status(c)[0]]
    missing = pipelines.unavailable_note()
    if missing:
        st.caption(missing)
    if needing:
        verb = "needs" if len(needing) == 1 else "need"
        st.caption(
            f":material/info: {', '.join(needing)} {verb} dense embeddings: turn them on under "
            "**Dense retrieval**."
        )
    modes = st.segmented_control(
        "Retrieval",
        mode_options(dense),
        selection_mode="multi",
        default=list(LEXICAL_MODES),
        key="mode",
        bind=BIND,
        help="flat: BM25 ranking. graph: BM25 (with dense on, the hybrid fusion) blended with "
        "personalised PageRank over the chunk graph. dense: cosine similarity of embeddings. "
        "hybrid: Reciprocal Rank Fusion of BM25 and dense, sum of 1/(60 + rank).",
    )
    if not chunkers:
        st.caption(":material/info: No chunker chosen: showing the default ones.")
    if not modes:
        st.caption(":material/info: No retrieval mode chosen: showing flat and graph.")
    return chunkers, modes


def run(page: StreamlitPage, settings: Settings, frame=None) -> None:
    """Run the chosen page with the share link in the sidebar: drawn first, so a page that stops
    early still has it, and again once the page has added its own choices to it. ``frame`` is
    the entry point's placeholder page frame: it stays until the page, its modules imported,
    draws its own (:func:`current` clears it)."""
    link = st.sidebar.empty()
    _draw_link(link, settings, page)
    st.session_state[FRAME_KEY] = frame
    try:
        if _corpus_ready(settings, page):
            page.run()
    finally:
        _clear_frame()
    _draw_link(link, settings, page)


def _clear_frame() -> None:
    frame = st.session_state.pop(FRAME_KEY, None)
    if frame is not None:
        frame.empty()


def _corpus_ready(settings: Settings, page: StreamlitPage) -> bool:
    """Say what is wrong with the bundled corpus's files, if anything; False when there is no
    corpus to show (the Your corpus page still runs, so the user can load one)."""
    problem = cache.bundled_problem(settings.corpus)
    missing = cache.corpus(settings.corpus) is None
    if problem:
        shown = st.error if missing else st.warning
        what = "handbook" if settings.corpus == cache.HANDBOOK else f"{settings.corpus} collection"
        shown(f"The bundled {what} is incomplete: {md_escape(problem)}.", icon=":material/error:")
    if not missing and page.url_path != corpus_input.PAGE:
        return _fits_memory(settings, page)
    if not missing or page.url_path == corpus_input.PAGE:
        return True
    st.info("Every page needs a corpus: load your own document and questions.")
    st.page_link(
        f"app_pages/{corpus_input.PAGE}.py", label="Your corpus", icon=":material/upload_file:"
    )
    return False


def _fits_memory(settings: Settings, page: StreamlitPage) -> bool:
    """False, with why, when the smallest chunk size this page would index at makes an index
    larger than the server's memory budget (``CHUNKING_LAB_MEMORY_MB``): refused before any
    work, so one user cannot exhaust the server."""
    sizes = [settings.size]
    if page.url_path == "sweep_charts":
        sizes += list(DEFAULT_SIZES)
    if page.url_path == "compare":
        sizes.append(int(st.session_state.get("b_size") or settings.size))
    corpus = cache.corpus(settings.corpus)
    problem = memory_over_budget([d.text for d in corpus.documents], min(sizes))
    if problem is None:
        return True
    st.error(
        f"This page was not run: {md_escape(problem)}. Raise the chunk size in the sidebar, "
        "or load a shorter text on **Your corpus**.",
        icon=":material/memory:",
    )
    return False


def _draw_link(slot, settings: Settings, page: StreamlitPage) -> None:
    """The share link in a popover: a code block makes the browser load Streamlit's 1.5 MB
    syntax highlighter, which a closed popover defers to the first click (the first page draws
    sooner)."""
    with slot.container(), st.popover("Share link", icon=":material/link:", width="stretch"):
        st.caption(
            "This view, settings included. Point at the link for its copy button, or select it "
            "and copy."
        )
        st.code(share_link(settings, page.url_path), language=None, wrap_lines=True)


def current() -> Settings:
    """The settings the sidebar produced in this run; the page's modules are imported by now,
    so the entry point's placeholder frame gives way to the page's own."""
    _clear_frame()
    return st.session_state[SETTINGS_KEY]


def retrieval_note(settings: Settings, lead: str = "") -> str:
    """What retrieval uses besides BM25, as markdown after ``lead``; "" with dense off."""
    if not settings.dense:
        return ""
    parts = [f"dense embeddings: {embed.DEFAULT_MODEL}"]
    if settings.late:
        parts.append("late chunking")
    if settings.reranker:
        parts.append(f"reranked by {md_escape(settings.reranker)} (top {settings.rerank_top})")
    return lead + " · ".join(parts)


def share_link(settings: Settings, url_path: str) -> str:
    """The full URL of the current view: page, settings and page-level choices."""
    base = links.page_url(st.context.url, st.get_option("server.baseUrlPath"), url_path)
    return links.with_query(base, settings.link_params() | st.session_state.get(LINK_KEY, {}))


def size_unit(settings: Settings) -> str:
    """What the chunk size counts: "characters", or "NAME tokens" with a tokenizer."""
    return f"{settings.tokenizer} tokens" if settings.tokenizer else "characters"


def budget_unit(settings: Settings) -> str:
    """What the context budget counts: "words", or "NAME tokens" with a tokenizer."""
    return f"{settings.tokenizer} tokens" if settings.tokenizer else "words"


def budget_note(settings: Settings) -> str:
    """The budget for a page's caption: "budget = 120 words", or the adaptive budget's range."""
    unit = budget_unit(settings)
    if settings.adaptive:
        low, high = min(DEFAULT_BUDGETS), max(DEFAULT_BUDGETS)
        return f"budget adaptive ({low}-{high} {unit} per question)"
    return f"budget = {settings.budget} {unit}"
