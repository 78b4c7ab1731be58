"""Chroma's chunking_evaluation layout: ``questions_df.csv`` (question, references, corpus_id)
beside ``corpora/*.md``.

Each row's ``references`` is a JSON list of ``{"content", "start_index", "end_index"}``: offsets
in the characters of the corpus file as Python reads it in text mode (universal newlines, so
CRLF counts as one character). Each reference becomes evidence pinned at its ``start_index``
in the document its row's ``corpus_id`` names (a file stem, or a path whose stem it is).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import PurePosixPath

from ..jsonread import JsonError, loads
from ..problems import InputError
from .base import Imported, named, text_of

QUESTIONS = "questions_df.csv"
COLUMNS = ("question", "references", "corpus_id")


def recognise(files: Mapping[str, bytes]) -> bool:
    return named(files, QUESTIONS) is not None


def read(files: Mapping[str, bytes], documents: Mapping[str, str]) -> Imported:
    """The corpora (every ``.md``/``.txt`` file but the CSV, by stem; ``documents`` join them)
    and one question per CSV row, its references pinned at their ``start_index``."""
    table = named(files, QUESTIONS)
    if table is None:
        raise ValueError(f"no {QUESTIONS} among the files: this is not Chroma's layout")
    corpora = dict(documents)
    for path in files:
        if path != table and PurePosixPath(path).suffix.lower() in (".md", ".txt"):
            corpora[PurePosixPath(path).stem] = _universal(text_of(files, path))
    rows = list(csv.DictReader(io.StringIO(text_of(files, table), newline="")))
    missing = [c for c in COLUMNS if rows and c not in rows[0]]
    if missing:
        raise ValueError(
            f"{table} has no column {', '.join(missing)} (it needs {', '.join(COLUMNS)})"
        )
    questions, problems = [], []
    width = len(str(len(rows)))
    for k, row in enumerate(rows, start=1):
        qid = f"q{k:0{width}d}"
        doc = PurePosixPath(str(row["corpus_id"])).stem
        if doc not in corpora:
            problems.append(
                InputError(f"corpus_id {row['corpus_id']!r} names no corpus file; left out", qid)
            )
            continue
        try:
            references = loads(row["references"], "its references")[0]
        except JsonError as exc:
            problems.append(InputError(f"{exc}".rstrip(".") + "; left out", qid))
            continue
        evidence = [
            {"text": r.get("content"), "start": r.get("start_index"), "doc": doc}
            for r in references
            if isinstance(r, dict)
        ]
        questions.append({"id": qid, "question": row["question"], "doc": doc, "evidence": evidence})
    return Imported("chroma", corpora, tuple(questions), tuple(problems))


def _universal(text: str) -> str:
    """``text`` as Python's text mode reads a file: CRLF and lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")
