"""Kernels of random rankings: uniform P-subsets of 1..N from a counter-based generator.

A counter-based generator (splitmix64) keyed by (seed, draw index) makes
every draw reproducible whatever the number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)

# The generator's three small functions are inlined into the kernels that draw (a few
# integer operations each): as kernels of their own they cost a fresh environment three
# compiles on its first p-value.


@njit(cache=True, inline="always")
def _splitmix_next(state):
    state = state + _GOLDEN
    z = state
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _uniform01(state):
    """Uniform on the open interval (0, 1)."""
    state, z = _splitmix_next(state)
    return state, (np.float64(z >> np.uint64(11)) + 0.5) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def _draw_seed(seed, i):
    s = np.uint64(seed) ^ (np.uint64(i) * _MIX2)
    s, z = _splitmix_next(s)
    return z


@njit(cache=True, inline="always")
def bucket_of(x, lo, scale, nb):
    """Bucket ``min(int((x - lo) * scale), nb - 1)`` of x: monotone in x."""
    b = int((x - lo) * scale)
    return nb - 1 if b >= nb else b


@njit(cache=True, inline="always")
def bucket_starts(vals, n, lo, scale, nb, counts):
    """counts[b] = #{k < n : bucket_of(vals[k]) < b} for b = 0..nb (counts has nb + 1 slots)."""
    for b in range(nb + 1):
        counts[b] = 0
    for k in range(n):
        counts[bucket_of(vals[k], lo, scale, nb) + 1] += 1
    for b in range(nb):
        counts[b + 1] += counts[b]


@njit(cache=True, inline="always")
def insertion_sort(a, n):
    """Sort a[:n] in place (fast when it is short or nearly sorted)."""
    for k in range(1, n):
        v = a[k]
        j = k - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@njit(cache=True)
def _bucket_sort(vals, n, N, out, counts):
    """Sort n values in [1, N] into ``out``: a counting pass over 2n buckets, then insertion.

    The bucket of r is floor((r - 1) * 2n / N): monotone in r, so after the
    scatter the values are sorted up to order inside buckets, and uniform input
    puts about half a value in each bucket, so one insertion pass over the
    whole array is O(n). ``counts`` has room for 2n + 1 entries.
    """
    nb = 2 * n
    scale = nb / N
    bucket_starts(vals, n, 1.0, scale, nb, counts)
    for k in range(n):
        b = bucket_of(vals[k], 1.0, scale, nb)
        out[counts[b]] = vals[k]
        counts[b] += 1
    insertion_sort(out, n)


@njit(cache=True)
def _subset_sorted(state, N, P, out, buf, counts):
    """Sorted ranks of a uniform random P-subset of 1..N (P <= N/2), O(P) expected.

    Draws iid uniform integers and keeps the distinct ones; while fewer than P
    are distinct, draws exactly the deficit again. The first P distinct values
    of an iid uniform stream form a uniform P-subset, and drawing the deficit in
    batches and de-duplicating is that same process (no value is ever dropped
    for a reason other than being a repeat).
    """
    count = 0
    while count < P:
        d = P - count
        for k in range(d):
            state, u = _uniform01(state)
            r = float(int(u * N) + 1)
            if r > N:
                r = float(N)
            buf[k] = r
        if count == 0:
            _bucket_sort(buf, d, N, out, counts)
            new_count = 0
            prev = -1.0
            for k in range(d):
                if out[k] != prev:
                    out[new_count] = out[k]
                    prev = out[k]
                    new_count += 1
            count = new_count
        else:
            # the deficit, sorted into buf[P:P + d] (uniform values: the bucket sort is
            # O(d), and needs no compile of a general sort), then merged with out[:count]
            # into buf[:P] (its unsorted copy is no longer needed), dropping repeats
            fresh = buf[P : P + d]
            _bucket_sort(buf, d, N, fresh, counts)
            merged = buf[:P]
            i = 0
            j = 0
            c = 0
            prev = -1.0
            while i < count or j < d:
                if j >= d or (i < count and out[i] <= fresh[j]):
                    v = out[i]
                    i += 1
                else:
                    v = fresh[j]
                    j += 1
                if v != prev:
                    merged[c] = v
                    prev = v
                    c += 1
            for k in range(c):
                out[k] = merged[k]
            count = c
    return state


_DENSE_MAX_N = 1 << 24  # largest N for the O(N)-memory dense sampler
_DENSE_RATIO = 64  # dense sampler when N <= _DENSE_RATIO * P


@njit(cache=True)
def use_dense_sampler(N, P):
    return N <= _DENSE_MAX_N and (N <= _DENSE_RATIO * P or 2 * P > N)


@njit(cache=True)
def _dense_subset(state, N, P, out, perm, mark):
    """Sorted uniform P-subset of 1..N via a partial Fisher-Yates shuffle, O(N + P).

    ``perm`` holds any permutation of 0..N-1 (it is left permuted, which keeps
    later draws uniform); ``mark`` is all False on entry and on exit. The
    smaller of the subset and its complement is drawn, marked, and a scan
    emits the positives in increasing rank.
    """
    k = P if 2 * P <= N else N - P
    for j in range(k):
        state, u = _uniform01(state)
        t = j + int(u * (N - j))
        if t >= N:
            t = N - 1
        tmp = perm[j]
        perm[j] = perm[t]
        perm[t] = tmp
        mark[perm[j]] = True
    want = k == P
    c = 0
    for r in range(N):
        if mark[r] == want:
            out[c] = r + 1.0
            c += 1
    for j in range(k):
        mark[perm[j]] = False
    return state


@njit(cache=True)
def random_positive_ranks(seed, i, N, P, out, buf, counts, perm, mark):
    """Fill out[:P] with the sorted ranks of a uniform random P-subset of 1..N (draw i).

    Sparse case: iid draws kept when distinct, O(P) expected. Dense case
    (N <= 64 P, or P > N/2, with N <= 2**24): partial Fisher-Yates, O(N).
    ``perm``/``mark`` are the dense sampler's work arrays (size N, or 0 when
    unused).
    """
    state = _draw_seed(seed, i)
    if use_dense_sampler(N, P):
        _dense_subset(state, N, P, out, perm, mark)
    elif 2 * P <= N:
        _subset_sorted(state, N, P, out, buf, counts)
    else:
        # P > N/2 with N > 2**24: draw the negatives, positives fill the gaps
        M = N - P
        neg = np.empty(M, dtype=np.float64)
        _subset_sorted(
            state, N, M, neg, np.empty(2 * M, dtype=np.float64), np.empty(2 * M + 1, dtype=np.int64)
        )
        j = 0
        c = 0
        for r in range(1, N + 1):
            if j < M and neg[j] == r:
                j += 1
            else:
                out[c] = r
                c += 1


@njit(cache=True)
def sampler_work_arrays(N, P):
    """Work arrays for random_positive_ranks: ranks, buf, counts, perm, mark."""
    ranks = np.empty(P, dtype=np.float64)
    buf = np.empty(2 * P, dtype=np.float64)
    counts = np.empty(2 * P + 1, dtype=np.int64)
    if use_dense_sampler(N, P):
        perm = np.arange(N).astype(np.int32)
        mark = np.zeros(N, dtype=np.bool_)
    else:
        perm = np.empty(0, dtype=np.int32)
        mark = np.zeros(0, dtype=np.bool_)
    return ranks, buf, counts, perm, mark


@njit(cache=True, fastmath=True)
def _ap_sum(ranks):
    """sum_k k / r_k (vectorised; reassociation changes only the last bits)."""
    total = 0.0
    for k in range(ranks.shape[0]):
        total += (k + 1.0) / ranks[k]
    return total


@njit(cache=True, inline="always")
def _chunks(n_draws, N, P):
    """``(n_chunks, per)``: the draws in chunks of ``per`` (the last may be shorter).

    Each chunk has its own work arrays; the chunks are fixed, whatever the
    threads. The dense sampler leaves its permutation permuted from one draw
    to the next in a chunk, so the chunks (not the threads) fix the numbers.
    """
    n_chunks = min(n_draws, 64 if not use_dense_sampler(N, P) else 4)
    return n_chunks, (n_draws + n_chunks - 1) // n_chunks


@njit(cache=True, inline="always")
def _draw_chunk(seed, start, c, per, n_draws, N, P, out):
    """AP of the draws of chunk ``c`` (draws ``start + c per`` on, at most ``per``) into ``out``."""
    lo = c * per
    ranks, buf, counts, perm, mark = sampler_work_arrays(N, P)
    for j in range(lo, min(n_draws, lo + per)):
        random_positive_ranks(seed, start + j, N, P, ranks, buf, counts, perm, mark)
        out[j] = _ap_sum(ranks) / P


@njit(cache=True)
def _null_ap_draws_serial(seed, start, n_draws, N, P, out):
    """:func:`null_ap_draws` in the calling thread (the same chunks, one after another)."""
    n_chunks, per = _chunks(n_draws, N, P)
    for c in range(n_chunks):
        _draw_chunk(seed, start, c, per, n_draws, N, P, out)


@njit(cache=True, parallel=True)
def _null_ap_draws_parallel(seed, start, n_draws, N, P, out):
    """:func:`null_ap_draws` with its chunks spread over numba's threads."""
    n_chunks, per = _chunks(n_draws, N, P)
    for c in prange(n_chunks):
        _draw_chunk(seed, start, c, per, n_draws, N, P, out)


# Below this much work (draws x items touched per draw, about 0.2 s on one
# core) the draws run in the calling thread: threads would save at most a
# fraction of that, and compiling the parallel kernel takes over a second on first use.
_PARALLEL_MIN_WORK = 1 << 26


def null_ap_draws(seed, start, n_draws, N, P, out):
    """AP of random rankings number start .. start+n_draws-1 (reproducible by index).

    Draw j depends only on (seed, start + j), so results do not depend on the
    number of threads, nor on whether the serial or the parallel kernel runs.
    """
    per_draw = N if use_dense_sampler(N, P) else P
    if n_draws * per_draw < _PARALLEL_MIN_WORK or get_num_threads() == 1:
        _null_ap_draws_serial(seed, start, n_draws, N, P, out)
    else:
        _null_ap_draws_parallel(seed, start, n_draws, N, P, out)
