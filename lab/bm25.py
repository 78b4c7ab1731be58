"""Okapi BM25 over chunks, as a sparse chunk x term weight matrix.

Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond" (2009):
``score(q, d) = sum_{t in q} idf(t) * tf(t, d) * (k1 + 1)
/ (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))``
with ``idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))``. Query terms count once per occurrence.

The plain rule is ``bm25_scores_plain`` (dense, term by term); the ``BM25`` class is its fast
path (sparse matrices, SciPy's public product), the same floats (``tests/test_rules.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cached_property
from itertools import accumulate, chain, pairwise, repeat

import numpy as np
import scipy.sparse as sp

from .topk import best_first, csr_candidates

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
        lengths = np.fromiter(map(len, documents), dtype=np.int64, count=n_docs)
        flat = np.fromiter(ids, dtype=np.int64, count=len(ids))
        pairs, tf = _distinct_counts(np.repeat(np.arange(n_docs), lengths) * n_terms + flat)
        rows, cols = np.divmod(pairs, max(n_terms, 1))
        tf = tf.astype(float)
        df = np.bincount(cols, minlength=n_terms).astype(float)
        self.idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
        mean = lengths.mean() if n_docs else 0.0
        avgdl = mean if mean > 0 else 1.0
        norm = k1 * (1 - b + b * lengths[rows] / avgdl)
        weights = self.idf[cols] * tf * (k1 + 1) / (tf + norm)
        self.matrix, self._by_term = _weight_matrices(weights, pairs, cols, n_docs, n_terms)

    def scores(self, queries: Sequence[Sequence[str]]) -> np.ndarray:
        """Dense ``(len(queries), n_documents)`` BM25 scores."""
        q, n = len(queries), self.matrix.shape[0]
        out = np.zeros((q, n))
        if q:
            indptr, cols, values = self._product(*self._query_terms(queries))
            out.ravel()[np.repeat(np.arange(q) * n, np.diff(indptr)) + cols] = values
        return out

    def top(self, queries: Sequence[Sequence[str]], k: int, block: int = TOP_BLOCK) -> list:
        """For each query, the indices of its ``k`` best-scoring documents (positive scores only),
        best first, ties in document order: ``top(row, k)`` of each row of ``scores``, found
        ``block`` queries at a time from the sparse scores (never made dense)."""
        indptr, terms, counts = self._query_terms(queries)
        if k <= 0 or not len(terms):
            return [np.zeros(0, dtype=np.int64) for _ in range(len(queries))]
        # A floor for each query's k-th best score: a term with k or more documents gives each
        # of them at least its count times its k-th largest weight (the other terms add to it).
        # (Each query's terms are neighbours: one maximum per query with terms.)
        floors = np.zeros(len(queries))
        some = np.flatnonzero(indptr[1:] > indptr[:-1])
        bounds = counts * self._kth_weight(k, terms)
        floors[some] = np.maximum.reduceat(bounds, indptr[some])
        # Each block's candidates (a few more than k per query), then one ordering of them all.
        found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for start in range(0, len(queries), block):
            stop = min(start + block, len(queries))
            a, b = indptr[start], indptr[stop]
            part = self._product(indptr[start : stop + 1] - a, terms[a:b], counts[a:b])
            row, doc, score = csr_candidates(*part, k, floors[start:stop])
            found.append((row + start, doc, score))
        return best_first(*map(np.concatenate, zip(*found, strict=True)), len(queries), k)

    def _query_terms(
        self, queries: Sequence[Sequence[str]]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The queries as CSR arrays over the vocabulary: per query, its known terms in id order
        with their counts (as floats), as ``scipy.sparse`` would build them."""
        flat = list(chain.from_iterable(queries))
        terms = np.fromiter(map(self.vocab.get, flat, repeat(-1)), dtype=np.int64, count=len(flat))
        # One key per token, query * n_terms + term, sorted: each query's terms in id order.
        n_terms = max(len(self.vocab), 1)
        starts = np.arange(0, (len(queries) + 1) * n_terms, n_terms)
        keys = np.repeat(starts[:-1], list(map(len, queries))) + terms
        keys, counts = _distinct_counts(keys[terms >= 0], few_repeats=True)
        index = self._by_term.indices.dtype
        indptr = np.searchsorted(keys, starts).astype(index)
        return indptr, (keys % n_terms).astype(index), counts.astype(float)

    def _product(
        self, indptr: np.ndarray, terms: np.ndarray, counts: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The CSR arrays of queries (given as CSR arrays) times the terms x documents weights,
        by SciPy's product: each score sums its terms' products in term order."""
        by_term = self._by_term
        query = sp.csr_matrix((counts, terms, indptr), shape=(len(indptr) - 1, by_term.shape[0]))
        product = query @ by_term
        return product.indptr, product.indices, product.data

    @cached_property
    def _postings(self) -> np.ndarray:
        """Per term, how many documents hold it."""
        return np.diff(self._by_term.indptr)

    @cached_property
    def _weights_descending(self) -> np.ndarray:
        """Each term's weights (the rows of ``_by_term``), largest first within the term."""
        by_term = self._by_term
        term = np.repeat(np.arange(by_term.shape[0]), self._postings)
        return by_term.data[np.lexsort((-by_term.data, term))]

    def _kth_weight(self, k: int, terms: np.ndarray) -> np.ndarray:
        """Per term of ``terms``, its ``k``-th largest weight (0 for a term in fewer than ``k``
        documents)."""
        weights = self._weights_descending
        at = np.minimum(self._by_term.indptr[terms] + (k - 1), len(weights) - 1)
        return np.where(self._postings[terms] >= k, weights[at], 0.0)


def _distinct_counts(keys: np.ndarray, few_repeats: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_counts=True)`` of non-negative integer keys; counted in place
    (no sort) when they span little more than their number. With ``few_repeats`` (a query
    seldom repeats a term) a wide span is sorted once and counted only if some key repeats."""
    span = int(keys.max()) + 1 if len(keys) else 0
    if span > 4 * len(keys) + 4096:
        if not few_repeats:
            return np.unique(keys, return_counts=True)
        keys = np.sort(keys)
        if (keys[1:] == keys[:-1]).any():
            return np.unique(keys, return_counts=True)
        return keys, np.ones(len(keys), dtype=np.int64)
    counts = np.bincount(keys, minlength=span)
    distinct = np.flatnonzero(counts)
    return distinct, counts[distinct]


def _weight_matrices(
    weights: np.ndarray, pairs: np.ndarray, cols: np.ndarray, n_docs: int, n_terms: int
) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """The documents x terms weight matrix of ``weights`` at the sorted, distinct ``pairs``
    (``row * n_terms + col``), built from its CSR arrays (the pairs are already in canonical
    order), and its transpose in CSR (terms x documents)."""
    indptr = np.searchsorted(pairs, np.arange(n_docs + 1) * n_terms)
    matrix = sp.csr_matrix((weights, cols, indptr), shape=(n_docs, n_terms))
    matrix.has_canonical_format = True
    return matrix, matrix.T.tocsr()


def bm25_scores_plain(
    documents: Sequence[Sequence[str]],
    queries: Sequence[Sequence[str]],
    k1: float = K1,
    b: float = B,
) -> np.ndarray:
    """Okapi BM25, the plain rule: the dense ``(len(queries), len(documents))`` scores, each query
    term's ``count * idf(t) * tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl))`` added term by
    term in order of the terms' first occurrence in the documents."""
    vocab = {t: i for i, t in enumerate(dict.fromkeys(chain.from_iterable(documents)))}
    n_docs = len(documents)
    tf = np.zeros((n_docs, len(vocab)))
    for d, document in enumerate(documents):
        for term, count in Counter(document).items():
            tf[d, vocab[term]] = count
    lengths = np.array([len(d) for d in documents], dtype=np.int64)
    df = np.count_nonzero(tf, axis=0).astype(float)
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    mean = lengths.mean() if n_docs else 0.0
    avgdl = mean if mean > 0 else 1.0
    norm = k1 * (1 - b + b * lengths / avgdl)
    held = tf > 0
    safe = np.where(held, tf, 1.0)  # (k1 = 0: 0 / 0 where a document lacks the term)
    weights = np.where(held, idf * safe * (k1 + 1) / (safe + norm[:, None]), 0.0)
    scores = np.zeros((len(queries), n_docs))
    for q, query in enumerate(queries):
        counts = Counter(vocab[t] for t in query if t in vocab)
        for term in sorted(counts):
            scores[q] += float(counts[term]) * weights[:, term]
    return scores
