"""The accurate compressed CGF of S = P * AP and the saddle route on it, against independent oracles.

Oracles: the rule's defining identity for a pure exponential (closed-form
geometric sums), central finite differences of ``kappa`` from ``math.sinh``,
a plain log-space recursion over every offset written here with
``numpy.logaddexp`` (no knots, no scaling), the exact forward recursion
``TiltEngine.cgf`` (itself checked against that oracle in
``tests/test_tilt_mass.py``) for the derivatives, and the unbiased
importance sampler ``TiltEngine.tail`` for the tail.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pranker._numba.cgf_knots import band_layers, kappa4
from pranker._numba.compressed import compressed_knots
from pranker.null.choice import LARGE_P_LOG10_BOUND
from pranker.null.saddlepoint import LargePSaddle
from pranker.null.tilt import TiltEngine


def accurate_cgf_band(P, phi, x, lo, parallel):
    """``(log Z, K', K'')``: the last layer of ``band_layers`` (each layer from knot ``lo[k - 1]`` up)."""
    g, g1, g2 = band_layers(P, phi, x, lo, parallel)
    B = x.shape[0]
    return g[B - 1], g1[B - 1], g2[B - 1]


def _kappa(s):
    return 1.0 if s == 0.0 else (s / 2.0) / math.sinh(s / 2.0)


def _log_z_plain(N, P, phi):
    """log of the tilted mass over every placement: a log-space recursion over all offsets."""
    M = N - P
    d = np.arange(M + 1, dtype=np.float64)
    lg = np.zeros(M + 1)  # log G_0 = 0
    for k in range(1, P + 1):
        la = lg + phi * k / (k + d)
        lg = np.logaddexp.accumulate(la)
    return float(lg[-1])


def _log_comb(N, P):
    return math.lgamma(N + 1) - math.lgamma(P + 1) - math.lgamma(N - P + 1)


@pytest.mark.parametrize("s", [-7.3, -0.9, -0.05, 0.0, 0.13, 0.7, 2.5, 11.0, 40.0])
def test_kappa_makes_the_sum_of_an_exponential_exact(s):
    """sum_{t=a}^{b} e^{s t} = kappa(s) * integral of e^{s u} over [a - 1/2, b + 1/2]."""
    a, b = 3, 17
    direct = sum(math.exp(s * t) for t in range(a, b + 1))
    integral = (
        (b - a + 1.0) if s == 0.0 else (math.exp(s * (b + 0.5)) - math.exp(s * (a - 0.5))) / s
    )
    assert kappa4(s)[0] * integral == pytest.approx(direct, rel=1e-12)


@pytest.mark.parametrize("s", [-9.0, -1.1, -0.3, -0.19, 0.05, 0.21, 0.8, 3.0, 15.0])
def test_kappa_derivatives_against_finite_differences(s):
    """The four derivatives against 5-point central differences of (s/2)/sinh(s/2)."""
    got = kappa4(s)
    assert got[0] == pytest.approx(_kappa(s), rel=1e-13)
    h = 0.02
    f = [_kappa(s + i * h) for i in (-2, -1, 0, 1, 2)]
    d1 = (f[0] - 8 * f[1] + 8 * f[3] - f[4]) / (12 * h)
    d2 = (-f[0] + 16 * f[1] - 30 * f[2] + 16 * f[3] - f[4]) / (12 * h * h)
    d3 = (-f[0] + 2 * f[1] - 2 * f[3] + f[4]) / (2 * h**3)
    d4 = (f[0] - 4 * f[1] + 6 * f[2] - 4 * f[3] + f[4]) / h**4
    for g, ref, tol in (
        (got[1], d1, 1e-8),
        (got[2], d2, 1e-6),
        (got[3], d3, 1e-4),
        (got[4], d4, 1e-3),
    ):
        assert abs(g - ref) <= tol * max(1.0, abs(ref)), (s, g, ref)


@pytest.mark.parametrize("phi", [0.0, 0.4, 3.0])
def test_cgf_against_the_plain_log_space_recursion(phi):
    """N = 3000, P = 300, knots from 16 with ratio 1.04 (200 of them): K within 2e-4 nats."""
    N, P = 3000, 300
    x = compressed_knots(N - P, 16, 0.04)
    assert np.any(np.diff(x) > 1) and x.shape[0] < 250
    lz, k1, k2 = accurate_cgf_band(P, phi, x, np.zeros(P, np.int64), False)
    exact = _log_z_plain(N, P, phi)
    assert abs(lz - exact) <= 2e-4, (phi, lz - exact)
    ke, ke1, ke2 = TiltEngine(N, P).cgf(phi)
    assert abs(k1 - ke1) <= 1e-3 * math.sqrt(ke2)
    assert k2 == pytest.approx(ke2, rel=1e-3)
    assert abs((lz - _log_comb(N, P)) - ke) <= 2e-4


@pytest.mark.parametrize("phi", [0.0, 1.0, 5.0])
def test_cgf_at_two_thousand_positives(phi):
    """N = 2e4, P = 2e3 with the default knots (E = 64, 4 %): K within 5e-3 nats of the exact CGF.

    Measured at the default knots: |K - K_exact| <= 4.3e-4 nats at P = 1e4
    (N = 1e5, phi = 0 - 2), <= 2.6e-3 at (3e4, 3e3, phi = 5), <= 4e-5 at
    (1e6, 1e3); K' within 2e-3 tilted sd.
    """
    N, P = 20_000, 2_000
    sd = LargePSaddle(N, P)
    k, k1, k2 = sd.cgf(phi)
    ke, ke1, ke2 = TiltEngine(N, P).cgf(phi)
    assert abs(k - ke) <= 5e-3, (phi, k - ke)
    assert abs(k1 - ke1) <= 5e-3 * math.sqrt(ke2)
    assert k2 == pytest.approx(ke2, rel=5e-3)


def test_parallel_blocks_give_the_same_bits():
    x = compressed_knots(5_000 - 60, 16, 0.04)
    lo = np.zeros(60, np.int64)
    for phi in (0.0, 2.0):
        assert accurate_cgf_band(60, phi, x, lo, True) == accurate_cgf_band(60, phi, x, lo, False)


def test_saddle_point_solves_the_slope():
    sd = LargePSaddle(20_000, 1_000)
    s = sd.mean_s + 8.0 * sd.sd_s
    phi, k, k2 = sd.saddle(s)
    assert abs(sd.cgf(phi)[1] - s) <= 1e-2 * math.sqrt(k2)  # the stopping rule


@pytest.mark.parametrize("z", [5.0, 40.0])
def test_tail_against_the_importance_sampler(z):
    """N = 4000, P = 1000 (exact layers): within the bound of many positives plus 3 standard errors."""
    N, P = 4_000, 1_000
    sd = LargePSaddle(N, P)
    s = sd.mean_s + z * sd.sd_s
    lp = sd.log_sf(s) / math.log(10.0)
    ref = TiltEngine(N, P).tail(s, rtol=0.05, progress=False)
    se = ref.rse / math.log(10.0)
    assert abs(lp - ref.log10_pvalue) <= LARGE_P_LOG10_BOUND + 3 * se, (lp, ref)


def test_bad_input_and_the_top():
    with pytest.raises(ValueError, match="KnotsCGF: need 2 <= P < N"):
        LargePSaddle(10, 10)
    assert LargePSaddle(3_000, 1_000).log_sf(1000.5) == -math.inf
