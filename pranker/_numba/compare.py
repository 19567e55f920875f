r"""Kernels of the paired comparison of two rankings' AP (:mod:`pranker.compare`).

Every kernel works on *levels*: integer positions of the items in one model's
ranking, 0 the best, with tied items sharing a level (for the tie modes
decided by groups) or every item at its own level (strict orders: ``stable``,
and the orders that ``optimistic``/``pessimistic`` induce). From the weighted
numbers of positives and negatives per level,

- :func:`group_ap` gives the AP in every group tie mode (``threshold``,
  ``optimistic``, ``pessimistic``, ``average`` — the last by the expectation
  over random orders within each group, McSherry & Najork 2008, summed
  directly: O(group size));
- :func:`influence` gives the empirical influence values of AP for each
  instance (see the derivation in :mod:`pranker.compare`);
- :func:`bootstrap_diffs` resamples positives and negatives separately
  (the same draws for both models) and returns the AP differences;
- :func:`swap_diffs` swaps the two models' *scores* instance by instance
  (each with probability 1/2) and returns the AP differences, from counts:
  no sort per swap pattern (see its docstring).

Random numbers come from a counter-based splitmix64 stream keyed by (seed,
replicate), so every replicate is reproducible whatever the threads.
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange
from numba.core import types
from numba.extending import intrinsic

from .sampling import _draw_seed, _splitmix_next

MODE_AVERAGE = 0
MODE_STABLE = 1
MODE_THRESHOLD = 2
MODE_OPTIMISTIC = 3
MODE_PESSIMISTIC = 4

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def _mix(x):
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def _stream(seed, rep):
    """Initial state of replicate ``rep``'s stream."""
    return _mix(np.uint64(seed) * _GOLDEN + np.uint64(rep) * _M2 + _GOLDEN)


@njit(cache=True)
def _next(state):
    state = state + _GOLDEN
    return state, _mix(state)


@njit(cache=True)
def _below(z, n):
    """Uniform integer in [0, n) from 64 random bits (53-bit float)."""
    u = float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    k = int(u * n)
    return k if k < n else n - 1


@njit(cache=True)
def group_ap(pc, nc, n_pos, mode):
    """AP from weighted positives ``pc`` and negatives ``nc`` per level (best level first)."""
    total = 0.0
    above = 0.0  # items above the level
    pabove = 0.0  # positives above the level
    for g in range(pc.shape[0]):
        p = pc[g]
        n = p + nc[g]
        if p > 0.0:
            if mode == MODE_THRESHOLD:
                total += p * (pabove + p) / (above + n)
            elif mode == MODE_PESSIMISTIC:
                off = above + n - p
                j = 1.0
                while j <= p:
                    total += (pabove + j) / (off + j)
                    j += 1.0
            elif mode == MODE_OPTIMISTIC or mode == MODE_STABLE or p == n:
                j = 1.0
                while j <= p:
                    total += (pabove + j) / (above + j)
                    j += 1.0
            else:  # average over random orders within the group
                h = 0.0
                gg = 0.0
                t = n
                while t >= 1.0:
                    h += 1.0 / (above + t)
                    gg += (t - 1.0) / (above + t)
                    t -= 1.0
                total += p / n * (pabove + 1.0) * h
                if n > 1.0:
                    total += p / n * ((p - 1.0) / (n - 1.0)) * gg
        above += n
        pabove += p
    return total / n_pos


@njit(cache=True)
def influence(level, y, n_levels, average):
    """Empirical influence values of AP per instance, and the functional's value.

    ``level[i]`` is item i's level (0 best). With ``average`` the counts of
    an item's own group count half (mid-counts); otherwise a group counts in
    full (the threshold functional; strict orders have one item per level).
    Returns ``(IF, ap_functional)``; IF of positives are scaled for the
    positives' mean, IF of negatives for the negatives' mean.
    """
    N = level.shape[0]
    pc = np.zeros(n_levels)
    nc = np.zeros(n_levels)
    for i in range(N):
        if y[i]:
            pc[level[i]] += 1.0
        else:
            nc[level[i]] += 1.0
    P = 0.0
    for g in range(n_levels):
        P += pc[g]
    M = N - P
    prec = np.zeros(n_levels)
    c = np.zeros(n_levels)
    d = np.zeros(n_levels)
    above = 0.0
    pabove = 0.0
    apf = 0.0
    C = 0.0
    for g in range(n_levels):
        p = pc[g]
        n = nc[g]
        if p > 0.0:
            if average:
                A = pabove + (p + 1.0) / 2.0
                B = above - pabove + n / 2.0
            else:
                A = pabove + p
                B = above - pabove + n
            r = A + B
            prec[g] = A / r
            c[g] = B / (r * r)
            d[g] = A / (r * r)
            apf += p * prec[g]
            C += p * A * c[g]
        above += p + n
        pabove += p
    apf /= P
    C /= P
    # suffix sums over the levels below (and including) g
    tpos = np.zeros(n_levels)
    tneg = np.zeros(n_levels)
    sp = 0.0
    sn = 0.0
    for g in range(n_levels - 1, -1, -1):
        if average:
            tpos[g] = sp + c[g] * (pc[g] + 1.0) / 2.0
            tneg[g] = sn + d[g] * pc[g] / 2.0
        else:
            tpos[g] = sp + pc[g] * c[g]
            tneg[g] = sn + pc[g] * d[g]
        sp += pc[g] * c[g]
        sn += pc[g] * d[g]
    out = np.empty(N)
    for i in range(N):
        g = level[i]
        if y[i]:
            out[i] = prec[g] - apf + tpos[g] - C
        else:
            out[i] = -(M / P) * tneg[g] + C
    return out, apf


@njit(cache=True, parallel=True)
def bootstrap_diffs(level_a, level_b, ga, gb, pos_idx, neg_idx, mode, seed, n_rep):
    """AP_a - AP_b on ``n_rep`` class-stratified resamples (the same resample for both)."""
    P = pos_idx.shape[0]
    M = neg_idx.shape[0]
    out = np.empty(n_rep)
    for b in prange(n_rep):
        pa = np.zeros(ga)
        na = np.zeros(ga)
        pb = np.zeros(gb)
        nb = np.zeros(gb)
        st = _stream(seed, b)
        for _ in range(P):
            st, z = _next(st)
            i = pos_idx[_below(z, P)]
            pa[level_a[i]] += 1.0
            pb[level_b[i]] += 1.0
        for _ in range(M):
            st, z = _next(st)
            i = neg_idx[_below(z, M)]
            na[level_a[i]] += 1.0
            nb[level_b[i]] += 1.0
        out[b] = group_ap(pa, na, float(P), mode) - group_ap(pb, nb, float(P), mode)
    return out


@intrinsic
def _popcount_u64(typingctx, x):
    """Number of set bits of a uint64 (LLVM's ctpop: one instruction where the CPU has one)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [args[0].type])
        return builder.call(fn, args)

    return sig, codegen


@njit(cache=True, inline="always")
def _popcount(x):
    return int(_popcount_u64(x))


@njit(cache=True, inline="always")
def _scatter_single(u, v, out, state):
    """Cells of one instance: a fair coin sends it to slot u or v; 64 coins per random word."""
    m = u.shape[0]
    c = 0
    while c < m:
        state, z = _splitmix_next(state)
        top = min(m, c + 64)
        while c < top:
            bit = int(z & np.uint64(1))
            z = z >> np.uint64(1)
            out[v[c] + bit * (u[c] - v[c])] += 1.0  # u on a set bit, v otherwise
            c += 1
    return state


@njit(cache=True, inline="always")
def _scatter_cells(u, v, cnt, out, state):
    """Cells of several instances: X ~ Binomial(cnt, 1/2) to slot u, cnt - X to slot v.

    X is the number of set bits among ``cnt`` fresh random bits (exact: a sum
    of independent fair coins).
    """
    word = np.uint64(0)
    left = 0
    for c in range(u.shape[0]):
        n = cnt[c]
        x = 0
        while n >= 64:
            state, z = _splitmix_next(state)
            x += _popcount(z)
            n -= 64
        if n > 0:
            if left < n:
                state, word = _splitmix_next(state)
                left = 64
            mask = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
            x += _popcount(word & mask)
            word = word >> np.uint64(n)
            left -= n
        out[u[c]] += x
        out[v[c]] += cnt[c] - x
    return state


@njit(cache=True, inline="always")
def _swap_one(cp, cn, base_p, base_n, tot_p, tot_n, n_pos, mode, seed, t, ap_, an_, bp_, bn_):
    """AP_a - AP_b of swap pattern ``t`` (its own stream) from slot counts.

    ``cp``/``cn``: the positives' and the negatives' cells, each
    ``(u1, v1, u, v, cnt)``: slots of the one-instance cells, then of the others
    with their sizes.
    """
    S = base_p.shape[0]
    for s in range(S):
        ap_[s] = base_p[s]
        an_[s] = base_n[s]
    state = _draw_seed(seed, t)
    state = _scatter_single(cp[0], cp[1], ap_, state)
    state = _scatter_cells(cp[2], cp[3], cp[4], ap_, state)
    state = _scatter_single(cn[0], cn[1], an_, state)
    state = _scatter_cells(cn[2], cn[3], cn[4], an_, state)
    for s in range(S):
        bp_[s] = tot_p[s] - ap_[s]
        bn_[s] = tot_n[s] - an_[s]
    return group_ap(ap_, an_, n_pos, mode) - group_ap(bp_, bn_, n_pos, mode)


@njit(cache=True)
def _swap_range(cp, cn, base_p, base_n, tot_p, tot_n, n_pos, mode, seed, start, lo, hi, out):
    S = base_p.shape[0]
    ap_ = np.empty(S)
    an_ = np.empty(S)
    bp_ = np.empty(S)
    bn_ = np.empty(S)
    for j in range(lo, hi):
        out[j] = _swap_one(
            cp, cn, base_p, base_n, tot_p, tot_n, n_pos, mode, seed, start + j, ap_, an_, bp_, bn_
        )


@njit(cache=True, parallel=True)
def _swap_parallel(cp, cn, base_p, base_n, tot_p, tot_n, n_pos, mode, seed, start, n_rep, out):
    n_chunks = min(n_rep, 64)
    per = (n_rep + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        lo = c * per
        hi = min(n_rep, lo + per)
        _swap_range(cp, cn, base_p, base_n, tot_p, tot_n, n_pos, mode, seed, start, lo, hi, out)


# Below this much work (patterns x cells, about 0.1 s on one core) the patterns are
# computed in the calling thread: compiling the parallel kernel costs more on first use.
_PARALLEL_MIN_WORK = 1 << 24


def swap_diffs(cells_pos, cells_neg, base_p, base_n, tot_p, tot_n, n_pos, mode, seed, start, n_rep):
    """AP_a - AP_b for swap patterns ``start .. start + n_rep - 1`` (reproducible by index).

    Every score of either model, positive or negative, falls in one of S
    *slots* defined by the distinct scores of the positives (in both models):
    above the highest, at one of them, or between two of them. Swapping the
    two models' scores of an instance moves it between its two slots (one in
    each model). The AP of a ranking depends only on how many positives and
    negatives each slot holds (a slot that holds no positive only adds to the
    count above the next), so the instances are grouped into *cells* (the
    unordered pair of their two slots, one cell list per class); instances
    whose two scores share a slot never move (``base_*``). A swap pattern
    sends a Binomial(n, 1/2) share of a cell's n instances one way and the
    rest the other, drawn exactly as the set bits of n random bits, and
    model B's counts are the totals ``tot_*`` minus model A's. The AP of each
    model then comes from the S slot counts in the tie mode (:func:`group_ap`).
    Cost per pattern: O(cells + S + N/64), no sort.

    Pattern t depends only on (seed, t): the numbers do not depend on the
    number of threads, nor on whether the serial or the parallel kernel runs.
    """
    out = np.empty(int(n_rep))
    args = (cells_pos, cells_neg, base_p, base_n, tot_p, tot_n, float(n_pos), int(mode))
    args += (np.uint64(seed), int(start))
    work = int(n_rep) * (
        sum(c[0].shape[0] + c[2].shape[0] for c in (cells_pos, cells_neg)) + base_p.shape[0]
    )
    if work < _PARALLEL_MIN_WORK or get_num_threads() == 1:
        _swap_range(*args, 0, int(n_rep), out)
    else:
        _swap_parallel(*args, int(n_rep), out)
    return out
