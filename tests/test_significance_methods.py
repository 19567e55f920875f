"""pranker(..., method=...) against brute-force enumeration and closed forms."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from pranker import null_params, pranker
from pranker.null.choice import auto_method
from pranker.null.skewbeta import skew_beta_fit


def plain_ap(ranks):
    """AP from the sorted 1-based ranks of the positives, in exact fractions."""
    return sum(Fraction(k, r) for k, r in enumerate(sorted(ranks), 1)) / len(ranks)


def brute_pvalue(N, ranks):
    """P(AP_null >= AP_observed) over every placement, exact fractions."""
    obs = plain_ap(ranks)
    P = len(ranks)
    hits = sum(plain_ap(c) >= obs for c in itertools.combinations(range(1, N + 1), P))
    return Fraction(hits, math.comb(N, P))


def ranking(N, ranks):
    """scores (descending by position) and labels with positives at ``ranks``."""
    scores = np.arange(N, 0, -1, dtype=float)
    y = np.zeros(N, dtype=int)
    y[np.asarray(ranks) - 1] = 1
    return scores, y


@pytest.mark.parametrize(
    "N,ranks", [(10, [1, 4, 7]), (12, [2, 3, 9, 12]), (9, [5]), (11, [1, 2, 3, 4, 5, 6])]
)
def test_exact_method_matches_brute_force(N, ranks):
    s, y = ranking(N, ranks)
    res = pranker(s, y, method="exact")
    assert res.method == "exact"
    assert res.pvalue == pytest.approx(float(brute_pvalue(N, ranks)), rel=1e-14)
    assert res.auprc == pytest.approx(float(plain_ap(ranks)), rel=1e-14)


@pytest.mark.parametrize("N,r", [(1, 1), (10, 3), (1000, 1), (5000, 4321)])
def test_p1_closed_form(N, r):
    s, y = ranking(N, [r])
    for method in ("exact", "auto"):
        res = pranker(s, y, method=method)
        assert res.method == "exact"
        assert res.pvalue == r / N


def test_montecarlo_method_ci_contains_exact():
    N, ranks = 14, [1, 3, 8]
    s, y = ranking(N, ranks)
    p_true = float(brute_pvalue(N, ranks))
    res = pranker(s, y, method="montecarlo", seed=4, n_draws=50_000)
    assert res.method == "montecarlo" and res.n_draws == 50_000 and res.seed == 4
    assert res.pvalue_interval[0] <= p_true <= res.pvalue_interval[1]
    assert res.to_dict()["pvalue_interval"] == list(res.pvalue_interval)


def test_montecarlo_early_stopping_in_pranker():
    s, y = ranking(1000, [1, 2, 3, 5, 8])
    res = pranker(s, y, method="montecarlo", seed=1, n_draws=10**6, alpha=0.01)
    assert res.n_draws < 10**6 and res.pvalue_interval[1] < 0.01


def test_beta_method_matches_scipy():
    # the two-moment beta, recomputed here from scipy directly
    N, ranks = 200, [1, 5, 20, 40, 100, 150]
    s, y = ranking(N, ranks)
    res = pranker(s, y, method="beta")
    assert res.method == "beta" and res.pvalue_interval is None and res.pvalue_rse is None
    mean, var = null_params(N, len(ranks))
    a = sum(k / (N - len(ranks) + k) for k in range(1, len(ranks) + 1)) / len(ranks)
    m = (mean - a) / (1 - a)
    v = var / (1 - a) ** 2
    c = m * (1 - m) / v - 1
    expected = stats.beta.sf((res.auprc - a) / (1 - a), m * c, (1 - m) * c)
    assert res.pvalue == pytest.approx(expected, rel=1e-9)


def test_skewbeta_matches_three_moments():
    fit = skew_beta_fit(1000, 30)
    assert fit.matched
    dist = stats.beta(fit.alpha, fit.beta, loc=fit.lower, scale=1 - fit.lower)
    mean, var, skew = dist.stats("mvs")
    assert mean == pytest.approx(fit.mean, rel=1e-9)
    assert var == pytest.approx(fit.var, rel=1e-8)
    assert skew == pytest.approx(fit.skew, rel=1e-6)
    # against Monte Carlo: the exact skewness behind the fit
    from pranker.null import null_ap_samples

    x = null_ap_samples(1000, 30, 200_000, seed=2)
    assert stats.skew(x) == pytest.approx(fit.skew, rel=0.05)


def test_auto_rule_branches():
    assert auto_method(20, 10) == "exact"
    assert auto_method(10**9, 1) == "exact"
    assert auto_method(30, 30) == "exact"
    assert auto_method(26, 7) == "exact"  # C(26, 7) = 657,800 placements
    assert auto_method(27, 8) == "tilt"  # C(27, 8) = 2,220,075
    assert auto_method(10**4, 1000) == "saddlepoint"  # N <= 0.1 P^2, N <= 25 P: calibrated
    assert auto_method(10**4, 300) == "tilt"  # N / P^2 = 0.11
    assert auto_method(10**5, 30) == "tilt"
    # tiny: exact and equal to brute force
    s, y = ranking(12, [2, 3, 9])
    res = pranker(s, y, method="auto")
    assert res.method == "exact"
    assert res.pvalue == pytest.approx(float(brute_pvalue(12, [2, 3, 9])), rel=1e-14)
    # the top of the support is exact whatever N and P: only the perfect ranking
    # beats the second best AP (P - 1/(P+1)) / P
    s, y = ranking(10**4, list(range(1, 31)))
    res = pranker(s, y)
    assert res.method == "exact" and res.log10_pvalue == pytest.approx(
        -math.log10(math.comb(10**4, 30))
    )
    # elsewhere the tilt, with its relative standard error and interval
    rng = np.random.default_rng(0)
    ranks = np.sort(rng.choice(20_000, 30, replace=False)) + 1
    s, y = ranking(20_000, ranks)
    res = pranker(s, y, method="auto")
    assert res.method == "tilt" and res.pvalue_rse <= 0.02
    lo, hi = res.pvalue_interval
    assert lo < res.pvalue < hi and hi / lo < 1.1


def test_bad_method():
    with pytest.raises(ValueError, match="method must be one of"):
        pranker([1, 2, 3], [1, 0, 0], method="bootstrap")


def test_null_distribution_default_is_the_auto_rule():
    """pranker.null_distribution(N, P) with no method is the null the tests use."""
    from pranker import null_distribution, significance_from_ap

    ranks = [1, 4, 5, 11]
    obs = plain_ap(ranks)
    pv = null_distribution(12, 4).pvalue(float(obs))
    assert pv.method == "exact"
    assert pv.pvalue == pytest.approx(float(brute_pvalue(12, ranks)), rel=1e-12)
    # tilt territory: the same seeded estimate as significance_from_ap's default
    pv = null_distribution(1000, 10, max_nodes=5).pvalue(0.3)  # an exact-only option is ignored
    res = significance_from_ap(0.3, 1000, 10)
    assert (pv.method, res.method) == ("tilt", "tilt")
    assert pv.log10_pvalue == res.log10_pvalue  # both are TiltNull(1000, 10).pvalue(0.3)
    with pytest.raises(ValueError, match="method must be one of"):
        null_distribution(12, 4, "gaussian")
