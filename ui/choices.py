"""Page-level choices (a page's own selectbox or pills) bound to the URL like the sidebar's
settings, checked against the link the same way, and carried in the share link when they are
off their defaults."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from . import link_notices
from .draw import md_escape
from .links import BIND

URL_KEY = "url_at_load"  # the query parameters of the session's first run; {} on later runs
LINK_KEY = "link_params"  # page-level bound widgets' values, for the share link


def page_selectbox(
    label: str, options: Sequence[str], *, key: str, index: int = 0, **kwargs
) -> str:
    """A page-level selectbox bound to the URL under ``key``, checked like the sidebar's."""
    value = st.selectbox(label, options, index=index, key=key, bind=BIND, **kwargs)
    given = st.session_state.get(URL_KEY, {}).get(key)
    if given and any(v not in options for v in given):
        bad = ", ".join(f"{key}={link_notices.shown(v)}" for v in given)
        st.warning(f"Ignored **{bad}** from the link. Using **{md_escape(value)}**.")
    if value != options[index]:
        keep_in_link(key, [value])
    return value


def page_pills(label: str, options: Sequence[str], *, key: str, **kwargs) -> list[str]:
    """Page-level multi-choice pills bound to the URL under ``key`` (all chosen by default),
    checked like the sidebar's."""
    chosen = st.pills(
        label, options, selection_mode="multi", default=list(options), key=key, bind=BIND, **kwargs
    )
    unknown = [v for v in st.session_state.get(URL_KEY, {}).get(key, []) if v and v not in options]
    if unknown:  # an empty value is a link with nothing chosen
        bad = ", ".join(f"{key}={link_notices.shown(v)}" for v in unknown)
        using = ", ".join(md_escape(v) for v in chosen) or "none"
        st.warning(f"Ignored **{bad}** from the link. Using **{using}**.")
    if list(chosen) != list(options):
        st.session_state[LINK_KEY][key] = list(chosen) or [""]
    return list(chosen)


def keep_in_link(key: str, values: list[str]) -> None:
    """Carry a page-level setting in the share link (values off their defaults only)."""
    st.session_state[LINK_KEY][key] = values
