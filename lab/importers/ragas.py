"""A ragas test set: rows with ``user_input`` (the question) and ``reference_contexts`` (the
passages it was written from), as CSV (``Testset.to_pandas().to_csv()``, the lists written as
Python literals) or JSON / JSON lines; ragas 0.1's ``question`` and ``contexts`` columns too.

The documents are the user's own (``--doc``, ``--collection``, or uploaded beside the file):
each reference context is looked for in every one of them. The ``<1-hop>`` markers ragas puts
before the contexts of a multi-hop question are not part of the text and are dropped.
"""

from __future__ import annotations

import ast
import csv
import io
import re
from collections.abc import Mapping
from pathlib import PurePosixPath

from ..problems import InputError
from .base import Imported, json_records, text_of

QUESTION = ("user_input", "question")
CONTEXTS = ("reference_contexts", "contexts", "ground_truth_contexts")
HOP = re.compile(r"\A\s*<\d+-hop>\s*")
DOCUMENTS = (".md", ".markdown", ".txt", ".html", ".htm")


def recognise(files: Mapping[str, bytes]) -> bool:
    return any(_is_testset(path, data) for path, data in files.items())


def _is_testset(path: str, data: bytes) -> bool:
    suffix = PurePosixPath(path).suffix.lower()
    head = data[:20_000]
    return (
        suffix in (".csv", ".json", ".jsonl")
        and any(c.encode() in head for c in CONTEXTS)
        and any(q.encode() in head for q in QUESTION)
    )


def read(files: Mapping[str, bytes], documents: Mapping[str, str]) -> Imported:
    """One question per row of every test set among ``files``; the other text files among them
    join ``documents``."""
    texts = dict(documents)
    rows: list[dict] = []
    for path, data in sorted(files.items()):
        if _is_testset(path, data):
            rows.extend(_rows(text_of(files, path), path))
        elif PurePosixPath(path).suffix.lower() in DOCUMENTS:
            texts[path] = text_of(files, path)
    if not rows:
        raise ValueError(
            "no ragas test set among the files (rows with user_input and reference_contexts)"
        )
    if not texts:
        raise ValueError(
            "a ragas test set names no documents: give the documents its contexts come from "
            "(--doc PATH or --collection MANIFEST; in the app, upload them with it)"
        )
    questions, problems = [], []
    width = len(str(len(rows)))
    for k, row in enumerate(rows, start=1):
        qid = f"q{k:0{width}d}"
        question = next((row[c] for c in QUESTION if row.get(c)), None)
        contexts = _contexts(next((row[c] for c in CONTEXTS if row.get(c) is not None), None))
        if not isinstance(question, str) or contexts is None:
            problems.append(
                InputError("a row without a question or reference contexts; left out", qid)
            )
            continue
        item = {"id": qid, "question": question, "evidence": [HOP.sub("", c) for c in contexts]}
        if row.get("synthesizer_name"):
            item["case"] = str(row["synthesizer_name"])
        questions.append(item)
    return Imported("ragas", texts, tuple(questions), tuple(problems))


def _rows(text: str, path: str) -> list[dict]:
    if PurePosixPath(path).suffix.lower() == ".csv":
        return list(csv.DictReader(io.StringIO(text, newline="")))
    return json_records(text, path)


def _contexts(value: object) -> list[str] | None:
    """The reference contexts of a row: a list, or a list written as a Python or JSON literal."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    if isinstance(value, (list, tuple)) and value and all(isinstance(c, str) for c in value):
        return list(value)
    return None
