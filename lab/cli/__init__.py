"""The command line: ``python -m lab run | sweep | compare | bench | import | generate |
outline``.

User errors (missing or unreadable files, invalid JSON, unknown chunkers or settings, bad sizes,
an embedding model or reranker that cannot be loaded) print one line ``error: ...`` to stderr and
exit with status 2; problems with single questions print ``warning: <id>: ...`` and the valid
questions still run. ``compare --fail-on-broken`` exits with status 1 when B breaks a question
that A passed, so a change can be gated in CI. ``sweep --workers N`` and ``sweep --scheduler
ADDRESS`` run the sweep on a Dask cluster (:mod:`lab.cluster`); without dask and distributed
installed they exit with status 2 and the install command, and a cluster that fails mid-sweep
exits with status 1.

Each command is one module with a ``register(commands)`` that adds its subparser and sets its
``handler``; :data:`COMMANDS` lists them in the order ``--help`` shows them.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..cluster import ClusterError, DistributedUnavailable, SchedulerUnreachable
from ..embed import DenseUnavailable
from ..problems import CorpusError
from . import bench, compare, generate, importing, outline, runs
from .common import Parser, refuse_overwriting_inputs, register_pipelines, say

COMMANDS = (runs, compare, bench, importing, generate, outline)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="python -m lab",
        description="Chunking Lab: complete- vs partial-evidence recall of RAG chunkers.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(commands)
    commands.metavar = "{" + ",".join(commands.choices) + "}"
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 a broken question with
    ``compare --fail-on-broken``, 2 user error)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        register_pipelines(argv)
    except ValueError as exc:
        say("error", str(exc))
        return 2
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    try:
        refuse_overwriting_inputs(args)
        return args.handler(args)
    except (CorpusError, ValueError) as exc:
        say("error", str(exc))
    except (DenseUnavailable, DistributedUnavailable, SchedulerUnreachable) as exc:
        say("error", str(exc).splitlines()[0])
    except ClusterError as exc:
        say("error", str(exc).splitlines()[0])
        return 1
    except BrokenPipeError:
        # The reader went away (``| head``): silence the final flush, as the Python docs advise.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        say("error", f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc))
    return 2
