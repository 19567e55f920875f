"""numba kernels for precision-recall and ROC curves.

Only numbers and arrays cross this boundary; validation lives in
:mod:`pranker.curves`. Every kernel is one linear pass over data that numpy
has already sorted (``numpy.sort`` is SIMD-fast, much faster than ``argsort``).

Unweighted curves from two sorts
--------------------------------
For the threshold curve (one operating point per distinct score) we need, for
each distinct score v from the highest, how many items and how many positives
score exactly v. We sort all scores once and, separately, the scores of the
*smaller* class only (positives or negatives). Walking both sorted arrays from
the top, the size of a run of equal values in the full array is the group
size, and the run of the same value in the minority array counts that class
inside the group; the other class is the difference. This costs one sort of N
plus one sort of at most N/2 items, and no argsort.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._kernels import _u_minus_log1p, ap_from_groups


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
def threshold_curve_counts(all_sorted, minority_sorted, minority_is_pos, n_pos, thr, tp, fp,
                           prec, rec):
    """Fill a threshold curve (point 0 = nothing retrieved) from two ascending sorts.

    Output arrays have length ``D + 1`` for ``D`` distinct values. Point
    ``k >= 1`` retrieves every item scoring at least ``thr[k]``; ``prec`` and
    ``rec`` are ``tp / (tp + fp)`` (1 at point 0) and ``tp / n_pos``.

    One pass from the top: an item belongs to the minority class when the
    next unconsumed minority value equals it. Inside a tie group of c items
    with m minority items this consumes exactly m of them, so the counts are
    right whichever items of the group are taken as minority.
    """
    thr[0] = np.inf
    tp[0] = 0.0
    fp[0] = 0.0
    prec[0] = 1.0
    rec[0] = 0.0
    j = minority_sorted.shape[0] - 1
    k = 0
    cmin = 0
    cnt = 0
    for i in range(all_sorted.shape[0] - 1, -1, -1):
        v = all_sorted[i]
        cnt += 1
        if j >= 0 and minority_sorted[j] == v:
            cmin += 1
            j -= 1
        if i == 0 or all_sorted[i - 1] != v:
            k += 1
            if minority_is_pos:
                a = float(cmin)
            else:
                a = float(cnt - cmin)
            thr[k] = v
            tp[k] = a
            fp[k] = cnt - a
            prec[k] = a / cnt
            rec[k] = a / n_pos


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
def mann_whitney_sorted(all_sorted, minority_sorted, minority_is_pos):
    """(U, n_pos, n_neg): U = #(pos > neg) + #(pos == neg) / 2, from two ascending sorts.

    Walking groups from the top with tp, fp counted above the group, the group
    adds dfp * (tp + dtp / 2): each negative in it is beaten by every positive
    above and ties with the group's positives (counted 1/2). Every partial sum
    is a multiple of 1/2 below 2**53 for N up to ~1.3e8, so U is exact there.
    """
    j = minority_sorted.shape[0] - 1
    ctp = 0.0  # positives above the current group
    cfp = 0.0
    gmin = 0  # minority items and all items in the current group
    gcnt = 0
    u = 0.0
    for i in range(all_sorted.shape[0] - 1, -1, -1):
        v = all_sorted[i]
        gcnt += 1
        if j >= 0 and minority_sorted[j] == v:
            gmin += 1
            j -= 1
        if i == 0 or all_sorted[i - 1] != v:
            if minority_is_pos:
                dtp = float(gmin)
            else:
                dtp = float(gcnt - gmin)
            dfp = gcnt - dtp
            u += dfp * (ctp + 0.5 * dtp)
            ctp += dtp
            cfp += dfp
            gmin = 0
            gcnt = 0
    return u, ctp, cfp


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


@njit(cache=True)
def ap_rows(vals_desc, labels_desc, mode, stable):
    """Average precision of each row of values sorted in decreasing order.

    ``labels_desc`` holds the labels permuted like the values. With ``stable``
    every item is its own group (ties already broken by input order); else
    equal values form a tie group handled by ``ap_from_groups`` in ``mode``.
    Rows without a positive give NaN (the caller rejects them beforehand).
    """
    R = vals_desc.shape[0]
    n = vals_desc.shape[1]
    out = np.empty(R)
    greater = np.empty(n, dtype=np.int64)
    n_tied = np.empty(n, dtype=np.int64)
    pos_greater = np.empty(n, dtype=np.int64)
    pos_tied = np.empty(n, dtype=np.int64)
    for r in range(R):
        g = 0
        i = 0
        above = 0
        pos_above = 0
        while i < n:
            v = vals_desc[r, i]
            c = 0
            p = 0
            while i < n and (c == 0 or (not stable and vals_desc[r, i] == v)):
                if labels_desc[r, i]:
                    p += 1
                c += 1
                i += 1
            if p > 0:
                greater[g] = above
                n_tied[g] = c
                pos_greater[g] = pos_above
                pos_tied[g] = p
                g += 1
            above += c
            pos_above += p
        if pos_above == 0:
            out[r] = np.nan
        else:
            m = 2 if stable else mode  # a group of one: threshold formula is exact
            out[r] = ap_from_groups(
                greater[:g], n_tied[:g], pos_greater[:g], pos_tied[:g], pos_above, m
            )
    return out


@njit(cache=True)
def auc_rows(vals_desc, labels_desc):
    """ROC AUC (Mann-Whitney, ties 1/2) of each row sorted in decreasing order."""
    R = vals_desc.shape[0]
    n = vals_desc.shape[1]
    out = np.empty(R)
    for r in range(R):
        i = 0
        ctp = 0.0
        cfp = 0.0
        u = 0.0
        while i < n:
            v = vals_desc[r, i]
            dtp = 0.0
            dfp = 0.0
            while i < n and vals_desc[r, i] == v:
                if labels_desc[r, i]:
                    dtp += 1.0
                else:
                    dfp += 1.0
                i += 1
            u += dfp * (ctp + 0.5 * dtp)
            ctp += dtp
            cfp += dfp
        if ctp == 0.0 or cfp == 0.0:
            out[r] = np.nan
        else:
            out[r] = u / ctp / cfp
    return out
