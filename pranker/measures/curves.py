"""Precision-recall curves, and the summaries people compute from them; what every curve shares.

Conventions (see also ``docs/curves.md``)
-----------------------------------------
Operating points
    Point ``k >= 1`` of a curve retrieves every item whose score is at least
    ``thresholds[k]``. Point 0 retrieves nothing; its threshold is ``+inf``.
    With ``ties="threshold"`` (the default) there is one point per distinct
    score: tied items enter together. With ``"stable"``, ``"optimistic"`` or
    ``"pessimistic"`` there is one point per item, ties broken by input order,
    positives first, or positives last.
0/0 := 1
    At point 0 nothing is retrieved, so precision is 0/0; we set it to 1 and
    recall to 0, the limit point "A" of the LingPipe discussion (precision of
    a classifier that never says "positive"). No (recall 1, precision 0)
    point is added: the curve ends where everything is retrieved, at recall 1
    and precision ``n_pos / (n_pos + n_neg)``.
Interpolation
    Linear interpolation in PR space (:meth:`PRCurve.auc_trapezoid`) is kept
    for comparison only: it overstates the area (Davis & Goadrich 2006).
    :meth:`PRCurve.auc_davis_goadrich` interpolates between operating points
    in count space, as R's PRROC does; :meth:`PRCurve.average_precision` is
    the area under the step function; :meth:`PRCurve.interpolated_precision`
    is Manning et al.'s max precision at recall >= r.
Weights
    ``sample_weight`` multiplies each item's contribution to tp and fp; a
    weight of 0 removes the item, an integer weight w equals w copies of it.

All curve construction is O(N log N): the scores of each class are sorted
with numpy's in-place SIMD sort, then merged in one numba pass (see
:mod:`pranker._numba.curves`). Weighted and one-point-per-item curves need a
stable argsort instead and are several times slower.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from .._docs import MEASURE_DOCS as CURVE_DOCS
from .._docs import fill_doc
from .._numba import curves as ck
from .._numba import rankcount
from .._validation import (
    _as_numeric_array,
    check_flag,
    check_no_nan,
    check_ties,
    check_weighted_pair,
    check_weighted_ties,
    refuse_table,
    score_label_aliases,
)
from .ap import (
    _NO_INDEX,
    _bucket_counts,
    _rank_count_pays,
    _reference,
    ap_from_tie_groups,
)

__all__ = ["PRCurve", "BestF", "pr_curve"]

_CURVE_TIES = ("threshold", "stable", "optimistic", "pessimistic")


# ---------------------------------------------------------------------------
# input handling
# ---------------------------------------------------------------------------


# validated (scores, labels, weights or None), zero-weight and masked items left out
_prepare = check_weighted_pair


def _drop_intermediate(thr, tp, fp, roc: bool):
    """The points scikit-learn keeps with ``drop_intermediate=True`` (point 0 always kept).

    ROC (``roc_curve``): a point is dropped when the second differences of
    both fp and tp vanish there (it lies on the straight line between its
    neighbours, at equal steps). PR (``precision_recall_curve``): a point is
    dropped when tp equals tp at both neighbours (the inside of a run of
    false positives at one recall). The first and last points of the
    thresholds are always kept. Neither rule changes any area.
    """
    k = tp.shape[0] - 1  # points after point 0
    if k <= 2:
        return thr, tp, fp
    t, f = tp[1:], fp[1:]
    if roc:
        inner = (np.diff(f, 2) != 0) | (np.diff(t, 2) != 0)
    else:
        inner = (np.diff(t[:-1]) != 0) | (np.diff(t[1:]) != 0)
    keep = np.concatenate(([True, True], inner, [True]))
    thr, tp, fp = thr[keep], tp[keep], fp[keep]
    _readonly(thr, tp, fp)
    return thr, tp, fp


def _sorted_classes(s: np.ndarray, yb: np.ndarray):
    """Scores of positives and of negatives, each sorted ascending (two in-place sorts)."""
    n_pos = int(np.count_nonzero(yb))
    pos = np.empty(n_pos + 1)  # one slack entry each for the branch-free split
    neg = np.empty(s.size - n_pos + 1)
    ck.split_by_class(s, yb, pos, neg)
    pos, neg = pos[:n_pos], neg[: s.size - n_pos]
    if s.size >= 1 << 20 and (os.cpu_count() or 1) > 1:
        # numpy's sort releases the GIL: sort the two classes at the same time
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=1) as pool:
            done = pool.submit(pos.sort)
            neg.sort()
            done.result()
    else:
        pos.sort()
        neg.sort()
    return pos, neg


def _threshold_counts(s: np.ndarray, yb: np.ndarray, w: np.ndarray | None):
    """(thresholds, tp, fp, U) per distinct score plus the empty point 0.

    U is the (weighted) Mann-Whitney count: pairs (positive, negative) with the
    positive scoring higher, plus half the tied pairs.
    """
    if w is None:
        pos, neg = _sorted_classes(s, yb)
        n = s.size
        thr, tp, fp = (np.empty(n + 1) for _ in range(3))
        d, u = ck.merge_threshold_curve(pos, neg, thr, tp, fp)
        # views of the used part; the untouched tail of each buffer was never paged in
        return thr[: d + 1], tp[: d + 1], fp[: d + 1], u
    order = np.argsort(s, kind="stable")
    vals = s[order]
    ys = yb[order]
    ws = w[order]
    wpos = np.where(ys, ws, 0.0)
    wneg = np.where(ys, 0.0, ws)
    d = ck.count_distinct_sorted(vals)
    thr = np.empty(d + 1)
    tp = np.empty(d + 1)
    fp = np.empty(d + 1)
    ck.threshold_curve_weighted(vals, wpos, wneg, thr, tp, fp)
    return thr, tp, fp, _mann_whitney_from_counts(tp, fp)


def _mann_whitney_from_counts(tp: np.ndarray, fp: np.ndarray) -> float:
    """U = sum over threshold groups of dfp * (tp above + dtp / 2)."""
    return float(np.dot(np.diff(fp), tp[:-1] + 0.5 * np.diff(tp)))


def _mann_whitney_u(s: np.ndarray, yb: np.ndarray, n_pos: int, where=None) -> float:
    """Unweighted Mann-Whitney U (ties 1/2), counting among the smaller class's scores.

    With the positives as the smaller class the counts give U; with the
    negatives they give n_pos n_neg - U. When counting does not pay, the
    smaller class (already sorted) is merged with the sorted other class.
    With ``where`` given the scores may hold NaN: raise, as ``check_scores``.
    """
    n_neg = s.size - n_pos
    small_is_pos = n_pos <= n_neg
    if not _rank_count_pays(s.size, min(n_pos, n_neg)):
        if where is not None:
            check_no_nan(s, where=where)
        pos, neg = _sorted_classes(s, yb)
        return ck.merge_mann_whitney(pos, neg)
    _, vals, runs = _reference(s, yb, where, small_is_pos)
    if _rank_count_pays(s.size, min(n_pos, n_neg), vals.shape[0]):
        cnt, _, _, _ = _bucket_counts(s, vals, _NO_INDEX, where)
        u = rankcount.mann_whitney(cnt, runs)
        return u if small_is_pos else float(n_pos) * float(n_neg) - u
    if where is not None:
        check_no_nan(s, where=where)
    small = yb if small_is_pos else ~yb
    ref = np.repeat(vals, runs)  # the smaller class, sorted
    other = s[~small]
    other.sort()
    return ck.merge_mann_whitney(*((ref, other) if small_is_pos else (other, ref)))


def _per_item_counts(s: np.ndarray, yb: np.ndarray, w: np.ndarray | None, ties: str):
    """(thresholds, tp, fp, None) with one point per item, ties broken per ``ties``."""
    neg_s = -s
    if ties == "stable":
        order = np.argsort(neg_s, kind="stable")
    elif ties == "optimistic":
        order = np.lexsort((~yb, neg_s))  # positives first within a tie, then input order
    else:
        order = np.lexsort((yb, neg_s))
    ys = yb[order]
    if w is None:
        dtp = ys.astype(np.float64)
        dfp = 1.0 - dtp
    else:
        ws = w[order]
        dtp = np.where(ys, ws, 0.0)
        dfp = np.where(ys, 0.0, ws)
    n = s.size
    tp = np.zeros(n + 1)
    fp = np.zeros(n + 1)
    np.cumsum(dtp, out=tp[1:])
    np.cumsum(dfp, out=fp[1:])
    thr = np.empty(n + 1)
    thr[0] = np.inf
    thr[1:] = s[order]
    return thr, tp, fp, None


def _readonly(*arrays):
    for a in arrays:
        a.flags.writeable = False


def _curve_counts(
    scores, y, sample_weight, pos_label, *, need_neg: bool, what: str, where: str, ties="threshold"
):
    """Checked input to read-only cumulative counts of a curve, one point per threshold or item.

    Returns ``(thresholds, tp, fp, n_pos, n_neg, u, w)``: ``u`` the Mann-Whitney
    count of the threshold curve (None per item), ``w`` the checked weights or None.
    """
    refuse_table(where, scores, y, "curve", " (scikit-learn's curves refuse it too)")
    s, yb, w = _prepare(
        scores,
        y,
        sample_weight,
        need_neg=need_neg,
        what=what,
        pos_label=pos_label,
        where=where,
    )
    if ties == "threshold":
        thr, tp, fp, u = _threshold_counts(s, yb, w)
    else:
        thr, tp, fp, u = _per_item_counts(s, yb, w, ties)
    _readonly(thr, tp, fp)
    return thr, tp, fp, float(tp[-1]), float(fp[-1]), u, w


def _readonly_ratio(num: np.ndarray, den: float) -> np.ndarray:
    """``num / den`` as a new read-only array (a rate of a curve)."""
    r = num / den
    r.flags.writeable = False
    return r


def _as_query(x, name: str, lo: float, hi: float):
    arr = np.asarray(_as_numeric_array(x, name, "PRCurve"), dtype=np.float64)
    if np.isnan(arr).any() or (arr < lo).any() or (arr > hi).any():
        raise ValueError(f"PRCurve: {name} must lie in [{lo:g}, {hi:g}]; got {x!r}.")
    return arr


def _scalar_or_array(arr: np.ndarray, like: np.ndarray):
    return float(arr) if like.ndim == 0 else arr


# ---------------------------------------------------------------------------
# precision-recall curve
# ---------------------------------------------------------------------------


class BestF(NamedTuple):
    """The best F_beta over the operating points and where it is attained.

    Returned by :meth:`PRCurve.best_f`.

    Attributes
    ----------
    f : float
        The largest F_beta.
    threshold : float
        Score threshold of the point that attains it (items scoring at least
        this are retrieved).
    precision, recall : float
        Precision and recall at that point.

    See Also
    --------
    PRCurve.best_f

    References
    ----------
    .. [1] C. J. van Rijsbergen, Information Retrieval, 2nd ed., Butterworths,
       1979.

    Examples
    --------
    >>> b = pr_curve([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0]).best_f()
    >>> b.f == 2 * (2 / 3) * 1.0 / (2 / 3 + 1.0), b.threshold
    (True, 0.8)
    """

    f: float
    threshold: float
    precision: float
    recall: float


@dataclass(frozen=True, eq=False)
class PRCurve:
    """A precision-recall curve: one operating point per threshold (read-only arrays).

    Attributes
    ----------
    thresholds : ndarray, shape (K + 1,)
        Non-increasing; ``thresholds[0] = +inf`` for the empty retrieval and
        point ``k >= 1`` retrieves items scoring ``>= thresholds[k]``.
    tp, fp : ndarray of float, shape (K + 1,)
        Cumulative (weighted) true and false positives; ``tp[0] = fp[0] = 0``.
    precision, recall : ndarray, shape (K + 1,)
        ``tp / (tp + fp)`` and ``tp / n_pos``; point 0 has precision 1 by the
        0/0 := 1 convention and recall 0. Recall ends at exactly 1. Both are
        computed (correctly rounded) on first access and then cached, so a
        summary that needs only counts does not pay for them.
    n_pos, n_neg : float
        (Weighted) numbers of positives and negatives (``tp[-1]``, ``fp[-1]``).
    ties : str
        ``"threshold"`` (one point per distinct score) or the per-item order.
    weighted : bool
        Whether ``sample_weight`` was given.

    See Also
    --------
    pr_curve : Builds it.
    ROCCurve : The ROC curve of the same counts.
    auprc_ap : Average precision without building the curve.

    References
    ----------
    .. [1] J. Davis and M. Goadrich, "The relationship between
       precision-recall and ROC curves", ICML 2006.

    Examples
    --------
    Scores 0.9, 0.8, 0.8, 0.3 with labels 1, 0, 1, 0: the tied pair is one
    operating point.

    >>> c = pr_curve([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0])
    >>> c.tp.tolist(), c.fp.tolist(), c.n_pos, c.n_neg
    ([0.0, 1.0, 2.0, 2.0], [0.0, 0.0, 1.0, 2.0], 2.0, 2.0)
    >>> c.recall.tolist()
    [0.0, 0.5, 1.0, 1.0]
    >>> c.average_precision() == 0.5 * 1 + 0.5 * (2 / 3)  # sum of recall steps x precision
    True
    """

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    n_pos: float
    n_neg: float
    ties: str = "threshold"
    weighted: bool = False

    def __len__(self) -> int:
        return int(self.thresholds.shape[0])

    @cached_property
    def precision(self) -> np.ndarray:
        """``tp / (tp + fp)``, 1 at point 0 (0/0 := 1). Computed on first access."""
        with np.errstate(invalid="ignore", divide="ignore"):
            p = self.tp / (self.tp + self.fp)
        p[0] = 1.0
        _readonly(p)
        return p

    @cached_property
    def recall(self) -> np.ndarray:
        """``tp / n_pos``: 0 at point 0, exactly 1 at the end. Computed on first access."""
        return _readonly_ratio(self.tp, self.n_pos)

    # -- helpers -----------------------------------------------------------
    def _group_ends(self) -> np.ndarray:
        """Indices (>= 1) of the last point of each distinct threshold."""
        k = len(self)
        if self.ties == "threshold":
            return np.arange(1, k)
        t = self.thresholds[1:]
        last = np.ones(t.shape[0], dtype=bool)
        last[:-1] = t[1:] != t[:-1]
        return np.flatnonzero(last) + 1

    def _retrieved(self) -> np.ndarray:
        return self.tp + self.fp

    # -- areas -------------------------------------------------------------
    def average_precision(self, ties: str | None = None) -> float:
        """Average precision, the area under the step curve: sum_k (R_k - R_{k-1}) P_k.

        Parameters
        ----------
        ties : str, optional
            Tie mode of :func:`pranker.auprc_ap`. ``None`` uses the curve's
            own points (for a threshold curve: ``ties="threshold"``, the value
            of scikit-learn's ``average_precision_score``). ``"threshold"``
            on a per-item curve regroups its points by threshold;
            ``"average"``, ``"optimistic"`` and ``"pessimistic"`` are computed
            exactly from the tie groups; ``"stable"`` needs the input order,
            so only a curve built with ``ties="stable"`` gives it. A curve
            built with ``sample_weight`` gives only ``"threshold"`` and
            ``"stable"``, as :func:`pranker.auprc_ap` does: an
            ``"optimistic"`` or ``"pessimistic"`` weighted curve has no AP.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            An unknown tie mode, ``"stable"`` on a curve of another mode, or
            a tie mode without a weighted meaning on a weighted curve.
        """
        where = "PRCurve.average_precision"
        if ties is not None:
            check_ties(ties, where)
        if self.weighted:  # refused as auprc_ap refuses it, whichever mode built the curve
            check_weighted_ties(self.ties if ties is None else ties, where)
        if ties is None or ties == self.ties:
            dtp = np.diff(self.tp)
            return float(np.dot(dtp, self.precision[1:]) / self.n_pos)
        if ties == "stable":
            raise ValueError(
                f"{where}: ties='stable' depends on the input order; build the curve with "
                "pr_curve(..., ties='stable') and call average_precision() on it."
            )
        ends = self._group_ends()
        tp_g = np.concatenate(([0.0], self.tp[ends]))
        fp_g = np.concatenate(([0.0], self.fp[ends]))
        if ties == "threshold":
            prec = tp_g[1:] / (tp_g[1:] + fp_g[1:])
            return float(np.dot(np.diff(tp_g), prec) / self.n_pos)
        dtp = np.diff(tp_g)
        dfp = np.diff(fp_g)
        has = dtp > 0
        greater = (tp_g[:-1] + fp_g[:-1])[has].astype(np.int64)
        n_tied = (dtp + dfp)[has].astype(np.int64)
        pos_greater = tp_g[:-1][has].astype(np.int64)
        pos_tied = dtp[has].astype(np.int64)
        return ap_from_tie_groups(greater, n_tied, pos_greater, pos_tied, int(self.n_pos), ties)

    def auc_trapezoid(self) -> float:
        """Trapezoidal area through all points, including (recall 0, precision 1).

        Linear interpolation between operating points in PR space is not
        achievable and overstates the area (Davis & Goadrich 2006); it is
        provided because it is what ``sklearn.metrics.auc(recall, precision)``
        and VLFeat's non-interpolated ``info.auc`` report.
        """
        r = self.recall
        p = self.precision
        return float(np.dot(np.diff(r), (p[1:] + p[:-1]) * 0.5))

    def auc_davis_goadrich(self) -> float:
        """Area under the PR curve with Davis & Goadrich's interpolation (as R's PRROC).

        Between consecutive points A and B the false positives grow linearly
        in the true positives, so precision is ``tp / (tp + fpA + s (tp - tpA))``
        with ``s = (fpB - fpA) / (tpB - tpA)``; the area is the exact integral
        over recall (:func:`pranker._numba.curves.dg_segment_area`). The
        segment leaving the empty retrieval has constant precision equal to
        that of the first point: the 0/0 := 1 point is not interpolated from.

        References
        ----------
        .. [1] J. Davis and M. Goadrich, "The relationship between
           precision-recall and ROC curves", ICML 2006.
        .. [2] J. Grau, I. Grosse and J. Keilwagen, "PRROC: computing and
           visualizing precision-recall and receiver operating characteristic
           curves in R", Bioinformatics 31(15), 2015.

        Examples
        --------
        >>> c = pr_curve([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0])
        >>> round(c.auc_davis_goadrich(), 6)  # (1 + 1/2 + ln(3)/4) / 2
        0.887327
        >>> round(c.auc_trapezoid(), 6)  # linear in PR space: larger
        0.916667
        """
        return float(ck.dg_area(self.tp, self.fp, self.n_pos))

    # -- interpolated precision ---------------------------------------------
    def _suffix_max_precision(self, include_initial: bool) -> np.ndarray:
        p = self.precision.copy()
        if not include_initial:
            p[0] = -np.inf if len(self) > 1 else p[0]
        return np.maximum.accumulate(p[::-1])[::-1]

    def interpolated_precision(self, include_initial: bool = False) -> np.ndarray:
        """Max precision over operating points with recall >= this point's recall.

        Manning, Raghavan & Schuetze (2008), section 8.4. Recall is
        non-decreasing along the curve, so this is a running maximum from
        the end, read at the first point of each run of equal recall.
        The empty retrieval (precision 1 by convention) takes part only if
        ``include_initial`` (VLFeat's choice); by default point 0 gets the
        best precision of any real operating point (TREC's choice).
        """
        sm = self._suffix_max_precision(include_initial)
        r = self.recall
        start = np.ones(r.shape[0], dtype=bool)
        start[1:] = r[1:] != r[:-1]
        first = np.maximum.accumulate(np.where(start, np.arange(r.shape[0]), 0))
        return sm[first]

    def ap_11point(self, include_initial: bool = False) -> float:
        """TREC 11-point interpolated average precision.

        Mean over the recall levels r = 0, 0.1, ..., 1 of the max precision at
        recall >= r. Levels are compared exactly: ``recall >= k/10`` is tested
        as ``10 tp >= k n_pos`` (integers for unweighted curves), so a recall
        of exactly 3/10 counts at level 0.3 (``np.linspace(0, 1, 11)[3]`` is
        one ulp above 0.3). ``include_initial`` lets the 0/0 := 1 point count
        at level 0, as VLFeat does.

        Examples
        --------
        >>> c = pr_curve([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0])
        >>> round(c.ap_11point(), 6)  # levels 0..0.5 at precision 1, 0.6..1 at 2/3
        0.848485
        """
        sm = self._suffix_max_precision(include_initial)
        levels = np.arange(11)
        if self.weighted:
            lhs: np.ndarray = 10.0 * self.tp
            rhs: np.ndarray = levels * self.n_pos
        else:
            lhs = 10 * self.tp.astype(np.int64)
            rhs = levels * int(self.n_pos)
        # first point with 10 tp >= k n_pos (tp is non-decreasing)
        idx = np.searchsorted(lhs, rhs, side="left")
        if not include_initial:
            idx = np.maximum(idx, 1)
        vals = np.where(idx < len(self), sm[np.minimum(idx, len(self) - 1)], 0.0)
        return float(vals.mean())

    # -- single-number summaries --------------------------------------------
    def break_even_point(self) -> float:
        """Precision = recall point; equals R-precision, tp(n_pos) / n_pos.

        Precision tp/n and recall tp/n_pos are equal exactly when n = n_pos
        items are retrieved (or tp = 0), so with all operating points the
        break-even point is the R-precision (Carpenter's LingPipe discussion).
        When n_pos falls inside a tie group, tp there is interpolated linearly
        (the expected value over random orders of the tie, which is also where
        the Davis & Goadrich curve crosses precision = recall).
        """
        tp_at = np.interp(self.n_pos, self._retrieved(), self.tp)
        return float(tp_at / self.n_pos)

    def best_f(self, beta: float = 1.0) -> BestF:
        """Best F_beta over the operating points: (f, threshold, precision, recall).

        F_beta = (1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp), which is 0 (not
        0/0) when tp = 0. The highest threshold wins ties.

        References
        ----------
        .. [1] C. J. van Rijsbergen, Information Retrieval, 2nd ed., 1979.

        Examples
        --------
        >>> pr_curve([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0]).best_f()
        BestF(f=0.8, threshold=0.8, precision=0.6666666666666666, recall=1.0)
        """
        beta = float(beta)
        if not (math.isfinite(beta) and beta > 0):
            raise ValueError(
                f"PRCurve.best_f: beta must be a positive finite number; got {beta!r}."
            )
        b2 = beta * beta
        fn = self.n_pos - self.tp
        f = (1.0 + b2) * self.tp / ((1.0 + b2) * self.tp + b2 * fn + self.fp)
        k = int(np.argmax(f))
        return BestF(
            float(f[k]), float(self.thresholds[k]), float(self.precision[k]), float(self.recall[k])
        )

    def _tp_at(self, k):
        kk = _as_numeric_array(k, "k", "PRCurve")
        kk = np.asarray(kk, dtype=np.float64)
        total = float(self._retrieved()[-1])
        if np.isnan(kk).any() or (kk <= 0).any() or (kk > total).any():
            raise ValueError(
                f"PRCurve: k must be a number of retrieved items in (0, {total:g}]; got {k!r}."
            )
        return kk, np.interp(kk, self._retrieved(), self.tp)

    def precision_at_k(self, k):
        """Precision among the top ``k`` items, tp(k) / k.

        ``k`` may be an array. Inside a tie group (threshold curves) tp(k) is
        interpolated linearly: the expected value over random orders of the
        tie. For weighted curves ``k`` is a retrieved weight.

        Examples
        --------
        >>> c = pr_curve([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0])
        >>> c.precision_at_k(2)  # top item positive, then one of a tied pos/neg pair
        0.75
        """
        kk, tpk = self._tp_at(k)
        return _scalar_or_array(tpk / kk, kk)

    def recall_at_k(self, k):
        """Recall among the top ``k`` items, tp(k) / n_pos (see :meth:`precision_at_k`)."""
        kk, tpk = self._tp_at(k)
        return _scalar_or_array(tpk / self.n_pos, kk)

    def precision_at_recall(self, r):
        """Interpolated precision at recall ``r``: max precision over points with recall >= r.

        Recall is compared as computed in float64 (``tp / n_pos`` is correctly
        rounded, so a recall of exactly 3/10 equals ``0.3``). Only real
        operating points count (the 0/0 := 1 point does not).

        Examples
        --------
        >>> c = pr_curve([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0])
        >>> c.precision_at_recall([0.5, 0.6])
        array([1.        , 0.66666667])
        """
        rr = _as_query(r, "r", 0.0, 1.0)
        sm = self._suffix_max_precision(False)
        idx = np.maximum(np.searchsorted(self.recall, rr, side="left"), 1)
        return _scalar_or_array(sm[idx], rr)

    def recall_at_precision(self, p):
        """Largest recall at an operating point with precision >= ``p`` (0 if none).

        The empty retrieval (recall 0, precision 1) takes part, so the answer
        is 0 when no real operating point is precise enough.

        Examples
        --------
        >>> pr_curve([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0]).recall_at_precision(0.9)
        0.5
        """
        pp = _as_query(p, "p", 0.0, 1.0)
        order = np.argsort(-self.precision, kind="stable")
        prec_desc = self.precision[order]
        best_rec = np.maximum.accumulate(self.recall[order])
        # number of points with precision >= p
        cnt = np.searchsorted(-prec_desc, -pp, side="right")
        out = np.where(cnt > 0, best_rec[np.maximum(cnt - 1, 0)], 0.0)
        return _scalar_or_array(out, pp)


@fill_doc(CURVE_DOCS)
@score_label_aliases
def pr_curve(
    scores,
    y,
    *,
    sample_weight=None,
    ties: str = "threshold",
    pos_label=None,
    drop_intermediate: bool = False,
) -> PRCurve:
    """Precision-recall curve with every operating point, starting from (0, 1).

    Parameters
    ----------
    scores : array_like of float, any shape (flattened)
        Higher scores are retrieved first. ``+/-inf`` are ranked; NaN is an
        error. For one ranking per row use :func:`average_precision_many`.
    y : array_like, same number of elements
        Binary labels: 0/1, False/True or -1/1, where 1 (True) marks a
        positive. Other labels (more values, strings) need ``pos_label``.
    sample_weight : array_like of float >= 0, optional
        Weight of each item; 0 drops it. On a threshold curve an integer
        weight w gives exactly the curve of w copies; on a per-item curve a
        weighted item is one operating point (w copies would add w - 1
        intermediate points).
    ties : {"threshold", "stable", "optimistic", "pessimistic"}
        ``"threshold"``: one point per distinct score (tied items enter
        together; scikit-learn's convention). The others give one point per
        item with ties broken by input order, positives first, or positives
        last. (The ``"average"`` AP of :func:`pranker.auprc_ap` is not a
        curve; get it with ``curve.average_precision(ties="average")``.)
    pos_label : scalar, optional
        The label of the positive class (e.g. ``"spam"``); every other label
        is a negative. It must occur in ``y``.
    drop_intermediate : bool, default False
        Drop the points inside a run of false positives (where tp equals tp
        at both neighbouring points), keeping the first and last point of
        each recall: scikit-learn's ``precision_recall_curve(...,
        drop_intermediate=True)``, whose default is False too. No area or
        summary changes; only the points, and thresholds, inside such runs
        go. Threshold curves only.
    y_score, y_true : array_like, keyword only
        scikit-learn's names for ``scores`` and ``y``; give each argument once.

    Items masked in ``scores`` or ``y`` (numpy masked arrays), or whose
    ``sample_weight`` is masked, are left out.

    Returns
    -------
    PRCurve
        Point 0 first (recall 0, precision 1 at threshold ``+inf``), then
        decreasing thresholds: scikit-learn's ``precision_recall_curve``
        returns the same points in the reverse order, without that
        threshold.

    Raises
    ------
    ValueError
        NaN scores, a missing label, size mismatch, empty input, no positive
        of nonzero weight, labels that are not binary (without
        ``pos_label``), a ``pos_label`` that does not occur, arguments that
        look swapped, a tie mode that is not a curve, ``drop_intermediate``
        with a per-item curve, weights that are negative, not finite or not
        one per item, or 2-D (table) input. String labels without
        ``pos_label``, complex or ragged input, non-numeric weights and a
        ``drop_intermediate`` that is not a bool raise
        %(input_error)s.
    %(type_error)s

    See Also
    --------
    auprc_ap : Average precision without building the curve.
    roc_curve : The ROC curve of the same ranking.
    expected_null_pr_curve : The PR curve of a random ranking.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schuetze, Introduction to
       Information Retrieval, Cambridge University Press, 2008, ch. 8.
    .. [2] J. Davis and M. Goadrich, "The relationship between precision-recall
       and ROC curves", ICML 2006.

    Examples
    --------
    >>> c = pr_curve([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0])
    >>> c.recall.tolist(), c.precision.tolist()
    ([0.0, 0.5, 1.0, 1.0], [1.0, 1.0, 0.6666666666666666, 0.5])
    >>> round(c.average_precision(), 6)  # = sklearn average_precision_score
    0.833333
    >>> round(c.average_precision(ties="average"), 6)  # = auprc_ap(...): (1 + 5/6) / 2
    0.916667
    >>> c.break_even_point()  # R-precision: 2 items retrieved, 1.5 expected positives
    0.75
    """
    where = "pr_curve"
    if ties not in _CURVE_TIES:
        check_ties(ties, where)
        raise ValueError(
            f"{where}: ties={ties!r} does not define a curve; use one of {_CURVE_TIES} "
            "(for the average-over-orders AP call curve.average_precision(ties='average'))."
        )
    if check_flag(drop_intermediate, "drop_intermediate", where) and ties != "threshold":
        raise ValueError(
            f"{where}: drop_intermediate=True needs a threshold curve (ties='threshold', as "
            f"scikit-learn's); a ties={ties!r} curve keeps one point per item."
        )
    thr, tp, fp, n_pos, n_neg, _, w = _curve_counts(
        scores,
        y,
        sample_weight,
        pos_label,
        need_neg=False,
        what="precision-recall curve",
        where=where,
        ties=ties,
    )
    if drop_intermediate:
        thr, tp, fp = _drop_intermediate(thr, tp, fp, roc=False)
    return PRCurve(thr, tp, fp, n_pos, n_neg, ties, w is not None)


# ---------------------------------------------------------------------------
# ROC curve
# ---------------------------------------------------------------------------
