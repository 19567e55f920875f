r"""An accurate CGF of S = P * AP on compressed knots, at a cost that does not grow with N.

Notation as in :mod:`pranker._numba.tilt`: offsets ``d_k = r_k - k`` with
``0 <= d_1 <= ... <= d_P <= M = N - P``, ``S = sum_k k / (k + d_k)``, and the
forward recursion of the tilted mass

.. math::

    A_k(d) = e^{\phi k / (k + d)} G_{k-1}(d), \qquad
    G_k(d) = \sum_{d' \le d} A_k(d'), \qquad G_0 \equiv 1,

so that ``Z(phi) = G_P(M)`` and ``K(phi) = log Z(phi) - log C(N, P)``. The
exact recursion costs ``P (M + 1)`` cells per value of ``phi``. Here
``log G_k`` is kept only at the knots of :func:`pranker._numba.compressed.compressed_knots`
(every offset below ``E``, then a geometric grid of ratio ``1 + eps``; ``B``
knots, about ``E + ln(M / E) / eps``), and each block sum
``sum_{x_{j-1} < d <= x_j} A_k(d)`` between two knots is computed to high order:
``P B`` blocks per value of ``phi``, whatever N.

The rule per block
------------------
1. **Interpolation in a logarithmic coordinate.** ``log G_{k-1}`` is
   interpolated by the cubic through the four neighbouring knots
   ``x_{j-2} .. x_{j+1}``, as a function of ``z = log(d + c_k)`` with
   ``c_k = k / 4``; the tilt ``phi k / (k + d)`` is added exactly. With
   ``k - 1`` positives at or below ``d``, ``G_{k-1}(d)`` grows like a power of
   ``d + O(k)``, which is linear in ``z``: a cubic in ``d`` leaves an error
   that grows like ``P^2 eps^4`` (measured: 0.07 nats at N = 3e4, P = 3000,
   eps = 4 %), a cubic in ``z`` 0.0003 nats.
2. **Sum to integral.** For ``C(u)`` the interpolated ``log A_k`` (real
   ``u``), the sum over the integers of a block is replaced by

   .. math::

       \sum_{t = a}^{b} e^{C(t)} \approx \int_{a - 1/2}^{b + 1/2}
       \Big[\kappa(C'(u)) + \tfrac{1}{2} C''(u) \, \kappa''(C'(u))\Big] e^{C(u)} \, du,
       \qquad \kappa(s) = \frac{s / 2}{\sinh(s / 2)}.

   ``kappa`` makes the rule exact for a pure exponential (the ratio of
   ``sum_t e^{s t}`` to its integral over the half-integer cells); the
   ``C'' kappa'' / 2`` term is its first-order correction for curvature,
   from the midpoint Euler–Maclaurin formula (to first order in ``C''``
   the endpoint terms of the sum equal this integrand; at ``s -> 0`` it is
   the familiar ``-C'' / 24``). Without it the error at large tilts was
   -0.024 nats (P = 3000, phi = 5, eps = 1 %), with it 0.0001.
3. **Quadrature.** With ``sigma`` the chord slope of ``C`` over the block,
   oriented so that ``sigma >= 0`` (``t`` runs from the block's weak end),
   ``y = expm1(sigma t) / sigma`` turns ``e^{sigma t} dt`` into ``dy``: the
   steep exponential is integrated exactly and the remaining factor
   ``e^{C - sigma t}`` varies slowly. That factor has a weak power-law
   singularity ``y^alpha`` at the weak end (``alpha`` the relative mismatch
   of the end slope and the chord), which a grading ``y = Y v^4`` removes;
   then 6-point Gauss–Legendre in ``v``. Blocks whose chord rises by less
   than ``1e-3`` nats use Gauss–Legendre in ``t`` directly.

Derivatives in one pass
-----------------------
``log G_k``, ``d log G_k / d phi`` and ``d^2 log G_k / d phi^2`` are carried
at the knots (forward mode): the interpolated ``C``, ``C'``, ``C''`` are
linear in the knot values and in ``phi``, so their ``phi``-derivatives are
the same cubics of the derivative rows. Per node, ``h = d/dphi log`` of the
integrand and ``q = d^2/dphi^2 log`` of it; a block's
``(log I)' = E_f[h]`` and ``(log I)'' = Var_f(h) + E_f[q]`` under the
quadrature weights ``f`` (all positive), and two blocks join by
``log(e^a + e^b)`` with ``(.)'' = w_a a'' + w_b b'' + w_a w_b (a' - b')^2`` —
no difference of large numbers. At the end ``K' = E_phi[S]`` and ``K'' =
Var_phi[S]`` of the compressed mass.

Measured against the exact recursion (``TiltEngine.cgf``, ``O(N P)``), see
``tests/test_cgf_accurate.py`` and docs/calibration.md.

Cost: six nodes per block with about five transcendental functions each.
The blocks of a layer are independent given the previous layer, so they are
computed in parallel (the prefix sums in order): the result is the same bits
for any number of threads.

Each layer from its floor
-------------------------
Where the tilted law puts each positive: a floor of offsets per layer for the accurate CGF pass.

The accurate compressed CGF (below) visits
``B`` knots in each of the P layers. Under the tilted law
``P_phi(placement) ~ e^{phi S}`` the k-th positive's offset ``d_k`` is
concentrated (for large P its relative spread is about ``1 / sqrt(k)``),
and most knots of a layer lie far below its mass: the pass need not
compute them. This module finds, for every layer, an offset below which
``d_k`` has tilted probability under ``e^{-T}``.

The marginal of ``d_k``
-----------------------
With ``A_k(d) = e^{phi k / (k + d)} G_{k-1}(d)`` the forward mass (see
the accurate pass above) and

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

__all__ = ["band_layers", "band_layers_range", "kappa4", "chord_floors", "layer_floors"]

# 6-point Gauss-Legendre on [0, 1]
_GL_V = np.array(
    [
        0.033765242898423975,
        0.16939530676686776,
        0.38069040695840156,
        0.6193095930415985,
        0.8306046932331322,
        0.966234757101576,
    ]
)
_GL_W = np.array(
    [
        0.08566224618958517,
        0.1803807865240693,
        0.23395696728634552,
        0.23395696728634552,
        0.1803807865240693,
        0.08566224618958517,
    ]
)
_GRADE = 4.0  # y = Y v^4 near the weak end
_GL_V4 = _GL_V**_GRADE
_GL_LOGV4 = _GRADE * np.log(_GL_V)
_GL_WG = _GRADE * _GL_V ** (_GRADE - 1.0) * _GL_W  # weights of the graded rule
_FLAT = 1e-3  # chord rise (nats) below which a block is integrated without substitution
_ZC = 0.25  # z = log(d + _ZC k)
_BIG = 700.0  # chord rise beyond which expm1 would overflow


@njit(cache=True, inline="always")
def kappa4(s):
    """``kappa(s) = (s / 2) / sinh(s / 2)`` and its first four derivatives."""
    a = abs(s)
    if a < 0.2:
        s2 = s * s
        k0 = 1.0 + s2 * (
            -1.0 / 24.0 + s2 * (7.0 / 5760.0 + s2 * (-31.0 / 967680.0 + s2 * 127.0 / 154828800.0))
        )
        k1 = s * (
            -1.0 / 12.0 + s2 * (7.0 / 1440.0 + s2 * (-31.0 / 161280.0 + s2 * 127.0 / 19353600.0))
        )
        k2 = -1.0 / 12.0 + s2 * (
            7.0 / 480.0 + s2 * (-31.0 / 32256.0 + s2 * (127.0 / 2764800.0 - s2 * 73.0 / 38928384.0))
        )
        k3 = s * (
            7.0 / 240.0 + s2 * (-31.0 / 8064.0 + s2 * (127.0 / 460800.0 - s2 * 73.0 / 4866048.0))
        )
        k4 = 7.0 / 240.0 + s2 * (-31.0 / 2688.0 + s2 * (127.0 / 92160.0 - s2 * 511.0 / 4866048.0))
        return k0, k1, k2, k3, k4
    h = math.exp(-0.5 * a)
    e = h * h
    om = 1.0 - e
    c = 2.0 * h / om  # csch(a / 2)
    t = (1.0 + e) / om  # coth(a / 2)
    x = 0.5 * a
    c2 = c * c
    t2 = t * t
    k0 = c * x
    k1 = -0.5 * c * (t * x - 1.0)
    k2 = 0.25 * c * ((c2 + t2) * x - 2.0 * t)
    k3 = -0.125 * c * (5.0 * c2 * t * x - 3.0 * c2 + t2 * t * x - 3.0 * t2)
    k4 = (
        0.0625
        * c
        * (5.0 * c2 * c2 * x + 18.0 * c2 * t2 * x - 20.0 * c2 * t + t2 * t2 * x - 4.0 * t2 * t)
    )
    if s < 0.0:
        k1 = -k1
        k3 = -k3
    return k0, k1, k2, k3, k4


@njit(cache=True, inline="always")
def _newton(X0, X1, X2, X3, f0, f1, f2, f3):
    """Divided differences ``f[X0,X1], f[X0..X2], f[X0..X3]`` of the cubic through ``(X_i, f_i)``."""
    f01 = (f1 - f0) / (X1 - X0)
    f12 = (f2 - f1) / (X2 - X1)
    f23 = (f3 - f2) / (X3 - X2)
    f012 = (f12 - f01) / (X2 - X0)
    f123 = (f23 - f12) / (X3 - X1)
    return f01, f012, (f123 - f012) / (X3 - X0)


@njit(cache=True, inline="always")
def _peval(z, X0, X1, X2, c1, c2, c3):
    """``p(z) - p(X0)``, ``p'(z)``, ``p''(z)`` of the Newton cubic."""
    q2 = c2 + (z - X2) * c3
    q1 = c1 + (z - X1) * q2
    dq1 = q2 + (z - X1) * c3
    return (z - X0) * q1, q1 + (z - X0) * dq1, 2.0 * dq1 + 2.0 * (z - X0) * c3


@njit(cache=True)
def block_sum(k, phi, x, zk, j, g, g1, g2, v=0):
    """``(log I, (log I)', (log I)'')``: block j's sum ``sum_{x[j-1] < d <= x[j]} A_k(d)`` and its phi-derivatives.

    ``g, g1, g2``: ``log G_{k-1}`` and its first two phi-derivatives at the
    knots; ``zk[i] = log(x[i] + k / 4)``. Needs ``x[j] - x[j-1] >= 2`` and at
    least 4 knots. ``v``: the first knot where ``g`` holds a value (the
    stencil ``j-2 .. j+1`` is moved up to start there; ``j - 1 >= v``).
    """
    B = x.shape[0]
    i0 = min(max(j - 2, v), B - 4)
    X0 = zk[i0]
    X1 = zk[i0 + 1]
    X2 = zk[i0 + 2]
    X3 = zk[i0 + 3]
    a1, a2, a3 = _newton(X0, X1, X2, X3, g[i0], g[i0 + 1], g[i0 + 2], g[i0 + 3])
    b1, b2, b3 = _newton(X0, X1, X2, X3, g1[i0], g1[i0 + 1], g1[i0 + 2], g1[i0 + 3])
    c1, c2, c3 = _newton(X0, X1, X2, X3, g2[i0], g2[i0 + 1], g2[i0 + 2], g2[i0 + 3])
    cz = _ZC * k
    xa = float(x[j - 1])
    xb = float(x[j])
    L = xb - xa
    ta = phi * k / (k + xa)
    if j - 1 >= i0:
        ga = g[j - 1] - g[i0]  # p(zk[j-1]) - p(X0), exactly (an interpolation node)
        Ca = g[j - 1] + ta  # log A_k at the knot below: the reference
    else:  # the stencil starts at j (a floor's lowest block): the cubic continued down
        ga = _peval(math.log(xa + cz), X0, X1, X2, a1, a2, a3)[0]
        Ca = g[i0] + ga + ta
    sig = (g[j] + phi * k / (k + xb) - Ca) / L
    if sig >= 0.0:
        w = xa + 0.5
        dr = 1.0
    else:
        w = xb + 0.5
        dr = -1.0
        sig = -sig
    rise = sig * L
    flat = rise < _FLAT
    em = 0.0
    if flat:
        lY = math.log(L)
    elif rise > _BIG:
        lY = rise - math.log(sig)
    else:
        em = math.expm1(rise)
        lY = math.log(em / sig)
    cst = -ga - ta  # C(u) - Ca = p(z(u)) - p(X0) + phi tau(u) + cst
    sf = 0.0
    sh = 0.0
    sh2 = 0.0
    sq = 0.0
    h0 = 0.0
    for n in range(6):
        if flat:
            t = L * _GL_V[n]
            wn = _GL_W[n]
            lin = 0.0
        else:
            if rise > _BIG:
                lsy = rise + _GL_LOGV4[n]  # log(sigma y)
                t = (lsy + math.log1p(math.exp(-lsy))) / sig
            else:
                t = math.log1p(em * _GL_V4[n]) / sig
            wn = _GL_WG[n]
            lin = sig * t
        u = w + dr * t
        iz = 1.0 / (u + cz)
        zu = math.log(u + cz)
        pu, dpu, ddpu = _peval(zu, X0, X1, X2, a1, a2, a3)
        p1, dp1, ddp1 = _peval(zu, X0, X1, X2, b1, b2, b3)
        p2, dp2, ddp2 = _peval(zu, X0, X1, X2, c1, c2, c3)
        iz2 = iz * iz
        iku = 1.0 / (k + u)
        tau = k * iku
        ti = tau * iku
        # C and its u-derivatives; the phi-derivatives of each
        C = pu + phi * tau + cst
        Cu = dpu * iz - phi * ti
        Cuu = (ddpu - dpu) * iz2 + 2.0 * phi * ti * iku
        Cph = g1[i0] + p1 + tau
        Cuph = dp1 * iz - ti
        Cuuph = (ddp1 - dp1) * iz2 + 2.0 * ti * iku
        Cphph = g2[i0] + p2
        Cuphph = dp2 * iz
        Cuuphph = (ddp2 - dp2) * iz2
        k0, k1, k2, k3, k4 = kappa4(Cu)
        hc = 0.5 * Cuu
        F = k0 + hc * k2  # kappa(C') + C'' kappa''(C') / 2
        Fs = k1 + hc * k3
        Fss = k2 + hc * k4
        Fc = 0.5 * k2
        Fsc = 0.5 * k3
        f = wn * math.exp(C - lin) * F
        iF = 1.0 / F
        dF = (Fs * Cuph + Fc * Cuuph) * iF
        h = Cph + dF
        q = (
            Cphph
            + (Fss * Cuph * Cuph + 2.0 * Fsc * Cuph * Cuuph + Fs * Cuphph + Fc * Cuuphph) * iF
            - dF * dF
        )
        if n == 0:
            h0 = h
        dh = h - h0
        sf += f
        sh += f * dh
        sh2 += f * dh * dh
        sq += f * q
    m1 = sh / sf
    return Ca + lY + math.log(sf), h0 + m1, max(sh2 / sf - m1 * m1, 0.0) + sq / sf


@njit(cache=True, inline="always")
def _join(l, d, dd, bl, bd, bdd):
    """``log(e^l + e^bl)`` and its first two phi-derivatives."""
    if l >= bl:
        e = math.exp(bl - l)
        wa = 1.0 / (1.0 + e)
        wb = e * wa
        nl = l + math.log1p(e)
    else:
        e = math.exp(l - bl)
        wb = 1.0 / (1.0 + e)
        wa = e * wb
        nl = bl + math.log1p(e)
    diff = d - bd
    return nl, wa * d + wb * bd, wa * dd + wb * bdd + wa * wb * diff * diff


@njit(cache=True, inline="always")
def _one_block(k, phi, x, zk, j, g, g1, g2, tl, td, tdd, v):
    """Block j of layer k: a unit block directly, a wider one by :func:`block_sum`."""
    if x[j] - x[j - 1] == 1:
        tau = k / (k + x[j])
        tl[j] = g[j] + phi * tau
        td[j] = g1[j] + tau
        tdd[j] = g2[j]
    else:
        tl[j], td[j], tdd[j] = block_sum(k, phi, x, zk, j, g, g1, g2, v)


@njit(cache=True, parallel=True)
def _blocks_parallel(k, phi, x, zk, j0, j1, g, g1, g2, tl, td, tdd, v):
    """Blocks ``j0 .. j1`` of layer k (unit blocks too), in parallel chunks."""
    n = j1 + 1 - j0
    nch = 8
    for c in prange(nch):
        lo = j0 + (n * c) // nch
        hi = j0 + (n * (c + 1)) // nch
        for j in range(lo, hi):
            _one_block(k, phi, x, zk, j, g, g1, g2, tl, td, tdd, v)


@njit(cache=True)
def _blocks_serial(k, phi, x, zk, j0, j1, g, g1, g2, tl, td, tdd, v):
    for j in range(j0, j1 + 1):
        _one_block(k, phi, x, zk, j, g, g1, g2, tl, td, tdd, v)


_PARALLEL_MIN_BLOCKS = 64  # narrower layers are computed on one thread (the same bits)


# A layer's floor rises only to a knot where log G_{k-1} climbs at least this many nats to the
# next knot: there the offsets below weigh e^-60 or less next to the knot above, so the
# estimate of their mass does not matter (where G is flat it does, and its error compounds).
FLOOR_MIN_RISE = 60.0


@njit(cache=True)
def _below(k, phi, x, j0, g, g1, g2, B):
    """``log sum_{d <= x[j0]} A_k(d)`` and its phi-derivatives, from the cubic through knots ``j0+1..j0+4``.

    At ``x[j0]`` the continued cubic gives ``C = log A_k`` and its slope
    ``s = dC/dd``; the offsets below are summed as if the slope stayed ``s``
    (``e^C / (1 - e^{-s})``, at most ``e^C / 1e-3``).
    """
    i0 = min(j0 + 1, B - 4)
    cz = _ZC * k
    X0 = math.log(x[i0] + cz)
    X1 = math.log(x[i0 + 1] + cz)
    X2 = math.log(x[i0 + 2] + cz)
    X3 = math.log(x[i0 + 3] + cz)
    a1, a2, a3 = _newton(X0, X1, X2, X3, g[i0], g[i0 + 1], g[i0 + 2], g[i0 + 3])
    b1, b2, b3 = _newton(X0, X1, X2, X3, g1[i0], g1[i0 + 1], g1[i0 + 2], g1[i0 + 3])
    c1, c2, c3 = _newton(X0, X1, X2, X3, g2[i0], g2[i0 + 1], g2[i0 + 2], g2[i0 + 3])
    u = float(x[j0])
    z = math.log(u + cz)
    p, dp, _ = _peval(z, X0, X1, X2, a1, a2, a3)
    p1 = _peval(z, X0, X1, X2, b1, b2, b3)[0]
    p2 = _peval(z, X0, X1, X2, c1, c2, c3)[0]
    tau = k / (k + u)
    C = g[i0] + p + phi * tau
    s = dp / (u + cz) - phi * tau / (k + u)
    f = -math.log(max(-math.expm1(-s), 1e-3)) if s > 0.0 else math.log(1e3)
    return C + f, g1[i0] + p1 + tau, g2[i0] + p2


@njit(cache=True)
def band_layers(P, phi, x, lo, parallel):
    r"""``log G_P`` and its phi-derivatives at the knots, each layer computed from a floor up.

    Layer ``k`` is computed from knot ``j0 = lo[k-1]`` up (floors from
    :func:`layer_floors`: below them ``d_k`` has a
    tilted probability under ``e^{-40}``), except that a floor rises only
    where ``log G_{k-1}`` climbs at least :data:`FLOOR_MIN_RISE` nats from
    knot ``j0`` to ``j0 + 1`` (else the previous layer's floor is kept).
    With ``lo = 0`` in every layer this is the full pass, bit for bit.
    The same pass in pieces: :func:`band_layers_range`.

    At a floor ``j0 > 0`` nothing below ``j0`` is read:

    - the blocks ``j0 + 1 .. j0 + 3`` interpolate ``log G_{k-1}`` by the
      cubic through knots ``j0 + 1 .. j0 + 4`` (for block ``j0 + 1``
      continued one knot down);
    - ``G_k(x_{j0})``, the mass of every offset up to the floor, is that cubic
      at ``x_{j0}`` (plus the tilt) summed downwards at its slope there
      (:func:`_below`); beyond ``FLOOR_MIN_RISE`` nats below the knot above,
      its error does not reach the answer.

    What the pass leaves out is the mass of placements with some ``d_k``
    below its floor. Measured against the full pass: 6e-10 or less in K
    (nats), K' (tilted sd) and K'' (relative) at P = 10^4, N / P = 2 - 100,
    p from 10^-3 to 10^-64 (docs/calibration.md); tests/test_cgf_band.py
    checks 1e-5 at P = 2,000 - 3,000. Where ``log G`` is flat a floor
    would matter: errors in the mass below it compound over the layers
    it stays at (hundreds of nats at the floor, felt 15 knots up), which
    is why it rises only where the climb is steep.
    """
    B = x.shape[0]
    g, g1, g2, _ = band_layers_range(
        1, P, phi, x, lo, parallel, np.zeros(B), np.zeros(B), np.zeros(B), 0
    )
    return g, g1, g2


@njit(cache=True)
def band_layers_range(k_from, k_to, phi, x, lo, parallel, g, g1, g2, j0):
    """Layers ``k_from .. k_to`` of :func:`band_layers` from layer ``k_from - 1``'s ``(g, g1, g2)`` and floor ``j0``.

    Returns the last layer's arrays and floor: calling it on consecutive
    ranges gives the same bits as one call (the caller can then be
    interrupted between ranges).
    """
    B = x.shape[0]
    g = g.copy()
    g1 = g1.copy()
    g2 = g2.copy()
    ng = np.empty(B)
    ng1 = np.empty(B)
    ng2 = np.empty(B)
    tl = np.empty(B)
    td = np.empty(B)
    tdd = np.empty(B)
    zk = np.zeros(B)
    # the first knot whose block is wider than one offset, less the stencil's reach
    jb = B
    for j in range(1, B):
        if x[j] - x[j - 1] > 1:
            jb = j
            break
    js = max(jb - 3, 0)
    for k in range(k_from, k_to + 1):
        v = j0  # the previous layer has values from knot v up
        cand = min(max(lo[k - 1], v), max(B - 5, 0))
        if cand > v and g[cand + 1] - g[cand] >= FLOOR_MIN_RISE:
            j0 = cand
        cz = _ZC * k
        for i in range(max(js, j0), B):
            zk[i] = math.log(x[i] + cz)
        # unit blocks: every offset is a knot (exact)
        for j in range(j0 + 1, min(jb, B)):
            tau = k / (k + x[j])
            tl[j] = g[j] + phi * tau
            td[j] = g1[j] + tau
            tdd[j] = g2[j]
        # stencils start at j0 + 1 above a floor (at 0 without one, as in the full pass)
        vs = j0 + 1 if j0 > 0 else 0
        w0 = max(jb, j0 + 1)
        if w0 <= B - 1:
            if parallel and B - w0 >= _PARALLEL_MIN_BLOCKS:
                _blocks_parallel(k, phi, x, zk, w0, B - 1, g, g1, g2, tl, td, tdd, vs)
            else:
                _blocks_serial(k, phi, x, zk, w0, B - 1, g, g1, g2, tl, td, tdd, vs)
        if j0 == 0:  # offset 0: nothing below it
            l = g[0] + phi
            d = g1[0] + 1.0
            dd = g2[0]
        else:
            l, d, dd = _below(k, phi, x, j0, g, g1, g2, B)
        ng[j0] = l
        ng1[j0] = d
        ng2[j0] = dd
        for j in range(j0 + 1, B):
            l, d, dd = _join(l, d, dd, tl[j], td[j], tdd[j])
            ng[j] = l
            ng1[j] = d
            ng2[j] = dd
        g, ng = ng, g
        g1, ng1 = ng1, g1
        g2, ng2 = ng2, g2
    return g, g1, g2, j0


# --- the floors of the layers ------------------------------------------------
FLOOR_T = 40.0  # nats: the floor leaves out a tilted probability of d_k below e^-T
FLOOR_MARGIN = 14  # fine knots kept below the floor (see band_layers)
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
    """Knot indices into ``x`` for :func:`band_layers`: ``margin`` knots below the floors."""
    fl = chord_floors(P, phi, xc, stride, T)
    B = x.shape[0]
    lo = np.empty(P, np.int64)
    for k in range(P):
        j = np.searchsorted(x, fl[k], side="right") - 1 - margin
        lo[k] = min(max(j, 0), max(B - 5, 0))
    return lo
