"""Uncertainty of recall figures: Wilson intervals, the exact McNemar test and a paired bootstrap.

A recall over n questions is a proportion of n yes/no verdicts, so with a few dozen questions
one question moves it by several points. These are the standard tools for saying how much a
figure, or a difference between two configurations on the same questions, can be trusted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

CONFIDENCE = 0.95
Z_95 = 1.959963984540054  # the 97.5% normal quantile, as scipy.special.ndtri(0.975) gives it
RESAMPLES = 10_000
SEED = 0


@lru_cache(maxsize=4096)
def wilson_interval(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of the proportion ``k / n`` (Wilson 1927); ``(0, 1)`` for n = 0.
    Cached: a sweep asks for the same few counts many times.

    The closed form as Newcombe (1998) gives it, computed step for step as
    ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")`` does (the same floats), without
    importing ``scipy.stats``: that import is a second of the app's first page."""
    if n == 0:
        return 0.0, 1.0
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if confidence == CONFIDENCE:
        z = Z_95
    else:
        from scipy.special import ndtri  # a tenth of a second: only for other confidences

        z = float(ndtri(0.5 + 0.5 * confidence))
    p = k / n
    denom = 2 * (n + z**2)
    centre = (2 * n * p + z**2) / denom
    delta = z / denom * math.sqrt(4 * n * p * (1 - p) + z**2)
    return (0.0 if k == 0 else centre - delta), (1.0 if k == n else centre + delta)


def percent_digits(n: int) -> int:
    """Decimals a percentage of ``n`` items (questions, evidence spans, chunks) is shown with,
    in the app and the command line alike: the fewest that still tell any two counts apart. One
    item is 100 / n points, so whole percents do up to 100 items, one decimal up to 1,000, two
    beyond. More is false precision: "15.38%" of 13 questions claims a resolution that 2 of 13,
    give or take the 4-42% its interval spans, does not have."""
    return 0 if n <= 100 else 1 if n <= 1000 else 2


def percent_text(share: float, n: int) -> str:
    """``share`` of ``n`` items as a percentage by :func:`percent_digits` ("15%")."""
    return f"{100 * share:.{percent_digits(n)}f}%"


def mcnemar_exact(fixed: int, broken: int) -> float:
    """Two-sided p-value of the exact McNemar test: under "no difference" each of the
    ``fixed + broken`` discordant questions is equally likely to go either way (binomial, p = 0.5).
    1.0 when no question changed."""
    if fixed < 0 or broken < 0:
        raise ValueError(f"counts must be >= 0, got fixed={fixed}, broken={broken}")
    if fixed + broken == 0:
        return 1.0
    from scipy import stats  # here, not with the lab: a second of the app's first page

    return float(stats.binomtest(fixed, fixed + broken, 0.5).pvalue)


def mcnemar_interval(
    fixed: int, broken: int, n: int, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """Interval of B's recall minus A's over ``n`` paired questions that agrees with the exact
    McNemar test: the Clopper-Pearson interval (Clopper and Pearson 1934) of the share of the
    ``fixed + broken`` changed questions that B fixed, read as the difference
    ``(fixed - broken) / n``. Conditional on how many questions changed, as the test is; it leaves
    out zero exactly when the test's two-sided p-value is below ``1 - confidence``. ``(0, 0)``
    when no question changed."""
    if fixed < 0 or broken < 0 or fixed + broken > n:
        raise ValueError(
            f"need 0 <= fixed, broken and fixed + broken <= n, got {fixed}, {broken}, {n}"
        )
    changed = fixed + broken
    if changed == 0:
        return 0.0, 0.0
    from scipy import stats

    share = stats.binomtest(fixed, changed, 0.5).proportion_ci(confidence, method="exact")
    scale = changed / n
    return scale * (2 * share.low - 1), scale * (2 * share.high - 1)


def paired_bootstrap(
    a: Sequence[bool],
    b: Sequence[bool],
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``mean(b) - mean(a)`` over questions resampled in pairs
    (each question keeps its two verdicts). Seeded: the same inputs give the same interval."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("a and b must be verdicts of the same questions")
    if len(a) == 0:
        return 0.0, 0.0
    diff = b - a
    if np.all(diff == diff[0]):
        return float(diff[0]), float(diff[0])
    from scipy import stats

    result = stats.bootstrap(
        (diff,),
        np.mean,
        n_resamples=resamples,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)
