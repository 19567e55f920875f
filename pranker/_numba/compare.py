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
- :func:`permutation_diffs` swaps the two models' levels instance by
  instance and returns the AP differences.

Random numbers come from a counter-based splitmix64 stream keyed by (seed,
replicate), so every replicate is reproducible whatever the threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

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


@njit(cache=True)
def _stable_ap(key, y, n_keys, n_pos):
    """AP of the order by ``key`` ascending, ties by index (a stable counting sort)."""
    N = key.shape[0]
    cnt = np.zeros(n_keys + 1, dtype=np.int64)
    for i in range(N):
        cnt[key[i] + 1] += 1
    for k in range(n_keys):
        cnt[k + 1] += cnt[k]
    order = np.empty(N, dtype=np.int64)
    for i in range(N):
        order[cnt[key[i]]] = i
        cnt[key[i]] += 1
    total = 0.0
    k = 0.0
    for r in range(N):
        if y[order[r]]:
            k += 1.0
            total += k / (r + 1.0)
    return total / n_pos


@njit(cache=True, parallel=True)
def permutation_diffs(key_a, key_b, y, n_keys, mode, seed, start, n_rep):
    """AP_a - AP_b after swapping, instance by instance with probability 1/2, the two keys.

    Keys are levels on a common scale (0 best, ``n_keys`` of them). Replicate
    ``start + t`` uses its own stream, so runs continue reproducibly.
    """
    N = key_a.shape[0]
    n_pos = 0.0
    for i in range(N):
        if y[i]:
            n_pos += 1.0
    out = np.empty(n_rep)
    for t in prange(n_rep):
        st = _stream(seed, start + t)
        ka = np.empty(N, dtype=np.int64)
        kb = np.empty(N, dtype=np.int64)
        bits = np.uint64(0)
        for i in range(N):
            if i % 64 == 0:
                st, bits = _next(st)
            if bits & np.uint64(1):
                ka[i] = key_b[i]
                kb[i] = key_a[i]
            else:
                ka[i] = key_a[i]
                kb[i] = key_b[i]
            bits = bits >> np.uint64(1)
        if mode == MODE_STABLE:
            out[t] = _stable_ap(ka, y, n_keys, n_pos) - _stable_ap(kb, y, n_keys, n_pos)
        else:
            pa = np.zeros(n_keys)
            na = np.zeros(n_keys)
            pb = np.zeros(n_keys)
            nb = np.zeros(n_keys)
            for i in range(N):
                if y[i]:
                    pa[ka[i]] += 1.0
                    pb[kb[i]] += 1.0
                else:
                    na[ka[i]] += 1.0
                    nb[kb[i]] += 1.0
            out[t] = group_ap(pa, na, n_pos, mode) - group_ap(pb, nb, n_pos, mode)
    return out
