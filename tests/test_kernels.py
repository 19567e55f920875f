"""Numerical kernels against 40-digit arithmetic."""

import mpmath
import pytest

from pranker._numba import moments as _kernels

OFFSETS = [0, 1, 5, 63, 64, 65, 100, 10**4, 10**6, 10**9, 10**12, 2**53]
LENGTHS = [1, 2, 10, 63, 64, 65, 66, 100, 1000, 10**5, 10**9, 10**12]


@pytest.mark.parametrize("A", OFFSETS)
def test_harmonic_sums_full_relative_precision(A):
    with mpmath.workdps(40):
        for n in LENGTHS:
            h, g = _kernels.harmonic_sums(float(A), float(n))
            # h = psi(A+n+1) - psi(A+1); g = sum (t-1)/(A+t) = n - (A+1) h
            hm = mpmath.digamma(A + n + 1) - mpmath.digamma(A + 1)
            gm = n - (A + 1) * hm
            # (beyond 2**53, A + t itself is rounded: a few ulps)
            assert abs(h - hm) <= (4e-16 if A < 2**53 else 2e-15) * hm, (A, n)
            if n == 1:
                assert g == 0.0
            else:
                assert abs(g - gm) <= 1e-14 * gm, (A, n, float(g), float(gm))


def test_harmonic_numbers():
    with mpmath.workdps(40):
        for N in [1, 2, 10, 64, 65, 1000, 10**6, 10**12, 2**62]:
            h1 = mpmath.digamma(N + 1) + mpmath.euler
            h2 = mpmath.zeta(2) - mpmath.zeta(2, N + 1)
            assert abs(_kernels.harmonic(float(N)) - h1) <= 4e-16 * h1
            assert abs(_kernels.harmonic2(float(N)) - h2) <= 4e-16 * h2
