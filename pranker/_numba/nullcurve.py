"""numba kernels for the expected null PR curve and interpolated-AP null draws.

See :mod:`pranker.null.curve` for the derivations. Only numbers and arrays
cross this boundary; validation lives in the callers.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .moments import harmonic
from .sampling import random_positive_ranks, sampler_work_arrays

_TAIL_TOL = 1e-17


@njit(cache=True)
def _log_ratio_up(r, k, N, P):
    """log[w(r + 1) / w(r)] for w(r) = C(r-1, k-1) C(N-r, P-k), the law of r_k.

    The ratio is r/(r-k+1) * (1 - (P-k)/(N-r)); both factors go through log1p
    of their small deviation from 1, so each log is accurate to a few ulps of
    itself.
    """
    return math.log1p((k - 1.0) / (r - k + 1.0)) + math.log1p(-(P - k) / (N - r))


@njit(cache=True)
def _add(s, c, x):
    """Neumaier step: returns the new (sum, compensation)."""
    t = s + x
    if abs(s) >= abs(x):
        c += (s - t) + x
    else:
        c += (x - t) + s
    return t, c


@njit(cache=True)
def inv_rank_mean(N, P, k):
    """E[1 / r_k] for the rank r_k of the k-th positive (negative hypergeometric).

    The unnormalised weights w(r) = C(r-1, k-1) C(N-r, P-k) on r = k..k+N-P are
    generated relative to a start r0 near the mean k(N+1)/(P+1), walking out in
    both directions, and E[1/r_k] = sum w / r / sum w. No binomial coefficient is
    formed (nothing overflows or underflows) and every term is positive (no
    cancellation). log w(r) - log w(r0) is a compensated (Neumaier) sum of the
    log-ratios, so w keeps a relative error of a few ulps times
    |log w| <= ~40 however many steps are taken; a running product of ratios
    would instead drift by ~ (steps) ulps, 1e-11 at N = 1e7.

    The law is log-concave (the ratio decreases in r), so past the mode the
    neglected tail is below the geometric bound w q / (1 - q); a direction stops
    when that bound falls below 1e-17 of the sum (scaled by k / r0 going down,
    where 1/r grows). Cost: the number of terms visited, at most N - P + 1 and
    about 40 standard deviations of r_k (sd ~ sqrt(k) N / P) in practice.
    P = 1 uses the closed form H_N / N.
    """
    if P == 1.0:
        return harmonic(N) / N
    M = N - P
    lo = k
    hi = k + M
    r0 = math.floor(k * (N + 1.0) / (P + 1.0) + 0.5)
    if r0 < lo:
        r0 = lo
    if r0 > hi:
        r0 = hi
    sw = 1.0
    cw = 0.0
    si = 1.0 / r0
    ci = 0.0
    sw, cw, si, ci = _walk(r0, hi, True, k, N, P, _TAIL_TOL, sw, cw, si, ci)
    # downward: w(r - 1) = w(r) / ratio(r - 1)
    sw, cw, si, ci = _walk(r0, lo, False, k, N, P, _TAIL_TOL * k / r0, sw, cw, si, ci)
    return (si + ci) / (sw + cw)


@njit(cache=True, inline="always")
def _walk(r0, end, up, k, N, P, tol, sw, cw, si, ci):
    """Add the terms w(r) and w(r) / r from r0 (excluded) towards ``end``, upward or
    downward, until the geometric tail bound falls below ``tol`` of the sum."""
    L = 0.0
    cL = 0.0
    r = r0
    while (r < end) if up else (r > end):
        lq = _log_ratio_up(r, k, N, P) if up else -_log_ratio_up(r - 1.0, k, N, P)
        L, cL = _add(L, cL, lq)
        r = r + 1.0 if up else r - 1.0
        w = math.exp(L + cL)
        sw, cw = _add(sw, cw, w)
        si, ci = _add(si, ci, w / r)
        if lq < 0.0:
            q = math.exp(lq)
            if w * q / (1.0 - q) < tol * sw:
                break
    return sw, cw, si, ci


@njit(cache=True)
def expected_precision_curve(N, P, out):
    """out[k-1] = E[k / r_k], k = 1..P, exactly (to rounding), in O(P) plus one sum.

    Uses the first-order recurrence (see pranker.null.curve)

        k (P - k) a_k + k (k + M + 1) a_{k+1} = P,     a_k = E[1/r_k], M = N - P,

    run forward for k >= k0 and backward for k < k0, where
    k0 = max(1, ceil((P - M - 1) / 2)) is where the homogeneous solution's ratio
    |a_{k+1}/a_k| = (P - k)/(k + M + 1) crosses 1; each direction therefore damps
    rounding errors. a_{k0} itself comes from :func:`inv_rank_mean`.
    """
    Pi = int(P)
    M = N - P
    if M == 0.0:  # r_k = k: every precision is exactly 1
        for i in range(Pi):
            out[i] = 1.0
        return
    k0 = math.ceil((P - M - 1.0) / 2.0)
    if k0 < 1.0:
        k0 = 1.0
    if k0 > P:
        k0 = P
    a = np.empty(Pi)
    i0 = int(k0) - 1
    a[i0] = inv_rank_mean(N, P, k0)
    for i in range(i0, Pi - 1):
        k = i + 1.0
        a[i + 1] = (P - k * (P - k) * a[i]) / (k * (k + M + 1.0))
    for i in range(i0 - 1, -1, -1):
        k = i + 1.0
        a[i] = (P - k * (k + M + 1.0) * a[i + 1]) / (k * (P - k))
    for i in range(Pi):
        out[i] = (i + 1.0) * a[i]


@njit(cache=True, parallel=True)
def interpolated_ap_draws(seed, n_draws, N, P, out, curve_sum, curve_sumsq, want_curve):
    """Interpolated AP of random rankings 0..n_draws-1 (reproducible by draw index).

    ``N`` and ``P`` are integers here (int64), as in :func:`random_positive_ranks`.

    Interpolated precision at the k-th positive is max_{j >= k} j / r_j, built
    by one backward pass over the sorted ranks. When ``want_curve`` the sums of
    that value and of its square per k are accumulated per chunk in
    ``curve_sum[c, k-1]`` and ``curve_sumsq[c, k-1]`` (c = chunk).
    """
    n_chunks = curve_sum.shape[0]
    per = (n_draws + n_chunks - 1) // n_chunks
    Pi = P
    Pf = float(P)
    for c in prange(n_chunks):
        ranks, buf, counts, perm, mark = sampler_work_arrays(N, Pi)
        lo = c * per
        hi = min(n_draws, lo + per)
        for j in range(lo, hi):
            random_positive_ranks(seed, j, N, Pi, ranks, buf, counts, perm, mark)
            m = 0.0
            total = 0.0
            for i in range(Pi - 1, -1, -1):
                prec = (i + 1.0) / ranks[i]
                if prec > m:
                    m = prec
                total += m
                if want_curve:
                    curve_sum[c, i] += m
                    curve_sumsq[c, i] += m * m
            out[j] = total / Pf
