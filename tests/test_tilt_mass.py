"""No probability lost, over the whole (N, P) plane: the recursions' CGFs against independent oracles.

The exact forward recursion once flushed cells below 1e-300 of a layer's
total. With thousands of positives a layer spans more than ~690 nats and
those cells (small offsets, which carry many completions) held real
probability: K(0) was -3.3 at N = 5,000, P = 2,500 and p-values came out 0.
These tests sweep P/N from 0.001 to 0.999 and N beyond the exact-layer
threshold, on every recursion that scales its layers: the single-ranking CGF
(``TiltEngine.cgf``), its stored layers and sampler, and mean AP's shared
recursion (``MeanAPNull.cgf``).

Oracles: the closed-form null mean and variance (``null_params``, harmonic
sums, no recursion), ``log C(N, P)`` from exact integers, a plain log-space
recursion written here with ``numpy.logaddexp`` (no scaling at all), and
plain Monte Carlo.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from pranker import WorkBudgetWarning
from pranker._numba.tilt import tilt_draws, tilt_forward
from pranker.null.choice import EXACT_TABLE_CELLS
from pranker.null.mean_ap import MeanAPNull
from pranker.null.moments import null_params
from pranker.null.tilt import TiltEngine


def _grid():
    """(N, P) with P/N from 0.001 to 0.999, N from 10^3 to past the exact-layer threshold."""
    pairs = set()
    for N in (1000, 3000, 6000, 12000, 40000):
        for f in (0.001, 0.01, 0.05, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99, 0.999):
            P = max(2, round(f * N))
            if P < N and P * (N - P + 1) <= 7 * 10**7:  # a few tenths of a second per pass
                pairs.add((N, P))
    pairs |= {
        (5000, 2500),
        (6000, 2500),
        (8000, 2000),
        (13000, 11700),
        (30000, 29700),
        (4000, 2800),
    }
    return sorted(pairs)


GRID = _grid()


def _log_comb_exact(N, P):
    return math.lgamma(N + 1) - math.lgamma(P + 1) - math.lgamma(N - P + 1)


def test_the_grid_covers_the_plane():
    """Both sides of the exact-layer threshold and P/N from below 0.01 to above 0.99."""
    ratios = [P / N for N, P in GRID]
    assert min(ratios) <= 0.002 and max(ratios) >= 0.998
    assert any(P * (N - P + 1) > EXACT_TABLE_CELLS for N, P in GRID)
    assert any(P >= 2000 for N, P in GRID) and len(GRID) >= 40


@pytest.mark.parametrize("N,P", GRID)
def test_cgf_at_zero_is_the_null(N, P):
    """K(0) = 0, K'(0) = P x the exact null mean, K''(0) = P^2 x the exact null variance."""
    par = null_params(N, P)  # closed forms (harmonic sums), no recursion
    mean_s, var_s = P * par.mean, P * P * par.var
    e = TiltEngine(N, P)
    k, k1, k2 = e.cgf(0.0)
    # log C(N, P) from log-gammas and the recursion's log Z each carry ~1e-13 relative
    assert abs(k) <= 1e-9, (N, P, k)
    assert abs(k1 - mean_s) <= 1e-9 * math.sqrt(var_s) + 1e-12 * mean_s, (N, P, k1, mean_s)
    assert k2 == pytest.approx(var_s, rel=1e-8)


@pytest.mark.parametrize("N,P", GRID[::3])
def test_mean_ap_cgf_at_zero(N, P):
    """Mean AP's shared recursion: K(0) = 0 and the mean and variance, also read at smaller N."""
    ns = [N, max(P + 1, N - N // 7), max(P + 1, N // 2)]
    null = MeanAPNull(ns, [P] * 3)
    k, k1, k2 = null.cgf(0.0)
    means = [null_params(n, P).mean for n in ns]
    variances = [null_params(n, P).var for n in ns]
    assert abs(k) <= 1e-9
    assert k1 == pytest.approx(np.mean(means), rel=1e-12, abs=1e-12)
    assert k2 == pytest.approx(np.sum(variances) / 9.0, rel=1e-8)


def _log_space_cgf(N, P, phi):
    """log E[e^{phi S}] by the offset recursion in plain log space (numpy.logaddexp), no scaling."""
    m = N - P
    d = np.arange(m + 1)
    logG = np.zeros(m + 1)
    for k in range(1, P + 1):
        logG = np.logaddexp.accumulate(phi * k / (k + d) + logG)
    return float(logG[m]) - _log_comb_exact(N, P)


@pytest.mark.parametrize(
    "N,P",
    [(600, 300), (2000, 1000), (1500, 1400), (3000, 2900), (4000, 2800), (1200, 60), (5000, 2500)],
)
@pytest.mark.parametrize("phi_sd", [-3.0, 0.5, 3.0, 8.0, 40.0])
def test_tilted_cgf_against_log_space(N, P, phi_sd):
    """K(phi) of the block-scaled recursion against a log-space recursion, deep tilts included."""
    e = TiltEngine(N, P)
    phi = phi_sd / e.sd_s
    want = _log_space_cgf(N, P, phi)
    got = e.cgf(phi, derivs=False)[0]
    assert got == pytest.approx(want, rel=1e-10, abs=1e-8)
    # the storing pass (the sampler's tables) gives the same partition function
    log_zc, _, _, _ = tilt_forward(N, P, phi, e.mean_s, False, True)
    assert log_zc - e.log_comb + phi * e.mean_s == pytest.approx(want, rel=1e-10, abs=1e-8)


@pytest.mark.parametrize(
    "N,P,phi_sd", [(3000, 1500, 0.0), (4000, 2800, 2.0), (3000, 2900, 1.0), (2500, 1000, -2.0)]
)
def test_sampler_draws_the_tilted_law_at_large_p(N, P, phi_sd):
    """Mean and variance of the tilted draws against K'(phi), K''(phi) from the log-space oracle."""
    e = TiltEngine(N, P)
    phi = phi_sd / e.sd_s
    h = 1e-3 / e.sd_s  # central differences of the oracle's K
    k_m, k_0, k_p = (_log_space_cgf(N, P, phi + t) for t in (-h, 0.0, h))
    mean = (k_p - k_m) / (2 * h)
    var = (k_p - 2 * k_0 + k_m) / (h * h)
    _, _, _, layers = tilt_forward(N, P, phi, e.mean_s, False, True)
    n = 4000
    S = np.empty(n)
    tilt_draws(layers, N, P, np.uint64(2026), 0, n, S)
    sd = math.sqrt(var)
    # 5 standard errors of the mean; the variance within 15 % (its se ~ 2.3 % here)
    assert abs(S.mean() - mean) < 5 * sd / math.sqrt(n), (S.mean(), mean, sd)
    assert S.var() == pytest.approx(var, rel=0.15)


@pytest.mark.parametrize("method", ["tilt", "auto"])
@pytest.mark.parametrize(
    "N,P,z",
    [(2000, 1000, 2.5), (4000, 2000, 2.0), (4000, 3960, 2.0), (3000, 900, 3.0), (1200, 1188, 2.0)],
)
def test_default_pvalue_against_monte_carlo(N, P, z, method):
    """The tilt's and the default's p-value at the null mean + z sd, against plain Monte Carlo.

    Within 4 combined standard errors; the default (here the saddlepoint, no
    standard error) within 4 Monte Carlo standard errors plus its stated bound.
    """
    from pranker import significance_from_ap
    from pranker._numba.sampling import null_ap_draws

    par = null_params(N, P)
    a = par.mean + z * math.sqrt(par.var)
    res = significance_from_ap(a, N, P, method=method)
    n = 30_000
    draws = np.empty(n)
    null_ap_draws(np.uint64(77 + N + P), 0, n, N, P, draws)
    q = float(np.mean(draws >= a))
    assert res.pvalue > 0 and math.isfinite(res.log10_pvalue)
    if res.pvalue_rse is None:
        assert method == "auto" and res.method == "saddlepoint"
        lo, hi = res.pvalue_interval
        se = math.sqrt(q * (1 - q) / n)
        assert lo - 4 * se <= q <= hi + 4 * se, (res.pvalue, q, se)
        return
    se = math.sqrt(q * (1 - q) / n + (res.pvalue * res.pvalue_rse) ** 2)
    assert math.isfinite(res.pvalue_rse)
    assert abs(res.pvalue - q) <= 4 * se, (res.pvalue, q, se)


@pytest.mark.parametrize("N,P", [(5000, 2500), (3000, 2990), (2000, 40), (20000, 19900)])
def test_no_zero_below_the_largest_ap(N, P):
    """Just below the largest AP (one positive moved down one rank) the p-value is positive and finite."""
    from pranker import significance_from_ap

    # ranks 1..P-1 and P+1: S = (P - 1) + P / (P + 1)
    a = ((P - 1) + P / (P + 1)) / P
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkBudgetWarning)
        res = significance_from_ap(a, N, P)
    assert res.pvalue > 0 or res.log10_pvalue > -math.inf
    assert math.isfinite(res.log10_pvalue)
    # the truth: the top P - 1 ranks and rank P or P + 1 hold the positives
    # (the best two placements), so p = 2 / C(N, P)
    want = math.log10(2.0) - _log_comb_exact(N, P) / math.log(10.0)
    if math.isfinite(res.pvalue_rse):
        assert abs(res.log10_pvalue - want) <= 3 * res.pvalue_rse / math.log(10.0) + 1e-6
    else:  # stopped by the work budget with too few draws: the rigorous interval holds it
        lo, hi = res.log10_pvalue_interval
        assert lo - 1e-9 <= want <= hi and lo <= res.log10_pvalue <= hi


def test_no_hit_inside_the_support_is_an_error(monkeypatch):
    """A tilted estimate with no draw in the tail, for a threshold inside the support, raises."""
    e = TiltEngine(300, 30)
    s = e.mean_s + 2 * e.sd_s
    ok = e.tail(s)
    assert ok.log10_pvalue > -math.inf
    # a sampler whose draws never reach the tail (all at the smallest S)
    monkeypatch.setattr(
        e,
        "_contributions",
        lambda s, j, n, upper, estimate=True, rtol=0.02: (0.0, np.zeros(n)) if estimate else None,
    )
    with pytest.raises(RuntimeError, match="none of .* draws reached"):
        e.tail(s, max_draws=8192)
    # above the largest S no placement reaches it: 0 is the truth there, not an error
    assert e.tail(30.5).log10_pvalue == -math.inf
