"""Walking the tilted law's layers down: one inverse-CDF search per positive, many draws at once.

A draw of the tilted law (:mod:`pranker._numba.tilt`) places its last positive
first, then each positive below the one above it: the offset ``d_k`` is the
first ``d' <= d_{k+1}`` whose prefix sum in layer k reaches ``u`` times the
prefix sum at ``d_{k+1}`` (the inverse CDF of the conditional law). The rows are
block-scaled (:func:`pranker._numba.tilt.layer_step`); the search walks to the
block holding the target, then searches inside it.

Walkers (:data:`_WALKERS` draws) advance together, one positive at a time:
the searches of a level are made for all of them, the binary searches one
level at a time with a select in place of a branch, so the loads of many
walkers overlap and no branch waits on a coin flip. One block function
(:func:`_walk_block`) serves whole draws and the inner redraws of the split
estimator, so that one compiled kernel per route does both.

Every draw and redraw reads its own counter-based stream (SplitMix64,
:mod:`pranker._numba.sampling`): the numbers do not depend on the blocking or
on the number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .sampling import _GOLDEN, _draw_seed, _uniform01
from .tiegroups import lower_bound

__all__ = ["INNER_KEY", "walks_parallel", "walks_serial"]

# inner redraws' streams: (seed ^ this, draw index)
INNER_KEY = np.uint64(0x5DEECE66D2545F49)


@njit(cache=True)
def _gallop_down(row, t, hi):
    """Smallest d' <= hi with row[d'] >= t, galloping down from hi (row[hi] >= t)."""
    return _gallop_down_to(row, t, hi, 0)


@njit(cache=True, inline="always")
def _gallop_down_to(row, t, hi, floor):
    """Smallest d' in [floor, hi] with row[d'] >= t (or hi), galloping down from hi."""
    step = 1
    lo = hi - 1
    while lo >= floor and row[lo] >= t:
        hi = lo
        step <<= 1
        lo = hi - step
    return lower_bound(row, t, max(lo, floor - 1) + 1, hi)


# draws advanced together: their cache misses overlap (16 until 2026-12-05: 4-8 % slower)
_WALKERS = 32


@njit(cache=True, inline="always")
def _search_walkers(row, c0, c1, L, us, d, blk, t, fl, idx, base, width):
    """``d[w]`` <- the smallest ``d' <= d[w]`` with ``G(d') >= us[w] G(d[w])`` in a block-scaled
    row (see :func:`pranker._numba.tilt.layer_step`), for every walker w.

    The target starts in the units of the block of ``d[w]``. While the end of the previous
    block (``c0[b]`` in block b's units) reaches it, the target moves one block down (times
    the exact power of two ``G_end(b - 1) / c0[b]``); inside the block it becomes a target
    for the block's running sums. After this block walk, the answer is the first ``d'`` in ``[fl, h)`` with ``row[d'] >= t``
    (``h`` if none), ``h`` the top of the walker's range and ``row`` non-decreasing in the
    block (running sums of non-negative terms). One probe at ``h - 1`` is made for all the
    walkers (deep in the tail most searches end there: the positive stays at its offset);
    the walkers it sends lower are searched together, one level of a binary search at a
    time for all of them, with a select in place of a branch (the same index as the gallop
    and bisection of :func:`_gallop_down_to`, by the monotony of the row).
    ``blk[w]`` is the block of ``d[w]`` (``d[w] // L``) on entry and on exit; ``t``, ``fl``,
    ``idx``, ``base`` and ``width`` are work arrays of the walkers' length.
    """
    nb = d.shape[0]
    # the block walk written out here: as an inlined helper returning a tuple it made the deep
    # draws twice as slow (numba's code for it, measured 2026-12-05)
    for w in range(nb):
        h = d[w]
        b = blk[w]  # h // L: the block of the walker's last search (no integer division)
        tw = us[w] * (c0[b] + c1[b] * row[h])
        while b > 0:
            cb = c0[b]
            if tw > cb:
                break
            first = b * L
            tw = tw * ((c0[b - 1] + c1[b - 1] * row[first - 1]) / cb)
            h = first - 1
            b -= 1
        t[w] = (tw - c0[b]) / c1[b]
        fl[w] = b * L
        blk[w] = b  # the search ends in this block
        d[w] = h
    # the walkers whose answer lies below h: row[h - 1] reaches the target (kept without a
    # branch: the outcome is a coin flip where the tilted law changes regime)
    m = 0
    for w in range(nb):
        lo = d[w] - 1
        idx[m] = w
        m += (lo >= fl[w]) & (row[max(lo, 0)] >= t[w])
    # their answer is the first d' in [fl, h - 1) with row[d'] >= t, else h - 1: a binary
    # search over the walkers in lockstep (the range of each at most one block)
    top = 0
    for i in range(m):
        w = idx[i]
        base[i] = fl[w]
        width[i] = d[w] - 1 - fl[w]
        top = max(top, width[i])
    while top > 1:
        for i in range(m):
            w = idx[i]
            half = width[i] >> 1
            b = base[i]
            base[i] = b + half if row[b + half] < t[w] else b
            width[i] -= half
        top -= top >> 1
    for i in range(m):
        w = idx[i]
        b = base[i]
        d[w] = min(b + 1 if row[b] < t[w] else b, d[w] - 1)


@njit(cache=True)
def _walk_down(T, C0, C1, L, states, d, s, k_hi, k_lo, u_first):
    """Walkers advanced in lockstep through positives ``k_hi`` down to ``k_lo``: each draws its
    positive's offset below ``d[w]`` from its stream ``states[w]`` and adds its term to
    ``s[w]`` (all three updated in place). ``u_first``, if not empty, holds the walkers'
    uniforms for positive ``k_hi`` (drawn by the caller) in place of their streams'."""
    nb = d.shape[0]
    us = np.empty(nb)
    t = np.empty(nb)
    fl = np.empty(nb, np.int64)
    blk = np.empty(nb, np.int64)
    idx = np.empty(nb, np.int64)
    base = np.empty(nb, np.int64)
    width = np.empty(nb, np.int64)
    for w in range(nb):
        blk[w] = d[w] // L
    for k in range(k_hi, k_lo - 1, -1):
        if k == k_hi and u_first.shape[0] > 0:
            for w in range(nb):
                us[w] = u_first[w]
        else:
            for w in range(nb):
                st, u = _uniform01(states[w])
                states[w] = st
                us[w] = u
        _search_walkers(T[k - 1], C0[k - 1], C1[k - 1], L, us, d, blk, t, fl, idx, base, width)
        for w in range(nb):
            s[w] += k / (k + d[w])


@njit(cache=True, inline="always")
def _mixture_pick(cw, u):
    """``(i, u')``: the component i of the mixture whose cumulative weights are ``cw`` that the
    uniform ``u`` falls in (the first with ``u < cw[i]``; the last if none), and ``u`` made uniform
    again within it. With one component ``u`` is returned unchanged (the same bits)."""
    n = cw.shape[0]
    if n == 1:
        return 0, u
    lo = 0
    hi = n - 1
    while lo < hi:  # the first i with u < cw[i] (cw[n - 1] is 1)
        mid = (lo + hi) >> 1
        if u < cw[mid]:
            hi = mid
        else:
            lo = mid + 1
    below = cw[lo - 1] if lo > 0 else 0.0
    # u < cw[lo] and the division is correctly rounded, so the result stays in [0, 1]
    return lo, min((u - below) / (cw[lo] - below), 1.0)


@njit(cache=True, inline="always")
def _walk_block(
    T, C0, C1, L, P, cw, ms, seed, start, k_hi, k_lo, M, R, D, S_out, D_out, top_out, b
):
    """Walkers ``32 b .. 32 b + 31`` of :func:`walks_serial` (see there), walked in lockstep."""
    m = max(M, 1)
    lo = b * _WALKERS
    nb = min(S_out.shape[0] * m, lo + _WALKERS) - lo
    states = np.empty(nb, np.uint64)
    d = np.empty(nb, np.int64)
    s = np.zeros(nb)
    if M == 0:  # whole draws: the last positive from the mixture, in its component's row
        u_first = np.empty(nb)
        for c in range(nb):
            st, u = _uniform01(_draw_seed(seed, start + lo + c))
            states[c] = st
            i, u_first[c] = _mixture_pick(cw, u)
            d[c] = ms[i]
        _walk_down(T, C0, C1, L, states, d, s, P, P, u_first)
        for c in range(nb):
            top_out[lo + c] = d[c]
    else:  # redraw i of draw w: its stream moved past the i earlier redraws' uniforms
        for c in range(nb):
            w = (lo + c) // M
            i = lo + c - w * M
            step = np.uint64(i * (k_hi - k_lo + 1)) * _GOLDEN
            states[c] = _draw_seed(seed, start + w) + step
            d[c] = D[w]
            s[c] = R[w]
    _walk_down(T, C0, C1, L, states, d, s, k_hi, k_lo, np.empty(0))  # no uniforms given
    for c in range(nb):
        w = (lo + c) // m
        i = lo + c - w * m
        S_out[w, i] = s[c]
        D_out[w, i] = d[c]


@njit(cache=True)
def walks_serial(T, C0, C1, L, P, cw, ms, seed, start, k_hi, k_lo, M, R, D, S_out, D_out, top_out):
    """Walks of the tilted law stored in ``T, C0, C1`` (L cells per scaling block), in the calling thread.

    ``M = 0``: whole draws ``start .. start + n - 1`` (``n = S_out.shape[0]``).
    The last positive's offset comes from a mixture of the law truncated at
    ``ms[i]`` with cumulative weights ``cw`` (one component, ``ms[0] = N -
    P``: the tilted law itself; several: the sizes of a bin share draws, see
    :meth:`pranker.null.tilt.TiltEngine._contributions`), the others from the
    tilted law given it, down to positive ``k_lo`` (``k_hi = P - 1``).
    ``S_out[w, 0]`` gets the draw's part of S from positives P .. k_lo,
    ``D_out[w, 0]`` the offset of positive k_lo and ``top_out[w]`` that of
    positive P. ``R`` and ``D`` are not read.

    ``M >= 1``: the M redraws of positives ``k_hi .. k_lo`` below each draw w
    (part ``R[w]`` of S above them, offset ``D[w]`` of the positive above):
    ``S_out[w, i]`` and ``D_out[w, i]`` for redraw i. Redraw i of draw w
    reads the stream of ``(seed, start + w)`` after the ``i (k_hi - k_lo + 1)``
    uniforms of the redraws before it: the numbers of redrawing them one after
    the other. ``top_out``, ``cw`` and ``ms`` are not read.
    """
    n = (S_out.shape[0] * max(M, 1) + _WALKERS - 1) // _WALKERS
    for b in range(n):
        _walk_block(
            T, C0, C1, L, P, cw, ms, seed, start, k_hi, k_lo, M, R, D, S_out, D_out, top_out, b
        )


@njit(cache=True, parallel=True)
def walks_parallel(
    T, C0, C1, L, P, cw, ms, seed, start, k_hi, k_lo, M, R, D, S_out, D_out, top_out
):
    """:func:`walks_serial` over the threads, a block of walkers at a time (the same numbers)."""
    n = (S_out.shape[0] * max(M, 1) + _WALKERS - 1) // _WALKERS
    for b in prange(n):
        _walk_block(
            T, C0, C1, L, P, cw, ms, seed, start, k_hi, k_lo, M, R, D, S_out, D_out, top_out, b
        )
