"""What every command shares: the argument parser's types, the experiment options, the
configuration and corpus they describe, and how messages and output are written."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import (
    CHUNKERS,
    DEFAULT_CHUNKERS,
    DOCUMENT_TYPES,
    LEXICAL_MODES,
    MODES,
    POLICY_CHUNKER,
    REFERENCE_PLACEMENTS,
    SPLITS,
    Corpus,
    CorpusError,
    LabCache,
    LabConfig,
    decode_text,
    json_or_none,
    load_collection,
    load_corpus,
    memory_over_budget,
    parents_over_budget,
    training_warning,
    untrained_chunkers,
)
from ..adaptive import ADAPTIVE
from ..chunkers import chunker_status
from ..config import embedder_for, reranker_for
from ..embed import DEFAULT_MODEL, DenseUnavailable
from ..formats import check_parser
from ..plugins import CONFIG_ENV, config_path, load_config, load_plugin
from ..rerank import DEFAULT_RERANKER, can_download, reranker_status
from ..tokens import get_tokenizer

DATA = Path(__file__).resolve().parents[2] / "data"
DEFAULT_DOC = DATA / "handbook.md"
DEFAULT_QE = DATA / "handbook_qe.json"
FORMATS = ("table", "json", "csv")
MODE_CHOICES = {"both": LEXICAL_MODES, "all": MODES} | {m: (m,) for m in MODES}
ALL = "all"
ADAPTERS = "adapters"
DEFAULTS = LabConfig()
PARENT_CHILD = "parent-child"


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one ``error: ...`` line and exit status 2."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see '{self.prog} --help')\n")


def chunker_list(value: str) -> tuple[str, ...]:
    names = [n.strip() for n in value.split(",") if n.strip()]
    if names in ([ALL], [ADAPTERS]):
        return tuple(names)
    unknown = [n for n in names if n not in CHUNKERS]
    if unknown or not names:
        got = repr(unknown[0]) if unknown else "nothing"
        raise argparse.ArgumentTypeError(
            f"unknown chunker {got}; choose 'all', 'adapters' or a comma list of "
            f"{', '.join(CHUNKERS)}"
        )
    return tuple(names)


def add_pipeline_options(p: argparse.ArgumentParser) -> None:
    """``--plugin`` and ``--config``: chunkers the user brings. They are registered before the
    rest of the command line is read (:func:`register_pipelines`), so ``--chunker`` knows them."""
    p.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE:FUNCTION",
        help="add FUNCTION(text, size, overlap) of MODULE as a chunker named after it; repeat "
        "for several",
    )
    p.add_argument(
        "--config",
        metavar="PATH",
        help=f"a chunking-lab.toml naming pipelines ([chunkers.NAME] adapter, size, overlap, "
        f"tokenizer) and plugins (default: the file ${CONFIG_ENV} names)",
    )


def register_pipelines(argv: Sequence[str]) -> None:
    """Register the plugins and the configuration file the command line (or the environment)
    names; each one that cannot be added is one warning, the others are."""
    pre = argparse.ArgumentParser(add_help=False)
    add_pipeline_options(pre)
    pre.add_argument("--download", action="store_true")
    known, _ = pre.parse_known_args(argv)
    for spec in known.plugin:
        try:
            load_plugin(spec)
        except ValueError as err:
            say("warning", str(err))
    path = config_path(known.config)
    if path is None:
        return
    _, problems = load_config(path, known.download)
    for problem in problems:
        say("warning", problem)


def int_list(value: str) -> tuple[int, ...]:
    try:
        numbers = tuple(int(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated whole numbers, got {value!r}"
        ) from None
    if not numbers:
        raise argparse.ArgumentTypeError("expected at least one number")
    return numbers


def type_pair(value: str) -> tuple[str, str]:
    name, sep, doc_type = value.partition("=")
    if not sep or not name.strip() or not doc_type.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=TYPE, got {value!r}")
    return name.strip(), doc_type.strip()


def positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value!r}")
    return number


def add_parser_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--parser",
        type=parser_setting,
        default=None,
        help="how formats with several readings are read: HTML's main content (main, the "
        "default) or the whole page (page); PDF with pypdf (pypdf, the default) or pdfminer's "
        "layout analysis (layout); one per format joined by commas (page,layout)",
    )


def parser_setting(value: str) -> str:
    """A ``--parser`` value: known readings, at most one per format."""
    try:
        return check_parser(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_experiment_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--doc",
        action="append",
        type=Path,
        metavar="PATH",
        help="document (markdown, text, reStructuredText or HTML, UTF-8); repeat for several "
        "(default: the bundled handbook)",
    )
    add_parser_option(p)
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
        type=type_pair,
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
        type=chunker_list,
        metavar="NAME[,NAME...]|all|adapters",
        help=f"chunkers to run, of {', '.join(CHUNKERS)} (default: {', '.join(DEFAULT_CHUNKERS)}; "
        "all: every one but the other libraries' (adapters: those), the ones needing "
        "embeddings only with --dense)",
    )
    p.add_argument(
        "--tokenizer",
        metavar="NAME",
        help="count chunk size, overlap and budget in tokens of NAME: all-MiniLM-L6-v2 (bundled), "
        "cl100k_base or o200k_base (tiktoken, files local), a folder with a tokenizer.json, or "
        "a Hugging Face hub name (cached, or with --download)",
    )
    add_pipeline_options(p)
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
        type=budget_value,
        default=DEFAULTS.budget,
        metavar="N|adaptive",
        help=f"context budget in words (default {DEFAULTS.budget}), or adaptive: a budget per "
        f"question, one of {', '.join(map(str, DEFAULTS.adaptive_budgets))} (a sweep: one of "
        "--budgets), fitted on the train questions",
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
        "--heading-guard",
        action="store_true",
        help="qes-dp, qes-greedy and qes-retrieval never cut between a heading and its first "
        "unit (unless the two together are longer than --size)",
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
        help="allow fetching a hub reranker or tokenizer (or tiktoken's files) that is not on "
        "this machine",
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


def budget_value(text: str) -> int | str:
    """``--budget``: a whole number of words, or "adaptive"."""
    if text.strip().lower() == ADAPTIVE:
        return ADAPTIVE
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of words or {ADAPTIVE}, got {text!r}"
        ) from None


def experiment_config(args: argparse.Namespace, sizes: Sequence[int] = ()) -> LabConfig:
    """The experiment the options describe; a ``ValueError`` names a flag whose value is out of
    range."""
    smallest = min((args.size, *sizes))
    if smallest <= args.overlap:
        flag = "--size" if smallest == args.size else "--sizes"
        raise ValueError(f"{flag} {smallest} must be larger than --overlap {args.overlap}")
    if args.rerank_top < 1:
        raise ValueError(f"--rerank-top must be at least 1, got {args.rerank_top}")
    usable = [c for c in CHUNKERS if args.dense or not CHUNKERS[c].dense]
    groups = {
        (ALL,): [c for c in usable if CHUNKERS[c].kind != "adapter"],
        (ADAPTERS,): [c for c in usable if CHUNKERS[c].kind == "adapter" and chunker_status(c)[0]],
    }
    defaults = DEFAULT_CHUNKERS + (POLICY_CHUNKER,) * (args.collection is not None)
    chosen = args.chunker or [defaults]
    chunkers = tuple(dict.fromkeys(n for names in chosen for n in groups.get(names, names)))
    if args.tokenizer is not None:
        get_tokenizer(args.tokenizer, args.download)  # says now why it cannot be loaded
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
        heading_guard=args.heading_guard,
        overlap=args.overlap,
        dense=args.dense,
        late=args.late,
        rerank=args.rerank,
        rerank_top=args.rerank_top,
        tokenizer=args.tokenizer,
        parser=args.parser,
    )


def load_models(config: LabConfig, download: bool = False) -> None:
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


def say(level: str, message: str) -> None:
    """One ``level: message`` line on stderr. Characters a terminal would act on (escape
    sequences, line breaks, bidirectional controls) are printed escaped (``\\x1b``, ``\\n``),
    so an id or a question cannot recolour the terminal or forge an ``error:`` line."""
    print(f"{level}: {printable(message)}", file=sys.stderr)


def printable(text: str) -> str:
    """``text`` with every character that is not printable (``str.isprintable``; the space
    is) written as its Python escape."""
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() or c == " " else c.encode("unicode_escape").decode("ascii")
        for c in text
    )


def _read(args: argparse.Namespace) -> tuple[Corpus, Path | str]:
    """The corpus the options name, and where its questions come from."""
    if args.collection is not None:
        if args.doc is not None:
            raise ValueError(
                "--collection and --doc exclude each other: a manifest lists its documents"
            )
        if args.type:
            raise ValueError("--type goes with --doc; a manifest gives each document its type")
        corpus = load_collection(args.collection, args.qe, args.parser)
        return corpus, args.qe or args.collection
    if args.doc is None:
        if args.type:
            raise ValueError("--type names the type of a --doc document; give --doc too")
        corpus = load_corpus([DEFAULT_DOC], args.qe or DEFAULT_QE, parser=args.parser)
        return corpus, args.qe or DEFAULT_QE
    if args.qe is None:
        raise ValueError(
            "--qe PATH is required with --doc: the bundled questions belong to the bundled handbook"
        )
    stems = [p.stem for p in args.doc]
    if len(set(stems)) < len(stems):
        raise ValueError(
            f"two --doc files share a name ({', '.join(stems)}); documents are named by file stem"
        )
    return load_corpus(list(args.doc), args.qe, dict(args.type), args.parser), args.qe


def load_corpus_of(args: argparse.Namespace) -> Corpus:
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
        say("error" if fatal and e.severity == "error" else "warning", f"{where}: {e.message}")
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


def warn_memory(corpus: Corpus, sizes: Sequence[int]) -> None:
    """One warning line when an index at the smallest of ``sizes`` would pass the memory budget
    (``CHUNKING_LAB_MEMORY_MB``); the command still runs: this machine is the user's own."""
    problem = memory_over_budget([d.text for d in corpus.documents], min(sizes))
    if problem:
        say("warning", problem[0].upper() + problem[1:])


def warn_training(
    corpus: Corpus, split: str, chunkers: Sequence[str], adaptive: bool = False
) -> None:
    """One warning line when a supervised chunker (or the adaptive budget) is scored on its own
    train questions."""
    warning = training_warning(corpus, split, chunkers, adaptive)
    if warning:
        say("warning", warning)


def warn_parents(corpus: Corpus, config: LabConfig, cache: LabCache) -> None:
    """One warning line when parent-child delivers parents that never fit the budget (its
    index is the one the run built, from ``cache``)."""
    if PARENT_CHILD not in config.chunkers:
        return
    index = cache.index(corpus, config, PARENT_CHILD)
    size_unit = "characters" if index.tokenizer is None else index.unit
    warning = parents_over_budget(index.words, config.size, config.words, index.unit, size_unit)
    if warning:
        say("warning", warning)


def warn_untrained(corpus: Corpus, chunkers: Sequence[str]) -> None:
    """One warning line when a supervised chunker has no train question to learn from."""
    names = untrained_chunkers(corpus, dict.fromkeys(chunkers))
    if names:
        verb = "has" if len(names) == 1 else "have"
        say(
            "warning",
            f"{' and '.join(names)} {verb} no train questions to learn from and run untrained "
            '(marked "(untrained)"): give some questions "split": "train"',
        )


def emit(text: str, output: Path | None) -> None:
    """``text`` to stdout, or to ``output`` whole or not at all: written to a temporary file
    beside it, then renamed over it, so a full disk, a size limit or a kill mid-write leaves
    any earlier result as it was."""
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_atomically(output, text.encode("utf-8"))
    say("note", f"wrote {output}")


def write_atomically(path: Path, data: bytes) -> None:
    """``data`` as the content of ``path``, replacing it in one rename (POSIX ``rename(2)``
    is atomic within a folder); the temporary file is removed when writing fails."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
    try:
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


INPUT_OPTIONS = ("doc", "qe", "collection", "source")
OUTPUT_OPTIONS = ("output", "out")


def refuse_overwriting_inputs(args: argparse.Namespace) -> None:
    """ValueError when ``--output`` (``--out``) names a file the command reads: a document,
    the questions, a manifest or a file it lists."""
    outputs = [getattr(args, name, None) for name in OUTPUT_OPTIONS]
    outputs = [o for o in outputs if isinstance(o, Path)]
    if not outputs:
        return
    inputs: list[Path] = []
    for name in INPUT_OPTIONS:
        value = getattr(args, name, None)
        inputs += [v for v in (value if isinstance(value, list) else [value]) if v is not None]
    collection = getattr(args, "collection", None)
    if collection is not None:
        inputs += listed_files(collection)
    for output in outputs:
        for given in inputs:
            if _same_file(output, given):
                option = "--out" if output is getattr(args, "out", None) else "--output"
                raise ValueError(
                    f"{option} {output} names an input file ({given}): writing there would "
                    "overwrite it; choose another file"
                )


def listed_files(manifest: Path) -> list[Path]:
    """The files a manifest names (documents and questions), beside it; none when it cannot
    be read (its reader reports why)."""
    try:
        raw = json_or_none(decode_text(manifest.read_bytes(), str(manifest)))
    except (OSError, CorpusError):
        return []
    if not isinstance(raw, dict):
        return []
    items = raw.get("documents") if isinstance(raw.get("documents"), list) else []
    paths = [i.get("path") if isinstance(i, dict) else i for i in items]
    paths.append(raw.get("questions"))
    return [manifest.parent / p for p in paths if isinstance(p, str)]


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except (OSError, RuntimeError):
        return False
