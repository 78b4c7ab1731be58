"""Shared rendering helpers of every page: escaping, chart templates, colours, downloads.

Document and question text is user text. It reaches the screen only as data (dataframes, chart
fields), through :func:`md_escape` into markdown (plain text: no formatting, no links), or
through :func:`html.escape` into the boundary map's HTML; never as raw HTML or markdown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import streamlit as st

from lab import TRAINING_SPLITS, Corpus, LabResult, training_warning, untrained_chunkers

if TYPE_CHECKING:  # pandas comes with the first table or chart, not with the sidebar
    import pandas as pd

VERDICTS = ("complete", "partial", "miss")
VERDICT_COLORS = ("#2f9e44", "#f59f00", "#e03131")
MEASURE_COLORS = {"partial": "#a5d8ff", "complete": "#1971c2"}
# The Vega-Lite schema of Altair 6.3's charts, for the chart written out by hand (the boundary
# strip, on the page that opens first, which need not import Altair).
VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v6.4.1.json"
MODE_COLORS = {"flat": "#1c7ed6", "graph": "#e8590c", "dense": "#2f9e44", "hybrid": "#9c36b5"}
# Chart text for a projector: Vega-Lite's defaults (10-11 px) cannot be read from the back of a
# meeting room. No chart text is smaller than MIN_FONT pixels.
MIN_FONT = 12
CHART_TEXT = {
    "axis": {"labelFontSize": 13, "titleFontSize": 13},
    "legend": {"labelFontSize": 13, "titleFontSize": 13},
    "header": {"labelFontSize": 14, "titleFontSize": 14},
    "title": {"fontSize": 15},
    "text": {"fontSize": 13},
}

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")
# Streamlit's markdown turns web and e-mail addresses in plain text into links (GitHub's
# autolink literals: "www.", "http://", "https://", "name@host.tld"), escaped or not. An
# invisible word joiner inside each of those marks keeps them text.
_AUTOLINK_MARKS = re.compile(r"(?i)(?<=www)(?=\.)|(?<=:)(?=//)|(?=@)")
WORD_JOINER = "\u2060"


def md_escape(text: str) -> str:
    """``text`` as literal markdown: every markdown character escaped, web and e-mail
    addresses kept from becoming links, on one line."""
    text = _AUTOLINK_MARKS.sub(WORD_JOINER, " ".join(text.split()))
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def short(text: str, limit: int = 60) -> str:
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] if " " in text[: limit - 1] else text[: limit - 1]
    return cut.rstrip(" ,;:") + "…"


def grid(n: int, per_row: int = 2) -> list:
    """``n`` equal columns, at most ``per_row`` side by side, row after row."""
    if n <= per_row:
        return list(st.columns(n))
    return [c for start in range(0, n, per_row) for c in st.columns(per_row)[: n - start]]


def question_label(qid: str, text: str, limit: int = 60) -> str:
    """How a question is named wherever one is chosen or listed: its id and its text, cut."""
    return f"{qid} · {short(text, limit)}"


REFS_NOTE = {  # what each reference placement means, for captions
    "delivered": "references delivered (cited provisions' text in the chunk and its budget)",
    "index-only": "references index-only (cited text helps retrieval, is not delivered)",
    "off": "references off",
}
UNTRAINED = "untrained: no train questions"
ON_TRAINING = "scored on training data"


def training_notices(
    corpus: Corpus, split: str, chunkers: Sequence[str], adaptive: bool = False
) -> None:
    """Warn when a supervised chunker has no train question to learn from in this corpus, or
    when the split scores it (or the adaptive budget) on the train questions it learned from."""
    untrained_notice(corpus, chunkers)
    warning = training_warning(corpus, split, chunkers, adaptive)
    if warning:
        st.warning(md_escape(warning), icon=":material/school:")


def on_training(result: LabResult) -> set[str]:
    """The chunkers of ``result`` scored on the train questions they (or the adaptive budget)
    learned from."""
    if result.config.split not in TRAINING_SPLITS:
        return set()
    if result.config.adaptive:
        return {r.chunker for r in result.runs if any(q.split == "train" for q in r.questions)}
    return {r.chunker for r in result.runs if r.index.train_questions}


def untrained_notice(corpus: Corpus, chunkers: Sequence[str]) -> None:
    """Warn when a supervised chunker has no train question to learn from in this corpus."""
    names = untrained_chunkers(corpus, chunkers)
    if not names:
        return
    verb = "learns" if len(names) == 1 else "learn"
    st.warning(
        f"**{' and '.join(names)}** {verb} from train questions, and this corpus has none: "
        "they run untrained, no better informed than a plain chunker, and are marked "
        '*untrained*. Give some questions `"split": "train"` to train them.',
        icon=":material/school:",
    )


GRAPH_SEEDED = "graph (hybrid seeds)"  # graph mode with dense on: seeded from the RRF fusion


def mode_name(mode: str, dense: bool = False) -> str:
    """A retrieval mode as results name it: with dense embeddings on, graph mode's PageRank
    starts from the hybrid fusion's top chunks, not BM25's, and says so."""
    return GRAPH_SEEDED if dense and mode == "graph" else mode


def config_label(chunker: str, mode: str, dense: bool = False) -> str:
    return f"{chunker} · {mode_name(mode, dense)}"


def config_order(chunkers: Sequence[str], modes: Sequence[str], dense: bool = False) -> list[str]:
    return [config_label(c, m, dense) for c in chunkers for m in modes]


def readable(spec: dict) -> dict:
    """``spec`` with the projector's text sizes (:data:`CHART_TEXT`) in its config; what the
    chart's own config says wins."""
    config = spec.get("config", {})
    text = {part: {**sizes, **config.get(part, {})} for part, sizes in CHART_TEXT.items()}
    return {**spec, "config": {**config, **text}}


def chart(template: dict, *, stretch: bool = True, **datasets: pd.DataFrame) -> None:
    """Show a chart template (``cache.spec``) with this run's data in its named datasets."""
    spec = {**template, "datasets": {**template.get("datasets", {}), **datasets}}
    st.vega_lite_chart(spec=readable(spec), width="stretch" if stretch else "content")


def percent(
    label: str, color: str, help: str, digits: int = 0, width: int | str | None = None
) -> st.column_config.ProgressColumn:
    """A bar column of a percentage held as 0-100 (:func:`as_percent`), shown with ``digits``
    decimals (``lab.percent_digits``: the one rounding rule of the app and the CLI)."""
    return st.column_config.ProgressColumn(
        label,
        format=f"%.{digits}f%%",
        min_value=0.0,
        max_value=100.0,
        color=color,
        help=help,
        width=width,
    )


def as_percent(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` with the shares in ``columns`` as percentages (0-100), for :func:`percent`."""
    return frame.assign(**{c: 100 * frame[c] for c in columns if c in frame})


def downloads(files: Sequence[tuple[str, str | Callable[[], str], str, str]]) -> None:
    """Download buttons side by side: (label, data or a function making it, file name, MIME)."""
    for column, (label, data, name, mime) in zip(st.columns(len(files)), files, strict=True):
        column.download_button(
            label, data, name, mime, icon=":material/download:", on_click="ignore"
        )
