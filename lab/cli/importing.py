"""``import``: a question set in another tool's format (Chroma's chunking_evaluation, SQuAD,
ragas, parallel lists / BEIR) written as a collection the lab runs on."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from ..collection import read_manifest
from ..importers import FORMATS, import_dataset, read_files, recognise, train_share
from ..importers.squad import BY
from ..importers.writer import write_collection
from ..problems import CorpusError
from .common import say


def register(commands) -> None:
    """Add the command to ``commands``, what ``ArgumentParser.add_subparsers`` returned."""
    p = commands.add_parser(
        "import",
        help="write another tool's question set as a collection (manifest, documents, QE)",
        description="Read a question set in another tool's format and write it as a collection: "
        "OUT/collection.json, the documents and OUT/questions.json. Evidence is checked like "
        "the loader checks it; a question whose evidence is not in its document is reported "
        "and left out.",
    )
    p.add_argument(
        "format",
        choices=(*FORMATS, "auto"),
        help="chroma: questions_df.csv and corpora/*.md; squad: SQuAD v1.1/v2.0 JSON; ragas: "
        "a test set (CSV or JSON) with user_input and reference_contexts; lists: corpus, "
        "questions and relevant passages as lists, or BEIR's corpus/queries/qrels; auto: "
        "recognise it",
    )
    p.add_argument("source", type=Path, metavar="SRC", help="the dataset: a file or a folder")
    p.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="the folder to write (new)"
    )
    p.add_argument(
        "--doc",
        action="append",
        type=Path,
        default=[],
        metavar="PATH",
        help="a document the questions are about (ragas: where its reference contexts are "
        "looked for); repeat for several",
    )
    p.add_argument(
        "--collection",
        type=Path,
        metavar="MANIFEST",
        help="the documents a collection manifest lists, instead of --doc",
    )
    p.add_argument(
        "--by",
        choices=BY,
        default=BY[0],
        help="squad: one document per context (default) or per article, its paragraphs joined",
    )
    p.add_argument(
        "--train",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="mark this share of the questions as train questions, the same ones on every run "
        "(default 0: all test)",
    )
    p.add_argument("--name", metavar="TITLE", help="the collection's name (default: the format)")
    p.set_defaults(handler=_cmd_import)


def _cmd_import(args: argparse.Namespace) -> int:
    files = read_files(args.source)
    format = args.format
    if format == "auto":
        format = recognise(files)
        if format is None:
            raise ValueError(
                f"{args.source} is in none of the formats {', '.join(FORMATS)}: name one"
            )
        say("note", f"{args.source} reads as {format}")
    options = {"by": args.by} if format == "squad" else {}
    imported = import_dataset(format, files, documents_of(args.doc, args.collection), **options)
    for e in imported.problems:
        say("warning", f"{e.question or e.document or args.source}: {e.message}")
    if not imported.questions:
        raise ValueError(f"no question of {args.source} could be used (see above)")
    if args.train:
        imported = replace(imported, questions=tuple(train_share(imported.questions, args.train)))
    manifest = write_collection(imported, args.out, args.name)
    left = len({e.question for e in imported.problems if e.question and e.severity == "error"})
    say(
        "note",
        f"imported {len(imported.questions)} question(s) over {len(imported.documents)} "
        f"document(s){f'; {left} left out' if left else ''}: wrote {manifest}",
    )
    return 0


def documents_of(paths: list[Path], collection: Path | None) -> dict[str, bytes]:
    """The documents ``--doc`` paths (by stem) or a ``--collection`` manifest (by its names)
    give, as their bytes."""
    if collection is not None:
        if paths:
            raise ValueError("--collection and --doc exclude each other")
        if not collection.is_file():
            raise CorpusError(f"No such collection manifest: {collection}")
        base = collection.parent
        listed = read_manifest(
            collection.read_bytes(),
            lambda p: (base / p).read_bytes() if (base / p).is_file() else None,
            collection.name,
            questions=False,
        )
        for e in listed.errors:
            say("warning", e.message)
        return {s.name: s.data for s in listed.sources}
    documents = {}
    for path in paths:
        if not path.is_file():
            raise CorpusError(f"No such document file: {path}")
        documents[path.stem] = path.read_bytes()
    return documents
