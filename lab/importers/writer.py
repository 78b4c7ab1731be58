"""Write an imported dataset as a collection: ``collection.json``, the documents and
``questions.json``."""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath

from ..problems import CorpusError
from .base import Imported

DOCUMENT_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm")
QUESTIONS_FILE = "questions.json"
MANIFEST_FILE = "collection.json"
_UNSAFE = re.compile(r"[^\w.\- ]+")


def document_path(name: str, taken: set[str]) -> str:
    """A file name for document ``name`` in a written collection: its own when it is a plain
    file name with a document suffix, else a safe version of it with ``.md``; never one of
    ``taken``."""
    stem = _UNSAFE.sub("_", PurePosixPath(name).name).strip(" .") or "document"
    path = stem if stem.lower().endswith(DOCUMENT_SUFFIXES) else f"{stem}.md"
    base, k = path, 2
    while path.lower() in taken or path in (MANIFEST_FILE, QUESTIONS_FILE):
        path = f"{PurePosixPath(base).stem}-{k}{PurePosixPath(base).suffix}"
        k += 1
    taken.add(path.lower())
    return path


def collection_files(imported: Imported, title: str | None = None) -> dict[str, bytes]:
    """The files of ``imported`` as a collection: ``collection.json`` (each document with its
    name, so the questions' ``"doc"`` still names it), the documents as given (byte for byte,
    so pinned starts hold) and ``questions.json``."""
    taken: set[str] = set()
    entries, files = [], {}
    for name, text in imported.documents.items():
        path = document_path(name, taken)
        entries.append({"path": path} | ({"name": name} if name != path else {}))
        files[path] = text.encode("utf-8")
    manifest = {"name": title or f"{imported.format} import", "documents": entries}
    manifest["questions"] = QUESTIONS_FILE
    files[QUESTIONS_FILE] = _json(imported.qe())
    files = {MANIFEST_FILE: _json(manifest), **files}
    return files


def write_collection(imported: Imported, out: str | Path, title: str | None = None) -> Path:
    """Write ``imported`` as a collection in folder ``out`` (made if missing); the manifest's
    path. A ``CorpusError`` when ``out`` already holds a manifest (nothing is overwritten)."""
    folder = Path(out)
    if (folder / MANIFEST_FILE).exists():
        raise CorpusError(f"{folder / MANIFEST_FILE} exists already: choose another --out")
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in collection_files(imported, title).items():
        (folder / name).write_bytes(data)
    return folder / MANIFEST_FILE


def _json(value: object) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
