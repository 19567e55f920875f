r"""Kernel of the summed null of mean AP: one forward recursion serves every N.

The forward recursion of :mod:`pranker._numba.tilt` works in the offset
coordinate ``d_k = r_k - k`` with ``0 <= d_1 <= ... <= d_P <= M = N - P``:

.. math::

    F_k(d) = e^{\phi a_k(d)} G_{k-1}(d), \qquad G_k(d) = \sum_{d' \le d} F_k(d'),
    \qquad a_k(d) = k / (k + d) - c / P, \qquad G_0 \equiv 1,

and ``Z_c(phi) = G_P(M)``. Neither ``a_k(d)`` nor the prefix sum up to ``d``
involves ``M``: ``M`` only says where the last layer is read. Hence the
values ``G_k(d)`` for ``d <= M`` are the same for every upper bound ``M' >= M``,
and one recursion run to the largest ``M`` among queries sharing ``(P, phi)``
gives ``Z_c`` for every smaller ``N`` at once:

.. math::

    Z_c(\phi; N) = G_P(N - P) \quad \text{for every } N \le N_{\max}.

(Each placement of P ranks in ``1..N`` is a placement in ``1..N_max`` whose
``d_P <= N - P``; the prefix sum counts exactly those.) The same holds for the
forward-mode derivatives ``G^{(j)}_k = \partial^j G_k / \partial\phi^j``:

.. math::

    F^{(j)}_k(d) = e^{\phi a} \sum_{i=0}^{j} \binom{j}{i} a^{j-i} G^{(i)}_{k-1}(d),

so ``G^{(j)}_P(N - P) / G_P(N - P) = E_\phi[(S - c)^j]`` for each N: the
centred raw moments of ``S`` under the tilt, from which the cumulants follow
without subtracting large numbers as long as ``c`` is near the tilted mean.

Scaling is that of the single-(N, P) kernel: layer k is stored relative to a
log scale ``lambda_k`` (true ``G_k = e^{lambda_k}`` times the stored values),
the fast path divides by the previous layer's total ``G_{k-1}(M_max)`` and
by the layer's largest exponent, and a layer whose total leaves
``(1e-280, inf)`` is redone in log space through the ratios
``G^{(j)} / G``. A common scale per layer does not depend on the read-out
point, so the prefix sums at every ``N - P`` carry the same ``lambda``.
Values below ``1e-300`` of the layer are flushed to 0, so a prefix sum that
holds less than ~1e-250 of the layer total must be recomputed by the caller
with its own upper bound (it never happens for ``phi >= 0``, where the mass
sits at small ``d``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .rows import row_ap, store_row
from .tilt import (
    _LAYER_TINY,
    _MULT_MAX_PHI,
    _UNDERFLOW_EXP,
    _layer_factor,
    _layer_shift,
    _layer_tables,
    _log_layer_max,
)


@njit(cache=True)
def _binom_table(order):
    b = np.zeros((order + 1, order + 1))
    for j in range(order + 1):
        b[j, 0] = 1.0
        for i in range(1, j + 1):
            b[j, i] = b[j - 1, i - 1] + (b[j - 1, i] if i <= j - 1 else 0.0)
    return b


@njit(cache=True)
def _combine(e, a, prev, d, order, binom, f):
    """``f[j] = e * sum_i binom(j, i) a^{j-i} prev[i, d]`` for j = 0..order."""
    for j in range(order + 1):
        acc = 0.0
        ap = 1.0
        for i in range(j, -1, -1):  # a^{j-i} grows as i falls
            acc += binom[j, i] * ap * prev[i, d]
            ap *= a
        f[j] = e * acc


@njit(cache=True)
def shared_last_layer(N, P, phi, c, order):
    """The last layer of the tilted forward recursion for ``N`` items, ``P`` positives.

    Returns ``(lam, G)`` with ``G`` of shape ``(order + 1, N - P + 1)``: for
    every ``N' <= N`` (``d = N' - P``), ``log Z_c(phi; N') = lam + log G[0, d]``
    and ``G[j, d] / G[0, d] = E_phi[(S - c)^j]`` over the placements of P ranks
    in ``1..N'``. ``order`` is the highest moment carried: 0, 2 or 4.
    """
    if order != 0 and order != 2 and order != 4:
        raise ValueError("shared_last_layer: order must be 0, 2 or 4")
    m = N - P
    w = m + 1
    cP = c / P
    binom = _binom_table(order)
    inv_r, X, B = _layer_tables(N, phi)
    prev = np.zeros((order + 1, w))
    for d in range(w):
        prev[0, d] = 1.0
    cur = np.zeros((order + 1, w))
    f = np.zeros(order + 1)
    tot = np.zeros(order + 1)
    q = np.zeros(order + 1)
    mult = abs(phi) <= _MULT_MAX_PHI
    lam = 0.0
    prev_tot = 1.0
    for k in range(1, P + 1):
        shift = _layer_shift(k, m, phi, cP, inv_r, X, B, mult)
        inv = 1.0 / prev_tot
        t0 = t1 = t2 = t3 = t4 = 0.0
        for d in range(w):
            a = k * inv_r[k + d] - cP
            e = _layer_factor(mult, X[k + d], inv, phi, a, shift)
            g0 = prev[0, d]
            f0 = e * g0
            if f0 < 1e-300:
                f0 = 0.0
            t0 += f0
            cur[0, d] = t0
            if order >= 2:  # unrolled: F' = a F + e G', F'' = a (a F + 2 e G') + e G''
                eg1 = e * prev[1, d]
                eg2 = e * prev[2, d]
                f1 = a * f0 + eg1
                f2 = a * (a * f0 + 2.0 * eg1) + eg2
                t1 += f1
                t2 += f2
                cur[1, d] = t1
                cur[2, d] = t2
                if order >= 4:
                    eg3 = e * prev[3, d]
                    eg4 = e * prev[4, d]
                    a2 = a * a
                    f3 = a * (a2 * f0 + 3.0 * a * eg1 + 3.0 * eg2) + eg3
                    f4 = a2 * (a2 * f0 + 4.0 * a * eg1 + 6.0 * eg2) + 4.0 * a * eg3 + eg4
                    t3 += f3
                    t4 += f4
                    cur[3, d] = t3
                    cur[4, d] = t4
        tot[0] = t0
        if tot[0] > _LAYER_TINY and tot[0] < np.inf:
            lam += shift + math.log(prev_tot)
        else:
            # the mass sits where the exponent is small: redo the layer in log space
            L = _log_layer_max(k, m, phi, cP, inv_r, prev[0])
            for j in range(order + 1):
                tot[j] = 0.0
            for d in range(w):
                g = prev[0, d]
                for j in range(order + 1):
                    f[j] = 0.0
                if g > 0.0:
                    a = k * inv_r[k + d] - cP
                    x = phi * a + math.log(g) - L
                    if x > _UNDERFLOW_EXP:
                        for i in range(order + 1):
                            q[i] = prev[i, d] / g
                        _combine(math.exp(x), a, q.reshape((order + 1, 1)), 0, order, binom, f)
                for j in range(order + 1):
                    tot[j] += f[j]
                    cur[j, d] = tot[j]
            lam += L
        prev_tot = cur[0, m]
        prev, cur = cur, prev
    return lam, prev


@njit(cache=True, parallel=True)
def shared_cgf_keys(P, n_max, c, phi, start, n_of_key, order, log_z, mom):
    """Every key's ``log Z_c`` and centred tilted moments, one recursion per group.

    Group g (positives ``P[g]``, largest ``n_max[g]``, centre ``c[g]``, tilt
    ``phi[g]``) owns keys ``start[g] .. start[g + 1] - 1`` with item counts
    ``n_of_key``; for key i, ``log_z[i] = log Z_c(phi; N_i)`` and ``mom[j, i] =
    E_phi[(S - c)^j]``. A key whose prefix sum holds less than 1e-250 of the
    layer (possible only for ``phi < 0``) gets its own recursion.
    """
    for g in prange(P.shape[0]):
        lam, G = shared_last_layer(n_max[g], P[g], phi[g], c[g], order)
        top = G[0, G.shape[1] - 1]
        for i in range(start[g], start[g + 1]):
            d = n_of_key[i] - P[g]
            g0 = G[0, d]
            if g0 > 1e-250 * top:
                log_z[i] = lam + math.log(g0)
                for j in range(order + 1):
                    mom[j, i] = G[j, d] / g0
            else:
                lam_i, G_i = shared_last_layer(n_of_key[i], P[g], phi[g], c[g], order)
                w = G_i.shape[1] - 1
                log_z[i] = lam_i + math.log(G_i[0, w])
                for j in range(order + 1):
                    mom[j, i] = G_i[j, w] / G_i[0, w]


@njit(cache=True, parallel=True)
def ap_segments(scores, y, starts, mode, ap_out, n_out, npos_out, status_out):
    """AP of the rankings ``scores[starts[i]:starts[i + 1]]`` (concatenated, not padded).

    The same per-ranking kernel as :func:`pranker._numba.rows.ap_rows`, so the
    same numbers; ``status_out`` uses its codes (OK, no positive, NaN).
    """
    no_mask = np.ones(1, dtype=np.bool_)
    for i in prange(starts.shape[0] - 1):
        lo = starts[i]
        hi = starts[i + 1]
        buf = np.empty(hi - lo)
        res = row_ap(scores[lo:hi], y[lo:hi], no_mask, False, mode, buf)
        store_row(i, res, ap_out, n_out, npos_out, status_out)
