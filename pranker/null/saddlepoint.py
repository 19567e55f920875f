r"""The tail of the null AP by the second-order saddlepoint on the exact CGF.

For S = P * AP under random ranking, the exact cumulant generating function
``K(phi) = log E[e^{phi S}]`` and its first four derivatives come from one
forward recursion (:func:`pranker._numba.tilt.tilt_moments`, ``O(P (N - P +
1))``). At the saddle point ``K'(phi) = s`` the Lugannani–Rice formula with
Daniels' second-order term (Lugannani & Rice 1980; Daniels 1987, eq. 4.6)
reads

.. math::

    P(S \ge s) \approx 1 - \Phi(w) + \varphi(w) \left[ \frac1u - \frac1w
      + \frac1u \left( \frac{\lambda_4}{8} - \frac{5 \lambda_3^2}{24} \right)
      - \frac{\lambda_3}{2 u^2} - \frac1{u^3} + \frac1{w^3} \right],

with ``w = sign(phi) sqrt(2 (phi s - K(phi)))``, ``u = phi sqrt(K''(phi))``
and the standardised cumulants ``lambda_j = K^{(j)}(phi) / K''(phi)^{j/2}``
of the tilted law. The lower tail is the upper tail of ``-S`` (``w``, ``u``
and ``lambda_3`` change sign). Logs throughout: ``1 - Phi(w)`` is carried as
``phi(w) sqrt(pi / 2) erfcx(w / sqrt 2)``, so p-values far below 1e-308 keep
their digits.

Finding the saddle point cheaply
--------------------------------
Each evaluation is a pass over ``P (N - P + 1)`` cells, so the search stops
early: Newton steps in ``log |phi|`` (:meth:`TiltEngine.saddle_search`) until
``|K'(phi) - s|`` is within 0.05 tilted standard deviations, then one more
Newton step in ``phi``, where a single pass carries four derivatives
centred at ``s``. From there the exact saddle point is a Taylor step away:
with ``m = K'(phi) - s`` and ``kappa_j`` the cumulants at ``phi``, the step
``delta`` solves ``m + kappa_2 delta + kappa_3 delta^2 / 2 = 0``, and

.. math::

    \phi s - K(\phi) \big|_{\hat\phi}
      = -\left[ (K(\phi) - \phi s) + m \delta + \kappa_2 \delta^2 / 2
      + \kappa_3 \delta^3 / 6 + \kappa_4 \delta^4 / 24 \right],

``K''(hat phi) = kappa_2 + kappa_3 delta + kappa_4 delta^2 / 2``,
``K'''(hat phi) = kappa_3 + kappa_4 delta``. Since ``phi s - K(phi)`` is
stationary at the saddle point, the error left in ``w`` is ``O(kappa_5
delta^5)``; ``lambda_3`` and ``lambda_4`` are read at the pass's ``phi``,
within ``|delta| sqrt(kappa_2) ~ 1e-3`` of the saddle point after the last
Newton step.

Accuracy
--------
The formula is asymptotic in the number of positives; what spoils it is the
discreteness of the top positives. The first positive's rank is roughly
geometric with mean N / P, so its term ``1 / r_1`` is a lumpy part of S
unless it is small against S's spread, which grows like P: the error is
governed by ``rho = N / P^2`` (and, at a fixed rho, grows with N / P).
Measured against the tilted estimator at 0.4 % relative standard error
(``benchmarks/calibration_saddlepoint.py``; docs/calibration.md): where
``rho <= 0.1``, ``N / P <= 25`` and P >= 50 the log10 error stayed within
:data:`pranker.null.choice.SADDLEPOINT_LOG10_BOUND` up to 90 % of the way
from the mean to the top of the support, both tails; at ``rho`` of 1 and more it
reaches 0.2-0.9 in log10 (a factor up to 8). That bound is what a p-value
of this method reports as its ``pvalue_interval`` inside the calibrated
region (:func:`pranker.null.choice.saddlepoint_log10_bound`). Beyond it
(``rho`` up to 10, N / P up to 1000) the lumpiness fades again deep in the
tail, once the tilted law pins the top positives to the top ranks: where
the share of the tilted variance carried by their jumps
(:func:`top_lumpiness`) is below
:data:`pranker.null.choice.SADDLEPOINT_MAX_LUMP` the error stayed within
0.008, and such thresholds report the bound
:data:`pranker.null.choice.SADDLEPOINT_PINNED_LOG10_BOUND`
(:func:`pranker.null.choice.saddlepoint_pinned_region`). Elsewhere the
method reports no interval.

Many positives beyond the exact recursion
-----------------------------------------
Beyond ``1e8`` cells ``P (N - P + 1)`` a pass of the exact recursion takes
seconds to minutes. There the same first-order formula runs on cheaper
CGFs (:mod:`pranker.null.large_p`): the accurate compressed knots up to
2*10^5 positives, the problem scaled down and extrapolated in P beyond.

References
----------
R. Lugannani and S. Rice, "Saddle point approximation for the distribution of
the sum of independent random variables", Adv. Appl. Prob. 12 (1980) 475–490.
H. E. Daniels, "Tail probability approximations", International Statistical
Review 55 (1987) 37–48.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from .._docs import fill_doc
from .._numba.tilt import tilt_moments, top_pinned
from .._progress import BAR_SECONDS, progress_bar
from .._results import renamed_parameters
from .base import NULL_DOCS, NullDistribution, PValue, vectorize
from .budget import check_work, warn_capped
from .cgf import GUESS_TOL, KnotsCGF, ScaledCGF, scaled_guess
from .choice import (
    DEFAULT_MAX_WORK,
    DEFAULT_RTOL,
    DEFAULT_SEED,
    SADDLEPOINT_MAX_LUMP,
    saddlepoint_answers,
    saddlepoint_at,
    saddlepoint_backend,
    within_rtol,
)
from .exact import ExactNull
from .large_p import LargePSaddle, large_p_cgf, large_p_tail, log_sf_lugannani_rice
from .logspace import pow10
from .tilt import TiltEngine, tilt_engine
from .tilt_null import TiltNull

__all__ = [
    "SaddlepointNull",
    "LargePSaddle",
    "SaddlepointTail",
    "log_sf_lugannani_rice",
    "log_sf_second_order",
    "node_tail",
    "saddlepoint_tail",
    "top_lumpiness",
]

_LN10 = math.log(10.0)
# The search stops within this many tilted standard deviations of the saddle point; a
# Newton step then lands within ~1e-3 of them. The four-derivative pass must be that
# close: the second-order term is a small difference of terms in lambda_3 and lambda_4,
# and lambda_4 moved from 0.56 to 0.81 over 0.3 standard deviations at N = 5,000,
# P = 500, s 3 sd above the mean (the Taylor step corrects w and u, not that).
_SEARCH_TOL = 0.05
# ... except deep in the tail, where the second-order term (of order 1 / u^2, u = phi
# sqrt(K'')) is small: when the first pass (at the scaled-down problem's guess) has u >=
# _SEARCH_TOL_U, the search accepts it within one tilted standard deviation, and the
# four-derivative pass follows one Newton step later. Where that pass lands more than
# _SEARCH_TOL sd from the saddle point (S lumpy: a large u need not mean a smooth tail),
# the search goes on from there. What this moved, against the stored calibration truths:
# docs/calibration.md, "A shorter search".
_SEARCH_TOL_U = 20.0
# Thresholds of one (N, P) read their saddlepoint off a lattice of tilts (node_tail): the
# nodes are at most this many tilted standard deviations apart, and a node is used when the
# Taylor step from it to the saddle point is at most _NODE_ACCEPT of them (the search's own
# tolerance, _SEARCH_TOL, for its last pass).
_NODE_SPACING = 0.05
_NODE_ACCEPT = 0.05
# positives of the scaled-down problem that gives the search its first point
_GUESS_POSITIVES = 64
# ... solved to GUESS_TOL of its own tilted standard deviations (pranker.null.cgf)
# a progress bar when this many passes of this many ns per cell would pass BAR_SECONDS
_PASSES_TYPICAL = 5
_NS_PER_CELL = 5.0


@dataclass(frozen=True)
class SaddlepointTail:
    """A saddlepoint tail probability and the quantities behind it.

    Attributes
    ----------
    log_p : float
        Natural log of the second-order approximation (the first-order one
        where the second-order term breaks down: ``order`` says which).
    log_p_first : float
        Natural log of the first-order Lugannani–Rice approximation.
    order : int
        2, or 1 where the bracket of the second-order formula was not
        positive (far outside the calibrated region).
    w, u : float
        The signed root of the deviance and ``phi sqrt(K'')`` at the saddle point.
    lambda3, lambda4 : float
        Standardised third and fourth cumulants of the tilted law there.
    phi : float
        The saddle point.
    passes : int
        Forward recursions used (read off the lattice of :func:`node_tail`:
        those not cached before, 0 when other thresholds made them).
    """

    log_p: float
    log_p_first: float
    order: int
    w: float
    u: float
    lambda3: float
    lambda4: float
    phi: float
    passes: int

    @property
    def log10_pvalue(self) -> float:
        return min(self.log_p / _LN10, 0.0)


def log_sf_second_order(w: float, u: float, lambda3: float, lambda4: float) -> float | None:
    """Natural log of the second-order Lugannani–Rice upper tail (Daniels 1987).

    None where the formula does not apply: ``w`` or ``u`` at 0 (the mean, or a
    degenerate tilted law), or a bracket that is not positive.
    """
    from scipy.special import erfcx, ndtr

    if w == 0.0 or u == 0.0 or not (math.isfinite(w) and math.isfinite(u)):
        return None
    extra = (
        (lambda4 / 8.0 - 5.0 * lambda3 * lambda3 / 24.0) / u
        - lambda3 / (2.0 * u * u)
        - 1.0 / u**3
        + 1.0 / w**3
    )
    log_pdf = -0.5 * w * w - 0.5 * math.log(2.0 * math.pi)
    corr = 1.0 / u - 1.0 / w + extra
    if w > 0.0:
        inner = math.sqrt(math.pi / 2.0) * float(erfcx(w / math.sqrt(2.0))) + corr
        if not inner > 0.0:
            return None
        return min(log_pdf + math.log(inner), 0.0)
    val = float(ndtr(-w)) + math.exp(log_pdf) * corr
    if not 0.0 < val <= 1.0:
        return None
    return math.log(val)


def _cumulants(m1: float, m2: float, m3: float, m4: float) -> tuple[float, float, float, float]:
    """Mean and cumulants 2-4 from the raw moments ``E[(S - c)^j]`` about any centre ``c``."""
    k2 = m2 - m1 * m1
    k3 = m3 - 3.0 * m2 * m1 + 2.0 * m1**3
    k4 = m4 - 4.0 * m3 * m1 - 3.0 * m2 * m2 + 12.0 * m2 * m1 * m1 - 6.0 * m1**4
    return m1, k2, k3, k4


def from_pass(
    engine: TiltEngine, phi: float, s: float, upper: bool, passes: int
) -> SaddlepointTail:
    """The tail at ``s`` from one four-derivative pass at ``phi`` near its saddle point.

    Steps from ``phi`` to the saddle point by the Taylor expansion of the
    module docstring, then evaluates both formulas.
    """
    log_zc, m1, m2, m3, m4 = tilt_moments(engine.N, engine.P, float(phi), float(s))
    h = log_zc - engine.log_comb  # K(phi) - phi s
    m, k2, k3, k4 = _cumulants(m1, m2, m3, m4)
    return _from_cumulants(engine, phi, s, upper, passes, h, m, k2, k3, k4)


def _from_cumulants(engine, phi, s, upper, passes, h, m, k2, k3, k4, k5=None) -> SaddlepointTail:
    """:func:`from_pass` from ``h = K(phi) - phi s``, ``m = K'(phi) - s`` and the cumulants
    ``k2 .. k4`` at ``phi`` (and ``k5``, if known: then the step and the cumulants at the
    saddle point take one more term, and the step solves the cubic by two Newton steps)."""
    # the step to the saddle point: m + k2 d + k3 d^2 / 2 = 0, the root nearest 0
    d = -m / k2
    disc = k2 * k2 - 2.0 * k3 * m
    if k3 != 0.0 and disc > 0.0:
        d = -2.0 * m / (k2 + math.sqrt(disc))  # the stable form of the small root
    if k5 is None:
        h_hat = h + m * d + k2 * d * d / 2.0 + k3 * d**3 / 6.0 + k4 * d**4 / 24.0
        k2_hat = max(k2 + k3 * d + k4 * d * d / 2.0, 0.0)
        k3_hat = k3 + k4 * d
        k4_hat = k4
    else:
        for _ in range(2):  # K'(phi + d) - s = 0 with the terms in k4 and k5
            g = m + k2 * d + k3 * d * d / 2.0 + k4 * d**3 / 6.0 + k5 * d**4 / 24.0
            dg = k2 + k3 * d + k4 * d * d / 2.0 + k5 * d**3 / 6.0
            if dg > 0.0:
                d -= g / dg
        h_hat = (
            h + m * d + k2 * d * d / 2.0 + k3 * d**3 / 6.0 + k4 * d**4 / 24.0 + k5 * d**5 / 120.0
        )
        k2_hat = max(k2 + k3 * d + k4 * d * d / 2.0 + k5 * d**3 / 6.0, 0.0)
        k3_hat = k3 + k4 * d + k5 * d * d / 2.0
        k4_hat = k4 + k5 * d
    phi_hat = phi + d
    w = math.copysign(math.sqrt(max(-2.0 * h_hat, 0.0)), phi_hat)
    u = phi_hat * math.sqrt(k2_hat)
    lam3 = k3_hat / k2_hat**1.5 if k2_hat > 0.0 else 0.0
    lam4 = k4_hat / (k2_hat * k2_hat) if k2_hat > 0.0 else 0.0
    if not upper:  # P(S <= s) = P(-S >= -s)
        w, u, lam3 = -w, -u, -lam3
    z = (s - engine.mean_s) / engine.sd_s * (1.0 if upper else -1.0)
    first = log_sf_lugannani_rice(z, w, u)
    second = log_sf_second_order(w, u, lam3, lam4)
    return SaddlepointTail(
        log_p=first if second is None else second,
        log_p_first=first,
        order=1 if second is None else 2,
        w=w,
        u=u,
        lambda3=lam3,
        lambda4=lam4,
        phi=phi_hat,
        passes=passes + 1,
    )


def _node(engine: TiltEngine, sign: int, j: int, i: int, n: int, ka: float, kb: float):
    """``(phi, c, K(phi) - phi c, K'(phi) - c, k2, k3, k4)`` at part ``i`` of ``n`` of cell ``j`` (cached)."""
    node = engine._nodes.get((sign, j, n, i))
    if node is None:
        pa, pb = engine.grid_phi(sign * (j - 0.5)), engine.grid_phi(sign * (j + 0.5))
        phi = pa + (i + 0.5) * (pb - pa) / n
        c = 0.5 * (ka + kb)
        log_zc, m1, m2, m3, m4 = tilt_moments(engine.N, engine.P, float(phi), float(c))
        node = (phi, c, log_zc - engine.log_comb, *_cumulants(m1, m2, m3, m4))
        engine._nodes[(sign, j, n, i)] = node
    return node


def node_tail(engine: TiltEngine, s: float, upper: bool = True) -> SaddlepointTail | None:
    r"""The tail at ``s`` from a fixed lattice of tilts (None: no node fits; the caller searches).

    The lattice is a function of (N, P) alone, so every threshold of one
    (N, P) reads the same few passes. The cell of the tilt's grid that holds
    the saddle point of ``s`` (:meth:`TiltEngine.grid_index`, whose cell
    edges and their ``K'``, ``K''`` are cached) is cut into ``n`` equal
    parts in ``phi``, each at most :data:`_NODE_SPACING` tilted standard
    deviations wide (the larger ``sqrt(K'')`` of the two edges times the
    cell's width, over ``n``); a node is the middle of a part. Linear
    interpolation of ``K'`` between the edges picks the part of the saddle
    point; the node's four-derivative pass (centred at the middle of the
    cell's ``K'`` values, cached) gives, for any ``s``, ``K - phi s`` and
    ``K' - s`` there by a shift, and the Taylor step of :func:`from_pass`
    goes to the saddle point. It takes the fifth and sixth cumulants that
    make the Taylor series of ``K''`` from the node meet ``K''`` at both
    cell edges, so that ``lambda_4`` is read at the saddle point, not at the
    node: near the bulk it moved by ~2 per tilted standard deviation at N =
    1,000, P = 100, and the second-order term divides it by a small ``u``.
    The node is used when that step is at most :data:`_NODE_ACCEPT` tilted
    standard deviations; else the next node on the side the step points to
    is tried once, and beyond that (S lumpy, a threshold within the first
    cell of the mean, or the compressed proposal's edges, which are not
    exact) the answer is None. Against a saddle point solved to 1e-13 the
    answers stay as close as those of the search (docs/calibration.md).
    """
    if engine.compressed:
        return None
    sign = 1 if s >= engine.mean_s else -1
    j = engine.grid_index(s, sign, guess=lambda: _first_guess(engine, s)[0])
    if j < 1:
        return None
    ka, kb = engine._k1_edge(j - 1, sign), engine._k1_edge(j, sign)
    va, vb = engine._k2_edge(j - 1, sign), engine._k2_edge(j, sign)
    if not (math.isfinite(ka) and math.isfinite(kb) and va > 0.0 and vb > 0.0 and ka != kb):
        return None
    pa, pb = engine.grid_phi(sign * (j - 0.5)), engine.grid_phi(sign * (j + 0.5))
    width = abs(pb - pa) * math.sqrt(max(va, vb))
    n = max(1, math.ceil(width / _NODE_SPACING))
    f = min(max((s - ka) / (kb - ka), 0.0), 1.0)
    i = min(int(f * n), n - 1)
    for _ in range(2):
        node = _node(engine, sign, j, i, n, ka, kb)
        phi, c, h_c, m_c, k2, k3, k4 = node
        if not k2 > 0.0:
            return None
        m = m_c + (c - s)  # K'(phi) - s
        if abs(m) / math.sqrt(k2) <= _NODE_ACCEPT:
            k5 = _fifth_cumulant(phi, k2, k3, k4, (pa, va), (pb, vb))
            return _from_cumulants(engine, phi, s, upper, 0, h_c - phi * (s - c), m, k2, k3, k4, k5)
        i += 1 if -m * (pb - pa) > 0.0 else -1
        if not 0 <= i < n:
            return None
    return None


def _fifth_cumulant(phi, k2, k3, k4, edge_a, edge_b) -> float:
    """``K^(5)(phi)`` such that ``K''`` to the sixth cumulant meets ``K''`` at both edges.

    ``K''(phi + e) = k2 + k3 e + k4 e^2 / 2 + k5 e^3 / 6 + k6 e^4 / 24`` at the
    two cell edges ``(phi_e, K''(phi_e))``: two linear equations in ``k5`` and
    ``k6``. 0 when they are degenerate.
    """
    rows = []
    for p_e, v_e in edge_a, edge_b:
        e = p_e - phi
        rows.append((e**3 / 6.0, e**4 / 24.0, v_e - k2 - k3 * e - k4 * e * e / 2.0))
    (a1, b1, r1), (a2, b2, r2) = rows
    det = a1 * b2 - a2 * b1
    if det == 0.0 or not math.isfinite(det):
        return 0.0
    return (r1 * b2 - r2 * b1) / det


def _newton_step(phi: float, s: float, k1: float, k2: float) -> float:
    """``phi`` moved by one Newton step towards ``K'(phi) = s`` (quadratic convergence from
    within the search's tolerance), unless the step would cross 0 or more than halve
    ``phi`` (then ``phi`` itself)."""
    if k2 > 0.0 and phi != 0.0:
        step = (s - k1) / k2
        if abs(step) <= 0.5 * abs(phi):
            return phi + step
    return phi


def saddlepoint_tail(
    engine: TiltEngine, s: float, upper: bool = True, progress: bool | None = False
) -> SaddlepointTail:
    """``P(S >= s)`` (``upper``) or ``P(S <= s)`` by the second-order saddlepoint.

    ``s`` must lie strictly inside the support of S, on the side of the
    mean its tail names (the caller handles the mean's other side, where
    the tail is above 1/2, as ``1 -`` the opposite tail or directly: the
    formula holds on both sides, only its cancellation differs).
    """
    # a progress bar (counting passes) where they are predicted to take more than ~2 s
    cells = engine.P * (engine.N - engine.P + 1)
    slow = _PASSES_TYPICAL * _NS_PER_CELL * 1e-9 * cells > BAR_SECONDS
    with progress_bar(_PASSES_TYPICAL, "saddlepoint passes", progress if slow else False) as bar:
        if upper:
            made = len(engine._k1_cache) + len(engine._nodes)
            out = node_tail(engine, s, upper)
            if out is not None:
                # the passes this threshold made (cell edges and nodes not cached before)
                passes = len(engine._k1_cache) + len(engine._nodes) - made
                bar.update(passes)
                return dataclasses.replace(out, passes=passes)
        phi0, _ = _first_guess(engine, s)
        phi, _, k1, k2, passes = engine.saddle_search(
            s, tol=_SEARCH_TOL, phi0=phi0, bar=bar, tol_u=_SEARCH_TOL_U
        )
        phi = _newton_step(phi, s, k1, k2)
        out = from_pass(engine, phi, s, upper, passes)
        bar.update(1)
        if k2 > 0.0 and abs(out.phi - phi) * math.sqrt(k2) > _SEARCH_TOL:
            # the search took the guess's pass loosely (deep in the tail), but the
            # four-derivative pass landed farther than _SEARCH_TOL sd from the saddle
            # point (S is lumpy there): search on from the saddle point it found
            phi, _, k1, k2, more = engine.saddle_search(s, tol=_SEARCH_TOL, phi0=out.phi, bar=bar)
            out = from_pass(engine, _newton_step(phi, s, k1, k2), s, upper, out.passes + more)
            bar.update(1)
    return out


def _first_guess(engine: TiltEngine, s: float) -> tuple[float | None, int]:
    """A first ``phi`` from the same AP's saddle point with ~8 times fewer positives and items.

    ``K_S(phi)`` grows about in proportion to P at a fixed N / P (S = P AP is
    a sum of P precisions), so ``K_S'(phi) = s`` and the scaled-down
    problem's ``K'(phi) = AP P'`` have nearly the same root in ``phi`` (not
    in ``phi sigma``): at N = 5,000, P = 500 the guess from (625, 62) was
    within 2-10 % of the saddle point and 0.1-1 tilted standard deviations
    of ``s``, for 1/64 of the cost of a pass. Returns ``(None, 0)`` when P is
    too small to scale down or the AP falls outside the smaller support.
    """
    P = engine.P
    if P < 2 * _GUESS_POSITIVES:
        return None, 0
    return scaled_guess(engine.N, P, s, max(_GUESS_POSITIVES, P // 8), GUESS_TOL)


def top_lumpiness(engine: TiltEngine, phi: float, k2: float) -> float:
    r"""The share of the tilted variance of S carried by the jumps of the top positives.

    Positive k moves S by ``1 / (k + 1)`` between offsets 0 and 1 (ranks k
    and k + 1). With ``p_k = P_phi(d_1 = ... = d_k = 0)`` the probability
    that the tilted law puts the top k positives at ranks 1..k
    (:func:`pranker._numba.tilt.top_pinned`, one backward pass), the
    Bernoulli part of those jumps has variance about ``p_k (1 - p_k) / (k +
    1)^2``; their sum over ``k``, divided by ``K''(phi)``, is near 0 both
    when the top positives are pinned (``p_k`` near 1: deep in the tail)
    and when their jumps are small against the spread of S (many positives
    for their share), and large where S is lumpy — where the saddlepoint,
    a smooth approximation, fails. Calibrated against the tilted estimator
    (:data:`pranker.null.choice.SADDLEPOINT_MAX_LUMP`).
    """
    P = engine.P
    if not (k2 > 0.0 and math.isfinite(phi)):
        return math.inf
    log_p = np.empty(P)
    top_pinned(engine.N, P, float(phi), log_p)
    p = np.exp(np.minimum(log_p, 0.0))
    k = np.arange(1, P + 1, dtype=np.float64)
    return float(np.sum(p * (1.0 - p) / (k + 1.0) ** 2) / k2)


def _saddlepoint_pvalue(lp: float, interval: tuple[float, float] | None) -> PValue:
    """A saddlepoint p-value of log10 ``lp`` with its log10 ``interval`` (None: no bound)."""
    if interval is None:
        return PValue.approximate(pow10(lp), "saddlepoint", lp)
    lo, hi = interval
    return PValue(
        pvalue=pow10(lp),
        log10_pvalue=lp,
        pvalue_interval=(pow10(lo), pow10(hi)),
        log10_pvalue_interval=(lo, hi),
        pvalue_rse=None,
        method="saddlepoint",
    )


@fill_doc(NULL_DOCS)
class SaddlepointNull(NullDistribution):
    """Second-order Lugannani–Rice saddlepoint on the exact CGF (:mod:`pranker.null.saddlepoint`).

    Deterministic: a few forward recursions, ``O(P (N - P + 1))`` each.
    Where it has been calibrated — ``N <= 0.1 P^2`` and ``N <= 25 P``
    (many positives for their share), at least 50 positives, ``P (N - P + 1) <= 1e8`` and a
    threshold below 90 % of the way from the null mean to the largest AP —
    its log10 error stayed within 0.01 (2.3 %) against the tilted estimator
    at 0.4-0.5 % relative standard error, from the body to 10^-1269
    (docs/calibration.md); there a p-value
    reports that bound as its ``pvalue_interval``. With fewer positives for
    their share (``N`` up to ``10 P^2`` and ``1000 P``, 4e6 to 1e8 cells)
    it is trusted deep in the tail only, where the tilted law pins the top
    positives to the top ranks (:func:`pranker.null.saddlepoint.top_lumpiness`
    below :data:`pranker.null.choice.SADDLEPOINT_MAX_LUMP`): there its
    error stayed within 0.008, and a p-value reports the bound 0.015
    (3.5 %). Elsewhere it reports no interval: with few positives among
    many items it is off by a factor up to about 8 at N = 10^5, P = 100
    near the bulk, and near the top of the support (a handful of
    placements) by up to 40 %. ``P = 1`` and ``P = N`` are exact.
    Beyond ``1e8`` cells ``P (N - P + 1)`` the CGF comes from the accurate
    compressed pass (:class:`LargePSaddle`, first
    order; its cost does not grow with N) instead of the exact recursion,
    whose passes would take minutes there.

    Parameters
    ----------
    n, n_pos : int
        Number of instances N and of positives P, ``1 <= P <= N``.
    seed : int, optional
        Seed of the random rankings behind ``ppf`` and ``interval`` (and of
        the tilted estimator with ``tilt_beyond``).
    tilt_beyond : bool
        Outside the calibrated region (or, beyond ``N = 0.1 P^2``, where the
        top positives are not pinned), or where its bound is wider than
        twice ``rtol``, answer with the tilted estimator (:class:`TiltNull`)
        instead; ``method`` on each p-value says which answered. This is
        what ``method="auto"`` uses (default False: the saddlepoint everywhere).
    rtol, max_draws, max_work
        Passed to the tilted estimator with ``tilt_beyond``.
    progress : bool or None
        A progress bar (tqdm) for p-values predicted to take more than about
        2 s (the passes here, or the tilt's draws): always (True), never
        (False), or only when stderr is a terminal (None, the default).

    Attributes
    ----------
    %(null_attributes)s

    See Also
    --------
    TiltNull : Unbiased estimates with a stated error, everywhere.

    References
    ----------
    .. [1] R. Lugannani and S. Rice, "Saddle point approximation for the
       distribution of the sum of independent random variables", Adv. Appl.
       Prob. 12 (1980) 475-490.
    .. [2] H. E. Daniels, "Tail probability approximations", International
       Statistical Review 55 (1987) 37-48.

    Examples
    --------
    >>> exact = ExactNull(40, 4).pvalue(0.6).pvalue
    >>> sp = SaddlepointNull(40, 4).pvalue(0.6)
    >>> sp.method, sp.pvalue_interval  # outside the calibrated region: no bound
    ('saddlepoint', None)
    >>> bool(abs(sp.pvalue / exact - 1) < 0.05)
    True
    >>> sp = SaddlepointNull(5000, 500).pvalue(0.2)   # inside: a measured bound
    >>> lo, hi = sp.pvalue_interval
    >>> round(hi / sp.pvalue, 4), sp.pvalue_rse
    (1.0233, None)
    """

    method = "saddlepoint"
    interval_method = "saddlepoint"

    @renamed_parameters(N="n", P="n_pos")
    def __init__(
        self,
        n: int,
        n_pos: int,
        *,
        seed: int | None = None,
        tilt_beyond: bool = False,
        rtol: float | None = None,
        max_draws: int | None = None,
        max_work: int | None = None,
        progress: bool | None = None,
    ):
        N, P = n, n_pos  # the paper's notation in the formulas below
        super().__init__(N, P)
        self.seed = DEFAULT_SEED if seed is None else int(seed)
        self.tilt_beyond = bool(tilt_beyond)
        self.rtol = DEFAULT_RTOL if rtol is None else float(rtol)
        self.max_draws = max_draws
        self.max_work = max_work
        self.progress = progress
        self._large_cgf: KnotsCGF | ScaledCGF | None = None  # quantiles beyond 1e8 cells

    @property
    def engine(self) -> TiltEngine:
        """The shared CGF and sampler of (N, P, seed) behind the passes (and the tilt, with ``tilt_beyond``)."""
        return tilt_engine(self.N, self.P, self.seed)

    def log10_bound(self, ap: float) -> float | None:
        """The measured bound on the log10 error at ``ap``, or None where none has been measured.

        Where the bound depends on the pinning of the top positives
        (:func:`pranker.null.choice.saddlepoint_at`, ``check_pinning``) this
        solves the saddle point: the work of a p-value.
        """
        return self._tail_and_bound(float(ap))[1]

    def _tail_and_bound(self, ap: float) -> tuple[SaddlepointTail | None, float | None, str]:
        """``(tail, bound, region)``: the measured log10 bound at ``ap`` (None: none), the
        saddlepoint tail when finding the bound needed it (None otherwise), and the plan's
        region there."""
        at = saddlepoint_at(self.N, self.P, ap)
        if not at.check_pinning:
            return None, at.saddlepoint_bound, at.region
        eng = tilt_engine(self.N, self.P, self.seed)
        tail = saddlepoint_tail(eng, ap * self.P, True, self.progress)
        k2 = (tail.u / tail.phi) ** 2 if tail.phi > 0.0 else 0.0
        # calibrated for the second-order formula (first order only where its bracket fails)
        pinned = tail.order == 2 and top_lumpiness(eng, tail.phi, k2) <= SADDLEPOINT_MAX_LUMP
        return tail, (at.saddlepoint_bound if pinned else None), at.region

    def _log_sf(self, ap: float) -> float:
        """Natural log of the saddlepoint upper tail at ``ap``."""
        from scipy.special import ndtr

        eng = tilt_engine(self.N, self.P, self.seed)
        s = ap * self.P
        z = (s - eng.mean_s) / eng.sd_s
        if abs(z) < 1e-4:
            return math.log(ndtr(-z))
        return saddlepoint_tail(eng, s, True, self.progress).log_p

    def _large_p_pvalue(self, ap: float, bound: float | None, region: str) -> PValue:
        """The p-value for many positives (:func:`.large_p.large_p_tail`) within the work budget.

        One object per threshold, so the answer is a function of the
        threshold alone. Its passes cost ``P B`` blocks whatever N (where the
        exact recursion's would cost ``P (N - P + 1)`` cells: minutes at
        10^10), computed on all threads (the same bits). A search stopped by
        ``max_work`` (default :data:`pranker.null.choice.DEFAULT_MAX_WORK`)
        reports the interval its passes prove
        (:meth:`LargePSaddle.bounded_tail`) and warns.
        """
        budget = DEFAULT_MAX_WORK if self.max_work is None else check_work(self.max_work)
        lp, interval, capped = large_p_tail(
            self.N, self.P, ap * self.P, bound, budget, self.progress, self.rtol
        )
        if capped:
            warn_capped(self.N, self.P, self.rtol, budget, math.inf, method="saddlepoint")
        elif self.tilt_beyond and interval is not None and region == "many items":
            half = max(lp - interval[0], interval[1] - lp)
            if not within_rtol(half, self.rtol):  # the wider bound where S is lumpy
                warn_capped(self.N, self.P, self.rtol, budget, math.inf, method="many items")
        return _saddlepoint_pvalue(lp, interval)

    @staticmethod
    def _lr(phi, s, k, k2, z):
        """log of first-order Lugannani–Rice at the saddle point ``phi`` of ``s``.

        Where the formula breaks down — ``u`` or ``w`` near 0 (``s`` near the
        mean, or the tilted law degenerate near the top of the support), or a
        result outside (0, 1] — the normal tail at ``w`` (or at the
        standardised ``z`` near the mean) is used instead.
        """
        w2 = 2.0 * (phi * s - k)
        w = math.copysign(math.sqrt(max(w2, 0.0)), phi)
        return log_sf_lugannani_rice(z, w, phi * math.sqrt(k2))

    def _at_phi(self, phi: float):
        """``(AP at the saddle point phi, log sf there)``: one pass (first order, for curves and
        quantiles): of the exact recursion up to 1e8 cells, beyond of the CGF the many-positives
        tails stand on (:func:`pranker.null.large_p.large_p_cgf`; the exact recursion would take
        minutes a pass there)."""
        eng = tilt_engine(self.N, self.P, self.seed)
        if saddlepoint_backend(self.N, self.P) == "layers":
            k, k1, k2 = eng.cgf(phi)
        else:
            if self._large_cgf is None:
                self._large_cgf = large_p_cgf(self.N, self.P)
            k, k1, k2 = self._large_cgf.cgf(phi)
        z = (k1 - eng.mean_s) / eng.sd_s
        return k1 / self.P, self._lr(phi, k1, k, k2, z)

    def pvalue(self, ap: float, conf_level: float = 0.95) -> PValue:
        known = self.known_pvalue(ap)
        if known is not None:
            return known
        ap = float(ap)
        tail, bound, region = self._tail_and_bound(ap)
        if self.tilt_beyond and not saddlepoint_answers(region, bound, self.rtol):
            tilt = TiltNull(
                self.N,
                self.P,
                rtol=self.rtol,
                seed=self.seed,
                max_draws=self.max_draws,
                max_work=self.max_work,
                progress=self.progress,
            )
            return tilt.pvalue(ap, conf_level=conf_level)
        if tail is None and saddlepoint_backend(self.N, self.P) in ("knots", "scaled"):
            return self._large_p_pvalue(ap, bound, region)
        lp = (self._log_sf(ap) if tail is None else tail.log_p) / _LN10
        return _saddlepoint_pvalue(
            lp, None if bound is None else (lp - bound, min(lp + bound, 0.0))
        )

    def cdf(self, ap):
        return vectorize(lambda a: 1.0 - self.pvalue(a).pvalue, ap)

    def ppf(self, q):
        if self.P == 1 or self.P == self.N:
            return ExactNull(self.N, self.P).ppf(q)

        def one(qq):
            if not (0.0 < qq < 1.0):
                if qq == 0.0:
                    return self.min_auprc
                if qq == 1.0:
                    return 1.0
                raise ValueError(f"quantile levels must be in [0, 1]; got {qq}.")
            # solve log sf_LR(phi) = log(1 - q) over the tilt phi (log sf decreases in
            # phi): each step is one recursion, no inner saddle-point search
            from scipy.special import ndtri

            target = math.log1p(-qq)
            sd = tilt_engine(self.N, self.P, self.seed).sd_s
            phi0 = float(ndtri(qq)) / sd
            if abs(phi0) < 1e-9:
                phi0 = 1e-9 / sd
            x0, (_, g0) = phi0, self._at_phi(phi0)
            g0 -= target
            step = abs(phi0)
            x1 = x0 + math.copysign(step, g0)  # g > 0: tail too heavy, tilt further
            a1, g1 = self._at_phi(x1)
            g1 -= target
            for _ in range(60):  # expand until bracketed
                if (g0 > 0.0) != (g1 > 0.0):
                    break
                step *= 2.0
                x0, g0 = x1, g1
                x1 = x0 + math.copysign(step, g0)
                a1, g1 = self._at_phi(x1)
                g1 -= target
            side = 0
            for _ in range(100):  # Illinois regula falsi
                x2 = (x0 * g1 - x1 * g0) / (g1 - g0)
                a2, g2 = self._at_phi(x2)
                g2 -= target
                if abs(a2 - a1) <= 1e-7 * math.sqrt(self.var) or g2 == 0.0:
                    return a2
                if (g2 > 0.0) == (g1 > 0.0):
                    x1, a1, g1 = x2, a2, g2
                    if side == -1:
                        g0 *= 0.5
                    side = -1
                else:
                    x0, g0 = x1, g1
                    x1, a1, g1 = x2, a2, g2
                    if side == 1:
                        g0 *= 0.5
                    side = 1
            return a1

        return vectorize(one, q)
