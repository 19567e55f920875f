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
        res = map_significance_from_ap([m] * len(qs), [a for a, _ in qs], [b for _, b in qs],
                                       method="tilt")
        se = math.sqrt(mc * (1 - mc) / draws) / mc
        assert abs(res.pvalue / mc - 1) < 4 * math.hypot(se, res.pvalue_rse)
        sp = map_significance_from_ap([m] * len(qs), [a for a, _ in qs], [b for _, b in qs],
                                      method="saddlepoint")
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
    r = map_significance(ss, ys, groups=groups)
    assert r.method == "saddlepoint" and r.n_queries == 60
    assert r.statistic == pytest.approx(np.mean(r.query_auprc))
    for i in (0, 7, 33):
        s = significance_from_ap(r.query_auprc[i], r.query_n[i], r.query_n_pos[i])
        assert r.query_log10_pvalue[i] == pytest.approx(s.log10_pvalue, rel=1e-9)
    assert np.allclose(r.query_log10_pvalue_bh, bh_log10(r.query_log10_pvalue))
    rows = {g.group: g for g in r.groups}
    assert rows["signal"].n_queries == 30 and rows["signal"].pvalue < rows["noise"].pvalue
    sub = map_significance([s for s, g in zip(ss, groups, strict=True) if g == "noise"],
                           [y for y, g in zip(ys, groups, strict=True) if g == "noise"])
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
