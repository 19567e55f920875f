"""numba kernels for many rankings at once and for vectorised beta fits.

Only numbers and arrays cross this boundary; validation lives in the callers
(:mod:`pranker.significance.many`, :mod:`pranker.null.tables`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .moments import beta_standard_moments, min_ap, null_moments
from .sampling import bucket_of, bucket_starts, insertion_sort
from .tiegroups import MODE_STABLE, ap_from_groups, ap_from_ranks, lower_bound

# status codes per row
ROW_OK = 0
ROW_NO_POSITIVE = 1
ROW_NAN = 2

# ``mode`` of :func:`ap_rows` for ``ties="stable"`` with sum_k k / r_k added best rank
# first, the order of :func:`pranker.average_precision_many` (``MODE_STABLE`` adds
# worst rank first, the order of :func:`pranker.auprc_ap` and ``pranker_many``)
MODE_STABLE_BEST_FIRST = -1


@njit(cache=True)
def _bucket_table(u, G, K, scale):
    """table[b] = #{g : bucket(u[g]) < b}, bucket(x) = min(int((x - u[0]) * scale), K - 1).

    The bucket map is monotone in x (a subtraction and a multiplication by a
    positive constant, each correctly rounded, then a floor), so for any x in
    bucket b the lower bound of x in u lies in [table[b], table[b + 1]]: exact,
    whatever the rounding.
    """
    table = np.empty(K + 1, dtype=np.int64)
    bucket_starts(u, G, u[0], scale, K, table)
    return table


@njit(cache=True)
def _sort_floats(a, lo, hi):
    """Sorted copy of ``a`` (no NaN; ``lo``/``hi`` its min and max), O(len) expected.

    A counting pass over len(a) equal-width buckets on [lo, hi], a scatter,
    then an insertion sort inside each bucket (np.sort when a bucket holds more
    than 32 values, so a skewed distribution costs O(n log n), never O(n^2)).
    The bucket map is monotone, so the buckets concatenate in order. Falls back
    to np.sort for short inputs and infinite or subnormal ranges.
    """
    p = a.shape[0]
    span = hi - lo
    if p <= 64 or not span > 0.0:
        return np.sort(a)
    scale = p / span
    if not (scale > 0.0 and scale < np.inf and span * scale < 2.0 * p):
        return np.sort(a)
    counts = np.empty(p + 1, dtype=np.int64)
    bucket_starts(a, p, lo, scale, p, counts)
    fill = counts[:p].copy()
    out = np.empty(p)
    for i in range(p):
        b = bucket_of(a[i], lo, scale, p)
        out[fill[b]] = a[i]
        fill[b] += 1
    for b in range(p):
        s0 = counts[b]
        e0 = counts[b + 1]
        if e0 - s0 > 32:
            out[s0:e0] = np.sort(out[s0:e0])
        else:
            insertion_sort(out[s0:e0], e0 - s0)
    return out


@njit(cache=True, inline="always")
def _locate(x, u, G, u0, scale, table, K):
    """Position of x among the ascending u[:G], u[0] <= x <= u[G-1]: the first g with
    u[g] >= x, found through the bucket table (inlined into the loops that call it:
    a real call per item that passes arrays would cost reference counting, ~10x the
    work itself)."""
    if K == 0:
        g = 0
        h = G
    else:
        b = bucket_of(x, u0, scale, K)
        g = table[b]
        h = table[b + 1]
    if h - g > 8:  # crowded bucket: binary search
        return lower_bound(u, x, g, h)
    while u[g] < x:  # stops by g = G - 1 since x <= top
        g += 1
    return g


@njit(cache=True)
def row_ap(s, yr, mr, use_mask, mode, pos_buf):
    """AP of one ranking (a 1-D view) without sorting it.

    Returns ``(ap, n_valid, n_pos, n_nan)``. Items with ``mr[j]`` False are
    skipped when ``use_mask``. The positives' scores are sorted (P log P);
    every item is then placed among the G distinct positive scores (a bucket
    table of K ~ 32 G equal-width buckets over [min, max] of the positive
    scores gives each item's position up to a short search: O(1) expected for
    smooth score distributions, O(log G) at worst), which yields, for each
    distinct positive score, the number of items above it and tied with it:
    the tie groups of
    :func:`pranker._numba.tiegroups.ap_from_groups`. ``ties="stable"`` adds one pass
    in input order that counts, for each positive, the tied items before it
    (``mode`` ``MODE_STABLE`` or ``MODE_STABLE_BEST_FIRST``: the order of the sum).
    ``pos_buf`` is scratch space of at least ``len(s)`` floats.
    """
    n_items = s.shape[0]
    p = 0
    nan = 0
    pmin = np.inf
    pmax = -np.inf
    # pass 1 reads only the labels (1 byte per item) and gathers the positives
    for j in range(n_items):
        if yr[j] and (not use_mask or mr[j]):
            x = s[j]
            if x != x:
                nan += 1
            else:
                pos_buf[p] = x
                p += 1
                pmin = min(pmin, x)
                pmax = max(pmax, x)
    if nan > 0 or p == 0:
        n = 0
        for j in range(n_items):
            if use_mask and not mr[j]:
                continue
            if s[j] != s[j]:
                nan += 1 if not yr[j] else 0
            else:
                n += 1
        return np.nan, n, p, nan
    pos = _sort_floats(pos_buf[:p], pmin, pmax)
    u = np.empty(p)
    ptied = np.zeros(p, dtype=np.int64)
    G = 0
    for i in range(p):
        if i == 0 or pos[i] != pos[i - 1]:
            u[G] = pos[i]
            G += 1
        ptied[G - 1] += 1
    gap = np.zeros(G + 1, dtype=np.int64)  # items strictly between u[g-1] and u[g]
    tied = np.zeros(G, dtype=np.int64)
    K = 0
    scale = 0.0
    table = np.zeros(1, dtype=np.int64)
    if G > 1:
        K = min(32 * G, max(n_items // 2, 16))
        scale = K / (u[G - 1] - u[0])
        if not (scale > 0.0 and scale < np.inf and (u[G - 1] - u[0]) * scale < 2.0 * K):
            K = 0  # infinite or subnormal range: plain binary search
        else:
            table = _bucket_table(u, G, K, scale)
    u0 = u[0]
    top = u[G - 1]
    n = 0
    for j in range(n_items):
        if use_mask and not mr[j]:
            continue
        x = s[j]
        if x != x:
            nan += 1
            continue
        n += 1
        if x > top:
            gap[G] += 1
            continue
        if x < u0:
            gap[0] += 1
            continue
        g = _locate(x, u, G, u0, scale, table, K)
        e = 1 if u[g] == x else 0
        tied[g] += e
        gap[g] += 1 - e
    greater = np.empty(G, dtype=np.int64)
    n_tied = np.empty(G, dtype=np.int64)
    pos_greater = np.empty(G, dtype=np.int64)
    pos_tied = np.empty(G, dtype=np.int64)
    above = gap[G]
    pos_above = 0
    for t in range(G):  # groups from the best score down
        g = G - 1 - t
        greater[t] = above
        n_tied[t] = tied[g]
        pos_greater[t] = pos_above
        pos_tied[t] = ptied[g]
        above += tied[g] + gap[g]
        pos_above += ptied[g]
    if nan > 0:
        return np.nan, n, p, nan
    if mode != MODE_STABLE and mode != MODE_STABLE_BEST_FIRST:
        return ap_from_groups(greater, n_tied, pos_greater, pos_tied, p, mode), n, p, 0
    # stable: rank = items above + tied items up to and including this one in input order
    seen = np.zeros(G, dtype=np.int64)
    ranks = np.empty(p, dtype=np.int64)
    c = 0
    for j in range(n_items):
        if use_mask and not mr[j]:
            continue
        x = s[j]
        if x > top or x < u0:
            continue  # not tied with any positive
        g = _locate(x, u, G, u0, scale, table, K)
        if u[g] == x:
            seen[g] += 1
            if yr[j]:
                ranks[c] = greater[G - 1 - g] + seen[g]
                c += 1
    ranks.sort()
    if mode == MODE_STABLE_BEST_FIRST:
        total = 0.0
        for k in range(p):
            total += (k + 1.0) / float(ranks[k])
        return total / float(p), n, p, 0
    return ap_from_ranks(ranks, p), n, p, 0


@njit(cache=True)
def store_row(i, res, ap_out, n_out, npos_out, status_out):
    """Write one ranking's ``row_ap`` result ``(ap, n, p, nan)`` at index ``i`` with its status code."""
    ap, n, p, nan = res
    ap_out[i] = ap
    n_out[i] = n
    npos_out[i] = p
    if nan > 0:
        status_out[i] = ROW_NAN
    elif p == 0:
        status_out[i] = ROW_NO_POSITIVE
    else:
        status_out[i] = ROW_OK


@njit(cache=True, parallel=True)
def ap_rows(scores, y, mask, use_mask, mode, lo, hi, ap_out, n_out, npos_out, status_out):
    """AP of rows lo..hi-1 of 2-D ``scores`` / ``y`` (bool) / ``mask`` (bool), in parallel."""
    for i in prange(lo, hi):
        buf = np.empty(scores.shape[1])
        res = row_ap(scores[i], y[i], mask[i if use_mask else 0], use_mask, mode, buf)
        store_row(i, res, ap_out, n_out, npos_out, status_out)


@njit(cache=True)
def beta_params(N, P, mean, var, a, one_minus_a):
    """Shape parameters of the beta on [a, 1] matched to (mean, var); same steps as beta_fit.

    Returns ``(alpha, beta, ok)``; NaN shapes with ok = True for a point mass
    (var = 0 or a = 1); ok = False when the moments cannot fit a beta.
    """
    if var == 0.0 or one_minus_a == 0.0:
        return np.nan, np.nan, True
    m, one_minus_m, c = beta_standard_moments(N, P, mean, var, a, one_minus_a)
    if not (m > 0.0 and one_minus_m > 0.0 and c > 0.0):
        return np.nan, np.nan, False
    return m * c, one_minus_m * c, True


@njit(cache=True, parallel=True)
def null_table_kernel(N, P, mean, var, a, one_minus_a, alpha, beta, ok):
    """Exact null moments, min AP and beta shapes for every (N[i], P[i]), in parallel."""
    for i in prange(N.shape[0]):
        n = float(N[i])
        p = float(P[i])
        m = float(N[i] - P[i])
        mu, v = null_moments(n, p, m)
        lo, span = min_ap(n, p, m)
        al, be, good = beta_params(n, p, mu, v, lo, span)
        mean[i] = mu
        var[i] = v
        a[i] = lo
        one_minus_a[i] = span
        alpha[i] = al
        beta[i] = be
        ok[i] = good
