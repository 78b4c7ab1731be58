"""Recall uncertainty: Wilson intervals, the exact McNemar test and the paired bootstrap, checked
against values computed by hand."""

import math

import pytest

from lab.stats import mcnemar_exact, paired_bootstrap, wilson_interval

Z = 1.959963984540054  # the 97.5% normal quantile


def wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(("k", "n"), [(0, 10), (6, 13), (13, 13), (1, 25), (12, 25)])
def test_wilson_interval_matches_the_formula(k, n):
    assert wilson_interval(k, n) == pytest.approx(wilson_by_hand(k, n), abs=1e-9)


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_interval_matches_newcombes_table(k, n, low, high):
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I,
    # method 3 (score interval without continuity correction)
    assert wilson_interval(k, n) == pytest.approx((low, high), abs=5e-5)


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
def test_wilson_interval_is_scipys_to_the_last_bit(confidence):
    from scipy import stats  # the reference: results must not move when scipy.stats is not used

    for n in range(1, 121):
        for k in range(n + 1):
            ci = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
            assert wilson_interval(k, n, confidence) == (float(ci.low), float(ci.high))


def test_wilson_interval_of_nothing_correct_starts_at_zero():
    low, high = wilson_interval(0, 10)
    assert low == 0.0
    assert high == pytest.approx(3.8415 / 13.8415, abs=1e-4)  # z^2 / (n + z^2)


def test_wilson_interval_without_questions_is_everything():
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_mcnemar_on_known_discordant_counts():
    assert mcnemar_exact(3, 1) == pytest.approx(0.625)  # 2 * (1 + 4) / 16
    assert mcnemar_exact(5, 0) == pytest.approx(0.0625)  # 2 / 32
    assert mcnemar_exact(6, 0) == pytest.approx(0.03125)  # 2 / 64
    assert mcnemar_exact(2, 2) == pytest.approx(1.0)
    assert mcnemar_exact(1, 9) == pytest.approx(0.021484375)  # 2 * (1 + 10) / 1024
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)
    assert mcnemar_exact(0, 0) == 1.0


def test_paired_bootstrap_is_seeded_and_brackets_the_difference():
    a = [1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 1]
    b = [1, 1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1]
    first = paired_bootstrap(a, b)
    assert first == paired_bootstrap(a, b)
    low, high = first
    assert low < 2 / 13 < high  # the observed difference: 3 fixed, 1 broken


def test_paired_bootstrap_of_identical_verdicts_is_a_point():
    assert paired_bootstrap([1, 0, 1], [1, 0, 1]) == (0.0, 0.0)
