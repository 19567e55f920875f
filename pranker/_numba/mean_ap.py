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

Scaling is that of the single-(N, P) kernel (block-scaled layers, see
:func:`pranker._numba.tilt.layer_step`): every block of a layer has its own
binary exponent, so a prefix sum read at any ``N - P`` keeps full relative
precision, and no probability is flushed however wide a layer's range.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .rows import row_ap, store_row
from .tilt import _layer_shift, block_len, block_scales, forward_start, layer_step


@njit(cache=True)
def shared_last_layer(N, P, phi, c, order):
    """The last layer of the tilted forward recursion for ``N`` items, ``P`` positives.

    Returns ``(scale, T, c0, c1)``, the last layer in the block-scaled form of
    :func:`pranker._numba.tilt.layer_step`: for every ``N' <= N`` (``d = N' -
    P``, block ``b = d // block_len(P)``), ``G_j = c0[j, b] + c1[b] T[j, d]``
    gives ``log Z_c(phi; N') = scale[b] + log G_0`` and ``G_j / G_0 =
    E_phi[(S - c)^j]`` over the placements of P ranks in ``1..N'``. ``order``
    is the highest moment carried: 0, 2 or 4.
    """
    if order != 0 and order != 2 and order != 4:
        raise ValueError("shared_last_layer: order must be 0, 2 or 4")
    m, w, L, nb, cP, inv_r, X, B, mult = forward_start(N, P, phi, c)
    T = np.zeros((2, order + 1, w))
    c0 = np.zeros((2, order + 1, nb))
    c1 = np.zeros((2, nb))
    E = np.zeros((2, nb), np.int64)
    c0[1, 0, :] = 1.0  # layer 0: G_0 = 1 everywhere
    lam = 0.0
    for k in range(1, P + 1):
        i = (k - 1) % 2
        shift = _layer_shift(k, m, phi, cP, inv_r, X, B, mult)
        layer_step(
            k, m, L, phi, cP, inv_r, X, mult, shift,
            T[1 - i], c0[1 - i], c1[1 - i], T[i], c0[i], c1[i], E[i], E[1 - i], order,
        )  # fmt: skip
        lam += shift
    i = (P - 1) % 2
    scale = block_scales(lam, E[i])
    return scale, T[i], c0[i], c1[i]


@njit(cache=True, parallel=True)
def shared_cgf_keys(P, n_max, c, phi, start, n_of_key, order, log_z, mom):
    """Every key's ``log Z_c`` and centred tilted moments, one recursion per group.

    Group g (positives ``P[g]``, largest ``n_max[g]``, centre ``c[g]``, tilt
    ``phi[g]``) owns keys ``start[g] .. start[g + 1] - 1`` with item counts
    ``n_of_key``; for key i, ``log_z[i] = log Z_c(phi; N_i)`` and ``mom[j, i] =
    E_phi[(S - c)^j]``. Every prefix sum is read in its own block's scale; one
    that holds less than 1e-250 of its block (possible only for ``phi < 0``,
    where the mass sits at large ``d``) gets its own recursion.
    """
    for g in prange(P.shape[0]):
        scale, T, c0, c1 = shared_last_layer(n_max[g], P[g], phi[g], c[g], order)
        L = block_len(P[g])
        for i in range(start[g], start[g + 1]):
            d = n_of_key[i] - P[g]
            b = d // L
            g0 = c0[0, b] + c1[b] * T[0, d]
            if g0 > 1e-250:
                log_z[i] = scale[b] + math.log(g0)
                for j in range(order + 1):
                    mom[j, i] = (c0[j, b] + c1[b] * T[j, d]) / g0
            else:  # (phi < 0 only) the prefix holds almost none of its block: its own recursion
                sc_i, T_i, c0_i, c1_i = shared_last_layer(n_of_key[i], P[g], phi[g], c[g], order)
                bi = sc_i.shape[0] - 1
                di = T_i.shape[1] - 1
                g0 = c0_i[0, bi] + c1_i[bi] * T_i[0, di]
                log_z[i] = sc_i[bi] + math.log(g0)
                for j in range(order + 1):
                    mom[j, i] = (c0_i[j, bi] + c1_i[bi] * T_i[j, di]) / g0


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
