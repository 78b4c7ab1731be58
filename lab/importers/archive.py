"""A dataset packed in an archive (``.zip``, ``.tar``, ``.tar.gz``/``.tgz``, ``.tar.bz2``,
``.tar.xz``): its regular files by their paths inside it, read in memory and never written to
disk, so a member's name cannot reach outside the archive. Hidden files and folders (``.git``,
``__MACOSX``) are skipped; the number of files and their total size are bounded, counted as
they are read."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import PurePosixPath

from ..problems import CorpusError

SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")


def is_archive(name: str) -> bool:
    """Whether a file called ``name`` is an archive :func:`unpack` reads."""
    return name.lower().endswith(SUFFIXES)


def _kept(path: str) -> str | None:
    """A member's path as the dataset names it, or None for a hidden or odd one."""
    parts = [p for p in PurePosixPath(path.replace("\\", "/")).parts if p not in ("/", ".")]
    if not parts or any(p.startswith((".", "__MACOSX")) or p == ".." for p in parts):
        return None
    return "/".join(parts)


def unpack(name: str, data: bytes, max_files: int, max_bytes: int) -> dict[str, bytes]:
    """The files of archive ``name`` (its bytes ``data``); a ``CorpusError`` when it cannot be
    read, holds no file, or holds more than ``max_files`` files or ``max_bytes`` bytes."""
    try:
        if name.lower().endswith(".zip"):
            return _zip(data, max_files, max_bytes, name)
        return _tar(data, max_files, max_bytes, name)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        raise CorpusError(f"{name} cannot be read as an archive: {exc}") from None


class _Budget:
    def __init__(self, name: str, max_files: int, max_bytes: int):
        self.name, self.max_files, self.max_bytes = name, max_files, max_bytes
        self.files: dict[str, bytes] = {}
        self.total = 0

    def left(self) -> int:
        if len(self.files) >= self.max_files:
            raise CorpusError(f"{self.name} holds more than {self.max_files:,} files")
        return self.max_bytes - self.total

    def add(self, path: str, data: bytes, room: int) -> None:
        if len(data) > room:
            raise CorpusError(f"{self.name} unpacks to more than {self.max_bytes // 10**6} MB")
        self.files[path] = data
        self.total += len(data)

    def done(self) -> dict[str, bytes]:
        if not self.files:
            raise CorpusError(f"{self.name} holds no file")
        return dict(sorted(self.files.items()))


def _zip(data: bytes, max_files: int, max_bytes: int, name: str) -> dict[str, bytes]:
    budget = _Budget(name, max_files, max_bytes)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            path = None if info.is_dir() else _kept(info.filename)
            if path is None:
                continue
            room = budget.left()
            with archive.open(info) as member:
                budget.add(path, member.read(room + 1), room)
    return budget.done()


def _tar(data: bytes, max_files: int, max_bytes: int, name: str) -> dict[str, bytes]:
    budget = _Budget(name, max_files, max_bytes)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
        for member in archive:
            path = _kept(member.name) if member.isfile() else None
            if path is None:
                continue
            room = budget.left()
            budget.add(path, archive.extractfile(member).read(room + 1), room)
    return budget.done()
