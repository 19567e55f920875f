"""Kernels of the null moments: harmonic sums to full precision, exact mean and variance of AP.

Harmonic sums
-------------
For integers ``A >= 0`` and ``n >= 0`` define

    h(A, n) = sum_{t=1..n} 1 / (A + t)           = psi(A+n+1) - psi(A+1)
    g(A, n) = sum_{t=1..n} (t - 1) / (A + t)      = n - (A + 1) h(A, n)

Both are needed to full relative precision even when ``A`` is ~1e12 and ``n``
small, where the digamma difference and ``n - (A+1) h`` cancel badly. We sum
directly while ``n`` is small or ``A`` is below ``_SHIFT`` (moving ``A`` up),
then use the asymptotic series of psi,

    psi(z) = ln z - 1/(2z) - sum_k B_2k / (2k z^2k),

with every difference of like terms formed explicitly: ``ln(y/x)`` as
``log1p(n/x)``, ``1/(2x) - 1/(2y)`` as ``n / (2xy)``, and
``n - x log1p(n/x)`` as ``x (u - log1p(u))`` with ``u - log1p(u)`` from a
series in ``w = u / (2 + u)`` (``log1p(u) = 2 atanh(w)``), which has no
cancellation. Truncation after B_10 leaves an error below 1e-22 at z >= 65.
The closed forms of the null moments are derived in
:mod:`pranker.null.moments`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_SHIFT = 64  # direct summation below this many terms / this offset
_EULER = 0.57721566490153286060651209008240243
_ZETA2 = 1.6449340668482264364724151666460252


@njit(cache=True, inline="always")
def _u_minus_log1p(u):
    """u - log1p(u) for u >= 0 without cancellation."""
    if u >= 0.5:
        return u - math.log1p(u)
    w = u / (2.0 + u)
    w2 = w * w
    # 2 * (w^3/3 + w^5/5 + ...), w <= 0.2 so 14 terms reach 1e-20
    s = 0.0
    term = w * w2
    k = 3.0
    for _ in range(14):
        s += term / k
        term *= w2
        k += 2.0
    return u * w - 2.0 * s


@njit(cache=True, inline="always")
def _psi_tail_diff(x, y):
    """sum over Bernoulli terms of [c_k / x^2k - c_k / y^2k], with psi(z) ~ ln z - 1/2z - ..."""
    # psi(z) = ln z - 1/(2z) - 1/(12 z^2) + 1/(120 z^4) - 1/(252 z^6) + 1/(240 z^8) - 1/(132 z^10)
    # return R with psi(y) - psi(x) = ln(y/x) + (1/(2x) - 1/(2y)) + R
    ix2 = 1.0 / (x * x)
    iy2 = 1.0 / (y * y)
    ix4 = ix2 * ix2
    iy4 = iy2 * iy2
    ix6 = ix4 * ix2
    iy6 = iy4 * iy2
    ix8 = ix4 * ix4
    iy8 = iy4 * iy4
    ix10 = ix8 * ix2
    iy10 = iy8 * iy2
    return (
        (ix2 - iy2) / 12.0
        - (ix4 - iy4) / 120.0
        + (ix6 - iy6) / 252.0
        - (ix8 - iy8) / 240.0
        + (ix10 - iy10) / 132.0
    )


@njit(cache=True)
def harmonic_sums(A, n):
    """(h, g) = (sum_{t<=n} 1/(A+t), sum_{t<=n} (t-1)/(A+t)) to full relative precision.

    ``A`` and ``n`` are non-negative integers given as float64 (exact below 2**53).
    """
    h = 0.0
    g = 0.0
    if n <= 0.0:
        return 0.0, 0.0
    if n <= _SHIFT:
        # direct: small number of terms, summed from the smallest term up
        t = n
        while t >= 1.0:
            h += 1.0 / (A + t)
            g += (t - 1.0) / (A + t)
            t -= 1.0
        return h, g
    t0 = 0.0
    if A < _SHIFT:
        # move the offset up to _SHIFT so the asymptotic series is accurate
        t0 = _SHIFT - A
        if t0 > n:
            t0 = n
        t = t0
        while t >= 1.0:
            h += 1.0 / (A + t)
            g += (t - 1.0) / (A + t)
            t -= 1.0
        if t0 == n:
            return h, g
    a2 = A + t0
    m = n - t0
    # remaining terms s = 1..m with offset a2: 1/(a2+s) and (t0+s-1)/(a2+s)
    x = a2 + 1.0
    y = a2 + m + 1.0
    u = m / x
    r = _psi_tail_diff(x, y)
    hr = math.log1p(u) + m / (2.0 * x * y) + r
    # g_rem = m - x*hr = x*(u - log1p u) - m/(2y) - x*r
    gr = x * _u_minus_log1p(u) - m / (2.0 * y) - x * r
    return h + hr, g + gr + t0 * hr


_H_TABLE = np.zeros(_SHIFT + 1)
_H2_TABLE = np.zeros(_SHIFT + 1)


def _fill_tables():
    from fractions import Fraction

    h = Fraction(0)
    h2 = Fraction(0)
    for i in range(1, _SHIFT + 1):
        h += Fraction(1, i)
        h2 += Fraction(1, i * i)
        _H_TABLE[i] = float(h)
        _H2_TABLE[i] = float(h2)


_fill_tables()


@njit(cache=True, inline="always")
def harmonic(N):
    """H_N = sum_{i<=N} 1/i (N >= 0, float64 holding an integer)."""
    if N <= _SHIFT:
        return _H_TABLE[int(N)]
    z = N + 1.0
    iz2 = 1.0 / (z * z)
    # psi(z) + gamma, asymptotic series
    tail = iz2 * (
        1.0 / 12.0 - iz2 * (1.0 / 120.0 - iz2 * (1.0 / 252.0 - iz2 * (1.0 / 240.0 - iz2 / 132.0)))
    )
    return math.log(z) + _EULER - 0.5 / z - tail


@njit(cache=True, inline="always")
def harmonic2(N):
    """H_N^(2) = sum_{i<=N} 1/i^2."""
    if N <= _SHIFT:
        return _H2_TABLE[int(N)]
    z = N + 1.0
    iz = 1.0 / z
    iz2 = iz * iz
    # trigamma(z) ~ 1/z + 1/(2z^2) + 1/(6z^3) - 1/(30z^5) + 1/(42z^7) - 1/(30z^9) + 5/(66z^11)
    tri = iz + iz2 * (
        0.5
        + iz
        * (
            1.0 / 6.0
            - iz2 * (1.0 / 30.0 - iz2 * (1.0 / 42.0 - iz2 * (1.0 / 30.0 - iz2 * 5.0 / 66.0)))
        )
    )
    return _ZETA2 - tri


# ---------------------------------------------------------------------------
# exact null moments of AP under random ranking
# ---------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _moments_of(N, P, m, h1, h2):
    """Exact (mean, variance) of AP over all C(N, P) rankings, given ``h1 = H_N`` and ``h2 =
    H_N^(2)``: the formula of :func:`null_moments`, which the kernels inline and
    :func:`null_moments_scalar` runs in Python."""
    if m <= 0.0:
        return 1.0, 0.0
    if N < 4.0:
        # direct (unfactored) formula: the factored one below divides by 0
        q1 = P / N
        q2 = q1 * (P - 1.0) / (N - 1.0) if P >= 2.0 else 0.0
        q3 = q2 * (P - 2.0) / (N - 2.0) if P >= 3.0 else 0.0
        q4 = q3 * (P - 3.0) / (N - 3.0) if P >= 4.0 else 0.0
        c1 = h2
        c2 = 2.0 * h1 * h1 + 3.0 * h1 - 5.0 * h2
        c3 = 2.0 * N * h1 + 5.0 * N - 5.0 * h1 * h1 - 9.0 * h1 + 7.0 * h2
        c4 = N * N - 2.0 * N * h1 - 5.0 * N + 3.0 * h1 * h1 + 6.0 * h1 - 3.0 * h2
        mu = q1 * h1 + q2 * (N - h1)
        var = q1 * c1 + q2 * c2 + q3 * c3 + q4 * c4 - mu * mu
        if var < 0.0:
            var = 0.0
        return mu / P, var / (P * P)
    d1 = N - 1.0
    d2 = N - 2.0
    d3 = N - 3.0
    mean = ((P - 1.0) * N + m * h1) / (N * d1)
    if P == 1.0:
        # Var(1/r), r uniform on 1..N
        var = (h2 - h1 * h1 / N) / N
        return mean, var
    pm1 = P - 1.0
    e1 = (2.0 * P - 3.0) * N - 3.0 * pm1
    e2 = N * (N - 2.0 * P - 1.0) + 3.0 * P
    dd = m - P
    e3 = N * N * (dd * (P - 2.0) + 2.0 * (P + 1.0)) - N * P * (2.0 * P + 9.0) + 6.0 * P * P
    bracket = (
        -2.0 * pm1 * e1 / d1
        - 4.0 * pm1 * e2 * h1 / (N * d1)
        + 5.0 * pm1 * (P - 2.0)
        + e3 * (h1 / N) * (h1 / N) / d1
        + 3.0 * pm1 * (N - 2.0 * P + 1.0) * h1 / N
        + (m - 2.0 * P) * (m - 1.0) * h2 / N
    )
    var = m / (P * d1 * d2 * d3) * bracket
    if var < 0.0:
        var = 0.0
    return mean, var


@njit(cache=True)
def null_moments(N, P, m):
    """Exact (mean, variance) of AP over all C(N, P) rankings; see pranker.null.

    ``m = N - P`` is passed separately, formed in integer arithmetic, so that it
    stays exact when N exceeds 2**53.
    """
    return _moments_of(N, P, m, harmonic(N), harmonic2(N))


def null_moments_scalar(N: float, P: float, m: float) -> tuple[float, float]:
    """:func:`null_moments` of one (N, P) run by Python: its own functions (numba's
    ``py_func``), so the same floating-point operations in the same order and the same bits,
    and nothing to compile on a first p-value in a fresh environment (the kernel took 0.45 s).
    About 10 us a call; arrays go through :func:`null_moments_array`."""
    N, P, m = float(N), float(P), float(m)
    h1 = float(harmonic.py_func(N))
    h2 = float(harmonic2.py_func(N))
    mean, var = _moments_of.py_func(N, P, m, h1, h2)
    return float(mean), float(var)


@njit(cache=True)
def null_moments_array(N, P, mean_out, var_out):
    _over_pairs(0, N, P, mean_out, var_out)


@njit(cache=True)
def min_ap(N, P, M):
    """Smallest AP: all positives ranked last. a = (1/P) sum_k k/(M+k), M = N-P.

    sum_k k/(M+k) = h(M, P) + g(M, P); also returns 1 - a = (M/P) h(M, P),
    which is accurate when a is close to 1. ``M`` is formed in integer arithmetic.
    """
    h, g = harmonic_sums(M, P)
    return (h + g) / P, M / P * h


@njit(cache=True)
def min_ap_array(N, P, a_out, one_minus_a_out):
    _over_pairs(1, N, P, a_out, one_minus_a_out)


@njit(cache=True, inline="always")
def _over_pairs(kind, N, P, out1, out2):
    """(null mean, variance) (kind 0) or (a, 1 - a) (kind 1) of every (N[i], P[i])."""
    for i in range(N.shape[0]):
        n = float(N[i])
        p = float(P[i])
        m = float(N[i] - P[i])
        x, y = null_moments(n, p, m) if kind == 0 else min_ap(n, p, m)
        out1[i] = x
        out2[i] = y


@njit(cache=True)
def beta_standard_moments(N, P, mean, var, a, one_minus_a):
    """Mean ``m``, ``1 - m`` and ``c = m (1 - m) / v - 1`` of the null AP moved to [0, 1]
    (``(AP - a) / (1 - a)``), the shapes of its matched beta being ``m c`` and
    ``(1 - m) c``. For ``a >= 0.5``, ``1 - mean`` comes from its closed form
    (no cancellation), unless ``mean`` is not the exact null mean (user-supplied:
    taken as given)."""
    if a >= 0.5:
        one_minus_mean = (N - P) * (N - harmonic(N)) / (N * (N - 1.0))
        if abs(one_minus_mean - (1.0 - mean)) > 1e-9:
            one_minus_mean = 1.0 - mean
        mean_minus_a = one_minus_a - one_minus_mean
    else:
        one_minus_mean = 1.0 - mean
        mean_minus_a = mean - a
    m = mean_minus_a / one_minus_a
    one_minus_m = one_minus_mean / one_minus_a
    v = var / (one_minus_a * one_minus_a)
    return m, one_minus_m, m * one_minus_m / v - 1.0
