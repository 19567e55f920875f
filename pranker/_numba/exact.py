"""Kernels of the exact null of AP: full enumeration of the sums and the bounded tail count.

Algorithms and their bounds are described in :mod:`pranker.null.exact`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def _enumerate_sums(N, P, out):
    """out[i] = sum_k k / r_k for every placement, in lexicographic order; returns count."""
    r = np.empty(P, dtype=np.int64)
    pre = np.zeros(P + 1, dtype=np.float64)
    for k in range(P):
        r[k] = k + 1
    for k in range(P - 1):
        pre[k + 1] = pre[k] + (k + 1.0) / r[k]
    fP = float(P)
    idx = 0
    while True:
        base = pre[P - 1]
        for rl in range(r[P - 1], N + 1):
            out[idx] = base + fP / rl
            idx += 1
        k = P - 2
        while k >= 0 and r[k] == N - P + k + 1:
            k -= 1
        if k < 0:
            break
        r[k] += 1
        pre[k + 1] = pre[k] + (k + 1.0) / r[k]
        for j in range(k + 1, P):
            r[j] = r[j - 1] + 1
            if j < P - 1:
                pre[j + 1] = pre[j] + (j + 1.0) / r[j]
    return idx


@njit(cache=True)
def _binom(n, m):
    """C(n, m) as float64: exact while below 2**53 (every partial product is a
    binomial coefficient times an integer < n), ~1e-15 relative beyond."""
    if m < 0 or m > n:
        return 0.0
    if m > n - m:
        m = n - m
    c = 1.0
    for i in range(m):
        c = c * (n - i) / (i + 1.0)
    return c


@njit(cache=True)
def _last_level_count(base, lo, N, fP, thr):
    """#{r in [lo, N] : base + P/r >= thr}, with the same float comparison as enumeration."""
    if lo > N:
        return 0
    need = thr - base
    if need <= 0.0:
        return N - lo + 1
    x = fP / need
    if x >= N + 1.0:
        rmax = N
    else:
        rmax = int(math.floor(x))
    # settle the boundary with the exact comparison used everywhere else
    while rmax >= 1 and not (base + fP / rmax >= thr):
        rmax -= 1
    while rmax < N and base + fP / (rmax + 1) >= thr:
        rmax += 1
    if rmax < lo:
        return 0
    return rmax - lo + 1


@njit(cache=True)
def _tail_count(N, P, thr, max_nodes):
    """#{placements : sum_k k / r_k >= thr} by bounded depth-first search.

    Returns (count as float64, work); work counts visited nodes plus the terms
    of the upper bounds summed (O(P - k) each); count = -1 when the work would
    exceed ``max_nodes``.
    """
    fP = float(P)
    if P == 1:
        return float(_last_level_count(0.0, 1, N, fP, thr)), 1
    mintail = np.zeros(P + 1, dtype=np.float64)
    for k in range(P - 1, -1, -1):
        mintail[k] = mintail[k + 1] + (k + 1.0) / (N - P + k + 1.0)
    cur = np.zeros(P, dtype=np.int64)
    pre = np.zeros(P + 1, dtype=np.float64)
    count = 0.0
    nodes = 0
    k = 0
    cur[0] = 1
    while True:
        nodes += 1
        if nodes > max_nodes:
            return -1.0, nodes
        if k == P - 1:
            count += _last_level_count(pre[k], cur[k], N, fP, thr)
            k -= 1
            cur[k] += 1
            continue
        c = cur[k]
        if c > N - P + k + 1:
            if k == 0:
                break
            k -= 1
            cur[k] += 1
            continue
        s = pre[k] + (k + 1.0) / c
        if s + mintail[k + 1] >= thr:
            count += _binom(N - c, P - k - 1)
            cur[k] += 1
            continue
        maxt = 0.0
        for j in range(P - 1, k, -1):
            maxt += (j + 1.0) / (c + j - k)
        nodes += P - 1 - k  # the bound costs O(P - k): count it as work
        if s + maxt < thr:
            if k == 0:
                break
            k -= 1
            cur[k] += 1
            continue
        pre[k + 1] = s
        k += 1
        cur[k] = c + 1
    return count, nodes


# ---------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------
