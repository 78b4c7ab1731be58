"""The command line: ``python -m lab run | sweep | compare | bench``.

User errors (missing or unreadable files, invalid JSON, unknown chunkers or settings, bad sizes,
an embedding model or reranker that cannot be loaded) print one line ``error: ...`` to stderr and
exit with status 2; problems with single questions print ``warning: <id>: ...`` and the valid
questions still run. ``compare --fail-on-broken`` exits with status 1 when B breaks a question
that A passed, so a change can be gated in CI. ``sweep --workers N`` and ``sweep --scheduler
ADDRESS`` run the sweep on a Dask cluster (:mod:`lab.cluster`); without dask and distributed
installed they exit with status 2 and the install command, and a cluster that fails mid-sweep
exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from . import (
    CHUNKERS,
    DEFAULT_CHUNKERS,
    DOCUMENT_TYPES,
    LEXICAL_MODES,
    MODES,
    POLICY_CHUNKER,
    REFERENCE_PLACEMENTS,
    SPLITS,
    Comparison,
    Corpus,
    CorpusError,
    LabConfig,
    compare,
    configure,
    leaders,
    load_collection,
    load_corpus,
    run_lab,
    setting_names,
    sweep,
    untrained_chunkers,
)
from .cluster import (
    ClusterError,
    DistributedUnavailable,
    SchedulerUnreachable,
    connected,
    distributed_status,
    local_cluster,
)
from .compare import label, p_text
from .embed import DEFAULT_MODEL, DenseUnavailable
from .rerank import DEFAULT_RERANKER, can_download, reranker_status
from .run import (
    DEFAULT_BUDGETS,
    DEFAULT_SIZES,
    LabResult,
    SweepResult,
    embedder_for,
    question_count,
    reranker_for,
)

DATA = Path(__file__).resolve().parent.parent / "data"
DEFAULT_DOC = DATA / "handbook.md"
DEFAULT_QE = DATA / "handbook_qe.json"
FORMATS = ("table", "json", "csv")
MODE_CHOICES = {"both": LEXICAL_MODES, "all": MODES} | {m: (m,) for m in MODES}
ALL = "all"
DEFAULTS = LabConfig()
BAR_WIDTH = 30


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one ``error: ...`` line and exit status 2."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see '{self.prog} --help')\n")


def _chunker_list(value: str) -> tuple[str, ...]:
    names = [n.strip() for n in value.split(",") if n.strip()]
    if names == [ALL]:
        return (ALL,)
    unknown = [n for n in names if n not in CHUNKERS]
    if unknown or not names:
        got = repr(unknown[0]) if unknown else "nothing"
        raise argparse.ArgumentTypeError(
            f"unknown chunker {got}; choose 'all' or a comma list of {', '.join(CHUNKERS)}"
        )
    return tuple(names)


def _int_list(value: str) -> tuple[int, ...]:
    try:
        numbers = tuple(int(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated whole numbers, got {value!r}"
        ) from None
    if not numbers:
        raise argparse.ArgumentTypeError("expected at least one number")
    return numbers


def _type_pair(value: str) -> tuple[str, str]:
    name, sep, doc_type = value.partition("=")
    if not sep or not name.strip() or not doc_type.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=TYPE, got {value!r}")
    return name.strip(), doc_type.strip()


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value!r}")
    return number


def _add_experiment_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--doc",
        action="append",
        type=Path,
        metavar="PATH",
        help="document (markdown, text or HTML, UTF-8); repeat for several "
        "(default: the bundled handbook)",
    )
    p.add_argument(
        "--collection",
        type=Path,
        metavar="MANIFEST",
        help="a collection manifest (collection.json: documents with types and metadata, their "
        "questions, a chunking policy per type); instead of --doc",
    )
    p.add_argument(
        "--type",
        action="append",
        type=_type_pair,
        default=[],
        metavar="NAME=TYPE",
        help=f"the type of a --doc document (by file name or stem), one of "
        f"{', '.join(DOCUMENT_TYPES)}; repeat for several (default: inferred)",
    )
    p.add_argument(
        "--qe",
        type=Path,
        metavar="PATH",
        help="question-evidence JSON (default: the bundled handbook's, or the manifest's)",
    )
    p.add_argument(
        "--chunker",
        action="append",
        type=_chunker_list,
        metavar="NAME[,NAME...]|all",
        help=f"chunkers to run, of {', '.join(CHUNKERS)} (default: {', '.join(DEFAULT_CHUNKERS)}; "
        "all: every one, those needing embeddings only with --dense)",
    )
    p.add_argument(
        "--mode",
        choices=MODE_CHOICES,
        default="both",
        help="retrieval mode; both: flat and graph; all: every mode (needs --dense)",
    )
    p.add_argument(
        "--size",
        type=int,
        default=DEFAULTS.size,
        metavar="N",
        help=f"chunk size L in characters (default {DEFAULTS.size})",
    )
    p.add_argument(
        "--budget",
        type=int,
        default=DEFAULTS.budget,
        metavar="N",
        help=f"context budget in words (default {DEFAULTS.budget})",
    )
    p.add_argument(
        "--overlap",
        type=int,
        default=DEFAULTS.overlap,
        metavar="N",
        help=f"overlap of the fixed and sentence chunkers (default {DEFAULTS.overlap})",
    )
    p.add_argument("--split", choices=SPLITS, default=DEFAULTS.split, help="questions to score")
    p.add_argument(
        "--headers", action="store_true", help="prefix every chunk with its heading path"
    )
    p.add_argument(
        "--refs",
        choices=REFERENCE_PLACEMENTS,
        default=DEFAULTS.refs,
        help="where cited provisions' text goes (structure, parent-child): delivered with the "
        "chunk and counted in the budget; index-only: retrieval and the graph use it, the "
        "context does not carry it; off: nowhere, and no reference edges in the graph "
        f"(default {DEFAULTS.refs})",
    )
    p.add_argument(
        "--no-refs", dest="refs", action="store_const", const="off", help="the same as --refs off"
    )
    p.add_argument(
        "--no-filters",
        dest="filters",
        action="store_false",
        help="ignore the questions' metadata filters: every question ranks every document "
        "(default: a question with a filter ranks only the documents whose metadata match it)",
    )
    p.add_argument(
        "--dense",
        nargs="?",
        const=DEFAULT_MODEL,
        metavar="MODEL",
        help=f"embed chunks and questions with a sentence-transformers model (default "
        f"{DEFAULT_MODEL}): enables the dense and hybrid modes, semantic and late chunking",
    )
    p.add_argument(
        "--late", action="store_true", help="late chunking: pool chunk vectors from whole sections"
    )
    p.add_argument(
        "--rerank",
        nargs="?",
        const=DEFAULT_RERANKER,
        metavar="MODEL",
        help=f"reorder the top chunks with a cross-encoder, a hub name or a local folder "
        f"(default {DEFAULT_RERANKER})",
    )
    p.add_argument(
        "--download",
        action="store_true",
        help="allow fetching a hub reranker that is not in the local model cache",
    )
    p.add_argument(
        "--rerank-top",
        type=int,
        default=DEFAULTS.rerank_top,
        metavar="N",
        help=f"how many top chunks the cross-encoder reorders (default {DEFAULTS.rerank_top})",
    )
    p.add_argument("--format", choices=FORMATS, default="table", help="output format")
    p.add_argument("--output", type=Path, metavar="FILE", help="write the output here, not stdout")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m lab",
        description="Chunking Lab: complete- vs partial-evidence recall of RAG chunkers.",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="{run,sweep,compare,bench}"
    )
    run = commands.add_parser("run", help="score chunkers x modes at one size and budget")
    _add_experiment_options(run)
    sweep_ = commands.add_parser("sweep", help="recall over the budget x size grid")
    _add_experiment_options(sweep_)
    sweep_.add_argument(
        "--budgets",
        type=_int_list,
        default=DEFAULT_BUDGETS,
        metavar="N,N,...",
        help=f"budgets in words (default {','.join(map(str, DEFAULT_BUDGETS))})",
    )
    sweep_.add_argument(
        "--sizes",
        type=_int_list,
        default=DEFAULT_SIZES,
        metavar="N,N,...",
        help=f"chunk sizes in characters (default {','.join(map(str, DEFAULT_SIZES))})",
    )
    sweep_.add_argument(
        "--progress",
        action="store_true",
        help="report progress on stderr even when it is not a terminal",
    )
    where = sweep_.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=_positive_int,
        metavar="N",
        help="run the sweep on a Dask LocalCluster of N worker processes on this machine "
        "(needs requirements-distributed.txt)",
    )
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the sweep on the Dask cluster whose scheduler is at ADDRESS, e.g. "
        "tcp://HOST:8786 (needs requirements-distributed.txt)",
    )
    compare_ = commands.add_parser(
        "compare",
        help="two configurations on the same questions: what B fixed or broke, and whether "
        "the difference is real",
        description="Compare configuration A with B question by question. The corpus options "
        "set what A and B share; --a changes A, --b changes B from A. Settings: "
        + ", ".join(setting_names()),
    )
    _add_experiment_options(compare_)
    compare_.add_argument(
        "--a",
        default="",
        metavar="NAME=VALUE,...",
        help="A's settings, e.g. chunker=structure,mode=flat (one chunker and one mode)",
    )
    compare_.add_argument(
        "--b",
        required=True,
        metavar="NAME=VALUE,...",
        help="B's settings where they differ from A, e.g. mode=graph",
    )
    compare_.add_argument(
        "--fail-on-broken",
        action="store_true",
        help="exit with status 1 when B breaks a question that A passed (complete recall)",
    )
    bench = commands.add_parser(
        "bench", help="run every benchmark script of benchmarks/ and print the figures"
    )
    bench.add_argument(
        "--quick", action="store_true", help="tiny sizes and few repeats: a smoke run"
    )
    bench.add_argument(
        "--only", metavar="NAME[,NAME...]", help="only these scripts (handbook: bench_handbook.py)"
    )
    bench.add_argument(
        "--output", type=Path, metavar="FILE", help="write the figures here, not stdout"
    )
    return parser


def _config(args: argparse.Namespace, sizes: Sequence[int] = ()) -> LabConfig:
    """The experiment the options describe; a ``ValueError`` names a flag whose value is out of
    range."""
    smallest = min((args.size, *sizes))
    if smallest <= args.overlap:
        flag = "--size" if smallest == args.size else "--sizes"
        raise ValueError(f"{flag} {smallest} must be larger than --overlap {args.overlap}")
    if args.rerank_top < 1:
        raise ValueError(f"--rerank-top must be at least 1, got {args.rerank_top}")
    usable = [c for c in CHUNKERS if args.dense or not CHUNKERS[c].dense]
    defaults = DEFAULT_CHUNKERS + (POLICY_CHUNKER,) * (args.collection is not None)
    chosen = args.chunker or [defaults]
    chunkers = tuple(
        dict.fromkeys(n for names in chosen for n in (usable if names == (ALL,) else names))
    )
    if args.dense is None:
        needs = [f"--mode {args.mode}"] if args.mode in ("dense", "hybrid", ALL) else []
        needs += [f"the {c} chunker" for c in chunkers if CHUNKERS[c].dense]
        needs += ["--late"] if args.late else []
        if needs:
            verb = "needs" if len(needs) == 1 else "need"
            raise ValueError(f"{', '.join(needs)} {verb} dense embeddings: add --dense")
    return LabConfig(
        chunkers=chunkers,
        modes=MODE_CHOICES[args.mode],
        size=args.size,
        budget=args.budget,
        split=args.split,
        headers=args.headers,
        refs=args.refs,
        filters=args.filters,
        overlap=args.overlap,
        dense=args.dense,
        late=args.late,
        rerank=args.rerank,
        rerank_top=args.rerank_top,
    )


def _load_models(config: LabConfig, download: bool = False) -> None:
    """Load the embedding model and the reranker the configuration names, before any work;
    ``DenseUnavailable`` says plainly why one cannot be had. A hub reranker is used only once
    it is in the local model cache: the command line never waits on a download it cannot make."""
    embedder_for(config)
    if config.rerank is None:
        return
    ok, status = reranker_status(config.rerank)
    if not ok and not (download and can_download(config.rerank)):
        raise DenseUnavailable(
            f"cannot rerank: {status}; add --download to fetch it from the hub, "
            "or give a local folder: --rerank PATH"
        )
    reranker_for(config)


def _say(level: str, message: str) -> None:
    print(f"{level}: {message}", file=sys.stderr)


def _read(args: argparse.Namespace) -> tuple[Corpus, Path | str]:
    """The corpus the options name, and where its questions come from."""
    if args.collection is not None:
        if args.doc is not None:
            raise ValueError(
                "--collection and --doc exclude each other: a manifest lists its documents"
            )
        if args.type:
            raise ValueError("--type goes with --doc; a manifest gives each document its type")
        return load_collection(args.collection, args.qe), args.qe or args.collection
    if args.doc is None:
        if args.type:
            raise ValueError("--type names the type of a --doc document; give --doc too")
        return load_corpus([DEFAULT_DOC], args.qe or DEFAULT_QE), args.qe or DEFAULT_QE
    if args.qe is None:
        raise ValueError(
            "--qe PATH is required with --doc: the bundled questions belong to the bundled handbook"
        )
    stems = [p.stem for p in args.doc]
    if len(set(stems)) < len(stems):
        raise ValueError(
            f"two --doc files share a name ({', '.join(stems)}); documents are named by file stem"
        )
    return load_corpus(list(args.doc), args.qe, dict(args.type)), args.qe


def _load(args: argparse.Namespace) -> Corpus:
    """The corpus of ``--doc``/``--qe`` or ``--collection`` (the bundled handbook by default),
    its problems reported.

    Raises ``ValueError`` when no question of the split can run."""
    corpus, qe = _read(args)
    fatal = not corpus.questions
    whole_file = [e for e in corpus.errors if e.question is None and e.document is None]
    if fatal and whole_file:
        raise ValueError(f"{qe}: {whole_file[-1].message}")
    for e in corpus.errors:
        where = e.question or e.document or qe
        _say("error" if fatal and e.severity == "error" else "warning", f"{where}: {e.message}")
    if fatal:
        raise ValueError(f"no usable question in {qe}" + (" (see above)" if corpus.errors else ""))
    if not corpus.split(args.split):
        counts = ", ".join(
            f"{sum(q.split == s for q in corpus.questions)} {s}" for s in ("train", "test")
        )
        raise ValueError(
            f"no {args.split} questions in {qe} (it has {counts}); choose another --split"
        )
    return corpus


def _warn_untrained(corpus: Corpus, chunkers: Sequence[str]) -> None:
    """One warning line when a supervised chunker has no train question to learn from."""
    names = untrained_chunkers(corpus, dict.fromkeys(chunkers))
    if names:
        verb = "has" if len(names) == 1 else "have"
        _say(
            "warning",
            f"{' and '.join(names)} {verb} no train questions to learn from and run untrained "
            '(marked "(untrained)"): give some questions "split": "train"',
        )


def _progress(stream, live: bool, where: str) -> Callable[[int, int], None]:
    """A progress bar of finished sweep tasks: redrawn in place on a terminal, one line per task
    otherwise."""

    def report(done: int, total: int) -> None:
        filled = BAR_WIDTH * done // total
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        end = "\n" if not live or done == total else "\r"
        stream.write(f"sweep [{bar}] {done}/{total} tasks (chunker x size) {where}{end}")
        stream.flush()

    return report


def _sweep_client(args: argparse.Namespace) -> tuple[AbstractContextManager, str]:
    """The Dask client the options ask for (None: sweep here) and where the sweep runs."""
    if args.workers is None and args.scheduler is None:
        return nullcontext(None), "on this machine"
    flag = "--workers" if args.workers is not None else "--scheduler"
    ok, status = distributed_status()
    if not ok:
        raise DistributedUnavailable(f"{flag} needs dask and distributed: {status}")
    if args.workers is not None:
        plural = "es" if args.workers > 1 else ""
        return local_cluster(args.workers), f"on {args.workers} local worker process{plural}"
    return connected(args.scheduler), f"on the cluster at {args.scheduler}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int) -> str:
    """Aligned columns: the first ``left`` (names) to the left, the rest (numbers) to the right."""
    widths = [max(map(len, col)) for col in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([line(header), *(line(r) for r in rows)])


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _interval(low: float, high: float) -> str:
    return f"{100 * low:.0f}-{100 * high:.0f}%"


def _on(flag: bool) -> str:
    return "on" if flag else "off"


def _dense_note(c: LabConfig) -> str:
    """The dense settings for a table's title: "" when dense retrieval and reranking are off."""
    parts = [f"dense {c.dense}"] if c.dense else []
    parts += ["late chunking"] if c.late else []
    parts += [f"reranked by {c.rerank} (top {c.rerank_top})"] if c.rerank else []
    return "".join(f", {p}" for p in parts)


def _documents_table(corpus: Corpus, config: LabConfig) -> str:
    """Each document's type (``*``: inferred), format, the chunker the policy gives it, size
    and metadata, with how inferred types were read."""
    rows, notes = [], []
    for info, doc in zip(corpus.info, corpus.documents, strict=True):
        choice = corpus.policy.resolve(
            info.type, config.size, config.overlap, config.dense is not None
        )
        inferred = info.type_source != "given"
        if inferred:
            notes.append(f"* {info.name}: {info.type_source}")
        if choice.note:
            notes.append(f"{info.name}: {choice.note}")
        rows.append(
            (
                info.name,
                info.type + "*" * inferred,
                info.format,
                choice.chunker + (f" (L={choice.size})" if choice.size != config.size else ""),
                info.describe_meta() or "-",
                f"{len(doc.text):,}",
            )
        )
    table = _table(("document", "type", "format", "by-type", "meta", "chars"), rows, left=5)
    return "\n".join([f"Documents ({corpus.name})", table, *notes])


def _settings_note(c: LabConfig) -> str:
    """Size, budget, heading prefixes, reference placement, metadata filters when off, and
    dense options, in words."""
    return (
        f"size {c.size} chars, budget {c.budget} words, headers {_on(c.headers)}, "
        f"references {c.refs}{'' if c.filters else ', metadata filters off'}{_dense_note(c)}"
    )


def _run_table(result: LabResult, corpus: Corpus) -> str:
    c = result.config
    questions = corpus.split(c.split)
    n = len(questions)
    filtered = sum(1 for q in questions if q.filter)
    docs = len(corpus.documents)
    title = (
        f"{corpus.name}: {f'{docs} documents, ' if docs > 1 else ''}"
        f"{question_count(n, c.split)}"
        f"{f' ({filtered} with a metadata filter)' if filtered else ''}, {_settings_note(c)}"
    )
    without = ("complete w/o filters", "partial w/o filters") if filtered and c.filters else ()
    untrained = set(untrained_chunkers(corpus, c.chunkers))

    def name(chunker: str) -> str:
        return f"{chunker} (untrained)" if chunker in untrained else chunker

    metrics = _table(
        (
            "chunker",
            "mode",
            "partial",
            "complete",
            "complete 95% CI",
            "gap",
            "context words",
            "chunks",
            "MRR",
        )
        + without,
        [
            (
                name(r.chunker),
                r.mode,
                _pct(m.partial),
                _pct(m.complete),
                _interval(*m.complete_ci),
                _pct(m.gap),
                f"{m.mean_context_words:.1f}",
                f"{m.mean_chunks:.2f}",
                f"{m.mrr:.3f}",
            )
            + ((_pct(u.complete), _pct(u.partial)) if u is not None else ())
            for r in result.runs
            for m, u in [(r.metrics, r.unfiltered_metrics)]
        ],
        left=2,
    )
    documents = _documents_table(corpus, c) + "\n\n" if docs > 1 else ""
    seen: dict[str, object] = {}
    for r in result.runs:
        seen.setdefault(r.chunker, r.index)
    index = _table(
        (
            "chunker",
            "chunks",
            "mean chars",
            "max chars",
            "max delivered",
            "index/doc",
            "evidence intact",
            "heading starts",
            "over size",
            "over budget",
            "long units",
            "split evidence",
            "objective",
        ),
        [
            (
                name(chunker),
                str(s.chunks),
                f"{s.mean_chars:.0f}",
                str(s.max_chars),
                str(s.max_delivered_chars),
                f"{s.index_ratio:.2f}",
                _pct(s.evidence_intact),
                _pct(s.heading_starts),
                str(s.over_size),
                str(s.over_budget),
                str(s.long_units),
                str(s.split_evidence),
                "-" if s.objective is None else f"{s.objective:.2f}",
            )
            for chunker, s in seen.items()
        ],
        left=1,
    )
    index_title = (
        f"Index statistics (max delivered: prefix, body and delivered references; over "
        f"budget: longer than {c.budget} words; long units: sentences longer than L, split)"
    )
    top = leaders(result)
    best = f"Best complete recall {top.summary()}.\n" if top and len(result.runs) > 1 else ""
    return f"{title}\n\n{metrics}\n{best}\n{documents}{index_title}\n{index}\n"


def _nearest(values: Sequence[int], target: int) -> int:
    return min(values, key=lambda v: (abs(v - target), v))


def _pivot(result: SweepResult, axis: str, fixed: str, at: int) -> str:
    rows = [r for r in result.rows if r[fixed] == at]
    columns = sorted({r[axis] for r in rows})
    cells: dict[tuple[str, str], dict[int, str]] = {}
    for r in rows:
        cells.setdefault((r["chunker"], r["mode"]), {})[r[axis]] = (
            f"{100 * r['complete']:.0f}% ({100 * r['partial']:.0f}%)"
        )
    return _table(
        ("chunker", "mode", *map(str, columns)),
        [(chunker, mode, *(by[v] for v in columns)) for (chunker, mode), by in cells.items()],
        left=2,
    )


def _sweep_table(result: SweepResult, corpus: Corpus, size: int, budget: int) -> str:
    c = result.config
    sizes = sorted({r["size"] for r in result.rows})
    budgets = sorted({r["budget"] for r in result.rows})
    at_size, at_budget = _nearest(sizes, size), _nearest(budgets, budget)
    n = len(corpus.split(c.split))
    by_budget = _pivot(result, "budget", "size", at_size)
    by_size = _pivot(result, "size", "budget", at_budget)
    return (
        f"{corpus.name}: {question_count(n, c.split)}{_dense_note(c)}; "
        "cells are complete (partial) recall\n\n"
        f"By budget (words) at size {at_size} chars\n{by_budget}\n\n"
        f"By size (chars) at budget {at_budget} words\n{by_size}\n"
    )


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    output.write_text(text, encoding="utf-8")
    _say("note", f"wrote {output}")


def _cmd_run(args: argparse.Namespace) -> int:
    config = _config(args)
    corpus = _load(args)
    _warn_untrained(corpus, config.chunkers)
    _load_models(config, args.download)
    result = run_lab(corpus, config)
    if args.format == "json":
        text = json.dumps(result.to_dict(), indent=2) + "\n"
    elif args.format == "csv":
        text = result.metrics_frame().to_csv(index=False)
    else:
        text = _run_table(result, corpus)
    _emit(text, args.output)
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    config = _config(args, args.sizes)
    corpus = _load(args)
    _warn_untrained(corpus, config.chunkers)
    cluster, where = _sweep_client(args)
    if args.workers is None and args.scheduler is None:
        _load_models(config, args.download)  # a cluster's workers load their own
    live = sys.stderr.isatty()
    progress = _progress(sys.stderr, live, where) if live or args.progress else None
    with cluster as client:
        result = sweep(
            corpus, config, budgets=args.budgets, sizes=args.sizes, progress=progress, client=client
        )
    if args.format == "json":
        text = json.dumps(result.to_dict(), indent=2) + "\n"
    elif args.format == "csv":
        text = result.frame().to_csv(index=False)
    else:
        text = _sweep_table(result, corpus, args.size, args.budget)
    _emit(text, args.output)
    return 0


def _sides(args: argparse.Namespace) -> tuple[LabConfig, LabConfig]:
    """A: the corpus options changed by ``--a``; B: A changed by ``--b``."""
    base = _config(args)
    sides = []
    for flag, spec in (("--a", args.a), ("--b", args.b)):
        try:
            side = configure(sides[0] if sides else base, spec)
        except ValueError as exc:
            raise ValueError(f"{flag}: {exc}") from None
        for what, names in (("chunker", side.chunkers), ("mode", side.modes)):
            if len(names) != 1:
                raise ValueError(
                    f"{flag} must name one {what} ({what}=NAME), got {', '.join(names)}"
                )
        sides.append(side)
    return sides[0], sides[1]


def _compare_table(c: Comparison, corpus: Corpus) -> str:
    n = len(c.questions)
    changed = "; ".join(map(str, c.differences))
    rows = [
        (
            t.measure,
            f"{_pct(t.a.value)} ({_interval(t.a.low, t.a.high)})",
            f"{_pct(t.b.value)} ({_interval(t.b.low, t.b.high)})",
            f"{100 * t.difference:+.1f} ({100 * t.ci[0]:+.0f} to {100 * t.ci[1]:+.0f})",
            str(t.fixed),
            str(t.broken),
            str(t.kept),
            str(t.failed),
            p_text(t.p_value),
        )
        for t in (c.complete, c.partial)
    ]
    summary = _table(
        (
            "recall",
            "A (95% CI)",
            "B (95% CI)",
            "B - A points (95% CI)",
            "fixed",
            "broken",
            "both pass",
            "both fail",
            "p",
        ),
        rows,
        left=1,
    )
    questions = _table(
        ("question", "A", "B", "complete", "partial"),
        [(q.id, q.a, q.b, q.transition, q.partial_transition) for q in c.questions],
        left=5,
    )
    warning = f"Warning: {c.warning}\n" if c.warning else ""
    untrained = set(untrained_chunkers(corpus, c.a.chunkers + c.b.chunkers))

    def side(config: LabConfig) -> str:
        return label(config) + (" (untrained)" if config.chunkers[0] in untrained else "")

    return (
        f"{corpus.name}: {question_count(n, c.a.split)}\n"
        f"A: {side(c.a)}; {_settings_note(c.a)}\nB: {side(c.b)}\n"
        f"B differs from A in: {changed}\n{warning}\n"
        f"{summary}\n\n{c.verdict}\n\n"
        f"Ranking depth, A: {c.depth_a.advice}\nRanking depth, B: {c.depth_b.advice}\n\n"
        f"{questions}\n"
    )


def _cmd_compare(args: argparse.Namespace) -> int:
    a, b = _sides(args)
    args.split = a.split
    corpus = _load(args)
    _warn_untrained(corpus, a.chunkers + b.chunkers)
    for config in (a, b):
        _load_models(config, args.download)
    comparison = compare(corpus, a, b)
    if args.format == "json":
        text = json.dumps({"corpus": corpus.name, **comparison.to_dict()}, indent=2) + "\n"
    elif args.format == "csv":
        text = comparison.frame().to_csv(index=False)
    else:
        text = _compare_table(comparison, corpus)
    _emit(text, args.output)
    broken = [q.id for q in comparison.questions if q.transition == "broken"]
    if args.fail_on_broken and broken:
        _say("fail", f"B breaks {len(broken)} question(s) that A passed: {', '.join(broken)}")
        return 1
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    """Run ``benchmarks/run_all.py`` (the timing code lives there, not in the engine)."""
    runner = Path(__file__).resolve().parent.parent / "benchmarks" / "run_all.py"
    if not runner.is_file():
        raise ValueError(f"no benchmarks here: {runner} is missing (they come with the checkout)")
    flags = ["--quick"] * args.quick + ["--only", args.only] * bool(args.only)
    flags += ["--output", str(args.output)] * (args.output is not None)
    sys.stdout.flush()
    return subprocess.run([sys.executable, str(runner), *flags]).returncode


COMMANDS = {"run": _cmd_run, "sweep": _cmd_sweep, "compare": _cmd_compare, "bench": _cmd_bench}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 a broken question with
    ``compare --fail-on-broken``, 2 user error)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    try:
        return COMMANDS[args.command](args)
    except (CorpusError, ValueError) as exc:
        _say("error", str(exc))
    except (DenseUnavailable, DistributedUnavailable, SchedulerUnreachable) as exc:
        _say("error", str(exc).splitlines()[0])
    except ClusterError as exc:
        _say("error", str(exc).splitlines()[0])
        return 1
    except BrokenPipeError:
        # The reader went away (``| head``): silence the final flush, as the Python docs advise.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        _say("error", f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc))
    return 2
