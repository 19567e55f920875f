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


def test_scalar_null_moments_are_the_kernel_bit_for_bit():
    """The scalar moments run by Python (no compile on a first p-value) agree with the kernel
    from N = 1 to 10^12: the same operations in the same order (the same bits on the machines
    measured; 4 ulp allowed, as another CPU's compiled code may round differently)."""
    import numpy as np

    pairs = [(n, p) for n in range(1, 70) for p in range(1, n + 1)]
    rng = np.random.default_rng(0)
    for _ in range(5000):
        n = int(10 ** rng.uniform(1, 12))
        pairs.append((n, int(max(1, min(n, round(n * 10 ** rng.uniform(-6, 0)))))))
    pairs += [(2**53 + 2, 3), (10**12, 10**12 - 1), (4, 4), (5, 1)]
    for n, p in pairs:
        kernel = _kernels.null_moments(float(n), float(p), float(n - p))
        scalar = _kernels.null_moments_scalar(n, p, n - p)
        for a, b in zip(scalar, kernel, strict=True):
            assert abs(a - b) <= 4 * np.spacing(abs(b)), (n, p, scalar, kernel)
