"""Okapi BM25 over chunks, as a sparse chunk x term weight matrix.

Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond" (2009):
``score(q, d) = sum_{t in q} idf(t) * tf(t, d) * (k1 + 1)
/ (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))``
with ``idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))``. Query terms count once per occurrence.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate, chain, pairwise, repeat

import numpy as np
import scipy.sparse as sp

from .topk import top_sparse_rows

K1 = 1.2
TOP_BLOCK = 256  # queries scored at once by BM25.top
B = 0.75


class BM25:
    """BM25 weights of tokenised documents; ``scores`` ranks documents for tokenised queries."""

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = K1, b: float = B):
        if k1 < 0 or not 0 <= b <= 1:
            raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1, self.b = k1, b
        # Term ids in order of first occurrence, looked up by C-level map rather than per token.
        flat_tokens = list(chain.from_iterable(documents))
        vocab = {t: i for i, t in enumerate(dict.fromkeys(flat_tokens))}
        ids = list(map(vocab.__getitem__, flat_tokens))
        ends = list(accumulate(map(len, documents)))
        self.token_ids: list[list[int]] = [ids[a:b] for a, b in pairwise([0, *ends])]
        self.vocab = vocab
        n_docs, n_terms = len(documents), len(vocab)
        lengths = np.diff(np.asarray([0, *ends], dtype=np.int64))
        flat = np.asarray(ids, dtype=np.int64)
        pairs, tf = np.unique(
            np.repeat(np.arange(n_docs), lengths) * n_terms + flat, return_counts=True
        )
        rows, cols = pairs // max(n_terms, 1), pairs % max(n_terms, 1)
        tf = tf.astype(float)
        df = np.bincount(cols, minlength=n_terms).astype(float)
        self.idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
        avgdl = lengths.mean() if n_docs and lengths.mean() > 0 else 1.0
        norm = k1 * (1 - b + b * lengths[rows] / avgdl)
        weights = self.idf[cols] * tf * (k1 + 1) / (tf + norm)
        self.matrix = sp.csr_matrix((weights, (rows, cols)), shape=(n_docs, n_terms))
        self._by_term = self.matrix.T.tocsr()  # terms x documents, for scoring queries

    def query_matrix(self, queries: Sequence[Sequence[str]]) -> sp.csr_matrix:
        """Queries x vocabulary term counts; unknown terms are dropped."""
        flat = list(chain.from_iterable(queries))
        terms = np.fromiter(map(self.vocab.get, flat, repeat(-1)), dtype=np.int64, count=len(flat))
        rows = np.repeat(np.arange(len(queries)), [len(tokens) for tokens in queries])
        known = terms >= 0
        data = np.ones(int(known.sum()))
        shape = (len(queries), len(self.vocab))
        return sp.csr_matrix((data, (rows[known], terms[known])), shape=shape)

    def scores(self, queries: Sequence[Sequence[str]]) -> np.ndarray:
        """Dense ``(len(queries), n_documents)`` BM25 scores."""
        if not len(queries):
            return np.zeros((0, self.matrix.shape[0]))
        return (self.query_matrix(queries) @ self._by_term).toarray()

    def top(self, queries: Sequence[Sequence[str]], k: int, block: int = TOP_BLOCK) -> list:
        """For each query, the indices of its ``k`` best-scoring documents (positive scores only),
        best first, ties in document order: ``top(row, k)`` of each row of ``scores``, found
        ``block`` queries at a time from the sparse scores (never made dense)."""
        out: list[np.ndarray] = []
        for start in range(0, len(queries), block):
            batch = self.query_matrix(queries[start : start + block])
            out += top_sparse_rows(batch @ self._by_term, k)
        return out
