"""Tests of pranker.mean_ap against independent oracles."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from pranker import map_significance, map_significance_from_ap, significance_from_ap
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


@pytest.mark.parametrize("ap,N,P", [(0.3, 200, 10), (0.6, 1000, 5), (0.15, 300, 30)])
def test_one_query_is_significance_from_ap(ap, N, P):
    for method in ("tilt", "saddlepoint"):
        r = map_significance_from_ap([ap], [N], [P], method=method)
        s = significance_from_ap(ap, N, P, method=method)
        assert r.log10_pvalue == pytest.approx(s.log10_pvalue, rel=1e-9, abs=1e-12)


def test_edges_exact():
    r = map_significance_from_ap([1.0, 1.0], [10, 12], [2, 3])
    assert r.method == "exact"
    assert r.log10_pvalue == pytest.approx(-math.log10(math.comb(10, 2) * math.comb(12, 3)))
    k = np.arange(1, 3)
    low = np.sum(k / (10 - 2 + k)) / 2
    assert map_significance_from_ap([low], [10], [2]).pvalue == 1.0


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
    d = r.to_dict()
    assert len(d["groups"]) == 2 and len(d["query_auprc"]) == 60


def test_refusals():
    with pytest.raises(ValueError, match="1 <= P <= N"):
        map_significance_from_ap([0.5], [10], [0])
    with pytest.raises(ValueError, match="method"):
        map_significance_from_ap([0.5], [10], [2], method="beta")
    with pytest.raises(ValueError, match="one array per query"):
        map_significance([np.ones(3)], [])


# --------------------------------------------------------------------------- the shared recursion
def _moments_by_enumeration(N, P, phi, c):
    """log sum_subsets e^{phi (S - c)} and E_phi[(S - c)^j], j = 1..4, by brute force."""
    S = np.array(
        [
            sum((k + 1) / r for k, r in enumerate(cc))
            for cc in itertools.combinations(range(1, N + 1), P)
        ]
    )
    x = phi * (S - c)
    top = x.max()
    w = np.exp(x - top)
    z = w.sum()
    return top + math.log(z), [float(np.sum(w * (S - c) ** j) / z) for j in range(1, 5)]


@pytest.mark.parametrize("P,phi", [(1, 2.0), (3, 1.7), (3, -4.0), (4, 25.0)])
def test_shared_recursion_matches_enumeration_at_every_n(P, phi):
    """One recursion to N_max gives every smaller N: brute force over the C(N, P) subsets."""
    from pranker._numba.mean_ap import shared_last_layer

    n_max, c = 13, 1.1
    lam, G = shared_last_layer(n_max, P, phi, c, 4)
    for N in range(P + 1, n_max + 1, 3):
        log_z, mom = _moments_by_enumeration(N, P, phi, c)
        d = N - P
        assert lam + math.log(G[0, d]) == pytest.approx(log_z, rel=1e-12, abs=1e-12)
        assert G[1:, d] / G[0, d] == pytest.approx(mom, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("P,phi", [(5, 0.05), (20, 3.0), (37, -2.0), (8, 800.0)])
def test_shared_recursion_matches_single_n_recursion(P, phi):
    """Large N: the read-out at each N equals the recursion run to that N alone."""
    from pranker._numba.mean_ap import shared_last_layer
    from pranker._numba.tilt import tilt_forward

    n_max, c = 1100, 0.9 * P * 0.05
    lam, G = shared_last_layer(n_max, P, phi, c, 2)
    for N in (900, 951, 1037, 1100):
        log_z, m1, m2, _ = tilt_forward(N, P, phi, c, True, False)
        d = N - P
        assert lam + math.log(G[0, d]) == pytest.approx(log_z, rel=1e-11, abs=1e-11)
        assert G[1, d] / G[0, d] == pytest.approx(m1, rel=1e-9, abs=1e-12)
        assert G[2, d] / G[0, d] == pytest.approx(m2, rel=1e-9, abs=1e-12)


def test_shared_cgf_falls_back_where_the_prefix_underflows():
    """phi far below 0 puts the mass at large d; small N then get their own recursion."""
    from pranker._numba.mean_ap import shared_cgf_keys
    from pranker._numba.tilt import tilt_forward

    P, phi, c = 7, -900.0, 2.0
    Ns = np.array([8, 20, 60], dtype=np.int64)
    log_z = np.empty(3)
    mom = np.empty((3, 3))
    shared_cgf_keys(
        np.array([P]),
        np.array([60]),
        np.array([c]),
        np.array([phi]),
        np.array([0, 3]),
        Ns,
        2,
        log_z,
        mom,
    )
    for i, N in enumerate(Ns):
        lz, m1, m2, _ = tilt_forward(int(N), P, phi, c, True, False)
        assert log_z[i] == pytest.approx(lz, rel=1e-12)
        assert mom[1, i] == pytest.approx(m1, rel=1e-9, abs=1e-12)


def test_summed_cgf_is_the_sum_of_single_engines():
    """K, K', K'' of mAP for varying N equal the sum of each query's own exact CGF."""
    from pranker.null.tilt import TiltEngine
    from pranker.significance.mean_ap import _SharedSum

    n = [900, 1000, 1100, 1000, 950, 400]
    k = [5, 5, 5, 12, 12, 400]  # the last query: P = N, AP = 1 always
    Q = len(n)
    null = _SharedSum(n, k, 1)
    for theta in (0.0, 30.0, 400.0, -50.0):
        want = np.zeros(3)
        for N, P in zip(n, k, strict=True):
            a = 1.0 / (Q * P)
            if P == N:
                want += [theta / Q, 1.0 / Q, 0.0]
                continue
            kk, k1, k2 = TiltEngine(N, P).cgf(theta * a)
            want += [kk, a * k1, a * a * k2]
        got = null.cgf(theta)
        # K: the engines' log C(N, P) from log-gammas carries ~1e-12 of rounding at N ~ 1000
        assert got[0] == pytest.approx(want[0], rel=1e-9, abs=1e-10)
        assert got[1:] == pytest.approx(want[1:], rel=1e-9, abs=1e-12)
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


def test_query_aps_without_pvalues_are_those_of_pranker_many():
    from pranker import pranker_many

    rng = np.random.default_rng(3)
    ys = [np.r_[rng.random(int(rng.integers(20, 60))) < 0.1, True] for _ in range(25)]
    ss = [np.round(rng.normal(size=y.size) + y, 1) for y in ys]  # ties
    r = map_significance(ss, ys, query_method=None)
    m = pranker_many(ss, ys, method="beta")
    # another kernel (concatenated segments, not padded rows): to 1e-12 relative
    np.testing.assert_allclose(r.query_auprc, m.auprc, rtol=1e-12, atol=0)
    assert np.array_equal(r.query_n, m.n) and np.array_equal(r.query_n_pos, m.n_pos)
    assert np.all(np.isnan(r.query_pvalue))
    with pytest.raises(ValueError, match="no positive"):
        map_significance([np.ones(3), np.ones(4)], [np.zeros(3), np.ones(4)], query_method=None)


@pytest.mark.parametrize("theta", [0.0, 3.0, 40.0])
def test_summed_cumulants_to_fourth_order_by_enumeration(theta):
    """K'''(theta), K''''(theta) of mAP (the saddlepoint's error estimate and the auto rule)."""
    from pranker.significance.mean_ap import _SharedSum

    qs = [(9, 2), (8, 2), (7, 3), (10, 3), (6, 1)]
    Q = len(qs)
    want = np.zeros(5)
    for N, P in qs:
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
    null = _SharedSum([q[0] for q in qs], [q[1] for q in qs], 1)
    for recentre in (False, True):
        got = null.cgf(theta, order=4, recentre=recentre)
        assert got == pytest.approx(want, rel=1e-7, abs=1e-12)


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
