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

from .sampling import _GOLDEN as _SM_GOLDEN
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


_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True)
def _class_runs(u1, v1, u, v, cnt, w0):
    """The bits of the pattern stream that each cell of one class reads, as *runs*.

    A run is ``(pos, ln, u, v)``: ``ln`` bits from bit ``pos`` of the stream (bit
    ``pos & 63`` of word ``pos >> 6``, least significant first), all in one word,
    each set bit sending one instance of cell (u, v) to slot u. The layout is that of
    the pattern's definition: from word ``w0``, one bit per one-instance cell (64
    per word, in cell order), then for each other cell of n instances, n // 64 fresh
    words followed by its last n % 64 bits from the current word, or from a fresh
    word when fewer bits are left in it (the rest of the old word is not used).
    Returns the runs and the index of the next unused word.
    """
    m1 = u1.shape[0]
    n_runs = m1
    for c in range(u.shape[0]):
        n_runs += cnt[c] // 64 + (1 if cnt[c] % 64 else 0)
    pos = np.empty(n_runs, np.int64)
    ln = np.empty(n_runs, np.int64)
    ru = np.empty(n_runs, np.int64)
    rv = np.empty(n_runs, np.int64)
    for c in range(m1):
        pos[c] = w0 * 64 + c
        ln[c] = 1
        ru[c] = u1[c]
        rv[c] = v1[c]
    w = w0 + (m1 + 63) // 64
    k = m1
    left = 0
    cur = 0
    for c in range(u.shape[0]):
        n = cnt[c]
        while n >= 64:
            pos[k] = w * 64
            ln[k] = 64
            ru[k] = u[c]
            rv[k] = v[c]
            k += 1
            w += 1
            n -= 64
        if n > 0:
            if left < n:
                cur = w
                w += 1
                left = 64
            pos[k] = cur * 64 + 64 - left
            ln[k] = n
            ru[k] = u[c]
            rv[k] = v[c]
            left -= n
            k += 1
    return pos, ln, ru, rv, w


def _side(pos, ln, slot):
    """Runs grouped by slot (stream order within a slot), adjacent runs of one word merged.

    Returns ``(slots, starts, pos, ln)``: the runs of group g are
    ``starts[g] .. starts[g + 1] - 1`` and its set bits count for ``slots[g]``.
    """
    order = np.argsort(slot, kind="stable")
    p, n, s = pos[order], ln[order], slot[order]
    cont = np.zeros(p.shape[0], bool)
    cont[1:] = (s[1:] == s[:-1]) & (p[1:] >> 6 == p[:-1] >> 6) & (p[:-1] + n[:-1] == p[1:])
    heads = np.flatnonzero(~cont)
    p, s = p[heads], s[heads]
    n = np.add.reduceat(n, heads) if heads.size else n[:0]
    new = np.ones(s.shape[0], bool)
    new[1:] = s[1:] != s[:-1]
    first = np.flatnonzero(new)
    starts = np.append(first, s.shape[0]).astype(np.int64)
    ptype = np.int32 if p.size == 0 or p.max() < 2**31 else np.int64
    return s[first].astype(np.int64), starts, p.astype(ptype), n.astype(np.uint8)


def swap_layout(cells_pos, cells_neg, base_p, base_n, tot_p, tot_n):
    """What every swap pattern reads: once per call of :func:`pranker.compare`.

    ``cells_*`` are ``(u1, v1, u, v, cnt)`` per class: the slots of the
    one-instance cells, then those of the other cells with their sizes (all with
    u < v); ``base_*`` the instances that never move, ``tot_*`` each slot's
    instances in both models. The counts start from "no bit set" (every moving
    instance at its slot v); each set bit of a cell's bits of the pattern stream
    (:func:`_class_runs`) then moves one instance from v to u. The u side is
    read by slot (:func:`_side`: a cell list is sorted by u, so a slot's bits are
    a few runs of whole words); the v side in stream order, bit by bit for the
    one-instance cells and run by run for the others. Returns ``(n_words, base_p,
    base_n, tot_p, tot_n, class_pos, class_neg)``, each class ``(u_side,
    first_word, v_singles, pos, ln, v)``.
    """
    S = base_p.shape[0]
    vtype = np.int16 if S < 2**15 else np.int64
    w = 0
    bases = []
    classes = []
    for cells, base in ((cells_pos, base_p), (cells_neg, base_n)):
        w0 = w
        pos, ln, ru, rv, w = _class_runs(*cells, w)
        bases.append(base + np.bincount(rv, weights=ln, minlength=S))
        m1 = cells[0].shape[0]
        ptype = np.int32 if w * 64 < 2**31 else np.int64
        classes.append(
            (
                _side(pos, ln, ru),
                w0,
                rv[:m1].astype(vtype),
                pos[m1:].astype(ptype),
                ln[m1:].astype(np.uint8),
                rv[m1:].astype(vtype),
            )
        )
    return (w, bases[0], bases[1], tot_p, tot_n, classes[0], classes[1])


@njit(cache=True, inline="always")
def _add_side(words, side, out):
    """``out[slot] +=`` the set bits of the slot's runs, one slot at a time."""
    slots, starts, pos, ln = side
    for g in range(slots.shape[0]):
        acc = 0
        for k in range(starts[g], starts[g + 1]):
            p = pos[k]
            z = (words[p >> 6] >> np.uint64(p & 63)) & (_ALL >> np.uint64(64 - ln[k]))
            acc += _popcount(z)
        out[slots[g]] += acc


@njit(cache=True, inline="always")
def _lowest_bit(z):
    """Index of the lowest set bit of ``z`` (nonzero)."""
    return _popcount((z & (~z + np.uint64(1))) - np.uint64(1))


@njit(cache=True, inline="always")
def _take_v_side(words, w0, sv, pos, ln, v, out):
    """``out[v] -=`` each cell's set bits, in stream order (one store per set bit or run)."""
    m1 = sv.shape[0]
    nw = (m1 + 63) // 64
    for i in range(nw):
        z = words[w0 + i]
        if i == nw - 1 and m1 % 64:
            z &= _ALL >> np.uint64(64 - m1 % 64)  # the last word's bits past the cells
        c0 = i * 64
        while z:
            out[sv[c0 + _lowest_bit(z)]] -= 1
            z &= z - np.uint64(1)
    for k in range(pos.shape[0]):
        p = pos[k]
        z = (words[p >> 6] >> np.uint64(p & 63)) & (_ALL >> np.uint64(64 - ln[k]))
        out[v[k]] -= _popcount(z)


@njit(cache=True, inline="always")
def _class_counts(words, base, cls, cnt, out):
    """One class's counts per slot of model A for the pattern whose stream is ``words``."""
    for s in range(base.shape[0]):
        cnt[s] = int(base[s])
    _add_side(words, cls[0], cnt)
    _take_v_side(words, cls[1], cls[2], cls[3], cls[4], cls[5], cnt)
    for s in range(base.shape[0]):
        out[s] = float(cnt[s])


@njit(cache=True, inline="always")
def _swap_one(lay, n_pos, mode, seed, t, words, cnt, ap_, an_, bp_, bn_):
    """AP_a - AP_b of swap pattern ``t`` (its own stream) from slot counts."""
    n_words, base_p, base_n, tot_p, tot_n, cls_p, cls_n = lay
    state = _draw_seed(seed, t)
    for k in range(n_words):  # word k of the stream: counter-based, no carried state
        _, words[k] = _splitmix_next(state + np.uint64(k) * _SM_GOLDEN)
    _class_counts(words, base_p, cls_p, cnt, ap_)
    _class_counts(words, base_n, cls_n, cnt, an_)
    for s in range(base_p.shape[0]):
        bp_[s] = tot_p[s] - ap_[s]
        bn_[s] = tot_n[s] - an_[s]
    return group_ap(ap_, an_, n_pos, mode) - group_ap(bp_, bn_, n_pos, mode)


@njit(cache=True)
def _swap_range(lay, n_pos, mode, seed, start, lo, hi, out):
    S = lay[1].shape[0]
    words = np.empty(max(lay[0], 1), np.uint64)
    cnt = np.empty(S, np.int64)
    ap_ = np.empty(S)
    an_ = np.empty(S)
    bp_ = np.empty(S)
    bn_ = np.empty(S)
    for j in range(lo, hi):
        out[j] = _swap_one(lay, n_pos, mode, seed, start + j, words, cnt, ap_, an_, bp_, bn_)


@njit(cache=True, parallel=True)
def _swap_parallel(
    n_words,
    bp,
    bn,
    tp,
    tn,
    p0,
    p1,
    p2,
    p3,
    p4,
    p5,
    p6,
    p7,
    p8,
    n0,
    n1,
    n2,
    n3,
    n4,
    n5,
    n6,
    n7,
    n8,
    n_pos,
    mode,
    seed,
    start,
    n_rep,
    out,
):
    """:func:`_swap_range` over chunks of patterns in parallel; the layout comes flat
    (a parallel loop takes arrays, not tuples of arrays of several types)."""
    n_chunks = min(n_rep, 64)
    per = (n_rep + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        lo = c * per
        hi = min(n_rep, lo + per)
        cls_p = ((p0, p1, p2, p3), p4, p5, p6, p7, p8)
        cls_n = ((n0, n1, n2, n3), n4, n5, n6, n7, n8)
        lay = (n_words, bp, bn, tp, tn, cls_p, cls_n)
        _swap_range(lay, n_pos, mode, seed, start, lo, hi, out)


def _flat(layout):
    n_words, bp, bn, tp, tn, cls_p, cls_n = layout
    return (n_words, bp, bn, tp, tn, *cls_p[0], *cls_p[1:], *cls_n[0], *cls_n[1:])


# Below this much work (patterns x runs, about 0.1 s on one core) the patterns are
# computed in the calling thread: compiling the parallel kernel costs more on first use.
_PARALLEL_MIN_WORK = 1 << 26


def swap_diffs(layout, n_pos, mode, seed, start, n_rep):
    """AP_a - AP_b for swap patterns ``start .. start + n_rep - 1`` (reproducible by index).

    Every score of either model, positive or negative, falls in one of S
    *slots* defined by the distinct scores of the positives (in both models):
    above the highest, at one of them, or between two of them. Swapping the
    two models' scores of an instance moves it between its two slots (one in
    each model). The AP of a ranking depends only on how many positives and
    negatives each slot holds (a slot that holds no positive only adds to the
    count above the next), so the instances are grouped into *cells* (the
    unordered pair of their two slots, one cell list per class); instances
    whose two scores share a slot never move. A swap pattern sends a
    Binomial(n, 1/2) share of a cell's n instances one way and the rest the
    other, drawn exactly as the set bits of n random bits of the pattern's
    stream (``layout`` from :func:`swap_layout` says which bits), and model
    B's counts are the totals minus model A's. The AP of each model then
    comes from the S slot counts in the tie mode (:func:`group_ap`).

    Per pattern: the stream's words (about N/64, counter-based), then for
    every slot the popcounts of its bits, on either side of the cells: no
    sort, no per-instance work, and no store per cell (each slot's sum is
    kept in a register). Cost O(words + cells + S).

    Pattern t depends only on (seed, t): the numbers do not depend on the
    number of threads, nor on whether the serial or the parallel kernel runs.
    """
    out = np.empty(int(n_rep))
    args = (layout, float(n_pos), int(mode), np.uint64(seed), int(start))
    runs = sum(cls[0][2].shape[0] + cls[2].shape[0] + cls[3].shape[0] for cls in layout[5:])
    work = int(n_rep) * (runs + layout[0] + layout[1].shape[0])
    if work < _PARALLEL_MIN_WORK or get_num_threads() == 1:
        _swap_range(*args, 0, int(n_rep), out)
    else:
        _swap_parallel(*_flat(layout), *args[1:], int(n_rep), out)
    return out
