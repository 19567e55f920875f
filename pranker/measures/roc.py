"""ROC curves and the area under them (``roc_curve``, ``roc_auc``, ``roc_auc_many``).

The conventions (operating points, ties, weights) are those of
:mod:`pranker.measures.curves`: point 0 retrieves nothing, ``ties`` decides
how tied items enter, ``sample_weight`` multiplies each item's contribution.
The area is the Mann–Whitney statistic (ties counted half), computed from
the counts at the operating points; ``max_fpr`` gives the standardised
partial area of McClish (1989), as scikit-learn does.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._docs import MEASURE_DOCS as CURVE_DOCS
from .._docs import fill_doc
from .._numba import curves as ck
from .._validation import (
    check_average,
    check_each_row,
    check_flag,
    check_max_fpr,
    check_rows,
    is_matrix,
    score_label_aliases,
)
from .ap import average_table
from .curves import (
    _curve_counts,
    _drop_intermediate,
    _mann_whitney_u,
    _prepare,
    _readonly_ratio,
)

__all__ = ["ROCCurve", "roc_curve", "roc_auc", "roc_auc_many"]


@dataclass(frozen=True, eq=False)
class ROCCurve:
    """A ROC curve: x = false positive rate (1 - specificity), y = true positive rate.

    Attributes
    ----------
    fpr, tpr : ndarray, shape (K + 1,)
        From (0, 0) (nothing retrieved, threshold ``+inf``) to (1, 1); one
        point per distinct score. Tied positives and negatives make a
        diagonal segment. Computed on first access and cached.
    thresholds : ndarray
        ``thresholds[k]`` is the smallest score retrieved at point ``k``.
    tp, fp : ndarray
        Cumulative (weighted) counts.
    n_pos, n_neg : float
    auc : float
        Area under the piecewise-linear curve = Mann-Whitney U / (n_pos n_neg)
        with ties counted 1/2 (equal to scikit-learn's ``roc_auc_score``).

    See Also
    --------
    roc_curve : Builds it.
    roc_auc : The area alone.
    PRCurve : The precision-recall curve of the same counts.

    References
    ----------
    .. [1] T. Fawcett, "An introduction to ROC analysis", Pattern Recognition
       Letters 27 (2006) 861-874.

    Examples
    --------
    The positive at 0.9 outranks both negatives; the one at 0.8 ties a
    negative (1/2) and outranks the other: U = 2 + 1.5 of 2 x 2 pairs.

    >>> r = roc_curve([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0])
    >>> r.fpr.tolist(), r.tpr.tolist(), r.auc
    ([0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0], 0.875)
    """

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    n_pos: float
    n_neg: float
    auc: float

    def __len__(self) -> int:
        return int(self.thresholds.shape[0])

    @cached_property
    def fpr(self) -> np.ndarray:
        """False positive rate ``fp / n_neg`` (x axis). Computed on first access."""
        return _readonly_ratio(self.fp, self.n_neg)

    @cached_property
    def tpr(self) -> np.ndarray:
        """True positive rate ``tp / n_pos`` (y axis). Computed on first access."""
        return _readonly_ratio(self.tp, self.n_pos)

    def eer(self) -> tuple[float, float]:
        """Equal error rate: where the curve crosses fpr = fnr = 1 - tpr.

        The ROC curve is piecewise linear, so the crossing is found on the
        segment where ``fp / n_neg - (n_pos - tp) / n_pos`` changes sign
        (tested in counts, exactly for unweighted data) and interpolated
        linearly on it. Returns ``(eer, threshold)``, the threshold being the
        one of the first operating point with fpr >= fnr.
        """
        P, M = self.n_pos, self.n_neg
        g = self.fp * P - (P - self.tp) * M  # sign of fpr - fnr, times P*M > 0
        k = int(np.searchsorted(g, 0.0, side="left"))  # g is non-decreasing
        if g[k] == 0.0 or k == 0:
            return float(self.fp[k] / M), float(self.thresholds[k])
        fpr0, fnr0 = self.fp[k - 1] / M, (P - self.tp[k - 1]) / P
        dfpr = (self.fp[k] - self.fp[k - 1]) / M
        dtpr = (self.tp[k] - self.tp[k - 1]) / P
        t = (fnr0 - fpr0) / (dfpr + dtpr)
        return float(fpr0 + t * dfpr), float(self.thresholds[k])


@fill_doc(CURVE_DOCS)
@score_label_aliases
def roc_curve(
    scores, y, *, sample_weight=None, pos_label=None, drop_intermediate: bool = False
) -> ROCCurve:
    """ROC curve (fpr, tpr per distinct threshold), its AUC and equal error rate.

    Parameters
    ----------
    scores : array_like of float, any shape (flattened)
    y : array_like, same number of elements
        %(binary_labels)s.
    sample_weight : array_like of float >= 0, optional
    %(pos_label)s
    drop_intermediate : bool, default False
        Drop the points that lie on the straight line between their
        neighbours at equal steps (second differences of fp and tp both 0),
        as scikit-learn's ``roc_curve``, whose default is True: pass
        ``drop_intermediate=True`` for its points. The default keeps every
        threshold. The area and the value of the equal error rate do not change.
    %(sklearn_names)s

    Masked items (numpy masked arrays) are left out, as in :func:`pr_curve`.

    Returns
    -------
    ROCCurve

    Raises
    ------
    ValueError
        NaN scores, a missing label, size mismatch, empty input, a class
        with no item of nonzero weight, labels that are not binary (without
        ``pos_label``), a ``pos_label`` that does not occur, arguments that
        look swapped, weights that are negative, not finite or not one per
        item, or 2-D (table) input. String labels without ``pos_label``,
        complex or ragged input, non-numeric weights and a
        ``drop_intermediate`` that is not a bool raise
        %(input_error)s.
    %(type_error)s

    See Also
    --------
    roc_auc : The area alone.
    pr_curve : The precision-recall curve of the same ranking.

    References
    ----------
    .. [1] T. Fawcett, "An introduction to ROC analysis", Pattern Recognition
       Letters 27(8), 2006.
    .. [2] T. A. Lasko et al., "The use of receiver operating characteristic
       curves in biomedical informatics", J. Biomed. Inform. 38, 2005.

    Examples
    --------
    >>> c = roc_curve([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0])
    >>> c.fpr.tolist(), c.tpr.tolist()
    ([0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0])
    >>> c.auc  # (2 wins + 1 tie/2) / (2 * 2)
    0.875
    >>> c.eer()
    (0.25, 0.8)
    """
    drop = check_flag(drop_intermediate, "drop_intermediate", "roc_curve")
    thr, tp, fp, n_pos, n_neg, u, _ = _curve_counts(
        scores, y, sample_weight, pos_label, need_neg=True, what="ROC curve", where="roc_curve"
    )
    if drop:
        thr, tp, fp = _drop_intermediate(thr, tp, fp, roc=True)
    return ROCCurve(thr, tp, fp, n_pos, n_neg, u / n_pos / n_neg)


def _partial_auc(tp: np.ndarray, fp: np.ndarray, max_fpr: float) -> float:
    """McClish's standardised partial AUC over fpr in [0, max_fpr], as scikit-learn.

    The ROC polyline is cut at ``fpr = max_fpr`` (tpr interpolated linearly
    on the segment that crosses it), its area A is taken by the trapezoid
    rule, and ``0.5 (1 + (A - a_min) / (a_max - a_min))`` with
    ``a_min = max_fpr^2 / 2`` (the chance diagonal) and ``a_max = max_fpr``
    maps chance to 0.5 and a perfect ranking to 1.
    """
    fpr = fp / fp[-1]
    tpr = tp / tp[-1]
    stop = int(np.searchsorted(fpr, max_fpr, side="right"))
    x = np.append(fpr[:stop], max_fpr)
    y = np.append(
        tpr[:stop], np.interp(max_fpr, fpr[stop - 1 : stop + 1], tpr[stop - 1 : stop + 1])
    )
    area = float(np.sum(np.diff(x) * (y[1:] + y[:-1]) * 0.5))
    lo = 0.5 * max_fpr**2
    return 0.5 * (1.0 + (area - lo) / (max_fpr - lo))


def _roc_table_rows(max_fpr):
    def rows(S, Y, W, axis):
        if W is None:
            npos = Y.sum(axis=1)
            ok = (npos > 0) & (npos < Y.shape[1])
        else:
            ok = (np.where(Y, W, 0.0).sum(axis=1) > 0) & (np.where(Y, 0.0, W).sum(axis=1) > 0)
        check_each_row(
            ok,
            "roc_auc",
            "has only one class (of nonzero weight): its ROC AUC is undefined (scikit-learn "
            f"gives NaN with a warning); leave that {axis} out",
            axis,
        )
        if W is None and max_fpr is None:
            return ck.auc_rows(*_sorted_rows(S, Y))
        return np.array(
            [
                roc_auc(S[r], Y[r], sample_weight=None if W is None else W[r], max_fpr=max_fpr)
                for r in range(S.shape[0])
            ]
        )

    return rows


@fill_doc(CURVE_DOCS)
@score_label_aliases
def roc_auc(
    scores,
    y,
    *,
    sample_weight=None,
    pos_label=None,
    max_fpr: float | None = None,
    average: str | None = "binary",
):
    """ROC AUC = Mann-Whitney U / (n_pos n_neg), ties counted 1/2, without building the curve.

    Same value as ``roc_curve(...).auc`` and scikit-learn's ``roc_auc_score``:
    the probability that a random positive scores above a random negative,
    ties counting one half.

    Parameters
    ----------
    scores : array_like of float, shape (N,)
        Higher scores rank first. ``+inf`` and ``-inf`` are ranked; NaN is an
        error. A 2-D table (n_samples, n_classes) needs ``average``.
    y : array_like, same shape as ``scores``
        %(binary_labels)s. Both classes must occur.
    sample_weight : array_like of float >= 0, shape (N,), optional
        Item weights; items of weight 0 are left out. Weighted input is
        computed from the curve (:func:`roc_curve`).
    %(pos_label)s
    max_fpr : float in (0, 1], optional
        The standardised partial AUC over false positive rates up to
        ``max_fpr`` (McClish 1989), exactly as scikit-learn's
        ``roc_auc_score(..., max_fpr=)``: the area A of the curve cut at
        ``max_fpr`` (tpr interpolated linearly there), mapped to
        ``0.5 (1 + (A - m) / (max_fpr - m))`` with ``m = max_fpr^2 / 2``,
        so that chance gives 0.5 and a perfect ranking 1. ``None`` or 1:
        the whole area.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None
        For a 2-D table (n_samples, n_classes), one column of labels per
        class, as in :func:`auprc_ap`: ``"binary"`` (default) refuses a
        table and names the choices; ``"micro"`` ranks all entries together;
        ``"macro"`` (scikit-learn's default) averages the columns' AUCs;
        ``"weighted"`` weights them by their (weighted) numbers of
        positives; ``"samples"`` averages each row's AUC over the classes;
        ``None`` returns one per column. Ignored for one ranking.
    %(sklearn_names)s

    Masked items (numpy masked arrays) are left out, as in :func:`roc_curve`.

    Returns
    -------
    float or ndarray
        The area under the ROC curve, in [0, 1] (the standardised partial
        area with ``max_fpr``); with ``average=None`` one per column.

    Raises
    ------
    ValueError
        NaN scores, a missing label, size mismatch, empty input, labels that
        are not binary (without ``pos_label``), a ``pos_label`` that does not
        occur, arguments that look swapped, a class with no item (of
        nonzero weight; in a table: a column or row with one class), weights
        that are negative, not finite or not one per item, or a table
        without ``average``. String labels without ``pos_label``, complex or
        ragged input, non-numeric weights, a ``max_fpr`` outside (0, 1] and
        an unknown ``average`` raise
        %(input_error)s (scikit-learn's
        ``InvalidParameterError`` is both too).
    %(type_error)s

    See Also
    --------
    roc_curve : the curve itself, whose ``auc`` is this value.
    roc_auc_many : one ROC AUC per row of a 2-D score array.
    auprc_ap : the area under the precision-recall curve (average precision).

    Notes
    -----
    Unweighted input with one class much smaller than the other costs a sort
    of the smaller class and one counting pass over all scores (see
    :mod:`pranker._numba.rankcount`); balanced classes cost about one
    ``numpy.sort`` (of each class separately).

    References
    ----------
    .. [1] H. B. Mann and D. R. Whitney, "On a test of whether one of two random
       variables is stochastically larger than the other", Ann. Math. Stat. 18, 1947.
    .. [2] J. A. Hanley and B. J. McNeil, "The meaning and use of the area under a
       receiver operating characteristic (ROC) curve", Radiology 143, 1982.
    .. [3] D. K. McClish, "Analyzing a portion of the ROC curve", Medical
       Decision Making 9(3), 1989.

    Examples
    --------
    Two wins and one tie out of four (positive, negative) pairs:

    >>> roc_auc([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0])
    0.875
    >>> roc_auc(y_true=["a", "b", "a"], y_score=[0.2, 0.5, 0.9], pos_label="a")
    0.5
    >>> roc_auc([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0], max_fpr=0.5)  # area 0.375 of [0, 0.5]
    0.8333333333333333
    """
    where = "roc_auc"
    max_fpr = check_max_fpr(max_fpr, where)
    check_average(average, where)
    if is_matrix(scores) or is_matrix(y):
        return average_table(
            where,
            scores,
            y,
            sample_weight,
            average,
            pos_label,
            lambda s, t, w: roc_auc(s, t, sample_weight=w, pos_label=pos_label, max_fpr=max_fpr),
            _roc_table_rows(max_fpr),
        )
    if max_fpr is not None and max_fpr < 1.0:
        thr, tp, fp, _, _, _, _ = _curve_counts(
            scores, y, sample_weight, pos_label, need_neg=True, what="ROC AUC", where=where
        )
        return _partial_auc(tp, fp, max_fpr)
    s, yb, w = _prepare(
        scores,
        y,
        sample_weight,
        need_neg=True,
        what="ROC AUC",
        pos_label=pos_label,
        where=where,
        check_nan=sample_weight is not None,
    )
    if w is not None:
        return roc_curve(s, yb, sample_weight=w).auc
    n_pos = int(np.count_nonzero(yb))
    n_neg = s.size - n_pos
    return float(_mann_whitney_u(s, yb, n_pos, where=where) / n_pos / n_neg)


# ---------------------------------------------------------------------------
# many rankings at once (one per row)
# ---------------------------------------------------------------------------


def _sorted_rows(s: np.ndarray, yb: np.ndarray):
    order = np.argsort(-s, axis=1)
    return (
        np.ascontiguousarray(np.take_along_axis(s, order, axis=1)),
        np.ascontiguousarray(np.take_along_axis(yb, order, axis=1)),
    )


@fill_doc(CURVE_DOCS)
@score_label_aliases
def roc_auc_many(scores, y, *, pos_label=None) -> np.ndarray:
    """ROC AUC of each row of a 2-D score array (Mann-Whitney, ties 1/2).

    Parameters
    ----------
    scores : array_like, shape (R, N)
        One ranking per row.
    y : array_like, shape (N,) shared by all rows, or (R, N)
        %(binary_labels)s; every row needs both classes.
    %(pos_label)s

    Returns
    -------
    ndarray, shape (R,)
        ``roc_auc(scores[r], y[r])`` for each row.

    Raises
    ------
    ValueError
        Scores that are not 2-D or are empty, NaN scores, a missing label,
        ``y`` of another shape, a row of ``y`` with one class, labels that
        are not binary (without ``pos_label``), arguments that look swapped,
        or masked entries. String labels without ``pos_label`` and complex or
        ragged input raise
        %(input_error)s.
    %(type_error)s

    See Also
    --------
    roc_auc : One ranking.
    average_precision_many : Average precision of each row.

    Examples
    --------
    >>> roc_auc_many([[3, 2, 1], [1, 1, 1]], [1, 0, 1])
    array([0.5, 0.5])
    """
    where = "roc_auc_many"
    s, yb = check_rows(scores, y, where, pos_label)
    npos = yb.sum(axis=1)
    check_each_row(
        (npos > 0) & (npos < yb.shape[1]), where, "has only one class: ROC AUC is undefined"
    )
    vs, ys = _sorted_rows(s, yb)
    return ck.auc_rows(vs, ys)
