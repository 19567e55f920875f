r"""Kernels of the compressed tilted proposal: tables of size P x B instead of P x (N - P + 1).

Notation as in :mod:`pranker._numba.tilt`: offsets ``d_k = r_k - k`` with
``0 <= d_1 <= ... <= d_P <= M = N - P``, ``S = sum_k k / (k + d_k)``, and the
exactly tilted law ``∝ e^{phi S}`` has the forward recursion
``F_k(d) = e^{phi k / (k + d)} G_{k-1}(d)``, ``G_k(d) = sum_{d' <= d} F_k(d')``.

Knots
-----
Every offset below ``E`` is a knot; above it the knots grow geometrically,
``x_{j+1} = max(x_j + 1, floor(x_j (1 + eps)))``, and the last knot is ``M``.
Block ``j`` holds the offsets ``x_{j-1} < d <= x_j`` (``L_j = x_j - x_{j-1}``
of them).

The proposal
------------
Layer ``k`` of the proposal has log-weights ``l_k(x_j) = phi k / (k + x_j) +
log Ghat_{k-1}(x_j)`` at the knots and is log-linear inside each block:
``l_k(x_{j-1} + t) = l_k(x_{j-1}) + t beta_j`` for ``t = 1..L_j``, with
``beta_j = (l_k(x_j) - l_k(x_{j-1})) / L_j``. ``Ghat_k(D)`` is the exact sum
of these weights over ``d <= D``: a stored prefix at the knots plus a
closed-form geometric partial sum inside a block,
``log sum_{i=1}^t e^{i beta}`` (:func:`log_geo`). Only ``log Ghat_k`` at the
knots is stored (``B`` numbers per layer).

Draws go backwards: ``d_P`` from layer ``P`` on ``[0, M]``, then each
``d_k <= d_{k+1}`` from layer ``k`` restricted to ``[0, d_{k+1}]``: the block by
binary search over the stored prefixes, the offset inside it by inverting the
geometric partial sum, corrected by one step against :func:`log_geo` itself so
that the search and the probabilities agree. Each conditional is exactly
normalised, so the probability of a draw under the proposal, ``Q``, is known
exactly and importance sampling with weights ``C(N, P)^{-1} / Q`` is unbiased
however coarse the knots (the compression only costs variance). The
interpolation error per layer is about ``k eps^2 / 8`` in log-weight, so
``eps`` shrinks like ``1 / sqrt(P)``.

The first positive is integrated out: the sampler stops at ``d_2`` and the
caller counts the ``d_1 <= d_2`` that reach the threshold (the state-dependent
sampler counts the first two together, :func:`count_first_two`), which needs no
table (a conditional Monte Carlo step: it only lowers the variance).

All values are carried in log space, so no scaling is needed at any ``phi``.
Draws use the counter-based generator of :mod:`pranker._numba.sampling`
keyed by (seed, draw index): each draw is reproducible whatever the number of
threads and whatever the batch it is computed in.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .sampling import _draw_seed, _uniform01
from .tiegroups import lower_bound
from .walk import _gallop_down  # the exact sampler's search, on the rows of knots

_SMALL = 1e-6  # |t beta| below this: the series of log_geo and its derivative
_PAIR_STEPS = 4096  # the first two positives are counted when that takes at most this many steps


@njit(cache=True)
def compressed_knots(M, E, eps):
    """Knots ``0..E-1`` (or ``0..M``), then geometric with ratio ``1 + eps``, ending at ``M``."""
    if M + 1 <= E:
        return np.arange(M + 1)
    # count first, then fill
    n = E
    x = E - 1
    while x < M:
        nx = max(x + 1, int(math.floor(x * (1.0 + eps))))
        x = min(nx, M)
        n += 1
    out = np.empty(n, np.int64)
    for i in range(E):
        out[i] = i
    x = E - 1
    i = E
    while x < M:
        nx = max(x + 1, int(math.floor(x * (1.0 + eps))))
        x = min(nx, M)
        out[i] = x
        i += 1
    return out


@njit(cache=True, inline="always")
def log_geo(t, beta):
    """``log sum_{i=1}^t e^{i beta}`` for ``t >= 1``, without overflow or cancellation."""
    if t == 1:
        return beta
    tb = t * beta
    if abs(tb) < _SMALL:
        return math.log(t) + 0.5 * (t + 1) * beta
    if beta > 0.0:
        return tb + math.log(math.expm1(-tb) / math.expm1(-beta))
    return beta + math.log(math.expm1(tb) / math.expm1(beta))


@njit(cache=True, inline="always")
def _geo_pair(t, beta):
    """``log_geo(t, beta)`` and its ``d/d beta`` (the mean of ``i`` under weights
    ``e^{i beta}``, ``i = 1..t``), sharing their two ``expm1`` calls (t >= 2)."""
    tb = t * beta
    if abs(tb) < _SMALL:
        return math.log(t) + 0.5 * (t + 1) * beta, 0.5 * (t + 1) + beta * (t * t - 1.0) / 12.0
    if beta > 0.0:
        a = math.expm1(-tb)
        b = math.expm1(-beta)
        return tb + math.log(a / b), 1.0 - t / a + 1.0 / b
    a = math.expm1(tb)  # in (-1, 0)
    b = math.expm1(beta)
    # expm1(-x) = -expm1(x) / (1 + expm1(x))
    return beta + math.log(a / b), 1.0 + t * (1.0 + a) / a - (1.0 + b) / b


@njit(cache=True, inline="always")
def _logaddexp(a, b):
    if a >= b:
        return a + math.log1p(math.exp(b - a))
    return b + math.log1p(math.exp(a - b))


@njit(cache=True)
def _layer(k, phi, x, lp, ln):
    """Row of layer k (``log Ghat_k`` at the knots) from the row of layer k - 1."""
    B = x.shape[0]
    lprev = phi * k / (k + x[0]) + lp[0]
    acc = lprev
    ln[0] = acc
    for j in range(1, B):
        lj = phi * k / (k + x[j]) + lp[j]
        L = x[j] - x[j - 1]
        if L == 1:
            bs = lj
        else:
            bs = lprev + log_geo(L, (lj - lprev) / L)
        acc = _logaddexp(acc, bs)
        ln[j] = acc
        lprev = lj


@njit(cache=True)
def compressed_cgf(N, P, phi, x):
    """``(log Zhat(phi), d/dphi log Zhat)``: the proposal's total mass and its slope.

    ``log Zhat - log C(N, P)`` approximates the CGF ``K(phi)`` of S and its
    slope ``K'(phi)``; both are biased by the compression (about ``P^2 eps^2 /
    16`` in ``log Z`` at ``phi`` far from 0), which is why they are used only to
    choose the tilt, never as an answer.
    """
    B = x.shape[0]
    lp = np.zeros(B)
    dp = np.zeros(B)
    ln = np.empty(B)
    dn = np.empty(B)
    for k in range(1, P + 1):
        lprev = phi * k / (k + x[0]) + lp[0]
        dprev = k / (k + x[0]) + dp[0]
        acc = lprev
        dacc = dprev
        ln[0] = acc
        dn[0] = dacc
        for j in range(1, B):
            a = k / (k + x[j])
            lj = phi * a + lp[j]
            dj = a + dp[j]
            L = x[j] - x[j - 1]
            if L == 1:
                bs = lj
                dbs = dj
            else:
                beta = (lj - lprev) / L
                lg, dg = _geo_pair(L, beta)
                bs = lprev + lg
                dbs = dprev + dg * (dj - dprev) / L
            # new = logaddexp(acc, bs), and the weights of the two terms in it
            if acc >= bs:
                e = math.exp(bs - acc)
                new = acc + math.log1p(e)
                dacc = (dacc + e * dbs) / (1.0 + e)
            else:
                e = math.exp(acc - bs)
                new = bs + math.log1p(e)
                dacc = (e * dacc + dbs) / (1.0 + e)
            acc = new
            ln[j] = acc
            dn[j] = dacc
            lprev = lj
            dprev = dj
        lp, ln = ln, lp
        dp, dn = dn, dp
    return lp[B - 1], dp[B - 1]


@njit(cache=True)
def compressed_rows(phi, x, k_start, out):
    """Fill ``out[1:]`` with the rows of layers ``k_start, k_start + 1, ...`` from ``out[0]``.

    ``out[0]`` must hold the row of layer ``k_start - 1`` (zeros for layer 0).
    """
    for i in range(1, out.shape[0]):
        _layer(k_start + i - 1, phi, x, out[i - 1], out[i])


@njit(cache=True, inline="always")
def _log_ghat_at(row, x, jD, D, k, phi, rowm1):
    """``log Ghat_k(D)`` for D inside block jD (not a knot): prefix plus partial block."""
    a = phi * k / (k + x[jD - 1]) + rowm1[jD - 1]
    b = phi * k / (k + x[jD]) + rowm1[jD]
    L = x[jD] - x[jD - 1]
    beta = (b - a) / L
    return _logaddexp(row[jD - 1], a + log_geo(D - x[jD - 1], beta))


@njit(cache=True, inline="always")
def _invert_geo(y, beta, tmax):
    """Smallest t in [1, tmax] with ``log_geo(t, beta) >= y`` (tmax if none).

    The closed-form inverse, checked against :func:`log_geo` itself only when
    it lands within 1e-6 (relative) of an integer, where rounding could move
    it by one: elsewhere the search and the probabilities agree exactly.
    """
    if beta > 1e-300 or beta < -1e-300:
        if beta > 0.0:
            z = y + math.log(-math.expm1(-beta))
            v = z if z > 35.0 else math.log1p(math.exp(z))
            tf = v / beta
        else:
            z = y + math.log(math.expm1(-beta))
            if z >= 0.0:
                tf = float(tmax)
            else:
                tf = math.log1p(-math.exp(z)) / beta
    else:
        tf = math.exp(y)
    if not tf < tmax:  # also NaN
        return tmax
    if tf <= 1.0:
        t = 1
        if tf < 1.0 - 1e-6:
            return 1
    else:
        t = int(math.ceil(tf))
    tol = 1e-6 * t
    if tf - (t - 1) < tol:
        while t > 1 and log_geo(t - 1, beta) >= y:
            t -= 1
    if t - tf < tol:
        while t < tmax and log_geo(t, beta) < y:
            t += 1
    return t


@njit(cache=True, inline="always")
def _first_at_least(row, v, hi):
    """Smallest j in [0, hi) with row[j] >= v (row nondecreasing), or hi: galloping down from hi."""
    if hi == 0 or row[hi - 1] < v:
        return hi
    return _gallop_down(row, v, hi - 1)


@njit(cache=True, inline="always")
def _step(row, rowm1, x, jD, d, k, phi, lt):
    """One backward step: ``(d_k, its block, its log-weight)`` for the target ``lt = T + log u``.

    ``row``/``rowm1`` are the rows of layers k and k - 1, ``d = d_{k+1}`` lies
    in block ``jD`` and ``lt`` is below ``log Ghat_k(d)``: the block by a galloping search
    of the stored prefixes, the offset inside it by inverting the geometric
    partial sum.
    """
    j = _first_at_least(row, lt, jD)
    if j == 0:
        return 0, 0, phi + rowm1[0]  # x[0] = 0: k / (k + 0) = 1
    L = x[j] - x[j - 1]
    if L == 1:
        return x[j], j, phi * k / (k + x[j]) + rowm1[j]
    a = phi * k / (k + x[j - 1]) + rowm1[j - 1]
    b = phi * k / (k + x[j]) + rowm1[j]
    beta = (b - a) / L
    tmax = L if (j < jD or x[jD] == d) else d - x[j - 1]
    lr = lt + math.log(-math.expm1(row[j - 1] - lt))
    t = _invert_geo(lr - a, beta, tmax)
    return x[j - 1] + t, j, a + t * beta


@njit(cache=True, inline="always")
def _geo_cdf(t, beta, tm):
    """``F(t) = sum_{i<=t} e^{i beta} / sum_{i<=tm} e^{i beta}`` (``1 <= t <= tm``)."""
    if beta > 1e-300:
        return math.exp((t - tm) * beta) * (math.expm1(-t * beta) / math.expm1(-tm * beta))
    if beta < -1e-300:
        return math.expm1(t * beta) / math.expm1(tm * beta)
    return t / tm


@njit(cache=True, inline="always")
def _geo_inverse(v, beta, tm):
    """Smallest t in ``[1, tm]`` with ``F(t) >= v`` (:func:`_geo_cdf`), v uniform on (0, 1).

    The closed-form inverse ``t = log1p(v expm1(tm beta)) / beta`` (for
    ``beta > 0`` in the form that cannot overflow), checked against
    :func:`_geo_cdf` only where it lands within 1e-7 of an integer, where
    rounding could move it by one.
    """
    if tm == 1:
        return 1
    if beta > 1e-300:
        tf = tm + math.log1p(-(1.0 - v) * (-math.expm1(-tm * beta))) / beta
    elif beta < -1e-300:
        tf = math.log1p(v * math.expm1(tm * beta)) / beta
    else:
        tf = v * tm
    if not tf < tm:  # also NaN
        t = tm
    elif tf <= 1.0:
        t = 1
    else:
        t = int(math.ceil(tf))
    if abs(tf - round(tf)) < 1e-7 * tm:
        while t > 1 and _geo_cdf(t - 1, beta, tm) >= v:
            t -= 1
        while t < tm and _geo_cdf(t, beta, tm) < v:
            t += 1
    return t


@njit(cache=True, inline="always")
def _in_block(rowm1, x, j, k, phi, tm, v):
    """``(d, log-weight)``: an offset of block j (its first ``tm`` offsets) from the block's
    own geometric law, by inversion of the uniform ``v``."""
    if j == 0:
        return 0, phi + rowm1[0]  # x[0] = 0: k / (k + 0) = 1
    L = x[j] - x[j - 1]
    if L == 1:
        return x[j], phi * k / (k + x[j]) + rowm1[j]
    a = phi * k / (k + x[j - 1]) + rowm1[j - 1]
    b = phi * k / (k + x[j]) + rowm1[j]
    beta = (b - a) / L
    t = _geo_inverse(v, beta, tm)
    return x[j - 1] + t, a + t * beta


@njit(cache=True, inline="always")
def _fast_step(row, rowm1, x, jD, d, k, phi, state):
    """One backward step ``(d_k, its block, its log-weight, log Ghat_k(d), state)``, d = d_{k+1} > 0.

    The same conditional law as :func:`_step` (``d_k <= d`` with weight
    ``e^{l_k(d_k)}``, exactly normalised by ``Ghat_k(d)``), drawn in two
    stages with fewer transcendental calls: the block with probability
    proportional to its mass below ``d`` (the partial top block against the
    stored prefix below it in linear scale, the lower blocks by a search of
    the stored prefixes), then the offset inside the block from the block's
    geometric law by a second uniform. The probability of the result is
    ``e^{l_k(d_k)} / Ghat_k(d)`` either way.
    """
    state, u = _uniform01(state)
    if x[jD] == d:  # d is a knot: the blocks up to jD, whole
        T = row[jD]
        j = _first_at_least(row, T + math.log(u), jD)
        state, v = _uniform01(state)
        tm = x[j] - x[j - 1] if j > 0 else 1
        nd, ld = _in_block(rowm1, x, j, k, phi, tm, v)
        return nd, j, ld, T, state
    # d inside block jD (jD >= 1): the prefix up to x[jD - 1], then tp offsets of block jD
    p0 = row[jD - 1]
    a = phi * k / (k + x[jD - 1]) + rowm1[jD - 1]
    b = phi * k / (k + x[jD]) + rowm1[jD]
    L = x[jD] - x[jD - 1]
    beta = (b - a) / L
    tp = d - x[jD - 1]
    # partial block mass over the prefix mass: m = e^{z} r
    if abs(tp * beta) < _SMALL:
        z = a - p0 + 0.5 * (tp + 1) * beta
        r = float(tp)
    elif beta > 0.0:
        z = a - p0 + tp * beta
        r = math.expm1(-tp * beta) / math.expm1(-beta)
    else:
        z = a - p0 + beta
        r = math.expm1(tp * beta) / math.expm1(beta)
    if z < 600.0:
        m = math.exp(z) * r
        T = p0 + math.log1p(m)
        inv_m = 1.0 / m
    else:  # the prefix is negligible next to the partial block
        lm = z + math.log(r)
        inv_m = math.exp(-lm)
        T = p0 + lm + math.log1p(inv_m)
    # P(partial block) = m / (1 + m): u > 1 / (1 + m)
    if u * (1.0 + inv_m) > inv_m:
        v = u + (u - 1.0) * inv_m  # uniform on (0, 1] given the partial block
        if v <= 0.0:
            v = 5e-324
        t = _geo_inverse(v, beta, tp)
        return x[jD - 1] + t, jD, a + t * beta, T, state
    j = _first_at_least(row, T + math.log(u), jD)
    state, v = _uniform01(state)
    tm = x[j] - x[j - 1] if j > 0 else 1
    nd, ld = _in_block(rowm1, x, j, k, phi, tm, v)
    return nd, j, ld, T, state


@njit(cache=True)
def _advance(rows, k_lo, k_hi, phi, x, D, lq, srest, st, lo, hi):
    """Draws lo..hi-1 through layers k_hi down to max(k_lo, 2); rows[i] is layer k_lo - 1 + i.

    Layers outside, draws inside: the two rows a layer reads stay in cache
    while the block of draws passes through them (each draw's arithmetic and
    stream are the same in either order, so are its numbers). A draw pinned
    at ``d = 0`` has every lower offset 0 too: its remaining layers are
    added at once.
    """
    B = x.shape[0]
    m = hi - lo
    jDs = np.empty(m, np.int64)
    k_end = max(k_lo, 2)
    for i in range(m):
        jDs[i] = lower_bound(x, D[lo + i], 0, B)  # block of d: x[jD - 1] < d <= x[jD]
        if D[lo + i] == 0 and k_hi >= k_end:  # pinned before these layers
            srest[lo + i] += k_hi - k_end + 1
    for k in range(k_hi, k_end - 1, -1):
        row = rows[k - k_lo + 1]
        rowm1 = rows[k - k_lo]
        for i in range(m):
            d = D[lo + i]
            if d == 0:
                continue
            nd, j, ld, T, state = _fast_step(row, rowm1, x, jDs[i], d, k, phi, st[lo + i])
            st[lo + i] = state
            lq[lo + i] += ld - T
            srest[lo + i] += k / (k + nd)
            D[lo + i] = nd
            jDs[i] = j
            if nd == 0:  # pinned: layers k - 1 .. k_end each add k' / k' = 1
                srest[lo + i] += k - k_end


@njit(cache=True, parallel=True)
def compressed_advance(rows, k_lo, k_hi, phi, x, D, lq, srest, st):
    """Advance every draw through layers ``k_hi`` down to ``max(k_lo, 2)`` (threads over draws).

    ``rows[i]`` is the row of layer ``k_lo - 1 + i``. ``D`` holds each draw's
    current upper bound (``M`` before the first layer, then ``d_{k+1}``),
    ``lq`` its accumulated ``log Q``, ``srest`` its partial sum of
    ``k / (k + d_k)`` and ``st`` its generator state; all are updated in
    place.
    """
    n = D.shape[0]
    block = 64
    nb = (n + block - 1) // block
    for b in prange(nb):
        lo = b * block
        hi = min(n, lo + block)
        _advance(rows, k_lo, k_hi, phi, x, D, lq, srest, st, lo, hi)


@njit(cache=True)
def draw_states(seed, start, n):
    """Generator states of draws ``start .. start + n - 1``."""
    st = np.empty(n, np.uint64)
    for i in range(n):
        st[i] = _draw_seed(seed, start + i)
    return st


# --- state-dependent tilting ---------------------------------------------------------
@njit(cache=True, inline="always")
def _log_ghat(row, rowm1, x, jD, d, k, phi):
    """``log Ghat_k(d)`` of one tilt's layer k, ``d`` in block ``jD``."""
    if x[jD] == d:
        return row[jD]
    return _log_ghat_at(row, x, jD, d, k, phi, rowm1)


@njit(cache=True, inline="always")
def _log_binom(n, k):
    """``log C(n, k)``: a sum of logs for small k, lgamma beyond."""
    if k <= 32:
        t = 0.0
        for i in range(1, k + 1):
            t += math.log((n - k + i) / i)
        return t
    return math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)


@njit(cache=True)
def count_first_two(D, R, cap):
    """``#{0 <= d_1 <= d_2 <= D : 1 / (1 + d_1) + 2 / (2 + d_2) >= R}``; -1 after ``cap`` steps.

    The two top positives integrated out together: for each ``d_1`` the
    ``d_2`` that complete the sum form a range ``[d_1, top]`` with ``top =
    floor(2 / t - 2)``, ``t = R - 1 / (1 + d_1)`` (each floor checked against
    the inequality itself, so rounding cannot move it); the ``d_1`` with
    ``1 / (1 + d_1) >= R`` take every ``d_2`` (an arithmetic sum), and the
    loop ends where ``t > 1`` or the range is empty. Callers put the
    tolerance for ties into ``R``.
    """
    if R <= 0.0:
        return (D + 1.0) * (D + 2.0) / 2.0
    if R > 2.0:
        return 0.0
    total = 0.0
    d1 = 0
    if R <= 1.0:
        full = min(D, int(math.floor(1.0 / R - 1.0)))
        while full >= 0 and 1.0 / (1.0 + full) < R:
            full -= 1
        while full + 1 <= D and 1.0 / (2.0 + full) >= R:
            full += 1
        n = full + 1.0  # d_1 = 0..full, each with D - d_1 + 1 partners
        total += n * (D + 1.0) - n * (n - 1.0) / 2.0
        d1 = full + 1
    steps = 0
    while d1 <= D:
        t = R - 1.0 / (1.0 + d1)
        if t > 1.0:
            break
        top = D if t <= 0.0 else min(D, int(math.floor(2.0 / t - 2.0)))
        while top >= d1 and 2.0 / (2.0 + top) < t:
            top -= 1
        while top + 1 <= D and 2.0 / (3.0 + top) >= t:
            top += 1
        if top < d1:
            break
        total += top - d1 + 1.0
        d1 += 1
        steps += 1
        if steps > cap:
            return -1.0
    return total


@njit(cache=True)
def _sd_draw(tabs, phis, kc, x, thr, j0, state, d, lw, sr, Lc):
    """Log contribution of one draw to ``P(S >= thr)`` (``-inf`` when it misses).

    On entry the layers above ``kc`` are drawn: ``d = d_{kc+1}`` (or ``M``),
    ``lw = -log C(N, P) - log Q`` of those layers, ``sr`` their part of S;
    ``phis[j0]`` is the tilt of those layers, where the walk over the tilts starts.
    """
    B = x.shape[0]
    J = phis.shape[0]
    jD = lower_bound(x, d, 0, B)
    j = j0
    for k in range(kc, 1, -1):
        R = thr - sr
        if R <= 0.0:
            return lw + _log_binom(d + k, k)  # every completion reaches the threshold
        if R > k:
            return -np.inf
        if d == 0:
            return lw if sr + k >= thr else -np.inf
        if k == 2:
            # the two top positives counted together: the last tilted step overshoots
            # (it favours d_2 = 0 by e^{phi (1 - 2/(2 + d_2))} though every success counts once)
            c = count_first_two(d, R, _PAIR_STEPS)
            if c >= 0.0:
                return lw + math.log(c) if c > 0.0 else -np.inf
        # the tilt whose conditional mean of the remaining sum matches R (secant slopes
        # of log Ghat_k(d) across the tilts, walking from the previous layer's tilt)
        for t in range(J):
            Lc[t] = np.nan
        while True:
            moved = False
            if j + 1 < J:
                if math.isnan(Lc[j]):
                    Lc[j] = _log_ghat(tabs[j, k], tabs[j, k - 1], x, jD, d, k, phis[j])
                if math.isnan(Lc[j + 1]):
                    Lc[j + 1] = _log_ghat(
                        tabs[j + 1, k], tabs[j + 1, k - 1], x, jD, d, k, phis[j + 1]
                    )
                if (Lc[j + 1] - Lc[j]) / (phis[j + 1] - phis[j]) < R:
                    j += 1
                    moved = True
            if not moved and j > 0:
                if math.isnan(Lc[j]):
                    Lc[j] = _log_ghat(tabs[j, k], tabs[j, k - 1], x, jD, d, k, phis[j])
                if math.isnan(Lc[j - 1]):
                    Lc[j - 1] = _log_ghat(
                        tabs[j - 1, k], tabs[j - 1, k - 1], x, jD, d, k, phis[j - 1]
                    )
                if (Lc[j] - Lc[j - 1]) / (phis[j] - phis[j - 1]) > R:
                    j -= 1
                    moved = True
            if not moved:
                break
        phi = phis[j]
        row = tabs[j, k]
        rowm1 = tabs[j, k - 1]
        T = Lc[j]
        if math.isnan(T):
            T = _log_ghat(row, rowm1, x, jD, d, k, phi)
        state, u = _uniform01(state)
        nd, jn, ld = _step(row, rowm1, x, jD, d, k, phi, T + math.log(u))
        lw -= ld - T
        sr += k / (k + nd)
        d = nd
        jD = jn
    # the first positive: count the d_1 <= d that reach the threshold
    R = thr - sr
    if R <= 1.0 / (1.0 + d):
        return lw + math.log(d + 1.0)
    if R > 1.0:
        return -np.inf
    return lw + math.log(math.floor(1.0 / R))


@njit(cache=True, parallel=True)
def state_dependent_draws(tabs, phis, kc, x, thr, j0, seed, start, K, D, lw, sr, out):
    """``out[i]``: log contribution of draw ``start + i`` to ``P(S >= thr)``.

    ``tabs[j, k]`` is the row of layer ``k = 0..kc`` at tilt ``phis[j]``
    (increasing). ``D``, ``lw``, ``sr`` describe each draw's layers above
    ``kc`` (drawn at one fixed tilt by :func:`compressed_advance`): ``d_{kc+1}``,
    ``-log C(N, P) - log Q`` and their part of S; ``phis[j0]`` is their
    tilt, on the grid so that leaving it costs no weight. Layers ``kc`` down to 2
    each use the tilt whose conditional mean of the remaining sum matches the
    residual ``thr - (sum so far)``; every step is an exactly normalised
    conditional, so the estimate stays unbiased. The first two positives are
    counted together (:func:`count_first_two`; the first alone when that
    would take more than 4,096 steps): the last tilted step otherwise
    overshoots, favouring ``d_2 = 0`` by ``e^{phi (1 - 2 / (2 + d_2))}``
    although every placement that reaches the threshold counts once
    (measured at N = 1e6, P = 20, p = 1e-8.8: variance per draw 217 with the
    first positive counted, 1.4 with the first two).

    Splitting: each draw's upper layers are continued ``K`` times below
    ``kc``, independently (stream ``(start + i) K + r`` for continuation
    ``r``), and ``out[i]`` is the log of the mean of the ``K`` contributions.
    Given the upper layers each continuation is an unbiased estimate of the
    same conditional tail, so their mean is too, and the draws stay
    independent of each other (a two-stage estimator; Asmussen & Glynn 2007,
    ch. V). The upper layers cost most of a draw while most of the variance
    comes from the layers below ``kc`` (measured at N = 1e7, P = 1e3,
    p = 1e-30: about 53 of a variance per draw of 61), so a few
    continuations divide the variance per unit of work several times. With
    ``K = 1`` it is the plain state-dependent estimator, stream for stream.
    """
    n = out.shape[0]
    nb = max(1, min(n, 64))
    per = (n + nb - 1) // nb
    J = phis.shape[0]
    lk = math.log(K)
    for b in prange(nb):
        Lc = np.empty(J)
        lo = b * per
        hi = min(n, lo + per)
        for i in range(lo, hi):
            acc = -np.inf
            for r in range(K):
                state = _draw_seed(seed, (start + i) * K + r)
                v = _sd_draw(tabs, phis, kc, x, thr, j0, state, D[i], lw[i], sr[i], Lc)
                if v > -np.inf:
                    acc = v if acc == -np.inf else _logaddexp(acc, v)
            out[i] = acc - lk
