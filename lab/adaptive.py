"""The adaptive context budget: a budget per question, chosen before answering.

The source article's budget sweep ends on "the right budget depends on the query"; its background
papers make context size a per-query variable and pick it per cluster of queries found before
retrieval. Here each question is described by what is known before any answer is read:

- ``gap``: the relative score gap between its two best-ranked chunks, ``(s1 - s2) / s1`` (a
  clear winner needs little context; a flat ranking, more);
- ``cites``: how many distinct provisions its ``TOP`` best-ranked chunks cite (a rule that
  leans on definitions needs room for them);
- its words: a TF-IDF vector over the train questions' vocabulary.

The train questions are clustered on those features (Ward linkage, ``scipy.cluster.hierarchy``,
into ``clusters`` groups) and each cluster gets the smallest of the candidate fixed budgets at
which its train questions are as often complete as at any candidate (the knee of the cluster's
budget curve). A question gets the budget of the nearest cluster centre. Everything fitted (the
feature scaling, the vocabulary, the clusters and their budgets) comes from the train questions
only; a test question contributes its ranking and its words, never its evidence. The budgets
are candidates, so none exceeds the largest fixed budget given. Deterministic: no random
start, ties to the first cluster and the smaller budget.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .text import tokenize

ADAPTIVE = "adaptive"
TOP = 3  # the best-ranked chunks whose citations count
PER_CLUSTER = 4  # train questions per cluster, roughly
MAX_CLUSTERS = 6


def score_gap(score: np.ndarray) -> float:
    """``(s1 - s2) / s1`` of a ranking's two best positive scores; 1.0 with one positive score,
    0.0 with none."""
    positive = np.sort(score[score > 0])[::-1]
    if len(positive) == 0:
        return 0.0
    if len(positive) == 1:
        return 1.0
    return float((positive[0] - positive[1]) / positive[0])


def cited(index, score: np.ndarray, top: int = TOP) -> int:
    """Distinct provisions cited by the ``top`` best-scoring chunks (ties in index order)."""
    order = np.argsort(-score, kind="stable")[:top]
    return len(
        {
            (index.chunks[k].doc, p)
            for k in order.tolist()
            if score[k] > 0
            for p in index.chunks[k].cites
        }
    )


def signals(retrieval) -> np.ndarray:
    """Questions x 2: the score gap and the citation count of each question's ranking."""
    index = retrieval.index
    rows = [(score_gap(r.score), cited(index, r.score)) for r in retrieval.rankings]
    return np.array(rows, dtype=float).reshape(len(rows), 2)


@dataclass(frozen=True)
class Vocabulary:
    """TF-IDF over the train questions' words (idf smoothed, vectors unit length)."""

    terms: tuple[str, ...]
    idf: np.ndarray

    @classmethod
    def of(cls, questions: Sequence[str]) -> Vocabulary:
        docs = [set(tokenize(q)) for q in questions]
        df = Counter(t for d in docs for t in d)
        terms = tuple(sorted(df))
        n = len(docs)
        idf = np.array([math.log((1 + n) / (1 + df[t])) + 1 for t in terms])
        return cls(terms, idf)

    def vectors(self, questions: Sequence[str]) -> np.ndarray:
        at = {t: k for k, t in enumerate(self.terms)}
        out = np.zeros((len(questions), len(self.terms)))
        for row, q in enumerate(questions):
            for t, c in Counter(tokenize(q)).items():
                if t in at:
                    out[row, at[t]] = c * self.idf[at[t]]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)


@dataclass(frozen=True)
class BudgetModel:
    """What the train questions taught: feature scaling, vocabulary, cluster centres and each
    cluster's budget (one of ``budgets``)."""

    budgets: tuple[int, ...]
    mean: np.ndarray
    std: np.ndarray
    vocabulary: Vocabulary
    centres: np.ndarray
    chosen: tuple[int, ...]

    def features(self, signal: np.ndarray, questions: Sequence[str]) -> np.ndarray:
        scaled = (signal - self.mean) / self.std
        return np.hstack([scaled, self.vocabulary.vectors(questions)])

    def predict(self, signal: np.ndarray, questions: Sequence[str]) -> np.ndarray:
        """The budget of each question: its nearest cluster centre's."""
        if not self.chosen:
            return np.full(len(questions), max(self.budgets), dtype=np.int64)
        x = self.features(signal, questions)
        distances = ((x[:, None, :] - self.centres[None, :, :]) ** 2).sum(axis=2)
        return np.array(self.chosen, dtype=np.int64)[distances.argmin(axis=1)]


def fit(
    signal: np.ndarray,
    questions: Sequence[str],
    complete: np.ndarray,
    budgets: Sequence[int],
    clusters: int | None = None,
) -> BudgetModel:
    """Fit on the train questions: ``signal`` (questions x 2, :func:`signals`), their texts,
    and ``complete[q, b]``, whether question ``q``'s context at ``budgets[b]`` held all its
    evidence. With no train question every question gets the largest budget."""
    from scipy.cluster.hierarchy import fcluster, linkage

    budgets = tuple(sorted(set(int(b) for b in budgets)))
    if not budgets or budgets[0] < 1:
        raise ValueError("the adaptive budget needs candidate budgets of at least one word")
    n = len(questions)
    empty = np.zeros((0, 0))
    if n == 0:
        return BudgetModel(budgets, np.zeros(2), np.ones(2), Vocabulary((), np.zeros(0)), empty, ())
    mean = signal.mean(axis=0)
    std = signal.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    vocabulary = Vocabulary.of(questions)
    model = BudgetModel(budgets, mean, std, vocabulary, empty, ())
    x = model.features(signal, questions)
    k = clusters or max(1, min(MAX_CLUSTERS, n // PER_CLUSTER))
    labels = (
        np.ones(n, dtype=np.int64)
        if k == 1 or n < 2
        else fcluster(linkage(x, method="ward"), t=k, criterion="maxclust")
    )
    centres, chosen = [], []
    for label in sorted(set(labels.tolist())):
        members = labels == label
        centres.append(x[members].mean(axis=0))
        completes = complete[members].sum(axis=0)
        chosen.append(budgets[int(np.flatnonzero(completes == completes.max())[0])])
    return BudgetModel(budgets, mean, std, vocabulary, np.array(centres), tuple(chosen))


__all__ = ["ADAPTIVE", "BudgetModel", "Vocabulary", "cited", "fit", "score_gap", "signals"]
