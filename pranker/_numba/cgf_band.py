r"""Where the tilted law puts each positive: a floor of offsets per layer for the accurate CGF pass.

The accurate compressed CGF (:mod:`pranker._numba.cgf_accurate`) visits
``B`` knots in each of the P layers. Under the tilted law
``P_phi(placement) ~ e^{phi S}`` the k-th positive's offset ``d_k`` is
concentrated (for large P its relative spread is about ``1 / sqrt(k)``),
and most knots of a layer lie far below its mass: the pass need not
compute them. This module finds, for every layer, an offset below which
``d_k`` has tilted probability under ``e^{-T}``.

The marginal of ``d_k``
-----------------------
With ``A_k(d) = e^{phi k / (k + d)} G_{k-1}(d)`` the forward mass (see
:mod:`pranker._numba.cgf_accurate`) and

.. math::

    H_k(d) = \sum_{d' \ge d} e^{\phi (k+1) / (k+1+d')} H_{k+1}(d'), \qquad H_P \equiv 1,

the tilted mass of positives ``k+1..P`` at offsets ``>= d``, the marginal
of ``d_k`` is ``A_k(d) H_k(d) / Z``. Both recursions are run by the chord
rule (``log A`` and ``log H`` linear between knots, each block summed in
closed form) on coarse knots, ``H`` and ``A`` stored every ``stride``
layers, the two passes on two threads. The chord rule's bias (about ``k
eps^2 / 8`` nats per block) shifts the marginal by a fraction of a coarse
block; the pass that uses the floors keeps :data:`FLOOR_MARGIN` fine knots
below them.

Why a floor found at one tilt serves every smaller one
------------------------------------------------------
The placements ``d_1 <= ... <= d_P`` form a distributive lattice under
coordinatewise min and max, the uniform law on it and ``e^{phi S}`` (a sum
of functions of one coordinate each) satisfy the FKG lattice condition, so
for ``phi >= 0`` the increasing event ``{d_k >= x}`` and the decreasing
function S are negatively correlated under the tilted law:
``d/dphi P_phi(d_k < x) = -Cov_phi(1{d_k >= x}, S) >= 0``. A floor with
``P_phi1(d_k < x) <= e^{-T}`` therefore holds for every ``0 <= phi <=
phi1`` (Fortuin, Kasteleyn & Ginibre 1971; Harris 1960).

Why not a mean field: a product-measure approximation of the tilted law
(each item positive independently, the fixed point of its free energy)
places the bulk well, but it misses the mode where several top positives
are pinned together, and its Chernoff bound on the lower tail of ``d_k`` was
wrong by tens of orders of magnitude at N = 10^5, P = 10^3, phi = 3.8
(``P(d_100 <= 1087) = 10^-6`` against a bound of ``e^-81``, from the exact
marginals). The chord recursions have that mode in them.

References
----------
C. M. Fortuin, P. W. Kasteleyn and J. Ginibre, "Correlation inequalities on
some partially ordered sets", Comm. Math. Phys. 22 (1971) 89–103.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

__all__ = ["chord_floors", "layer_floors", "FLOOR_T", "FLOOR_MARGIN"]

FLOOR_T = 40.0  # nats: the floor leaves out a tilted probability of d_k below e^-T
FLOOR_MARGIN = 14  # fine knots kept below the floor (see cgf_accurate.band_layers)
FLOOR_STRIDE = 16  # layers between two stored rows of the chord passes


@njit(cache=True, inline="always")
def _lae(a, b):
    if a >= b:
        return a + math.log1p(math.exp(b - a))
    return b + math.log1p(math.exp(a - b))


@njit(cache=True, inline="always")
def _log_geo(t, beta):
    """``log sum_{i=1}^t e^{i beta}`` (``t >= 1``), without overflow or cancellation."""
    if t == 1:
        return beta
    tb = t * beta
    if abs(tb) < 1e-6:
        return math.log(t) + 0.5 * (t + 1) * beta
    if beta > 0.0:
        return tb + math.log(math.expm1(-tb) / math.expm1(-beta))
    return beta + math.log(math.expm1(tb) / math.expm1(beta))


@njit(cache=True)
def _backward(P, phi, xc, stride, H):
    """``H[i] = log H_{i stride}`` at the knots ``xc`` (chord rule), for ``i stride <= P``."""
    B = xc.shape[0]
    lh = np.zeros(B)  # log H_P = 0
    nh = np.empty(B)
    if P % stride == 0:
        H[P // stride, :] = 0.0
    for k in range(P - 1, 0, -1):
        kp = k + 1
        lj = phi * kp / (kp + xc[B - 1]) + lh[B - 1]
        acc = lj
        nh[B - 1] = acc
        for j in range(B - 1, 0, -1):
            lprev = phi * kp / (kp + xc[j - 1]) + lh[j - 1]
            L = xc[j] - xc[j - 1]
            if L == 1:
                bs = lprev
            else:  # offsets x[j-1] .. x[j] - 1: sum_{t=0}^{L-1} e^{lprev + t beta}
                beta = (lj - lprev) / L
                bs = lprev + _log_geo(L, beta) - beta
            acc = _lae(acc, bs)
            nh[j - 1] = acc
            lj = lprev
        lh, nh = nh, lh
        if k % stride == 0:
            H[k // stride, :] = lh


@njit(cache=True)
def _forward(P, phi, xc, stride, A):
    """``A[i] = log A_{i stride}`` at the knots ``xc`` (chord rule), for ``1 <= i stride <= P``."""
    B = xc.shape[0]
    lg = np.zeros(B)  # log G_0 = 0
    ng = np.empty(B)
    la = np.empty(B)
    for k in range(1, P + 1):
        for j in range(B):
            la[j] = phi * k / (k + xc[j]) + lg[j]
        if k % stride == 0:
            A[k // stride, :] = la
        acc = la[0]
        ng[0] = acc
        for j in range(1, B):
            L = xc[j] - xc[j - 1]
            bs = la[j] if L == 1 else la[j - 1] + _log_geo(L, (la[j] - la[j - 1]) / L)
            acc = _lae(acc, bs)
            ng[j] = acc
        lg, ng = ng, lg


@njit(cache=True, parallel=True)
def _both(P, phi, xc, stride, A, H):
    for i in prange(2):
        if i == 0:
            _forward(P, phi, xc, stride, A)
        else:
            _backward(P, phi, xc, stride, H)


@njit(cache=True)
def chord_floors(P, phi, xc, stride, T):
    """``floor[k-1]``: an offset below which ``d_k`` has tilted probability under ``e^{-T}``.

    From the chord-rule marginals ``A_k H_k`` on knots ``xc`` at every
    ``stride``-th layer; a layer between two of them takes the floor of the
    last one at or before it: ``d_k >= d_k'`` for ``k' <= k``, so a floor for
    ``d_k'`` holds for ``d_k``. Floors never decrease.
    """
    B = xc.shape[0]
    ns = P // stride
    A = np.zeros((ns + 1, B))
    H = np.zeros((ns + 1, B))
    _both(P, phi, xc, stride, A, H)
    floor = np.zeros(P, np.int64)
    cum = np.empty(B)
    cur = 0
    for k in range(1, P + 1):
        if k % stride == 0:
            a = A[k // stride]
            h = H[k // stride]
            tot = a[0] + h[0]
            cum[0] = tot
            for j in range(1, B):
                m1 = a[j] + h[j]
                L = xc[j] - xc[j - 1]
                if L == 1:
                    bs = m1
                else:
                    m0 = a[j - 1] + h[j - 1]
                    bs = m0 + _log_geo(L, (m1 - m0) / L)
                tot = _lae(tot, bs)
                cum[j] = tot
            j = 0
            while j + 1 < B and cum[j + 1] - tot < -T:
                j += 1
            if cum[j] - tot < -T:
                cur = max(cur, xc[j])
        floor[k - 1] = cur
    return floor


@njit(cache=True)
def layer_floors(P, phi, x, xc, T, margin, stride):
    """Knot indices into ``x`` for :func:`pranker._numba.cgf_accurate.band_layers`: ``margin`` knots below the floors."""
    fl = chord_floors(P, phi, xc, stride, T)
    B = x.shape[0]
    lo = np.empty(P, np.int64)
    for k in range(P):
        j = np.searchsorted(x, fl[k], side="right") - 1 - margin
        lo[k] = min(max(j, 0), max(B - 5, 0))
    return lo
