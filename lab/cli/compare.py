"""``compare``: two configurations on the same questions, what B fixed or broke and whether the
difference is real; ``--fail-on-broken`` gates a change in CI."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from .. import LabConfig, compare, configure, csv_text, setting_names
from ..formats import parser_label
from .common import (
    add_experiment_options,
    emit,
    experiment_config,
    load_corpus_of,
    load_models,
    parser_setting,
    say,
    warn_memory,
    warn_training,
    warn_untrained,
)
from .tables import compare_table


def register(commands) -> None:
    """Add the command to ``commands``, what ``ArgumentParser.add_subparsers`` returned."""
    compare_ = commands.add_parser(
        "compare",
        help="two configurations on the same questions: what B fixed or broke, and whether "
        "the difference is real",
        description="Compare configuration A with B question by question. The corpus options "
        "set what A and B share; --a changes A, --b changes B from A. Settings: "
        + ", ".join(setting_names()),
    )
    add_experiment_options(compare_)
    compare_.add_argument(
        "--a",
        default="",
        metavar="NAME=VALUE,...",
        help="A's settings, e.g. chunker=structure,mode=flat (one chunker and one mode)",
    )
    compare_.add_argument(
        "--b",
        default=None,
        metavar="NAME=VALUE,...",
        help="B's settings where they differ from A, e.g. mode=graph (needed unless "
        "--b-parser is given)",
    )
    compare_.add_argument(
        "--b-parser",
        type=parser_setting,
        default=None,
        metavar="READING",
        help="B reads the documents with this parser (as --parser: main or page for HTML, "
        "pypdf or layout for PDF, one per format joined by commas), A with --parser; questions "
        "then match by id",
    )
    compare_.add_argument(
        "--fail-on-broken",
        action="store_true",
        help="exit with status 1 when B breaks a question that A passed (complete recall)",
    )
    compare_.set_defaults(handler=_cmd_compare)


def _sides(args: argparse.Namespace) -> tuple[LabConfig, LabConfig]:
    """A: the corpus options changed by ``--a``; B: A changed by ``--b``."""
    base = experiment_config(args)
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


def _b_reading(args: argparse.Namespace, corpus, b: LabConfig) -> LabConfig:
    """B reading the documents with ``--b-parser`` (when given); ``ValueError`` when no
    document has several readings."""
    if args.b_parser is None:
        return b
    if not parser_label(args.b_parser, frozenset(info.format for info in corpus.info)):
        raise ValueError(
            f"--b-parser {args.b_parser}: no document here has several readings "
            "(only HTML and PDF documents have)"
        )
    return replace(b, parser=args.b_parser)


def _cmd_compare(args: argparse.Namespace) -> int:
    if args.b is None and args.b_parser is None:
        raise ValueError("give B's settings (--b NAME=VALUE,...) or B's parser (--b-parser)")
    args.b = args.b or ""
    a, b = _sides(args)
    args.split = a.split
    corpus = load_corpus_of(args)
    warn_memory(corpus, [a.size, b.size])
    warn_untrained(corpus, a.chunkers + b.chunkers)
    warn_training(corpus, a.split, a.chunkers + b.chunkers, a.adaptive or b.adaptive)
    for config in (a, b):
        load_models(config, args.download)
    comparison = compare(corpus, a, _b_reading(args, corpus, b))
    if args.format == "json":
        text = json.dumps({"corpus": corpus.name, **comparison.to_dict()}, indent=2) + "\n"
    elif args.format == "csv":
        text = csv_text(comparison.frame())
    else:
        text = compare_table(comparison, corpus)
    emit(text, args.output)
    broken = [q.id for q in comparison.questions if q.transition == "broken"]
    if args.fail_on_broken and broken:
        say("fail", f"B breaks {len(broken)} question(s) that A passed: {', '.join(broken)}")
        return 1
    return 0
