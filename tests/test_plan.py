"""The plan of ``method="auto"``: on either side of each region boundary, what the answer does.

Each boundary of :func:`pranker.null.choice.plan` is crossed by a step of one
in N (or a small step in the threshold or ``rtol``). On both sides the test
checks the method and the bound the answer reports, and that the answer
agrees with an oracle independent of the code under test: exact enumeration
of every placement (plain numpy in this file), plain Monte Carlo (a numpy
sampler written here), or, deep in the tail where neither reaches, the
other side's method (a different algorithm on a neighbouring N, whose true
p-value differs by far less than the stated uncertainties).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from pranker.null.choice import plan
from pranker.null.moments import null_params
from pranker.significance.single import significance_from_ap


def enumerated_sf(N: int, P: int, a: float) -> float:
    """P(AP >= a) over all C(N, P) placements, by brute force (ties within 1e-12 as >=)."""
    k = np.arange(1, P + 1)
    hits = total = 0
    combos = itertools.combinations(range(1, N + 1), P)
    while True:
        block = np.array(list(itertools.islice(combos, 200_000)), dtype=np.float64)
        if block.size == 0:
            break
        ap = (k / block).mean(axis=1)
        hits += int(np.count_nonzero(ap >= a * (1 - 1e-12)))
        total += block.shape[0]
    assert total == math.comb(N, P)
    return hits / total


def monte_carlo_sf(N: int, P: int, a: float, draws: int, seed: int) -> tuple[float, float]:
    """Plain Monte Carlo P(AP >= a): random P-subsets of the ranks; (estimate, standard error)."""
    rng = np.random.default_rng(seed)
    k = np.arange(1, P + 1)
    hits = 0
    for start in range(0, draws, 20_000):
        m = min(20_000, draws - start)
        ranks = np.sort(np.argpartition(rng.random((m, N)), P - 1, axis=1)[:, :P], axis=1) + 1
        hits += int(np.count_nonzero((k / ranks).mean(axis=1) >= a))
    p = hits / draws
    return p, math.sqrt(p * (1 - p) / draws)


def threshold(N: int, P: int, z: float) -> float:
    par = null_params(N, P)
    return par.mean + z * math.sqrt(par.var)


def log10_halfwidth(res) -> float:
    """The half-width of the reported interval of log10 p (saddlepoint bound or 1.96 rse)."""
    lo, hi = res.pvalue_interval
    return max(res.log10_pvalue - math.log10(lo), math.log10(hi) - res.log10_pvalue)


def test_exact_count_on_either_side_of_a_million_placements():
    """C(24, 8) = 735,471 placements are counted; C(25, 8) = 1,081,575 are estimated."""
    assert plan(24, 8).method == "exact" and plan(25, 8).method == "tilt"
    for N, method in ((24, "exact"), (25, "tilt")):
        a = threshold(N, 8, 3.0)
        truth = enumerated_sf(N, 8, a)
        res = significance_from_ap(a, N, 8)
        assert res.method == method
        if method == "exact":
            assert res.pvalue == pytest.approx(truth, rel=1e-12)
            assert res.pvalue_interval == (res.pvalue, res.pvalue)
        else:
            assert res.pvalue_rse <= 0.02
            assert abs(res.pvalue / truth - 1) <= 4 * res.pvalue_rse


def test_calibrated_saddlepoint_at_n_equal_to_a_tenth_of_p_squared():
    """N = 250 = 0.1 P^2 (P = 50): the saddlepoint with its bound; N = 251: the tilt. Both hold
    the plain Monte Carlo estimate within their interval plus three of its standard errors."""
    inside, outside = plan(250, 50), plan(251, 50)
    assert (inside.method, inside.backend, inside.region) == ("saddlepoint", "layers", "calibrated")
    assert outside.method == "tilt"
    for N, method in ((250, "saddlepoint"), (251, "tilt")):
        a = threshold(N, 50, 2.5)
        p, se = monte_carlo_sf(N, 50, a, 400_000, seed=N)
        res = significance_from_ap(a, N, 50)
        assert res.method == method
        if method == "saddlepoint":
            assert res.pvalue_rse is None
            assert log10_halfwidth(res) == pytest.approx(inside.log10_bound)
        else:
            assert res.pvalue_rse <= 0.02
        lo, hi = res.pvalue_interval
        assert lo - 3 * se <= p <= hi + 3 * se, (N, p, se, res)


def test_depth_limit_of_the_saddlepoint():
    """Up to 90 % of the way to the top the saddlepoint answers; beyond, the tilt. Just inside,
    the tilt at 0.5 % (an independent algorithm) lies within the saddlepoint's bound + 3 se."""
    N, P = 250, 50
    mean = null_params(N, P).mean
    inside, beyond = mean + 0.89 * (1 - mean), mean + 0.91 * (1 - mean)
    assert plan(N, P, inside).method == "saddlepoint"
    assert plan(N, P, beyond).method == "tilt" and plan(N, P, beyond).saddlepoint_bound is None
    sp = significance_from_ap(inside, N, P)
    ref = significance_from_ap(inside, N, P, method="tilt", rtol=0.005)
    assert sp.method == "saddlepoint"
    se = ref.pvalue_rse / math.log(10)
    assert abs(sp.log10_pvalue - ref.log10_pvalue) <= log10_halfwidth(sp) + 3 * se
    far = significance_from_ap(beyond, N, P)
    assert far.method == "tilt" and far.pvalue_rse <= 0.02


def test_rtol_decides_whether_the_bound_is_narrow_enough():
    """The bound 0.01 (2.33 %) is within twice rtol from rtol = 0.0117; below, the tilt."""
    N, P = 5000, 500
    a = threshold(N, P, 4.0)
    wide = significance_from_ap(a, N, P, rtol=0.0117)
    tight = significance_from_ap(a, N, P, rtol=0.0115)
    assert wide.method == "saddlepoint" and tight.method == "tilt"
    assert tight.pvalue_rse <= 0.0115
    se = tight.pvalue_rse / math.log(10)
    assert abs(wide.log10_pvalue - tight.log10_pvalue) <= log10_halfwidth(wide) + 3 * se


def test_pinned_region_ends_at_ten_p_squared():
    """N = 10^5 = 10 P^2 (P = 100): deep in the tail the top positives are pinned and the
    saddlepoint answers with the bound 0.015; at N + 1 the tilt answers. The two agree."""
    P = 100
    mean = null_params(100_000, P).mean
    a = mean + 0.3 * (1 - mean)
    assert plan(100_000, P, a).check_pinning and plan(100_001, P, a).method == "tilt"
    sp = significance_from_ap(a, 100_000, P)
    tilt = significance_from_ap(a, 100_001, P)
    assert sp.method == "saddlepoint" and log10_halfwidth(sp) == pytest.approx(0.015)
    assert tilt.method == "tilt" and tilt.pvalue_rse <= 0.02
    se = tilt.pvalue_rse / math.log(10)
    assert abs(sp.log10_pvalue - tilt.log10_pvalue) <= 0.015 + 3 * se


def test_pinning_is_checked_only_from_twelve_over_p_of_the_way():
    """At N = 10^5, P = 100 a shallow threshold (below 12 %) is the tilt's without a check."""
    N, P = 100_000, 100
    mean = null_params(N, P).mean
    shallow = plan(N, P, mean + 0.05 * (1 - mean))
    deep = plan(N, P, mean + 0.5 * (1 - mean))
    assert shallow.method == "tilt" and not shallow.check_pinning
    assert deep.method == "saddlepoint" and deep.check_pinning


def test_many_positives_switch_from_the_exact_layers_to_the_compressed_knots():
    """P = 10^4: at N = 19,999 (10^8 cells) the exact layers' saddlepoint (bound 0.01), at
    N = 20,000 the compressed CGF's (bound 0.015); their answers agree within the bounds."""
    P = 10_000
    lay, kn = plan(19_999, P), plan(20_000, P)
    assert (lay.backend, lay.log10_bound) == ("layers", 0.01)
    assert (kn.backend, kn.log10_bound, kn.region) == ("knots", 0.015, "large P")
    a = threshold(20_000, P, 8.0)
    r1 = significance_from_ap(a, 19_999, P)
    r2 = significance_from_ap(a, 20_000, P)
    assert r1.method == r2.method == "saddlepoint"
    assert log10_halfwidth(r1) == pytest.approx(0.01)
    assert log10_halfwidth(r2) == pytest.approx(0.015)
    assert abs(r1.log10_pvalue - r2.log10_pvalue) <= 0.01 + 0.015


def test_tilt_backend_beyond_128_megabytes():
    """The tilt keeps its exact layers up to 1.6e7 cells and compresses beyond: both answers
    hold the plain Monte Carlo estimate."""
    P = 16
    n_layers = 16_000_000 // P + P - 1  # P (N - P + 1) = 1.6e7 exactly
    assert plan(n_layers, P).backend == "layers" and plan(n_layers + 1, P).backend == "compressed"
    for N in (n_layers, n_layers + 1):
        a = threshold(N, P, 1.0)
        res = significance_from_ap(a, N, P)
        assert res.method == "tilt"
        rng = np.random.default_rng(N)
        # random P-subsets of 1..N without materialising N keys per draw
        draws, hits, k = 20_000, 0, np.arange(1, P + 1)
        for _ in range(draws):
            r = np.sort(rng.choice(N, size=P, replace=False)) + 1
            hits += (k / r).mean() >= a
        p = hits / draws
        se = math.sqrt(p * (1 - p) / draws)
        lo, hi = res.pvalue_interval
        assert lo - 3 * se <= p <= hi + 3 * se, (N, p, se, res)
