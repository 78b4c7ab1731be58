"""The command line: ``python -m lab run | sweep | compare | bench``.

User errors (missing or unreadable files, invalid JSON, unknown chunkers or settings, bad sizes,
an embedding model or reranker that cannot be loaded) print one line ``error: ...`` to stderr and
exit with status 2; problems with single questions print ``warning: <id>: ...`` and the valid
questions still run. ``compare --fail-on-broken`` exits with status 1 when B breaks a question
that A passed, so a change can be gated in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from . import (
    CHUNKERS,
    DEFAULT_CHUNKERS,
    LEXICAL_MODES,
    MODES,
    SPLITS,
    Comparison,
    Corpus,
    CorpusError,
    LabConfig,
    compare,
    configure,
    leaders,
    load_corpus,
    run_lab,
    setting_names,
    sweep,
)
from .bench import run_all
from .compare import label, p_text
from .embed import DEFAULT_MODEL, DenseUnavailable
from .rerank import DEFAULT_RERANKER, can_download, reranker_status
from .run import DEFAULT_BUDGETS, DEFAULT_SIZES, LabResult, SweepResult, embedder_for, reranker_for

DATA = Path(__file__).resolve().parent.parent / "data"
DEFAULT_DOC = DATA / "handbook.md"
DEFAULT_QE = DATA / "handbook_qe.json"
FORMATS = ("table", "json", "csv")
MODE_CHOICES = {"both": LEXICAL_MODES, "all": MODES} | {m: (m,) for m in MODES}
ALL = "all"
DEFAULTS = LabConfig()


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


def _add_experiment_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--doc",
        action="append",
        type=Path,
        metavar="PATH",
        help="document (markdown or text, UTF-8); repeat for several "
        "(default: the bundled handbook)",
    )
    p.add_argument(
        "--qe",
        type=Path,
        metavar="PATH",
        help="question-evidence JSON (default with the bundled handbook: its questions)",
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
        "--no-refs",
        dest="resolve_refs",
        action="store_false",
        help="no reference text in structure chunks, no reference edges in the graph",
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
    bench = commands.add_parser("bench", help="time the engine (see benchmarks/)")
    bench.add_argument(
        "--quick", action="store_true", help="tiny sizes and few repeats: a smoke run"
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
    chosen = args.chunker or [DEFAULT_CHUNKERS]
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
        resolve_refs=args.resolve_refs,
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


def _load(args: argparse.Namespace) -> Corpus:
    """The corpus of ``--doc``/``--qe`` (the bundled handbook by default), its problems reported.

    Raises ``ValueError`` when no question of the split can run."""
    if args.doc is None:
        docs, qe = [DEFAULT_DOC], args.qe or DEFAULT_QE
    elif args.qe is None:
        raise ValueError(
            "--qe PATH is required with --doc: the bundled questions belong to the bundled handbook"
        )
    else:
        docs, qe = args.doc, args.qe
    stems = [p.stem for p in docs]
    if len(set(stems)) < len(stems):
        raise ValueError(
            f"two --doc files share a name ({', '.join(stems)}); documents are named by file stem"
        )
    corpus = load_corpus(list(docs), qe)
    fatal = not corpus.questions
    whole_file = [e for e in corpus.errors if e.question is None]
    if fatal and whole_file:
        raise ValueError(f"{qe}: {whole_file[0].message}")
    for e in corpus.errors:
        _say("error" if fatal else "warning", f"{e.question or qe}: {e.message}")
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


def _progress(stream, live: bool) -> Callable[[int, int], None]:
    def report(done: int, total: int) -> None:
        end = "\n" if not live or done == total else "\r"
        stream.write(f"sweep: {done}/{total} indexes (size x chunker){end}")
        stream.flush()

    return report


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


def _run_table(result: LabResult, corpus: Corpus) -> str:
    c = result.config
    n = len(corpus.split(c.split))
    title = (
        f"{corpus.name}: {n} {c.split} question{'s' * (n != 1)}, "
        f"size {c.size} chars, budget {c.budget} words, "
        f"headers {_on(c.headers)}, references {_on(c.resolve_refs)}{_dense_note(c)}"
    )
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
        ),
        [
            (
                r.chunker,
                r.mode,
                _pct(m.partial),
                _pct(m.complete),
                _interval(*m.complete_ci),
                _pct(m.gap),
                f"{m.mean_context_words:.1f}",
                f"{m.mean_chunks:.2f}",
                f"{m.mrr:.3f}",
            )
            for r in result.runs
            for m in [r.metrics]
        ],
        left=2,
    )
    seen: dict[str, object] = {}
    for r in result.runs:
        seen.setdefault(r.chunker, r.index)
    index = _table(
        (
            "chunker",
            "chunks",
            "mean chars",
            "max chars",
            "index/doc",
            "evidence intact",
            "heading starts",
            "over size",
            "over budget",
            "objective",
        ),
        [
            (
                name,
                str(s.chunks),
                f"{s.mean_chars:.0f}",
                str(s.max_chars),
                f"{s.index_ratio:.2f}",
                _pct(s.evidence_intact),
                _pct(s.heading_starts),
                str(s.over_size),
                str(s.over_budget),
                "-" if s.objective is None else f"{s.objective:.2f}",
            )
            for name, s in seen.items()
        ],
        left=1,
    )
    index_title = f"Index statistics (over budget: longer than {c.budget} words)"
    top = leaders(result)
    best = f"Best complete recall {top.summary()}.\n" if top and len(result.runs) > 1 else ""
    return f"{title}\n\n{metrics}\n{best}\n{index_title}\n{index}\n"


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
        f"{corpus.name}: {n} {c.split} questions{_dense_note(c)}; "
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
    _load_models(config, args.download)
    live = sys.stderr.isatty()
    progress = _progress(sys.stderr, live) if live or args.progress else None
    result = sweep(corpus, config, budgets=args.budgets, sizes=args.sizes, progress=progress)
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
    return (
        f"{corpus.name}: {n} {c.a.split} question{'s' * (n != 1)}\n"
        f"A: {label(c.a)}\nB: {label(c.b)}\nB differs from A in: {changed}\n{warning}\n"
        f"{summary}\n\n{c.verdict}\n\n"
        f"Ranking depth, A: {c.depth_a.advice}\nRanking depth, B: {c.depth_b.advice}\n\n"
        f"{questions}\n"
    )


def _cmd_compare(args: argparse.Namespace) -> int:
    a, b = _sides(args)
    args.split = a.split
    corpus = _load(args)
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
    report = run_all(quick=args.quick, log=lambda m: _say("bench", m))
    _emit(report.format(), args.output)
    return 0


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
    except DenseUnavailable as exc:
        _say("error", str(exc).splitlines()[0])
    except BrokenPipeError:
        # The reader went away (``| head``): silence the final flush, as the Python docs advise.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        _say("error", f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc))
    return 2
