"""Tests of pranker.mean_ap against independent oracles."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from pranker import map_significance, map_significance_from_ap, pranker_many, significance_from_ap
from pranker.null.choice import auto_method
from pranker.null.mean_ap import MeanAPNull
from pranker.null.tilt import TiltEngine
from pranker.significance.many import bh_log10


def _exact_s(N, P):
    """Exact null law of S = sum_k k / r_k by enumerating the C(N, P) placements."""
    vals = {}
    for c in itertools.combinations(range(1, N + 1), P):
        s = round(sum((k + 1) / r for k, r in enumerate(c)), 12)
        vals[s] = vals.get(s, 0) + 1
    return np.array(list(vals)), np.array(list(vals.values())) / math.comb(N, P)


def _exact_map_sf(queries):
    """P(mAP >= m) for every support point m, by convolving the per-query laws."""
    Q = len(queries)
    v, p = np.array([0.0]), np.array([1.0])
    for N, P in queries:
        sv, sp = _exact_s(N, P)
        v = (v[:, None] + sv[None, :] / (Q * P)).ravel()
        p = (p[:, None] * sp[None, :]).ravel()
        u, inv = np.unique(np.round(v, 11), return_inverse=True)
        v, p = u, np.bincount(inv, weights=p)
    return v, p


QUERIES = [(9, 2), (8, 3), (7, 1), (5, 5), (10, 2)]


@pytest.fixture(scope="module")
def exact_law():
    return _exact_map_sf(QUERIES)


@pytest.mark.parametrize("m", [0.5, 0.62, 0.75, 0.9])
def test_against_exact_convolution(exact_law, m):
    v, p = exact_law
    exact = p[v >= m - 1e-9].sum()
    n = [q[0] for q in QUERIES]
    k = [q[1] for q in QUERIES]
    tilt = map_significance_from_ap([m] * 5, n, k, method="tilt", rtol=0.01)
    assert tilt.method == "tilt"
    assert abs(tilt.pvalue / exact - 1) < 4 * tilt.pvalue_rse + 1e-9
    lo, hi = tilt.pvalue_interval
    assert lo <= tilt.pvalue <= hi
    sp = map_significance_from_ap([m] * 5, n, k, method="saddlepoint")
    # a lattice law with 5 tiny queries: the saddlepoint is within a factor 1.5 here
    assert 1 / 1.5 < sp.pvalue / exact < 1.5


@pytest.mark.slow
def test_against_plain_monte_carlo():
    """Random placements of every query (2e5 draws) where p >= 1e-3."""
    rng = np.random.default_rng(0)
    qs = [(60, 3), (80, 10), (50, 5), (100, 20), (40, 2), (70, 7)]
    draws = 200_000
    tot = np.zeros(draws)
    for N, P in qs:
        ranks = np.sort(np.argsort(rng.random((draws, N)), axis=1)[:, :P] + 1, axis=1)
        tot += (np.arange(1, P + 1) / ranks).sum(axis=1) / P
    tot /= len(qs)
    for q in (0.9, 0.99, 0.998):
        m = float(np.quantile(tot, q))
        mc = np.mean(tot >= m - 1e-12)
        res = map_significance_from_ap(
            [m] * len(qs), [a for a, _ in qs], [b for _, b in qs], method="tilt"
        )
        se = math.sqrt(mc * (1 - mc) / draws) / mc
        assert abs(res.pvalue / mc - 1) < 4 * math.hypot(se, res.pvalue_rse)
        sp = map_significance_from_ap(
            [m] * len(qs), [a for a, _ in qs], [b for _, b in qs], method="saddlepoint"
        )
        assert abs(sp.pvalue / mc - 1) < 0.1


def _same_result(r, s):
    """A one-query mean AP result and a significance_from_ap result: the same answer."""
    assert r.method == s.method
    assert r.pvalue == pytest.approx(s.pvalue, rel=1e-12, abs=0)
    assert r.log10_pvalue == pytest.approx(s.log10_pvalue, rel=1e-12, abs=0)
    if s.pvalue_interval is None:
        assert r.pvalue_interval is None
    else:
        assert r.pvalue_interval == pytest.approx(s.pvalue_interval, rel=1e-12, abs=0)
    assert r.pvalue_rse == s.pvalue_rse
    assert (r.n_draws, r.seed) == (s.n_draws, s.seed)
    assert r.null_interval == pytest.approx(s.null_interval, rel=1e-12, abs=0)
    assert (r.null_mean, r.null_var) == pytest.approx((s.null_mean, s.null_var), rel=1e-12)


@pytest.mark.parametrize(
    "ap,N,P",
    [(1.0, 7, 1), (0.5, 10, 1), (0.05, 300, 1), (0.2, 10_000, 1), (0.9, 12, 12), (0.6, 20, 4)],
)
def test_one_query_exact_is_significance_from_ap(ap, N, P):
    """Q = 1 with P = 1 (P(AP >= 1/r) = r / N) and other exact cases: significance_from_ap."""
    assert auto_method(N, P) == "exact"
    r = map_significance_from_ap([ap], [N], [P])
    s = significance_from_ap(ap, N, P)
    _same_result(r, s)
    assert r.method == "exact" and r.pvalue_error == 0.0
    if P == 1:  # the oracle: the positive's rank r has AP 1/r, uniform on 1..N
        assert r.pvalue == pytest.approx(math.floor(1 / ap + 1e-9) / N, rel=1e-12)


@pytest.mark.parametrize("ap,N,P", [(0.3, 1000, 10), (0.6, 1000, 5), (0.15, 300, 30)])
def test_one_query_tilt_is_significance_from_ap(ap, N, P):
    """Where the rule picks the tilt, one query is significance_from_ap: method, draws, interval."""
    assert auto_method(N, P) == "tilt"
    r = map_significance_from_ap([ap], [N], [P])
    _same_result(r, significance_from_ap(ap, N, P))
    assert r.method == "tilt" and r.pvalue_error == r.pvalue_rse and r.n_draws > 0
    for method in ("tilt", "saddlepoint"):
        r = map_significance_from_ap([ap], [N], [P], method=method, seed=3)
        _same_result(r, significance_from_ap(ap, N, P, method=method, seed=3))


def test_one_query_in_groups():
    """A group of one query is that query's own test (exact for P = 1, whatever Q overall)."""
    r = map_significance_from_ap([0.5, 0.25, 0.4], [10, 8, 50], [1, 1, 3], groups=["a", "b", "c"])
    rows = {g.group: g for g in r.groups}
    assert rows["a"].pvalue == pytest.approx(2 / 10, rel=1e-12)
    assert rows["b"].pvalue == pytest.approx(4 / 8, rel=1e-12)
    assert rows["a"].method == rows["b"].method == "exact"
    s = significance_from_ap(0.4, 50, 3)
    assert rows["c"].log10_pvalue == pytest.approx(s.log10_pvalue, rel=1e-12)


def test_edges_exact():
    r = map_significance_from_ap([1.0, 1.0], [10, 12], [2, 3])
    assert r.method == "exact"
    assert r.log10_pvalue == pytest.approx(-math.log10(math.comb(10, 2) * math.comb(12, 3)))
    k = np.arange(1, 3)
    low = np.sum(k / (10 - 2 + k)) / 2
    assert map_significance_from_ap([low], [10], [2]).pvalue == 1.0


def test_exact_edge_keeps_subnormal_pvalues():
    """Both rankings perfect: p = 1 / (C(2000, 242) * 500) ~ 10^-321.6, below the normal floats.

    The p-value keeps the subnormal float (it was once cut to 0 below 1e-320);
    ``log10_pvalue`` carries the digits.
    """
    want = -math.log10(math.comb(2000, 242) * 500)
    assert -323.0 < want < -320.0
    r = map_significance_from_ap([1.0, 1.0], [2000, 500], [242, 1])
    assert r.method == "exact" and r.log10_pvalue == pytest.approx(want, abs=1e-9)
    assert r.pvalue > 0.0 and abs(math.log10(r.pvalue) - want) < 0.01


def test_many_queries_saddlepoint_and_groups():
    rng = np.random.default_rng(1)
    ys, ss, groups = [], [], []
    for q in range(60):
        N = int(rng.integers(50, 150))
        y = np.zeros(N, bool)
        y[rng.choice(N, int(rng.integers(1, 8)), replace=False)] = True
        ys.append(y)
        ss.append(rng.normal(size=N) + (0.5 if q % 2 else 0.0) * y)
        groups.append("signal" if q % 2 else "noise")
    r = map_significance(ss, ys, groups=groups, query_method="auto")
    assert r.method == "saddlepoint" and r.n_queries == 60
    assert r.statistic == pytest.approx(np.mean(r.query_auprc))
    for i in (0, 7, 33):
        s = significance_from_ap(r.query_auprc[i], r.query_n[i], r.query_n_pos[i])
        assert r.query_log10_pvalue[i] == pytest.approx(s.log10_pvalue, rel=1e-9)
    assert np.allclose(r.query_log10_pvalue_bh, bh_log10(r.query_log10_pvalue))
    rows = {g.group: g for g in r.groups}
    assert rows["signal"].n_queries == 30 and rows["signal"].pvalue < rows["noise"].pvalue
    sub = map_significance(
        [s for s, g in zip(ss, groups, strict=True) if g == "noise"],
        [y for y, g in zip(ys, groups, strict=True) if g == "noise"],
    )
    assert rows["noise"].log10_pvalue == pytest.approx(sub.log10_pvalue)
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert len(d["groups"]) == 2 and len(d["query_auprc"]) == 60
    assert d["mean_ap"] == d["statistic"] == r.statistic
    assert d["groups"][0]["mean_ap"] == r.groups[0].statistic


def test_vocabulary_of_the_result():
    """None means not estimated; draws and seed only where random draws were made."""
    n, k = [1000] * 40, [10] * 40
    sp = map_significance_from_ap([0.05] * 40, n, k, conf_level=0.9)
    assert sp.method == "saddlepoint" and sp.mean_ap == sp.statistic
    assert (sp.pvalue_rse, sp.pvalue_interval, sp.n_draws, sp.seed) == (None, None, None, None)
    assert sp.pvalue_error > 0 and sp.conf_level == 0.9 and sp.n_queries == 40
    lo, hi = sp.null_interval
    assert lo < sp.null_mean < hi and sp.null_interval_method == "saddlepoint"
    assert sp.null_interval != map_significance_from_ap([0.05] * 40, n, k).null_interval
    tilt = map_significance_from_ap([0.05] * 40, n, k, method="tilt", seed=7)
    assert tilt.seed == 7 and tilt.n_draws >= 4096 and 0 < tilt.pvalue_rse <= 0.02
    assert tilt.pvalue_interval[0] < tilt.pvalue < tilt.pvalue_interval[1]
    ex = map_significance_from_ap([1.0] * 3, [5, 6, 7], [1, 2, 3], groups=[0, 0, 1])
    assert ex.method == "exact" and ex.pvalue_rse == 0.0 and ex.n_draws is None
    assert ex.pvalue_interval == (ex.pvalue, ex.pvalue)
    d = json.loads(json.dumps(sp.to_dict(), allow_nan=False))  # NaN became None
    assert d["query_pvalue"] == [None] * 40 and d["seed"] is None and d["conf_level"] == 0.9
    assert d["null_interval"] == [lo, hi]
    g = ex.groups[0]
    assert (g.mean_ap, g.n_draws, g.seed, g.conf_level) == (1.0, None, None, 0.95)
    assert json.loads(json.dumps(g.to_dict()))["pvalue_interval"] == [g.pvalue, g.pvalue]


def test_renamed_keyword_warns():
    """``query_pvalues=`` (log10 values) is now ``query_log10_pvalues=``; the old name warns."""
    lg = np.log10([0.01, 0.2, 0.03])
    new = map_significance_from_ap([0.3, 0.2, 0.4], [50, 60, 70], [3, 3, 3], query_log10_pvalues=lg)
    with pytest.warns(DeprecationWarning, match="query_log10_pvalues"):
        old = map_significance_from_ap([0.3, 0.2, 0.4], [50, 60, 70], [3, 3, 3], query_pvalues=lg)
    assert np.array_equal(old.query_log10_pvalue_bh, new.query_log10_pvalue_bh)
    assert np.allclose(new.query_log10_pvalue_bh, bh_log10(lg))
    with pytest.raises(TypeError):
        map_significance_from_ap([0.3], [50], [3], query_pvalues=lg[:1], query_log10_pvalues=lg[:1])


def test_refusals():
    with pytest.raises(ValueError, match="1 <= P <= N"):
        map_significance_from_ap([0.5], [10], [0])
    with pytest.raises(ValueError, match="method"):
        map_significance_from_ap([0.5], [10], [2], method="beta")
    with pytest.raises(ValueError, match="one array per query"):
        map_significance([np.ones(3)], [])


# --------------------------------------------------------------------------- the exact CGF
def _cumulants_by_enumeration(queries, theta):
    """K and its first four derivatives for mAP at theta: each query's C(N, P) subsets
    enumerated, their cumulants summed."""
    Q = len(queries)
    want = np.zeros(5)
    for N, P in queries:
        S = np.array(
            [
                sum((k + 1) / r for k, r in enumerate(cc))
                for cc in itertools.combinations(range(1, N + 1), P)
            ]
        )
        a = 1.0 / (Q * P)
        x = theta * a * S
        w = np.exp(x - x.max())
        w /= w.sum()
        mu = float(w @ S)
        c = [float(w @ (S - mu) ** j) for j in range(2, 5)]
        want += [
            math.log(np.mean(np.exp(x - x.max()))) + x.max(),
            a * mu,
            a**2 * c[0],
            a**3 * c[1],
            a**4 * (c[2] - 3 * c[0] ** 2),
        ]
    return want


@pytest.mark.parametrize(
    "queries,theta",
    [
        ([(9, 2), (8, 2), (7, 3), (10, 3), (6, 1)], 0.0),
        ([(9, 2), (8, 2), (7, 3), (10, 3), (6, 1)], 3.0),
        ([(9, 2), (8, 2), (7, 3), (10, 3), (6, 1)], 40.0),
        # one P read at several N from one recursion (N = 4, 7, 10, 13), both signs of theta
        ([(4, 3), (7, 3), (10, 3), (13, 3)], 27.0),
        ([(4, 3), (7, 3), (10, 3), (13, 3)], -48.0),
        ([(5, 4), (9, 4), (13, 4), (4, 4)], 400.0),
        ([(2, 1), (5, 1), (8, 1), (11, 1), (13, 1)], 10.0),
    ],
)
def test_cumulants_to_fourth_order_by_enumeration(queries, theta):
    """The CGF of mAP and four derivatives (the saddlepoint, its error estimate, the auto rule)."""
    null = MeanAPNull([q[0] for q in queries], [q[1] for q in queries])
    want = _cumulants_by_enumeration(queries, theta)
    assert null.cgf(theta, order=4) == pytest.approx(want, rel=1e-7, abs=1e-12)
    assert null.cgf(theta) == pytest.approx(want[:3], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    "n,k,thetas",
    [
        # varying N per P, and a query with P = N (AP = 1 always)
        ([900, 1000, 1100, 1000, 950, 400], [5, 5, 5, 12, 12, 400], (0.0, 30.0, 400.0, -50.0)),
        # large N, one P: every N read off the recursion run to the largest
        ([900, 951, 1037, 1100], [20] * 4, (0.05 * 80, 3.0 * 80, -2.0 * 80)),
        ([900, 951, 1037, 1100], [8] * 4, (800.0 * 32,)),
        # far below 0 the small N hold almost none of the shared prefix: their own recursion
        ([8, 20, 60], [7] * 3, (-900.0 * 21,)),
    ],
)
def test_cgf_is_the_sum_of_single_engines(n, k, thetas):
    """K, K', K'' of mAP equal the sum of each query's own exact CGF (TiltEngine, one N each)."""
    Q = len(n)
    null = MeanAPNull(n, k, seed=1)
    for theta in thetas:
        want = np.zeros(3)
        for N, P in zip(n, k, strict=True):
            a = 1.0 / (Q * P)
            if P == N:
                want += [theta / Q, 1.0 / Q, 0.0]
                continue
            kk, k1, k2 = TiltEngine(N, P, 1).cgf(theta * a)
            want += [kk, a * k1, a * a * k2]
        got = null.cgf(theta)
        # K: log C(N, P) from log-gammas carries ~1e-12 of rounding at N ~ 1000
        assert got[0] == pytest.approx(want[0], rel=1e-9, abs=1e-9)
        assert got[1:] == pytest.approx(want[1:], rel=1e-8, abs=1e-12)
    assert abs(null.cgf(0.0)[0]) < 1e-12  # K(0) = 0: the recursion counts C(N, P) subsets
    assert null.mean == pytest.approx(null.cgf(0.0)[1], rel=1e-12)
    assert null.var == pytest.approx(null.cgf(0.0)[2], rel=1e-9)


VARYING = [(9, 2), (8, 2), (7, 2), (8, 3), (6, 3), (5, 1), (4, 4)]


@pytest.fixture(scope="module")
def exact_varying():
    return _exact_map_sf(VARYING)


@pytest.mark.parametrize("m", [0.45, 0.6, 0.8])
def test_varying_n_against_exact_convolution(exact_varying, m):
    """Several N per P (the shared tables) and a P = N query: exact law by convolution."""
    v, p = exact_varying
    exact = p[v >= m - 1e-9].sum()
    n = [q[0] for q in VARYING]
    k = [q[1] for q in VARYING]
    tilt = map_significance_from_ap([m] * len(n), n, k, method="tilt", rtol=0.01)
    assert tilt.method == "tilt" and tilt.pvalue_error == tilt.pvalue_rse
    assert abs(tilt.pvalue / exact - 1) < 4 * tilt.pvalue_rse + 1e-9
    sp = map_significance_from_ap([m] * len(n), n, k, method="saddlepoint")
    assert 1 / 1.6 < sp.pvalue / exact < 1.6


@pytest.mark.parametrize("equal", [False, True])
@pytest.mark.parametrize("ties", ["average", "stable", "pessimistic"])
def test_query_aps_without_pvalues_are_those_of_pranker_many(equal, ties):
    rng = np.random.default_rng(3)
    sizes = [40] * 25 if equal else [int(rng.integers(20, 60)) for _ in range(25)]
    ys = [np.r_[rng.random(m - 1) < 0.1, True] for m in sizes]
    ss = [np.round(rng.normal(size=y.size) + y, 1) for y in ys]  # ties
    r = map_significance(ss, ys, ties=ties, query_method=None)
    m = pranker_many(ss, ys, ties=ties, method="beta")
    # another kernel (concatenated segments, not padded rows): to 1e-12 relative
    np.testing.assert_allclose(r.query_auprc, m.auprc, rtol=1e-12, atol=0)
    assert np.array_equal(r.query_n, m.n) and np.array_equal(r.query_n_pos, m.n_pos)
    assert np.all(np.isnan(r.query_pvalue))
    assert r.statistic == pytest.approx(np.mean(m.auprc), rel=1e-12)


@pytest.mark.parametrize("equal", [False, True])
def test_query_aps_refusals(equal):
    m = 4 if equal else 3
    with pytest.raises(ValueError, match="no positive"):
        map_significance([np.ones(m), np.ones(4)], [np.zeros(m), np.ones(4)], query_method=None)
    with pytest.raises(ValueError, match="NaN"):
        map_significance([np.r_[1.0, np.nan, 0.0, 2.0][:m], np.ones(4)], [np.ones(m), np.ones(4)])
    with pytest.raises(ValueError, match="same length"):
        map_significance([np.ones(m), np.ones(4)], [np.ones(m), np.ones(3)])


def test_auto_saddlepoint_with_varying_n_against_plain_monte_carlo():
    """The default on 40 queries of varying N (one shared recursion per P) where p >= 1e-2."""
    rng = np.random.default_rng(11)
    Q, draws = 40, 40_000
    n = rng.integers(40, 71, Q)
    k = rng.integers(6, 11, Q)
    tot = np.zeros(draws)
    for N, P in zip(n, k, strict=True):
        ranks = np.sort(np.argsort(rng.random((draws, N)), axis=1)[:, :P] + 1, axis=1)
        tot += (np.arange(1, P + 1) / ranks).sum(axis=1) / P
    tot /= Q
    for q in (0.9, 0.99):
        m = float(np.quantile(tot, q))
        mc = np.mean(tot >= m - 1e-12)
        res = map_significance_from_ap([m] * Q, n, k)
        assert res.method == "saddlepoint"
        se = math.sqrt(mc * (1 - mc) / draws) / mc
        assert abs(res.pvalue / mc - 1) < 4 * se + 0.01
    # the central 95 % of the null mAP against the Monte Carlo quantiles: their standard
    # error is sqrt(q (1 - q) / draws) / density ~ 0.015 null sd at q = 0.025
    sd = math.sqrt(res.null_var)
    lo, hi = res.null_interval
    assert abs(lo - np.quantile(tot, 0.025)) < 0.06 * sd
    assert abs(hi - np.quantile(tot, 0.975)) < 0.06 * sd
    assert abs(np.mean(tot) - res.null_mean) < 4 * sd / math.sqrt(draws)


@pytest.mark.parametrize("q", [0.001, 0.025, 0.5, 0.9, 0.999])
def test_quantiles_invert_the_saddlepoint_tail(q):
    """ppf(q) is where the saddlepoint p-value is 1 - q; cdf and sf agree with it."""
    null = MeanAPNull([1000, 900, 800] * 10, [10, 20, 5] * 10, method="saddlepoint")
    x = float(null.ppf(q))
    assert null.pvalue(x).pvalue == pytest.approx(1 - q, rel=1e-5)
    assert float(null.cdf(x)) == pytest.approx(q, rel=1e-4, abs=1e-9)
    if q != 0.5:
        lo, hi = null.interval(1 - 2 * min(q, 1 - q))
        assert x == pytest.approx(lo if q < 0.5 else hi, rel=1e-9)
