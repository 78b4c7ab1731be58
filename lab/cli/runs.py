"""``run``: score chunkers x modes at one size and budget; ``sweep``: recall over the budget x
size grid, here or on a Dask cluster."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

from .. import LabCache, csv_text, run_lab, scored_on_training, sweep
from ..cluster import DistributedUnavailable, connected, distributed_status, local_cluster
from ..config import DEFAULT_BUDGETS, DEFAULT_SIZES
from ..training import MARK
from .common import (
    DEFAULTS,
    add_experiment_options,
    emit,
    experiment_config,
    int_list,
    load_corpus_of,
    load_models,
    positive_int,
    say,
    warn_memory,
    warn_parents,
    warn_training,
    warn_untrained,
)
from .tables import run_table, sweep_table

BAR_WIDTH = 30


def register(commands) -> None:
    """Add the command to ``commands``, what ``ArgumentParser.add_subparsers`` returned."""
    run = commands.add_parser("run", help="score chunkers x modes at one size and budget")
    add_experiment_options(run)
    run.set_defaults(handler=_cmd_run)
    sweep_ = commands.add_parser("sweep", help="recall over the budget x size grid")
    add_experiment_options(sweep_)
    sweep_.add_argument(
        "--budgets",
        type=int_list,
        default=DEFAULT_BUDGETS,
        metavar="N,N,...",
        help=f"budgets in words (default {','.join(map(str, DEFAULT_BUDGETS))})",
    )
    sweep_.add_argument(
        "--sizes",
        type=int_list,
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
        type=positive_int,
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
    sweep_.set_defaults(handler=_cmd_sweep)


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


def _cmd_run(args: argparse.Namespace) -> int:
    config = experiment_config(args)
    corpus = load_corpus_of(args)
    warn_memory(corpus, [config.size])
    warn_untrained(corpus, config.chunkers)
    warn_training(corpus, config.split, config.chunkers, config.adaptive)
    load_models(config, args.download)
    cache = LabCache()
    result = run_lab(corpus, config, cache=cache)
    warn_parents(corpus, config, cache)
    for failed in result.errors[len(corpus.errors) :]:
        say("warning", failed.message)
    ran = dict.fromkeys(r.chunker for r in result.runs)
    notes = {c: cache.index(corpus, config, c).notes for c in ran}
    for chunker, rewritten in notes.items():
        if rewritten:
            say(
                "note",
                f"{chunker}: {len(rewritten)} chunks differ from the document's text (the "
                "library rewrote them); each is delivered as its source range: "
                f"{rewritten[0]}" + (" (all of them in the JSON)" if len(rewritten) > 1 else ""),
            )
    if args.format == "json":
        data = result.to_dict()
        for run in data["runs"]:
            run["rewritten"] = list(notes[run["chunker"]])
        marked = scored_on_training(corpus, config.split, config.chunkers, config.adaptive)
        for run in data["runs"]:
            if run["chunker"] in marked:
                run[MARK.replace(" ", "_")] = True  # "scored_on_training_data"
        text = json.dumps(data, indent=2) + "\n"
    elif args.format == "csv":
        text = csv_text(result.metrics_frame())
    else:
        text = run_table(result, corpus)
    emit(text, args.output)
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    config = experiment_config(args, args.sizes)
    corpus = load_corpus_of(args)
    warn_memory(corpus, args.sizes or DEFAULT_SIZES)
    warn_untrained(corpus, config.chunkers)
    warn_training(corpus, config.split, config.chunkers, config.adaptive)
    cluster, where = _sweep_client(args)
    if args.workers is None and args.scheduler is None:
        load_models(config, args.download)  # a cluster's workers load their own
    live = sys.stderr.isatty()
    progress = _progress(sys.stderr, live, where) if live or args.progress else None
    with cluster as client:
        result = sweep(
            corpus, config, budgets=args.budgets, sizes=args.sizes, progress=progress, client=client
        )
    if args.format == "json":
        text = json.dumps(result.to_dict(), indent=2) + "\n"
    elif args.format == "csv":
        text = csv_text(result.frame())
    else:
        at = config.budget if not config.adaptive else DEFAULTS.budget  # the fixed slice shown
        text = sweep_table(result, corpus, args.size, at)
    emit(text, args.output)
    return 0
