"""The link's rules, applied before any widget reads it, and the parameters no widget binds.

A link may say anything. Before the first widget of a session reads the URL, :func:`clean`
brings every value to one a widget can take, by one rule for every parameter:

- a parameter that holds one value (a number, a flag, a choice, a name) takes the **last**
  value given (``size=300&size=600`` is 600);
- a parameter that holds several (``chunker``, ``mode``, ...) keeps each distinct value once,
  in the order given, whether repeated or joined by commas as on the command line
  (``chunker=fixed,structure`` is ``chunker=fixed&chunker=structure``);
- a number is read as a decimal; one beyond its range (``inf`` and ``1e309`` included) is
  clamped to the range, a fraction rounded to a whole number, and text that is no number
  dropped (the widget's default applies).

Each change is reported as a :class:`Fix`, which the sidebar shows as a notice. Parameters that
no widget binds (the question, the stored corpus) are written with :func:`sync`. A switch of page
keeps the bound parameters the URL carried (:func:`keep`, :func:`restore`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple
from urllib.parse import urlencode, urlsplit, urlunsplit

import streamlit as st

BIND = "query-params"  # a widget with this ``bind`` keeps its value in the URL
CLEANED_KEY = "url_cleaned"  # True once the session's URL is cleaned
FIXES_KEY = "url_fixes"  # what cleaning changed, until the sidebar takes it
WRITTEN_KEY = "url_written"  # what sync() last wrote, per parameter
KEPT_KEY = "url_kept"  # (page, the bound widgets' values the URL carried) as the last run ended


class Fix(NamedTuple):
    """One change to the loaded link: ``given`` values of ``key`` became ``used`` (None: the
    widget's default), ``why`` is "repeated", "clamped", "rounded" or "not a number"."""

    key: str
    given: tuple[str, ...]
    used: str | None
    why: str


def _number(key: str, text: str, low: int, high: int) -> tuple[str | None, Fix | None]:
    try:
        value = float(text)
    except ValueError:
        return None, Fix(key, (text,), None, "not a number")
    if math.isnan(value):
        return None, Fix(key, (text,), None, "not a number")
    if not low <= value <= high:
        nearest = low if value < low else high
        return str(nearest), Fix(key, (text,), str(nearest), "clamped")
    whole = round(value)
    if whole != value:
        return str(whole), Fix(key, (text,), str(whole), "rounded")
    return str(whole), None


def clean(
    url: Mapping[str, Sequence[str]],
    numbers: Mapping[str, tuple[int, int]],
    multi: set[str],
) -> tuple[dict[str, list[str]], list[Fix]]:
    """The URL with every rule applied (see the module), and what changed. ``numbers`` maps a
    numeric parameter to its inclusive range; ``multi`` names the parameters holding several
    values. Any other parameter holds one value."""
    cleaned: dict[str, list[str]] = {}
    fixes: list[Fix] = []
    for key, values in url.items():
        values = list(values)
        if key in multi:
            parts = (part.strip() for value in values for part in value.split(","))
            cleaned[key] = list(dict.fromkeys(part for part in parts if part))
            continue
        if len(values) > 1:
            fixes.append(Fix(key, tuple(values), values[-1], "repeated"))
        if not values:
            cleaned[key] = values
            continue
        last = values[-1]
        if key in numbers:
            value, fix = _number(key, last, *numbers[key])
            if fix:
                fixes.append(fix)
            if value is None:
                continue
            last = value
        cleaned[key] = [last]
    return cleaned, fixes


def shown(text: str, limit: int = 40) -> str:
    """A value from the link, cut to ``limit`` characters (a link may carry 10,000 nines)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def enforce(numbers: Mapping[str, tuple[int, int]], multi: set[str]) -> list[Fix]:
    """On the session's first run, rewrite the URL by :func:`clean` and rerun, so every bound
    widget is seeded from values it can take. Returns the fixes once, on the run after the
    rewrite (an empty list on every other run)."""
    if st.session_state.get(CLEANED_KEY):
        return st.session_state.pop(FIXES_KEY, [])
    url = {key: st.query_params.get_all(key) for key in st.query_params}
    cleaned, fixes = clean(url, numbers, multi)
    st.session_state[CLEANED_KEY] = True
    if cleaned == url:
        return []
    st.session_state[FIXES_KEY] = fixes
    st.query_params.from_dict(cleaned)
    st.rerun()
    return []  # not reached: st.rerun() ends this run


def sync(key: str, values: Sequence[str]) -> None:
    """Make the URL carry ``values`` under ``key``, a parameter no widget binds."""
    st.session_state.setdefault(WRITTEN_KEY, {})[key] = list(values)
    if st.query_params.get_all(key) == list(values):
        return
    if values:
        st.query_params[key] = list(values)
    elif key in st.query_params:
        del st.query_params[key]


def keep(page: str, keys: Iterable[str]) -> None:
    """As a run on ``page`` ends: remember the values of the bound widgets ``keys`` whose
    parameters the URL carries, for :func:`restore` on the next page."""
    kept = {k: st.session_state[k] for k in keys if k in st.query_params and k in st.session_state}
    st.session_state[KEPT_KEY] = (page, kept)


def restore(page: str) -> None:
    """On a switch to ``page``, before any widget is drawn: give the bound widgets the values
    whose parameters the URL carried on the page before and lost on the way.

    Streamlit's browser side carries a bound parameter to the next page only once the widget's
    binding is registered, as the widget mounts, which can be a second after the run that drew
    it has ended: a click on another page in that second drops the parameter, and the widget
    that is not mounted yet comes back at its default. A value set in ``st.session_state`` is
    what Streamlit writes back to the widget and to the URL. A value the user changed since is
    left alone."""
    before, kept = st.session_state.get(KEPT_KEY, (page, {}))
    if before == page:
        return
    for key, value in kept.items():
        if key not in st.query_params and st.session_state.get(key, value) == value:
            st.session_state[key] = value


def changed_outside(key: str) -> list[str] | None:
    """The values of unbound parameter ``key`` when the URL changed them since :func:`sync`
    last wrote it (the browser went back or forward), else None."""
    written = st.session_state.get(WRITTEN_KEY, {})
    now = st.query_params.get_all(key)
    return now if key in written and now != written[key] else None


def page_url(current: str | None, base_path: str, url_path: str) -> str:
    """The address of page ``url_path`` on the server that served ``current`` (the browser's
    address, which may name a page that does not exist), without a query."""
    path = "/" + "/".join(p for p in (base_path.strip("/"), url_path) if p)
    if not current:
        return path
    parts = urlsplit(current)
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def with_query(address: str, params: Mapping[str, Sequence[str]]) -> str:
    query = urlencode(params, doseq=True)
    return f"{address}?{query}" if query else address
