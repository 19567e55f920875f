"""How uncertain is an AUPRC estimate? A standard error and two closed-form intervals.

Trapezoidal AUPRC as a mean over positives (Kok & Domingos 2005)
-----------------------------------------------------
Plot the PR curve rotated, precision on x and recall on y, through the
operating points k = 1..K (thresholds from the highest down). Close it with
a vertical drop from the first point to recall 0 (prec_0 := prec_1) and a
horizontal segment from the last point to precision 0 (a final point
with precision 0 that keeps the last recall). The trapezoid rule
over these points gives

    AUC = sum_k w_k rec_k,   w_k = (prec_{k-1} - prec_{k+1}) / 2,

where the last real point also collects the closing rectangle, so
w_K = (prec_{K-1} + prec_K) / 2. Since rec_k is the fraction of positives
retrieved at point k, swapping the two sums gives

    AUC = (1 / n_pos) sum_{positives j} f_j,   f_j = sum_{k >= k_j} w_k,

with k_j the first point that retrieves j. AUC is thus a sample mean, and its
standard error is sd(f) / sqrt(n_pos) (sd with n_pos - 1 degrees of freedom).
Precision is not monotone, so a w_k may be negative; f_j is still a
well-defined sample. By default the points are all distinct scores (the
exact curve); a coarser grid of thresholds can be given, with
"retrieved" meaning score > threshold and precision 0/0 := 1 when a
threshold retrieves nothing.

Boyd, Eng & Page (2013) intervals
---------------------------------
With n = n_pos and z the normal quantile, for an AUPRC estimate theta:

- binomial: theta +/- z sqrt(theta (1 - theta) / n), clipped to [0, 1];
- logit: expit(eta +/- z tau), eta = logit(theta),
  tau = 1 / sqrt(n theta (1 - theta)); always inside (0, 1).

At theta = 0 or 1 the binomial interval has width 0 and the logit interval
is taken at its limit, which is the whole of [0, 1] (tau grows faster than
eta); both say the formula carries no information there.

Names
-----
The results here share the names of :class:`pranker.PrankerResult`: ``auprc``
(the estimate), ``auprc_se`` (its standard error), ``auprc_interval`` (a
``(low, high)`` named pair at ``conf_level``), ``n_pos``, ``conf_level`` and
``method``. The earlier names (``estimate``, ``se``, ``low``, ``high``,
``TrapezoidAUPRC.interval()``) still work and warn with ``DeprecationWarning``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import NamedTuple

import numpy as np

from .._docs import MEASURE_DOCS as _DOCS
from .._docs import fill_doc
from .._results import DeprecatedAlias, deprecated
from .._validation import (
    check_scores,
    check_scores_labels,
    check_ties,
    refuse_table,
    score_label_aliases,
)
from .ap import auprc_validated
from .curves import _threshold_counts

__all__ = [
    "ConfidenceInterval",
    "TrapezoidAUPRC",
    "auprc_trapezoid",
    "APInterval",
    "boyd_interval",
    "ap_interval",
]


class ConfidenceInterval(NamedTuple):
    """A confidence interval as a ``(low, high)`` named pair, like ``scipy.stats`` results.

    Attributes
    ----------
    low, high : float
        The ends of the interval.

    See Also
    --------
    TrapezoidAUPRC.auprc_interval, APInterval.auprc_interval
    pranker.CompareResult.confidence_interval : The interval of a difference of APs.

    Examples
    --------
    >>> iv = ConfidenceInterval(0.25, 0.75)
    >>> iv.low, iv.high
    (0.25, 0.75)
    >>> low, high = iv
    """

    low: float
    high: float


@dataclass(frozen=True)
class TrapezoidAUPRC:
    """Trapezoidal AUPRC written as a mean over positives, with its standard error.

    Returned by :func:`auprc_trapezoid`.

    Attributes
    ----------
    auprc : float
        Mean of the per-positive contributions ``f`` = trapezoidal area of the
        closed curve.
    auprc_se : float
        Standard error of that mean, ``sd / sqrt(n_pos)`` (NaN if n_pos = 1).
    sd : float
        Sample standard deviation of the per-positive contributions ``f``
        (ddof = 1).
    n_pos : int
        Number of positives.
    n_thresholds : int
        Number of operating points used.
    conf_level : float
        Confidence level of ``auprc_interval``.
    n : int or None
        Number of instances.
    auprc_interval : ConfidenceInterval
        Normal-approximation interval ``auprc +/- z auprc_se`` at
        ``conf_level`` (property).

    See Also
    --------
    auprc_trapezoid : Computes it.
    APInterval : Boyd, Eng & Page intervals around average precision.

    References
    ----------
    .. [1] S. Kok and P. Domingos, "Learning the structure of Markov logic
       networks", ICML 2005.

    Examples
    --------
    >>> r = auprc_trapezoid([0.9, 0.8, 0.7, 0.6, 0.5], [1, 0, 1, 1, 0])
    >>> round(r.auprc, 4), round(r.auprc_se, 4), r.n_pos, r.n  # f = 1, 7/12, 17/24
    (0.7639, 0.1234, 3, 5)
    >>> low, high = r.auprc_interval  # auprc +/- 1.96 auprc_se, not clipped
    >>> round(low, 4), round(high, 4)
    (0.5219, 1.0058)
    """

    auprc: float
    auprc_se: float
    sd: float
    n_pos: int
    n_thresholds: int
    conf_level: float = 0.95
    n: int | None = None

    @property
    def auprc_interval(self) -> ConfidenceInterval:
        """Normal-approximation interval ``auprc +/- z auprc_se`` at ``conf_level``."""
        z = _z(self.conf_level)
        return ConfidenceInterval(self.auprc - z * self.auprc_se, self.auprc + z * self.auprc_se)

    # deprecated names (until 0.5.0)
    estimate = DeprecatedAlias("auprc")
    se = DeprecatedAlias("auprc_se")

    def interval(self, conf_level: float = 0.95) -> tuple[float, float]:
        """Deprecated: use ``auprc_interval`` (set ``conf_level`` in :func:`auprc_trapezoid`)."""
        deprecated("interval()", "auprc_interval", "TrapezoidAUPRC")
        z = _z(conf_level)
        return (self.auprc - z * self.auprc_se, self.auprc + z * self.auprc_se)


def _z(conf_level) -> float:
    try:
        c = float(conf_level)
    except (TypeError, ValueError):
        c = math.nan
    if not (0.0 < c < 1.0):
        raise ValueError(f"conf_level must be strictly between 0 and 1; got {conf_level!r}.")
    return NormalDist().inv_cdf(0.5 + c / 2.0)


def _expit(x: float) -> float:
    """1 / (1 + exp(-x)) without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _grid_counts(s: np.ndarray, yb: np.ndarray, thresholds):
    t = check_scores(thresholds, "thresholds")
    t = np.unique(t)[::-1]  # descending, distinct
    pos = np.sort(s[yb])
    alls = np.sort(s)
    # retrieved at threshold t: score > t
    tp = (pos.size - np.searchsorted(pos, t, side="right")).astype(np.float64)
    n = (alls.size - np.searchsorted(alls, t, side="right")).astype(np.float64)
    return t, tp, n - tp


@fill_doc(_DOCS)
@score_label_aliases
def auprc_trapezoid(
    scores, y, *, thresholds=None, conf_level: float = 0.95, pos_label=None
) -> TrapezoidAUPRC:
    """Trapezoidal AUPRC as a mean over positives, with its standard error.

    Parameters
    ----------
    scores : array_like of float (flattened)
    y : array_like
        %(binary_labels)s.
    thresholds : array_like of float, optional
        Grid of thresholds (an item is retrieved when its score exceeds the
        threshold). Default: every distinct score, retrieving scores >= it,
        which is the exact curve.
    conf_level : float in (0, 1), default 0.95
        Confidence level of the result's ``auprc_interval``.
    %(pos_label)s
    %(sklearn_names)s

    Instances masked in ``scores`` or ``y`` (numpy masked arrays) are left out.

    Returns
    -------
    TrapezoidAUPRC
        ``auprc``, ``auprc_se``, ``auprc_interval``, ``n_pos``, ...

    See Also
    --------
    ap_interval : Average precision with a Boyd-Eng-Page interval.
    PRCurve.auc_trapezoid : Trapezoidal area through the curve's own points.

    References
    ----------
    .. [1] S. Kok and P. Domingos, "Learning the structure of Markov logic
       networks", ICML 2005, and its online addendum on the standard deviation
       of the area under the precision-recall curve (Kok & Domingos 2005).

    Examples
    --------
    A perfect ranking encloses the whole unit square:

    >>> r = auprc_trapezoid([4, 3, 2, 1], [1, 1, 0, 0])
    >>> r.auprc, r.auprc_se
    (1.0, 0.0)
    """
    _z(conf_level)  # refuse a bad level before any work
    conf_level = float(conf_level)
    refuse_table("auprc_trapezoid", scores, y, "AUPRC")
    s, yb = check_scores_labels(scores, y, pos_label=pos_label, where="auprc_trapezoid")
    if thresholds is None:
        _, tp, fp, _ = _threshold_counts(s, yb, None)
        tp, fp = tp[1:], fp[1:]
    else:
        _, tp, fp = _grid_counts(s, yb, thresholds)
    n_pos = int(np.count_nonzero(yb))
    K = tp.shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.where(tp + fp > 0, tp / (tp + fp), 1.0)  # 0/0 := 1
    ext = np.empty(K + 2)
    ext[0] = prec[0]
    ext[1:-1] = prec
    ext[-1] = 0.0
    w = 0.5 * (ext[:-2] - ext[2:])
    w[-1] += 0.5 * prec[-1]  # closing rectangle to precision 0
    suffix = np.cumsum(w[::-1])[::-1]  # f for a positive first retrieved at point k
    # positives first retrieved at point k: tp[k] - tp[k-1]
    new_pos = np.diff(np.concatenate(([0.0], tp)))
    m = float(new_pos.sum())  # positives retrieved at some point (all, on the default grid)
    # positives never retrieved (coarse grid) have f = 0
    counts = np.append(new_pos, n_pos - m)
    vals = np.append(suffix, 0.0)
    mean = float(np.dot(counts, vals) / n_pos)
    if n_pos > 1:
        var = float(np.dot(counts, (vals - mean) ** 2) / (n_pos - 1))
        sd = math.sqrt(var)
        se = sd / math.sqrt(n_pos)
    else:
        sd = se = float("nan")
    return TrapezoidAUPRC(mean, se, sd, n_pos, K, conf_level, int(s.shape[0]))


@fill_doc()
@dataclass(frozen=True)
class APInterval:
    """An AUPRC estimate with a Boyd-Eng-Page confidence interval.

    Returned by :func:`boyd_interval` and :func:`ap_interval`; unpacks as
    ``(low, high)``.

    Attributes
    ----------
    auprc : float
        The AUPRC estimate the interval is built around.
    auprc_interval : ConfidenceInterval
        ``(low, high)`` at ``conf_level``.
    conf_level : float
        Confidence level.
    method : str
        ``"logit"`` or ``"binomial"``.
    n_pos : int
        Number of positives, the sample size of the interval.
    n : int or None
        Number of instances (None when only ``n_pos`` was given).

    See Also
    --------
    boyd_interval, ap_interval : Build it.
    TrapezoidAUPRC : A standard error from the spread over positives.

    References
    ----------
    .. [1] %(ref_boyd2013)s

    Examples
    --------
    >>> r = boyd_interval(0.5, 100, method="binomial")
    >>> r.auprc, r.n_pos, r.method
    (0.5, 100, 'binomial')
    >>> round(r.auprc_interval.low, 3), round(r.auprc_interval.high, 3)
    (0.402, 0.598)
    """

    auprc: float
    auprc_interval: ConfidenceInterval
    conf_level: float
    method: str
    n_pos: int
    n: int | None = None

    def __iter__(self):
        return iter(self.auprc_interval)

    # deprecated names (until 0.5.0)
    estimate = DeprecatedAlias("auprc")
    low = DeprecatedAlias("auprc_interval.low")
    high = DeprecatedAlias("auprc_interval.high")


def boyd_interval(
    estimate: float, n_pos: int, *, conf_level: float = 0.95, method: str = "logit"
) -> APInterval:
    """Binomial or logit confidence interval for an AUPRC estimate (Boyd, Eng & Page 2013).

    Parameters
    ----------
    estimate : float in [0, 1]
        An AUPRC estimate (e.g. average precision).
    n_pos : int >= 1
        Number of positives, the sample size of the interval.
    conf_level : float in (0, 1)
    method : {"logit", "binomial"}

    Returns
    -------
    APInterval
        ``auprc``, ``auprc_interval``, ...; unpacks as ``(low, high)``.

    See Also
    --------
    ap_interval : Computes the average precision first.
    auprc_trapezoid : A standard error from the spread over positives.

    References
    ----------
    .. [1] K. Boyd, K. H. Eng and C. D. Page, "Area under the precision-recall
       curve: point estimates and confidence intervals", ECML PKDD 2013,
       doi:10.1007/978-3-642-40994-3_29.

    Examples
    --------
    >>> low, high = boyd_interval(0.5, 100)  # logit: expit(+/- 1.96 * 0.2)
    >>> round(low, 4), round(high, 4)
    (0.4032, 0.5968)
    >>> tuple(round(v, 4) for v in boyd_interval(0.5, 100, method="binomial"))
    (0.402, 0.598)
    """
    theta = float(estimate)
    if not (0.0 <= theta <= 1.0):
        raise ValueError(f"estimate must lie in [0, 1]; got {estimate!r}.")
    if isinstance(n_pos, (bool, np.bool_)) or int(n_pos) != n_pos or n_pos < 1:
        raise ValueError(f"n_pos must be a positive integer; got {n_pos!r}.")
    n = int(n_pos)
    if method not in ("logit", "binomial"):
        raise ValueError(f"method must be 'logit' or 'binomial'; got {method!r}.")
    z = _z(conf_level)
    if method == "binomial":
        half = z * math.sqrt(theta * (1.0 - theta) / n)
        low, high = max(0.0, theta - half), min(1.0, theta + half)
    elif theta in (0.0, 1.0):
        low, high = 0.0, 1.0
    else:
        eta = math.log(theta) - math.log1p(-theta)
        tau = 1.0 / math.sqrt(n * theta * (1.0 - theta))
        low, high = _expit(eta - z * tau), _expit(eta + z * tau)
    return APInterval(theta, ConfidenceInterval(low, high), float(conf_level), method, n)


@fill_doc(_DOCS)
@score_label_aliases
def ap_interval(
    scores,
    y,
    *,
    conf_level: float = 0.95,
    method: str = "logit",
    ties: str = "average",
    pos_label=None,
) -> APInterval:
    """Average precision of a ranking with a Boyd-Eng-Page interval.

    Computes ``auprc_ap(scores, y, ties=ties)`` and passes it, with the number
    of positives, to :func:`boyd_interval`.

    Parameters
    ----------
    scores : array_like of float (flattened)
        Scores; a higher score ranks an instance earlier.
    y : array_like
        %(binary_labels)s.
    conf_level : float in (0, 1), default 0.95
        Confidence level of the interval.
    method : {"logit", "binomial"}, default "logit"
        Interval of Boyd, Eng & Page (2013); see :func:`boyd_interval`.
    ties : {"average", "optimistic", "pessimistic", "stable", "threshold"}, default "average"
        How tied scores are ranked, as in :func:`pranker.auprc_ap`.
    %(pos_label)s
    %(sklearn_names)s

    Instances masked in ``scores`` or ``y`` (numpy masked arrays) are left out.

    Returns
    -------
    APInterval
        ``auprc`` (the average precision), ``auprc_interval``, ``n_pos``,
        ``n``, ...; unpacks as ``(low, high)``.

    See Also
    --------
    boyd_interval : The same interval for an AUPRC computed elsewhere.
    auprc_trapezoid : A standard error from the spread over positives.
    pranker.pranker : The p-value of the same average precision against random ranking.

    References
    ----------
    .. [1] %(ref_boyd2013)s

    Examples
    --------
    >>> r = ap_interval([0.9, 0.8, 0.7, 0.6], [1, 0, 1, 0], method="binomial")
    >>> round(r.auprc, 4), r.n_pos, r.n
    (0.8333, 2, 4)
    >>> low, high = r
    >>> round(low, 4), high  # clipped to [0, 1]
    (0.3168, 1.0)
    """
    check_ties(ties, "ap_interval")
    _z(conf_level)
    if method not in ("logit", "binomial"):
        raise ValueError(f"method must be 'logit' or 'binomial'; got {method!r}.")
    refuse_table("ap_interval", scores, y, "AP")
    s, yb = check_scores_labels(scores, y, pos_label=pos_label, where="ap_interval")
    ap = auprc_validated(s, yb, ties)
    r = boyd_interval(
        min(max(ap, 0.0), 1.0), int(np.count_nonzero(yb)), conf_level=conf_level, method=method
    )
    return replace(r, n=int(s.shape[0]))
