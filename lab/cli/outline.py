"""``outline``: each document's structure as the lab reads it (its format and headings), so a
user sees whether the structure was read right before chunking on it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .. import CorpusError, decode_text, document_format, outline, read_document
from ..decode import normalise_newlines
from ..formats import binary_format, read_binary
from .common import add_parser_option, say

OUTLINE_FORMATS = ("table", "json")


def register(commands) -> None:
    """Add the command to ``commands``, what ``ArgumentParser.add_subparsers`` returned."""
    p = commands.add_parser(
        "outline", help="print each document's headings as the lab reads them (level, start)"
    )
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="documents to read")
    p.add_argument(
        "--format",
        choices=OUTLINE_FORMATS,
        default="table",
        help='table (default) or json: [{"name", "format", "headings": [{"level", "title", '
        '"start"}]}], start an offset into the text the lab reads',
    )
    add_parser_option(p)
    p.set_defaults(handler=_cmd_outline)


def read_outline(path: Path, parser: str | None = None) -> dict:
    """The outline of the document at ``path``: its name, format and headings."""
    data = path.read_bytes()
    format = binary_format(path.name, data)
    if format is not None:
        document = read_binary(data, path.name, format, parser)
    else:
        text, _ = normalise_newlines(decode_text(data, f"Document {path.name!r}"))
        format = document_format(path.name, text)
        document = read_document(text, path.name, format, parser)
    return {"name": path.name, "format": format, "headings": outline(document)}


def _table(entry: dict) -> str:
    lines = [f"{entry['name']} ({entry['format']}, {len(entry['headings'])} headings)"]
    for h in entry["headings"]:
        lines.append(f"  {h['start']:>8}  {'  ' * (h['level'] - 1)}{'#' * h['level']} {h['title']}")
    return "\n".join(lines)


def _cmd_outline(args: argparse.Namespace) -> int:
    """Print the outlines; a document that cannot be read is named with the reason and left out
    (status 2 when any was)."""
    entries, failed = [], 0
    for path in args.paths:
        try:
            entries.append(read_outline(path, args.parser))
        except (OSError, CorpusError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            say("error", f"{path}: {reason}; it was left out")
            failed += 1
    if args.format == "json":
        print(json.dumps(entries, indent=2, ensure_ascii=False))
    else:
        print("\n\n".join(map(_table, entries)))
    return 2 if failed else 0
