"""The second-order saddlepoint and the default that uses it.

Oracles, each independent of the code under test:
- the formula: the Gamma(n) tail from scipy (a sum of n unit exponentials,
  whose cumulants are written out here);
- the four-derivative pass: finite differences of the two-derivative pass
  (a different kernel loop);
- the null's tail: plain Monte Carlo over random rankings drawn and scored
  with numpy in this file (moderate p), and the tilted estimator (deep p;
  itself checked against enumeration and Monte Carlo elsewhere), each within
  its standard errors plus the bound the saddlepoint reports;
- the default rule: its documented boundaries, written out.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import pranker
from pranker._numba.tilt import tilt_forward, tilt_moments
from pranker.null.choice import (
    SADDLEPOINT_LOG10_BOUND,
    SADDLEPOINT_MAX_DEPTH,
    saddlepoint_region,
)
from pranker.null.saddlepoint import (
    SaddlepointNull,
    log_sf_lugannani_rice,
    log_sf_second_order,
    saddlepoint_tail,
)
from pranker.null.tilt import TiltEngine

LN10 = math.log(10.0)


@pytest.mark.parametrize("n, x", [(5, 12.0), (10, 20.0), (10, 40.0), (30, 45.0), (50, 200.0)])
def test_second_order_formula_on_the_gamma_tail(n, x):
    """A sum of n unit exponentials: K = -n log(1 - t); the second-order term cuts the error."""
    t = 1.0 - n / x  # K'(t) = n / (1 - t) = x
    k = -n * math.log(1.0 - t)
    k2 = n / (1.0 - t) ** 2
    k3 = 2.0 * n / (1.0 - t) ** 3
    k4 = 6.0 * n / (1.0 - t) ** 4
    w = math.sqrt(2.0 * (t * x - k))
    u = t * math.sqrt(k2)
    exact = stats.gamma.logsf(x, n)
    first = log_sf_lugannani_rice(0.0, w, u)
    second = log_sf_second_order(w, u, k3 / k2**1.5, k4 / k2**2)
    assert second is not None
    assert abs(second - exact) < 0.35 * abs(first - exact)
    assert abs(second - exact) < 2e-3 / n


def test_second_order_formula_refuses_where_it_does_not_apply():
    assert log_sf_second_order(0.0, 1.0, 0.1, 0.1) is None
    assert log_sf_second_order(1.0, 0.0, 0.1, 0.1) is None
    assert log_sf_second_order(1.0, 0.1, 0.0, 0.0) is None  # the bracket is negative


@pytest.mark.parametrize("N, P, z", [(300, 100, 2.0), (1000, 200, 6.0), (120, 60, -2.0)])
def test_four_derivative_pass_against_differences_of_the_two_derivative_pass(N, P, z):
    eng = TiltEngine(N, P)
    c = eng.mean_s + z * eng.sd_s
    phi = z / eng.sd_s
    log_z, m1, m2, m3, m4 = tilt_moments(N, P, phi, c)
    log_z2, a1, a2, _ = tilt_forward(N, P, phi, c, True, False)
    assert log_z == pytest.approx(log_z2, rel=1e-13, abs=1e-12)
    assert (m1, m2) == pytest.approx((a1, a2), rel=1e-12, abs=1e-12)
    k2 = m2 - m1 * m1
    k3 = m3 - 3 * m2 * m1 + 2 * m1**3
    k4 = m4 - 4 * m3 * m1 - 3 * m2 * m2 + 12 * m2 * m1 * m1 - 6 * m1**4

    def var(ph):
        _, b1, b2, _ = tilt_forward(N, P, ph, c, True, False)
        return b2 - b1 * b1

    h = 0.01 / math.sqrt(k2)
    vp, v0, vm = var(phi + h), var(phi), var(phi - h)
    assert k3 == pytest.approx((vp - vm) / (2 * h), rel=1e-4)
    assert k4 == pytest.approx((vp - 2 * v0 + vm) / h**2, rel=1e-3, abs=1e-3 * k2)


def _mc_tail(N, P, ap, n, seed):
    """P(AP >= ap) over n random rankings: positions drawn by numpy, AP by its definition."""
    rng = np.random.default_rng(seed)
    hits = 0
    k = np.arange(1, P + 1)
    done = 0
    while done < n:
        m = min(20_000, n - done)
        ranks = np.sort(np.argsort(rng.random((m, N)), axis=1)[:, :P] + 1, axis=1)
        hits += int(np.count_nonzero((k / ranks).mean(axis=1) >= ap * (1 - 1e-12)))
        done += m
    return hits / n


@pytest.mark.parametrize("N, P, z", [(200, 100, 2.0), (1000, 150, 2.5), (120, 60, 1.0)])
def test_saddlepoint_against_plain_monte_carlo(N, P, z):
    """Inside the calibrated region, at p ~ 1e-1 .. 1e-2: within 4 Monte Carlo se plus the bound."""
    assert saddlepoint_region(N, P) == ("calibrated", SADDLEPOINT_LOG10_BOUND)
    null = SaddlepointNull(N, P)
    ap = null.mean + z * math.sqrt(null.var)
    pv = null.pvalue(ap)
    n = 200_000
    p_mc = _mc_tail(N, P, ap, n, seed=N + P)
    se = math.sqrt(p_mc * (1 - p_mc) / n)
    lo, hi = pv.pvalue_interval
    assert lo < pv.pvalue < hi and pv.pvalue_rse is None and pv.method == "saddlepoint"
    assert lo - 4 * se <= p_mc <= hi + 4 * se, (pv.pvalue, p_mc, se)


@pytest.mark.parametrize(
    "N, P, depth", [(5000, 500, 0.05), (5000, 500, 0.5), (2000, 400, 0.85), (400, 100, 0.3)]
)
def test_saddlepoint_against_the_tilted_estimator_deep_in_the_tail(N, P, depth):
    eng = TiltEngine(N, P)
    s = eng.mean_s + depth * (P - eng.mean_s)
    sp = saddlepoint_tail(eng, s, True)
    est = eng.tail(s, rtol=0.005, progress=False)
    assert sp.order == 2
    diff = abs(sp.log10_pvalue - est.log10_pvalue)
    assert diff <= SADDLEPOINT_LOG10_BOUND + 4 * est.rse / LN10, (sp, est)
    assert est.log10_pvalue < -2.0


def test_the_search_lands_on_the_saddle_point():
    """The Taylor step from the last pass: the same w and u as a tightly solved saddle point."""
    eng = TiltEngine(5000, 500)
    for z in (3.0, 10.0, 40.0):
        s = eng.mean_s + z * eng.sd_s
        phi, k, k2 = eng.saddle(s)  # tol 1e-10
        sp = saddlepoint_tail(eng, s, True)
        assert sp.phi == pytest.approx(phi, rel=1e-3)
        assert sp.w == pytest.approx(math.sqrt(2 * (phi * s - k)), rel=1e-6)
        assert sp.u == pytest.approx(phi * math.sqrt(k2), rel=1e-3)
        assert sp.passes <= 8  # recursions of the full size, the four-derivative one included


def _second_order_at_the_saddle(eng, s):
    """log P(S >= s) by the second-order formula at the saddle point solved to 1e-12."""
    phi, _, _ = eng.saddle(s, tol=1e-12)
    log_zc, m1, m2, m3, m4 = tilt_moments(eng.N, eng.P, phi, s)
    c2 = m2 - m1 * m1
    k3 = m3 - 3 * m1 * m2 + 2 * m1**3
    k4 = m4 - 4 * m1 * m3 - 3 * m2 * m2 + 12 * m1 * m1 * m2 - 6 * m1**4
    w = math.sqrt(2 * (eng.log_comb - log_zc))
    u = phi * math.sqrt(c2)
    return log_sf_second_order(w, u, k3 / c2**1.5, k4 / c2**2), u


def test_deep_in_the_tail_one_pass_from_the_guess_is_enough():
    """Where u = phi sqrt(K'') >= 20 at the guess, the search takes it within one tilted sd.

    The answer stays that of the saddle point solved to 1e-12 (written out
    here), and one pass of the full size is saved.
    """
    eng = TiltEngine(10_000, 1_000)
    for depth in (0.3, 0.6):
        s = eng.mean_s + depth * (eng.P - eng.mean_s)
        want, u = _second_order_at_the_saddle(eng, s)
        sp = saddlepoint_tail(eng, s, True)
        assert u >= 20.0 and sp.order == 2
        assert abs(sp.log_p - want) / LN10 <= 2e-4, (sp, want / LN10)
        assert sp.passes == 2  # the guess's pass and the four-derivative one


def test_a_loose_first_pass_where_s_is_lumpy_searches_on():
    """u >= 20 but S lumpy (N = 40,000, P = 200, 5 % of the way to the top): a pass 1 sd off
    the saddle point moved log10 p by 0.056; the search goes on and lands on it."""
    eng = TiltEngine(40_000, 200)
    s = eng.mean_s + 0.05 * (eng.P - eng.mean_s)
    want, u = _second_order_at_the_saddle(eng, s)
    sp = saddlepoint_tail(eng, s, True)
    assert u >= 20.0
    assert abs(sp.log_p - want) / LN10 <= 2e-4, (sp, want / LN10)


def test_default_rule_boundaries():
    # inside: rho = N / P^2 <= 0.1, N <= 25 P, P >= 50, P (N - P + 1) <= 1e8, C(N, P) > 1e6
    assert pranker.null.choice.auto_method(5000, 500) == "saddlepoint"
    assert pranker.null.choice.auto_method(250, 50) == "saddlepoint"
    assert pranker.null.choice.auto_method(251, 50) == "tilt"  # rho just above 0.1
    assert pranker.null.choice.auto_method(100, 49) == "tilt"  # too few positives
    assert pranker.null.choice.auto_method(40_000, 3_999) == "tilt"  # 1.44e8 cells: more than 1e8
    assert pranker.null.choice.auto_method(50_000, 2_000) == "saddlepoint"  # 9.6e7 cells
    assert pranker.null.choice.auto_method(25_000, 1_000) == "saddlepoint"  # 25 items per positive
    # more than 25 (the error grows): only thresholds whose top positives are pinned
    assert saddlepoint_region(25_001, 1_000) != ("calibrated", SADDLEPOINT_LOG10_BOUND)
    assert pranker.null.choice.auto_method(52, 50) == "exact"  # C(52, 50) is small
    # the bound (2.3 %) must be within twice rtol
    assert pranker.null.choice.auto_method(5000, 500, rtol=0.0117) == "saddlepoint"
    assert pranker.null.choice.auto_method(5000, 500, rtol=0.0115) == "tilt"
    for bad in (-1, 0, 1.5, float("nan")):
        with pytest.raises(ValueError, match=r"auto_method: rtol must be in \(0, 1\)"):
            pranker.null.choice.auto_method(5000, 500, rtol=bad)


def test_default_hands_thresholds_beyond_the_calibrated_depth_to_the_tilt():
    N, P = 400, 100
    null = pranker.null_distribution(N, P)
    eng = TiltEngine(N, P)
    inside = (eng.mean_s + 0.8 * (P - eng.mean_s)) / P
    beyond = (eng.mean_s + 0.95 * (P - eng.mean_s)) / P
    a, b = null.pvalue(inside), null.pvalue(beyond)
    assert a.method == "saddlepoint" and a.pvalue_rse is None and a.n_draws is None
    assert b.method == "tilt" and 0 < b.pvalue_rse <= 0.02 and b.n_draws > 0
    # asked for by name, the saddlepoint answers beyond too, but states no bound there
    c = pranker.null_distribution(N, P, "saddlepoint").pvalue(beyond)
    assert c.method == "saddlepoint" and c.pvalue_interval is None
    assert SADDLEPOINT_MAX_DEPTH == 0.9


def test_bound_is_reported_and_asking_for_more_accuracy_takes_the_tilt():
    res = pranker.significance_from_ap(0.2, 5000, 500)
    assert res.method == "saddlepoint" and res.pvalue_rse is None
    lo, hi = res.pvalue_interval
    assert math.log10(hi / res.pvalue) == pytest.approx(SADDLEPOINT_LOG10_BOUND)
    assert math.log10(res.pvalue / lo) == pytest.approx(SADDLEPOINT_LOG10_BOUND)
    tight = pranker.significance_from_ap(0.2, 5000, 500, rtol=0.005)
    assert tight.method == "tilt" and tight.pvalue_rse <= 0.005
    assert abs(tight.log10_pvalue - res.log10_pvalue) <= SADDLEPOINT_LOG10_BOUND + 4 * 0.005 / LN10


@pytest.mark.parametrize(
    "n, p, shift",
    [
        (3000, 400, 0.8),  # the calibrated region proper
        (40_000, 200, 3.0),  # beyond it, a threshold whose top positives are pinned
        (20_000, 10_000, 0.3),  # many positives: the compressed CGF from the layers' floors
    ],
)
def test_every_entry_point_gives_the_saddlepoint_answer(n, p, shift):
    rng = np.random.default_rng(7)
    y = np.zeros(n, dtype=bool)
    y[rng.choice(n, p, replace=False)] = True
    scores = rng.standard_normal(n) + shift * y
    one = pranker.pranker(scores, y)
    assert one.method == "saddlepoint"
    many = pranker.pranker_many(np.stack([scores, scores[::-1]]), np.stack([y, y[::-1]]))
    chunked = pranker.chunked.pranker_chunked(scores, y, chunk_size=512)
    assert many.method[0] == "saddlepoint"
    # the same computation on the same AP: equal up to the last bits of the AP
    assert many.log10_pvalue[0] == pytest.approx(one.log10_pvalue, rel=1e-9)
    assert chunked.log10_pvalue == pytest.approx(one.log10_pvalue, rel=1e-9)
    assert chunked.method == "saddlepoint"


def test_long_searches_show_a_progress_bar(monkeypatch):
    """A bar counting passes where they are predicted to take more than ~2 s; none otherwise."""
    import pranker.null.saddlepoint as sp_module

    made = []

    class Bar:
        def __init__(self, total, desc, enabled):
            self.enabled, self.n = enabled, 0
            made.append(self)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, n):
            self.n += n

    monkeypatch.setattr(sp_module, "progress_bar", Bar)
    eng = TiltEngine(2000, 400)
    s = eng.mean_s + 5 * eng.sd_s
    plain = saddlepoint_tail(eng, s, True, progress=True)
    assert made[-1].enabled is False  # 6e5 cells: far below 2 s
    monkeypatch.setattr(sp_module, "_NS_PER_CELL", 1e6)  # pretend the passes are slow
    shown = saddlepoint_tail(eng, s, True, progress=True)
    assert made[-1].enabled is True and made[-1].n == shown.passes
    assert shown.log_p == plain.log_p  # the bar changes nothing


def test_by_name_beyond_the_exact_recursion_uses_the_compressed_cgf(monkeypatch):
    """``method="saddlepoint"`` asked for beyond 1e8 cells, outside the calibrated regions,
    takes its CGF from the compressed pass (cost independent of N) instead of the exact
    recursion over P (N - P + 1) cells: at N = 60,000, P = 2,000 (1.16e8 cells, N / P = 30)
    it agrees with the second-order saddlepoint on the exact CGF (an independent
    recursion, checked against enumeration elsewhere) within 0.03 in log10 near 10^-6, and
    like it reports no interval there."""
    N, P = 60_000, 2_000
    assert P * (N - P + 1) > 100_000_000
    eng = TiltEngine(N, P)
    s = eng.mean_s + 4.9 * eng.sd_s
    want = saddlepoint_tail(eng, s, True, False).log_p / math.log(10.0)
    assert -8.0 < want < -4.0

    def no_exact_pass(*args, **kwargs):
        raise AssertionError("the exact recursion was run")

    monkeypatch.setattr("pranker.null.saddlepoint.saddlepoint_tail", no_exact_pass)
    got = pranker.significance_from_ap(s / P, N, P, method="saddlepoint")
    assert got.method == "saddlepoint" and got.pvalue_interval is None
    assert abs(got.log10_pvalue - want) < 0.03, (got.log10_pvalue, want)
