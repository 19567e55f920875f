"""numba kernels for precision-recall and ROC curves.

Only numbers and arrays cross this boundary; validation lives in
:mod:`pranker.measures.curves`. Every kernel is one linear pass over data that numpy
has already sorted (``numpy.sort`` is SIMD-fast, much faster than ``argsort``).

Unweighted curves from two sorts
--------------------------------
For the threshold curve (one operating point per distinct score) we need, for
each distinct score v from the highest, how many positives and negatives
score exactly v. One numba pass splits the scores by class
(:func:`split_by_class`), numpy sorts each part in place, and a merge from
the top of both (:func:`merge_threshold_curve`) reads every group's counts.
Sorting the two parts costs no more than sorting all N scores, and no
argsort is needed. Output buffers are allocated for N + 1 points but only the
D + 1 used entries are ever touched, so untouched pages cost no memory.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .moments import _u_minus_log1p


@njit(cache=True)
def count_distinct_sorted(a):
    """Number of distinct values of a sorted 1-D array (``==`` equality)."""
    n = a.shape[0]
    if n == 0:
        return 0
    d = 1
    for i in range(1, n):
        if a[i] != a[i - 1]:
            d += 1
    return d


@njit(cache=True)
def split_by_class(s, y, pos, neg):
    """Copy scores of positives to ``pos`` and of negatives to ``neg`` (input order).

    Branch-free: every score is written to both arrays and only the index of
    its class advances, so ``pos`` and ``neg`` need one slack entry each.
    """
    ip = 0
    ineg = 0
    for i in range(s.shape[0]):
        v = s[i]
        b = 1 if y[i] else 0
        pos[ip] = v
        neg[ineg] = v
        ip += b
        ineg += 1 - b


@njit(cache=True)
def merge_threshold_curve(pos, neg, thr, tp, fp):
    """Threshold curve from ascending-sorted positive and negative scores.

    Walks both arrays from the top; each distinct value v is one operating
    point retrieving everything scoring >= v. Writes points 0..D (point 0 is
    the empty retrieval, threshold +inf) and returns ``(D, U)`` with U the
    Mann-Whitney count of :func:`merge_mann_whitney`, accumulated on the way
    (each group adds dfp (tp_above + dtp / 2)).
    """
    thr[0] = np.inf
    tp[0] = 0.0
    fp[0] = 0.0
    i = pos.shape[0] - 1
    j = neg.shape[0] - 1
    k = 0
    ctp = 0.0
    cfp = 0.0
    u = 0.0
    while i >= 0 or j >= 0:
        if j < 0 or (i >= 0 and pos[i] >= neg[j]):
            v = pos[i]
        else:
            v = neg[j]
        dtp = 0.0
        while i >= 0 and pos[i] == v:
            dtp += 1.0
            i -= 1
        dfp = 0.0
        while j >= 0 and neg[j] == v:
            dfp += 1.0
            j -= 1
        u += dfp * (ctp + 0.5 * dtp)
        ctp += dtp
        cfp += dfp
        k += 1
        thr[k] = v
        tp[k] = ctp
        fp[k] = cfp
    return k, u


@njit(cache=True)
def merge_mann_whitney(pos, neg):
    """U = #(pos > neg) + #(pos == neg) / 2 from ascending-sorted class scores.

    For each group of c equal positive scores v (ascending), ``lt`` negatives
    score below v and ``eq`` equal it, so the group adds c (lt + eq / 2).
    The scan over negatives is a tight, well-predicted loop. Partial sums are
    multiples of 1/2 below 2**53 for n_pos n_neg < 2**52, so U is exact there.
    """
    P = pos.shape[0]
    M = neg.shape[0]
    i = 0
    j = 0
    u = 0.0
    while i < P:
        v = pos[i]
        c = 0
        while i < P and pos[i] == v:
            c += 1
            i += 1
        while j < M and neg[j] < v:
            j += 1
        k = j
        while k < M and neg[k] == v:
            k += 1
        u += c * (j + 0.5 * (k - j))
        j = k
    return u


@njit(cache=True)
def threshold_curve_weighted(vals_asc, wpos_asc, wneg_asc, thr, tp, fp):
    """Threshold curve from ascending values with per-item positive / negative weights.

    ``wpos_asc[i]`` is the item's weight if it is positive, else 0; likewise
    ``wneg_asc``. Output arrays have length ``D + 1``; point 0 is empty.
    """
    thr[0] = np.inf
    tp[0] = 0.0
    fp[0] = 0.0
    i = vals_asc.shape[0] - 1
    k = 0
    ctp = 0.0
    cfp = 0.0
    while i >= 0:
        v = vals_asc[i]
        while i >= 0 and vals_asc[i] == v:
            ctp += wpos_asc[i]
            cfp += wneg_asc[i]
            i -= 1
        k += 1
        thr[k] = v
        tp[k] = ctp
        fp[k] = cfp


@njit(cache=True)
def dg_segment_area(tpa, fpa, tpb, fpb):
    """Integral of precision d(tp) along Davis & Goadrich's interpolation from A to B.

    Between operating points A and B with dtp = tpb - tpa > 0 positives and
    dfp = fpb - fpa negatives, Davis & Goadrich (2006) let the false positives
    grow at the constant rate s = dfp / dtp per true positive, so at
    tp = tpa + x the precision is tp / (a + b tp) with b = 1 + s and
    a = fpa - s tpa (a + b tp is the number retrieved, n). Then

        I = int_{tpa}^{tpb} tp / (a + b tp) dtp
          = dtp / b - (a / b^2) ln(n_B / n_A)                    (1)
          = (1 / b^2) [b tpa u + a (u - log1p u)],  u = dn / n_A  (2)

    (2) follows from (1) with n_A - a = b tpa. When a < 0 both terms of (1)
    are positive; when a > 0 both terms of (2) are; so no cancellation.
    If n_A = 0 (the segment leaves the empty retrieval) a = 0 and the
    precision is constant, I = dtp / b.
    """
    dtp = tpb - tpa
    if dtp <= 0.0:
        return 0.0
    dfp = fpb - fpa
    s = dfp / dtp
    b = 1.0 + s
    na = tpa + fpa
    if na <= 0.0:
        return dtp / b
    a = fpa - s * tpa
    u = (dtp + dfp) / na
    if a < 0.0:
        return dtp / b - (a / (b * b)) * math.log1p(u)
    return (b * tpa * u + a * _u_minus_log1p(u)) / (b * b)


@njit(cache=True)
def dg_area(tp, fp, n_pos):
    """Area under the Davis & Goadrich interpolated PR curve (sum of segment integrals)."""
    total = 0.0
    for k in range(1, tp.shape[0]):
        total += dg_segment_area(tp[k - 1], fp[k - 1], tp[k], fp[k])
    return total / n_pos


@njit(cache=True, inline="always")
def _tie_runs(vals, labels, size, npos):
    """Runs of equal values of one row, in order: their sizes into ``size`` and
    positives into ``npos``; returns how many."""
    n = vals.shape[0]
    t = 0
    i = 0
    while i < n:
        v = vals[i]
        c = 0
        p = 0
        while i < n and (c == 0 or vals[i] == v):
            if labels[i]:
                p += 1
            c += 1
            i += 1
        size[t] = c
        npos[t] = p
        t += 1
    return t


@njit(cache=True)
def auc_rows(vals_desc, labels_desc):
    """ROC AUC (Mann-Whitney, ties 1/2) of each row sorted in decreasing order."""
    R, n = vals_desc.shape
    out = np.empty(R)
    size = np.empty(n, dtype=np.int64)
    npos = np.empty(n, dtype=np.int64)
    for r in range(R):
        ctp = 0.0
        cfp = 0.0
        u = 0.0
        for t in range(_tie_runs(vals_desc[r], labels_desc[r], size, npos)):
            dtp = float(npos[t])
            dfp = float(size[t] - npos[t])
            u += dfp * (ctp + 0.5 * dtp)
            ctp += dtp
            cfp += dfp
        if ctp == 0.0 or cfp == 0.0:
            out[r] = np.nan
        else:
            out[r] = u / ctp / cfp
    return out
