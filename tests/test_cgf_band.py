"""The layers' floors and the CGF pass that starts from them, against independent oracles.

Oracles: the exact tilted marginals of each positive's offset, from plain
log-space forward and backward recursions over every offset written here
with ``numpy.logaddexp`` (no knots); the full accurate pass (every knot of
every layer, itself checked against the exact recursion in
``tests/test_cgf_accurate.py``); importance-sampled truths at P = 10^4 stored
in ``docs/calibration_large_p_truth.jsonl`` (computed by
``benchmarks/calibration_large_p_truth.py``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from pranker import significance_from_ap
from pranker._numba.cgf_knots import FLOOR_STRIDE, FLOOR_T, band_layers, chord_floors
from pranker._numba.compressed import compressed_knots
from pranker.null.choice import (
    LARGE_P_LOG10_BOUND,
    MANY_ITEMS_LOG10_BOUND,
    auto_method,
    plan,
)
from pranker.null.saddlepoint import LargePSaddle

TRUTHS = Path(__file__).resolve().parents[1] / "docs" / "calibration_large_p_truth.jsonl"


def accurate_cgf_band(P, phi, x, lo, parallel):
    """``(log Z, K', K'')``: the last layer of ``band_layers`` (each layer from knot ``lo[k - 1]`` up)."""
    g, g1, g2 = band_layers(P, phi, x, lo, parallel)
    B = x.shape[0]
    return g[B - 1], g1[B - 1], g2[B - 1]


def _log_marginals(N, P, phi):
    """``m[k-1, d] = log P_phi(d_k = d)`` by a forward and a backward pass over every offset."""
    M = N - P
    d = np.arange(M + 1, dtype=np.float64)
    fwd = np.empty((P, M + 1))  # log A_k(d) = phi k / (k + d) + log G_{k-1}(d)
    lg = np.zeros(M + 1)
    for k in range(1, P + 1):
        la = lg + phi * k / (k + d)
        fwd[k - 1] = la
        lg = np.logaddexp.accumulate(la)
    bwd = np.empty((P, M + 1))  # log H_k(d): positives k+1..P at offsets >= d
    lh = np.zeros(M + 1)
    bwd[P - 1] = lh
    for k in range(P - 1, 0, -1):
        lb = lh + phi * (k + 1) / (k + 1 + d)
        lh = np.logaddexp.accumulate(lb[::-1])[::-1]
        bwd[k - 1] = lh
    m = fwd + bwd
    return m - np.logaddexp.reduce(m, axis=1, keepdims=True)


@pytest.mark.parametrize(
    ("N", "P", "phi"), [(3_000, 300, 0.5), (3_000, 300, 3.0), (6_000, 200, 4.0)]
)
def test_floors_leave_out_a_tiny_tilted_probability(N, P, phi):
    """Below each layer's floor, the exact tilted probability of d_k is under e^(-T + 5)."""
    floors = chord_floors(P, phi, compressed_knots(N - P, 16, 0.16), FLOOR_STRIDE, FLOOR_T)
    assert np.all(np.diff(floors) >= 0)
    m = _log_marginals(N, P, phi)
    assert floors.max() > 0  # the test has floors to check
    for k in range(1, P + 1):
        f = int(floors[k - 1])
        if f > 0:
            below = np.logaddexp.reduce(m[k - 1, :f])
            assert below <= -FLOOR_T + 5.0, (k, f, below)


def test_a_larger_tilt_puts_more_mass_low():
    """The FKG argument behind reusing floors: P_phi(d_k < x) grows with phi (exact marginals)."""
    N, P = 2_000, 100
    lo, hi = _log_marginals(N, P, 1.0), _log_marginals(N, P, 2.5)
    for k in (1, 10, 50, 100):
        cdf_lo = np.logaddexp.accumulate(lo[k - 1])
        cdf_hi = np.logaddexp.accumulate(hi[k - 1])
        assert np.all(cdf_hi >= cdf_lo - 1e-9)


@pytest.mark.parametrize(
    ("N", "P", "z"),
    [(6_000, 3_000, 5.0), (30_000, 3_000, 1.0), (30_000, 3_000, 25.0), (200_000, 2_000, 10.0)],
)
def test_the_pass_from_the_floors_matches_the_full_pass(N, P, z):
    """K, K' (in tilted sd) and K'' (relative) within 1e-5 of the pass over every knot."""
    sd = LargePSaddle(N, P)
    s = sd.mean_s + z * sd.sd_s
    phi = sd.saddle(s)[0]
    lo = sd.floors(phi)
    assert lo.max() > 0  # some layers start above knot 0
    k, k1, k2 = accurate_cgf_band(P, phi, sd.x, lo, False)
    f, f1, f2 = accurate_cgf_band(P, phi, sd.x, np.zeros(P, np.int64), False)
    assert abs(k - f) <= 1e-5
    assert abs(k1 - f1) <= 1e-5 * math.sqrt(f2)
    assert abs(k2 / f2 - 1.0) <= 1e-5


def test_plan_of_many_positives():
    """Where the compressed-CGF saddlepoint answers, and on either side of its region."""
    inside = plan(10**5, 10**4)
    assert (inside.method, inside.backend, inside.log10_bound) == (
        "saddlepoint",
        "knots",
        LARGE_P_LOG10_BOUND,
    )
    assert plan(20_000, 10_000).backend == "knots"
    # 1e8 cells: the exact recursion's saddlepoint (its own region and bound)
    assert plan(19_999, 10_000).backend == "layers"
    # more than 10 items per positive: the knots' region ends (the next one begins)
    assert plan(10**5 + 1, 10**4).region == "many items"
    assert plan(10**5, 9_999).method == "tilt"
    assert auto_method(10**5, 10**4) == "saddlepoint"
    # the bound as a relative error is 3.5 %: within twice rtol from rtol = 0.0176
    assert auto_method(10**5, 10**4, rtol=0.0176) == "saddlepoint"
    assert auto_method(10**5, 10**4, rtol=0.0175) == "tilt"
    # 11 to 100 items per positive: the scaled CGF with its wider bound, whatever rtol (the tilt
    # cannot afford its draws there within the default budget); beyond, the tilt
    for rtol in (None, 0.001, 0.5):
        many = plan(10**6, 10**4, rtol=rtol)
        assert (many.method, many.backend, many.region) == ("saddlepoint", "scaled", "many items")
        assert many.log10_bound == MANY_ITEMS_LOG10_BOUND
    assert auto_method(10**6 + 10**4, 10**4) == "tilt"  # 101 items per positive
    assert auto_method(10**6, 9_999) == "tilt"


def _truths():
    if not TRUTHS.exists():
        return []
    rows = [json.loads(line) for line in TRUTHS.read_text().splitlines() if line.strip()]
    # N = 2e4 (one to two seconds each); the others: docs/calibration.md
    return [r for r in rows if r.get("truth_log10") is not None and r["N"] == 20_000]


@pytest.mark.parametrize("row", _truths(), ids=lambda r: f"{r['N']}-{r['P']}-{r['target']}")
def test_default_against_importance_sampled_truths(row):
    """The default p-value is within its bound plus 3 standard errors of the stored truth."""
    res = significance_from_ap(row["s"] / row["P"], row["N"], row["P"])
    assert res.method == "saddlepoint"
    bound = plan(row["N"], row["P"]).log10_bound
    lo, hi = res.pvalue_interval
    assert math.log10(hi) - res.log10_pvalue == pytest.approx(bound)
    se = row["rse"] / math.log(10.0)
    assert abs(res.log10_pvalue - row["truth_log10"]) <= bound + 3.0 * se
