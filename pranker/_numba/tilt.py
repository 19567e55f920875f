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

Scaling. A layer's values span far more than float64: the untilted prefix
sums alone range over ``C(m + k, k)`` (10^1503 at N = 5,000, P = 2,500), and
the tilt adds ``e^{phi (1 - k/(k+m))}``. Each layer is therefore stored in
blocks of :func:`block_len` cells, each block with its own binary exponent
(:func:`layer_step`): within a block the values span at most ~300 nats, and
blocks are joined by exact powers of two, so nothing leaves float64 and only
cells below 1e-300 of their own block are set to 0. The true prefix sum is
``e^{lambda_k} 2^{E_k[b]} (c0 + c1 T)`` with ``lambda_k`` the sum of the
layers' shifts. (A single scale per layer, used up to version 0.2, dropped
cells below 1e-300 of the layer's total; with thousands of positives those
cells carry many completions, and K(0) came out as -3.3 instead of 0 at N =
5,000, P = 2,500.)

Sampling. The tilted law ``P_phi(subset) ∝ e^{phi S}`` is sampled exactly
backwards from the stored layers: ``d_P`` with probability
``F_P(d) / G_P(m)``, then each ``d_{k-1} <= d_k`` with probability
``F_{k-1}(d') / G_{k-1}(d_k)`` — an inverse-CDF search in the stored prefix
sums: down the blocks by their carries, then a binary search within a block,
many draws at a time (:mod:`pranker._numba.walk`). Draws use the counter-based
generator of :mod:`pranker._numba.sampling` keyed by (seed, draw index): each draw is
reproducible whatever the number of threads.
"""

from __future__ import annotations

import math
import os

import numpy as np
from numba import get_num_threads, njit, prange

from .toptwo import count_top_two, top_two_terms
from .walk import INNER_KEY, walks_parallel, walks_serial

_MULT_MAX_PHI = 600.0  # below this e^{phi k / r} is updated by multiplication, not exp
_FLUSH = 1e-300  # a cell below this share of its block is set to 0 (no subnormal arithmetic)
_LN2 = math.log(2.0)


@njit(cache=True, inline="always")
def block_len(P):
    """Cells per scaling block for P positives: the largest L in [16, 512] with ``log C(L + P, L) <= 300``.

    Along ``d`` the untilted prefix sums of layer k grow by
    ``G_k(d + 1) / G_k(d) = (d + k + 1) / (d + 1)``, fastest from ``d = 0``,
    where L cells multiply them by ``C(L + k, L) <= C(L + P, L)``; the untilted
    completion counts grow as fast towards ``d = m``. A block therefore spans
    at most ~300 nats of either, far inside the ~1400 nats of float64, and
    the flush at ``_FLUSH`` of a block's unit drops only cells worth below
    ~e^-390 of their neighbours. (``log C(L + P, L)`` by Stirling's bound
    ``L (log((L + P) / L) + 1)``.)
    """
    L = 512
    while L > 16 and L * (math.log((L + P) / L) + 1.0) > 300.0:
        L -= 16
    return L


@njit(cache=True, inline="always")
def _layer_tables(N, phi):
    """``inv_r[r] = 1 / r`` for ``r = 0..N`` (``inv_r[0] = 0``), and the work arrays ``X``, ``B``.

    When ``abs(phi) <= _MULT_MAX_PHI`` (the multiplicative path), ``B[r] =
    e^{phi / r}``; ``X`` is filled layer by layer by :func:`_layer_shift`.
    """
    inv_r = np.empty(N + 1)
    inv_r[0] = 0.0
    for r in range(1, N + 1):
        inv_r[r] = 1.0 / r
    X = np.empty(N + 1)
    B = np.empty(N + 1)
    if abs(phi) <= _MULT_MAX_PHI:
        for r in range(1, N + 1):
            B[r] = math.exp(phi * inv_r[r])
    return inv_r, X, B


@njit(cache=True, inline="always")
def _layer_shift(k, m, phi, cP, inv_r, X, B, mult):
    """The layer's exponent ``shift`` (added to lambda); on the multiplicative path also ``X``.

    With ``mult``, ``X[k + d] = e^{phi (k / (k + d) - 1)}`` for ``d = 0..m`` on
    return: layer 1 by ``exp``, later layers by one multiplication
    ``X[r] *= e^{phi / r}`` each (``k / r`` grows by ``1 / r`` per layer), and
    the new entry ``r = k + m`` by ``exp``; then ``e^{phi a_k(d)} = X[k + d]
    e^{shift}`` with ``shift = phi (1 - c / P)``. ``|phi| <= 600`` keeps ``X``
    within float64 for either sign.
    """
    if mult:
        shift = phi * (1.0 - cP)
        if k == 1:
            for d in range(m + 1):
                X[1 + d] = math.exp(phi * (inv_r[1 + d] - 1.0))
        else:
            for d in range(m):
                X[k + d] *= B[k + d]
            X[k + m] = math.exp(phi * (k * inv_r[k + m] - 1.0))
    elif phi >= 0.0:
        shift = phi * (1.0 - cP)
    else:
        shift = phi * (k * inv_r[k + m] - cP)
    return shift


@njit(cache=True, inline="always")
def forward_start(N, P, phi, c):
    """What a block-scaled forward pass over ``N`` items, ``P`` positives starts from.

    Returns ``(m, w, L, nb, cP, inv_r, X, B, mult)``: ``m = N - P``, layers of
    ``w = m + 1`` cells in ``nb`` blocks of ``L = block_len(P)`` cells, ``cP =
    c / P``, the tables of :func:`_layer_tables`, and whether
    :func:`_layer_shift` takes the multiplicative path.
    """
    m = N - P
    w = m + 1
    L = block_len(P)
    nb = (w + L - 1) // L
    cP = c / P
    inv_r, X, B = _layer_tables(N, phi)
    mult = abs(phi) <= _MULT_MAX_PHI
    return m, w, L, nb, cP, inv_r, X, B, mult


@njit(cache=True, inline="always")
def block_scales(lam, E):
    """``lam + E[b] log 2`` for each block ``b``: the log scale of every block of the last layer."""
    scale = np.empty(E.shape[0])
    for b in range(E.shape[0]):
        scale[b] = lam + E[b] * _LN2
    return scale


_POW2 = np.array([math.ldexp(1.0, i) for i in range(-1074, 1024)])
_RENORM = 2.0**64  # a block's last prefix sum is renormalised only outside [2^-64, 2^64]


@njit(cache=True, inline="always")
def _pow2(n):
    """``2^n`` by table (0 below the subnormals, inf above the largest double)."""
    if n < -1074:
        return 0.0
    if n > 1023:
        return np.inf
    return _POW2[n + 1074]


@njit(cache=True, inline="always")
def _block_factor(k, lo, hi, phi, cP, shift, inv_r, X, mult, g_top):
    """``(inv_xs, R, xm, xe)`` of one block: its cells' factor is ``X[k + d] * inv_xs`` or ``e^{phi a - shift - R}``.

    Multiplicative path: ``xs`` is the block's largest ``X`` (at ``lo`` for
    ``phi >= 0``, else at ``hi - 1``), so every factor is at most 1. ``exp``
    path (``|phi| > 600``): ``R`` is the block's largest ``phi a - shift``
    plus the log of its largest previous value ``g_top``, so every cell's
    ``factor * g`` is at most 1. Either way the block's scale ``xs`` (or
    ``e^R``) is ``xm 2^xe`` with ``xm`` in [1, 2), from its known logarithm:
    no ``frexp``.
    """
    ref = lo if phi >= 0.0 else hi - 1
    if mult:
        xs = X[k + ref]
        xe = int(math.floor(phi * (k * inv_r[k + ref] - 1.0) / _LN2))
        xm = xs * _pow2(-xe)
        return 1.0 / xs, 0.0, xm, xe
    R = phi * (k * inv_r[k + ref] - cP) - shift
    if g_top > 0.0:
        R += math.log(g_top)
    xe = int(math.floor(R / _LN2))
    return 0.0, R, math.exp(R - xe * _LN2), xe


@njit(cache=True)
def layer_step(k, m, L, phi, cP, inv_r, X, mult, shift, Tp, c0p, c1p, Tn, c0n, c1n, En, Ep, order):
    """Layer k of the block-scaled forward recursion, with ``order`` derivatives (0, 2 or 4).

    Storage. The cells ``d`` of block ``b = d // L`` hold running sums
    ``T[j, d]`` that restart at each block; layer k's true prefix sums are
    ``G^{(j)}_k(d) = (c0[j, b] + c1[b] T[j, d]) 2^E[b] e^{lambda_k}``, with
    ``lambda_k = lambda_{k-1} + shift`` kept by the caller and ``c0[0, b]``
    the end of block ``b - 1`` in block ``b``'s units (0 for ``b = 0``). The
    block's exponent ``E[b]`` is that of its last prefix sum, so every
    ``c0 + c1 T`` lies in [0, 1).

    Block ``b`` of layer k reads block ``b`` of layer ``k - 1``:
    ``f(d) = x(d) (c0p + c1p Tp(d))`` with a factor ``x(d)`` from
    :func:`_block_factor` (at most 1 times the block's scale), the running sum
    ``T`` of ``f``, and for the derivatives ``F' = a F + x G'``,
    ``F'' = a (a F + 2 x G') + x G''`` (orders 3 and 4 likewise, from
    ``F^{(j)} = x sum_i C(j, i) a^{j-i} G^{(i)}``). Then the block's total
    ``scale * 2^Ep[b] * T(end)`` is added to the end of block ``b - 1`` in
    mantissa and binary exponent (``frexp``/``ldexp``: exact, no ``exp`` or
    ``log`` on the multiplicative path), which gives ``E[b]``, ``c1[b]`` and
    the carries ``c0[:, b]``. No scale ever leaves float64, whatever the range
    of the layer. (A single scale per layer, as before, flushed cells below
    1e-300 of the layer's total; once a layer spans more than ~690 nats —
    thousands of positives — those cells, with small ``d``, carry many
    completions and real probability was lost.)
    """
    w = m + 1
    nb = En.shape[0]
    for b in range(nb):
        lo = b * L
        hi = min(w, lo + L)
        cp0 = c0p[0, b]
        cp1 = c1p[b]
        g_top = cp0 + cp1 * Tp[0, hi - 1]
        inv_xs, R, xm, xe = _block_factor(k, lo, hi, phi, cP, shift, inv_r, X, mult, g_top)
        A0 = inv_xs * cp0
        B0 = inv_xs * cp1
        t0 = 0.0
        t1 = 0.0
        t2 = 0.0
        t3 = 0.0
        t4 = 0.0
        if order == 0 and mult:  # the hot loop: one multiply-add, one multiply per cell
            for d in range(lo, hi):
                f0 = X[k + d] * (A0 + B0 * Tp[0, d])
                if f0 < _FLUSH:
                    f0 = 0.0
                t0 += f0
                Tn[0, d] = t0
        elif order == 2 and mult:  # the CGF's pass: value, first and second derivative
            A1 = inv_xs * c0p[1, b]
            A2 = inv_xs * c0p[2, b]
            for d in range(lo, hi):
                a = k * inv_r[k + d] - cP
                x = X[k + d]
                f0 = x * (A0 + B0 * Tp[0, d])
                if f0 < _FLUSH:
                    f0 = 0.0
                eg1 = x * (A1 + B0 * Tp[1, d])
                eg2 = x * (A2 + B0 * Tp[2, d])
                t0 += f0
                t1 += a * f0 + eg1
                t2 += a * (a * f0 + 2.0 * eg1) + eg2
                Tn[0, d] = t0
                Tn[1, d] = t1
                Tn[2, d] = t2
        elif order == 4 and mult:  # the second-order saddlepoint's pass: four derivatives
            A1 = inv_xs * c0p[1, b]
            A2 = inv_xs * c0p[2, b]
            A3 = inv_xs * c0p[3, b]
            A4 = inv_xs * c0p[4, b]
            for d in range(lo, hi):
                a = k * inv_r[k + d] - cP
                x = X[k + d]
                f0 = x * (A0 + B0 * Tp[0, d])
                if f0 < _FLUSH:
                    f0 = 0.0
                eg1 = x * (A1 + B0 * Tp[1, d])
                eg2 = x * (A2 + B0 * Tp[2, d])
                eg3 = x * (A3 + B0 * Tp[3, d])
                eg4 = x * (A4 + B0 * Tp[4, d])
                a2 = a * a
                t0 += f0
                t1 += a * f0 + eg1
                t2 += a * (a * f0 + 2.0 * eg1) + eg2
                t3 += a * (a2 * f0 + 3.0 * a * eg1 + 3.0 * eg2) + eg3
                t4 += a2 * (a2 * f0 + 4.0 * a * eg1 + 6.0 * eg2) + 4.0 * a * eg3 + eg4
                Tn[0, d] = t0
                Tn[1, d] = t1
                Tn[2, d] = t2
                Tn[3, d] = t3
                Tn[4, d] = t4
        else:
            for d in range(lo, hi):
                a = k * inv_r[k + d] - cP
                if mult:
                    e = X[k + d] * inv_xs
                else:
                    x = phi * a - shift - R
                    e = math.exp(min(x, 700.0)) if x > -745.0 else 0.0
                f0 = e * (cp0 + cp1 * Tp[0, d])
                if f0 < _FLUSH:
                    f0 = 0.0
                t0 += f0
                Tn[0, d] = t0
                if order >= 2:
                    eg1 = e * (c0p[1, b] + cp1 * Tp[1, d])
                    eg2 = e * (c0p[2, b] + cp1 * Tp[2, d])
                    t1 += a * f0 + eg1
                    t2 += a * (a * f0 + 2.0 * eg1) + eg2
                    Tn[1, d] = t1
                    Tn[2, d] = t2
                    if order >= 4:
                        eg3 = e * (c0p[3, b] + cp1 * Tp[3, d])
                        eg4 = e * (c0p[4, b] + cp1 * Tp[4, d])
                        a2 = a * a
                        t3 += a * (a2 * f0 + 3.0 * a * eg1 + 3.0 * eg2) + eg3
                        t4 += a2 * (a2 * f0 + 4.0 * a * eg1 + 6.0 * eg2) + 4.0 * a * eg3 + eg4
                        Tn[3, d] = t3
                        Tn[4, d] = t4
        # the block's total xm 2^(xe + Ep[b]) t0 joins the end of block b - 1 (in 2^En[b-1]);
        # the block's unit is the larger of the two exponents, renormalised (frexp) only
        # when its last prefix sum leaves [2^-64, 2^64]
        ve = xe + Ep[b]
        Eb = ve if b == 0 else max(En[b - 1], ve)
        c1 = xm * _pow2(ve - Eb)
        p = 0.0 if b == 0 else _pow2(En[b - 1] - Eb)
        tot = c1 * t0
        if b > 0:
            tot += p * (c0n[0, b - 1] + c1n[b - 1] * Tn[0, lo - 1])
        if tot > _RENORM or tot < 1.0 / _RENORM:
            if tot > 0.0:
                e = math.frexp(tot)[1]
                Eb += e
                c1 = xm * _pow2(ve - Eb)
                p = 0.0 if b == 0 else _pow2(En[b - 1] - Eb)
        En[b] = Eb
        c1n[b] = c1
        for j in range(order + 1):
            if b == 0:
                c0n[j, 0] = 0.0
            else:
                c0n[j, b] = p * (c0n[j, b - 1] + c1n[b - 1] * Tn[j, lo - 1])


def tilt_forward(N, P, phi, c, derivs, store):
    """Forward recursion of the tilted law at ``phi``, centred at ``c``.

    Returns ``(log_Zc, m1, m2, layers)``: ``log Z_c = log sum e^{phi (S - c)}``
    over all C(N, P) subsets, ``m1 = E_phi[S - c]``, ``m2 = E_phi[(S - c)^2]``
    (NaN unless ``derivs``), and ``layers = (T, c0, c1, scale)``. With
    ``store``, ``T`` (shape ``(P, N - P + 1)``), ``c0`` and ``c1`` (shape
    ``(P, n_blocks)``) hold every layer in the block-scaled form of
    :func:`layer_step` (its ``c0[0]``, ``c1`` and ``T[0]``), else they are
    empty; ``scale[b]`` is the natural log of the last layer's unit in block
    ``b``, so ``log G_P(d) = scale[b] + log(c0[P-1, b] + c1[P-1, b] T[P-1,
    d])`` for every ``d`` (read at ``d = N' - P`` it gives ``log Z_c`` for
    ``N' <= N`` items; see :func:`log_prefix_many`).
    """
    if store and derivs:
        raise ValueError("tilt_forward: the stored layers carry no derivatives")
    # a Python function around the kernel: a compiled wrapper would be one more entry that
    # re-optimises the whole recursion on a cold first call (about 1 s)
    log_z, mom, layers, _ = _forward(
        int(N), int(P), float(phi), float(c), 2 if derivs else 0, bool(store), 0
    )
    if derivs:
        return log_z, mom[1], mom[2], layers
    return log_z, np.nan, np.nan, layers


def tilt_moments(N, P, phi, c):
    """``(log Z_c, E_phi[(S - c)^j] for j = 1..4)`` in one pass (no layers stored).

    The same recursion as :func:`tilt_forward`, carrying four derivatives in
    forward mode (``F^{(j)} = x sum_i C(j, i) a^{j-i} G^{(i)}``,
    :func:`layer_step`): the saddlepoint's second-order terms need the
    tilted law's third and fourth cumulants, and centring at ``c = s`` keeps
    them well conditioned near the saddle point.
    """
    # a Python function around the kernel, as tilt_forward: _forward (one signature, order
    # and store as runtime values) is the only compiled entry of the recursion
    log_z, mom, _, _ = _forward(int(N), int(P), float(phi), float(c), 4 if P > 0 else 0, False, 0)
    return log_z, mom[1], mom[2], mom[3], mom[4]


def tilt_forward_ends(N, P, phi, c, tail):
    """``ends[i] = (log Z_c, E_phi[S - c], E_phi[(S - c)^2])`` for ``N - tail + 1 + i`` items, i < tail.

    The same pass as :func:`tilt_forward` (with ``derivs``): the recursion's
    terms ``k / (k + d)`` do not depend on N, and its last layer's prefix
    sum at offset ``d`` is the sum over the placements with ``d_P <= d``,
    that is over the subsets of ``P + d`` items. So one pass for N items
    gives the tilted law, centred at ``c``, for the ``tail`` largest
    ``N' <= N`` at once (``tail <= N - P + 1``).
    """
    if not 1 <= tail <= N - P + 1:
        raise ValueError(f"tilt_forward_ends: need 1 <= tail <= N - P + 1, got {tail}")
    _, _, _, ends = _forward(int(N), int(P), float(phi), float(c), 2, False, int(tail))
    return ends


@njit(cache=True, nogil=True)
def _forward(N, P, phi, c, order, store, tail):
    """The block-scaled forward pass: ``(log Z_c, mom, layers, ends)``, ``mom[j] = E_phi[(S - c)^j]``
    for ``j <= order``; ``ends[i] = (log Z_c, mom[1..order])`` read at the last layer's offset
    ``m - tail + 1 + i`` (for ``N - tail + 1 + i`` items)."""
    m, w, L, nb, cP, inv_r, X, B, mult = forward_start(N, P, phi, c)
    if store:
        T = np.empty((P, w))
        C0 = np.empty((P, nb))
        C1 = np.empty((P, nb))
    else:
        T = np.empty((0, 0))
        C0 = np.empty((0, 0))
        C1 = np.empty((0, 0))
    work = np.zeros((2, order + 1, w))
    w0 = np.zeros((2, order + 1, nb))
    w1 = np.zeros((2, nb))
    E = np.zeros((2, nb), np.int64)
    # layer 0: G_0 = 1 everywhere (c0 = 1, c1 = 0, T = 0, E = 0)
    T0 = np.zeros((order + 1, w))
    c00 = np.zeros((order + 1, nb))
    c00[0, :] = 1.0
    c10 = np.zeros(nb)
    lam = 0.0
    for k in range(1, P + 1):
        i = (k - 1) % 2
        if k == 1:
            Tp, c0p, c1p = T0, c00, c10
        elif store:
            Tp, c0p, c1p = T[k - 2 : k - 1], C0[k - 2 : k - 1], C1[k - 2]
        else:
            Tp, c0p, c1p = work[1 - i], w0[1 - i], w1[1 - i]
        if store:
            Tn, c0n, c1n = T[k - 1 : k], C0[k - 1 : k], C1[k - 1]
        else:
            Tn, c0n, c1n = work[i], w0[i], w1[i]
        shift = _layer_shift(k, m, phi, cP, inv_r, X, B, mult)
        layer_step(
            k,
            m,
            L,
            phi,
            cP,
            inv_r,
            X,
            mult,
            shift,
            Tp,
            c0p,
            c1p,
            Tn,
            c0n,
            c1n,
            E[i],
            E[1 - i],
            order,
        )
        lam += shift
    i = (P - 1) % 2
    scale = block_scales(lam, E[i])
    if store:
        Tl, c0l, c1l = T[P - 1 : P], C0[P - 1 : P], C1[P - 1]
    else:
        Tl, c0l, c1l = work[i], w0[i], w1[i]
    bl = nb - 1
    top = c0l[0, bl] + c1l[bl] * Tl[0, m]
    log_z = scale[bl] + math.log(top)
    mom = np.empty(order + 1)
    mom[0] = 1.0
    for j in range(1, order + 1):
        mom[j] = (c0l[j, bl] + c1l[bl] * Tl[j, m]) / top
    ends = np.empty((tail, order + 1))
    for i in range(tail):
        d = m - tail + 1 + i
        b = d // L
        top_d = c0l[0, b] + c1l[b] * Tl[0, d]
        ends[i, 0] = scale[b] + math.log(top_d)
        for j in range(1, order + 1):
            ends[i, j] = (c0l[j, b] + c1l[b] * Tl[j, d]) / top_d
    return log_z, mom, (T, C0, C1, scale), ends


def top_pinned(N, P, phi, out, chunk_cells=20_000_000):
    r"""``out[k - 1] = log P_phi(d_1 = ... = d_k = 0)``, k = 1..P: the top k positives at ranks 1..k.

    Under the tilted law ``P_phi(subset) ∝ e^{phi S}``. Positives 1..k at
    offset 0 contribute ``e^{phi k}`` (each term ``j / j = 1``), so the
    probability is ``e^{phi k} H_{k+1}(0) / H_1(0)`` with the suffix masses

    .. math::

        H_k(a) = \sum_{d = a}^{m} e^{\phi k / (k + d)} H_{k+1}(d), \qquad H_{P+1} \equiv 1,

    the mass of positives ``k..P`` with ``d_k >= a``: one backward pass of
    reverse prefix sums, ``P (m + 1)`` cells (:func:`top_pinned_layers`), in
    calls of at most ``chunk_cells`` cells so that Ctrl-C is seen between
    them (the same numbers in one call or many). ``phi >= 0``.
    """
    m = N - P
    h = np.ones(m + 1)
    log_h0 = np.zeros(P + 2)  # log H_k(0), k = 1..P+1
    X = np.empty(N + 1)  # e^{phi (k / r - 1)} of the current layer, ranks r = k..k+m
    B = np.exp(-float(phi) / np.arange(1, N + 1, dtype=np.float64))
    B = np.concatenate((np.zeros(1), B))  # B[r] = e^{-phi / r}
    per = max(1, int(chunk_cells // (m + 1)))
    k = P
    while k >= 1:
        lo = max(1, k - per + 1)
        top_pinned_layers(N, P, float(phi), k, lo, h, log_h0, X, B)
        k = lo - 1
    ks = np.arange(1, P + 1, dtype=np.float64)
    out[:] = phi * ks + log_h0[2 : P + 2] - log_h0[1]


@njit(cache=True)
def top_pinned_layers(N, P, phi, k_hi, k_lo, h, log_h0, X, B):
    """Layers ``k_hi`` down to ``k_lo`` of :func:`top_pinned`'s backward pass, in place.

    ``h`` holds ``c H_{k_hi + 1}(a) / H_{k_hi + 1}(0)`` on entry (any scale
    ``c = h[0] > 0``) and the same for ``H_{k_lo}`` on exit; ``log_h0[k] =
    log H_k(0)``. ``H_k`` decreases in ``a``; each layer reads the previous
    one divided by its first entry and the exponent by ``e^{phi}``, so
    entries below 1e-308 of the layer's largest underflow to 0, which
    changes ``H_k(0)`` by at most ``m`` 1e-308 relative.

    The factor ``e^{phi (k / r - 1)}`` of rank ``r = k + a`` is kept in
    ``X[r]`` from layer to layer: going down one positive multiplies it by
    ``B[r] = e^{-phi / r}``, and the rank that enters (``r = k``, offset 0)
    has factor 1, so a cell costs a multiplication and an addition instead
    of an ``exp`` (the forward recursion's trick, :func:`_layer_shift`;
    rounding grows by at most one unit in the last place per layer, 1e-12
    relative at P = 10^4). Layer P, and every layer when ``phi`` exceeds
    ``_MULT_MAX_PHI`` (the factors would leave float64), use ``exp``.
    """
    m = N - P
    mult = phi <= _MULT_MAX_PHI
    for k in range(k_hi, k_lo - 1, -1):
        inv = 1.0 / h[0]
        acc = 0.0
        if mult and k < P:
            for a in range(m, 0, -1):
                r = k + a
                x = X[r] * B[r]
                X[r] = x
                acc += x * (h[a] * inv)
                h[a] = acc
            X[k] = 1.0
            acc += h[0] * inv
            h[0] = acc
        else:
            for a in range(m, -1, -1):
                x = math.exp(phi * (k / (k + a) - 1.0))
                X[k + a] = x
                acc += x * (h[a] * inv)
                h[a] = acc
        log_h0[k] = log_h0[k + 1] + phi + math.log(acc)


@njit(cache=True)
def log_prefix_many(layers, P, d):
    """``log G_P(d)`` of the last stored layer at every ``d``: ``log Z_c`` for ``N' = P + d`` items."""
    T, C0, C1, scale = layers
    L = block_len(P)
    out = np.empty(d.shape[0])
    for i in range(d.shape[0]):
        b = d[i] // L
        out[i] = scale[b] + math.log(C0[P - 1, b] + C1[P - 1, b] * T[P - 1, d[i]])
    return out


# The parallel draw kernels take about 3 s to compile on first use. Until they are in numba's
# cache (or compiled in this process), calls that walk fewer than _SERIAL_MAX_STEPS positive-steps
# (20-30 ms on one core since the lockstep searches) run in the calling thread, up to
# _SERIAL_BUDGET steps per process (1.2-2 s on one core): a first p-value, or the demo (4e7
# steps), then never compiles them;
# large calls, and many small ones, take the threads. Both give the same numbers bit for bit
# (each draw has its own streams; each row is summed in order).
_SERIAL_MAX_STEPS = 1 << 20
_SERIAL_BUDGET = 1 << 26
_serial_steps = 0
_parallel_ready = False


def _parallel_cached() -> bool:
    """Whether the parallel draw kernels are compiled in this process or cached on disk.

    Reads numba's cache index paths (private attributes: any failure counts as not cached,
    which only means the serial kernels for a while)."""
    global _parallel_ready
    if not _parallel_ready:
        try:
            kernels = (walks_parallel, _split_parallel)
            _parallel_ready = all(k.signatures or os.path.exists(_index_path(k)) for k in kernels)
        except Exception:  # noqa: BLE001 - numba internals moved: keep the budget rule
            _parallel_ready = False
    return _parallel_ready


def _index_path(kernel) -> str:
    """The path of a kernel's index in numba's on-disk cache ('' if it has none)."""
    cache = getattr(kernel, "_cache", None)
    path = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    return path if isinstance(path, str) else ""


def _serial(steps: int) -> bool:
    """Whether ``steps`` positive-steps of draws run in the calling thread (see above)."""
    global _serial_steps
    if get_num_threads() == 1:
        return True
    if _parallel_cached():
        return False
    if steps < _SERIAL_MAX_STEPS and _serial_steps < _SERIAL_BUDGET:
        _serial_steps += steps
        return True
    return False


def _one_component(N, P):
    """The mixture of one component: the tilted law of (N, P) itself."""
    return np.ones(1), np.full(1, N - P, np.int64)


_NO_S = np.empty(0)  # the arguments a walk does not read
_NO_D = np.empty(0, np.int64)


def _column(a):
    """``a`` (1-d, contiguous: the kernels write through it) as a column."""
    if not a.flags.c_contiguous:
        raise ValueError("the draw kernels write into contiguous arrays only")
    return a.reshape(-1, 1)


def _draws(layers, N, P, seed, start, n, out, k_stop, d_out, top_out, mix=None):
    """Draws ``start .. start + n - 1`` down to positive ``k_stop`` (:func:`pranker._numba.walk.walks_serial`),
    on the threads or in the calling thread (:func:`_serial`). ``mix``: ``(cw, ms)`` of the last
    positive's mixture (None: the tilted law of (N, P))."""
    cw, ms = _one_component(N, P) if mix is None else mix
    kernel = walks_serial if _serial(n * (P - k_stop + 1)) else walks_parallel
    T, C0, C1, _ = layers
    S_out, D_out = _column(out[:n]), _column(d_out[:n])
    L = block_len.py_func(P)
    kernel(
        T, C0, C1, L, P, cw, ms, seed, start, P - 1, k_stop, 0, _NO_S, _NO_D, S_out, D_out, top_out
    )


def tilt_draws(layers, N, P, seed, start, n, out, top_out=None, mix=None):
    """``out[i]`` = S of draw ``start + i`` from the tilted law stored in ``layers``.

    ``layers`` is the last output of :func:`tilt_forward` with ``store``;
    ``N`` may be smaller than the ``N`` it was built for (the same prefix
    sums, read up to ``d = N - P``). ``top_out`` (if given) gets each draw's
    offset ``d_P = r_P - P`` of its last positive. ``mix``: ``(cw, ms)``,
    the last positive from a mixture of truncated laws (see
    :func:`pranker._numba.walk.walks_serial`). A plain function over :func:`_draws` (one
    compiled kernel fewer on the first call).
    """
    top = np.empty(n, np.int64) if top_out is None else top_out
    _draws(layers, N, P, np.uint64(seed), start, n, out, 1, np.empty(n, np.int64), top, mix)


# -- the top two positives summed out, the next ones split -------------------------------


def tilt_split_states(layers, N, P, seed, start, n, k0, M, S_out, D_out, top_out=None, mix=None):
    """``S_out[i, :]``, ``D_out[i, :]``: the M inner draws of draw ``start + i``.

    Each holds the part of S above positive 2 and ``d_3`` (see
    :func:`tilt_split_contributions`); the contributions of any threshold
    follow from them (:func:`split_contributions`), so thresholds at one grid
    point can share the draws. Positives ``P .. k0 + 1`` are those of
    :func:`tilt_draws` (stopped at ``k0 + 1``), then M redraws of positives
    ``k0 .. 3`` below each (:func:`pranker._numba.walk.walks_serial`, ``M >= 1``).
    ``top_out[i]`` (if given) gets the offset ``d_P`` of the draw's last
    positive (``N - P`` when ``P = 2``: the top two are summed out). ``mix``: as in
    :func:`tilt_draws` (P >= 3).
    """
    T, C0, C1, _ = layers
    R = np.zeros(n)
    D = np.full(n, N - P, np.int64)
    top = np.full(n, N - P, np.int64) if top_out is None else top_out
    if P >= 3:
        _draws(layers, N, P, seed, start, n, R, k0 + 1, D, top, mix)
    elif top_out is not None:
        top_out[:] = N - P
    inner = walks_serial if _serial(n * M * max(k0 - 2, 1)) else walks_parallel
    key = np.uint64(seed) ^ INNER_KEY
    L = block_len.py_func(P)
    inner(T, C0, C1, L, P, _NO_S, _NO_D, key, start, k0, 3, M, R, D, S_out, D_out, _NO_D)


def split_contributions(S, D, phi, s, thr, log_g2, upper, out):
    """``out[i]``: the mean over row i's inner draws of ``e^{-phi (S - s)} #{T >= thr - S} / G_2(d_3)``.

    (``#{T <= thr - S}`` for the lower tail.) See :func:`tilt_split_contributions`.
    Rows over the threads, each summed in order: the same bits for any
    number of threads, and in the calling thread for few rows
    (:func:`_serial`). A count costs far less than a draw, but where many
    thresholds share one grid point's kept states (many rankings, per-query
    p-values) the counts were a third of the time.
    """
    kernel = _split_serial if _serial(S.size) else _split_parallel
    kernel(S, D, phi, s, thr, log_g2, upper, out)


@njit(cache=True, inline="always")
def _split_row(S, D, phi, s, thr, log_g2, upper, out, w, f1, f2):
    """Row w of :func:`split_contributions` (``f1, f2``: :func:`top_two_terms` up to ``N - P``)."""
    strict = not upper
    acc = 0.0
    for i in range(S.shape[1]):
        x = S[w, i]
        d = D[w, i]
        cnt = count_top_two(thr - x, d, strict, f1, f2)
        if not upper:  # the placements at or below: all but those above
            cnt = 0.5 * (d + 1.0) * (d + 2.0) - cnt
        if cnt > 0.0:
            # the count times e^{...}, not e^{... + log(count)}: a log less per state (the same
            # value to rounding; the exponent stays below about 3 phi - log G_2 where any count
            # is non-zero, so nothing overflows)
            acc += cnt * math.exp(-phi * (x - s) - log_g2[d])
    out[w] = acc / S.shape[1]


@njit(cache=True, parallel=True)
def _split_parallel(S, D, phi, s, thr, log_g2, upper, out):
    f1, f2 = top_two_terms(log_g2.shape[0] - 1)
    for w in prange(S.shape[0]):
        _split_row(S, D, phi, s, thr, log_g2, upper, out, w, f1, f2)


@njit(cache=True)
def _split_serial(S, D, phi, s, thr, log_g2, upper, out):
    f1, f2 = top_two_terms(log_g2.shape[0] - 1)
    for w in range(S.shape[0]):
        _split_row(S, D, phi, s, thr, log_g2, upper, out, w, f1, f2)


def tilt_split_contributions(
    layers, N, P, seed, start, n, k0, M, phi, s, thr, log_g2, upper, out, top_out=None, mix=None
):
    r"""Tail contributions of draws ``start .. start + n - 1``, the top two positives summed out.

    Each draw takes positives ``P .. k0 + 1`` from the tilted law (the
    stream of :func:`tilt_draws`), then M times, from its own second
    stream, positives ``k0 .. 3`` below them (splitting: the top positives
    carry most of the variance, and are the cheapest to redraw), and for each
    sums positives 1 and 2 out exactly. Given ``d_3`` and the part ``R`` of S
    above positive 2, their tilted law is ``e^{phi T} / G_2(d_3)`` with ``T =
    1/(1 + d_1) + 2/(2 + d_2)`` over ``d_1 <= d_2 <= d_3``, so

    .. math::

        E_\phi[e^{K - \phi S} 1\{S \ge s\} \mid R, d_3]
          = e^{K - \phi s} \, e^{-\phi (R - s)}
            \frac{\#\{T \ge \mathrm{thr} - R\}}{G_2(d_3)},

    the count from :func:`count_top_two`. ``out[i]`` is the mean over the
    M inner draws of the last factor but one (the estimate is ``e^{K - phi
    s}`` times the mean of ``out``): unbiased, and by Rao–Blackwell no more
    variable than the plain tilted estimator. ``log_g2[d] = log G_2(d)``
    (uncentred); ``thr`` is the threshold with its tolerance (``s (1 -
    REL_TOL)`` upper, ``s (1 + REL_TOL)`` lower, where the count is of
    ``T <= thr - R``). ``k0 >= 2``; with ``k0 = 2`` there is no inner draw
    (use ``M = 1``); with ``P = 2`` there is no draw at all (the estimate is
    exact). Each draw has its own streams: the result does not depend on the
    number of threads or on how the range is cut. A plain function over the
    two kernels :func:`tilt_split_states` and :func:`split_contributions`
    (one compiled kernel fewer on the first call). ``top_out``: as in
    :func:`tilt_split_states`; ``mix``: as in :func:`tilt_draws`.
    """
    S = np.empty((n, M))
    D = np.empty((n, M), np.int64)
    tilt_split_states(layers, N, P, np.uint64(seed), start, n, k0, M, S, D, top_out, mix)
    split_contributions(S, D, phi, s, thr, log_g2, upper, out)


# What a first tilted p-value compiles when it runs in the calling thread (below the
# parallel kernels' threshold): the recursion, the draws and the split draws.
SERIAL_ROUTE = (_forward, walks_serial, _split_serial)
