"""What a link may say, and the notices naming what the app did not take from it.

:func:`ui.links.enforce` brings a link's values within what the widgets take before any widget
reads them; the notices here say, in words, what that cleaning changed (:func:`fix_notice`) and
which values a widget still did not take (:func:`url_notices`), with what each parameter may be
(:data:`EXPECTED`). A link from before reference placements (``resolve_refs=``) is read by
:func:`read_old_refs`. The sidebar collects the notices of a session's first run; the entry point
shows them until dismissed (:func:`show_notices`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import streamlit as st

from lab import (
    CHUNKERS,
    LEXICAL_MODES,
    MODES,
    REFERENCE_PLACEMENTS,
    SPLITS,
    LabConfig,
    chunker_status,
    embed,
    references_switched,
)

from . import cache, links
from .dense import RERANK_TOP_RANGE
from .draw import md_escape
from .settings import Settings

SIZE_RANGE = (100, 4000)
BUDGET_RANGE = (10, 1000)
NOTICES_KEY = "url_notices"
NEEDS_DENSE = "needs dense=true"
NEED_DENSE = "need dense=true"
EXPECTED = {
    "corpus": f"{cache.HANDBOOK}, {cache.TECHNOVA}, or {cache.USER} with the corpus_id of a "
    "corpus kept on this server",
    "parser": "main or page (how HTML is read), pypdf or layout (how PDF is read), one of each "
    "joined by a comma for a corpus with both, for a corpus with HTML or PDF documents",
    "chunker": "one or more of " + ", ".join(CHUNKERS),
    "mode": "some of " + ", ".join(MODES),
    "size": f"a whole number of characters from {SIZE_RANGE[0]} to {SIZE_RANGE[1]}",
    "budget": f"a whole number of words from {BUDGET_RANGE[0]} to {BUDGET_RANGE[1]}, or adaptive",
    "split": "one of " + ", ".join(SPLITS),
    "headers": "true or false",
    "refs": "one of " + ", ".join(REFERENCE_PLACEMENTS),
    "filters": "true or false",
    "heading_guard": "true or false",
    "adaptive_budget": "true or false",
    "dense": "true or false",
    "late": f"true or false; {NEEDS_DENSE}",
    "rerank": f"true or false; {NEEDS_DENSE}",
    "rerank_model": "a model hub id or the name of a folder in the app's models directory; "
    + NEEDS_DENSE,
    "rerank_top": f"a whole number from {RERANK_TOP_RANGE[0]} to {RERANK_TOP_RANGE[1]}; "
    + NEEDS_DENSE,
    "question": "a question id of the chosen corpus and split",
}
NUMBERS = {  # the Compare page's B binds b_size and b_budget
    "size": SIZE_RANGE,
    "budget": BUDGET_RANGE,
    "rerank_top": RERANK_TOP_RANGE,
    "b_size": SIZE_RANGE,
    "b_budget": BUDGET_RANGE,
}
MULTI = {"chunker", "mode", "graph_edges"}  # parameters holding several values; others one
FLAGS = {"headers", "filters", "heading_guard", "adaptive_budget", "dense", "late", "rerank"}
OLD_REFS = {"true": True, "false": False}  # links from before placements: resolve_refs=
_PLAIN_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")


def chunker_options(dense: bool) -> list[str]:
    """Every registered chunker the sidebar can offer: those needing embeddings only when dense
    retrieval is on, other libraries' only where they are installed."""
    return [
        name
        for name, spec in CHUNKERS.items()
        if (dense or not spec.dense) and chunker_status(name)[0]
    ]


def mode_options(dense: bool) -> tuple[str, ...]:
    return MODES if dense else LEXICAL_MODES


def expected(key: str, dense_ok: bool, dense: bool, single: bool = False) -> str:
    """What a link may say for ``key``, given whether dense retrieval is available and on;
    ``single``: the parameter takes one chunker or mode (the Compare page's B), not several."""
    if key == "dense" and not dense_ok:
        return f"false: dense retrieval is not available here (`{embed.INSTALL_HINT}` enables it)"
    how_many = "one of " if single else "one or more of "
    if key == "chunker":
        needing = [c for c in CHUNKERS if CHUNKERS[c].dense and not dense and chunker_status(c)[0]]
        return (
            how_many
            + ", ".join(chunker_options(dense))
            + (
                f" ({', '.join(needing)} {NEEDS_DENSE if len(needing) == 1 else NEED_DENSE})"
                if needing
                else ""
            )
        )
    if key == "mode" and single:
        modes = ", ".join(mode_options(dense))
        return f"one of {modes}" + ("" if dense else " (dense and hybrid need dense=true)")
    if key == "mode" and not dense:
        return "flat and/or graph (dense and hybrid need dense=true)"
    return EXPECTED[key]


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


def shown(text: str) -> str:
    """A value from the link, shortened and escaped for a notice."""
    return md_escape(links.shown(text))


def shown_key(key: str) -> str:
    """A parameter's name from the link: as is when it is a plain name (``b_size``), which no
    markdown can hide in, else shortened and escaped like a value."""
    return key if _PLAIN_NAME.fullmatch(key) else shown(key)


def fix_notice(fix: links.Fix, settings: Settings, dense_ok: bool = True) -> str:
    """What cleaning the link (:func:`links.clean`) changed, in words."""
    key = shown_key(fix.key)
    given = ", ".join(shown(v) for v in fix.given)
    now = md_escape(fix.used) if fix.used is not None else None
    if fix.key in EXPECTED:
        expect = expected(fix.key, dense_ok, settings.dense)
    else:  # a number another part of the app binds (NUMBERS is open to any parameter)
        low, high = NUMBERS.get(fix.key, ("?", "?"))
        expect = f"a whole number from {low} to {high}"
    if fix.why == "repeated":
        return (
            f"The link gives **{key}** {len(fix.given)} times ({given}): a setting takes "
            f"one value, so the last one counts: **{now}**."
        )
    if fix.why == "not a number":
        default = ", ".join(md_escape(v) for v in settings.params().get(fix.key, []))
        default = default or "its default"
        return f"Ignored **{key}={given}** from the link: expected {expect}. Using **{default}**."
    verb = "Clamped" if fix.why == "clamped" else "Rounded"
    return f"{verb} **{key}={given}** from the link to **{now}**: expected {expect}."


def url_notices(
    url: Mapping[str, Sequence[str]],
    settings: Settings,
    dense_ok: bool = True,
    prefix: str = "",
    fixes: Sequence[links.Fix] = (),
) -> list[str]:
    """One message per change cleaning made to the loaded URL, and per setting whose value in
    the (cleaned) URL was not taken; with ``prefix``, only the parameters named ``prefix`` + a
    setting (the Compare page's ``b_size``...)."""
    used = settings.params()
    notices = [fix_notice(fix, settings, dense_ok) for fix in fixes]
    for key, given in url.items():
        name = key.removeprefix(prefix)
        if name not in EXPECTED or not key.startswith(prefix):
            continue
        rejected = [v for v in given if not _accepted(name, v, used[name])]
        if not rejected:
            continue
        bad = ", ".join(f"{shown_key(key)}={shown(v)}" for v in rejected)
        now = ", ".join(md_escape(v) for v in used[name]) or "none"
        notices.append(
            f"Ignored **{bad}** from the link: expected "
            f"{expected(name, dense_ok, settings.dense, single=name in MULTI and bool(prefix))}. "
            f"Using **{now}**."
        )
    return notices


def read_old_refs(prefix: str = "", current: str = LabConfig.refs) -> list[str]:
    """A link from before reference placements says ``resolve_refs=true|false`` (B of the
    Compare page: ``b_resolve_refs``): read false as ``refs=off`` and true as ``current``
    resolved, "delivered" where ``current`` is off (a ``refs`` value in the same link wins).
    The notice for any other value."""
    old_key, key = f"{prefix}resolve_refs", f"{prefix}refs"
    old = st.query_params.get_all(old_key)
    if not old:
        return []
    del st.query_params[old_key]
    flag = OLD_REFS.get(old[-1].strip().lower())
    if flag is None:
        using = st.query_params.get(key)
        return [
            f"Ignored **{old_key}={shown(old[-1])}** from the link: expected true or false "
            f"(now **{key}**: {', '.join(REFERENCE_PLACEMENTS)}). Using "
            f"**{using if using in REFERENCE_PLACEMENTS else current}**."
        ]
    if key not in st.query_params:
        st.session_state[key] = references_switched(current, flag)
    return []


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
