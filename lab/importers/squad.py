"""SQuAD v1.1 and v2.0: ``{"data": [{"title", "paragraphs": [{"context", "qas": [...]}]}]}``,
and the flat records of the Hugging Face ``squad`` datasets (``{"id", "title", "context",
"question", "answers": {"text": [...], "answer_start": [...]}}``, as JSON or JSON lines).

Each context becomes a document (``by="article"``: each article, its paragraphs joined by a blank
line). A question's first answer is its evidence, pinned at its ``answer_start`` (the other
answers are other annotators' readings of the same question, not more evidence). Unanswerable
questions (v2.0's ``is_impossible``, or no answer) are counted, reported and left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from ..problems import InputError
from .base import Imported, json_of, json_records, text_of

BY = ("context", "article")
JOIN = "\n\n"


def recognise(files: Mapping[str, bytes]) -> bool:
    return any(_looks_like_squad(path, data) for path, data in files.items())


def _looks_like_squad(path: str, data: bytes) -> bool:
    head = data[:200_000]
    return (
        PurePosixPath(path).suffix.lower() in (".json", ".jsonl")
        and b'"context"' in head
        and b'"answer_start"' in head
    )


def read(files: Mapping[str, bytes], documents: Mapping[str, str], by: str = "context") -> Imported:
    """Every SQuAD file among ``files``, one document per context (or per article)."""
    if by not in BY:
        raise ValueError(f"by must be one of {', '.join(BY)}, got {by!r}")
    articles: dict[str, list[tuple[str, list[dict]]]] = {}
    for path, data in sorted(files.items()):
        if _looks_like_squad(path, data):
            for title, context, qas in _paragraphs(text_of(files, path), path):
                articles.setdefault(title, []).append((context, qas))
    if not articles:
        raise ValueError("no SQuAD file among the files (a JSON file with contexts and answers)")
    texts: dict[str, str] = dict(documents)
    questions: list[dict] = []
    unanswerable: list[str] = []
    for title, paragraphs in articles.items():
        width = len(str(len(paragraphs)))
        offset = 0
        for k, (context, qas) in enumerate(paragraphs, start=1):
            if by == "context":
                name, offset = f"{title}-{k:0{width}d}", 0
                texts[name] = context
            else:
                name = title
                texts[name] = texts[name] + JOIN + context if name in texts else context
                offset = len(texts[name]) - len(context)
            for qa in qas:
                qid = str(qa.get("id") or f"{name}-q{len(questions) + 1}")
                answers = [a for a in qa.get("answers") or [] if isinstance(a, dict)]
                if qa.get("is_impossible") or not answers:
                    unanswerable.append(qid)
                    continue
                first = answers[0]
                start = first.get("answer_start")
                entry = {"text": first.get("text"), "doc": name}
                if isinstance(start, int) and not isinstance(start, bool):
                    entry["start"] = start + offset
                questions.append(
                    {"id": qid, "question": str(qa.get("question", "")), "evidence": [entry]}
                )
    problems = []
    if unanswerable:
        shown = ", ".join(unanswerable[:3]) + (", ..." if len(unanswerable) > 3 else "")
        problems.append(
            InputError(
                f"{len(unanswerable)} unanswerable question(s) (no answer in their context: "
                f"{shown}) were left out",
                severity="warning",
            )
        )
    return Imported("squad", texts, tuple(questions), tuple(problems))


def _paragraphs(text: str, path: str):
    """(title, context, questions) of each paragraph of a SQuAD file, official or flat."""
    stripped = text.lstrip()
    if stripped.startswith("{") and '"paragraphs"' in stripped[:200_000]:
        data = json_of(text, path).get("data") or []
        for article in data:
            title = _title(article.get("title"), path)
            for paragraph in article.get("paragraphs") or []:
                yield title, str(paragraph.get("context", "")), list(paragraph.get("qas") or [])
        return
    records = json_records(stripped, path)
    contexts: dict[tuple[str, str], list[dict]] = {}
    for record in records:
        answers = record.get("answers") or {}
        if isinstance(answers, dict):  # {"text": [...], "answer_start": [...]}
            answers = [
                {"text": t, "answer_start": s}
                for t, s in zip(
                    answers.get("text") or [], answers.get("answer_start") or [], strict=False
                )
            ]
        key = (_title(record.get("title"), path), str(record.get("context", "")))
        contexts.setdefault(key, []).append({**record, "answers": answers})
    for (title, context), qas in contexts.items():
        yield title, context, qas


def _title(title: object, path: str) -> str:
    return str(title).strip() if title else PurePosixPath(path).stem
