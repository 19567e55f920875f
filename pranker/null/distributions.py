r"""Every null distribution of AP behind one interface.

A null distribution of AP for N instances and P positives answers the same
questions whatever it is made of:

============  ==============================================================
``sf(a)``     P(AP_null >= a) (ties within 1e-12 relative counted as >=)
``logsf(a)``  its natural log, finite where ``sf`` underflows
``cdf(a)``    P(AP_null <= a)
``ppf(q)``    the q-quantile
``interval``  the central interval holding ``conf_level`` of the null
``pvalue(a)`` a :class:`PValue`: the estimate, its log10, its uncertainty
              and how it was obtained
``mean, var`` the exact null moments (closed forms)
============  ==============================================================

The kinds, by ``method``:

- ``"exact"`` (:class:`ExactNull`): counted placements; exact p-values.
- ``"tilt"`` (:class:`TiltNull`): the exact-tilt estimator of
  :mod:`pranker.null.tilt`: unbiased, to a stated relative standard error, at
  any depth of the tail. Quantiles (``ppf``, ``interval``) from 65,536 seeded
  random rankings.
- ``"saddlepoint"`` (:class:`SaddlepointNull`): Lugannani–Rice on the exact
  cumulant generating function (on an accurate compressed one beyond 10^8
  recursion cells); deterministic, with the measured error bound as its
  interval where one was measured, and none elsewhere.
- ``"montecarlo"`` (:class:`MonteCarloNull`): random placements; resolves
  p-values down to about 1 / n_draws.
- ``"beta"`` (:class:`BetaNull`): the two-moment beta of Lopes & Bontempi
  (2014), as in the R package; O(1) but unreliable in the tail.
- ``"skewbeta"`` (:class:`SkewBetaNull`): a beta matched to three moments.

:func:`null_distribution` builds one by name.
"""

from __future__ import annotations

import inspect
import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .._docs import fill_doc
from .._numba import moments as _kernels
from .._results import renamed_parameters
from .._validation import check_count_pair
from .beta import beta_fit
from .choice import (
    DEFAULT_MC_DRAWS,
    SADDLEPOINT_MAX_CELLS,
    SADDLEPOINT_MAX_DEPTH,
    SADDLEPOINT_MAX_LUMP,
    SADDLEPOINT_PINNED_LOG10_BOUND,
    auto_method,
    large_p_log10_bound,
    large_p_region,
    saddlepoint_log10_bound,
    saddlepoint_pinned_min_depth,
    saddlepoint_pinned_region,
)
from .moments import _min_auprc_pair
from .saddle_large import LargePSaddle
from .saddlepoint import SaddlepointTail, saddlepoint_tail, top_lumpiness
from .tilt import DEFAULT_MAX_DRAWS, DEFAULT_RTOL, DEFAULT_SEED, REL_TOL, TiltEngine

if TYPE_CHECKING:
    from .beta import BetaFit
    from .skewbeta import SkewBetaFit

__all__ = [
    "PValue",
    "NullDistribution",
    "ExactNull",
    "TiltNull",
    "SaddlepointNull",
    "MonteCarloNull",
    "BetaNull",
    "SkewBetaNull",
    "null_distribution",
]

NULL_METHODS = ("exact", "tilt", "saddlepoint", "montecarlo", "beta", "skewbeta")
_LN10 = math.log(10.0)


@dataclass(frozen=True)
class PValue:
    """A p-value with the facts needed to trust it.

    Attributes
    ----------
    pvalue : float
        The estimate (0.0 only if it underflows float64: see ``log10_pvalue``).
    log10_pvalue : float
        Its base-10 logarithm, finite down to the smallest possible p-value
        ``1 / C(N, P)``.
    pvalue_interval : (float, float) or None
        Confidence interval for the true p-value (exact: the value twice;
        estimators: at ``conf_level``; approximations without an error
        bound: None).
    log10_pvalue_interval : (float, float) or None
        The same in log10 (finite where the linear values underflow).
    pvalue_rse : float or None
        Relative standard error of the estimate (0 when exact, None for an
        approximation with no error estimate).
    method : str
        How it was obtained: ``"exact"``, ``"tilt"``, ``"saddlepoint"``,
        ``"montecarlo"``, ``"beta"`` or ``"skewbeta"``.
    n_draws : int or None
        Random draws used (estimators only).
    seed : int or None
        Seed of the draws (estimators only).

    See Also
    --------
    NullDistribution.pvalue : Returns it.
    PrankerResult : The same fields, with the observed AUPRC.

    Examples
    --------
    Of the six placements of 2 positives among 4, three put a positive first
    and have AP >= 3/4 (AP = 1, 5/6, 3/4):

    >>> pv = ExactNull(4, 2).pvalue(0.75)
    >>> pv.pvalue, pv.pvalue_interval, pv.pvalue_rse, pv.method
    (0.5, (0.5, 0.5), 0.0, 'exact')
    """

    pvalue: float
    log10_pvalue: float
    pvalue_interval: tuple | None
    log10_pvalue_interval: tuple | None
    pvalue_rse: float | None
    method: str
    n_draws: int | None = None
    seed: int | None = None

    @classmethod
    def exact(cls, p: float, log10_p: float | None = None) -> PValue:
        lp = log10_p if log10_p is not None else (math.log10(p) if p > 0 else -math.inf)
        return cls(float(p), lp, (float(p), float(p)), (lp, lp), 0.0, "exact")

    @classmethod
    def approximate(cls, p: float, method: str, log10_p: float | None = None) -> PValue:
        lp = log10_p if log10_p is not None else (math.log10(p) if p > 0 else -math.inf)
        return cls(float(p), lp, None, None, None, method)


class NullCurve(NamedTuple):
    """Points of a curve that shows a null distribution, and what they are.

    Returned by :meth:`NullDistribution.density_grid` (the density; ``x``
    holds bin edges, one more than ``y``, when ``y`` are the exact
    probabilities binned) and :meth:`NullDistribution.tail_curve` (``y`` is
    ``log10 P(AP_null >= x)``).

    Attributes
    ----------
    x, y : numpy.ndarray
        The points (or bin edges and values).
    label : str
        Where the values come from, in words (for a legend).
    """

    x: np.ndarray
    y: np.ndarray
    label: str


# P (N - P + 1) up to which the saddlepoint curve is computed point by point for a
# figure (a few ms a point at 1e5 cells; seconds a point at 1e7)
DISPLAY_CELLS = 1_000_000
# the quantiles bounding the bulk of a null on a figure
_DISPLAY_TAIL = 1e-3
# points of the display curves read off the saddlepoint or the cdf
_DISPLAY_POINTS = 81


# Docstring fragments of this module (pranker._docs.fill_doc).
_DOCS = {
    "null_attributes": (
        "n, n_pos, mean, var, min_auprc, method, interval_method\n    As in :class:`NullDistribution`."
    ),
}


def _pow10(x: float) -> float:
    return 10.0**x if x > -330.0 else 0.0


@fill_doc()
class NullDistribution:
    """Interface of the null distributions of AP under random ranking.

    Every kind (exact, tilt, saddlepoint, Monte Carlo, beta, skew-beta)
    answers ``sf``, ``logsf``, ``cdf``, ``ppf``, ``interval`` and ``pvalue``
    for the AP of N instances with P positives.

    Parameters
    ----------
    n, n_pos : int
        Number of instances N and of positives P, ``1 <= P <= N``.

    Attributes
    ----------
    n, n_pos : int
        Number of instances and of positives (also ``N``, ``P``, the notation
        of the formulas).
    method : str
        Name of the kind (``"exact"``, ``"tilt"``, ...), as accepted by
        :func:`null_distribution`.
    interval_method : str
        How ``interval`` is computed.
    mean, var : float
        The exact null mean and variance (closed forms, as
        :func:`pranker.null_params`).
    min_auprc : float
        The smallest possible AP (all positives ranked last).

    See Also
    --------
    null_distribution : Builds one by name.
    PValue : What ``pvalue`` returns.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    With N = 4 and P = 2 the six placements give AP = 1, 5/6, 3/4, 7/12, 1/2
    and 5/12:

    >>> null = null_distribution(4, 2, "exact")
    >>> isinstance(null, NullDistribution), float(null.sf(0.75))
    (True, 0.5)
    >>> round(null.mean * 72, 10)  # (1 + 5/6 + 3/4 + 7/12 + 1/2 + 5/12) / 6 = 49/72
    49.0
    """

    method = ""
    interval_method = ""
    # the counts under the package's names (per query, as arrays, for a null over queries)
    n: Any
    n_pos: Any

    @renamed_parameters(N="n", P="n_pos")
    def __init__(self, n: int, n_pos: int):
        N, P = n, n_pos  # the paper's notation in the formulas below
        self.N, self.P = check_count_pair(N, P)
        # the counts under the package's names; N and P stay as the formulas' notation
        self.n, self.n_pos = self.N, self.P
        self._moments: tuple[float, float] | None = None

    # the exact moments, shared by every kind
    @property
    def mean(self) -> float:
        return self._exact_moments()[0]

    @property
    def var(self) -> float:
        return self._exact_moments()[1]

    def _exact_moments(self):
        if self._moments is None:
            m, v = _kernels.null_moments(float(self.N), float(self.P), float(self.N - self.P))
            self._moments = (float(m), float(v))
        return self._moments

    def set_moments(self, params) -> None:
        """Use precomputed null moments ``(mean, var)`` (e.g. from a null table)
        instead of computing them; only ``mean`` and ``var`` change."""
        self._moments = (float(params[0]), float(params[1]))

    @property
    def min_auprc(self) -> float:
        return float(_min_auprc_pair(self.N, self.P)[0])

    # the verbs
    def pvalue(self, ap: float, conf_level: float = 0.95) -> PValue:  # pragma: no cover
        raise NotImplementedError

    def sf(self, ap):
        """P(AP_null >= ap)."""
        return _vectorize(lambda a: self.pvalue(a).pvalue, ap)

    def logsf(self, ap):
        """Natural log of ``sf``, finite where ``sf`` underflows."""
        return _vectorize(lambda a: self.pvalue(a).log10_pvalue * _LN10, ap)

    def cdf(self, ap):  # pragma: no cover
        raise NotImplementedError

    def ppf(self, q):  # pragma: no cover
        raise NotImplementedError

    def interval(self, conf_level: float = 0.95) -> tuple:
        """Central interval holding ``conf_level`` of the null AP."""
        lo = self.ppf((1.0 - conf_level) / 2.0)
        hi = self.ppf((1.0 + conf_level) / 2.0)
        return float(lo), float(hi)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(N={self.N}, P={self.P})"

    # shared closed forms at the ends of the support
    def known_pvalue(self, ap: float):
        """:meth:`edge_pvalue`, or the exact p-value when P = 1; else None."""
        edge = self.edge_pvalue(ap)
        if edge is None and self.P == 1:
            return ExactNull(self.N, 1).pvalue(ap)
        return edge

    def edge_pvalue(self, ap: float):
        """The exact p-value where it is known in closed form, else None.

        AP at or below its minimum: p = 1. AP above the second largest value
        ``(P - 1/(P+1)) / P``: only the perfect ranking, p = 1 / C(N, P).
        P = N: AP = 1 always.
        """
        n, p = self.N, self.P
        if p == n:
            return PValue.exact(1.0 if ap <= 1.0 + REL_TOL else 0.0)
        if ap > 1.0 + REL_TOL:
            return PValue.exact(0.0)
        lo = self.min_auprc
        if ap * (1.0 - REL_TOL) <= lo:
            return PValue.exact(1.0)
        second = (p - 1.0 / (p + 1.0)) / p
        if second < ap * (1.0 - REL_TOL):
            return _one_over_comb(n, p)
        return None

    # what a figure of the null shows (pranker.plotting draws these)
    def _display_source(self) -> str:
        """Where the display statistics come from: ``"cdf"`` (``cdf`` and ``ppf``
        vectorised and instant), ``"saddlepoint"`` (the Lugannani-Rice curve,
        affordable point by point) or ``""`` (a Monte Carlo sample when one is
        given, else the beta on the exact mean and variance)."""
        return ""

    def _saddlepoint_affordable(self) -> bool:
        return self.P * (self.N - self.P + 1) <= DISPLAY_CELLS

    def display_support(self, samples=None) -> tuple[float, float]:
        """The bulk of the null on the AP axis: its 0.001 and 0.999 quantiles.

        From the null itself when that is instant (exact counts that fit in
        memory, beta, skew-beta, or a saddlepoint small enough), else from
        the Monte Carlo sample ``samples`` when it has more than 100 values,
        else from the beta matched to the exact mean and variance (a display
        range only: no p-value is read from it).

        Parameters
        ----------
        samples : array_like, optional
            Null AP values from random rankings.

        Returns
        -------
        (float, float)
            The low and high quantiles.

        Examples
        --------
        >>> lo, hi = null_distribution(20, 5, "exact").display_support()
        >>> bool(0 < lo < 0.3 < hi < 1)
        True
        """
        q = [_DISPLAY_TAIL, 1.0 - _DISPLAY_TAIL]
        if self._display_source():
            lo, hi = (float(v) for v in np.atleast_1d(self.ppf(q)))
        elif samples is not None and np.size(samples) > 100:
            lo, hi = (float(v) for v in np.quantile(samples, q))
        else:
            fit = beta_fit(self.mean, self.var, self.N, self.P)
            lo, hi = (float(v) for v in fit.ppf(q))
        return lo, hi

    def density_grid(self, lo: float, hi: float, points: int = 400) -> NullCurve:
        """The null density on ``[max(lo, min_auprc), hi]``, from the cheapest faithful source.

        Exact counts: their probabilities in (at most 81) bins, ``x`` the bin
        edges. Beta and skew-beta: the probability of each such bin over its
        width, at its middle. Tilt and saddlepoint nulls small enough
        (``P (N - P + 1)`` up to ``DISPLAY_CELLS``): the same from the
        saddlepoint survival function. Otherwise the pdf of the beta matched
        to the exact mean and variance at ``points`` points (its shape only).

        Parameters
        ----------
        lo, hi : float
            The range on the AP axis.
        points : int
            Points of the beta-shape fallback (and the most bins).

        Returns
        -------
        NullCurve
            ``x``, the density ``y`` (bin edges in ``x`` for exact counts) and
            its source in words.

        Examples
        --------
        >>> c = null_distribution(20, 5, "exact").density_grid(0.2, 1.0)
        >>> c.x.size == c.y.size + 1, c.label
        (True, 'exact null (binned)')
        """
        x = np.linspace(max(lo, self.min_auprc), hi, points)
        source = self._display_source()
        if source:
            g = np.linspace(x[0], x[-1], min(x.size, _DISPLAY_POINTS))
            if source == "cdf":
                prob = np.diff(np.asarray(self.cdf(g), dtype=np.float64))
            else:
                prob = -np.diff(np.exp(np.asarray(self._saddlepoint().logsf(g), dtype=np.float64)))
            dens = np.maximum(prob, 0.0) / np.diff(g)
            if self.method == "exact":
                return NullCurve(g, dens, "exact null (binned)")
            return NullCurve(0.5 * (g[1:] + g[:-1]), dens, self._density_label())
        fit = beta_fit(self.mean, self.var, self.N, self.P)
        d = np.asarray(fit.pdf(x), dtype=np.float64)
        return NullCurve(
            x,
            np.where(np.isfinite(d), d, np.nan),
            "null shape: beta on the exact mean and variance",
        )

    def _density_label(self) -> str:
        return "null density (saddlepoint)"

    def _saddlepoint(self) -> NullDistribution:
        """The saddlepoint null of the same N and P (its curve needs no draws)."""
        return SaddlepointNull(self.N, self.P, seed=getattr(self, "seed", None))

    def tail_curve(self, a, samples=None) -> NullCurve | None:
        """``log10 P(AP_null >= a)`` on the grid ``a``, or None where that would be slow.

        Exact counts, beta and skew-beta: their survival function. Tilt and
        saddlepoint nulls small enough (``P (N - P + 1)`` up to
        ``DISPLAY_CELLS``): the saddlepoint curve (deterministic; for the
        tilt null, the approximation its estimates are drawn on). Otherwise
        the empirical survival function of ``samples`` (where positive), or
        None without them.

        Parameters
        ----------
        a : array_like
            AP values, increasing.
        samples : array_like, optional
            Null AP values from random rankings.

        Returns
        -------
        NullCurve or None
            ``x`` the AP values, ``y`` the log10 survival function (``-inf``
            where it is 0) and its source in words.

        Examples
        --------
        >>> c = null_distribution(4, 2, "exact").tail_curve([0.75])
        >>> float(c.y[0]) == float(np.log10(0.5)), c.label  # 3 of the 6 placements
        (True, 'exact survival function')
        """
        a = np.asarray(a, dtype=np.float64)
        source = self._display_source()
        if source == "cdf":
            with np.errstate(divide="ignore"):
                return NullCurve(
                    a, np.log10(np.clip(self._display_sf(a), 0.0, 1.0)), self._tail_label()
                )
        if source == "saddlepoint":
            lsf = np.asarray(self._saddlepoint().logsf(a), dtype=np.float64)
            return NullCurve(a, lsf / _LN10, self._tail_label())
        if samples is not None and np.size(samples) > 0:
            s = np.sort(np.asarray(samples, dtype=np.float64).ravel())
            sf = 1.0 - np.searchsorted(s, a, side="left") / s.size
            keep = sf > 0
            return NullCurve(
                a[keep], np.log10(sf[keep]), f"Monte Carlo ({s.size:,} random rankings)"
            )
        return None

    def _display_sf(self, a: np.ndarray) -> np.ndarray:
        """The survival function on a grid, for nulls whose ``sf`` is vectorised."""
        return np.asarray(self.sf(a), dtype=np.float64)

    def _tail_label(self) -> str:
        return f"{self.method} survival function"

    @staticmethod
    def log10_interval(pvalue, conf_level: float | None = None) -> tuple[float, float] | None:
        """The interval of a p-value on the log10 scale, or None when it has no error bound.

        Read from the p-value itself: its ``log10_pvalue_interval`` when it
        carries one (a :class:`PValue`), else the log10 of its
        ``pvalue_interval`` (a lower end of 0 becomes ``-inf``), else, from
        its relative standard error, ``log10 p + log10(1 -+ z rse)`` with
        ``z`` the normal quantile of ``conf_level`` (the interval of the
        tilt estimator; ``-inf`` where ``1 - z rse <= 0``).

        Parameters
        ----------
        pvalue : PValue or PrankerResult
            Anything with ``log10_pvalue`` and, optionally,
            ``log10_pvalue_interval``, ``pvalue_interval``, ``pvalue_rse``
            and ``conf_level``.
        conf_level : float, optional
            Coverage of an interval built from the relative standard error;
            default the p-value's own ``conf_level``, else 0.95.

        Returns
        -------
        (float, float) or None
            Low and high ends of the interval of ``log10 p``.

        Examples
        --------
        >>> pv = PValue(0.01, -2.0, None, None, 0.1, "tilt")
        >>> lo, hi = NullDistribution.log10_interval(pv, 0.95)
        >>> round(10**lo, 6), round(10**hi, 6)  # 0.01 (1 -+ 1.96 x 0.1)
        (0.00804, 0.01196)
        """
        iv = getattr(pvalue, "log10_pvalue_interval", None)
        if iv is not None:
            return float(iv[0]), float(iv[1])
        lg, rse = (getattr(pvalue, k, None) for k in ("log10_pvalue", "pvalue_rse"))
        lg, rse = (math.nan if v is None else float(v) for v in (lg, rse))
        by_rse = math.isfinite(lg) and math.isfinite(rse) and rse > 0
        iv = getattr(pvalue, "pvalue_interval", None)
        if iv is not None:
            lo, hi = float(iv[0]), float(iv[1])
            if lo > 0.0 and hi > 0.0:
                return math.log10(lo), math.log10(hi)
            # a lower end of 0: the true one (Monte Carlo), or an underflow of a tilt estimate
            if hi > 0.0 and lo == 0.0 and not (by_rse and getattr(pvalue, "method", "") == "tilt"):
                return -math.inf, math.log10(hi)
        if not by_rse:
            return None
        from scipy.special import ndtri

        if conf_level is None:
            conf_level = float(getattr(pvalue, "conf_level", 0.95))
        z = float(ndtri(0.5 + conf_level / 2.0))
        lo_f, hi_f = 1.0 - z * rse, 1.0 + z * rse
        low = lg + math.log10(lo_f) if lo_f > 0.0 else -math.inf
        return low, min(lg + math.log10(hi_f), 0.0)


def _one_over_comb(n: int, p: int) -> PValue:
    """The exact p-value 1 / C(n, p) (in log10 where the float underflows)."""
    log10_c = _log10_comb(n, p)
    if log10_c < 300.0:
        c = math.comb(n, p)
        return PValue.exact(1.0 / c, -math.log10(c))
    return PValue.exact(_pow10(-log10_c), -log10_c)


def _vectorize(f, x):
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 0:
        return float(f(float(arr)))
    return np.array([f(float(v)) for v in arr.ravel()]).reshape(arr.shape)


# ---------------------------------------------------------------------------
@fill_doc(_DOCS)
class ExactNull(NullDistribution):
    """The exact null: counted placements (:mod:`pranker.null.exact`).

    Parameters
    ----------
    n, n_pos : int
        Number of instances N and of positives P, ``1 <= P <= N``.
    max_nodes : int, optional
        Budget of the tail count (default ``EXACT_MAX_NODES``); beyond it
        :class:`pranker.ExactBudgetExceeded` is raised.

    Attributes
    ----------
    %(null_attributes)s
    max_nodes : int
        Budget of the tail count.

    See Also
    --------
    exact_pvalue : The tail count itself.
    exact_null_distribution : The whole distribution for small C(N, P).
    TiltNull : Unbiased estimates where counting is too slow.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    The six placements of 2 positives among 4 have AP 5/12, 1/2, 7/12, 3/4,
    5/6 and 1:

    >>> null = ExactNull(4, 2)
    >>> float(null.cdf(0.5)) == 2 / 6, float(null.sf(0.75)) == 3 / 6
    (True, True)
    >>> bool(abs(null.ppf(0.5) - 7 / 12) < 1e-12)  # the first value with cdf >= 1/2
    True

    p-values by the bounded tail count; quantiles from the full distribution
    when C(N, P) is small enough to enumerate, else from the saddlepoint.
    """

    method = "exact"

    @renamed_parameters(N="n", P="n_pos")
    def __init__(self, n: int, n_pos: int, *, max_nodes: int | None = None):
        N, P = n, n_pos  # the paper's notation in the formulas below
        super().__init__(N, P)
        from .exact import EXACT_MAX_NODES

        self.max_nodes = EXACT_MAX_NODES if max_nodes is None else int(max_nodes)
        self._dist = None

    @property
    def interval_method(self) -> str:  # type: ignore[override]  # a class attribute elsewhere
        return "exact" if self._enumerable() else "montecarlo"

    def _enumerable(self) -> bool:
        from .exact import EXACT_DISTRIBUTION_LIMIT

        return (
            self.P == 1 or self.P == self.N or math.comb(self.N, self.P) <= EXACT_DISTRIBUTION_LIMIT
        )

    def pvalue(self, ap: float, conf_level: float = 0.95) -> PValue:
        from .exact import exact_pvalue

        edge = self.edge_pvalue(ap)
        if edge is not None:
            return edge
        pv, count, total = exact_pvalue(
            ap, self.N, self.P, max_nodes=self.max_nodes, return_count=True
        )
        if pv > 0.0 or count == 0:
            return PValue.exact(pv)
        return PValue.exact(pv, math.log10(count) - _log10_comb(self.N, self.P))

    def _distribution(self):
        if self._dist is None:
            if self.P == 1:
                r = np.arange(self.N, 0, -1, dtype=np.float64)
                self._dist = (1.0 / r, np.ones(self.N), float(self.N))
            elif self.P == self.N:
                self._dist = (np.array([1.0]), np.array([1.0]), 1.0)
            else:
                from .exact import exact_null_distribution

                d = exact_null_distribution(self.N, self.P)
                self._dist = (d.values, d.counts.astype(np.float64), float(d.total))
        return self._dist

    def cdf(self, ap):
        if not self._enumerable():
            return _vectorize(lambda a: 1.0 - self._gt(a), ap)
        values, counts, total = self._distribution()
        cum = np.cumsum(counts) / total
        a = np.asarray(ap, dtype=np.float64)
        idx = np.searchsorted(values, a * (1.0 + REL_TOL), side="right")
        return np.where(idx > 0, cum[np.maximum(idx - 1, 0)], 0.0)[()]

    def _gt(self, a: float) -> float:
        return self.pvalue(a * (1.0 + 2.0 * REL_TOL)).pvalue

    def _display_source(self) -> str:
        return "cdf" if self._enumerable() else ""

    def _display_sf(self, a: np.ndarray) -> np.ndarray:
        # P(AP >= a) = 1 - P(AP < a): the cdf just below a
        below = np.nextafter(a * (1.0 - 1e-9), -np.inf)
        return 1.0 - np.asarray(self.cdf(below), dtype=np.float64)

    def _tail_label(self) -> str:
        return "exact survival function"

    def ppf(self, q):
        if not self._enumerable():
            return _null_quantiles(self.N, self.P, DEFAULT_SEED, q)
        values, counts, total = self._distribution()
        cum = np.cumsum(counts) / total
        qa = np.asarray(q, dtype=np.float64)
        idx = np.searchsorted(cum, qa * (1.0 - 1e-15), side="left")
        return values[np.minimum(idx, len(values) - 1)][()]


def _log10_comb(n: int, p: int) -> float:
    return (math.lgamma(n + 1.0) - math.lgamma(p + 1.0) - math.lgamma(n - p + 1.0)) / _LN10


# ---------------------------------------------------------------------------
_ENGINES: OrderedDict = OrderedDict()
_ENGINE_CACHE = 8


def tilt_engine(N: int, P: int, seed: int = DEFAULT_SEED) -> TiltEngine:
    """The shared :class:`TiltEngine` of (N, P, seed) (a small LRU cache).

    Caching changes no number: estimates depend only on (N, P, seed, AP).
    Only the engine in use keeps its layers and draws (up to ~160 MB, or the
    compressed proposal's tables); the others keep their cheap CGF values.
    A loop over many rankings of different sizes therefore holds the memory
    of one (it held about 80 MB more per (N, P) at N = 10^5, P = 100).
    """
    key = (int(N), int(P), int(seed))
    last = next(reversed(_ENGINES)) if _ENGINES else None
    if last is not None and last != key:  # another engine was in use: free its tables
        _ENGINES[last].release()
    eng = _ENGINES.get(key)
    if eng is None:
        eng = TiltEngine(N, P, seed)
        _ENGINES[key] = eng
        while len(_ENGINES) > _ENGINE_CACHE:
            _, old = _ENGINES.popitem(last=False)
            old.release()
    else:
        _ENGINES.move_to_end(key)
    return eng


@fill_doc(_DOCS)
class TiltNull(NullDistribution):
    """The tilt null: unbiased tail estimates at any depth, for any N (:mod:`pranker.null.tilt`).

    Importance sampling from the law tilted towards the threshold, each
    draw weighted by its exact likelihood ratio. While the exact layers take
    at most 128 MB (``P (N - P + 1) <= 1.6e7``) the proposal is the exactly
    tilted law; beyond, a compressed proposal on ~2,000 knots per positive
    with state-dependent tilting of the lowest positives
    (:mod:`pranker.null.compressed`): its tables stay below ~130 MB for any
    N and P, and the estimate stays unbiased with the same relative standard
    error target.

    Parameters
    ----------
    n, n_pos : int
        Number of instances N and of positives P, ``1 <= P <= N``.
    rtol : float
        Target relative standard error of each p-value (default 0.02).
    seed : int
        Seed of the draw streams (default fixed, so the same call gives the
        same number).
    max_draws : int
        Upper bound on draws per p-value (2**20 by default).
    progress : bool or None
        A progress bar (tqdm) for p-values whose draws are predicted to take
        more than about 2 s: always (True), never (False), or only when
        stderr is a terminal (None, the default).

    Attributes
    ----------
    %(null_attributes)s
    rtol, seed, max_draws
        As given (``seed`` filled in with the fixed default).

    See Also
    --------
    ExactNull : Counted placements, where they are affordable.
    SaddlepointNull : Deterministic, without an error estimate.

    References
    ----------
    .. [1] D. Siegmund, "Importance sampling in the Monte Carlo study of
       sequential tests", Ann. Statist. 4 (1976) 673-684.
    .. [2] J. Blanchet, K. Leder and P. W. Glynn, "Efficient simulation of
       light-tailed sums: an old-folk song sung to a faster new tune", in
       Monte Carlo and Quasi-Monte Carlo Methods 2008, Springer 2009.

    Examples
    --------
    Against the exact count, the estimate is within a few of its relative
    standard errors:

    >>> exact = ExactNull(40, 4).pvalue(0.6).pvalue
    >>> est = TiltNull(40, 4).pvalue(0.6)
    >>> est.method, est.pvalue_rse <= 0.02
    ('tilt', True)
    >>> bool(abs(est.pvalue / exact - 1) < 4 * est.pvalue_rse)
    True
    """

    method = "tilt"
    interval_method = "montecarlo"

    @renamed_parameters(N="n", P="n_pos")
    def __init__(
        self,
        n: int,
        n_pos: int,
        *,
        rtol: float = DEFAULT_RTOL,
        seed: int | None = None,
        max_draws: int | None = None,
        progress: bool | None = None,
    ):
        N, P = n, n_pos  # the paper's notation in the formulas below
        super().__init__(N, P)
        self.progress = progress
        if not (0.0 < float(rtol) < 1.0):
            raise ValueError(f"rtol must be in (0, 1); got {rtol!r}.")
        self.rtol = float(rtol)
        self.seed = DEFAULT_SEED if seed is None else int(seed)
        self.max_draws = DEFAULT_MAX_DRAWS if max_draws is None else int(max_draws)
        if self.max_draws < 1:
            raise ValueError(f"max_draws must be >= 1; got {max_draws!r}.")

    @property
    def engine(self) -> TiltEngine:
        return tilt_engine(self.N, self.P, self.seed)

    def tail_pvalue(
        self, ap: float, *, upper: bool = True, conf_level: float = 0.95, index: int | None = None
    ) -> PValue:
        """The tilted estimate of ``P(AP >= ap)`` (``upper``) or ``P(AP <= ap)``.

        ``index``: the grid point, when the caller already knows it (it is
        a function of ``ap``; see :meth:`TiltEngine.grid_index`).
        """
        est = self.engine.tail(
            ap * self.P,
            upper=upper,
            rtol=self.rtol,
            max_draws=self.max_draws,
            conf_level=conf_level,
            index=index,
            progress=self.progress,
        )
        lo, hi = est.log10_interval
        return PValue(
            pvalue=est.pvalue,
            log10_pvalue=est.log10_pvalue,
            pvalue_interval=(_pow10(lo), _pow10(hi)),
            log10_pvalue_interval=(lo, hi),
            pvalue_rse=est.rse,
            method="tilt",
            n_draws=est.n_draws,
            seed=self.seed,
        )

    def pvalue(self, ap: float, conf_level: float = 0.95) -> PValue:
        known = self.known_pvalue(ap)
        if known is not None:
            return known
        return self.tail_pvalue(float(ap), conf_level=conf_level)

    def cdf(self, ap):
        def one(a):
            if self.P == 1 or self.P == self.N:
                return float(ExactNull(self.N, self.P).cdf(a))
            if a >= 1.0:
                return 1.0
            if a * (1.0 + REL_TOL) < self.min_auprc:
                return 0.0
            return self.tail_pvalue(a, upper=False).pvalue

        return _vectorize(one, ap)

    def ppf(self, q):
        """Quantiles of the null AP from ``QUANTILE_DRAWS`` seeded random rankings.

        The central interval of the null needs no tail engine; the saddlepoint
        is unreliable there when P is small and N large (the null is very
        skewed), so the quantiles come from plain Monte Carlo with the fixed
        seed: their standard error is ``sqrt(q (1 - q) / n) / density``.
        """
        return _null_quantiles(self.N, self.P, self.seed, q)

    def _display_source(self) -> str:
        return "saddlepoint" if self._saddlepoint_affordable() else ""

    def _tail_label(self) -> str:
        return "saddlepoint approximation"


QUANTILE_DRAWS = 1 << 16


def _null_quantiles(N, P, seed, q):
    from .moments import null_ap_samples

    key = (N, P, seed)
    x = _QUANTILE_SAMPLES.get(key)
    if x is None:
        x = np.sort(null_ap_samples(N, P, QUANTILE_DRAWS, seed=seed))
        _QUANTILE_SAMPLES[key] = x
        while len(_QUANTILE_SAMPLES) > _ENGINE_CACHE:
            _QUANTILE_SAMPLES.popitem(last=False)
    return np.quantile(x, q)[()]


_QUANTILE_SAMPLES: OrderedDict = OrderedDict()


# ---------------------------------------------------------------------------
@fill_doc(_DOCS)
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
    compressed pass (:class:`pranker.null.saddle_large.LargePSaddle`, first
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
    rtol, max_draws
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
        progress: bool | None = None,
    ):
        N, P = n, n_pos  # the paper's notation in the formulas below
        super().__init__(N, P)
        self.seed = DEFAULT_SEED if seed is None else int(seed)
        self.tilt_beyond = bool(tilt_beyond)
        self.rtol = DEFAULT_RTOL if rtol is None else float(rtol)
        self.max_draws = max_draws
        self.progress = progress

    @property
    def engine(self) -> TiltEngine:
        """The shared CGF and sampler of (N, P, seed) behind the passes (and the tilt, with ``tilt_beyond``)."""
        return tilt_engine(self.N, self.P, self.seed)

    def log10_bound(self, ap: float) -> float | None:
        """The measured bound on the log10 error at ``ap``, or None where none has been measured.

        Where the bound depends on the pinning of the top positives
        (:func:`pranker.null.choice.saddlepoint_pinned_region`) this solves
        the saddle point: the work of a p-value.
        """
        return self._tail_and_bound(float(ap))[1]

    def _tail_and_bound(self, ap: float) -> tuple[SaddlepointTail | None, float | None]:
        """``(tail, bound)``: the measured log10 bound at ``ap`` (None: none), and the
        saddlepoint tail when finding the bound needed it (None otherwise)."""
        if large_p_region(self.N, self.P):
            mean_s = (
                self.P
                * _kernels.null_moments(float(self.N), float(self.P), float(self.N - self.P))[0]
            )
            depth = (ap * self.P - mean_s) / (self.P - mean_s)
            return None, (
                large_p_log10_bound(self.N, self.P) if depth <= SADDLEPOINT_MAX_DEPTH else None
            )
        eng = tilt_engine(self.N, self.P, self.seed)
        depth = (ap * self.P - eng.mean_s) / (self.P - eng.mean_s)
        bound = saddlepoint_log10_bound(self.N, self.P)
        if bound is not None:
            return None, (bound if depth <= SADDLEPOINT_MAX_DEPTH else None)
        if not (
            saddlepoint_pinned_region(self.N, self.P)
            and saddlepoint_pinned_min_depth(self.P) <= depth <= SADDLEPOINT_MAX_DEPTH
        ):
            return None, None
        tail = saddlepoint_tail(eng, ap * self.P, True, self.progress)
        k2 = (tail.u / tail.phi) ** 2 if tail.phi > 0.0 else 0.0
        # calibrated for the second-order formula (first order only where its bracket fails)
        pinned = tail.order == 2 and top_lumpiness(eng, tail.phi, k2) <= SADDLEPOINT_MAX_LUMP
        return tail, (SADDLEPOINT_PINNED_LOG10_BOUND if pinned else None)

    def _log_sf(self, ap: float) -> float:
        """Natural log of the saddlepoint upper tail at ``ap``."""
        from scipy.special import ndtr

        if self.P * (self.N - self.P + 1) > SADDLEPOINT_MAX_CELLS:  # large_p_region included
            # the compressed CGF (one object per threshold): its passes cost P B blocks
            # whatever N, where the exact CGF's cost P (N - P + 1) cells (minutes at 10^10)
            return LargePSaddle(self.N, self.P, progress=self.progress).log_sf(ap * self.P)
        eng = tilt_engine(self.N, self.P, self.seed)
        s = ap * self.P
        z = (s - eng.mean_s) / eng.sd_s
        if abs(z) < 1e-4:
            return math.log(ndtr(-z))
        return saddlepoint_tail(eng, s, True, self.progress).log_p

    @staticmethod
    def _lr(phi, s, k, k2, z):
        """log of first-order Lugannani–Rice at the saddle point ``phi`` of ``s``.

        Where the formula breaks down — ``u`` or ``w`` near 0 (``s`` near the
        mean, or the tilted law degenerate near the top of the support), or a
        result outside (0, 1] — the normal tail at ``w`` (or at the
        standardised ``z`` near the mean) is used instead.
        """
        from .tilt import log_sf_lugannani_rice

        w2 = 2.0 * (phi * s - k)
        w = math.copysign(math.sqrt(max(w2, 0.0)), phi)
        return log_sf_lugannani_rice(z, w, phi * math.sqrt(k2))

    def _at_phi(self, phi: float):
        """``(AP at the saddle point phi, log sf there)``: one recursion (first order, for curves)."""
        eng = tilt_engine(self.N, self.P, self.seed)
        k, k1, k2 = eng.cgf(phi)
        z = (k1 - eng.mean_s) / eng.sd_s
        return k1 / self.P, self._lr(phi, k1, k, k2, z)

    def pvalue(self, ap: float, conf_level: float = 0.95) -> PValue:
        known = self.known_pvalue(ap)
        if known is not None:
            return known
        ap = float(ap)
        tail, bound = self._tail_and_bound(ap)
        if self.tilt_beyond and (bound is None or 10.0**bound - 1.0 > 2.0 * self.rtol):
            tilt = TiltNull(
                self.N,
                self.P,
                rtol=self.rtol,
                seed=self.seed,
                max_draws=self.max_draws,
                progress=self.progress,
            )
            return tilt.pvalue(ap, conf_level=conf_level)
        lp = (self._log_sf(ap) if tail is None else tail.log_p) / _LN10
        if bound is None:
            return PValue.approximate(_pow10(lp), "saddlepoint", lp)
        lo, hi = lp - bound, min(lp + bound, 0.0)
        return PValue(
            pvalue=_pow10(lp),
            log10_pvalue=lp,
            pvalue_interval=(_pow10(lo), _pow10(hi)),
            log10_pvalue_interval=(lo, hi),
            pvalue_rse=None,
            method="saddlepoint",
        )

    def _display_source(self) -> str:
        return "saddlepoint" if self._saddlepoint_affordable() else ""

    def _saddlepoint(self) -> NullDistribution:
        return self

    def cdf(self, ap):
        return _vectorize(lambda a: 1.0 - self.pvalue(a).pvalue, ap)

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

        return _vectorize(one, q)


# ---------------------------------------------------------------------------
@fill_doc(_DOCS)
class MonteCarloNull(NullDistribution):
    """Random placements of the positives (:func:`pranker.montecarlo_pvalue`).

    p-values ``(b + 1) / (m + 1)`` with a Clopper–Pearson interval; quantiles
    from ``n_draws`` seeded null draws.

    Parameters
    ----------
    n, n_pos : int
        Number of instances N and of positives P, ``1 <= P <= N``.
    n_draws : int, default 100_000
        Random rankings per p-value.
    seed : int, optional
        Seed of the draws (a fixed default, so the same call gives the same number).
    alpha, abs_tol : float, optional
        Early stopping, as in :func:`pranker.montecarlo_pvalue`.
    progress : bool or None, default False
        Show a progress bar.

    Attributes
    ----------
    %(null_attributes)s
    n_draws, seed
        As given (``seed`` filled in with the fixed default).

    See Also
    --------
    montecarlo_pvalue : The estimator.
    TiltNull : Resolves p-values far below ``1 / n_draws``.

    References
    ----------
    .. [1] B. Phipson and G. K. Smyth, "Permutation p-values should never be
       zero", Stat. Appl. Genet. Mol. Biol. 9(1) (2010).
    .. [2] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial
       limits illustrated in the case of the binomial", Biometrika 26 (1934).

    Examples
    --------
    The Clopper-Pearson interval covers the exact p-value:

    >>> exact = ExactNull(40, 4).pvalue(0.6).pvalue
    >>> mc = MonteCarloNull(40, 4, n_draws=20_000).pvalue(0.6)
    >>> lo, hi = mc.pvalue_interval
    >>> mc.method, bool(lo <= exact <= hi)
    ('montecarlo', True)
    """

    method = "montecarlo"
    interval_method = "montecarlo"

    @renamed_parameters(N="n", P="n_pos")
    def __init__(
        self,
        n: int,
        n_pos: int,
        *,
        n_draws: int = DEFAULT_MC_DRAWS,
        seed: int | None = None,
        alpha: float | None = None,
        abs_tol: float | None = None,
        progress: bool | None = False,
    ):
        N, P = n, n_pos  # the paper's notation in the formulas below
        super().__init__(N, P)
        self.n_draws = int(n_draws)
        self.seed = DEFAULT_SEED if seed is None else int(seed)
        self.alpha = alpha
        self.abs_tol = abs_tol
        self.progress = progress
        self._sample = None

    def pvalue(self, ap: float, conf_level: float = 0.95) -> PValue:
        from .montecarlo import montecarlo_pvalue

        if self.P == self.N:
            return PValue.exact(1.0 if ap <= 1.0 + REL_TOL else 0.0)
        mc = montecarlo_pvalue(
            ap,
            self.N,
            self.P,
            n_draws=self.n_draws,
            seed=self.seed,
            alpha=self.alpha,
            abs_tol=self.abs_tol,
            conf_level=conf_level,
            progress=self.progress,
        )
        lo, hi = (float(v) for v in mc.pvalue_interval)
        return PValue(
            float(mc.pvalue),
            mc.log10_pvalue,
            (lo, hi),
            (math.log10(lo) if lo > 0 else -math.inf, math.log10(hi) if hi > 0 else -math.inf),
            mc.pvalue_rse,
            "montecarlo",
            int(mc.n_draws),
            self.seed,
        )

    def _draws(self):
        if self._sample is None:
            from .moments import null_ap_samples

            self._sample = np.sort(
                null_ap_samples(self.N, self.P, min(self.n_draws, 200_000), seed=self.seed)
            )
        return self._sample

    def cdf(self, ap):
        x = self._draws()
        a = np.asarray(ap, dtype=np.float64)
        return (np.searchsorted(x, a * (1.0 + REL_TOL), side="right") / x.size)[()]

    def ppf(self, q):
        return np.quantile(self._draws(), q)[()]


# ---------------------------------------------------------------------------
class _FittedNull(NullDistribution):
    # A null read off a fitted beta, ``self.fit`` (set by the subclass): its
    # ``sf`` is the p-value, which carries no error bound, and its ``cdf`` the cdf.

    fit: BetaFit | SkewBetaFit

    def pvalue(self, ap: float, conf_level: float = 0.95) -> PValue:
        return PValue.approximate(float(self.fit.sf(ap)), self.method, float(self.fit.log10_sf(ap)))

    def cdf(self, ap):
        return self.fit.cdf(ap)

    def _display_source(self) -> str:
        return "cdf"

    def _density_label(self) -> str:
        what = "mean and variance" if self.method == "beta" else "mean, variance and skewness"
        return f"null: beta fit to the exact {what}"


@fill_doc(_DOCS)
class BetaNull(_FittedNull):
    """The two-moment beta of Lopes & Bontempi (2014), as in the R package.

    O(1); floored at 1 / C(N, P). Its tail can be off by many orders of
    magnitude in either direction when P is small or N / P large; use it to
    reproduce R, not to judge a ranking.

    Parameters
    ----------
    n, n_pos : int
        Number of instances N and of positives P, ``1 <= P <= N``.
    params : (float, float), optional
        Null mean and variance to fit (default: the exact ones).

    Attributes
    ----------
    %(null_attributes)s
    fit : BetaFit
        The fitted beta.

    See Also
    --------
    beta_fit : The fit.
    SkewBetaNull : Also matches the skewness.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    The fit has the exact mean; its p-value carries no error bound:

    >>> b = BetaNull(40, 4)
    >>> a, c = b.fit.alpha, b.fit.beta
    >>> bool(abs(b.fit.lower + b.fit.scale * a / (a + c) - b.mean) < 1e-12)
    True
    >>> pv = b.pvalue(0.6)
    >>> pv.method, pv.pvalue_interval
    ('beta', None)
    """

    method = "beta"
    interval_method = "beta"
    fit: BetaFit

    @renamed_parameters(N="n", P="n_pos")
    def __init__(self, n: int, n_pos: int, *, params=None):
        N, P = n, n_pos  # the paper's notation in the formulas below
        super().__init__(N, P)
        if params is not None:
            self._moments = (float(params[0]), float(params[1]))
        self.fit = beta_fit(self.mean, self.var, self.N, self.P)

    def ppf(self, q):
        return self.fit.ppf(q)

    def interval(self, conf_level: float = 0.95) -> tuple:
        return self.fit.interval(conf_level)


@fill_doc(_DOCS)
class SkewBetaNull(_FittedNull):
    """A beta matched to the exact mean, variance and skewness (:func:`pranker.skew_beta_fit`).

    Parameters
    ----------
    N, P : int
        Number of instances and of positives (``N * P`` up to 2e9).

    Attributes
    ----------
    %(null_attributes)s
    fit : SkewBetaFit
        The fitted beta.

    See Also
    --------
    skew_beta_fit : The fit.
    BetaNull : The two-moment beta.

    Examples
    --------
    >>> exact = ExactNull(40, 4).pvalue(0.6).pvalue
    >>> pv = SkewBetaNull(40, 4).pvalue(0.6)
    >>> pv.method, bool(abs(pv.pvalue / exact - 1) < 0.1)
    ('skewbeta', True)
    """

    method = "skewbeta"
    interval_method = "skewbeta"
    fit: SkewBetaFit

    @renamed_parameters(N="n", P="n_pos")
    def __init__(self, n: int, n_pos: int):
        N, P = n, n_pos  # the paper's notation in the formulas below
        super().__init__(N, P)
        from .skewbeta import skew_beta_fit

        self.fit = skew_beta_fit(self.N, self.P)

    def ppf(self, q):
        from scipy.special import betaincinv

        f = self.fit
        if f.degenerate:
            return np.full(np.shape(q), f.mean)[()]
        return (f.lower + (1.0 - f.lower) * betaincinv(f.alpha, f.beta, np.asarray(q, float)))[()]


# ---------------------------------------------------------------------------
@renamed_parameters(N="n", P="n_pos")
@fill_doc()
def null_distribution(n: int, n_pos: int, method: str = "auto", **options) -> NullDistribution:
    """The null distribution of AP for N instances and P positives, by name.

    Parameters
    ----------
    n, n_pos : int
        Instances and positives, ``1 <= P <= N``.
    method : {"auto", "exact", "tilt", "saddlepoint", "montecarlo", "beta", "skewbeta"}
        See the module docstring. ``"auto"`` (default) is the null every
        test of significance uses by default: :func:`pranker.auto_method`
        picks ``"exact"`` or ``"tilt"`` from N and P.
    **options
        Passed to the class: ``rtol``, ``seed``, ``max_draws`` (tilt);
        ``n_draws``, ``seed`` (montecarlo); ``max_nodes`` (exact);
        ``params=(mean, var)`` (beta). With ``"auto"``, options the chosen
        class does not take are ignored (so ``rtol=`` is harmless when the
        rule picks the exact count).

    Returns
    -------
    NullDistribution
        An :class:`ExactNull`, :class:`TiltNull`, ... for ``method``.

    See Also
    --------
    pranker.pranker : The p-value of a ranking, ``method="auto"`` by default.
    pranker.auto_method : The default rule.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    >>> null = null_distribution(1000, 10, "tilt")
    >>> res = null.pvalue(0.5)          # P(AP_null >= 0.5), to 2 % relative error
    >>> res.method, round(res.log10_pvalue, 1), res.pvalue_rse <= 0.02
    ('tilt', -10.2, True)
    >>> lo, hi = null.interval(0.95)    # central 95 % of the null AP
    >>> bool(lo < null.mean < hi)
    True
    """
    N, P = n, n_pos  # the paper's notation in the formulas below
    classes = {
        "exact": ExactNull,
        "tilt": TiltNull,
        "saddlepoint": SaddlepointNull,
        "montecarlo": MonteCarloNull,
        "beta": BetaNull,
        "skewbeta": SkewBetaNull,
    }
    if method == "auto":
        method = auto_method(N, P, options.get("rtol"))
        taken = inspect.signature(classes[method]).parameters
        options = {k: v for k, v in options.items() if k in taken}
        if method == "saddlepoint":  # the tilt answers beyond the calibrated region
            options["tilt_beyond"] = True
    elif method not in classes:
        raise ValueError(f"method must be one of {('auto',) + NULL_METHODS}; got {method!r}.")
    return classes[method](N, P, **options)
