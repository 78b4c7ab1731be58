"""The Compare page's views: configuration A (the sidebar's), B's settings bound to the URL as
``b_chunker``, ``b_mode``, ``b_size``, ``b_refs``, ``b_filters``..., what B fixed and broke, and
whether it is more than noise. A link from before reference placements (``b_resolve_refs=false``)
opens with the matching ``b_refs``.

B starts as A with the retrieval mode switched; every B setting the user leaves alone follows A
when the sidebar changes, so a link carries only what B changes (``?b_mode=graph``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from urllib.parse import urlencode

import altair as alt
import pandas as pd
import streamlit as st

from lab import LEXICAL_MODES, REFERENCE_PLACEMENTS, Comparison, LabResult, embed, p_text, points
from lab import percent_text as pct

from . import cache, choices, link_notices, models, state
from . import dense as dense_group
from .draw import MEASURE_COLORS, ON_TRAINING, config_label, md_escape
from .settings import Settings

PREFIX = "b_"
FOLLOWED = "compare_b_followed"  # B's defaults (A's values) of the previous run
DRILLDOWN = "question_drilldown"
ORDER = {"broken": 0, "fixed": 1, "same": 2}
ROWS_SHOWN = 40  # more questions than this scroll inside the table


def telling_chunker(result: LabResult) -> str:
    """The chunker whose first mode and B's default mode (:func:`_other_mode`) disagree on the
    most questions' complete verdicts: the page opens on a comparison that shows something. The
    first chunker when none disagree."""
    first = result.config.modes[0]
    verdicts = {(r.chunker, r.mode): [q.complete for q in r.questions] for r in result.runs}

    def changed(chunker: str) -> int:
        a, b = verdicts.get((chunker, first)), verdicts.get((chunker, _other_mode(first)))
        return sum(x != y for x, y in zip(a, b, strict=True)) if a and b else 0

    return max(result.config.chunkers, key=lambda c: (changed(c), -result.config.chunkers.index(c)))


def choose_a(settings: Settings, result: LabResult) -> Settings:
    """A: the sidebar's configuration, one of its chunkers in one of its modes; it opens on the
    chunker whose modes disagree most (``result``: the sidebar's run)."""
    left, right = st.columns(2)
    names = list(settings.chunkers)
    with left:
        chunker = choices.page_selectbox(
            "A: chunker", names, key="a_chunker", index=names.index(telling_chunker(result))
        )
    with right:
        mode = choices.page_selectbox("A: retrieval", list(settings.modes), key="a_mode")
    return replace(settings, chunkers=(chunker,), modes=(mode,))


def _other_mode(mode: str) -> str:
    return "graph" if mode != "graph" else "flat"


def _follow(defaults: dict[str, object]) -> None:
    """Let every B widget still at A's former value take A's new one (its default)."""
    before = st.session_state.get(FOLLOWED, {})
    for key, value in defaults.items():
        old = before.get(key, value)
        if old != value and key in st.session_state and st.session_state[key] == old:
            st.session_state[key] = value
    st.session_state[FOLLOWED] = defaults


def edit_b(a: Settings, readings: list[str] | tuple[str, ...] = ()) -> Settings:
    """B's settings, each a widget bound to the URL under ``b_`` + its sidebar name, starting
    from A's values with the retrieval mode switched; ``readings``: the corpus's parser settings
    (:func:`ui.cache.readings`; it has HTML or PDF documents), so B may read them with another
    (``b_parser``)."""
    dense_ok, _ = embed.dense_status()
    defaults = {
        "b_chunker": a.chunkers[0],
        "b_mode": _other_mode(a.modes[0]),
        "b_size": a.size,
        "b_budget": a.budget,
        "b_headers": a.headers,
        "b_refs": a.refs,
        "b_filters": a.filters,
        "b_heading_guard": a.heading_guard,
        "b_dense": a.dense,
        "b_late": a.late,
        "b_rerank": a.rerank,
    } | ({"b_parser": a.parser} if a.parser in readings else {})
    old_links = link_notices.read_old_refs(PREFIX, a.refs)  # b_resolve_refs= from before b_refs
    _follow(defaults)
    with st.container(border=True):
        st.markdown("**B**: A with one setting changed")
        first, second = st.columns(4), st.columns(4)
        with second[2]:
            dense = st.toggle(
                "Dense embeddings",
                value=a.dense,
                key="b_dense",
                bind=state.BIND,
                disabled=not dense_ok,
                help="Needed by the dense and hybrid modes, semantic chunking, late chunking "
                "and reranking.",
            )
            dense = dense and dense_ok
        chunkers = state.chunker_options(dense)
        modes = list(state.mode_options(dense))
        with first[0]:
            chunker = st.selectbox(
                "Chunker",
                chunkers,
                index=chunkers.index(a.chunkers[0]) if a.chunkers[0] in chunkers else 0,
                key="b_chunker",
                bind=state.BIND,
            )
        with first[1]:
            mode = st.selectbox(
                "Retrieval",
                modes,
                index=modes.index(defaults["b_mode"]),
                key="b_mode",
                bind=state.BIND,
            )
        with first[2]:
            size = st.number_input(
                "Chunk size L (characters)",
                *state.SIZE_RANGE,
                value=a.size,
                step=50,
                key="b_size",
                bind=state.BIND,
            )
        with first[3]:
            budget = st.number_input(
                "Context budget (words)",
                *state.BUDGET_RANGE,
                value=a.budget,
                step=10,
                key="b_budget",
                bind=state.BIND,
            )
        with second[0]:
            headers = st.toggle(
                "Heading-path prefixes", value=a.headers, key="b_headers", bind=state.BIND
            )
            filters = st.toggle(
                "Metadata filters",
                value=a.filters,
                key="b_filters",
                bind=state.BIND,
                help=state.FILTERS_HELP,
            )
            heading_guard = st.toggle(
                "Heading guard",
                value=a.heading_guard,
                key="b_heading_guard",
                bind=state.BIND,
                help=state.GUARD_HELP,
            )
        with second[1]:
            refs = st.selectbox(
                "Cross-references",
                REFERENCE_PLACEMENTS,
                index=REFERENCE_PLACEMENTS.index(a.refs),
                key="b_refs",
                bind=state.BIND,
                help=state.REFS_HELP,
            )
            parser = a.parser
            if a.parser in readings:
                parser = st.selectbox(
                    state.parser_title(list(readings)),
                    readings,
                    index=list(readings).index(a.parser),
                    key="b_parser",
                    bind=state.BIND,
                    help=state.PARSER_HELP,
                )
        late = rerank = False
        with second[3]:
            if dense:
                late = st.toggle("Late chunking", value=a.late, key="b_late", bind=state.BIND)
                rerank = st.toggle(
                    "Rerank",
                    value=a.rerank,
                    key="b_rerank",
                    bind=state.BIND,
                    help=f"Cross-encoder {md_escape(a.rerank_model)}, top {a.rerank_top} "
                    "(set in the sidebar).",
                )
    b = replace(
        a,
        parser=parser,
        chunkers=(chunker,),
        modes=(mode if mode in modes else LEXICAL_MODES[0],),
        size=int(size),
        budget=int(budget),
        headers=headers,
        refs=refs,
        filters=filters,
        heading_guard=heading_guard,
        dense=dense,
        late=late,
        rerank=rerank,
    )
    b = replace(b, **_models_for_b(dense, rerank, a))
    for key, default in defaults.items():
        value = b.params()[key.removeprefix(PREFIX)]
        if value != [str(default).lower() if isinstance(default, bool) else str(default)]:
            choices.keep_in_link(key, value)
    url = st.session_state.get(choices.URL_KEY, {})
    for notice in link_notices.url_notices(url, b, dense_ok, prefix=PREFIX) + old_links:
        st.warning(notice, icon=":material/link_off:")
    return b


def _models_for_b(dense: bool, rerank: bool, a: Settings) -> dict[str, str | None]:
    """B's reranker (the folder it loads from, or why it cannot be had), A's when A reranks;
    what B's embedding model or reranker lacks is said on the page."""
    if dense and not a.dense:
        problem = cache.embedder_problem(embed.DEFAULT_MODEL)
        if problem:
            st.error(f"B cannot embed: {md_escape(problem)}", icon=":material/block:")
    if not rerank:
        return {"rerank_source": None, "rerank_problem": None}
    source = (
        models.Source(a.rerank_source, a.rerank_problem)
        if a.rerank
        else dense_group.reranker(a.rerank_model)
    )
    if source.problem:
        st.warning(f"B is not reranked: {md_escape(source.problem)}", icon=":material/warning:")
    return {"rerank_source": source.folder, "rerank_problem": source.problem}


def differences_note(c: Comparison, on_training: Collection[str] = ()) -> None:
    """Which settings B changes, and a warning when it changes more than one; a side whose
    chunker is in ``on_training`` is marked as scored on its training data."""

    def side(config) -> str:
        mark = f" ({ON_TRAINING})" if config.chunkers[0] in on_training else ""
        label = config_label(config.chunkers[0], config.modes[0], config.dense is not None)
        return md_escape(label + mark)

    changed = "; ".join(md_escape(str(d)) for d in c.differences)
    st.markdown(f"**A** {side(c.a)} · **B** {side(c.b)} · B changes: {changed}")
    if c.warning:
        st.warning(md_escape(c.warning), icon=":material/call_split:")


def summary(c: Comparison) -> None:
    """The verdict, both recalls with their intervals, and the transition counts."""
    with st.container(border=True):
        st.markdown(f"**{md_escape(c.verdict)}**")
        t = c.complete
        n = t.a.n
        cards = (
            ("Complete recall, A", pct(t.a.value, n), f"95% CI {_interval(t.a)}"),
            ("Complete recall, B", pct(t.b.value, n), f"95% CI {_interval(t.b)}"),
            ("Fixed by B", str(t.fixed), "B complete, A not"),
            ("Broken by B", str(t.broken), "A complete, B not"),
        )
        for column, (label, value, note) in zip(st.columns(4), cards, strict=True):
            column.metric(label, value, note, delta_color="off", delta_arrow="off")
    st.dataframe(transitions_table(c), hide_index=True, column_config=TRANSITION_COLUMNS)
    st.caption(
        "The verdict is the exact McNemar test on the questions that changed (two-sided p); "
        "its 95% interval of B − A leaves out zero exactly when p < 0.05. The bootstrap "
        "interval at the end resamples questions: approximate, often narrower with few "
        "questions. 95% CI of each recall: Wilson."
    )


def _interval(r) -> str:
    """A recall's Wilson interval, "4–42%"."""
    return f"{pct(r.low, r.n).removesuffix('%')}–{pct(r.high, r.n)}"


def transitions_table(c: Comparison) -> pd.DataFrame:
    """One row per measure: both recalls with intervals, the transitions and the statistics."""
    rows = []
    for t in (c.complete, c.partial):
        rows.append(
            {
                "recall": t.measure,
                "A": f"{pct(t.a.value, t.a.n)} ({_interval(t.a)})",
                "B": f"{pct(t.b.value, t.b.n)} ({_interval(t.b)})",
                "B − A (points)": points(t.difference),
                "exact 95% CI": f"{points(t.exact_ci[0])} to {points(t.exact_ci[1])}",
                "p": p_text(t.p_value),
                "significant": "yes" if t.significant else "no",
                "fixed": t.fixed,
                "broken": t.broken,
                "both pass": t.kept,
                "both fail": t.failed,
                "bootstrap 95% CI": f"{points(t.ci[0])} to {points(t.ci[1])}",
            }
        )
    return pd.DataFrame(rows)


TRANSITION_COLUMNS = {
    "exact 95% CI": st.column_config.TextColumn(
        "95% CI (exact)",
        help="The exact McNemar test's own interval of B − A (Clopper-Pearson on the changed "
        "questions): it includes zero exactly when the difference is not significant.",
    ),
    "p": st.column_config.TextColumn("p (McNemar)", help="Exact McNemar test, two-sided."),
    "bootstrap 95% CI": st.column_config.TextColumn(
        "bootstrap 95% CI",
        help="Paired bootstrap percentile interval of B − A: approximate, often narrower than "
        "the exact test's with few questions. The verdict follows the exact test.",
    ),
}


def recall_data(c: Comparison) -> pd.DataFrame:
    """A's and B's recalls with their Wilson intervals, for :func:`recall_chart`."""
    return pd.DataFrame(
        [
            {
                "measure": t.measure,
                "side": side,
                "configuration": f"{side}: "
                + config_label(cfg.chunkers[0], cfg.modes[0], cfg.dense is not None),
                "recall": r.value,
                "low": r.low,
                "high": r.high,
                "label": pct(r.value, r.n),
            }
            for t in (c.complete, c.partial)
            for side, r, cfg in (("A", t.a, c.a), ("B", t.b, c.b))
        ]
    )


def recall_chart() -> alt.LayerChart:
    """A's and B's complete and partial recall as dots with Wilson 95% whiskers.
    Data: :func:`recall_data` as ``rows``."""
    y = alt.Y("configuration:N", title=None, sort=None, axis=alt.Axis(labelLimit=260))
    row = alt.Row("measure:N", title=None, sort=list(reversed(MEASURE_COLORS)))
    x = alt.X("recall:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%"), title=None)
    color = alt.Color(
        "measure:N",
        scale=alt.Scale(domain=list(MEASURE_COLORS), range=list(MEASURE_COLORS.values())),
        legend=None,
    )
    whiskers = alt.Chart().mark_rule(strokeWidth=2).encode(x="low:Q", x2="high:Q", y=y, color=color)
    dots = alt.Chart().mark_circle(size=110, opacity=1).encode(x=x, y=y, color=color)
    labels = alt.Chart().mark_text(dy=-13, fontSize=13).encode(x=x, y=y, text="label:N")
    return (
        alt.layer(whiskers, dots, labels)
        .properties(width=560, height=alt.Step(30))
        .facet(row=row, data=alt.Data(name="rows"))
    )


def drilldown_link(settings: Settings, question: str) -> str:
    """A link to the drill-down of ``question`` under ``settings`` (relative to the app)."""
    params = replace(settings, question=question).link_params()
    return f"{DRILLDOWN}?{urlencode(params, doseq=True)}"


def question_table(c: Comparison, a: Settings, b: Settings) -> pd.DataFrame:
    """One row per question, changed ones first (broken, then fixed): its text, verdicts,
    transitions and links to its drill-down under A and under B."""
    frame = c.frame()
    frame["drill-down A"] = [drilldown_link(a, q) for q in frame["id"]]
    frame["drill-down B"] = [drilldown_link(b, q) for q in frame["id"]]
    frame = frame.sort_values("transition", key=lambda s: s.map(ORDER), kind="stable")
    return frame.rename(columns={"a": "A", "b": "B", "partial_transition": "partial"})


QUESTION_COLUMNS = {
    "id": st.column_config.TextColumn("id", width=60),
    "question": st.column_config.TextColumn("question", width=280),
    "A": st.column_config.TextColumn("A", width=80, help="A's verdict: complete, partial, miss."),
    "B": st.column_config.TextColumn("B", width=80, help="B's verdict."),
    "transition": st.column_config.TextColumn(
        "complete", width=90, help="fixed: B complete, A not. broken: A complete, B not."
    ),
    "partial": st.column_config.TextColumn(
        "partial", width=80, help="The same for partial recall (some evidence in the context)."
    ),
    "drill-down A": st.column_config.LinkColumn("drill-down", display_text="A ↗", width=80),
    "drill-down B": st.column_config.LinkColumn("", display_text="B ↗", width=60),
}


def _colour(value: str) -> str:
    return {
        "fixed": "color: #2b8a3e; font-weight: 600",
        "broken": "color: #c92a2a; font-weight: 600",
    }.get(value, "")


def styled(table: pd.DataFrame):
    """The question table with fixed in green and broken in red."""
    return table.style.map(_colour, subset=["transition", "partial"])
