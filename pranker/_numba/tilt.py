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
sums, galloping down from ``d_k`` (the gaps are short under the tilt), so a
draw costs ``O(sum_k log(1 + d_k - d_{k-1}))``. Draws use the counter-based
generator of :mod:`pranker._numba.sampling` keyed by (seed, draw index): each draw is
reproducible whatever the number of threads.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .sampling import _draw_seed, _uniform01
from .tiegroups import lower_bound

_UNDERFLOW_EXP = -700.0
_LAYER_TINY = 1e-280
_MULT_MAX_PHI = 600.0  # below this e^{phi k / r} is updated by multiplication, not exp


@njit(cache=True)
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
    """The largest exponent ``shift`` of layer k; on the multiplicative path also ``X``.

    Inlined (once per layer, so the arrays' reference counting is no cost):
    as a plain call :func:`tilt_forward` measured up to ~20 % slower at small
    ``phi`` (``benchmarks/bench_layer_step.py``).

    With ``mult``, ``X[k + d] = e^{phi (k / (k + d) - 1)}`` for ``d = 0..m`` on
    return: layer 1 by ``exp``, later layers by one multiplication
    ``X[r] *= e^{phi / r}`` each (``k / r`` grows by ``1 / r`` per layer), and
    the new entry ``r = k + m`` by ``exp``. ``a_k(d) = k / (k + d) - c / P``
    is largest at ``d = 0`` (``1 - c / P``) for ``phi >= 0`` and at ``d = m``
    for ``phi < 0``; on the multiplicative path the shift ``phi (1 - c / P)``
    is used for either sign (``|phi| <= 600`` keeps ``X`` within float64).
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
def _layer_factor(mult, x_kd, inv, phi, a, shift):
    """``e^{phi a - shift} / G_{k-1}(m)`` of one cell: ``x_kd * inv`` on the multiplicative path.

    Exponents below ``_UNDERFLOW_EXP`` give 0. Inlined into the cell loops
    (scalars only, so no reference counting): the loop then compiles to the
    same machine code as the factor written out, where a plain call adds a
    call and an error check per cell (``benchmarks/bench_layer_step.py``).
    """
    if mult:
        return x_kd * inv
    x = phi * a - shift
    if x > _UNDERFLOW_EXP:
        return math.exp(x) * inv
    return 0.0


@njit(cache=True)
def _log_layer_max(k, m, phi, cP, inv_r, Gp):
    """``max_d phi a_k(d) + log G_{k-1}(d)`` over the cells with ``G_{k-1}(d) > 0``: the log-space layer's scale."""
    L = -np.inf
    for d in range(m + 1):
        g = Gp[d]
        if g > 0.0:
            v = phi * (k * inv_r[k + d] - cP) + math.log(g)
            if v > L:
                L = v
    return L


@njit(cache=True)
def _layer_log(k, m, phi, cP, inv_r, Gp, G1p, G2p, Gn, G1n, G2n, derivs):
    """Layer k in log space (rare). Returns the log scale added to lambda."""
    L = _log_layer_max(k, m, phi, cP, inv_r, Gp)
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
    (NaN unless ``derivs``), and the stored prefix sums of every layer (shape
    ``(P, N - P + 1)``) when ``store``, else an empty array.
    """
    m = N - P
    w = m + 1
    cP = c / P
    inv_r, X, B = _layer_tables(N, phi)
    if store:
        G = np.empty((P, w))
    else:
        G = np.empty((2, w))
    nd = w if derivs else 1
    G1 = np.zeros((2, nd))
    G2 = np.zeros((2, nd))
    ones = np.ones(w)
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
        shift = _layer_shift(k, m, phi, cP, inv_r, X, B, mult)
        inv = 1.0 / prev_tot
        tot = 0.0
        t1 = 0.0
        t2 = 0.0
        for d in range(w):
            a = k * inv_r[k + d] - cP
            e = _layer_factor(mult, X[k + d], inv, phi, a, shift)
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


@njit(cache=True)
def _search_last(row, t, m):
    """Smallest d in [0, m] with row[d] >= t (row nondecreasing, row[m] >= t)."""
    return lower_bound(row, t, 0, m)


@njit(cache=True)
def _gallop_down(row, t, hi):
    """Smallest d' <= hi with row[d'] >= t, galloping down from hi (row[hi] >= t)."""
    step = 1
    lo = hi - 1
    while lo >= 0 and row[lo] >= t:
        hi = lo
        step <<= 1
        lo = hi - step
    return lower_bound(row, t, max(lo, -1) + 1, hi)


_WALKERS = 16  # draws advanced together: their cache misses overlap


@njit(cache=True)
def _draw_block(G, P, m, seed, start, nb, out):
    """Draws ``start .. start + nb - 1`` advanced in lockstep, one positive at a time.

    Each draw consumes its own counter-based stream, so the result does not
    depend on the blocking; walking several draws together lets the memory
    accesses of one overlap those of the others.
    """
    states = np.empty(nb, np.uint64)
    d = np.empty(nb, np.int64)
    s = np.empty(nb)
    row = G[P - 1]
    for w in range(nb):
        st, u = _uniform01(_draw_seed(seed, start + w))
        states[w] = st
        dd = _search_last(row, u * row[m], m)
        d[w] = dd
        s[w] = P / (P + dd)
    for k in range(P - 1, 0, -1):
        row = G[k - 1]
        for w in range(nb):
            st, u = _uniform01(states[w])
            states[w] = st
            dd = _gallop_down(row, u * row[d[w]], d[w])
            d[w] = dd
            s[w] += k / (k + dd)
    for w in range(nb):
        out[w] = s[w]


@njit(cache=True, parallel=True)
def tilt_draws(G, N, P, seed, start, n, out):
    """``out[i]`` = S of draw ``start + i`` from the tilted law stored in ``G``."""
    m = N - P
    n_blocks = (n + _WALKERS - 1) // _WALKERS
    for b in prange(n_blocks):
        lo = b * _WALKERS
        hi = min(n, lo + _WALKERS)
        _draw_block(G, P, m, seed, start + lo, hi - lo, out[lo:hi])
