"""Every cached engine call of the app, in one place.

Results are keyed by the corpus digest and the configuration; the corpus object itself is passed
unhashed (a leading underscore tells Streamlit not to hash it). The bundled corpora's results (the
handbook, the TechNova support collection) are shared by all sessions. A user's own corpus lives
in its session: ``st.session_state["user_corpus"]`` holds a ``lab.Corpus`` (put it there with
:func:`set_user_corpus`, with its digest in the corpus store when it is kept there), the sidebar
then offers it as "your corpus", and its results go to session-scoped caches that Streamlit drops
when the session ends. A bundled file that is missing or unusable is reported, not raised.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Sequence
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

from lab import (
    CHUNKERS,
    DEFAULT_BUDGETS,
    ClusterError,
    Comparison,
    Corpus,
    CorpusError,
    Index,
    LabCache,
    LabConfig,
    LabResult,
    compare,
    load_collection,
    load_corpus,
    parents_over_budget,
    run_lab,
    sweep,
)
from lab.embed import DenseUnavailable, get_embedder
from lab.formats import PARSERS, default_reading, parser_options
from lab.rerank import download, get_reranker, reranker_status

if TYPE_CHECKING:  # altair loads with the first chart, not with the sidebar
    import altair as alt

from . import cluster, store, uploads
from .draw import md_escape

DATA = Path(__file__).resolve().parent.parent / "data"
HANDBOOK = "handbook"
TECHNOVA = "technova"
USER = "your corpus"
USER_CORPUS_KEY = "user_corpus"


USER_ID_KEY = "user_corpus_id"  # the store digest of the user's corpus, when it is kept
USER_INPUTS_KEY = "user_corpus_inputs"  # what the user's corpus was built from, to read again
DEFAULT_PARSER = PARSERS[0]  # every format's default reading (HTML's main content, PDF by pypdf)
HANDBOOK_FILES = ("handbook.md", "handbook_qe.json")


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


@st.cache_resource(max_entries=2, show_spinner=False)
def _bundled(
    folder: Path, names: tuple[str, str], stamps: tuple
) -> tuple[Corpus | None, str | None]:
    """A bundled corpus and, when a file of it is missing or unreadable, what is wrong. Keyed
    by the files' modification times and sizes, so a repaired file is read again."""
    doc, qe = (folder / name for name in names)
    where = f"{folder.name}/"
    if stamps[0] is None:
        return None, f"{where}{doc.name} is missing"
    try:
        corpus = load_corpus(doc, qe if stamps[1] is not None else None)
    except CorpusError as exc:
        return None, f"{where}{doc.name} cannot be used: {_relative(str(exc), folder)}"
    except OSError as exc:  # unreadable (permissions, a folder in its place): said, not raised
        return None, _unreadable(where, exc, doc.name)
    if stamps[1] is None:
        return corpus, f"{where}{qe.name} is missing, so the handbook has no questions"
    if not corpus.questions and corpus.errors:
        return corpus, f"{where}{qe.name} cannot be used: {corpus.errors[0].message}"
    return corpus, None


def _relative(message: str, folder: Path) -> str:
    """``message`` with the server's path to the bundled ``folder`` cut to the folder's name:
    a page shows where in the app a file is, never where the app is on the server."""
    return message.replace(str(folder), folder.name)


def _unreadable(where: str, exc: OSError, default: str) -> str:
    """Which bundled file cannot be read, and why, without the server's folders."""
    name = Path(exc.filename).name if exc.filename else default
    return f"{where}{name} cannot be read ({exc.strerror or type(exc).__name__})"


def _handbook() -> tuple[Corpus | None, str | None]:
    stamps = tuple(_stamp(DATA / name) for name in HANDBOOK_FILES)
    return _bundled(DATA, HANDBOOK_FILES, stamps)


def handbook() -> Corpus | None:
    """The bundled observatory handbook and its questions; None when its document is missing
    or unusable (:func:`handbook_problem` says why)."""
    return _handbook()[0]


def handbook_problem() -> str | None:
    """What is wrong with the bundled handbook's files, if anything."""
    return _handbook()[1]


TECHNOVA_MANIFEST = DATA / "technova" / "collection.json"


@st.cache_resource(max_entries=2 * len(PARSERS), show_spinner=False)
def _collection(
    manifest: Path, stamps: tuple, parser: str = DEFAULT_PARSER
) -> tuple[Corpus | None, str | None]:
    """A bundled collection (its HTML read with ``parser``) and, when it cannot be loaded, why.
    Keyed by its folder's files' modification times and sizes, so a repaired file is read
    again."""
    where = f"{manifest.parent.name}/{manifest.name}"
    if not manifest.is_file():
        return None, f"{where} is missing"
    try:
        corpus = load_collection(manifest, parser=parser)
    except CorpusError as exc:
        return None, f"{where} cannot be used: {_relative(str(exc), manifest.parent)}"
    except OSError as exc:
        return None, _unreadable(f"{manifest.parent.name}/", exc, manifest.name)
    if not corpus.questions and corpus.errors:
        return corpus, f"its questions cannot be used: {corpus.errors[0].message}"
    return corpus, None


def _technova(parser: str = DEFAULT_PARSER) -> tuple[Corpus | None, str | None]:
    folder = TECHNOVA_MANIFEST.parent
    files = sorted(folder.iterdir()) if folder.is_dir() else []
    return _collection(TECHNOVA_MANIFEST, tuple((p.name, _stamp(p)) for p in files), parser)


def technova(parser: str = DEFAULT_PARSER) -> Corpus | None:
    """The bundled TechNova support collection: seven documents of six types, 31 questions,
    its HTML page read with ``parser``; None when it cannot be loaded (:func:`bundled_problem`
    says why)."""
    return _technova(parser)[0]


BUNDLED = {HANDBOOK: handbook, TECHNOVA: technova}
PROBLEMS = {HANDBOOK: handbook_problem, TECHNOVA: lambda: _technova()[1]}


def bundled_problem(name: str) -> str | None:
    """What is wrong with the files of the bundled corpus ``name``, if anything."""
    return PROBLEMS[name]() if name in PROBLEMS else None


def bundled(of: Corpus) -> bool:
    """Whether ``of`` is a bundled corpus, in any reading (its results are shared by every
    session)."""
    return any(
        (shared := load()) is not None and of.digest == shared.digest for load in BUNDLED.values()
    ) or any(
        (shared := technova(parser)) is not None and of.digest == shared.digest
        for parser in readings(technova())[1:]
        if readings(of)
    )


def readings(of: Corpus | None) -> list[str]:
    """The readings (``parser`` settings) ``of`` may be read with, the default first: one per
    combination of its formats' readings (HTML ``main``/``page``, PDF ``pypdf``/``layout``);
    empty when none of its formats offers several."""
    return parser_options(frozenset(info.format for info in of.info)) if of is not None else []


def embedder_problem(model: str) -> str | None:
    """Load the shared embedder ``model`` (the engine keeps it); why it cannot be had, or None."""
    try:
        get_embedder(model)
    except DenseUnavailable as exc:
        return str(exc)
    return None


def reranker_problem(model: str, folder: str) -> str | None:
    """Load the shared cross-encoder named ``model`` from ``folder`` (the engine keeps it under
    that name); why it cannot be had here, or None."""
    ok, status = reranker_status(folder)
    if not ok:
        return status
    try:
        get_reranker(model, source=folder)
    except DenseUnavailable as exc:
        return str(exc)
    return None


def download_reranker(model: str) -> str | None:
    """Fetch hub cross-encoder ``model`` into the model cache and load it (the user asked for
    it); why not, or None."""
    try:
        get_reranker(model, source=download(model))
    except DenseUnavailable as exc:
        return str(exc)
    return None


def corpus_names() -> list[str]:
    """Corpora this session can show: the bundled ones, and the user's own when one is loaded."""
    return [*BUNDLED, USER] if USER_CORPUS_KEY in st.session_state else list(BUNDLED)


def corpus(name: str, parser: str = DEFAULT_PARSER) -> Corpus | None:
    """The corpus called ``name`` in :func:`corpus_names`, its HTML and PDF documents read with
    ``parser`` (see :func:`lab.formats.reading`); the handbook for anything else (None when the
    handbook cannot be loaded)."""
    if name == USER and USER_CORPUS_KEY in st.session_state:
        mine = st.session_state[USER_CORPUS_KEY]
        inputs = st.session_state.get(USER_INPUTS_KEY)
        if default_reading(parser) or inputs is None or not readings(mine):
            return mine
        return _user_reading(inputs, inputs.digest(), parser)
    if name == TECHNOVA:
        return technova() if default_reading(parser) else technova(parser)
    return BUNDLED.get(name, handbook)()


@st.cache_resource(max_entries=1, show_spinner=False, scope="session")
def _user_reading(_inputs: store.Inputs, digest: str, parser: str) -> Corpus:
    """The user's corpus read again with another parser (its inputs loaded once already)."""
    return uploads.build(_inputs, parser)


def set_user_corpus(
    user_corpus: Corpus, digest: str | None = None, inputs: store.Inputs | None = None
) -> None:
    """Make ``user_corpus`` this session's "your corpus"; ``digest`` names its inputs in the
    corpus store (None: not kept there, so a link cannot carry it); ``inputs``, what it was
    built from, lets it be read with another parser."""
    st.session_state[USER_CORPUS_KEY] = user_corpus
    st.session_state[USER_ID_KEY] = digest
    st.session_state[USER_INPUTS_KEY] = inputs


def user_corpus_id() -> str | None:
    """The store digest of this session's own corpus, when it is kept."""
    return st.session_state.get(USER_ID_KEY)


def shared_and_session(
    cache: Callable, max_entries: int, session_entries: int
) -> Callable[[Callable], tuple[Callable, Callable]]:
    """Wrap a function twice: a global cache for the bundled corpora, a session cache for user
    corpora."""

    def wrap(fn: Callable) -> tuple[Callable, Callable]:
        shared = cache(max_entries=max_entries, show_spinner=False)(fn)
        own = cache(max_entries=session_entries, show_spinner=False, scope="session")(fn)
        return shared, own

    return wrap


def pick(pair: tuple[Callable, Callable], of: Corpus) -> Callable:
    return pair[0] if bundled(of) else pair[1]


# the bundled corpora, TechNova in both readings; a user's corpus in two
@shared_and_session(st.cache_resource, max_entries=len(BUNDLED) + 1, session_entries=2)
def _workbench(_corpus: Corpus, digest: str) -> LabCache:
    return LabCache(max_indexes=64 if bundled(_corpus) else 16)


def workbench(of: Corpus) -> LabCache:
    """The engine's index and ranking cache for this corpus's documents: a new budget
    re-assembles contexts from cached rankings instead of chunking and ranking again, and the
    same documents with other questions (a question being written) chunk only what learns
    from them."""
    return pick(_workbench, of)(of, of.documents_digest)


@shared_and_session(st.cache_data, max_entries=128, session_entries=16)
def _lab(
    _corpus: Corpus, digest: str, config: LabConfig, questions: tuple[str, ...] | None = None
) -> LabResult:
    return run_lab(_corpus, config, cache=workbench(_corpus), questions=questions)


class _NotCached(Exception):
    """Raised by a cached sweep step asked only whether it is cached (exceptions are not)."""


_PROBE = object()


@shared_and_session(st.cache_data, max_entries=512, session_entries=128)
def _sweep_rows(
    _corpus: Corpus,
    digest: str,
    key: str,
    _config: LabConfig,
    budgets: tuple[int, ...],
    _rows: tuple[dict, ...] | object | None = None,
) -> tuple[dict, ...]:
    if _rows is _PROBE:
        raise _NotCached
    if _rows is not None:
        return _rows
    return sweep(
        _corpus, _config, budgets=budgets, sizes=(_config.size,), cache=workbench(_corpus)
    ).rows


@shared_and_session(st.cache_data, max_entries=512, session_entries=128)
def _view(digest: str, key: Hashable, _build: Callable[..., Any], _args: tuple) -> Any:
    made = _build(*_args)
    alt = sys.modules.get("altair")  # an Altair chart comes with Altair imported
    return made.to_dict(validate=False) if alt and isinstance(made, alt.TopLevelMixin) else made


def view(of: Corpus, key: Hashable, build: Callable[..., Any], *args: Any) -> Any:
    """What ``build(*args)`` makes from the corpus (chart data, an HTML string, or an Altair
    chart, kept as its unvalidated Vega-Lite spec), cached under the corpus and ``key``.
    ``args`` are not hashed, so ``key`` must name the view and every input it depends on."""
    return pick(_view, of)(of.digest, key, build, args)


@st.cache_data(max_entries=128, show_spinner=False)
def _spec(name: str, args: tuple, _build: Callable[..., alt.TopLevelMixin | dict]) -> dict:
    made = _build(*args)
    return made if isinstance(made, dict) else made.to_dict()


def spec(build: Callable[..., alt.TopLevelMixin | dict], *args: Hashable) -> dict:
    """The Vega-Lite spec of the chart ``build(*args)`` makes (an Altair chart, or a spec
    written out as a dict): a template whose data are named datasets that ``draw.chart`` fills
    on every run. Building and validating an Altair chart costs tens of milliseconds, so it
    happens once per chart shape, not on every rerun."""
    return _spec(f"{build.__module__}.{build.__qualname__}", args, build)


def lab(of: Corpus, config: LabConfig, questions: tuple[str, ...] | None = None) -> LabResult:
    """``run_lab`` for this corpus and configuration, on the split's questions (``questions``:
    on those ids); a spinner shows while it takes long."""
    what = f"embedding with {config.dense}, " if config.dense else ""
    with st.spinner(f"Chunking, {what}ranking and assembling…"):
        return pick(_lab, of)(of, of.digest, config, questions)


@shared_and_session(st.cache_data, max_entries=128, session_entries=16)
def _comparison(_corpus: Corpus, digest: str, a: LabConfig, b: LabConfig) -> Comparison:
    return compare(
        _corpus,
        a,
        b,
        cache=workbench(_corpus.read_with(a.parser)),
        cache_b=workbench(_corpus.read_with(b.parser)),
    )


def comparison(of: Corpus, a: LabConfig, b: LabConfig) -> Comparison:
    """``compare`` of A and B on this corpus, each reading its documents with its own parser;
    a spinner shows while it takes long."""
    with st.spinner("Running A and B…"):
        return pick(_comparison, of)(of, of.digest, a, b)


def index(of: Corpus, config: LabConfig, chunker: str) -> Index:
    """The index ``chunker`` builds over the corpus with the configuration's size and toggles."""
    return workbench(of).index(of, config, chunker)


PARENT_CHILD = "parent-child"


def parents_notice(of: Corpus, config: LabConfig) -> None:
    """Warn, before the results, when parent-child delivers parents longer than the budget:
    those chunks can never be retrieved (a parent spans up to 2 L)."""
    if PARENT_CHILD not in config.chunkers:
        return
    built = index(of, config, PARENT_CHILD)
    size_unit = "characters" if built.tokenizer is None else built.unit
    problem = parents_over_budget(built.words, config.size, config.budget, built.unit, size_unit)
    if problem:
        st.warning(md_escape(problem), icon=":material/crop_free:")


def sweep_rows(
    of: Corpus,
    config: LabConfig,
    budgets: Sequence[int],
    sizes: Sequence[int],
    progress: Callable[[int, int, str], None] | None = None,
) -> list[dict]:
    """Sweep rows over ``budgets`` x ``sizes`` for the configuration's chunkers and modes, in
    size, chunker, mode and budget order.

    Cached per size, chunker and budget group (the default budgets together, any other budget
    alone), so a new budget computes only its own column, and toggling a chunker recomputes
    only that chunker. Steps not cached yet run on the Dask cluster when one is configured
    (:mod:`ui.cluster`), all at once, ``progress(done, total, "")`` counting finished tasks;
    otherwise here, one after another: ``progress(done, total, what)`` before each step not
    cached yet says which (chunking, embedding with dense on, and ranking one chunker at one
    size is the slow part), and ``progress(total, total, "")`` at the end.
    """
    cached = pick(_sweep_rows, of)
    groups = [tuple(b for b in budgets if b in DEFAULT_BUDGETS)]
    groups = [g for g in groups if g] + [(b,) for b in budgets if b not in DEFAULT_BUDGETS]
    steps = {
        (size, chunker, group): replace(
            config, chunkers=(chunker,), size=size, budget=LabConfig.budget
        )
        for size in sizes
        for chunker in config.chunkers
        for group in groups
    }
    found: dict[tuple, tuple[dict, ...]] = {}
    for step, one in steps.items():
        with suppress(_NotCached):  # a string key hashes fastest
            found[step] = cached(of, of.digest, repr(one), one, step[2], _PROBE)
    missing = [step for step in steps if step not in found]
    link = cluster.link() if missing else None
    client = link.client() if link is not None else None
    if link is not None and client is None:
        st.warning(
            f"Sweeping on this machine: {_plain(link.problem or '')}.",
            icon=":material/cloud_off:",
        )
    if client is not None:
        count = (lambda done, total: progress(done, total, "")) if progress else None
        found |= _sweep_on_cluster(link, client, of, config, missing, count)
    work = "chunking, embedding and ranking" if config.dense else "chunking and ranking"
    for step in [step for step in steps if step not in found]:
        size, chunker, group = step
        if progress:
            progress(len(found), len(steps), f"{work} {chunker} at L = {size}")
        found[step] = cached(of, of.digest, repr(steps[step]), steps[step], group)
    if progress:
        progress(len(steps), len(steps), "")
    rows = [row for step in steps for row in found[step]]
    order = {name: k for k, name in enumerate(CHUNKERS)}
    return sorted(rows, key=lambda r: (r["size"], order[r["chunker"]], r["mode"], r["budget"]))


def _sweep_on_cluster(
    link: cluster.Link,
    client,
    of: Corpus,
    config: LabConfig,
    steps: Sequence[tuple[int, str, tuple[int, ...]]],
    progress: Callable[[int, int], None] | None,
) -> dict[tuple, tuple[dict, ...]]:
    """Compute sweep ``steps`` on the cluster and cache them; {} (with a warning on the page)
    when the cluster fails, so the caller sweeps here instead."""
    chunkers = tuple(c for c in config.chunkers if any(step[1] == c for step in steps))
    budgets = sorted({b for step in steps for b in step[2]})
    sizes = sorted({step[0] for step in steps})
    try:
        one = replace(config, chunkers=chunkers)
        rows = sweep(of, one, budgets, sizes, progress=progress, client=client).rows
    except ClusterError as exc:
        link.failed(str(exc))
        st.warning(
            f"The Dask cluster failed this sweep ({_plain(str(exc))}): sweeping on this "
            "machine instead.",
            icon=":material/cloud_off:",
        )
        return {}
    cached = pick(_sweep_rows, of)
    found = {}
    for size, chunker, group in steps:
        part = tuple(
            r
            for r in rows
            if r["size"] == size and r["chunker"] == chunker and r["budget"] in group
        )
        one = replace(config, chunkers=(chunker,), size=size, budget=LabConfig.budget)
        found[size, chunker, group] = cached(of, of.digest, repr(one), one, group, part)
    return found


def _plain(message: str) -> str:
    """An engine message as literal markdown, its `code` quotes dropped."""
    return md_escape(message.replace("`", ""))
