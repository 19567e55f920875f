"""numba kernels: harmonic sums, average precision from tie groups, null moments.

Only numbers and arrays cross this boundary; validation lives in the callers.
All kernels are compiled lazily with ``cache=True``.

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
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

_SHIFT = 64  # direct summation below this many terms / this offset
_EULER = 0.57721566490153286060651209008240243
_ZETA2 = 1.6449340668482264364724151666460252

# modes of tie handling, as integer codes for the kernels
MODE_AVERAGE = 0
MODE_STABLE = 1  # handled by the caller (needs input order), not by ap_from_groups
MODE_THRESHOLD = 2
MODE_OPTIMISTIC = 3
MODE_PESSIMISTIC = 4
MODE_CODES = {
    "average": MODE_AVERAGE,
    "stable": MODE_STABLE,
    "threshold": MODE_THRESHOLD,
    "optimistic": MODE_OPTIMISTIC,
    "pessimistic": MODE_PESSIMISTIC,
}


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def harmonic(N):
    """H_N = sum_{i<=N} 1/i (N >= 0, float64 holding an integer)."""
    if N <= _SHIFT:
        return _H_TABLE[int(N)]
    z = N + 1.0
    iz2 = 1.0 / (z * z)
    # psi(z) + gamma, asymptotic series
    tail = iz2 * (
        1.0 / 12.0
        - iz2 * (1.0 / 120.0 - iz2 * (1.0 / 252.0 - iz2 * (1.0 / 240.0 - iz2 / 132.0)))
    )
    return math.log(z) + _EULER - 0.5 / z - tail


@njit(cache=True)
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
# average precision from tie groups
# ---------------------------------------------------------------------------


@njit(cache=True)
def ap_from_groups(greater, n_tied, pos_greater, pos_tied, n_pos, mode):
    """Average precision from tie groups that contain positives.

    For each group g: ``greater[g]`` items and ``pos_greater[g]`` positives score
    strictly higher; ``n_tied[g]`` items, ``pos_tied[g]`` of them positive, share
    the group's score. ``n_pos`` is the total number of positives.

    AP = (1/P) sum_i y_i S_i / i over positions i (S_i = positives up to i).

    - threshold: each group is one operating point,
      AP = (1/P) sum_g p_g (B_g + p_g) / (A_g + n_g).
    - optimistic / pessimistic: positives first / last within the group.
    - average: expectation over uniformly random orders within the group
      (McSherry & Najork 2008). At position A+t of a group, E[y] = p/n and
      E[y S] = (p/n)(B+1) + (t-1) p(p-1)/(n(n-1)), so the group adds
      (p/n)(B+1) h(A, n) + p(p-1)/(n(n-1)) g(A, n).
    """
    total = 0.0
    for k in range(greater.shape[0]):
        A = float(greater[k])
        n = float(n_tied[k])
        B = float(pos_greater[k])
        p = float(pos_tied[k])
        if p <= 0.0:
            continue
        if mode == MODE_THRESHOLD:
            total += p * (B + p) / (A + n)
        elif mode == MODE_OPTIMISTIC:
            j = p
            while j >= 1.0:
                total += (B + j) / (A + j)
                j -= 1.0
        elif mode == MODE_PESSIMISTIC:
            off = A + n - p
            j = p
            while j >= 1.0:
                total += (B + j) / (off + j)
                j -= 1.0
        else:
            h, gg = harmonic_sums(A, n)
            c1 = p / n * (B + 1.0)
            if n > 1.0:
                total += c1 * h + p / n * ((p - 1.0) / (n - 1.0)) * gg
            else:
                total += c1 * h
    return total / float(n_pos)


@njit(cache=True, nogil=True)
def _gallop_left(a, v, lo):
    """First index i >= lo with a[i] >= v (a ascending), by exponential search from lo."""
    n = a.shape[0]
    if lo >= n or a[lo] >= v:
        return lo
    step = 1
    prev = lo
    cur = lo + 1
    while cur < n and a[cur] < v:
        prev = cur
        step *= 2
        cur = lo + step
    hi = cur if cur < n else n
    lo = prev + 1
    while lo < hi:  # a[prev] < v; answer in [prev+1, hi]
        mid = (lo + hi) // 2
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def _gallop_right(a, v, lo):
    """First index i >= lo with a[i] > v (a ascending)."""
    n = a.shape[0]
    if lo >= n or a[lo] > v:
        return lo
    step = 1
    prev = lo
    cur = lo + 1
    while cur < n and a[cur] <= v:
        prev = cur
        step *= 2
        cur = lo + step
    hi = cur if cur < n else n
    lo = prev + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] <= v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def sorted_search_both(a, vals, lo_out, hi_out):
    """searchsorted(a, vals, 'left') and (..., 'right') for ascending vals.

    Walks ``a`` once from left to right with galloping steps, which stays in
    cache where independent binary searches would not.
    """
    pos = 0
    for k in range(vals.shape[0]):
        pos = _gallop_left(a, vals[k], pos)
        lo_out[k] = pos
        pos = _gallop_right(a, vals[k], pos)
        hi_out[k] = pos


@njit(cache=True)
def ap_from_ranks(ranks, n_pos):
    """AP = (1/P) sum_k k / r_k for sorted 1-based ranks r_1 < ... < r_P."""
    total = 0.0
    for k in range(ranks.shape[0] - 1, -1, -1):
        total += (k + 1.0) / float(ranks[k])
    return total / float(n_pos)


# ---------------------------------------------------------------------------
# exact null moments of AP under random ranking
# ---------------------------------------------------------------------------


@njit(cache=True)
def _null_moments_small(N, P):
    """Direct (unfactored) formula; used for N < 4 where the factored one divides by 0."""
    h1 = harmonic(N)
    h2 = harmonic2(N)
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


@njit(cache=True)
def null_moments(N, P, m):
    """Exact (mean, variance) of AP over all C(N, P) rankings; see pranker.null.

    ``m = N - P`` is passed separately, formed in integer arithmetic, so that it
    stays exact when N exceeds 2**53.
    """
    if m <= 0.0:
        return 1.0, 0.0
    if N < 4.0:
        return _null_moments_small(N, P)
    h1 = harmonic(N)
    h2 = harmonic2(N)
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
def null_moments_array(N, P, mean_out, var_out):
    for i in range(N.shape[0]):
        mu, v = null_moments(float(N[i]), float(P[i]), float(N[i] - P[i]))
        mean_out[i] = mu
        var_out[i] = v


@njit(cache=True)
def min_ap(N, P, M):
    """Smallest AP: all positives ranked last. a = (1/P) sum_k k/(M+k), M = N-P.

    sum_k k/(M+k) = h(M, P) + g(M, P); also returns 1 - a = (M/P) h(M, P),
    which is accurate when a is close to 1. ``M`` is formed in integer arithmetic.
    """
    h, g = harmonic_sums(M, P)
    return (h + g) / P, M / P * h


# ---------------------------------------------------------------------------
# random rankings: positives' ranks only (a uniform random P-subset of 1..N)
# ---------------------------------------------------------------------------
# A counter-based generator (splitmix64) keyed by (seed, draw index) makes
# every draw reproducible whatever the number of threads.

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def _splitmix_next(state):
    state = state + _GOLDEN
    z = state
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True)
def _uniform01(state):
    """Uniform on the open interval (0, 1)."""
    state, z = _splitmix_next(state)
    return state, (np.float64(z >> np.uint64(11)) + 0.5) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _draw_seed(seed, i):
    s = np.uint64(seed) ^ (np.uint64(i) * _MIX2)
    s, z = _splitmix_next(s)
    return z


@njit(cache=True)
def _bucket_sort(vals, n, N, out, counts):
    """Sort n values in [1, N] into ``out``: a counting pass over 2n buckets, then insertion.

    The bucket of r is floor((r - 1) * 2n / N): monotone in r, so after the
    scatter the values are sorted up to order inside buckets, and uniform input
    puts about half a value in each bucket, so one insertion pass over the
    whole array is O(n). ``counts`` has room for 2n + 1 entries.
    """
    nb = 2 * n
    scale = nb / N
    for b in range(nb + 1):
        counts[b] = 0
    for k in range(n):
        b = int((vals[k] - 1.0) * scale)
        if b >= nb:
            b = nb - 1
        counts[b + 1] += 1
    for b in range(nb):
        counts[b + 1] += counts[b]
    for k in range(n):
        b = int((vals[k] - 1.0) * scale)
        if b >= nb:
            b = nb - 1
        out[counts[b]] = vals[k]
        counts[b] += 1
    for k in range(1, n):
        v = out[k]
        j = k - 1
        while j >= 0 and out[j] > v:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = v


@njit(cache=True)
def _subset_sorted(state, N, P, out, buf, counts):
    """Sorted ranks of a uniform random P-subset of 1..N (P <= N/2), O(P) expected.

    Draws iid uniform integers and keeps the distinct ones; while fewer than P
    are distinct, draws exactly the deficit again. The first P distinct values
    of an iid uniform stream form a uniform P-subset, and drawing the deficit in
    batches and de-duplicating is that same process (no value is ever dropped
    for a reason other than being a repeat).
    """
    count = 0
    while count < P:
        d = P - count
        for k in range(d):
            state, u = _uniform01(state)
            r = float(int(u * N) + 1)
            if r > N:
                r = float(N)
            buf[k] = r
        if count == 0:
            _bucket_sort(buf, d, N, out, counts)
            new_count = 0
            prev = -1.0
            for k in range(d):
                if out[k] != prev:
                    out[new_count] = out[k]
                    prev = out[k]
                    new_count += 1
            count = new_count
        else:
            fresh = buf[:d]
            if d > 32:
                fresh.sort()
            else:
                for k in range(1, d):
                    v = fresh[k]
                    j = k - 1
                    while j >= 0 and fresh[j] > v:
                        fresh[j + 1] = fresh[j]
                        j -= 1
                    fresh[j + 1] = v
            # merge out[:count] and fresh into buf[P:], dropping repeats
            merged = buf[P:]
            i = 0
            j = 0
            c = 0
            prev = -1.0
            while i < count or j < d:
                if j >= d or (i < count and out[i] <= fresh[j]):
                    v = out[i]
                    i += 1
                else:
                    v = fresh[j]
                    j += 1
                if v != prev:
                    merged[c] = v
                    prev = v
                    c += 1
            for k in range(c):
                out[k] = merged[k]
            count = c
    return state


_DENSE_MAX_N = 1 << 24  # largest N for the O(N)-memory dense sampler
_DENSE_RATIO = 64  # dense sampler when N <= _DENSE_RATIO * P


@njit(cache=True)
def use_dense_sampler(N, P):
    return N <= _DENSE_MAX_N and (N <= _DENSE_RATIO * P or 2 * P > N)


@njit(cache=True)
def _dense_subset(state, N, P, out, perm, mark):
    """Sorted uniform P-subset of 1..N via a partial Fisher-Yates shuffle, O(N + P).

    ``perm`` holds any permutation of 0..N-1 (it is left permuted, which keeps
    later draws uniform); ``mark`` is all False on entry and on exit. The
    smaller of the subset and its complement is drawn, marked, and a scan
    emits the positives in increasing rank.
    """
    k = P if 2 * P <= N else N - P
    for j in range(k):
        state, u = _uniform01(state)
        t = j + int(u * (N - j))
        if t >= N:
            t = N - 1
        tmp = perm[j]
        perm[j] = perm[t]
        perm[t] = tmp
        mark[perm[j]] = True
    want = k == P
    c = 0
    for r in range(N):
        if mark[r] == want:
            out[c] = r + 1.0
            c += 1
    for j in range(k):
        mark[perm[j]] = False
    return state


@njit(cache=True)
def random_positive_ranks(seed, i, N, P, out, buf, counts, perm, mark):
    """Fill out[:P] with the sorted ranks of a uniform random P-subset of 1..N (draw i).

    Sparse case: iid draws kept when distinct, O(P) expected. Dense case
    (N <= 64 P, or P > N/2, with N <= 2**24): partial Fisher-Yates, O(N).
    ``perm``/``mark`` are the dense sampler's work arrays (size N, or 0 when
    unused).
    """
    state = _draw_seed(seed, i)
    if use_dense_sampler(N, P):
        _dense_subset(state, N, P, out, perm, mark)
    elif 2 * P <= N:
        _subset_sorted(state, N, P, out, buf, counts)
    else:
        # P > N/2 with N > 2**24: draw the negatives, positives fill the gaps
        M = N - P
        neg = np.empty(M, dtype=np.float64)
        _subset_sorted(
            state, N, M, neg, np.empty(2 * M, dtype=np.float64), np.empty(2 * M + 1, dtype=np.int64)
        )
        j = 0
        c = 0
        for r in range(1, N + 1):
            if j < M and neg[j] == r:
                j += 1
            else:
                out[c] = r
                c += 1


@njit(cache=True)
def sampler_work_arrays(N, P):
    """Work arrays for random_positive_ranks: ranks, buf, counts, perm, mark."""
    ranks = np.empty(P, dtype=np.float64)
    buf = np.empty(2 * P, dtype=np.float64)
    counts = np.empty(2 * P + 1, dtype=np.int64)
    if use_dense_sampler(N, P):
        perm = np.arange(N).astype(np.int32)
        mark = np.zeros(N, dtype=np.bool_)
    else:
        perm = np.empty(0, dtype=np.int32)
        mark = np.zeros(0, dtype=np.bool_)
    return ranks, buf, counts, perm, mark


@njit(cache=True, fastmath=True)
def _ap_sum(ranks):
    """sum_k k / r_k (vectorised; reassociation changes only the last bits)."""
    total = 0.0
    for k in range(ranks.shape[0]):
        total += (k + 1.0) / ranks[k]
    return total


@njit(cache=True, parallel=True)
def null_ap_draws(seed, start, n_draws, N, P, out):
    """AP of random rankings number start .. start+n_draws-1 (reproducible by index).

    Draw j depends only on (seed, start + j), so results do not depend on the
    number of threads.
    """
    n_chunks = min(n_draws, 64 if not use_dense_sampler(N, P) else 4)
    per = (n_draws + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        ranks, buf, counts, perm, mark = sampler_work_arrays(N, P)
        lo = c * per
        hi = min(n_draws, lo + per)
        for j in range(lo, hi):
            random_positive_ranks(seed, start + j, N, P, ranks, buf, counts, perm, mark)
            out[j] = _ap_sum(ranks) / P


@njit(cache=True)
def min_ap_array(N, P, a_out, one_minus_a_out):
    for i in range(N.shape[0]):
        a, b = min_ap(float(N[i]), float(P[i]), float(N[i] - P[i]))
        a_out[i] = a
        one_minus_a_out[i] = b
