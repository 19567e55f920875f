r"""The upper tail of S = P * AP for many positives: Lugannani–Rice on an accurate compressed CGF.

The importance sampler (:mod:`pranker.null.tilt`) draws every positive, so
its cost grows like P times the number of draws. Where P is large and the
items per positive N/P moderate, S is a sum of many small, smooth terms and
the saddlepoint approximation is accurate; what it needs is a CGF that is
accurate and cheap at N P far beyond what the exact recursion can visit.

:func:`pranker._numba.cgf_accurate.accurate_cgf` gives ``K``, ``K'`` and
``K''`` in one pass over ``P B`` blocks (``B`` knots, about
``64 + ln(N / 64) / 0.04``: 250–420 for N from 10^5 to 10^10), within about
5e-4 nats of the exact CGF where the exact one can be computed. On it, the
Lugannani–Rice formula (Lugannani & Rice 1980; Daniels 1987)

.. math::

    P(S \ge s) \approx 1 - \Phi(w) + \phi(w) \left(\frac{1}{u} - \frac{1}{w}\right), \quad
    w = \mathrm{sign}(\hat\phi) \sqrt{2 (\hat\phi s - K(\hat\phi))}, \quad
    u = \hat\phi \sqrt{K''(\hat\phi)},

at the saddle point ``K'(phi_hat) = s``, is deterministic: a few passes of
the recursion, independent of N, none of P times draws.

Its error is not a standard error but a bound measured against the unbiased
importance sampler (:func:`error_bound`: 0.03 in log10 up to 10 items per
positive for P >= 1000; docs/calibration.md). Outside that region — more
items per positive, where S is lumpy at the top (off by -0.28 at N = 10^6,
P = 10^4, p = 10^-30) — the route must not be used.

References
----------
R. Lugannani and S. Rice, "Saddle point approximation for the distribution of
the sum of independent random variables", Adv. Appl. Prob. 12 (1980) 475–490.
H. E. Daniels, "Tail probability approximations", Int. Statist. Rev. 55
(1987) 37–48.
"""

from __future__ import annotations

import math

import numpy as np

from .._numba.cgf_accurate import band_layers_range
from .._numba.cgf_band import FLOOR_MARGIN, FLOOR_STRIDE, FLOOR_T, layer_floors
from .._numba.compressed import compressed_knots
from .._numba.moments import null_moments
from .._progress import progress_bar
from .choice import LARGE_P_MAX_ITEMS_PER_POSITIVE, LARGE_P_MIN_POSITIVES
from .logspace import log_comb
from .tilt import TailEstimate, log_sf_lugannani_rice

__all__ = [
    "LargePSaddle",
    "saddle_region",
    "error_bound",
    "large_p_tail",
    "ROUTE_MIN_P",
    "LOG10_ERROR_BOUND",
    "SADDLE_MIN_P",
    "SADDLE_MAX_RATIO",
]

KNOT_START = 64  # every offset below this is a knot
KNOT_EPS = 0.04  # geometric growth of the knots above it
# The knots of the chord-rule passes that find each layer's floor (pranker._numba.cgf_band):
# at 0.16 the floors gave the same K, K', K'' to 5e-7 as at 0.08, at half the cost.
FLOOR_KNOT_START, FLOOR_KNOT_EPS = 16, 0.16
# Floors are found at the tilts 2^(i / 4) (and 0): a pass at phi uses those of the smallest
# such tilt >= phi (valid there: a floor found at a tilt holds at every smaller one), so the
# floors, and hence K, K' and K'', are a function of phi alone, whatever was computed before.
_FLOOR_GRID = 4
# A pass runs in pieces of this many blocks (about 0.25 s): Ctrl-C is seen between them.
_CHUNK_BLOCKS = 500_000
# A bar over the passes of a p-value whose passes are predicted to take more than ~2 s in all
# (about 0.5 us per block, five passes).
_BAR_BLOCKS = 800_000
# Where the route was calibrated against the importance sampler (docs/calibration.md):
# at least this many positives ...
SADDLE_MIN_P = 1000
# ... and at most this many items per positive (the default's region, where the measurements
# are: pranker.null.choice; N / P = 100 was off by -0.28 at P = 10^4, p = 10^-30).
SADDLE_MAX_RATIO = float(LARGE_P_MAX_ITEMS_PER_POSITIVE)
# The bound on |log10 error| reported (largest measured 0.018 at P = 1000 - 3000, within two
# standard errors of the sampler; 0.011 at P = 10^4).
LOG10_ERROR_BOUND = 0.03
# From this many positives on, the route is worth taking over the importance sampler (whose cost
# grows like P x draws); the error bounds above hold from SADDLE_MIN_P.
ROUTE_MIN_P = LARGE_P_MIN_POSITIVES
# stop when |K'(phi) - s| is below this many tilted sd; the last Newton step is then taken in
# closed form (LargePSaddle.saddle)
_SADDLE_TOL = 0.02


def saddle_region(n: int, n_pos: int) -> bool:
    """True where the saddle route's error was measured: ``P >= 1000`` and ``N / P <= 10`` (upper tail)."""
    return n_pos >= SADDLE_MIN_P and n <= SADDLE_MAX_RATIO * n_pos


def error_bound(n: int, n_pos: int) -> float:
    """The measured bound on the route's |log10 error| for N = n, P = n_pos (``inf`` outside the region).

    :data:`LOG10_ERROR_BOUND` (0.03) up to 10 items per positive, for
    ``P >= 1000``.
    """
    if not saddle_region(n, n_pos):
        return math.inf
    return LOG10_ERROR_BOUND


class LargePSaddle:
    """Lugannani–Rice upper tails of S = P * AP on the accurate compressed CGF, for one (N, P).

    Parameters
    ----------
    N, P : int
        Instances and positives, ``2 <= P < N``.
    knot_start, knot_eps : optional
        The knots (defaults :data:`KNOT_START`, :data:`KNOT_EPS`).
    parallel : bool
        Compute the blocks of each layer on all threads (same result).

    Examples
    --------
    >>> sd = LargePSaddle(20_000, 2_000)
    >>> est = sd.tail(sd.mean_s + 6 * sd.sd_s)
    >>> round(est.log10_pvalue, 1), est.n_draws
    (-6.9, 0)
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
    ):
        N, P = int(N), int(P)
        if not 2 <= P < N:
            raise ValueError(f"LargePSaddle: need 2 <= P < N, got N={N}, P={P}.")
        if knot_start < 4 or not knot_eps > 0.0:
            raise ValueError(
                f"LargePSaddle: need knot_start >= 4 and knot_eps > 0, got {knot_start}, {knot_eps}."
            )
        self.N, self.P = N, P
        self.log_comb = log_comb(N, P)
        mean, var = null_moments(float(N), float(P), float(N - P))
        self.mean_s = mean * P
        self.sd_s = math.sqrt(var) * P
        self.x = compressed_knots(N - P, int(knot_start), float(knot_eps))
        self.parallel = bool(parallel)
        self.progress = progress
        self._bar = None
        self.passes = 0  # recursion passes made
        self.floor_passes = 0  # pairs of chord passes made to find the layers' floors
        self._floor_knots = compressed_knots(N - P, FLOOR_KNOT_START, FLOOR_KNOT_EPS)
        self._floors: dict[int | None, np.ndarray] = {}

    @property
    def n_knots(self) -> int:
        return int(self.x.shape[0])

    def floors(self, phi: float):
        """The layers' lowest knots for a pass at ``phi >= 0``.

        By the FKG argument of :mod:`pranker._numba.cgf_band`, floors found
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
        self.passes += 1
        if phi < 0.0:
            lo = np.zeros(self.P, np.int64)
        else:
            lo = self.floors(phi)
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
        return float(g[B - 1]) - self.log_comb, float(g1[B - 1]), float(g2[B - 1])

    def saddle(self, s: float, max_iter: int = 60) -> tuple[float, float, float]:
        """``(phi, phi s - K(phi), K''(phi))`` at the saddle point ``K'(phi) = s`` (s above the mean).

        Safeguarded Newton in ``t = log phi`` from the normal guess ``phi_0 =
        (s - mean) / var``, at most ``log(N / P)`` (``dK'/dt = phi K''``;
        a step is stretched by ``1 / (1 - r)`` when the residual shrank by
        ``r`` without changing sign; steps capped
        at 2 in ``log phi``, bisection of the bracket when a step leaves it).
        It stops when ``|K' - s| <= 0.02 sqrt(K'')`` and takes the last
        Newton step in closed form: with ``m = K'(phi) - s`` and ``delta = -m
        / K''``, ``phi s - K`` at ``phi + delta`` is ``phi s - K(phi) - m^2 /
        (2 K'')`` but for a term ``K3 delta^3 / 6`` (K3 the third cumulant:
        at most ``0.02^3 / 6`` nats times the tilted skewness), and ``K''`` is
        kept (its relative change, ``lambda_3 m / sqrt(K'')``, is at most
        ``0.02 lambda_3``: with 0.1 instead, log10 p moved by up to 0.003
        deep in the tail at N = 2e4, P = 1e4, and moving ``K''`` by a
        ``K'''`` from the last two passes' difference made it worse).
        """
        phi0 = max((s - self.mean_s) / (self.sd_s * self.sd_s), 1e-12)
        # deep in the tail the normal guess overshoots by far: beyond phi = log(N / P) the tilt
        # pins positives to the top ranks one after another (e^phi P / N > 1), so start there
        t = math.log(min(phi0, max(math.log(self.N / self.P), 1e-12)))
        lo = hi = None
        prev: tuple[float, float] | None = None
        phi = k = k1 = k2 = math.nan
        for _ in range(max_iter):
            phi = math.exp(t)
            k, k1, k2 = self.cgf(phi)
            g = k1 - s
            if k2 > 0.0 and abs(g) <= _SADDLE_TOL * math.sqrt(k2):
                break
            if g < 0.0:
                lo = t
            else:
                hi = t
            if lo is not None and hi is not None and hi - lo < 1e-12:
                break
            dg = phi * max(k2, 0.0)
            step = -g / dg if dg > 0.0 else math.copysign(2.0, -g)
            if prev is not None and 0.0 < g / prev[1] < 1.0:
                # the residual shrank by r = g / g_prev but kept its sign: near the tilt
                # that pins the top positives K'' falls steeply towards the saddle point and
                # Newton creeps (5-7 passes at N = 1e6, P = 1e4); if it keeps shrinking by r,
                # the remaining steps sum to step / (1 - r)
                r = g / prev[1]
                step /= 1.0 - min(r, 0.9)
            prev = (phi, g)
            new = t + max(-2.0, min(2.0, step))
            if (lo is not None and new <= lo) or (hi is not None and new >= hi):
                assert lo is not None and hi is not None
                new = 0.5 * (lo + hi)
            t = new
        m = k1 - s
        if k2 > 0.0 and phi - m / k2 > 0.0:  # the last Newton step, in closed form
            return phi - m / k2, phi * s - k - 0.5 * m * m / k2, k2
        return phi, phi * s - k, k2

    def log_sf(self, s: float) -> float:
        """Natural log of the Lugannani–Rice ``P(S >= s)``."""
        return self._log_sf(s)[0]

    def _log_sf(self, s: float) -> tuple[float, float]:
        """``(log P(S >= s), saddle point phi)``."""
        if s > self.P:
            return -math.inf, math.inf
        z = (s - self.mean_s) / self.sd_s
        if s <= self.mean_s:
            return log_sf_lugannani_rice(z, 0.0, 0.0), 0.0  # at or below the mean: the normal tail
        slow = self.P * self.n_knots > _BAR_BLOCKS * 4  # about a quarter of the knots visited
        with progress_bar(None, "saddlepoint passes", self.progress if slow else False) as bar:
            self._bar = bar
            try:
                phi, expo, k2 = self.saddle(s)
            finally:
                self._bar = None
        w = math.sqrt(max(2.0 * expo, 0.0))
        return log_sf_lugannani_rice(z, w, phi * math.sqrt(k2)), phi

    def log_sf_at(self, phi: float, s: float, k: float, k2: float) -> float:
        """Lugannani–Rice from the saddle point ``phi`` of ``s`` with ``K(phi) = k``, ``K''(phi) = k2``."""
        z = (s - self.mean_s) / self.sd_s
        w = math.sqrt(max(2.0 * (phi * s - k), 0.0))
        return log_sf_lugannani_rice(z, w, phi * math.sqrt(k2))

    def tail(self, s: float) -> TailEstimate:
        """``P(S >= s)`` as a :class:`TailEstimate` whose error is the measured bound.

        ``rse`` is ``10^b - 1`` with ``b = error_bound(N, P)`` (the bound as a
        relative error, not a standard error) and the interval is ``log10 p
        -+ b``; ``n_draws`` is 0. Outside :func:`saddle_region` there is no
        measured bound: a ValueError (use the importance sampler there).
        """
        b = error_bound(self.N, self.P)
        if not math.isfinite(b):
            raise ValueError(
                f"LargePSaddle.tail: N={self.N}, P={self.P} is outside the region where the saddle "
                f"route was calibrated (P >= {SADDLE_MIN_P}, N/P <= {SADDLE_MAX_RATIO:g}); "
                "use TiltEngine.tail (the importance sampler) there."
            )
        ln_p, phi = self._log_sf(s)
        lp = ln_p / math.log(10.0)
        if lp == -math.inf:
            return TailEstimate(-math.inf, 0.0, (-math.inf, -math.inf), 0, 0.0)
        return TailEstimate(lp, 10.0**b - 1.0, (lp - b, min(lp + b, 0.0)), 0, phi)


def large_p_tail(n: int, n_pos: int, s: float, *, upper: bool = True, min_pos: int = ROUTE_MIN_P):
    """The saddle route's ``P(S >= s)`` where it applies, else None (for the engine's routing).

    Applies to an upper tail with ``P >= min_pos`` inside :func:`saddle_region`;
    the result is :meth:`LargePSaddle.tail` (error: the measured bound).
    """
    if not upper or n_pos < max(min_pos, SADDLE_MIN_P) or not saddle_region(n, n_pos):
        return None
    return LargePSaddle(n, n_pos).tail(s)
