"""Okapi BM25 over chunks, as a sparse chunk x term weight matrix.

Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond" (2009):
``score(q, d) = sum_{t in q} idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))``
with ``idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))``. Query terms count once per occurrence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

K1 = 1.2
B = 0.75


class BM25:
    """BM25 weights of tokenised documents; ``scores`` ranks documents for tokenised queries."""

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = K1, b: float = B):
        if k1 < 0 or not 0 <= b <= 1:
            raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1, self.b = k1, b
        vocab: dict[str, int] = {}
        rows, cols, tfs = [], [], []
        lengths = np.zeros(len(documents))
        self.token_ids: list[np.ndarray] = []
        for d, tokens in enumerate(documents):
            ids = np.fromiter((vocab.setdefault(t, len(vocab)) for t in tokens), dtype=np.int64, count=len(tokens))
            self.token_ids.append(ids)
            lengths[d] = len(tokens)
            for term, tf in Counter(ids.tolist()).items():
                rows.append(d)
                cols.append(term)
                tfs.append(tf)
        self.vocab = vocab
        n_docs = len(documents)
        tf = np.asarray(tfs, dtype=float)
        rows_a = np.asarray(rows, dtype=np.int64)
        cols_a = np.asarray(cols, dtype=np.int64)
        df = np.bincount(cols_a, minlength=len(vocab)).astype(float)
        self.idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
        avgdl = lengths.mean() if n_docs and lengths.mean() > 0 else 1.0
        norm = k1 * (1 - b + b * lengths[rows_a] / avgdl)
        weights = self.idf[cols_a] * tf * (k1 + 1) / (tf + norm)
        self.matrix = sp.csr_matrix((weights, (rows_a, cols_a)), shape=(n_docs, len(vocab)))

    def query_matrix(self, queries: Sequence[Sequence[str]]) -> sp.csr_matrix:
        """Queries x vocabulary term counts; unknown terms are dropped."""
        rows, cols = [], []
        for q, tokens in enumerate(queries):
            for t in tokens:
                term = self.vocab.get(t)
                if term is not None:
                    rows.append(q)
                    cols.append(term)
        data = np.ones(len(rows))
        return sp.csr_matrix((data, (rows, cols)), shape=(len(queries), len(self.vocab)))

    def scores(self, queries: Sequence[Sequence[str]]) -> np.ndarray:
        """Dense ``(len(queries), n_documents)`` BM25 scores."""
        if not len(queries):
            return np.zeros((0, self.matrix.shape[0]))
        return np.asarray((self.query_matrix(queries) @ self.matrix.T).todense())
