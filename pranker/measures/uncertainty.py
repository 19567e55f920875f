"""How uncertain is an AUPRC estimate? A standard error and two closed-form intervals.

Trapezoidal AUPRC as a mean over positives (Kok & Domingos 2005)
-----------------------------------------------------
Plot the PR curve rotated, precision on x and recall on y, through the
operating points k = 1..K (thresholds from the highest down). Close it with
a vertical drop from the first point to recall 0 (prec_0 := prec_1) and a
horizontal segment from the last point to precision 0 (the seed's
prec_T := 0 at a final point that keeps the last recall). The trapezoid rule
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
exact curve); a coarser grid of thresholds can be given, as in the seed,
with "retrieved" meaning score > threshold and precision 0/0 := 1 when a
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
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from .._validation import check_scores, check_scores_labels, check_ties, score_label_aliases
from .ap import _auprc_validated
from .curves import _threshold_counts

__all__ = ["TrapezoidAUPRC", "auprc_trapezoid", "APInterval", "boyd_interval", "ap_interval"]


@dataclass(frozen=True)
class TrapezoidAUPRC:
    """Trapezoidal AUPRC written as a mean over positives, with its standard error.

    Attributes
    ----------
    estimate : float
        Mean of ``f`` over positives = trapezoidal area of the closed curve.
    se : float
        Standard error of that mean, ``sd / sqrt(n_pos)`` (NaN if n_pos = 1).
    sd : float
        Sample standard deviation of ``f`` (ddof = 1).
    n_pos : int
    n_thresholds : int
        Number of operating points used.
    """

    estimate: float
    se: float
    sd: float
    n_pos: int
    n_thresholds: int

    def interval(self, conf_level: float = 0.95) -> tuple[float, float]:
        """Normal-approximation interval ``estimate +/- z se``."""
        z = _z(conf_level)
        return (self.estimate - z * self.se, self.estimate + z * self.se)


def _z(conf_level) -> float:
    c = float(conf_level)
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


@score_label_aliases
def auprc_trapezoid(scores, y, *, thresholds=None, pos_label=None) -> TrapezoidAUPRC:
    """Trapezoidal AUPRC as a mean over positives, with its standard error.

    Parameters
    ----------
    scores : array_like of float (flattened)
    y : array_like
        Binary labels (0/1, False/True or -1/1; 1 marks a positive), or any
        labels with ``pos_label``.
    thresholds : array_like of float, optional
        Grid of thresholds (an item is retrieved when its score exceeds the
        threshold). Default: every distinct score, retrieving scores >= it,
        which is the exact curve.
    pos_label : scalar, optional
        The label of the positive class; every other label is a negative.
    y_score, y_true : array_like, keyword only
        scikit-learn's names for ``scores`` and ``y``.

    Instances masked in ``scores`` or ``y`` (numpy masked arrays) are left out.

    Returns
    -------
    TrapezoidAUPRC

    References
    ----------
    .. [1] S. Kok and P. Domingos, "Learning the structure of Markov logic
       networks", ICML 2005, and its online addendum on the standard deviation
       of the area under the precision-recall curve (Kok & Domingos 2005).

    Examples
    --------
    A perfect ranking encloses the whole unit square:

    >>> r = auprc_trapezoid([4, 3, 2, 1], [1, 1, 0, 0])
    >>> r.estimate, r.se
    (1.0, 0.0)
    """
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
    return TrapezoidAUPRC(mean, se, sd, n_pos, K)


@dataclass(frozen=True)
class APInterval:
    """A Boyd-Eng-Page confidence interval for an AUPRC estimate.

    Attributes
    ----------
    estimate, low, high : float
    conf_level : float
    method : str
        ``"logit"`` or ``"binomial"``.
    n_pos : int
    """

    estimate: float
    low: float
    high: float
    conf_level: float
    method: str
    n_pos: int

    def __iter__(self):
        return iter((self.low, self.high))


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
        Unpacks as ``(low, high)``.

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
    return APInterval(theta, low, high, float(conf_level), method, n)


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
    of positives, to :func:`boyd_interval`. ``y``, ``pos_label``, the
    keyword names ``y_score=``/``y_true=`` and masked instances are handled
    as in :func:`pranker.auprc_ap`.

    Examples
    --------
    >>> r = ap_interval([0.9, 0.8, 0.7, 0.6], [1, 0, 1, 0], method="binomial")
    >>> round(r.estimate, 4), r.n_pos
    (0.8333, 2)
    """
    check_ties(ties)
    s, yb = check_scores_labels(scores, y, pos_label=pos_label, where="ap_interval")
    ap = _auprc_validated(s, yb, ties)
    return boyd_interval(
        min(max(ap, 0.0), 1.0), int(np.count_nonzero(yb)), conf_level=conf_level, method=method
    )
