"""``compare``: two configurations on the same questions, what B fixed or broke and whether the
difference is real; ``--fail-on-broken`` gates a change in CI."""

from __future__ import annotations

import argparse
import json

from .. import LabConfig, compare, configure, csv_text, setting_names
from .common import (
    add_experiment_options,
    emit,
    experiment_config,
    load_corpus_of,
    load_models,
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
        required=True,
        metavar="NAME=VALUE,...",
        help="B's settings where they differ from A, e.g. mode=graph",
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


def _cmd_compare(args: argparse.Namespace) -> int:
    a, b = _sides(args)
    args.split = a.split
    corpus = load_corpus_of(args)
    warn_memory(corpus, [a.size, b.size])
    warn_untrained(corpus, a.chunkers + b.chunkers)
    warn_training(corpus, a.split, a.chunkers + b.chunkers, a.adaptive or b.adaptive)
    for config in (a, b):
        load_models(config, args.download)
    comparison = compare(corpus, a, b)
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
