r"""Lugannani–Rice tails of S = P * AP for many positives, on a CGF that costs nothing like N P.

Beyond ``1e8`` cells ``P (N - P + 1)`` a pass of the exact recursion takes
seconds to minutes. Two CGFs of :mod:`pranker.null.cgf` replace it, each
under the same first-order formula (Lugannani & Rice 1980) and the same
search (safeguarded Newton steps in ``log phi``, the last in closed form):

- :class:`LargePSaddle` on the accurate compressed knots
  (:class:`pranker.null.cgf.KnotsCGF`: a few passes of ``P B`` blocks,
  independent of N; from 10^4 to 2*10^5 positives);
- :class:`ScaledSaddle` on the problem scaled down and extrapolated in P
  (:class:`pranker.null.cgf.ScaledCGF`: a few passes of seven exact problems
  of at most 8,000 positives, independent of N and P; beyond 2*10^5
  positives, where even leaped passes of the knots take seconds).

Where P is large and N / P moderate, S is a sum of many small smooth terms
and the formula is accurate (the measured bound of
:func:`pranker.null.choice.plan`); with more items per positive S is lumpy
at the top and these routes must not be used.

References
----------
R. Lugannani and S. Rice, "Saddle point approximation for the distribution of
the sum of independent random variables", Adv. Appl. Prob. 12 (1980) 475–490.
L. F. Richardson, "The approximate arithmetical solution by finite differences
of physical problems", Phil. Trans. R. Soc. A 210 (1911) 307–357.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .._progress import progress_bar
from .budget import cantelli_log10
from .cgf import (
    SCALED_REFINE_CELLS,
    SCALED_REFINE_MAX_POSITIVES,
    KnotsCGF,
    OutOfWork,
    ScaledCGF,
    scaled_sizes,
    solve_slope,
)
from .choice import (
    LARGE_P_LOG10_BOUND,
    LARGE_P_MAX_ITEMS_PER_POSITIVE,
    MANY_ITEMS_SMOOTH_TILT,
    SADDLEPOINT_MAX_DEPTH,
    SCALED_BEYOND_TILT,
    SCALED_LOG10_BOUND,
    SCALED_SPREAD_FACTOR,
    saddlepoint_backend,
    within_rtol,
)

__all__ = [
    "LargePSaddle",
    "ScaledSaddle",
    "large_p_cgf",
    "large_p_tail",
    "log_sf_lugannani_rice",
]

_LN10 = math.log(10.0)

# LargePSaddle: a bar over the passes of a p-value whose passes are predicted to take more
# than ~2 s in all (about 0.5 us per block, five passes) ...
_BAR_BLOCKS = 800_000
# ... and its search stops when |K'(phi) - s| is below this many tilted sd; the last Newton
# step is then taken in closed form (LargePSaddle.saddle). 0.05 instead of 0.02 saved a pass
# in 5 of 18 thresholds at N = 1e5-1e6, P = 1e4-1e5, moving log10 p by at most 8e-4
# (docs/calibration.md, "A bound on the work of every p-value")
_SADDLE_TOL = 0.05


def log_sf_lugannani_rice(z: float, w: float, u: float) -> float:
    """Natural log of the Lugannani-Rice upper tail (Lugannani & Rice 1980).

    ``z``: the standardised distance to the mean; ``w``: the signed root of
    the deviance ``2 (phi s - K(phi))``; ``u = phi sqrt(K''(phi))``. Where the
    formula breaks down — ``w`` near 0 (near the mean), ``u == 0`` (the tilted
    law degenerate at the top of the support), or a result outside (0, 1] —
    the normal tail at ``w`` (or at ``z`` near the mean) is used instead.
    """
    from scipy.special import erfcx, log_ndtr, ndtr

    if abs(w) < 1e-4:
        return float(log_ndtr(-z))
    if u == 0.0:
        return float(log_ndtr(-w))
    log_pdf = -0.5 * w * w - 0.5 * math.log(2.0 * math.pi)
    corr = 1.0 / u - 1.0 / w
    if w > 0.0:
        inner = math.sqrt(math.pi / 2.0) * float(erfcx(w / math.sqrt(2.0))) + corr
        if not inner > 0.0:
            return float(log_ndtr(-w))
        return min(log_pdf + math.log(inner), 0.0)
    val = float(ndtr(-w)) + math.exp(log_pdf) * corr
    if not 0.0 < val <= 1.0:
        return float(log_ndtr(-z))
    return math.log(val)


class _CGFTail:
    """The search, the formula and the budget-capped interval, on any CGF of this package with
    ``cgf``, ``first_guess``, ``points`` and ``chernoff_log10`` (mixed into the classes below)."""

    N: int
    P: int
    mean_s: float
    sd_s: float
    log_comb: float
    progress: bool | None
    _bar: Any
    points: list[tuple[float, float, float, float]]

    if TYPE_CHECKING:  # supplied by the CGF class it is mixed with (not defined here: MRO)

        def cgf(self, phi: float) -> tuple[float, float, float]: ...

        def first_guess(self, s: float) -> float: ...

        def chernoff_log10(self, s: float) -> float: ...

    _max_up = 2.0  # the search's largest step up in log phi (solve_slope)

    def _slow(self) -> bool:
        """Whether a p-value's passes are predicted to take long enough for a progress bar."""
        return False

    def extra_bound(self, capped: bool) -> float:
        """log10 added to the route's measured bound at the last pass (0: none); ``capped``: the
        search stopped before the saddle point."""
        return 0.0

    def saddle(self, s: float, max_iter: int = 60) -> tuple[float, float, float]:
        """``(phi, phi s - K(phi), K''(phi))`` at the saddle point ``K'(phi) = s`` (s above the mean).

        Safeguarded Newton in ``t = log phi`` from :meth:`KnotsCGF.first_guess`
        (``dK'/dt = phi K''``;
        a step is stretched by ``1 / (1 - r)`` when the residual shrank by
        ``r`` without changing sign; steps capped
        at 2 in ``log phi``, bisection of the bracket when a step leaves it).
        It stops when ``|K' - s| <= 0.05 sqrt(K'')`` and takes the last
        Newton step in closed form: with ``m = K'(phi) - s`` and ``delta = -m
        / K''``, ``phi s - K`` at ``phi + delta`` is ``phi s - K(phi) + m^2 /
        (2 K'')`` (its maximum over phi, the Legendre transform at s) but for
        a term ``K3 delta^3 / 6`` (K3 the third cumulant:
        at most ``0.05^3 / 6`` nats times the tilted skewness), and ``K''`` is
        kept (its relative change, ``lambda_3 m / sqrt(K'')``, is at most
        ``0.05 lambda_3``: against 0.02, log10 p moved by at most 8e-4 at
        N = 1e5-1e6, P = 1e4-1e5; with 0.1, by up to 0.003 deep in the tail
        at N = 2e4, P = 1e4; moving ``K''`` by a ``K'''`` from the last two
        passes' difference made it worse).
        """
        t = math.log(self.first_guess(s))
        phi, k, k1, k2, _ = solve_slope(
            self.cgf,
            s,
            t,
            1.0,
            tol=_SADDLE_TOL,
            bracket_tol=1e-12,
            max_iter=max_iter,
            stretch=True,
            max_up=self._max_up,
        )
        m = k1 - s
        if k2 > 0.0 and phi - m / k2 > 0.0:  # the last Newton step, in closed form
            return phi - m / k2, phi * s - k + 0.5 * m * m / k2, k2
        return phi, phi * s - k, k2

    def log_sf(self, s: float) -> float:
        """Natural log of the Lugannani–Rice ``P(S >= s)`` (no work budget)."""
        return self._log_sf(s)[0]

    def _log_sf(self, s: float) -> tuple[float, float]:
        """``(log P(S >= s), saddle point phi)``."""
        if s > self.P:
            return -math.inf, math.inf
        z = (s - self.mean_s) / self.sd_s
        if s <= self.mean_s:
            return log_sf_lugannani_rice(z, 0.0, 0.0), 0.0  # at or below the mean: the normal tail
        slow = self._slow()
        with progress_bar(None, "saddlepoint passes", self.progress if slow else False) as bar:
            self._bar = bar
            try:
                phi, expo, k2 = self.saddle(s)
            finally:
                self._bar = None
        w = math.sqrt(max(2.0 * expo, 0.0))
        return log_sf_lugannani_rice(z, w, phi * math.sqrt(k2)), phi

    def bounded_tail(
        self, s: float, log10_bound: float | None
    ) -> tuple[float, tuple[float, float] | None, bool]:
        """``(log10 p, log10 interval, capped)`` of ``P(S >= s)`` within the work budget.

        Where the search reaches the saddle point within ``max_work``, the
        Lugannani–Rice tail with ``log10_bound`` (the region's measured
        bound) on either side: the same number as :meth:`log_sf`. Where the
        budget stops it first (``capped``), the interval is built from what
        the passes made so far prove, each tail probability read at the
        threshold ``K'(phi)`` its own tilt is the saddle point of:

        - upper end: the smallest of the Cantelli bound (exact mean and
          variance), the Chernoff bound ``K(phi) - phi s`` of every pass
          (plus ``log10_bound`` for the compressed CGF's error), and the
          Lugannani–Rice tail at ``K'(phi) <= s`` plus ``log10_bound``
          (``P(S >= s) <= P(S >= K'(phi))``);
        - lower end: the largest Lugannani–Rice tail at ``K'(phi) >= s``
          (within the calibrated depth) minus ``log10_bound``, else the
          smallest possible p-value ``1 / C(N, P)``;
        - the value: the Lugannani–Rice tail after a closed-form Newton step
          from the pass nearest the saddle point, kept within the interval;
          with no pass, the upper end itself (a bound, as the tilt reports
          when it can afford no draw: a p-value read without its interval
          errs on the conservative side).

        With ``log10_bound`` None (uncalibrated) only the Cantelli, Chernoff
        and ``1 / C(N, P)`` ends are used; an uncapped answer has no interval.
        """
        ln10 = _LN10
        b = log10_bound
        if s <= self.mean_s or s > self.P:
            lp = self._log_sf(s)[0] / ln10
            lp = min(lp, 0.0)
            return lp, (None if b is None else (lp - b, min(lp + b, 0.0))), False
        self.points = []
        try:
            lp = min(self._log_sf(s)[0] / ln10, 0.0)
            b = None if b is None else b + self.extra_bound(False)
            return lp, (None if b is None else (lp - b, min(lp + b, 0.0))), False
        except OutOfWork:
            pass
        slack = LARGE_P_LOG10_BOUND if b is None else b
        b = None if b is None else b + self.extra_bound(True)
        hi = cantelli_log10(s, True, self.mean_s, self.sd_s)
        hi = min(hi, self.chernoff_log10(s) + slack)
        lo = min(-self.log_comb / ln10, hi)
        best, value = math.inf, math.inf  # no pass: the upper end (below)
        for phi, k, k1, k2 in self.points:
            if not (phi > 0.0 and k2 > 0.0):
                continue
            gap = abs(k1 - s) / math.sqrt(k2)
            if gap < best:  # the value: a Newton step from the nearest pass, in closed form
                best, m = gap, k1 - s
                step = phi - m / k2
                if step > 0.0:
                    expo = phi * s - k + 0.5 * m * m / k2
                    value = self.log_sf_at(step, s, step * s - expo, k2) / ln10
            if b is None or not k1 <= self.P:
                continue
            at_k1 = self.log_sf_at(phi, k1, k, k2) / ln10  # P(S >= K'(phi)), phi its saddle point
            if k1 <= s:
                hi = min(hi, at_k1 + b)
            elif (k1 - self.mean_s) / (self.P - self.mean_s) <= SADDLEPOINT_MAX_DEPTH:
                lo = max(lo, at_k1 - b)
        hi = min(hi, 0.0)
        lo = min(lo, hi)
        return min(max(value, lo), hi), (lo, hi), True

    def log_sf_at(self, phi: float, s: float, k: float, k2: float) -> float:
        """Lugannani–Rice from the saddle point ``phi`` of ``s`` with ``K(phi) = k``, ``K''(phi) = k2``."""
        z = (s - self.mean_s) / self.sd_s
        w = math.sqrt(max(2.0 * (phi * s - k), 0.0))
        return log_sf_lugannani_rice(z, w, phi * math.sqrt(k2))


class LargePSaddle(_CGFTail, KnotsCGF):
    """Lugannani–Rice upper tails of S = P * AP on the accurate compressed CGF, for one (N, P).

    Parameters are those of :class:`pranker.null.cgf.KnotsCGF`.

    Examples
    --------
    >>> sd = LargePSaddle(20_000, 2_000)
    >>> round(sd.log_sf(sd.mean_s + 6 * sd.sd_s) / math.log(10.0), 1)
    -6.9
    """

    def _slow(self) -> bool:
        return self.P * self.n_knots > _BAR_BLOCKS * 4  # about a quarter of the knots visited


class ScaledSaddle(_CGFTail, ScaledCGF):
    """Lugannani–Rice upper tails of S = P * AP on the CGF extrapolated from the problem scaled
    down (:class:`pranker.null.cgf.ScaledCGF`), for one (N, P).

    The interval it reports is the region's measured bound plus
    :data:`pranker.null.choice.SCALED_SPREAD_FACTOR` times the
    extrapolation's spread in K at the saddle point (in log10): where the
    tilted law changes regime the spread, and the interval, grow.

    With more than 10 items per positive, ``lumpy_bound`` (log10) is added
    where S is lumpy: a saddle point between
    :data:`pranker.null.choice.MANY_ITEMS_SMOOTH_TILT` ``* log(N / P)`` and
    ``log(N / P) +`` :data:`pranker.null.choice.SCALED_BEYOND_TILT` (around
    the tilted law's change of regime, where the top positives start to
    gather at the top ranks), or a search the budget stopped first.

    Parameters
    ----------
    N, P, **options
        Those of :class:`pranker.null.cgf.ScaledCGF`.
    lumpy_bound : float
        log10 added to the bound in the change of regime (default 0).

    Examples
    --------
    >>> sd = ScaledSaddle(2_000_000, 1_000_000)
    >>> lp = sd.log_sf(sd.mean_s + 30 * sd.sd_s) / math.log(10.0)
    >>> round(lp, 1)
    -189.5
    """

    # where the tilted law changes regime K'' grows by orders of magnitude over a few tenths of
    # phi: steps up capped at 0.5 in log phi took 50 passes instead of 65 over 18 thresholds of
    # the sweep at N = 3e5-1e7 (the same where N / P <= 10)
    _max_up = 0.5

    def __init__(
        self,
        N: int,
        P: int,
        *,
        lumpy_bound: float = 0.0,
        start: float | None = None,
        **options: Any,
    ):
        super().__init__(N, P, **options)
        self.lumpy_bound = float(lumpy_bound)
        self.start = start

    def first_guess(self, s: float) -> float:
        """``start`` where given (a saddle point found with smaller problems), else
        :meth:`pranker.null.cgf.ScaledCGF.first_guess`."""
        return self.start if self.start is not None else super().first_guess(s)

    def base_bound(self, log10_bound: float, capped: bool = False) -> float:
        """The bound without the spread at the last pass: ``log10_bound``, plus ``lumpy_bound``
        where S is lumpy (or the search was ``capped`` before the saddle point)."""
        lumpy = capped or not self.points or self.lumpy(self.points[-1][0])
        return log10_bound + (self.lumpy_bound if lumpy else 0.0)

    def lumpy(self, phi: float) -> bool:
        """Whether a saddle point ``phi`` lies in the tilted law's change of regime."""
        ratio = math.log(self.N / self.P)
        return MANY_ITEMS_SMOOTH_TILT * ratio < phi < ratio + SCALED_BEYOND_TILT

    def extra_bound(self, capped: bool) -> float:
        spread = SCALED_SPREAD_FACTOR * self.spreads[-1] / _LN10 if self.spreads else 0.0
        return self.base_bound(spread, capped)


def large_p_cgf(N: int, P: int) -> KnotsCGF | ScaledCGF:
    """The CGF of S near the null's bulk beyond the exact recursion's reach, for its quantiles:
    the scaled-down problems wherever their sizes fit (a pass of about 0.2 s; within 3e-4 nats of
    the exact K from tilt -3 to 0.3 at N = 1e5, P = 1e4 and N = 3e5, P = 3e3), the compressed
    knots otherwise (up to about 25,000 positives with few items each)."""
    if scaled_sizes(N, P):
        return ScaledCGF(N, P)
    return KnotsCGF(N, P, parallel=True)


def _refined(
    sd: ScaledSaddle,
    s: float,
    out: tuple[float, tuple[float, float] | None, bool],
    log10_bound: float,
    rtol: float,
    max_work: int | None,
    progress: bool | None,
) -> tuple[float, tuple[float, float] | None, bool]:
    """``out`` of ``sd`` again with scaled-down problems of twice the positives
    (:data:`pranker.null.cgf.SCALED_REFINE_CELLS`), started from its saddle point, where the
    spread alone made its interval wider than twice ``rtol``
    (:func:`pranker.null.choice.within_rtol`) and larger problems fit; ``out`` itself where
    not, or where the work budget stops the second search first."""
    lp, interval, capped = out
    if capped or interval is None or not sd.points:
        return out
    half = max(lp - interval[0], interval[1] - lp)
    if within_rtol(half, rtol) or not within_rtol(sd.base_bound(log10_bound), rtol):
        return out
    sizes = scaled_sizes(sd.N, sd.P, SCALED_REFINE_CELLS, max_positives=SCALED_REFINE_MAX_POSITIVES)
    if sizes is None or sizes == sd.sizes:
        return out
    left = None if max_work is None else max_work - sd.work
    fine = ScaledSaddle(
        sd.N,
        sd.P,
        lumpy_bound=sd.lumpy_bound,
        start=sd.points[-1][0],
        cells=SCALED_REFINE_CELLS,
        max_positives=SCALED_REFINE_MAX_POSITIVES,
        max_work=left,
        progress=progress,
    )
    again = fine.bounded_tail(s, log10_bound)
    return out if again[2] else again


def large_p_tail(
    N: int,
    P: int,
    s: float,
    log10_bound: float | None,
    max_work: int | None,
    progress: bool | None = False,
    rtol: float | None = None,
) -> tuple[float, tuple[float, float] | None, bool]:
    """``(log10 p, log10 interval, capped)`` of ``P(S >= s)`` beyond the exact recursion's reach.

    The route: :class:`ScaledSaddle` beyond 2*10^5 positives or 10 items per
    positive (where its sizes fit); below, :class:`LargePSaddle`, except for a threshold whose
    first tilt (:meth:`pranker.null.cgf.KnotsCGF.first_guess`) is at least
    ``log(N / P) +`` :data:`pranker.null.choice.SCALED_BEYOND_TILT` with a
    measured bound (``log10_bound`` not None): past the tilted law's change
    of regime the scaled CGF is exact to its spread and costs a third of the
    knots' passes. ``log10_bound`` is the region's bound; the scaled
    route reports :data:`SCALED_LOG10_BOUND` plus its spread, and, with
    more than 10 items per positive, the rest of the region's bound where S
    is lumpy (:meth:`ScaledSaddle.lumpy`). With ``rtol``, an answer whose
    interval the spread alone makes wider than twice ``rtol`` is searched
    again on larger problems (:func:`_refined`). The choice depends on
    ``s`` (and ``rtol``) alone, and so does the answer.
    """
    if saddlepoint_backend(N, P) == "scaled" and scaled_sizes(N, P):
        lumpy = 0.0
        if log10_bound is not None and N > LARGE_P_MAX_ITEMS_PER_POSITIVE * P:
            lumpy, log10_bound = log10_bound - SCALED_LOG10_BOUND, SCALED_LOG10_BOUND
        sd = ScaledSaddle(N, P, lumpy_bound=lumpy, max_work=max_work, progress=progress)
        out = sd.bounded_tail(s, log10_bound)
        if rtol is None or log10_bound is None:
            return out
        return _refined(sd, s, out, log10_bound, rtol, max_work, progress)
    knots = LargePSaddle(N, P, parallel=True, progress=progress, max_work=max_work)
    if log10_bound is not None and knots.mean_s < s < P and scaled_sizes(N, P):
        try:
            phi0 = knots.first_guess(s)
        except OutOfWork:
            phi0 = 0.0  # the knots' bounds answer below
        if phi0 >= math.log(N / P) + SCALED_BEYOND_TILT:
            left = None if max_work is None else max_work - knots.work
            scaled = ScaledSaddle(N, P, max_work=left, progress=progress)
            return scaled.bounded_tail(s, SCALED_LOG10_BOUND)
    return knots.bounded_tail(s, log10_bound)
