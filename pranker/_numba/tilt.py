r"""Kernels of the exactly tilted null law of AP: the forward recursion and its sampler.

Under random ranking the positives' ranks ``r_1 < ... < r_P`` are a uniform
P-subset of ``1..N`` and ``AP = S / P`` with ``S = sum_k k / r_k``. In the
offset coordinate ``d_k = r_k - k`` (``0 <= d_1 <= ... <= d_P <= m = N - P``)
the ordering constraint ``r_{k-1} < r_k`` becomes ``d_{k-1} <= d_k``, so

.. math::

    Z_c(\phi) = \sum_{\text{subsets}} e^{\phi (S - c)}
              = \sum_{d_P} F_P(d_P), \qquad
    F_k(d) = e^{\phi a_k(d)} \, G_{k-1}(d), \qquad
    G_k(d) = \sum_{d' \le d} F_k(d'),

with ``a_k(d) = k / (k + d) - c / P`` and ``G_0 \equiv 1``: one prefix sum per
positive, ``O(P (N - P + 1))`` per value of ``phi``. Centring by ``c`` (the
threshold, or the null mean) keeps the derivatives well conditioned: with
``F'_k = a F_k + e^{\phi a} G'_{k-1}`` and
``F''_k = a^2 F_k + 2 a e^{\phi a} G'_{k-1} + e^{\phi a} G''_{k-1}`` carried
alongside (forward mode), ``G'_P(m) / G_P(m) = E_phi[S] - c`` and
``G''_P(m) / G_P(m) = E_phi[(S - c)^2]``, so the variance is not the
difference of two large numbers near ``S = c``.

Scaling. A layer's values span ``e^{phi (1 - k/(k+m))}``, far beyond float64
when ``phi`` is large, so each layer is kept relative to a log scale
``lambda_k`` (true ``G_k = e^{lambda_k} * stored G_k``). The fast path
multiplies by ``exp(phi a - shift) / G_{k-1}(m)`` with ``shift`` the largest
exponent of the layer, so no value exceeds 1; values below ``e^-700`` are set
to 0 (they are at most 1e-304 of the layer total, never subnormal). If the
layer total still falls below 1e-280 (the mass sits where the exponent is
small), the layer is recomputed in log space: ``log F = phi a + log G`` shifted
by its maximum, derivatives through the ratios ``G'/G`` and ``G''/G``.

Sampling. The tilted law ``P_phi(subset) ∝ e^{phi S}`` is sampled exactly
backwards from the stored layers: ``d_P`` with probability
``F_P(d) / G_P(m)``, then each ``d_{k-1} <= d_k`` with probability
``F_{k-1}(d') / G_{k-1}(d_k)`` — an inverse-CDF search in the stored prefix
sums: the smallest ``d' <= d_k`` with ``G_{k-1}(d') >= u G_{k-1}(d_k)``. That
answer is unique, so how it is searched does not change the draws. Each
stored row is followed by its summary (every 64th prefix sum, contiguous): a
short gap ends in the cache line of ``d_k`` or in the 64 entries below it
(branch-free bisection); a long one (weak tilt, long rows) gallops down the
summary, then bisects one block. Many draws advance in lockstep, one layer at
a time, in passes whose memory accesses are independent, so each row stays
cached while all walkers use it. Draws use the counter-based generator of
:mod:`pranker._numba` keyed by (seed, draw index): each draw is
reproducible whatever the number of threads and the blocking.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .sampling import _draw_seed, _uniform01

_UNDERFLOW_EXP = -700.0
_LAYER_TINY = 1e-280
_MULT_MAX_PHI = 600.0  # below this e^{phi k / r} is updated by multiplication, not exp


@njit(cache=True)
def _layer_log(k, m, phi, cP, inv_r, Gp, G1p, G2p, Gn, G1n, G2n, derivs):
    """Layer k in log space (rare). Returns the log scale added to lambda."""
    L = -np.inf
    for d in range(m + 1):
        g = Gp[d]
        if g > 0.0:
            v = phi * (k * inv_r[k + d] - cP) + math.log(g)
            if v > L:
                L = v
    tot = 0.0
    t1 = 0.0
    t2 = 0.0
    for d in range(m + 1):
        g = Gp[d]
        f = 0.0
        f1 = 0.0
        f2 = 0.0
        if g > 0.0:
            a = k * inv_r[k + d] - cP
            x = phi * a + math.log(g) - L
            if x > _UNDERFLOW_EXP:
                f = math.exp(x)
                if derivs:
                    q1 = G1p[d] / g
                    q2 = G2p[d] / g
                    f1 = f * (a + q1)
                    f2 = f * (a * a + 2.0 * a * q1 + q2)
        tot += f
        Gn[d] = tot
        if derivs:
            t1 += f1
            t2 += f2
            G1n[d] = t1
            G2n[d] = t2
    return L


@njit(cache=True)
def tilt_forward(N, P, phi, c, derivs, store):
    """Forward recursion of the tilted law at ``phi``, centred at ``c``.

    Returns ``(log_Zc, m1, m2, layers)``: ``log Z_c = log sum e^{phi (S - c)}``
    over all C(N, P) subsets, ``m1 = E_phi[S - c]``, ``m2 = E_phi[(S - c)^2]``
    (NaN unless ``derivs``), and when ``store`` the stored layers for
    :func:`tilt_draws` (shape ``(P, w + ceil(w / 64))``, ``w = N - P + 1``:
    row ``k - 1`` holds the prefix sums ``G_k(0..m)`` then their summary),
    else an empty array.
    """
    m = N - P
    w = m + 1
    cP = c / P
    inv_r = np.empty(N + 1)
    inv_r[0] = 0.0
    for r in range(1, N + 1):
        inv_r[r] = 1.0 / r
    if store:
        G = np.empty((P, w + ((w + _BLOCK - 1) >> _BLOCK_SHIFT)))
    else:
        G = np.empty((2, w))
    nd = w if derivs else 1
    G1 = np.zeros((2, nd))
    G2 = np.zeros((2, nd))
    ones = np.ones(w)
    X = np.empty(N + 1)
    B = np.empty(N + 1)
    if abs(phi) <= _MULT_MAX_PHI:
        for r in range(1, N + 1):
            B[r] = math.exp(phi * inv_r[r])
    zeros = np.zeros(nd)
    lam = 0.0
    prev_tot = 1.0
    for k in range(1, P + 1):
        if k == 1:
            Gp = ones
            G1p = zeros
            G2p = zeros
        else:
            Gp = G[k - 2] if store else G[(k - 2) % 2]
            G1p = G1[(k - 2) % 2]
            G2p = G2[(k - 2) % 2]
        Gn = G[k - 1] if store else G[(k - 1) % 2]
        G1n = G1[(k - 1) % 2]
        G2n = G2[(k - 1) % 2]
        mult = abs(phi) <= _MULT_MAX_PHI
        if mult:
            # X[r] = e^{phi (k / r - 1)}: one multiplication by e^{phi / r} per layer
            shift = phi * (1.0 - cP)
            if k == 1:
                for d in range(w):
                    X[1 + d] = math.exp(phi * (inv_r[1 + d] - 1.0))
            else:
                for d in range(m):
                    X[k + d] *= B[k + d]
                X[k + m] = math.exp(phi * (k * inv_r[k + m] - 1.0))
        elif phi >= 0.0:
            shift = phi * (1.0 - cP)
        else:
            shift = phi * (k * inv_r[k + m] - cP)
        inv = 1.0 / prev_tot
        tot = 0.0
        t1 = 0.0
        t2 = 0.0
        for d in range(w):
            a = k * inv_r[k + d] - cP
            if mult:
                e = X[k + d] * inv
            else:
                x = phi * a - shift
                e = 0.0
                if x > _UNDERFLOW_EXP:
                    e = math.exp(x) * inv
            g = Gp[d]
            f = e * g
            if f < 1e-300:
                f = 0.0
            tot += f
            Gn[d] = tot
            if derivs:
                g1 = G1p[d]
                f1 = a * f + e * g1
                f2 = a * (a * f + 2.0 * e * g1) + e * G2p[d]
                t1 += f1
                t2 += f2
                G1n[d] = t1
                G2n[d] = t2
        if tot > _LAYER_TINY and tot < np.inf:
            lam += shift + math.log(prev_tot)
        else:
            # the mass sits where the exponent is small: redo the layer in log space
            lam += _layer_log(k, m, phi, cP, inv_r, Gp, G1p, G2p, Gn, G1n, G2n, derivs)
            tot = Gn[m]
        prev_tot = tot
        if store:
            _summarise(Gn, w)
    log_z = lam + math.log(prev_tot)
    m1 = np.nan
    m2 = np.nan
    if derivs:
        last = (P - 1) % 2
        m1 = G1[last][m] / prev_tot
        m2 = G2[last][m] / prev_tot
    if store:
        return log_z, m1, m2, G
    return log_z, m1, m2, np.empty((0, 0))


_BLOCK_SHIFT = 6  # the summary holds every 64th prefix sum of a row
_BLOCK = 1 << _BLOCK_SHIFT


def n_blocks(w):
    """Number of summary entries of a row of ``w`` prefix sums."""
    return (w + _BLOCK - 1) >> _BLOCK_SHIFT


@njit(cache=True)
def _summarise(row, w):
    """``row[w + j] = row[min(64 j + 63, w - 1)]``: the block maxima, contiguous after the row."""
    nb = (w + _BLOCK - 1) >> _BLOCK_SHIFT
    for j in range(nb - 1):
        row[w + j] = row[(j << _BLOCK_SHIFT) + _BLOCK - 1]
    row[w + nb - 1] = row[w - 1]


_NEAR = 8  # first window below d: one cache line


@njit(cache=True)
def _window(row, t, d, w):
    """``(lo, width)`` with ``row[lo] < t <= row[lo + width]``, ``width`` 1, 8 or 64.

    ``row`` is nondecreasing with ``row[d] >= t``; ``row[i]`` for ``i < 0``
    reads as -inf. Short gaps (the tilted case) end in the window of 8 or 64
    below ``d``; else gallop down the summary (a short array, cached) to the
    block of 64 that holds the answer.
    """
    if d == 0 or row[d - 1] < t:
        return d - 1, 1  # no gap: the common case under a strong tilt
    lo = d - _NEAR
    if lo < 0 or row[lo] < t:
        return lo, _NEAR
    lo = d - _BLOCK
    if lo < 0 or row[lo] < t:
        return lo, _BLOCK
    jb = d >> _BLOCK_SHIFT  # summary[jb - 1] = row[64 jb - 1] >= row[lo] >= t: jb >= 1
    hi = jb - 1
    step = 1
    lo = hi - 1
    while lo >= 0 and row[w + lo] >= t:
        hi = lo
        step <<= 1
        lo = hi - step
    if lo < -1:
        lo = -1
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if row[w + mid] >= t:
            hi = mid
        else:
            lo = mid
    return (hi << _BLOCK_SHIFT) - 1, _BLOCK


@njit(cache=True)
def _first_at_least(row, t, lo, width):
    """Smallest d in (lo, lo + width] with ``row[d] >= t``, given ``row[lo] < t <= row[lo + width]``.

    Branch-free bisection (indices below 0 read as -inf): no mispredictions.
    """
    h = width >> 1
    while h > 0:
        mid = lo + h
        below = mid < 0 or row[max(mid, 0)] < t
        lo = mid if below else lo
        h >>= 1
    return lo + 1


_WALKERS = (64, 4096)  # draws advanced together (bounds): misses overlap, rows stay cached


@njit(cache=True)
def _draw_block(G, P, m, seed, start, nb, out):
    """Draws ``start .. start + nb - 1`` advanced in lockstep, one positive at a time.

    Each draw consumes its own counter-based stream, so the result does not
    depend on the blocking. Each step is split in passes over the walkers
    whose memory accesses are independent (threshold, window, touch, bisect),
    so the cache misses of different walkers overlap instead of queueing
    behind mispredicted branches. Each search has a unique answer (the
    smallest d' <= d with ``row[d'] >= t``), so the strategy does not change
    the draws.
    """
    w = m + 1
    states = np.empty(nb, np.uint64)
    d = np.empty(nb, np.int64)
    s = np.zeros(nb)
    t = np.empty(nb)
    lo = np.empty(nb, np.int64)
    for i in range(nb):
        states[i] = _draw_seed(seed, start + i)
        d[i] = m
    touch = 0.0
    pend = np.empty(nb, np.int64)
    for k in range(P, 0, -1):
        row = G[k - 1]
        for i in range(nb):
            st, u = _uniform01(states[i])
            states[i] = st
            t[i] = u * row[d[i]]
        n_pend = 0
        for i in range(nb):
            a, width = _window(row, t[i], d[i], w)
            if width <= _NEAR:  # within the cache line of d: finish now
                dd = _first_at_least(row, t[i], a, width)
                d[i] = dd
                s[i] += k / (k + dd)
            else:
                pend[n_pend] = i
                lo[n_pend] = a
                n_pend += 1
        for p in range(n_pend):
            b = max(lo[p], 0)
            for q in range(b, b + _BLOCK, 8):
                touch += row[q]
        for p in range(n_pend):
            i = pend[p]
            dd = _first_at_least(row, t[i], lo[p], _BLOCK)
            d[i] = dd
            s[i] += k / (k + dd)
    if touch < 0.0:  # never: keeps the touching loads
        s[0] = np.nan
    for i in range(nb):
        out[i] = s[i]


@njit(cache=True, parallel=True)
def tilt_draws(G, N, P, seed, start, n, out):
    """``out[i]`` = S of draw ``start + i`` from the tilted law stored in ``G``."""
    m = N - P
    # the blocking does not change the draws: large blocks share each row's
    # cache lines among many walkers; a few blocks at least, for the threads
    size = min(max(n // 4, _WALKERS[0]), _WALKERS[1])
    n_blocks = (n + size - 1) // size
    for b in prange(n_blocks):
        lo = b * size
        hi = min(n, lo + size)
        _draw_block(G, P, m, seed, start + lo, hi - lo, out[lo:hi])

