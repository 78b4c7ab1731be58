"""The sidebar's dense retrieval group: embeddings, late chunking and a cross-encoder reranker.

Offered only where ``lab.embed.dense_status()`` says the packages are here; elsewhere one line
says so and opens the guide to enabling it (``docs/dense.md``). The embedding model and the
reranker are loaded (or found missing) here, so a page never fails on them; a reranker is named
by the rules of :mod:`ui.models`, never by a server path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import streamlit as st

from lab import LabConfig, embed
from lab.rerank import DEFAULT_RERANKER

from . import cache, models
from .draw import md_escape
from .links import BIND

RERANK_TOP_RANGE = (1, 200)
DOWNLOAD_KEY = "download_reranker_now"  # the user asked to fetch the hub reranker
GUIDE = Path(__file__).resolve().parent.parent / "docs" / "dense.md"
GUIDE_TITLE = "# Dense retrieval"


class DenseChoice(NamedTuple):
    """What the dense retrieval group says: whether dense is available here and on, late
    chunking, and the reranker: its name, the folder it loads from, or why it cannot."""

    available: bool
    on: bool = False
    late: bool = False
    rerank: bool = False
    rerank_model: str = DEFAULT_RERANKER
    rerank_top: int = LabConfig.rerank_top
    rerank_source: str | None = None
    rerank_problem: str | None = None

    def off(self) -> DenseChoice:
        return self._replace(on=False, late=False, rerank=False)


def guide() -> str:
    """The guide to dense retrieval (``docs/dense.md``, markdown), or the install command alone."""
    try:
        text = GUIDE.read_text(encoding="utf-8")
    except OSError:
        return f"```bash\n{embed.INSTALL_HINT}\n```"
    return text.strip().removeprefix(GUIDE_TITLE).strip()


@st.dialog("Dense retrieval", width="large")
def _how_to_enable() -> None:
    st.markdown(guide())


def group() -> DenseChoice:
    """The dense retrieval widgets; the reranker's only while dense is on."""
    st.subheader("Dense retrieval")
    available, status = embed.dense_status()
    on = st.toggle(
        f"Dense embeddings ({embed.DEFAULT_MODEL})",
        value=False,
        key="dense",
        bind=BIND,
        disabled=not available,
        help="Embed every chunk and question with a sentence-transformers model: adds the dense "
        "and hybrid modes and the chunkers that need embeddings, and seeds graph mode from "
        "the hybrid fusion.",
    )
    if not available:
        if st.button(
            "Not installed here: how to enable it",
            key="dense_how",
            type="tertiary",
            icon=":material/info:",
        ):
            _how_to_enable()
        return DenseChoice(False)
    if not on:
        return DenseChoice(True)
    st.caption(md_escape(status))
    late = st.toggle(
        "Late chunking",
        value=LabConfig.late,
        key="late",
        bind=BIND,
        help="Embed each section whole, then pool every chunk's vector from its tokens "
        "(Günther et al., 2024), so a chunk's vector knows its context.",
    )
    rerank = st.toggle(
        "Rerank (cross-encoder)",
        value=False,
        key="rerank",
        bind=BIND,
        help="A cross-encoder reorders the top N chunks of every ranking before assembly.",
    )
    if not rerank:
        return DenseChoice(True, True, late)
    model = st.text_input(
        "Cross-encoder",
        value=DEFAULT_RERANKER,
        key="rerank_model",
        bind=BIND,
        help="A model hub id, or the name of a folder in the app's models directory "
        f"(`{models.MODELS_ENV}`).",
    )
    top = st.number_input(
        "Rerank the top N",
        *RERANK_TOP_RANGE,
        value=LabConfig.rerank_top,
        key="rerank_top",
        bind=BIND,
    )
    return DenseChoice(True, True, late, True, model.strip() or DEFAULT_RERANKER, int(top))


def check(choice: DenseChoice, notes) -> DenseChoice:
    """Load what ``choice`` needs: dense retrieval goes off when the embedder cannot load, the
    reranker when it cannot be had (both said in ``notes``, a sidebar container)."""
    if choice.on:
        problem = _load(embed.DEFAULT_MODEL, lambda: cache.embedder_problem(embed.DEFAULT_MODEL))
        if problem:
            notes.error(f"Dense retrieval is off: {md_escape(problem)}", icon=":material/block:")
            return choice.off()
    if not choice.rerank:
        return choice
    source = reranker(choice.rerank_model)
    if not source.problem:
        return choice._replace(rerank_source=source.folder)
    notes.warning(f"Reranking is off: {md_escape(source.problem)}.", icon=":material/warning:")
    if source.downloadable:
        _offer_download(choice.rerank_model, notes)
    return choice._replace(rerank_problem=source.problem)


def reranker(name: str) -> models.Source:
    """Cross-encoder ``name`` loaded from the folder :func:`ui.models.resolve` allows, or why
    it cannot be had (a name of another shape is refused before the disk is touched)."""
    source = models.resolve(name)
    if source.problem:
        return source
    problem = _load(name, lambda: cache.reranker_problem(name, source.folder))
    return source._replace(folder=None, problem=problem) if problem else source


def _offer_download(model: str, notes) -> None:
    notes.button(
        "Download the reranker from the hub",
        key="download_reranker",
        on_click=st.session_state.__setitem__,
        args=(DOWNLOAD_KEY, True),
    )
    if not st.session_state.pop(DOWNLOAD_KEY, False):
        return
    with st.spinner(f"Downloading {md_escape(model)}…"):
        failed = cache.download_reranker(model)
    if failed:
        notes.error(f"Download failed: {md_escape(failed)}", icon=":material/block:")
    else:
        st.rerun()


def _load(model: str, load: Callable[[], str | None]) -> str | None:
    """Load ``model`` (a spinner names it while it takes long); why it cannot be had, or None."""
    with st.spinner(f"Loading {md_escape(model)}…"):
        return load()
