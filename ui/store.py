"""A bounded on-disk store of the corpora users load, so that a link can carry one.

A checked corpus is kept as its inputs (document texts by name, the QE JSON text and, for a
collection, its manifest's name and text) in one JSON file named by the digest of its content:
``<digest>.json`` in the store's folder. A link names the digest; anyone holding the link reopens
the same corpus while the server keeps it.

The folder is bounded by a number of corpora and a number of bytes; when a new corpus would pass
either, the least recently used ones (by file modification time, renewed on every read) are
deleted first. A digest read from a link is checked to be 32 lowercase hex digits before it
becomes a file name, so a link cannot name any other file. A file whose content no longer
matches its digest is removed, and :class:`DamagedEntry` says so; so are the temporary files
of writes killed midway, once stale (they count towards the bytes until then).

The folder is the environment variable ``CHUNKING_LAB_STORE``, by default
``~/.cache/chunking-lab/corpora``; ``CHUNKING_LAB_STORE_MB`` sets its size (default 256 MB).
No streamlit here: the store is plain files.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple

from lab import json_or_none

STORE_ENV = "CHUNKING_LAB_STORE"
SIZE_ENV = "CHUNKING_LAB_STORE_MB"
DEFAULT_MB = 256
DEFAULT_ENTRIES = 500
DIGEST = re.compile(r"[0-9a-f]{32}")
STALE_PART_SECONDS = 600  # a temporary file this old is a write that was killed, not one going on
_LOCK = threading.Lock()  # one writer at a time within a server process


class Inputs(NamedTuple):
    """What a corpus is built from: document texts by name, the QE JSON text (or None), and a
    collection manifest as its file name and text (or None)."""

    documents: dict[str, str]
    qe: str | None
    manifest: tuple[str, str] | None = None

    def encoded(self) -> bytes:
        """The canonical bytes of these inputs: equal inputs, equal bytes (inputs without a
        manifest encode as they did before manifests were kept, so their links still work)."""
        payload: dict = {"documents": self.documents, "qe": self.qe}
        if self.manifest is not None:
            payload["manifest"] = list(self.manifest)
        return json.dumps(payload, ensure_ascii=False, sort_keys=True).encode("utf-8")

    def digest(self) -> str:
        return hashlib.sha256(self.encoded()).hexdigest()[:32]


class DamagedEntry(Exception):
    """The file kept under a digest was damaged (cut short, overwritten, not the inputs the
    digest names); it has been removed."""


def valid_digest(text: str) -> bool:
    """True when ``text`` has the shape of a store digest (and so is safe as a file name)."""
    return DIGEST.fullmatch(text) is not None


class CorpusStore:
    """Corpus inputs on disk under their digest, at most ``max_entries`` files and
    ``max_bytes`` bytes, least recently used deleted first."""

    def __init__(self, folder: Path, max_bytes: int, max_entries: int = DEFAULT_ENTRIES):
        if max_bytes < 1 or max_entries < 1:
            raise ValueError(
                f"max_bytes and max_entries must be >= 1, got {max_bytes}, {max_entries}"
            )
        self.folder = Path(folder)
        self.max_bytes = max_bytes
        self.max_entries = max_entries

    def _path(self, digest: str) -> Path:
        if not valid_digest(digest):
            raise ValueError(f"not a store digest: {digest[:40]!r}")
        return self.folder / f"{digest}.json"

    def put(self, inputs: Inputs) -> str:
        """Keep ``inputs`` and return their digest. OSError when the folder cannot be written;
        ValueError when the inputs alone are larger than the whole store."""
        data = inputs.encoded()
        if len(data) > self.max_bytes:
            raise ValueError(
                f"the corpus takes {len(data) / 1e6:.1f} MB; the store keeps at most "
                f"{self.max_bytes / 1e6:.1f} MB"
            )
        digest = inputs.digest()
        path = self._path(digest)
        with _LOCK:
            self.folder.mkdir(parents=True, exist_ok=True)
            if path.exists():
                os.utime(path)
            else:
                handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".part")
                try:
                    with os.fdopen(handle, "wb") as out:
                        out.write(data)
                    os.replace(temporary, path)
                except BaseException:
                    Path(temporary).unlink(missing_ok=True)
                    raise
            self._evict(keep=path)
        return digest

    def get(self, digest: str) -> Inputs | None:
        """The inputs kept under ``digest``, or None when they are not (or no longer) here.
        :class:`DamagedEntry` when the file there was damaged (it is removed); ValueError when
        ``digest`` is not a digest at all."""
        path = self._path(digest)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError:  # a folder in its place, or unreadable: nothing this store can use
            with contextlib.suppress(OSError):
                path.unlink()
            raise DamagedEntry(digest) from None
        inputs = _decoded(data)
        if inputs is None or inputs.digest() != digest:
            path.unlink(missing_ok=True)
            raise DamagedEntry(digest)
        with contextlib.suppress(OSError):  # deleted meanwhile: the inputs are read already
            os.utime(path)  # recently used
        return inputs

    def remove(self, digest: str) -> None:
        """Forget the inputs kept under ``digest``: a link naming it no longer opens them."""
        self._path(digest).unlink(missing_ok=True)

    def _evict(self, keep: Path) -> None:
        """Delete the least recently used files until the store is within its bounds. The
        temporary files of killed writes (``*.part``) count towards the bytes, and are deleted
        once stale."""
        files, parts = [], 0
        now = time.time()
        for path in self.folder.glob("*.part"):
            try:
                stat = path.stat()
            except OSError:
                continue
            if now - stat.st_mtime > STALE_PART_SECONDS:
                path.unlink(missing_ok=True)
            else:
                parts += stat.st_size
        for path in self.folder.glob("*.json"):
            try:
                stat = path.stat()
            except OSError:  # deleted meanwhile
                continue
            files.append((stat.st_mtime, path.name, stat.st_size, path))
        files.sort()
        total = parts + sum(size for _, _, size, _ in files)
        count = len(files)
        for _, _, size, path in files:
            if count <= self.max_entries and total <= self.max_bytes:
                break
            if path == keep:
                continue
            path.unlink(missing_ok=True)
            count -= 1
            total -= size


def _decoded(data: bytes) -> Inputs | None:
    """The inputs a store file holds, or None when it holds no such thing."""
    try:
        payload = json_or_none(data.decode("utf-8"))
        manifest = payload.get("manifest")
        if manifest is not None:
            name, text = manifest
            manifest = (str(name), str(text))
        documents = dict(payload["documents"])
        qe = payload["qe"]
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in documents.items()):
        return None
    return Inputs(documents, qe if isinstance(qe, str) else None, manifest)


def app_folder(variable: str, name: str) -> Path:
    """A folder of the app's own: the one the environment ``variable`` names, else ``name`` in
    the user's cache folder (``~/.cache/chunking-lab/<name>``)."""
    configured = os.environ.get(variable)
    if configured:
        return Path(configured).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "chunking-lab" / name


def default_folder() -> Path:
    """Where the app keeps corpora: ``CHUNKING_LAB_STORE``, else the user's cache folder."""
    return app_folder(STORE_ENV, "corpora")


def default_store() -> CorpusStore:
    """The app's store, as the environment configures it."""
    return CorpusStore(default_folder(), max(1, int(megabytes(os.environ.get(SIZE_ENV)) * 1e6)))


def megabytes(setting: str | None, default: float = DEFAULT_MB) -> float:
    """A size in megabytes from an environment setting: ``default`` when it is unset, not a
    number, not finite (``inf``, ``nan``) or not positive."""
    try:
        value = float(setting or default)
    except ValueError:
        return default
    return value if math.isfinite(value) and value > 0 else default
