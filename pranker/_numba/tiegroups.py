"""Kernels of average precision from tie groups: the tie modes, galloping searches.

A tie group is a set of items with equal scores: ``greater`` items score
above it, ``n_tied`` tie within it, of which ``pos_tied`` are positives with
``pos_greater`` positives above. Each tie mode turns these counts into the
group's contribution to AP (derivations in :mod:`pranker.measures.ap`).
"""

from __future__ import annotations

from numba import njit

from .moments import harmonic_sums

# modes of tie handling, as integer codes for the kernels
MODE_AVERAGE = 0
MODE_STABLE = 1  # handled by the caller (needs input order), not by ap_from_groups
MODE_THRESHOLD = 2
MODE_OPTIMISTIC = 3
MODE_PESSIMISTIC = 4
MODE_CODES = {
    "average": MODE_AVERAGE,
    "stable": MODE_STABLE,
    "threshold": MODE_THRESHOLD,
    "optimistic": MODE_OPTIMISTIC,
    "pessimistic": MODE_PESSIMISTIC,
}


# ---------------------------------------------------------------------------
# average precision from tie groups
# ---------------------------------------------------------------------------


@njit(cache=True)
def ap_from_groups(greater, n_tied, pos_greater, pos_tied, n_pos, mode):
    """Average precision from tie groups that contain positives.

    For each group g: ``greater[g]`` items and ``pos_greater[g]`` positives score
    strictly higher; ``n_tied[g]`` items, ``pos_tied[g]`` of them positive, share
    the group's score. ``n_pos`` is the total number of positives.

    AP = (1/P) sum_i y_i S_i / i over positions i (S_i = positives up to i).

    - threshold: each group is one operating point,
      AP = (1/P) sum_g p_g (B_g + p_g) / (A_g + n_g).
    - optimistic / pessimistic: positives first / last within the group.
    - average: expectation over uniformly random orders within the group
      (McSherry & Najork 2008). At position A+t of a group, E[y] = p/n and
      E[y S] = (p/n)(B+1) + (t-1) p(p-1)/(n(n-1)), so the group adds
      (p/n)(B+1) h(A, n) + p(p-1)/(n(n-1)) g(A, n).
    """
    total = 0.0
    for k in range(greater.shape[0]):
        A = float(greater[k])
        n = float(n_tied[k])
        B = float(pos_greater[k])
        p = float(pos_tied[k])
        if p <= 0.0:
            continue
        if mode == MODE_THRESHOLD:
            total += p * (B + p) / (A + n)
        elif mode == MODE_OPTIMISTIC:
            j = p
            while j >= 1.0:
                total += (B + j) / (A + j)
                j -= 1.0
        elif mode == MODE_PESSIMISTIC:
            off = A + n - p
            j = p
            while j >= 1.0:
                total += (B + j) / (off + j)
                j -= 1.0
        else:
            h, gg = harmonic_sums(A, n)
            c1 = p / n * (B + 1.0)
            if n > 1.0:
                total += c1 * h + p / n * ((p - 1.0) / (n - 1.0)) * gg
            else:
                total += c1 * h
    return total / float(n_pos)


@njit(cache=True, nogil=True, inline="always")
def lower_bound(a, v, lo, hi):
    """First index i in [lo, hi) with a[i] >= v (a ascending), or hi: binary search."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True, inline="always")
def upper_bound(a, v, lo, hi):
    """First index i in [lo, hi) with a[i] > v (a ascending), or hi: binary search."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] <= v:
            lo = mid + 1
        else:
            hi = mid
    return lo


# The two galloping searches are inlined into sorted_search_both, their only caller:
# as kernels of their own they cost a fresh environment three compiles (the left one
# twice, for a literal 0 and for an int64 start), about 0.2 s of the first call.
@njit(cache=True, nogil=True, inline="always")
def _gallop_left(a, v, lo):
    """First index i >= lo with a[i] >= v (a ascending), by exponential search from lo."""
    n = a.shape[0]
    if lo >= n or a[lo] >= v:
        return lo
    step = 1
    prev = lo
    cur = lo + 1
    while cur < n and a[cur] < v:
        prev = cur
        step *= 2
        cur = lo + step
    # a[prev] < v; answer in [prev+1, hi]
    return lower_bound(a, v, prev + 1, cur if cur < n else n)


@njit(cache=True, nogil=True, inline="always")
def _gallop_right(a, v, lo):
    """First index i >= lo with a[i] > v (a ascending)."""
    n = a.shape[0]
    if lo >= n or a[lo] > v:
        return lo
    step = 1
    prev = lo
    cur = lo + 1
    while cur < n and a[cur] <= v:
        prev = cur
        step *= 2
        cur = lo + step
    return upper_bound(a, v, prev + 1, cur if cur < n else n)


@njit(cache=True, nogil=True)
def sorted_search_both(a, vals, lo_out, hi_out):
    """searchsorted(a, vals, 'left') and (..., 'right') for ascending vals.

    Walks ``a`` once from left to right with galloping steps, which stays in
    cache where independent binary searches would not.
    """
    pos = 0
    for k in range(vals.shape[0]):
        pos = _gallop_left(a, vals[k], pos)
        lo_out[k] = pos
        pos = _gallop_right(a, vals[k], pos)
        hi_out[k] = pos


@njit(cache=True)
def ap_from_ranks(ranks, n_pos):
    """AP = (1/P) sum_k k / r_k for sorted 1-based ranks r_1 < ... < r_P."""
    total = 0.0
    for k in range(ranks.shape[0] - 1, -1, -1):
        total += (k + 1.0) / float(ranks[k])
    return total / float(n_pos)
