"""Cross-encoder reranking: a model reads the question and one candidate together and scores it.

Nogueira & Cho, "Passage Re-ranking with BERT" (2019). Optional like ``lab.embed``: torch and
sentence-transformers are imported on first use only. No cross-encoder is bundled: a hub name is
downloaded on first use unless the local Hugging Face cache already holds it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import numpy as np

from .embed import DenseUnavailable, missing_message, missing_modules
from .lru import LRU, entry_bytes

DEFAULT_RERANKER = "cross-encoder/ms-marco-MiniLM-L6-v2"
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")
SCORE_CACHE_BYTES = 32 * 2**20  # scored (question, chunk) pairs: about 50,000 of handbook size
_DOWNLOAD = ("*.json", "*.txt", "*.model", *_WEIGHTS)  # config, tokenizer and weights


def hub_folder(model: str) -> str | None:
    """The folder of the local model cache that holds hub model ``model`` (its config and
    weights), or None; never downloads. ``model`` must be a valid hub id."""
    from huggingface_hub import try_to_load_from_cache

    config = try_to_load_from_cache(model, "config.json")
    if not isinstance(config, str):
        return None
    if not any(isinstance(try_to_load_from_cache(model, name), str) for name in _WEIGHTS):
        return None
    return os.path.dirname(config)


def download(model: str) -> str:
    """Fetch hub model ``model`` into the local model cache (the files a cross-encoder loads,
    not the hub's other formats) and return its folder; DenseUnavailable when it cannot."""
    missing = missing_modules()
    if missing:
        raise DenseUnavailable(missing_message(missing))
    from huggingface_hub import snapshot_download

    try:
        return snapshot_download(model, allow_patterns=list(_DOWNLOAD))
    except Exception as err:
        raise DenseUnavailable(f"could not download {model}: {err}") from err


def reranker_status(model: str = DEFAULT_RERANKER) -> tuple[bool, str]:
    """Whether ``model`` can rerank here without the network, and why not; never downloads."""
    missing = missing_modules()
    if missing:
        return False, missing_message(missing)
    if os.path.isdir(model):
        return True, f"{model} (local folder)"
    if hub_folder(model):
        return True, f"{model} (in the local model cache)"
    return (
        False,
        f"{model} is not available offline: the model is downloaded from the hub on first use",
    )


def can_download(model: str) -> bool:
    """True when ``model`` names a hub model that loading would fetch (the packages are there,
    it is not a local folder); whether the hub can be reached is only known by trying."""
    return not missing_modules() and not os.path.isdir(model)


class Reranker:
    """Relevance scores of (query, text) pairs from one cross-encoder; higher is more relevant.

    The model (a local folder or a hub name; or named ``model`` and read from the folder
    ``source``) loads on first use, thread-safe. Scores are cached per pair, least recently used
    first out past ``cache_bytes`` (the reranker is shared by the whole process).
    """

    def __init__(
        self,
        model: str = DEFAULT_RERANKER,
        batch_size: int = 32,
        source: str | None = None,
        cache_bytes: int = SCORE_CACHE_BYTES,
    ):
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self._name = model
        self._source = source or model
        self.batch_size = batch_size
        self._model = None
        self._lock = threading.RLock()
        self._scores = LRU(cache_bytes, entry_bytes)

    @property
    def name(self) -> str:
        return self._name

    def load(self):
        """The loaded ``CrossEncoder``; DenseUnavailable when it cannot be loaded."""
        with self._lock:
            if self._model is None:
                self._model = _load_cross_encoder(self._source)
            return self._model

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts),)`` float scores of each text as an answer to ``query``, in order."""
        with self._lock:
            found = {t: self._scores.get((query, t)) for t in dict.fromkeys(texts)}
            misses = [t for t, s in found.items() if s is None]
            if misses:
                scores = self.load().predict(
                    [(query, t) for t in misses],
                    batch_size=self.batch_size,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                scores = np.asarray(scores, dtype=np.float64).reshape(len(misses))
                for t, s in zip(misses, scores.tolist(), strict=True):
                    found[t] = s
                    self._scores.put((query, t), s)
            return np.array([found[t] for t in texts], dtype=np.float64)

    @property
    def cached_bytes(self) -> int:
        """Bytes the score cache holds now (as it counts them)."""
        return self._scores.bytes


def _load_cross_encoder(model: str):
    missing = missing_modules()
    if missing:
        raise DenseUnavailable(missing_message(missing))
    try:
        from sentence_transformers import CrossEncoder
    except ImportError as err:
        raise DenseUnavailable(f"sentence-transformers does not import: {err}") from err
    try:
        return CrossEncoder(model, device="cpu")
    except Exception as err:
        raise DenseUnavailable(f"could not load reranker {model}: {err}") from err


_RERANKERS: dict[str, Reranker] = {}
_RERANKERS_LOCK = threading.Lock()


def get_reranker(model: str = DEFAULT_RERANKER, source: str | None = None) -> Reranker:
    """The shared, loaded reranker for ``model``; DenseUnavailable when it cannot run here.
    With ``source``, the model is read from that folder on first use (an app names a model by
    what its user typed and loads it from a folder it checked); later calls by the name alone
    get the same reranker."""
    with _RERANKERS_LOCK:
        reranker = _RERANKERS.get(model)
        if reranker is None:
            reranker = Reranker(model, source=source)
            reranker.load()
            _RERANKERS[model] = reranker
        return reranker
