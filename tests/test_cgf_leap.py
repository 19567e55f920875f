"""Leaping over layers of the compressed CGF pass, against an exact recursion written here.

Oracle: the forward recursion over every offset in log space
(``numpy.logaddexp.accumulate``, no knots, no leaps), its phi-derivatives by
central differences. The leaped pass must agree with it as closely as the
pass over every layer does; a leap that dropped the extrapolation's
curvature terms would be off by nats at these sizes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pranker.null.cgf import LEAP_MAX_POSITIVES, LEAP_MIN_POSITIVES, KnotsCGF
from pranker.null.logspace import log_comb


def exact_k(N, P, phi):
    """``K(phi)`` of S by the plain log-space forward recursion over every offset."""
    d = np.arange(N - P + 1, dtype=np.float64)
    lg = np.zeros(N - P + 1)
    for k in range(1, P + 1):
        lg = np.logaddexp.accumulate(lg + phi * k / (k + d))
    return lg[-1] - log_comb(N, P)


@pytest.mark.parametrize("phi", [0.3, 2.0, 5.0, 6.5])
def test_leaped_pass_against_the_exact_recursion(phi):
    """Also at high tilts, where leaps of 0.005 k lost the layers' mass (NaN) and shorter
    ones are taken."""
    N, P = 6000, 3000
    leaped = KnotsCGF(N, P, leap=True).cgf(phi)
    every = KnotsCGF(N, P, leap=False).cgf(phi)
    assert leaped != every  # the leaps were taken
    h = 1e-3
    k0, kp, km = exact_k(N, P, phi), exact_k(N, P, phi + h), exact_k(N, P, phi - h)
    k1 = (kp - km) / (2 * h)
    k2 = (kp - 2 * k0 + km) / (h * h)
    sd = math.sqrt(k2)
    # the pass over every layer is within ~1e-3 nats here (2.5e-3 at phi = 6.5, the knots'
    # own error, as in tests/test_cgf_accurate.py); the leaps add far less
    assert abs(every[0] - k0) < 5e-3
    assert abs(leaped[0] - k0) < 5e-3
    assert abs(leaped[0] - every[0]) < 2e-4
    assert abs(leaped[1] - k1) < 0.01 * sd
    assert abs(leaped[2] / k2 - 1.0) < 0.01


def test_leap_default_only_beyond_the_threshold():
    assert not KnotsCGF(2 * LEAP_MIN_POSITIVES - 2, LEAP_MIN_POSITIVES - 1).leap
    assert KnotsCGF(2 * LEAP_MIN_POSITIVES, LEAP_MIN_POSITIVES).leap
    assert KnotsCGF(2 * LEAP_MAX_POSITIVES, LEAP_MAX_POSITIVES).leap
    assert not KnotsCGF(2 * LEAP_MAX_POSITIVES + 2, LEAP_MAX_POSITIVES + 1).leap
