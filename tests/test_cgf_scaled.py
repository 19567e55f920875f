"""The CGF of S extrapolated from the problem scaled down (``ScaledCGF``) and the saddlepoint on it.

Oracles, none of which goes through the code under test:

- a plain log-space forward recursion over every offset, written here
  (``K`` exactly; ``K'`` and ``K''`` by central differences of it);
- the exact null mean and variance of AP in closed form
  (``pranker.null.moments.null_params``), which are ``K'(0) / P`` and
  ``K''(0) / P^2`` at any size;
- the unbiased importance sampler's truths at about 1 % rse, stored in
  ``docs/calibration_large_p_truth.jsonl`` (computed outside this route).
"""

from __future__ import annotations

import json
import math
import pathlib
import warnings

import numpy as np
import pytest

from pranker import significance_from_ap
from pranker.null.cgf import ScaledCGF, scaled_sizes
from pranker.null.choice import (
    LARGE_P_LOG10_BOUND,
    SCALED_SPREAD_FACTOR,
    plan,
    saddlepoint_backend,
)
from pranker.null.large_p import ScaledSaddle
from pranker.null.moments import null_params

LN10 = math.log(10.0)
TRUTHS = pathlib.Path(__file__).resolve().parents[1] / "docs" / "calibration_large_p_truth.jsonl"


def plain_k(n: int, p: int, phi: float) -> float:
    """K(phi) = log E[exp(phi S)] by the forward recursion over offsets, in log space:
    G_k(d) = exp(phi k / (k + d)) sum_{d' <= d} G_{k-1}(d'), K = log sum_d G_P(d) - log C(N, P)."""
    m = n - p
    d = np.arange(m + 1, dtype=float)
    log_g = phi / (1.0 + d)  # one positive, at offset d: one sequence each
    for k in range(2, p + 1):
        log_g = phi * k / (k + d) + np.logaddexp.accumulate(log_g)
    top = np.logaddexp.reduce(log_g)
    log_comb = math.lgamma(n + 1) - math.lgamma(p + 1) - math.lgamma(m + 1)
    return float(top - log_comb)


def plain_cgf(n: int, p: int, phi: float, h: float = 2e-3) -> tuple[float, float, float]:
    """(K, K', K'') of the plain recursion: K' and K'' by five-point central differences."""
    ks = [plain_k(n, p, phi + j * h) for j in (-2, -1, 0, 1, 2)]
    k1 = (ks[0] - 8 * ks[1] + 8 * ks[3] - ks[4]) / (12 * h)
    k2 = (-ks[0] + 16 * ks[1] - 30 * ks[2] + 16 * ks[3] - ks[4]) / (12 * h * h)
    return ks[2], k1, k2


# Small problems so that the plain recursion is quick: the largest scaled-down problem has
# 256 positives (sizes 256 ... 32), the target 1,100; the extrapolation is four-fold.
SMALL_CASES = [
    (2_200, 1_100, 66_000),  # two items per positive, every size an integer
    (11_011, 1_100, 600_000),  # N P_i / P never an integer: the cubic interpolation in N
    (1_650, 1_100, 33_000),  # 1.5 items per positive: every other size interpolated
]


@pytest.mark.parametrize("n, p, cells", SMALL_CASES)
@pytest.mark.parametrize("phi", [0.01, 0.3, 1.0, 1.5, 2.5])
def test_the_extrapolated_cgf_agrees_with_the_plain_recursion(n, p, cells, phi):
    """K within the factor the route puts on the extrapolation's spread (plus 1e-5 nats), K'
    within 0.05 tilted sd and K'' within 3 %. These sizes are smaller than any the default uses,
    and the hardest measured: in the change of regime at N / P = 10, phi = 1-1.5, the error in K
    reached 3.6 times the spread, K' 0.04 sd and K'' 2 % (the tail's log p moves with K at the
    saddle point, not with K': its slope there is zero)."""
    sc = ScaledCGF(n, p, cells=cells)
    k, k1, k2 = sc.cgf(phi)
    ek, ek1, ek2 = plain_cgf(n, p, phi)
    assert abs(k - ek) <= SCALED_SPREAD_FACTOR * sc.spreads[-1] + 1e-5, (k - ek, sc.spreads[-1])
    assert abs(k1 - ek1) <= 0.05 * math.sqrt(ek2)
    assert abs(k2 / ek2 - 1.0) <= 0.03


@pytest.mark.parametrize("n, p", [(2 * 10**6, 10**6), (10**7, 10**6), (3 * 10**6 + 7, 10**6 + 3)])
def test_the_extrapolated_slope_and_curvature_at_zero_are_the_exact_null_moments(n, p):
    """At phi = 0, K' and K'' are the null mean and variance of S = P AP, known in closed form at
    any size: the extrapolation from a few thousand positives to a million holds them."""
    mean, var = null_params(n, p)
    sc = ScaledCGF(n, p)
    k, k1, k2 = sc.cgf(0.0)
    assert abs(k) <= 1e-4  # zero, but for round-off of the small problems times the weights
    assert abs(k1 - mean * p) <= 1e-5 * math.sqrt(var) * p  # measured: 5e-7
    assert abs(k2 / (var * p * p) - 1.0) <= 1e-5  # measured: 1.1e-6


def _truths():
    rows = []
    for line in TRUTHS.read_text().splitlines():
        d = json.loads(line)
        if d["N"] <= 10 * d["P"] and d.get("rse") is not None:
            rows.append(d)
    return rows


@pytest.mark.parametrize("truth", _truths(), ids=lambda d: f"N{d['N']}-{d['truth_log10']:.0f}")
def test_the_scaled_saddlepoint_interval_holds_the_importance_sampler_truths(truth):
    """At P = 10^4 (N = 2*10^4 and 10^5) the saddlepoint on the extrapolated CGF lies within its
    reported interval of the sampler's truth, widened by 2 of the sampler's standard errors."""
    n, p, s = truth["N"], truth["P"], truth["s"]
    cells = 5_000_000 if n <= 2 * p else 40_000_000  # so that P is at least 4 times the largest
    sd = ScaledSaddle(n, p, cells=cells)
    lp, (lo, hi), capped = sd.bounded_tail(s, 0.010)
    se = truth["rse"] / LN10
    assert not capped
    assert lo - 2 * se <= truth["truth_log10"] <= hi + 2 * se, (lo, truth["truth_log10"], hi)


def test_beyond_the_leaps_the_default_is_the_scaled_saddlepoint_with_its_interval():
    """At N = 10^6, P = 5*10^5 the plan names the scaled CGF; the default p-value answers at
    once with an interval of at least the region's bound, without a budget warning."""
    n, p = 10**6, 5 * 10**5
    assert saddlepoint_backend(n, p) == "scaled"
    mean, var = null_params(n, p)
    ap = mean + 3 * math.sqrt(var)
    assert plan(n, p, ap=ap).log10_bound == 0.010
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = significance_from_ap(ap, n, p)
    assert r.method == "saddlepoint"
    lo, hi = r.log10_pvalue_interval
    assert lo < r.log10_pvalue < hi and hi - r.log10_pvalue >= 0.010 - 1e-12
    # the normal tail at 3 sd is 10^-2.87; the saddlepoint is close (the law is nearly normal)
    assert abs(r.log10_pvalue - math.log10(0.0013498980316301)) < 0.05
    assert LARGE_P_LOG10_BOUND >= 0.010


def test_the_scaled_sizes_refuse_what_they_cannot_extrapolate():
    assert scaled_sizes(10**5, 10**4) is not None
    assert scaled_sizes(4 * 10**4, 10**4) is None  # P under four times the largest size
    assert scaled_sizes(10**9, 10**5) is None  # 10^4 items per positive: the smallest under 32
    assert scaled_sizes(10**6 + 1_000, 10**6) is None  # under 2 negatives in the smallest
    assert scaled_sizes(10**6 + 2_000, 10**6) is not None
    with pytest.raises(ValueError, match="too small"):
        ScaledCGF(4 * 10**4, 10**4)


def test_the_extrapolated_third_cumulant_is_the_exact_one(monkeypatch):
    """The third derivative at 0 (central differences of the extrapolated K'') against the exact
    third central moment of S from its own dynamic programme (O(N sqrt(P)), about 6 s here), at
    2*10^5 positives: 32 times the largest scaled-down problem (measured: 1.2e-5 relative)."""
    from pranker.null import skewbeta

    n, p = 4 * 10**5, 2 * 10**5
    monkeypatch.setattr(skewbeta, "THIRD_MOMENT_MAX_WORK", n * p)  # its cost cap, lifted here
    m3 = skewbeta.null_third_moment(n, p) * p**3
    sc = ScaledCGF(n, p)
    h = 0.003
    k3 = (sc.cgf(h)[2] - sc.cgf(-h)[2]) / (2 * h)
    assert abs(k3 / m3 - 1.0) <= 1e-3, k3 / m3 - 1.0


@pytest.mark.parametrize("n, p, phi", [(60, 20, 0.7), (3_000, 200, 2.0), (5_000, 700, -0.4)])
def test_one_pass_gives_the_last_item_counts(n, p, phi):
    """The prefix sums of one pass for N items are the passes for N - 3 .. N items: each row
    equals the plain recursion run for that many items (K exactly, K' and K'' by differences)."""
    from pranker.null.cgf import LayersCGF

    rows = LayersCGF(n, p).cgf_ends(phi, 4)
    for i, n_items in enumerate(range(n - 3, n + 1)):
        k, k1, k2 = plain_cgf(n_items, p, phi)
        assert rows[i, 0] == pytest.approx(k, abs=1e-9)
        assert rows[i, 1] == pytest.approx(k1, rel=1e-6)
        assert rows[i, 2] == pytest.approx(k2, rel=1e-4)


def test_the_last_item_counts_must_exist():
    from pranker._numba.tilt import tilt_forward_ends

    with pytest.raises(ValueError, match="tail"):
        tilt_forward_ends(30, 20, 0.5, 0.0, 12)  # only 11 item counts from 20 to 30


def test_past_the_change_of_regime_the_knots_hand_over_to_the_scaled_cgf():
    """At N = 10^5, P = 10^4 (the knots' region): 3 sd above the mean the first tilt is small and
    the knots answer (bound 0.015); half-way to the top it is past log(N / P) + 0.3 and the scaled
    CGF answers (bound 0.010 plus its spread), within the two bounds of the knots' own answer."""
    from pranker.null.large_p import LargePSaddle, large_p_tail

    n, p = 10**5, 10**4
    mean, var = null_params(n, p)
    near = (mean + 3 * math.sqrt(var)) * p
    lp, (lo, hi), capped = large_p_tail(n, p, near, LARGE_P_LOG10_BOUND, None)
    assert not capped and hi - lp == pytest.approx(LARGE_P_LOG10_BOUND)
    deep = (mean + 1.0) / 2 * p
    lp, (lo, hi), capped = large_p_tail(n, p, deep, LARGE_P_LOG10_BOUND, None)
    assert not capped and 0.010 <= hi - lp < LARGE_P_LOG10_BOUND
    knots = LargePSaddle(n, p).log_sf(deep) / LN10
    assert abs(lp - knots) <= (hi - lp) + LARGE_P_LOG10_BOUND


@pytest.mark.parametrize("ratio", [1.003, 1.5, 10.0])
def test_the_scaled_route_answers_across_its_plane(ratio):
    """Beyond 2*10^5 positives, from nearly no negatives to 10 items per positive and from the
    body to 89 % of the way to the top: a finite log10 p inside its own interval, at least the
    region's bound wide, without a budget warning (the whole plane, about 100 thresholds, was
    swept the same way when the route was added)."""
    p = 250_001
    n = int(round(p * ratio))
    mean, var = null_params(n, p)
    for ap in (mean + math.sqrt(var), mean + 30 * math.sqrt(var), mean + 0.89 * (1 - mean)):
        if not ap < 1.0:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = significance_from_ap(ap, n, p)
        lo, hi = r.log10_pvalue_interval
        assert r.method == "saddlepoint" and math.isfinite(r.log10_pvalue)
        assert lo < r.log10_pvalue < hi <= 0.0
        assert hi - r.log10_pvalue >= 0.010 - 1e-12
