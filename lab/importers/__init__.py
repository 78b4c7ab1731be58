"""Question sets in the formats people already have, read into the lab's terms: documents, QE
questions and what could not be used.

One module per format, each with ``recognise(files)`` and ``read(files, documents)``; ``files``
maps the relative paths of a dataset (a folder, or one file) to their bytes, so the command line
and an upload read the same way. :func:`import_dataset` reads one and checks every question
with the loader's own rules (:func:`lab.build_corpus`): a question whose evidence is not in its
document is reported with its id and left out, the rest import. :func:`write_collection` writes
the result as a collection: a manifest, the documents and a QE file.

>>> from lab.importers import import_dataset, read_files, write_collection
>>> imported = import_dataset("chroma", read_files("general_evaluation_data"))
>>> write_collection(imported, "out")  # out/collection.json, out/questions.json, the documents
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from ..corpus import build_corpus
from ..decode import decode_text
from ..problems import CorpusError
from . import chroma, lists, ragas, squad
from .archive import is_archive, unpack
from .base import Imported, train_share
from .writer import collection_files, write_collection

FORMATS = {"chroma": chroma, "squad": squad, "ragas": ragas, "lists": lists}
MAX_FILES = 20_000
MAX_BYTES = 200_000_000

__all__ = [
    "FORMATS",
    "Imported",
    "checked",
    "collection_files",
    "import_dataset",
    "open_files",
    "read_files",
    "recognise",
    "train_share",
    "write_collection",
]


def read_files(source: str | Path) -> dict[str, bytes]:
    """The files of a dataset: one file by its name, every file under a folder by its path
    relative to the folder, or every file in an archive (``.zip``, ``.tar.xz``, ...) by its
    path inside it. A ``CorpusError`` when there is no such file or it is too large."""
    path = Path(source)
    if path.is_file():
        return open_files({path.name: path.read_bytes()})
    if not path.is_dir():
        raise CorpusError(f"No such file or folder: {path}")
    files, total = {}, 0
    for item in sorted(path.rglob("*")):
        if not item.is_file() or any(p.startswith(".") for p in item.relative_to(path).parts):
            continue
        if len(files) >= MAX_FILES:
            raise CorpusError(f"{path} holds more than {MAX_FILES:,} files: point at the dataset")
        data = item.read_bytes()
        total += len(data)
        if total > MAX_BYTES:
            raise CorpusError(f"{path} holds more than {MAX_BYTES // 1_000_000} MB of files")
        files[item.relative_to(path).as_posix()] = data
    if not files:
        raise CorpusError(f"{path} is an empty folder")
    return files


def open_files(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """``files`` with every archive among them replaced by the files it holds (an upload of
    one archive reads as the folder it packs)."""
    out: dict[str, bytes] = {}
    for name, data in files.items():
        if not is_archive(name):
            out[name] = data
            continue
        room = MAX_BYTES - sum(len(d) for d in out.values())
        out |= unpack(name, data, MAX_FILES - len(out), room)
    return out


def recognise(files: Mapping[str, bytes]) -> str | None:
    """The format ``files`` are in (a key of :data:`FORMATS`), or None when none fits."""
    for name, module in FORMATS.items():
        if module.recognise(files):
            return name
    return None


def import_dataset(
    format: str,
    files: Mapping[str, bytes],
    documents: Mapping[str, str | bytes] | None = None,
    **options: str,
) -> Imported:
    """Read ``files`` in ``format`` with its ``options`` (squad: ``by="article"``), then check
    each question with the loader: a question whose evidence cannot be found is reported and
    left out. ``documents`` (name -> text) are where ragas' reference contexts are looked for;
    the other formats carry their own and add these to them."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}")
    given = {
        name: decode_text(data, f"Document {name!r}") for name, data in (documents or {}).items()
    }
    return checked(FORMATS[format].read(files, given, **options))


def checked(imported: Imported) -> Imported:
    """``imported`` with the questions the loader cannot use left out, its messages added."""
    if not imported.documents:
        raise CorpusError(f"The {imported.format} data holds no document.")
    corpus = build_corpus(dict(imported.documents), imported.qe())
    kept = {q.id for q in corpus.questions}
    questions = tuple(q for q in imported.questions if str(q.get("id")) in kept)
    return replace(imported, questions=questions, problems=(*imported.problems, *corpus.errors))
