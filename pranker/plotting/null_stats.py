"""What a figure of a null distribution shows, read from the null object.

The null distributions (:mod:`pranker.null`) compute p-values; a figure needs
more: the bulk of the null on the AP axis, its density and its tail curve,
each from the cheapest faithful source (the exact counts, the fitted beta,
the saddlepoint curve where it is affordable point by point, a Monte Carlo
sample, else the beta on the exact mean and variance as a shape only).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..null.base import NullDistribution
from ..null.beta import FittedNull, beta_fit
from ..null.exact import ExactNull
from ..null.saddlepoint import SaddlepointNull
from ..null.tilt_null import TiltNull

__all__ = ["NullCurve", "display_support", "density_grid", "tail_curve", "log10_interval"]

_LN10 = math.log(10.0)


class NullCurve(NamedTuple):
    """Points of a curve that shows a null distribution, and what they are.

    Returned by :func:`density_grid` (the density; ``x``
    holds bin edges, one more than ``y``, when ``y`` are the exact
    probabilities binned) and :func:`tail_curve` (``y`` is
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


def _display_source(null) -> str:
    """Where the display statistics come from: ``"cdf"`` (``cdf`` and ``ppf``
    vectorised and instant), ``"saddlepoint"`` (the Lugannani-Rice curve,
    affordable point by point) or ``""`` (a Monte Carlo sample when one is
    given, else the beta on the exact mean and variance)."""
    if isinstance(null, ExactNull):
        return "cdf" if null.enumerable else ""
    if isinstance(null, FittedNull):
        return "cdf"
    if isinstance(null, (TiltNull, SaddlepointNull)):
        return "saddlepoint" if _saddlepoint_affordable(null) else ""
    return ""


def _saddlepoint_affordable(null) -> bool:
    return null.P * (null.N - null.P + 1) <= DISPLAY_CELLS


def display_support(null, samples=None) -> tuple[float, float]:
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
    >>> from pranker.null.distributions import null_distribution
    >>> lo, hi = display_support(null_distribution(20, 5, "exact"))
    >>> bool(0 < lo < 0.3 < hi < 1)
    True
    """
    q = [_DISPLAY_TAIL, 1.0 - _DISPLAY_TAIL]
    if _display_source(null):
        lo, hi = (float(v) for v in np.atleast_1d(null.ppf(q)))
    elif samples is not None and np.size(samples) > 100:
        lo, hi = (float(v) for v in np.quantile(samples, q))
    else:
        fit = beta_fit(null.mean, null.var, null.N, null.P)
        lo, hi = (float(v) for v in fit.ppf(q))
    return lo, hi


def density_grid(null, lo: float, hi: float, points: int = 400) -> NullCurve:
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
    >>> from pranker.null.distributions import null_distribution
    >>> c = density_grid(null_distribution(20, 5, "exact"), 0.2, 1.0)
    >>> c.x.size == c.y.size + 1, c.label
    (True, 'exact null (binned)')
    """
    x = np.linspace(max(lo, null.min_auprc), hi, points)
    source = _display_source(null)
    if source:
        g = np.linspace(x[0], x[-1], min(x.size, _DISPLAY_POINTS))
        if source == "cdf":
            prob = np.diff(np.asarray(null.cdf(g), dtype=np.float64))
        else:
            prob = -np.diff(np.exp(np.asarray(_saddlepoint(null).logsf(g), dtype=np.float64)))
        dens = np.maximum(prob, 0.0) / np.diff(g)
        if null.method == "exact":
            return NullCurve(g, dens, "exact null (binned)")
        return NullCurve(0.5 * (g[1:] + g[:-1]), dens, _density_label(null))
    fit = beta_fit(null.mean, null.var, null.N, null.P)
    d = np.asarray(fit.pdf(x), dtype=np.float64)
    return NullCurve(
        x,
        np.where(np.isfinite(d), d, np.nan),
        "null shape: beta on the exact mean and variance",
    )


def _density_label(null) -> str:
    if isinstance(null, FittedNull):
        what = "mean and variance" if null.method == "beta" else "mean, variance and skewness"
        return f"null: beta fit to the exact {what}"
    return "null density (saddlepoint)"


def _saddlepoint(null) -> NullDistribution:
    """The saddlepoint null of the same N and P (its curve needs no draws)."""
    if isinstance(null, SaddlepointNull):
        return null
    return SaddlepointNull(null.N, null.P, seed=getattr(null, "seed", None))


def tail_curve(null, a, samples=None) -> NullCurve | None:
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
    >>> from pranker.null.distributions import null_distribution
    >>> c = tail_curve(null_distribution(4, 2, "exact"), [0.75])
    >>> float(c.y[0]) == float(np.log10(0.5)), c.label  # 3 of the 6 placements
    (True, 'exact survival function')
    """
    a = np.asarray(a, dtype=np.float64)
    source = _display_source(null)
    if source == "cdf":
        with np.errstate(divide="ignore"):
            return NullCurve(
                a, np.log10(np.clip(_display_sf(null, a), 0.0, 1.0)), _tail_label(null)
            )
    if source == "saddlepoint":
        lsf = np.asarray(_saddlepoint(null).logsf(a), dtype=np.float64)
        return NullCurve(a, lsf / _LN10, _tail_label(null))
    if samples is not None and np.size(samples) > 0:
        s = np.sort(np.asarray(samples, dtype=np.float64).ravel())
        sf = 1.0 - np.searchsorted(s, a, side="left") / s.size
        keep = sf > 0
        return NullCurve(a[keep], np.log10(sf[keep]), f"Monte Carlo ({s.size:,} random rankings)")
    return None


def _display_sf(null, a: np.ndarray) -> np.ndarray:
    """The survival function on a grid, for nulls whose ``sf`` is vectorised."""
    if isinstance(null, ExactNull):
        # P(AP >= a) = 1 - P(AP < a): the cdf just below a
        below = np.nextafter(a * (1.0 - 1e-9), -np.inf)
        return 1.0 - np.asarray(null.cdf(below), dtype=np.float64)
    return np.asarray(null.sf(a), dtype=np.float64)


def _tail_label(null) -> str:
    if isinstance(null, ExactNull):
        return "exact survival function"
    if isinstance(null, TiltNull):
        return "saddlepoint approximation"
    return f"{null.method} survival function"


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
    >>> from pranker.null.base import PValue
    >>> pv = PValue(0.01, -2.0, None, None, 0.1, "tilt")
    >>> lo, hi = log10_interval(pv, 0.95)
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
