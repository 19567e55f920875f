r"""The cumulant generating function of S = P * AP under random ranking, on each representation.

Under random ranking the positives' ranks are a uniform P-subset of ``1..N``
and ``S = sum_k k / r_k``; ``K(phi) = log E[e^{phi S}]``. Two
representations compute ``K``, ``K'`` and ``K''`` behind the same small
interface (``N``, ``P``, ``mean_s``, ``sd_s``, ``log_comb`` and
``cgf(phi) -> (K, K', K'')``):

- :class:`LayersCGF`: the exact forward recursion over the positives, one
  prefix sum per positive (``O(P (N - P + 1))`` per pass; kernels in
  :mod:`pranker._numba.tilt`), with the saddle-point search on it. The
  tilted estimator (:class:`pranker.null.tilt.TiltEngine`) and the
  second-order saddlepoint stand on it.
- :class:`KnotsCGF`: the same recursion on compressed knots (every offset
  below ``knot_start``, then a geometric grid), with a cubic rule and
  Gauss-Legendre block sums accurate to about 1e-3 nats, each pass started
  at each layer's floor (:mod:`pranker._numba.cgf_knots`); its cost is
  ``P B`` blocks (``B`` about 250-420 knots) whatever N, and from
  10^4 up to 2*10^5 positives it leaps over layers (``3 P / 200`` exact layers and fewer).
  The saddlepoint for many positives beyond the exact recursion's reach
  stands on it.
- :class:`ScaledCGF`: ``K``, ``K'``, ``K''`` of the same problem scaled
  down to seven sizes of at most 8,000 positives with as many items
  per positive, each by the exact recursion, extrapolated in P to the
  problem's size (cost independent of N and P). Beyond the leaps' reach
  (more than 2*10^5 positives) the saddlepoint stands on it.
"""

from __future__ import annotations

import functools
import math
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np

from .._numba.cgf_knots import (
    FLOOR_MARGIN,
    FLOOR_STRIDE,
    FLOOR_T,
    band_layers_range,
    layer_floors,
    leap_layers,
)
from .._numba.compressed import compressed_knots
from .._numba.moments import null_moments_scalar
from .._numba.tilt import tilt_forward, tilt_forward_ends
from .choice import WORK_CGF_BLOCK, WORK_CGF_LAYER, WORK_FLOOR_BLOCK, WORK_LAYER_CELL
from .logspace import log_comb

__all__ = [
    "LayersCGF",
    "KnotsCGF",
    "ScaledCGF",
    "OutOfWork",
    "scaled_guess",
    "scaled_sizes",
    "solve_slope",
]

KNOT_START = 64  # every offset below this is a knot (KnotsCGF)
KNOT_EPS = 0.04  # geometric growth of the knots above it
# The knots of the chord-rule passes that find each layer's floor (pranker._numba.cgf_knots):
# at 0.16 the floors gave the same K, K', K'' to 5e-7 as at 0.08, at half the cost.
FLOOR_KNOT_START, FLOOR_KNOT_EPS = 16, 0.16
# Floors are found at the tilts 2^(i / 4) (and 0): a pass at phi uses those of the smallest
# such tilt >= phi (valid there: a floor found at a tilt holds at every smaller one), so the
# floors, and hence K, K' and K'', are a function of phi alone, whatever was computed before.
_FLOOR_GRID = 4
# A pass runs in pieces of this many blocks (about 0.25 s): Ctrl-C is seen between them.
_CHUNK_BLOCKS = 500_000
# KnotsCGF.first_guess: the saddle point of the problem scaled down to this many positives
# (fewer where its passes would take more than GUESS_CELLS cells: N / P > 30) ...
GUESS_POSITIVES = 256
GUESS_CELLS = 2_000_000
# ... solved to this many of its own tilted standard deviations; also the exact route's
# scaled-down guess (pranker.null.saddlepoint), whose passes cost 1/64 of a full one: tighter
# than the 0.3 of version 0.3, so that deep in the tail the first full pass is close enough
# more often (docs/calibration.md, "A shorter search")
GUESS_TOL = 0.2
# Leaping over layers (KnotsCGF, "Leaping over layers" there): from LEAP_MIN_POSITIVES
# (every P the compressed saddlepoint answers; at P = 1e4 log10 p moved by at most 6e-5)
# and up to LEAP_MAX_POSITIVES positives, after LEAP_START exact layers, three exact layers
# then a leap over min(LEAP_FRACTION k, LEAP_MAX) layers. Measured against the pass over every
# layer (docs/calibration.md, "Many positives at any depth"): log10 p within 4e-4 at N = 1e6,
# P = 1e5, but K off by 0.030 nats at N = 1e7, P = 1e6 (hence the upper limit); leaps of
# ~1,000 layers were unstable (the layers are stiff in k).
LEAP_MIN_POSITIVES = 10_000
LEAP_MAX_POSITIVES = 200_000
LEAP_START = 128
LEAP_FRACTION = 0.005
LEAP_MAX = 200
# ... with LEAP_FRACTION halved for every unit of tilt beyond LEAP_FULL_TILT, and no leap
# beyond LEAP_MAX_TILT: leaps of 0.005 k lost the layers' mass (NaN) from phi = 4.4 at
# N = 4e4 and 2e5, P = 2e4; 0.002 k held to 5, 0.001 k to 6, 0.0005 k to 7, each within
# 2e-6 nats of the pass over every layer (docs/calibration.md, "Leaping over layers")
LEAP_FULL_TILT = 3.0
LEAP_MAX_TILT = 7.0
# ScaledCGF: the largest scaled-down problem has at most SCALED_CELLS cells P_i (N_i - P_i + 1)
# and SCALED_MAX_POSITIVES positives, the others SCALED_STEP times fewer positives each,
# SCALED_SIZES in all (about 0.2 s a tilt on two threads). With 6 sizes of at most 2e7 cells the
# spreads at the sweep's sizes were 3-9 times larger (docs/calibration.md, "Beyond the leaps")
SCALED_CELLS = 40_000_000
SCALED_SIZES = 7
SCALED_STEP = math.sqrt(2.0)
SCALED_MAX_POSITIVES = 8_000
# ... and, where the spread alone widens an answer past twice rtol, one more search from its
# saddle point with problems of twice the positives (4 times the cells, a pass about 4 times
# the cost; at N = 1e7, P = 1e5 half-way the spread fell from 0.025 to 0.0043 nats in one pass)
SCALED_REFINE_CELLS = 4 * SCALED_CELLS
SCALED_REFINE_MAX_POSITIVES = 2 * SCALED_MAX_POSITIVES
GUESS_SIZE = 3  # ScaledCGF.first_guess: the saddle point of this scaled-down problem (0: largest)


class LayersCGF:
    """``K``, ``K'``, ``K''`` of S by the exact forward recursion, and its saddle point, for one (N, P).

    Parameters
    ----------
    N, P : int
        Instances and positives, ``2 <= P < N``.
    """

    def __init__(self, N: int, P: int):
        self.N = int(N)
        self.P = int(P)
        mean, var = null_moments_scalar(N, P, N - P)
        self.mean_s = mean * P  # E[S] under the null
        self.sd_s = math.sqrt(var) * P
        self.log_comb = log_comb(self.N, self.P)

    def cgf(self, phi: float, derivs: bool = True):
        """``(K(phi), K'(phi), K''(phi))`` of S, exactly (O(N P))."""
        c = self.mean_s
        log_zc, m1, m2, _ = tilt_forward(self.N, self.P, float(phi), c, derivs, False)
        k = log_zc - self.log_comb + phi * c
        if not derivs:
            return k, math.nan, math.nan
        return k, c + m1, max(m2 - m1 * m1, 0.0)

    def cgf_ends(self, phi: float, tail: int) -> np.ndarray:
        """Rows ``(K, K', K'')`` at ``phi`` for ``N - tail + 1 .. N`` items, from one pass."""
        c = self.mean_s
        ends = tilt_forward_ends(self.N, self.P, float(phi), c, int(tail))
        out = np.empty((tail, 3))
        for i in range(tail):
            n = self.N - tail + 1 + i
            m1, m2 = ends[i, 1], ends[i, 2]
            out[i] = (ends[i, 0] - log_comb(n, self.P) + phi * c, c + m1, max(m2 - m1 * m1, 0.0))
        return out

    def saddle(self, s: float, tol: float = 1e-10, max_iter: int = 100):
        """The saddle point ``phi`` with ``K'(phi) = s``: safeguarded Newton in ``log |phi|``.

        Returns ``(phi, K(phi), K''(phi))``. Newton steps in ``t = log |phi|``
        are capped at 2; a step leaving the bracket is replaced by bisection
        of the bracket in ``t``. (Regula falsi, used before, stalls where K'
        is strongly convex in ``t``: with few positives among many items the
        tilted law moves from "no positive at rank 1" (S below 1/2) to "a
        positive at rank 1" (S at least 1) within a short range of ``phi``,
        and the bracket end on the low side crept by 1 % a step, so the
        search ran out of steps far from the root.) Stops when
        ``|K' - s| <= tol sd_phi`` or the bracket is narrower than ``tol``
        in ``t``; ``s`` must lie strictly inside the support of S. Near the
        root Newton converges quadratically, so the tight default costs about
        one more recursion pass and makes the result independent of the path
        the search took (to about 1e-10 in log p).
        """
        phi, k, _, k2, _ = self.saddle_search(s, tol, max_iter)
        return phi, k, k2

    def saddle_search(
        self,
        s: float,
        tol: float = 1e-10,
        max_iter: int = 100,
        phi0: float | None = None,
        bar: Any = None,
        tol_u: float | None = None,
    ):
        """:meth:`saddle`'s search: ``(phi, K(phi), K'(phi), K''(phi), passes)`` at its last point.

        ``passes`` counts the recursions made; ``phi0`` (on the side of
        the mean ``s`` lies) replaces the default first point; ``bar`` (a
        progress bar) is advanced by one per recursion. With a loose
        ``tol`` (in tilted standard deviations) the caller finishes the step itself
        (:func:`pranker.null.saddlepoint.saddlepoint_tail`); with ``tol_u``
        the tolerance is one tilted standard deviation at the first point,
        ``phi0``, where ``u = |phi| sqrt(K'')`` is at least ``tol_u`` (later
        points of a search may have large ``u`` far from the saddle point
        where S is lumpy).
        """
        sign = 1.0 if s >= self.mean_s else -1.0
        if s == self.mean_s:
            k, k1, k2 = self.cgf(0.0)
            return 0.0, k, k1, k2, 1
        # t = log|phi|; K' is increasing in phi, so g(t) = sign (K'(sign e^t) - s) increases in t
        guessed = phi0 is not None and phi0 * sign > 0.0 and math.isfinite(phi0)
        if phi0 is not None and guessed:
            t = math.log(abs(phi0))
        else:
            phi_n = abs(s - self.mean_s) / (self.sd_s * self.sd_s)
            t = math.log(min(phi_n, 0.5 / self.sd_s))
        return solve_slope(
            self.cgf,
            s,
            t,
            sign,
            tol=tol,
            bracket_tol=tol,
            max_iter=max_iter,
            loose_u=tol_u if guessed else None,
            bar=bar,
        )


class _Budgeted:
    """Work charged against ``max_work`` (None: no bound), in the units of :mod:`.choice`."""

    max_work: int | None
    work: int

    def _charge(self, units: int) -> None:
        """Add ``units`` to ``work``, or raise :class:`OutOfWork` if that passes ``max_work``."""
        if self.max_work is not None and self.work + units > self.max_work:
            raise OutOfWork(self.work, units)
        self.work += units


class KnotsCGF(_Budgeted):
    """``K``, ``K'``, ``K''`` of S on accurate compressed knots, for one (N, P): cost independent of N.

    Parameters
    ----------
    N, P : int
        Instances and positives, ``2 <= P < N``.
    knot_start, knot_eps : optional
        The knots (defaults :data:`KNOT_START`, :data:`KNOT_EPS`).
    parallel : bool
        Compute the blocks of each layer on all threads (same result).
    progress : bool or None
        Kept for the saddlepoint's progress bar over the passes.
    leap : bool or None
        Leap over layers (below); None: from
        :data:`LEAP_MIN_POSITIVES` to :data:`LEAP_MAX_POSITIVES`
        positives (at N = 10^7, P = 10^6 the leaped K was off by 0.030 nats).
    max_work : int or None
        Work budget in the units of :mod:`pranker.null.choice`: each pass is
        charged the layers it computes and the blocks it visits
        (``WORK_CGF_LAYER``, ``WORK_CGF_BLOCK`` each), each search
        for the layers' floors its two chord passes (``WORK_FLOOR_BLOCK``
        per coarse block). A pass or floor search that would take the work
        (``work``) past the budget raises :class:`OutOfWork` before it
        starts, so what was computed is a function of the call alone
        (None: no bound).

    Leaping over layers
    -------------------
    For large k a layer ``L_k = log G_k`` changes smoothly with k at every
    knot (at ``phi = 0``, ``L_k(d) = log C(d + k, k)``: the increment ``D_k =
    L_k - L_{k-1}`` has ``d^j D / dk^j ~ k^-j``). After :data:`LEAP_START`
    exact layers the pass repeats: three exact layers (increments ``D_1,
    D_2, D_3``), then ``m = min(LEAP_FRACTION k, LEAP_MAX)`` layers at once by
    the quadratic (Newton backward-difference) extrapolation of the
    increments,

    .. math::

        L_{k+m} = L_k + m D_3 + \tfrac{m (m+1)}{2} (D_3 - D_2)
                  + \tfrac{m (m+1) (m+2)}{6} (D_3 - 2 D_2 + D_1),

    the same for the two phi-derivative rows, at the knots from the layer's
    floor up (nothing below a floor is read). The truncation error per leap
    is about ``m^4 D''' / 24``; summed, about ``0.09 (m / k)^3 P`` nats
    (measured: 1.1e-4 at P = 10^4 with ``m = 0.005 k``, nearly the same at
    every tilt). The cap on ``m`` is for stability: the one-layer map damps
    knot-to-knot modes within a layer or two, so as an ODE in k the layers are
    stiff, and an explicit leap of m layers multiplies what is left of those
    modes by about ``m^3 / 6``; leaps of ~200 layers were stable, of ~1,000
    not. Cost: about ``3 ln(k_cap / LEAP_START) / LEAP_FRACTION + 3 P /
    LEAP_MAX`` exact layers instead of P.
    """

    def __init__(
        self,
        N: int,
        P: int,
        *,
        knot_start: int = KNOT_START,
        knot_eps: float = KNOT_EPS,
        parallel: bool = False,
        progress: bool | None = False,
        leap: bool | None = None,
        max_work: int | None = None,
    ):
        N, P = int(N), int(P)
        if not 2 <= P < N:
            raise ValueError(f"KnotsCGF: need 2 <= P < N, got N={N}, P={P}.")
        if knot_start < 4 or not knot_eps > 0.0:
            raise ValueError(
                f"KnotsCGF: need knot_start >= 4 and knot_eps > 0, got {knot_start}, {knot_eps}."
            )
        self.N, self.P = N, P
        self.log_comb = log_comb(N, P)
        mean, var = null_moments_scalar(N, P, N - P)
        self.mean_s = mean * P
        self.sd_s = math.sqrt(var) * P
        self.x = compressed_knots(N - P, int(knot_start), float(knot_eps))
        self.parallel = bool(parallel)
        auto_leap = LEAP_MIN_POSITIVES <= P <= LEAP_MAX_POSITIVES
        self.leap = auto_leap if leap is None else bool(leap)
        self.progress = progress
        self._bar = None
        self.passes = 0  # recursion passes made
        self.floor_passes = 0  # pairs of chord passes made to find the layers' floors
        self._floor_knots = compressed_knots(N - P, FLOOR_KNOT_START, FLOOR_KNOT_EPS)
        self._floors: dict[int | None, np.ndarray] = {}
        self.max_work = max_work
        self.work = 0  # units charged so far (passes and floor searches)
        self.points: list[tuple[float, float, float, float]] = []  # (phi, K, K', K'') per pass
        self._guesses: dict[float, float] = {}  # first_guess by threshold

    def leap_fraction(self, phi: float) -> float:
        """The leaps' ``m / k`` at ``phi`` (0: no leap): :data:`LEAP_FRACTION`, halved for every
        unit of tilt beyond :data:`LEAP_FULL_TILT`; none beyond :data:`LEAP_MAX_TILT`, below
        0, or without ``leap``."""
        if not (self.leap and 0.0 <= phi <= LEAP_MAX_TILT):
            return 0.0
        return LEAP_FRACTION * min(1.0, 2.0 ** (LEAP_FULL_TILT - phi))

    def pass_work(self, lo: np.ndarray, frac: float) -> int:
        """Work units of a pass from the floors ``lo``: the layers it computes (every one, or
        with leaps of ``frac k`` the exact ones) and their blocks from the floors up."""
        B = self.x.shape[0]
        left = B - lo[leap_schedule(self.P, frac) - 1] if frac > 0.0 else B - lo
        return int(left.shape[0]) * WORK_CGF_LAYER + int(left.sum()) * WORK_CGF_BLOCK

    @property
    def n_knots(self) -> int:
        return int(self.x.shape[0])

    def first_guess(self, s: float) -> float:
        """The search's first tilt for ``s`` above the mean (charged to ``work``).

        The saddle point of the problem scaled down to
        :data:`GUESS_POSITIVES` positives (fewer, down to 16, where its
        passes would exceed :data:`GUESS_CELLS` cells) with as many items per
        positive (:func:`scaled_guess`), at the same distance of AP from its
        null mean: ``K_S`` grows about in proportion to P at a fixed N / P,
        with a correction whose slope at ``phi = 0`` the shift to the small
        problem's mean removes (at N / P = 2-10, from 3 sd to half-way to
        the top, within 0.1-15 % of the saddle point, mostly within 1-4 %:
        docs/calibration.md). Where that problem's support
        does not hold it, the normal guess ``(s - mean) / var``, at most
        ``log(N / P)`` (beyond it the tilt pins positives to the top ranks
        one after another, ``e^phi P / N > 1``, and the normal guess
        overshoots by far).
        """
        if s in self._guesses:  # asked again (the route's choice asks first): not charged again
            return self._guesses[s]
        phi = None
        # at most GUESS_POSITIVES positives and about GUESS_CELLS cells per pass
        p_small = min(GUESS_POSITIVES, math.isqrt(GUESS_CELLS * self.P // self.N))
        if p_small >= 16 and self.P >= 4 * p_small:
            n_small = max(p_small + 1, round(self.N * p_small / self.P))
            shift = null_moments_scalar(n_small, p_small, n_small - p_small)[0]
            s_equiv = s - self.mean_s + self.P * shift
            phi, passes = scaled_guess(self.N, self.P, s_equiv, p_small, GUESS_TOL)
            self._charge(passes * p_small * (n_small - p_small + 1) * WORK_LAYER_CELL)
        if phi is None or not phi > 0.0:
            phi = max((s - self.mean_s) / (self.sd_s * self.sd_s), 1e-12)
            phi = min(phi, max(math.log(self.N / self.P), 1e-12))
        self._guesses[s] = phi
        return phi

    def chernoff_log10(self, s: float) -> float:
        """log10 of the best Chernoff bound ``e^{K(phi) - phi s}`` on ``P(S >= s)`` among the
        passes made (``points``; 0 when none has ``phi > 0``). A bound for the exact K; the
        compressed K's own error (about 5e-4 nats) is the caller's to add."""
        best = 0.0
        for phi, k, _, _ in self.points:
            if phi > 0.0:
                best = min(best, (k - phi * s) / math.log(10.0))
        return best

    def floors(self, phi: float):
        """The layers' lowest knots for a pass at ``phi >= 0``.

        By the FKG argument of :mod:`pranker._numba.cgf_knots`, floors found
        at one tilt hold at every smaller one. They are found at tilts
        ``2^(i/4)``; a pass at ``phi`` takes those of the smallest such tilt
        already found within three grid steps above ``phi``, else finds them
        one step above ``phi`` (a Newton search then reuses them). So a
        result depends on the passes made before it on this object, by the
        floors' margin only (changes below 1e-6 nats, tests/test_cgf_band.py);
        the routes that answer p-values make one object per threshold, so
        their answers are a function of the threshold alone.
        """
        if phi <= 0.0:
            key, at = None, 0.0
        else:
            need = math.ceil(_FLOOR_GRID * math.log2(phi))
            have = [i for i in self._floors if i is not None and need <= i <= need + 3]
            if have:
                return self._floors[min(have)]
            key = need + 1
            at = 2.0 ** (key / _FLOOR_GRID)
        lo = self._floors.get(key)
        if lo is None:
            self._charge(2 * self.P * self._floor_knots.shape[0] * WORK_FLOOR_BLOCK)
            self.floor_passes += 1
            lo = layer_floors(
                self.P, at, self.x, self._floor_knots, FLOOR_T, FLOOR_MARGIN, FLOOR_STRIDE
            )
            self._floors[key] = lo
        return lo

    def cgf(self, phi: float) -> tuple[float, float, float]:
        """``(K(phi), K'(phi), K''(phi))`` of S on the knots: one pass from the layers' floors.

        Below the mean (``phi < 0``) every knot is visited.
        """
        phi = float(phi)
        if phi < 0.0:
            lo = np.zeros(self.P, np.int64)
        else:
            lo = self.floors(phi)
        frac = self.leap_fraction(phi)
        self._charge(self.pass_work(lo, frac))
        self.passes += 1
        if frac > 0.0:
            g, g1, g2 = self._leaped(phi, lo, frac)
            if self._bar is not None:
                self._bar.update(1)
            return self._record(phi, g, g1, g2)
        # in pieces of about _CHUNK_BLOCKS blocks, so that Ctrl-C is seen between them
        B = self.x.shape[0]
        g, g1, g2 = np.zeros(B), np.zeros(B), np.zeros(B)
        j0 = 0
        cost = np.cumsum(B - lo)
        k = 1
        while k <= self.P:
            base = cost[k - 2] if k > 1 else 0
            end = min(max(int(np.searchsorted(cost, base + _CHUNK_BLOCKS, "right")), k), self.P)
            g, g1, g2, j0 = band_layers_range(k, end, phi, self.x, lo, self.parallel, g, g1, g2, j0)
            k = end + 1
        if self._bar is not None:
            self._bar.update(1)
        return self._record(phi, g, g1, g2)

    def _record(self, phi: float, g, g1, g2) -> tuple[float, float, float]:
        """``(K, K', K'')`` from the last layer's rows, kept in ``points``."""
        B = self.x.shape[0]
        out = (float(g[B - 1]) - self.log_comb, float(g1[B - 1]), float(g2[B - 1]))
        self.points.append((phi, *out))
        return out

    def _leaped(self, phi: float, lo: np.ndarray, frac: float):
        """The last layer's ``(log G, d/dphi, d^2/dphi^2)`` at the knots, leaping over layers.

        In pieces of about ``_CHUNK_BLOCKS`` blocks (Ctrl-C is seen between them).
        """
        x, P, par = self.x, self.P, self.parallel
        B = x.shape[0]
        g, g1, g2 = np.zeros(B), np.zeros(B), np.zeros(B)
        k = min(LEAP_START, P)
        g, g1, g2, j0 = band_layers_range(1, k, phi, x, lo, par, g, g1, g2, 0)
        piece = max(_CHUNK_BLOCKS // B, 3)
        while k < P:
            g, g1, g2, j0, k = leap_layers(
                k, P, phi, x, lo, par, g, g1, g2, j0, frac, LEAP_MAX, piece
            )
        return g, g1, g2


def _basis(u: np.ndarray, terms: int) -> np.ndarray:
    """Rows of :class:`ScaledCGF`'s extrapolation basis at ``u = P / P_ref``, shape (terms, len(u)):
    ``u, ln^2 u, ln u, 1, 1 / u, ln u / u`` (the first ``terms`` of them)."""
    lu = np.log(u)
    return np.stack([u, lu * lu, lu, np.ones_like(u), 1.0 / u, lu / u, 1.0 / (u * u)][:terms])


def scaled_sizes(
    N: int,
    P: int,
    cells: int = SCALED_CELLS,
    count: int = SCALED_SIZES,
    max_positives: int = SCALED_MAX_POSITIVES,
) -> list[int] | None:
    """The positives of :class:`ScaledCGF`'s scaled-down problems, largest first, or None where
    (N, P) is too small for them (P under four times the largest), has so many items per
    positive that the smallest would have fewer than 32 positives, or so few negatives that it
    would have fewer than 2 (its cubic in N needs four item counts of at least P_i)."""
    per = (N - P) / P
    p_max = int(min(max_positives, math.sqrt(cells / max(per, 1e-9))))
    sizes = [round(p_max / SCALED_STEP**j) for j in range(count)]
    if len(set(sizes)) < count or sizes[-1] < 32 or P < 4 * p_max:
        return None
    if (N - P) * sizes[-1] < 2 * P:  # fewer than 2 offsets in the smallest: too few to interpolate
        return None
    return sizes


class ScaledCGF(_Budgeted):
    r"""``K``, ``K'``, ``K''`` of S extrapolated from the problem scaled down: cost independent of N, P.

    At a fixed number of items per positive ``N / P`` and a fixed tilt, the
    CGF of ``S = sum_k k / r_k`` is extensive in P with a slowly varying
    correction. Each of its terms ``k / r_k`` tends, for ``k`` fixed, to a
    limit law (the top positives' gaps are geometric), and for ``k`` of
    order P it is a smooth function of ``(k / P, r / N)``; so, as in the
    Euler-Maclaurin formula, ``K_P(phi) = P kappa(phi) + c_2 ln^2 P + c_1 ln
    P + c_0 + (d_1 ln P + d_0) / P + ...`` (the ``ln P`` terms from sums of
    ``1 / k``-corrections of the top positives: ``E[k / r_k] = rho +
    rho (1 - rho) / k + O(k^-2)``, and ``ln^2 P`` in the variance from their
    covariances). :class:`ScaledCGF` computes ``K``, ``K'`` and ``K''``
    exactly (:class:`LayersCGF`) for :data:`SCALED_SIZES` problems of
    ``P_i`` positives (the largest of at most :data:`SCALED_CELLS` cells,
    each next :data:`SCALED_STEP` times smaller) with ``N_i = N P_i / P``
    items, and evaluates at P the function of that form through the seven
    values (basis ``P, ln^2 P, ln P, 1, 1 / P, ln P / P, 1 / P^2``;
    Richardson extrapolation, Richardson 1911). Where ``N P_i / P`` is not
    an integer, each value is interpolated in N from
    the four nearest integers ``floor - 1 .. floor + 2`` by the cubic
    through them (``K`` is smooth in N; one pass for ``floor + 2`` items gives
    all four, :meth:`LayersCGF.cgf_ends`). Linear interpolation was not
    enough: at N / P = 1.5 with 35-200 positives its error, amplified by
    the extrapolation, reached 2 nats.

    The same extrapolation without the largest problem (six sizes, the
    last term dropped) gives a second value; their difference in K at each
    tilt is kept (``spread``): how much the largest problem moved the
    answer, the usual a-posteriori estimate of a Richardson table's error.
    Against the exact recursion (N = 10^5, P = 10^4 and 5*10^4; N = 5*10^5,
    P = 5*10^4; and the plain recursion at P = 1,000, docs/calibration.md,
    "Beyond the leaps") the error in K stayed within 1.4 times the spread.
    It is largest where the tilted law changes regime (from the bulk to
    positives gathered at the top ranks; at N / P = 10 near ``phi = 1.2``,
    where problems of a few thousand positives are not yet in the
    asymptotic regime), and the saddlepoint on this CGF widens its
    interval by it.

    Parameters
    ----------
    N, P : int
        Instances and positives, ``2 <= P < N``.
    max_work : int or None
        Work budget in the units of :mod:`pranker.null.choice` (each pass
        ``WORK_LAYER_CELL`` per cell of the scaled-down problems); a pass
        that would take ``work`` past it raises :class:`OutOfWork` before
        it starts (None: no bound).
    cells : int
        Cells of the largest scaled-down problem (default :data:`SCALED_CELLS`).
    count : int
        How many scaled-down problems (default :data:`SCALED_SIZES`; the basis
        has as many terms, at most seven).
    max_positives : int
        Positives of the largest scaled-down problem at most (default
        :data:`SCALED_MAX_POSITIVES`).
    progress : bool or None
        Kept for the saddlepoint's interface (its passes are short: no bar).
    """

    def __init__(
        self,
        N: int,
        P: int,
        *,
        max_work: int | None = None,
        cells: int = SCALED_CELLS,
        count: int = SCALED_SIZES,
        max_positives: int = SCALED_MAX_POSITIVES,
        progress: bool | None = False,
    ):
        N, P = int(N), int(P)
        if not 2 <= P < N:
            raise ValueError(f"ScaledCGF: need 2 <= P < N, got N={N}, P={P}.")
        self.N, self.P = N, P
        self.log_comb = log_comb(N, P)
        mean, var = null_moments_scalar(N, P, N - P)
        self.mean_s = mean * P
        self.sd_s = math.sqrt(var) * P
        sizes = scaled_sizes(N, P, cells, count, max_positives)
        if sizes is None:
            raise ValueError(
                f"ScaledCGF: N={N}, P={P} is too small or has too many items per positive "
                "for its scaled-down problems."
            )
        p_max = sizes[0]
        self.sizes = sizes
        # per size: the exact problem and the weights of its last four item counts (cubic
        # Lagrange interpolation at N P_i / P; one weight where that is an integer)
        self._problems: list[tuple[LayersCGF, np.ndarray]] = []
        self.cells = 0
        for p in sizes:
            n_star = N * p / P
            lo = math.floor(n_star)
            theta = n_star - lo
            if theta < 1e-9 or theta > 1.0 - 1e-9:
                small, lag = LayersCGF(round(n_star), p), np.ones(1)
            else:
                small = LayersCGF(lo + 2, p)  # its last four: lo - 1, lo, lo + 1, lo + 2
                t = theta + 1.0  # the point, counted from lo - 1
                lag = np.array(
                    [math.prod((t - j) / (i - j) for j in range(4) if j != i) for i in range(4)]
                )
            self.cells += small.P * (small.N - small.P + 1)
            self._problems.append((small, lag))
        u = np.asarray(sizes, float) / p_max
        at = np.array([P / p_max])
        # weights w with w @ y the basis's function through (u_i, y_i), evaluated at P: every
        # size and as many terms; and, for the spread, the smaller sizes and one term fewer
        n = len(sizes)
        self._weights = np.linalg.solve(_basis(u, n), _basis(at, n)[:, 0])
        self._weights_check = np.zeros(n)
        self._weights_check[1:] = np.linalg.solve(_basis(u[1:], n - 1), _basis(at, n - 1)[:, 0])
        self.max_work = max_work
        self.progress = progress
        self._bar = None
        self.work = 0
        self.passes = 0
        self.points: list[tuple[float, float, float, float]] = []  # (phi, K, K', K'') per pass
        self.spreads: list[float] = []  # |K of one basis - K of the other| per pass

    def cgf(self, phi: float) -> tuple[float, float, float]:
        """``(K(phi), K'(phi), K''(phi))`` of S, extrapolated (one pass of each scaled-down problem)."""
        phi = float(phi)
        self._charge(self.cells * WORK_LAYER_CELL)
        self.passes += 1
        rows = np.empty((len(self.sizes), 3))
        # the problems on numba's number of threads (the recursion releases the GIL), largest
        # first: the largest holds about half the cells, so two threads share them evenly
        threads = min(numba.get_num_threads(), len(self._problems))
        if threads > 1:
            with ThreadPoolExecutor(max_workers=threads) as pool:
                futures = [
                    pool.submit(small.cgf_ends, phi, lag.shape[0]) for small, lag in self._problems
                ]
                for i, ((_, lag), future) in enumerate(zip(self._problems, futures, strict=True)):
                    rows[i] = lag @ future.result()
        else:
            for i, (small, lag) in enumerate(self._problems):
                rows[i] = lag @ small.cgf_ends(phi, lag.shape[0])
        k, k1, k2 = (float(v) for v in self._weights @ rows)
        spread = abs(float(self._weights_check @ rows[:, 0]) - k)
        if self._bar is not None:
            self._bar.update(1)
        self.points.append((phi, k, k1, k2))
        self.spreads.append(spread)
        return k, k1, k2

    def first_guess(self, s: float) -> float:
        """The search's first tilt for ``s`` above the mean: the saddle point of the fourth
        scaled-down problem (an eighth of the largest's cells) at the same distance of S from its
        mean, scaled by P_i / P (as :meth:`KnotsCGF.first_guess`; charged to ``work``)."""
        small = self._problems[GUESS_SIZE][0]
        s_small = small.mean_s + (s - self.mean_s) * small.P / self.P
        phi = None
        s_min = sum(k / (small.N - small.P + k) for k in range(1, small.P + 1))
        if s_min < s_small < small.P:
            phi, _, _, _, passes = small.saddle_search(s_small, tol=GUESS_TOL)
            self._charge(passes * small.P * (small.N - small.P + 1) * WORK_LAYER_CELL)
        if phi is None or not (math.isfinite(phi) and phi > 0.0):
            phi = max((s - self.mean_s) / (self.sd_s * self.sd_s), 1e-12)
            phi = min(phi, max(math.log(self.N / self.P), 1e-12))
        return phi

    def chernoff_log10(self, s: float) -> float:
        """log10 of the best ``e^{K(phi) - phi s}`` among the passes made (0 when none has
        ``phi > 0``); a bound only up to the extrapolation's error (``spreads``)."""
        best = 0.0
        for (phi, k, _, _), spread in zip(self.points, self.spreads, strict=True):
            if phi > 0.0:
                best = min(best, (k + 2.0 * spread - phi * s) / math.log(10.0))
        return best


class OutOfWork(Exception):
    """A pass of :class:`KnotsCGF` would take its work past ``max_work`` (raised before it starts).

    Attributes ``spent`` (units charged so far) and ``wanted`` (the units
    of the pass or floor search that was not started).
    """

    def __init__(self, spent: int, wanted: int):
        super().__init__(f"work budget: {spent} units spent, the next step needs {wanted}")
        self.spent, self.wanted = spent, wanted


@functools.lru_cache(maxsize=8)
def leap_schedule(P: int, frac: float = LEAP_FRACTION) -> np.ndarray:
    """The layers (1-based) a leaped pass computes exactly, in order.

    The same schedule as :func:`pranker._numba.cgf_knots.leap_layers` walks
    with leaps of ``frac k`` (at most :data:`LEAP_MAX`) from :data:`LEAP_START`
    (used to charge a pass the blocks it visits).
    """
    k = min(LEAP_START, P)
    out = list(range(1, k + 1))
    while k < P:
        m = min(int(frac * k), LEAP_MAX)
        if k + 3 + max(m, 4) > P:
            out.extend(range(k + 1, P + 1))
            break
        out.extend((k + 1, k + 2, k + 3))
        k += 3 + m
    return np.asarray(out, np.int64)


def scaled_guess(N: int, P: int, s: float, p_small: int, tol: float) -> tuple[float | None, int]:
    """``(phi, passes)``: the saddle point of the same AP with ``p_small`` positives and as many
    items per positive (exact recursion, to ``tol`` of its tilted sd); ``(None, 0)``
    where the AP falls outside the smaller support."""
    n_small = max(p_small + 1, round(N * p_small / P))
    small = LayersCGF(n_small, p_small)
    s_small = s / P * p_small
    s_min = sum(k / (n_small - p_small + k) for k in range(1, p_small + 1))
    if not s_min < s_small < p_small:
        return None, 0
    phi, _, _, _, passes = small.saddle_search(s_small, tol=tol)
    return (phi if math.isfinite(phi) else None), passes


def solve_slope(
    cgf,
    s: float,
    t: float,
    sign: float,
    *,
    tol: float,
    bracket_tol: float,
    max_iter: int,
    loose_u: float | None = None,
    stretch: bool = False,
    bar: Any = None,
    max_up: float = 2.0,
):
    """The saddle point ``K'(phi) = s``: safeguarded Newton steps in ``t = log |phi|``.

    The one root finder of the CGFs' slope (:class:`LayersCGF` and
    :class:`pranker.null.saddlepoint.LargePSaddle` on :class:`KnotsCGF`).
    ``cgf(phi)`` returns ``(K, K', K'')``; ``sign`` is the side of the mean
    ``s`` lies on (``phi = sign e^t``) and ``t`` the first point. Since K' is
    increasing in phi, ``g(t) = sign (K'(phi) - s)`` increases in t with
    ``dg/dt = |phi| K''``. Each Newton step is capped at 2 in t; a step that
    leaves the bracket of points seen on either side of the root is replaced
    by its bisection. With ``stretch``, a step is divided by ``1 - r`` when
    the residual shrank by ``r`` (``0 < r < 1``, capped at 0.9) without
    changing sign: where K'' falls steeply towards the root, Newton creeps,
    and if the residual keeps shrinking by r the remaining steps sum to
    ``step / (1 - r)``. A step up (towards larger ``|phi|``) is capped at
    ``max_up`` in t (where K'' grows steeply with the tilt, a Newton step from
    the flat side overshoots far). The search stops when ``|K' - s| <= tol sqrt(K'')``
    (``tol`` in tilted standard deviations; with ``loose_u``, one standard
    deviation at the first point when ``u = |phi| sqrt(K'')`` is at least
    ``loose_u`` there), when the bracket is narrower than ``bracket_tol`` in
    t, or after ``max_iter`` evaluations. ``bar``, a progress bar, advances
    by one per evaluation.

    Returns
    -------
    (phi, K, K', K'', evaluations) at the last point.
    """
    lo = hi = None  # (t, g) at the bracket ends
    prev_g = None
    phi = k = k1 = k2 = math.nan
    passes = 0
    for _ in range(max_iter):
        phi = sign * math.exp(t)
        k, k1, k2 = cgf(phi)
        passes += 1
        if bar is not None:
            bar.update(1)
        g = sign * (k1 - s)
        sd = math.sqrt(max(k2, 0.0))
        loose = loose_u is not None and passes == 1 and abs(phi) * sd >= loose_u
        tol_here = max(tol, 1.0) if loose else tol
        if abs(g) <= tol_here * sd and (k2 > 0.0 or g == 0.0):
            break
        if g < 0.0:
            lo = (t, g)
        else:
            hi = (t, g)
        if lo is not None and hi is not None and hi[0] - lo[0] < bracket_tol:
            break
        dg = abs(phi) * max(k2, 0.0)  # dg/dt
        step = -g / dg if dg > 0.0 else math.copysign(2.0, -g)
        if stretch and prev_g is not None and 0.0 < g / prev_g < 1.0:
            step /= 1.0 - min(g / prev_g, 0.9)
        prev_g = g
        new = t + max(-2.0, min(max_up, step))
        if (lo is not None and new <= lo[0]) or (hi is not None and new >= hi[0]):
            assert lo is not None and hi is not None
            new = 0.5 * (lo[0] + hi[0])  # bisection (both ends exist here)
        t = new
    return phi, k, k1, k2, passes
