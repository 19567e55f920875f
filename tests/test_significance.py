"""pranker() and the beta fit: structure, degenerate cases, and Monte Carlo checks."""

import math

import numpy as np
import pytest
from scipy import stats

from pranker import auprc_ap, null_params, pranker
from pranker.null import min_auprc, null_ap_samples
from pranker.null.beta import beta_fit

Y = [1, 1, 1, 0, 0, 0, 1, 0, 1, 0]
S = [0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3]


def test_default_is_auto_and_exact_on_seed_example():
    # C(10, 5) = 252 rankings: the ones with AP >= 29/30 are the perfect one and
    # this one (ranks 1, 2, 3, 4, 6), so the exact p-value is 2/252
    res = pranker(S, Y)
    assert res.method == "exact" and res.pvalue == pytest.approx(2 / 252, rel=1e-12)
    # precomputed params only supply the moments; R's beta is method="beta"
    assert pranker(S, Y, params=null_params(10, 5)).method == "exact"
    assert pranker(S, Y, params=null_params(10, 5), method="beta").method == "beta"


def test_result_fields_on_seed_example():
    res = pranker(S, Y, method="beta")
    assert res.auprc == pytest.approx(29 / 30)
    assert res.statistic == res.auprc
    assert (res.n, res.n_pos) == (10, 5)
    m, v = null_params(10, 5)
    assert (res.null_mean, res.null_var) == (m, v)
    assert res.min_auprc == pytest.approx(min_auprc(10, 5))
    assert res.min_auprc < res.null_interval[0] < res.null_mean < res.null_interval[1] < 1
    assert res.null_interval_method == "beta" and res.pvalue_interval is None
    # the p-value is the beta upper tail, computed here with scipy directly
    a = res.min_auprc
    mm = (m - a) / (1 - a)
    vv = v / (1 - a) ** 2
    c = mm * (1 - mm) / vv - 1
    want = stats.beta.sf((res.auprc - a) / (1 - a), mm * c, (1 - mm) * c)
    # ... floored at the null probability of the perfect ranking, 1 / C(10, 5)
    assert want < 1 / 252
    assert res.pvalue == pytest.approx(1 / 252, rel=1e-12)
    # the exact p-value is 2/252 (the perfect ranking and this one): the beta
    # tail is too light at P = 5, as the seed warns for small P
    assert res.null.fit.alpha == pytest.approx(mm * c) and res.null.fit.beta == pytest.approx(
        (1 - mm) * c
    )
    with pytest.raises(AttributeError):
        res.pvalue = 0.5  # frozen
    d = res.to_dict()
    assert d["auprc"] == res.auprc and d["null_interval"] == list(res.null_interval)
    assert d["log10_pvalue"] == pytest.approx(math.log10(1 / 252))
    # the old names still answer, with a DeprecationWarning
    with pytest.warns(DeprecationWarning):
        assert res.conf_int == res.null_interval
    with pytest.warns(DeprecationWarning):
        assert res.pvalue_ci is None


def test_fitted_beta_has_the_exact_moments():
    for N, P in [(100, 10), (10**6, 37), (50, 49)]:
        m, v = null_params(N, P)
        fit = beta_fit(m, v, N, P)
        dist = fit.frozen()
        assert dist.mean() == pytest.approx(m, rel=1e-9)
        assert dist.var() == pytest.approx(v, rel=1e-9)
        assert dist.support() == pytest.approx((min_auprc(N, P), 1.0))


def test_params_supply_the_moments_and_feed_the_beta():
    # R's beta from user moments: the p-value is the beta tail at these moments (scipy here)
    m, v = 0.6, 0.02
    res = pranker(S, Y, params=(m, v), method="beta")
    assert (res.null_mean, res.null_var) == (m, v)
    a = min_auprc(10, 5)
    mm, vv = (m - a) / (1 - a), v / (1 - a) ** 2
    c = mm * (1 - mm) / vv - 1
    want = stats.beta.sf((res.auprc - a) / (1 - a), mm * c, (1 - mm) * c)
    assert res.pvalue == pytest.approx(max(want, 1 / 252), rel=1e-10)
    # with another method they are only reported; the p-value is unchanged
    ex = pranker(S, Y, params=(m, v))
    assert ex.null_mean == m and ex.pvalue == pranker(S, Y).pvalue


def test_bad_params_and_conf_level():
    with pytest.raises(ValueError, match="pair"):
        pranker(S, Y, params=0.5)
    with pytest.raises(ValueError, match="outside"):
        pranker(S, Y, params=(0.05, 0.01), method="beta")
    with pytest.raises(ValueError, match="do not fit"):
        pranker(S, Y, params=(0.6, 0.5), method="beta")
    with pytest.raises(ValueError, match=">= 0"):
        pranker(S, Y, params=(0.6, -1.0))
    with pytest.raises(ValueError, match="conf_level"):
        pranker(S, Y, conf_level=1.5)


def test_conf_int_is_on_the_auprc_scale_and_covers_monte_carlo():
    N, P = 500, 40
    res = pranker(np.arange(N), np.arange(N) % (N // P) == 0, conf_level=0.9)
    assert res.n_pos == 42
    draws = null_ap_samples(N, res.n_pos, 40_000, seed=5)
    lo, hi = res.null_interval
    assert res.method == "tilt" and res.null_interval_method == "montecarlo"
    inside = np.mean((draws >= lo) & (draws <= hi))
    # quantiles of 65,536 seeded random rankings (another seed than these draws); SE ~0.0015
    assert abs(inside - 0.9) < 0.006
    assert lo > res.min_auprc and hi < 1


def test_pvalue_close_to_monte_carlo_for_moderate_p():
    N, P = 2000, 100
    rng = np.random.default_rng(0)
    y = np.zeros(N, bool)
    y[rng.choice(N, P, replace=False)] = True
    s = rng.standard_normal(N) + 0.2 * y
    res = pranker(s, y)
    draws = null_ap_samples(N, P, 50_000, seed=9)
    p_mc = (np.sum(draws >= res.auprc) + 1) / (draws.size + 1)
    assert 1e-3 < p_mc < 0.5
    assert res.pvalue == pytest.approx(p_mc, abs=0.01)


def test_degenerate_all_positive_and_single_instance():
    res = pranker([0.3, 0.1, 0.2], [1, 1, 1])
    assert res.auprc == 1.0 and res.pvalue == 1.0 and res.null_var == 0.0
    assert res.null_interval == (1.0, 1.0) and res.method == "exact"
    assert math.isnan(res.zscore)
    res = pranker([0.3], [1])
    assert res.auprc == 1.0 and res.pvalue == 1.0


def test_single_positive_is_exact_with_its_exact_null_interval():
    # P = 1: AP = 1/r with r uniform on 1..N, so p = r / N exactly, and the central
    # 95 % of the null AP runs from 1/N' to 1/r' with r' the 2.5 % and 97.5 % rank quantiles
    N = 10**5
    for r in [1, 10, 100, 500, N]:
        s = -np.arange(N, dtype=float)
        y = np.zeros(N)
        y[r - 1] = 1
        res = pranker(s, y)
        assert res.auprc == pytest.approx(1 / r) and res.method == "exact"
        assert res.pvalue == r / N and res.pvalue_rse == 0.0
    lo, hi = res.null_interval
    # P(AP <= lo) >= 0.025 first at the 2,500 smallest values 1/N ... 1/(N - 2499)
    assert lo == pytest.approx(1 / (N - 2499), rel=1e-12)
    assert hi == pytest.approx(1 / 2501, rel=1e-12)


def test_tie_mode_passed_through():
    s = [1.0, 1.0, 0.0]
    y = [0, 1, 0]
    assert pranker(s, y, ties="optimistic").auprc == 1.0
    assert pranker(s, y, ties="pessimistic").auprc == 0.5
    assert pranker(s, y).auprc == auprc_ap(s, y) == 0.75


def test_huge_n_params_stay_finite():
    m, v = null_params(10**12, 10**6)
    fit = beta_fit(m, v, 10**12, 10**6)
    assert fit.alpha > 0 and fit.beta > 0 and np.isfinite(fit.sf(2e-6))
    assert fit.sf(m) == pytest.approx(0.5, abs=0.05)


def test_betafit_functions_match_scipy_stats_beta():
    fit = beta_fit(*null_params(300, 12), 300, 12)
    ref = stats.beta(fit.alpha, fit.beta, loc=fit.lower, scale=fit.scale)
    x = np.linspace(0.0, 1.0, 41)
    np.testing.assert_allclose(fit.cdf(x), ref.cdf(x), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fit.pdf(x), ref.pdf(x), rtol=1e-10, atol=1e-12)
    sf_ref = np.maximum(ref.sf(x), fit.p_best)
    np.testing.assert_allclose(fit.sf(x), sf_ref, rtol=1e-12, atol=1e-15)
    q = np.linspace(0.01, 0.99, 9)
    np.testing.assert_allclose(fit.ppf(q), ref.ppf(q), rtol=1e-10)


def test_two_point_null_n2_p1():
    # N = 2, P = 1: AP is 1 or 1/2 with probability 1/2 each; no beta fits
    fit = beta_fit(*null_params(2, 1), 2, 1)
    assert fit.two_point
    assert fit.sf(1.0) == pytest.approx(0.5) and fit.sf(0.5) == 1.0
    assert fit.cdf(0.5) == pytest.approx(0.5) and fit.cdf(1.0) == 1.0
    assert pranker([0.9, 0.1], [1, 0]).pvalue == pytest.approx(0.5)
    assert pranker([0.1, 0.9], [1, 0]).pvalue == 1.0
    assert pranker([0.1, 0.9], [1, 0]).null_interval == (0.5, 1.0)


def test_log10_pvalue_interval_carries_what_float64_cannot():
    """Below 1e-308 the linear interval underflows to (0, 0); the log10 interval does not.

    Oracle: the only placement of 300 positives among 3,000 with AP = 1 puts
    them all on top, so p = 1 / C(3000, 300) (log10 from lgamma, in the test).
    """
    from pranker import significance_from_ap

    log10_p = -(math.lgamma(3001) - math.lgamma(301) - math.lgamma(2701)) / math.log(10)
    res = significance_from_ap(1.0, 3000, 300)
    assert res.pvalue_interval == (0.0, 0.0)
    lo, hi = res.log10_pvalue_interval
    assert lo == pytest.approx(log10_p, abs=1e-9) and hi == pytest.approx(log10_p, abs=1e-9)
    # an approximate answer deeper than float64: the interval is finite and holds the estimate
    res = significance_from_ap(0.95, 3000, 300)
    lo, hi = res.log10_pvalue_interval
    assert math.isfinite(lo) and lo <= res.log10_pvalue <= hi < -300
    assert res.to_dict()["log10_pvalue_interval"] == [lo, hi]
