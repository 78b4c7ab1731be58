"""Corpus, questions and relevant passages as parallel lists, and the layouts built on them.

- chonkie's benchmark (``mtcb.SimpleEvaluator``): one JSON object with ``corpus`` (texts),
  ``questions`` and ``relevant_passages`` (for each question a passage, or a list of them);
- its datasets' layout: ``corpus.jsonl`` (``{"text"}`` or ``{"content"}``, optionally ``"id"``
  / ``"title"``) and ``questions.jsonl`` (``{"question", "chunk-must-contain"}``, or
  ``"supporting_passage"``);
- BEIR: ``corpus.jsonl`` (``{"_id", "title", "text"}``), ``queries.jsonl`` (``{"_id", "text"}``)
  and ``qrels/*.tsv`` (query-id, corpus-id, score): a relevant document's whole text is the
  evidence, in that document (``test.tsv`` when there are several qrels files).

Each passage is looked for in every document of the corpus (or in the one a BEIR qrel names).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import PurePosixPath

from ..problems import InputError
from .base import Imported, json_of, json_records, named, text_of

LISTS = ("corpus", "questions", "relevant_passages")
PASSAGE = ("chunk-must-contain", "supporting_passage", "relevant_passages", "passage")


def recognise(files: Mapping[str, bytes]) -> bool:
    if named(files, "corpus.jsonl", "corpus.json") and (
        named(files, "questions.jsonl", "queries.jsonl", "questions.json")
    ):
        return True
    return any(
        path.lower().endswith(".json")
        and all(f'"{key}"'.encode() in data[:5_000_000] for key in LISTS)
        for path, data in files.items()
    )


def read(files: Mapping[str, bytes], documents: Mapping[str, str]) -> Imported:
    queries = named(files, "queries.jsonl")
    if queries and named(files, "corpus.jsonl"):
        return _beir(files, queries)
    corpus_file = named(files, "corpus.jsonl", "corpus.json")
    questions_file = named(files, "questions.jsonl", "questions.json")
    if corpus_file and questions_file:
        corpus = json_records(text_of(files, corpus_file), corpus_file)
        texts = dict(documents) | {_name(r, k): _text(r) for k, r in enumerate(corpus)}
        records = json_records(text_of(files, questions_file), questions_file)
        questions = [str(r.get("question", "")) for r in records]
        passages = [next((r[k] for k in PASSAGE if r.get(k)), None) for r in records]
        return _parallel(texts, questions, passages)
    path = next(
        (
            p
            for p, d in sorted(files.items())
            if p.lower().endswith(".json") and b'"relevant_passages"' in d
        ),
        None,
    )
    if path is None:
        raise ValueError(
            "no lists among the files: a JSON object with corpus, questions and "
            "relevant_passages, corpus.jsonl with questions.jsonl, or BEIR's corpus.jsonl, "
            "queries.jsonl and qrels/"
        )
    value = json_of(text_of(files, path), path)
    if not isinstance(value, dict) or not all(isinstance(value.get(k), list) for k in LISTS):
        raise ValueError(f"{path} must be an object whose {', '.join(LISTS)} are lists")
    corpus = value["corpus"]
    names = [
        _name(c, k) if isinstance(c, dict) else f"doc-{k + 1:0{len(str(len(corpus)))}d}"
        for k, c in enumerate(corpus)
    ]
    texts = [_text(c) if isinstance(c, dict) else str(c) for c in corpus]
    if len(value["questions"]) != len(value["relevant_passages"]):
        raise ValueError(
            f"{path}: {len(value['questions'])} questions but "
            f"{len(value['relevant_passages'])} relevant_passages; they must pair up"
        )
    return _parallel(
        dict(documents) | dict(zip(names, texts, strict=True)),
        value["questions"],
        value["relevant_passages"],
    )


def _parallel(texts: dict[str, str], questions: list, passages: list) -> Imported:
    out, problems = [], []
    width = len(str(len(questions)))
    for k, (question, passage) in enumerate(zip(questions, passages, strict=True), start=1):
        qid = f"q{k:0{width}d}"
        evidence = passage if isinstance(passage, list) else [passage]
        if not isinstance(question, str) or not all(
            isinstance(p, str) and p.strip() for p in evidence
        ):
            problems.append(InputError("no question text or no relevant passage; left out", qid))
            continue
        out.append({"id": qid, "question": question, "evidence": evidence})
    return Imported("lists", texts, tuple(out), tuple(problems))


def _beir(files: Mapping[str, bytes], queries: str) -> Imported:
    corpus_file = named(files, "corpus.jsonl")
    texts = {}
    for k, record in enumerate(json_records(text_of(files, corpus_file), corpus_file)):
        title, text = str(record.get("title") or "").strip(), _text(record)
        texts[_name(record, k)] = f"# {title}\n\n{text}" if title else text
    asked = {
        str(r.get("_id")): str(r.get("text", ""))
        for r in json_records(text_of(files, queries), queries)
    }
    qrels = sorted(
        (p for p in files if p.lower().endswith(".tsv") and "qrels" in p.lower()),
        key=lambda p: (PurePosixPath(p).name != "test.tsv", p),
    )
    if not qrels:
        raise ValueError(
            "BEIR data without qrels/*.tsv: which documents answer which query is unknown"
        )
    relevant: dict[str, list[str]] = {}
    for row in csv.reader(io.StringIO(text_of(files, qrels[0])), delimiter="\t"):
        if len(row) >= 3 and row[0] != "query-id" and _positive(row[2]):
            relevant.setdefault(row[0], []).append(row[1])
    out, problems = [], []
    for qid, docs in relevant.items():
        missing = [d for d in docs if d not in texts]
        if qid not in asked or missing:
            what = (
                f"corpus-id {missing[0]!r} is not in the corpus"
                if missing
                else "the query is not in queries.jsonl"
            )
            problems.append(InputError(f"{what}; left out", qid))
            continue
        evidence = [{"text": _text_only(texts[d]), "doc": d} for d in docs]
        out.append({"id": qid, "question": asked[qid], "evidence": evidence})
    return Imported("lists", texts, tuple(out), tuple(problems))


def _text_only(document: str) -> str:
    """A BEIR document's body: its text after the title line written above it."""
    return (
        document.split("\n\n", 1)[1]
        if document.startswith("# ") and "\n\n" in document
        else document
    )


def _positive(score: str) -> bool:
    try:
        return float(score) > 0
    except ValueError:
        return False


def _text(record: dict) -> str:
    return str(record.get("text") or record.get("content") or "")


def _name(record: object, k: int) -> str:
    if isinstance(record, dict):
        for key in ("_id", "id", "title", "name"):
            if record.get(key) not in (None, ""):
                return str(record[key])
    return f"doc-{k + 1}"
