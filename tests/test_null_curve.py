"""Tests of the expected null PR curve and the null interpolated AP.

Oracles: brute-force enumeration of every placement of the positives in exact
fractions; 50-digit sums of the negative hypergeometric law (mpmath); Monte
Carlo with numpy's generator (independent of pranker's sampler) at large N.
"""

from fractions import Fraction
from itertools import combinations
from math import comb

import mpmath
import numpy as np
import pytest

from pranker import null_params
from pranker.null.curve import expected_null_pr_curve, null_interpolated_ap


def brute_curves(N, P):
    """Exact E[k / r_k] and E[max_{j>=k} j / r_j] by enumerating all C(N, P) rankings."""
    prec = [Fraction(0)] * P
    interp = [Fraction(0)] * P
    count = 0
    for ranks in combinations(range(1, N + 1), P):
        count += 1
        best = Fraction(0)
        for k in range(P, 0, -1):
            p = Fraction(k, ranks[k - 1])
            prec[k - 1] += p
            best = max(best, p)
            interp[k - 1] += best
    return [x / count for x in prec], [x / count for x in interp]


@pytest.mark.parametrize("N", range(1, 11))
def test_curve_matches_enumeration(N):
    for P in range(1, N + 1):
        recall, got = expected_null_pr_curve(N, P)
        exact, _ = brute_curves(N, P)
        np.testing.assert_allclose(recall, [k / P for k in range(1, P + 1)], rtol=0, atol=0)
        np.testing.assert_allclose(got, [float(x) for x in exact], rtol=2e-15, atol=0)


def _mp_curve_point(N, P, k):
    """E[k / r_k] as a 50-digit sum over the negative hypergeometric law."""
    with mpmath.workdps(50):
        total = mpmath.mpf(0)
        for r in range(k, N - P + k + 1):
            total += mpmath.mpf(comb(r - 1, k - 1) * comb(N - r, P - k)) / r
        return total * k / comb(N, P)


@pytest.mark.parametrize(
    "N,P,ks",
    [
        (3000, 7, [1, 2, 4, 7]),  # sparse: forward recurrence from k = 1
        (2000, 1500, [1, 100, 250, 251, 252, 900, 1500]),  # dense: starts mid-curve
        (1500, 750, [1, 2, 375, 750]),  # P = N/2 boundary
        (1200, 1199, [1, 600, 1199]),
    ],
)
def test_curve_matches_high_precision_sum(N, P, ks):
    _, got = expected_null_pr_curve(N, P)
    for k in ks:
        want = float(_mp_curve_point(N, P, k))
        assert got[k - 1] == pytest.approx(want, rel=5e-15, abs=0), (N, P, k)


def test_curve_large_n_closed_forms():
    # P = 1: E[1/r] = H_N / N; P = 2: E[1/r_1] = 2 (H_N - 1) / (N - 1) and the
    # recurrence's k = 1 equation gives E[1/r_2]; P = N: every precision is 1.
    with mpmath.workdps(40):
        for N in (10**5, 10**6):
            H = mpmath.harmonic(N)
            _, c1 = expected_null_pr_curve(N, 1)
            assert c1[0] == pytest.approx(float(H / N), rel=1e-15)
            a1 = 2 * (H - 1) / (N - 1)
            a2 = (2 - a1) / N  # (P - 1) a1 + (M + 2) a2 = P with P = 2, M = N - 2
            _, c2 = expected_null_pr_curve(N, 2)
            assert c2[0] == pytest.approx(float(a1), rel=1e-14)
            assert c2[1] == pytest.approx(float(2 * a2), rel=1e-14)
    _, c = expected_null_pr_curve(1000, 1000)
    np.testing.assert_array_equal(c, 1.0)


def test_curve_monte_carlo_large_n():
    N, P, n = 1_000_000, 40, 20_000
    rng = np.random.default_rng(12345)
    draws = np.floor(rng.random((n, P)) * N).astype(np.int64) + 1
    draws.sort(axis=1)
    ok = np.all(np.diff(draws, axis=1) > 0, axis=1)  # reject repeats: still a uniform P-subset
    draws = draws[ok]
    prec = np.arange(1, P + 1) / draws
    mc = prec.mean(axis=0)
    se = prec.std(axis=0, ddof=1) / np.sqrt(draws.shape[0])
    _, got = expected_null_pr_curve(N, P)
    z = np.abs(got - mc) / se
    assert z.max() < 5.0, z.max()


@pytest.mark.parametrize("N,P", [(50, 1), (50, 7), (200, 150), (10**6, 10**3), (10**5, 99_990)])
def test_curve_mean_is_null_mean(N, P):
    # identity AP = (1/P) sum_k k / r_k: an extra consistency check only
    _, c = expected_null_pr_curve(N, P)
    assert c.mean() == pytest.approx(null_params(N, P).mean, rel=1e-13)
    assert np.all((c > 0) & (c <= 1))


@pytest.mark.parametrize(
    "N,P,err",
    [(5, 6, ValueError), (5, 0, ValueError), (5.5, 2, TypeError), ([5, 6], 2, ValueError)],
)
def test_curve_bad_input(N, P, err):
    with pytest.raises(err):
        expected_null_pr_curve(N, P)


def test_curve_refuses_hopeless_size():
    with pytest.raises(ValueError, match="direct sum"):
        expected_null_pr_curve(10**14, 2)


@pytest.mark.parametrize("N,P", [(12, 4), (9, 6), (10, 1)])
def test_interpolated_ap_monte_carlo_within_se_of_exact(N, P):
    _, interp = brute_curves(N, P)
    exact_mean = float(sum(interp) / P)
    est = null_interpolated_ap(N, P, n_draws=40_000, seed=2024, curve=True)
    assert abs(est.mean - exact_mean) < 5 * est.se, (est.mean, exact_mean, est.se)
    z = np.abs(est.precision - np.array([float(x) for x in interp])) / np.maximum(
        est.precision_se, 1e-300
    )
    assert z.max() < 5.0
    # the curve's mean over k is the interpolated AP estimate itself
    assert est.precision.mean() == pytest.approx(est.mean, rel=1e-12)


def test_interpolated_ap_reproducible_and_bounded():
    a = null_interpolated_ap(500, 20, n_draws=3000, seed=7)
    b = null_interpolated_ap(500, 20, n_draws=3000, seed=7)
    assert a.mean == b.mean and a.se == b.se
    # interpolated precision dominates precision pointwise, so its mean does too
    assert a.mean > null_params(500, 20).mean + 3 * a.se
    exact = null_interpolated_ap(30, 30, n_draws=10, seed=1)
    assert exact.mean == 1.0 and exact.se == 0.0


def test_interpolated_ap_bad_input():
    with pytest.raises(ValueError, match="n_draws"):
        null_interpolated_ap(10, 2, n_draws=1)
    with pytest.raises(ValueError):
        null_interpolated_ap(10, 11)


@pytest.mark.parametrize("N,P", [(100_000, 30), (2000, 1500)])
def test_interpolated_ap_against_independent_simulation(N, P):
    # numpy's generator, not pranker's sampler; the two estimates must agree within
    # their combined standard error (5 sigma)
    rng = np.random.default_rng(77)
    n = 4000
    if 2 * P <= N:
        ranks = np.floor(rng.random((3 * n // 2, P)) * N).astype(np.int64) + 1
        ranks.sort(axis=1)
        ranks = ranks[np.all(np.diff(ranks, axis=1) > 0, axis=1)][:n]
    else:
        ranks = np.sort(np.argsort(rng.random((n, N)), axis=1)[:, :P] + 1, axis=1)
    prec = np.arange(1, P + 1) / ranks
    interp = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]
    ap = interp.mean(axis=1)
    est = null_interpolated_ap(N, P, n_draws=20_000, seed=5)
    se = np.hypot(est.se, ap.std(ddof=1) / np.sqrt(ap.size))
    assert abs(est.mean - ap.mean()) < 5 * se


def test_null_interpolated_ap_default_seed_is_fixed():
    """The same call gives the same number (a fixed, recorded default seed)."""
    a = null_interpolated_ap(200, 10, n_draws=2000)
    b = null_interpolated_ap(200, 10, n_draws=2000)
    assert a == b
    assert a.seed == null_interpolated_ap(200, 10, n_draws=10).seed
