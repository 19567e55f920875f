"""Exact null distribution of AP and the third moment, against brute force in exact fractions."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from pranker import null_params
from pranker.null.exact import ExactBudgetExceeded, exact_null_distribution, exact_pvalue
from pranker.null.skewbeta import null_third_moment


def brute_force(N, P):
    """{AP as Fraction: number of placements}, every placement of P positives in N ranks."""
    counts = {}
    for ranks in itertools.combinations(range(1, N + 1), P):
        ap = sum(Fraction(k, r) for k, r in enumerate(ranks, start=1)) / P
        counts[ap] = counts.get(ap, 0) + 1
    return counts


SMALL = [(1, 1), (5, 1), (6, 2), (7, 3), (8, 4), (9, 5), (10, 3), (10, 9), (10, 10), (12, 6)]


@pytest.mark.parametrize("N,P", SMALL)
def test_distribution_matches_brute_force(N, P):
    ref = brute_force(N, P)
    keys = sorted(ref)
    d = exact_null_distribution(N, P)
    assert d.total == math.comb(N, P)
    assert d.counts.tolist() == [ref[k] for k in keys]
    assert np.allclose(d.values, [float(k) for k in keys], rtol=1e-14, atol=0)


@pytest.mark.parametrize("N,P", SMALL)
def test_pvalue_counts_match_brute_force(N, P):
    ref = brute_force(N, P)
    keys = sorted(ref)
    total = math.comb(N, P)
    # tail[i] = placements with AP >= keys[i], summed from the top
    tail = [0] * (len(keys) + 1)
    for i in range(len(keys) - 1, -1, -1):
        tail[i] = tail[i + 1] + ref[keys[i]]
    for i, v in enumerate(keys):
        pv, count, tot = exact_pvalue(float(v), N, P, return_count=True)
        assert (count, tot) == (tail[i], total)
        assert pv == tail[i] / total
        # a value strictly between attained values: ties are not involved
        if i + 1 < len(keys):
            mid = (v + keys[i + 1]) / 2
            assert exact_pvalue(float(mid), N, P) == tail[i + 1] / total


def test_ties_counted_as_greater_or_equal():
    N, P = 8, 3
    ref = brute_force(N, P)
    v = sorted(ref)[len(ref) // 2]
    tail = sum(c for k, c in ref.items() if k >= v)
    total = math.comb(N, P)
    # rounding-level perturbations upward still count the tie (relative tol 1e-12)
    assert exact_pvalue(float(v) * (1 + 1e-14), N, P) == tail / total
    # a perturbation far above the tolerance excludes the tied value
    assert exact_pvalue(float(v) * (1 + 1e-9), N, P) == (tail - ref[v]) / total


def test_tail_count_medium_against_plain_loop():
    # N = 30, P = 4: 27,405 placements, AP summed by a plain loop in floats
    N, P = 30, 4
    aps = np.array(
        [
            sum(k / r for k, r in enumerate(c, 1)) / P
            for c in itertools.combinations(range(1, N + 1), P)
        ]
    )
    rng = np.random.default_rng(0)
    for thr in np.concatenate([rng.choice(aps, 20), [aps.min(), aps.max(), 0.0, 0.5]]):
        expected = np.count_nonzero(aps >= thr * (1 - 1e-12)) / aps.size
        assert exact_pvalue(thr, N, P) == pytest.approx(expected, abs=0, rel=1e-15)


@pytest.mark.parametrize("N", [1, 2, 10, 1000, 10**9])
def test_p1_closed_form(N):
    for r in sorted({r for r in (1, 2, 3, N // 2 + 1, N) if r <= N}):
        assert exact_pvalue(1.0 / r, N, 1) == r / N


def test_exact_moments_match_closed_form():
    for N, P in [(20, 5), (30, 2), (15, 14)]:
        d = exact_null_distribution(N, P)
        mean, var = null_params(N, P)
        assert d.moment(1, central=False) == pytest.approx(mean, rel=1e-12)
        assert d.moment(2) == pytest.approx(var, rel=1e-10)


def test_limits_give_clear_errors():
    with pytest.raises(ValueError, match="EXACT_DISTRIBUTION_LIMIT"):
        exact_null_distribution(1000, 10)
    with pytest.raises(ExactBudgetExceeded, match="max_nodes"):
        exact_pvalue(0.05, 10**4, 10, max_nodes=1000)
    with pytest.raises(ValueError):
        exact_pvalue(float("nan"), 10, 2)
    with pytest.raises(ValueError):
        exact_pvalue(0.5, 3, 4)


def test_large_n_small_p_tail_is_fast_and_consistent():
    # P = 2 at N = 1e5: exact by the bounded count; check against the closed sum
    # #{r1 < r2 : 1/r1 + 2/r2 >= 2a} computed by a plain loop over r1.
    N, a = 100_000, 0.01
    t = 2 * a * (1 - 1e-12)
    count = 0
    for r1 in range(1, N):
        need = t - 1.0 / r1
        if need <= 0:
            count += N - r1
        else:
            rmax = min(N, math.floor(2.0 / need))
            while rmax > r1 and not (1.0 / r1 + 2.0 / rmax >= t):
                rmax -= 1
            count += max(0, rmax - r1)
    assert exact_pvalue(a, N, 2) == count / math.comb(N, 2)


@pytest.mark.parametrize(
    "N,P", [(1, 1), (2, 1), (3, 2), (5, 2), (6, 3), (7, 1), (8, 4), (9, 8), (9, 9)]
)
def test_third_moment_against_fractions(N, P):
    aps = [
        sum(Fraction(k, r) for k, r in enumerate(c, 1)) / P
        for c in itertools.combinations(range(1, N + 1), P)
    ]
    n = len(aps)
    mu = sum(aps) / n
    m3 = sum((x - mu) ** 3 for x in aps) / n
    assert null_third_moment(N, P) == pytest.approx(float(m3), rel=1e-10, abs=1e-15)


def test_third_moment_large_against_monte_carlo():
    # N = 1000, P = 10: Monte Carlo third moment, 4e5 draws (tolerance 5 SE)
    from pranker.null import null_ap_samples

    x = null_ap_samples(1000, 10, 400_000, seed=7)
    c = x - x.mean()
    m3 = np.mean(c**3)
    se = np.std(c**3) / np.sqrt(x.size)
    assert abs(null_third_moment(1000, 10) - m3) < 5 * se


def test_placements_at_most_agrees_with_the_integer_count():
    """The plan's "few enough placements" test, against math.comb near and far from its limit."""
    from pranker.null.logspace import placements_at_most

    for n in range(1, 120):
        for p in range(0, n + 1):
            for limit in (10**3, 10**6):
                assert placements_at_most(n, p, limit) == (math.comb(n, p) <= limit), (n, p, limit)
    # far beyond the limit it answers without building the huge integer
    assert not placements_at_most(10**12, 10**6, 10**6)
