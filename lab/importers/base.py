"""What every importer shares: the record it returns and how it reads a dataset's files."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from ..decode import decode_text
from ..jsonread import JsonError, loads
from ..problems import InputError


@dataclass(frozen=True)
class Imported:
    """A dataset in the lab's terms: its format, the documents (name -> text), the questions as
    QE objects (``{"id", "question", "evidence": [...], "split", "doc"}``) and what could not be
    used, in words."""

    format: str
    documents: dict[str, str]
    questions: tuple[dict, ...]
    problems: tuple[InputError, ...] = ()

    def qe(self) -> dict:
        """The questions as a QE JSON object."""
        return {"questions": list(self.questions)}


def train_share(questions: Iterable[dict], share: float) -> list[dict]:
    """``questions`` with a reproducible ``share`` of them marked ``"split": "train"`` (the rest
    ``"test"``): a question is train when the SHA-256 of its text, read as a fraction of 2**256,
    is below ``share``, so the same question lands on the same side in every run and order."""
    if not 0 <= share <= 1:
        raise ValueError(f"the train share must be between 0 and 1, got {share}")
    out = []
    for q in questions:
        digest = hashlib.sha256(str(q.get("question", "")).encode()).digest()
        split = "train" if int.from_bytes(digest, "big") < share * 2**256 else "test"
        out.append({**q, "split": split})
    return out


def text_of(files: Mapping[str, bytes], path: str) -> str:
    """The text of one file of a dataset (a ``CorpusError`` when it is not UTF-8 text)."""
    return decode_text(files[path], f"The file {path!r}")


def named(files: Mapping[str, bytes], *names: str) -> str | None:
    """The path in ``files`` whose file name is one of ``names`` (case-insensitively), nearest
    the top of the folder."""
    wanted = {n.lower() for n in names}
    found = [p for p in files if PurePosixPath(p).name.lower() in wanted]
    return min(found, key=lambda p: (p.count("/"), p)) if found else None


def json_of(text: str, path: str) -> object:
    """``text`` parsed as JSON (bounded: :func:`lab.jsonread.loads`); a ``ValueError`` that says
    where it is not."""
    try:
        return loads(text, path)[0]
    except JsonError as exc:
        raise ValueError(str(exc).rstrip(".")) from None


def json_records(text: str, path: str) -> list[dict]:
    """Records of a JSON list, of an object's first list value, or of JSON lines."""
    stripped = text.lstrip()
    if stripped.startswith("[") or stripped.startswith("{") and "\n{" not in stripped:
        value = json_of(stripped, path)
        if isinstance(value, dict):
            value = next((v for v in value.values() if isinstance(v, list)), [])
        return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []
    return [
        r
        for k, line in enumerate(stripped.splitlines(), start=1)
        if line.strip() and isinstance(r := json_of(line, f"{path} line {k}"), dict)
    ]
