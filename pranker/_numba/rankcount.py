"""Rank counts at the distinct scores of a reference class, without sorting all scores.

Average precision in every tie mode and the ROC AUC need only, for each
distinct score v of the positives (the *reference* values): how many items
score strictly above v, how many score exactly v, and the same two counts
among the positives. Once the P reference scores are sorted (a sort of P
values, not N), one pass over all N scores that drops each score into its
*bucket* among the D distinct reference values gives every count.

Buckets
-------
With reference values v_0 < v_1 < ... < v_{D-1} (distinct, ascending), an item
x has the index i(x) = #{k : v_k < x} in [0, D]. It lands in

- the *tie* bucket of v_i when i < D and x == v_i;
- else the *gap* bucket i: strictly between v_{i-1} and v_i (gap 0 below v_0,
  gap D above v_{D-1}).

The counts live interleaved in one array ``cnt`` of 2D + 1 entries: gap i at
``2 i`` and tie i at ``2 i + 1``, so that ``cnt`` read left to right follows
the score axis upwards. Hence, for v_i,

    tied_i   = cnt[2 i + 1]
    above_i  = sum(cnt[2 i + 2 :])           (items scoring > v_i)
    below_i  = sum(cnt[: 2 i + 1])           (items scoring < v_i)

Finding i(x): slot maps
-----------------------
Any map f from floats to slot numbers that is monotone (x <= x' implies
f(x) <= f(x')) and gives -0.0 and +0.0 the same slot bounds i(x) by a table:
with ``sub[j]`` = #{k : f(v_k) < j}, every value in an earlier slot is below
x and every value in a later slot above it, so

    sub[f(x)] <= i(x) <= sub[f(x) + 1],

exactly, whatever the rounding inside f. Only the values sharing x's slot
need a compare. Two maps are used.

*The linear map* (finite values that spread evenly: normal, uniform, evenly
tied scores; D <= 2048, so that its tables stay in a core's cache). f(x) =
floor((x - v_0) s) clamped to [0, S - 1], S = 16 D slots, s = S / (v_{D-1} -
v_0) (0 when that span overflows). Each step (subtraction, product by s > 0,
clamp, floor) rounds monotonically, and a NaN goes to one extra slot S (see
below), so an index never leaves the table. A slot holding at most one value stores it,
``first[j]``, and x lands in bucket 2 (sub[j] + [x > first[j]]) + [x ==
first[j]]: one load of the table and one compare, in floats (``first`` is
NaN past the last value, so no compare holds there). A slot holding more
values is flagged (bit 31 of ``sub``) and binary-searched. The map is used
when at most 1/8 of the values share a slot, which fails for skewed values
(most of them in a few slots), infinities and tight clusters.

*The two-level table on the float bits* (any other input). A plain binary
search costs log2 D dependent loads per item. Instead the
float's bits b give a monotone integer key,

    key = 2**63 + (b & (2**63 - 1))     if the sign bit is clear,
    key = 2**63 - (b & (2**63 - 1))     if it is set (branch-free below),

which is strictly increasing in the value over all non-NaN floats, +-inf
included, and equal for -0.0 and +0.0 (so equality of keys is equality of
floats). Its top 12 bits are, up to one value per range, the sign and the
exponent: one *binade* [2**e, 2**(e+1)) (or its negative) per range, inside
which the low 52 bits are linear in the value. A first-level table of 4096
entries gives, per range holding c reference keys, a second level of
m = 2**b slots, m the power of two in (2c, 4c] (one slot when c = 0), cut
uniformly along the 52 low bits. ``sub[slot]`` holds #{k : key(v_k) < slot
start}; the next entry bounds i(x) above, so

    sub[slot(x)] <= i(x) <= sub[slot(x) + 1].

A slot holding at most two values (flagged otherwise) is resolved by two
branch-free compares with the keys ``vk[lo]``, ``vk[lo + 1]`` (padded with
all-ones keys): every v_k with k >= i(x) is >= x, so i(x) = lo + [x > vk[lo]]
+ [x > vk[lo + 1]] and x ties a value iff one of the two keys equals its key.
A crowded slot is resolved by a binary search over its own values.

Why it stays fast on skewed data: splitting by exponent first makes the
table logarithmic in magnitude, so log-normal and heavy-tailed scores, and
both-signed normal scores (whose keys span every exponent between the
smallest |v| and the largest), spread over the binades they occupy, each
binade with its own resolution; +-inf sit in the top and bottom ranges. Few
distinct values (1,000 with heavy ties) give a few small binades resolved by
the compares. The worst case is a cluster of many reference values inside
one slot (values closer than about 2**-50 of their magnitude, or many values
in a narrow part of one binade): the search there is a binary search over
the cluster, so the cost per item is bounded by log2 D probes, never
quadratic. Table size: at most 4 D + 4097 uint32 entries, plus D + 2 keys.

Memory: while the tables and counts fit in cache (D <= 8192) one fused loop
does the lookup (either map). Beyond, each block of 256 scores goes through the lookup in
stages (keys and slots; slot entries; value keys; compares; increments), each
a loop of independent loads, so that the cache misses of different scores overlap
instead of forming one chain per score.

Stable ties
-----------
``ties="stable"`` breaks ties by input order: the positive at input index q
with score v_i has rank above_i + t_q + 1, where t_q is the number of items
with score v_i before it in input order. The counting pass, when handed the
positives' input indices, records ``snap[q]`` = the count of its tie bucket
in its own chunk just before it; adding the tie counts of the earlier chunks
gives t_q exactly. Among positives, its index in rank order is
pos_above_i + j_q, with j_q its order among the positives of its group in
input order.

NaN among the scores
--------------------
The caller need not search the N scores for NaN first: the counting pass
counts them, in an extra entry 2 D + 2 of ``cnt`` (after a spare entry that
stays 0), at little cost to the other scores. Every compare with a NaN is
false, so the clamps of the linear map keep it and a last select sends it
to an extra slot past the map's slots, whose table entry points at the NaN
entry. On the two-level table a NaN's key lies below the key of -inf (sign
bit set: the first range, which holds nothing else) or above that of +inf
(the last range, with +inf); these two ranges are flagged like crowded
slots, and the flagged branch tells a NaN by two compares of its key. The
reference values themselves must not be NaN (the caller sorts them: NaN
sorts last, one compare).

Parallelism
-----------
The scores are cut into one contiguous chunk per thread; every chunk counts
into its own row of ``cnt`` and the rows are summed (counts add, so no merge
is needed). Small inputs use the serial entry point.
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from .tiegroups import lower_bound

_K0 = np.uint64(0x8000000000000000)  # key of +0.0 and -0.0
_MAG = np.uint64(0x7FFFFFFFFFFFFFFF)
_MANT = np.uint64(0x000FFFFFFFFFFFFF)
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)  # above every key of a non-NaN float
_SH52 = np.uint64(52)
_KEY_NINF = np.uint64(0x0010000000000000)  # key of -inf: 2**63 - 0x7FF0...
_KEY_PINF = np.uint64(0xFFF0000000000000)  # key of +inf: 2**63 + 0x7FF0...
_N_TOP = 4096  # first-level entries: the top 12 bits of the key
_EXTRA_BITS = 1  # slots per first-level range holding c values: the power of two in (2c, 4c]
_K = 2  # slots with at most _K values are resolved by _K compares, no branch
_CROWDED = np.uint32(1 << 31)  # flag in ``sub``: the slot holds more than _K values
_LOW31 = np.uint32((1 << 31) - 1)
_MAP_TABLE = 0  # two-level table on the float keys (any input)
_MAP_VALUE = 1  # one level, slot linear in the value
_VALUE_SLOTS = 16  # slots per value of the linear map
_VALUE_CROWD = 8  # the linear map is used when at most 1/8 of the values share a slot ...
_VALUE_MAX_D = 1 << 11  # ... and its 16 D slots (12 bytes each) fit in a core's cache
_BLOCK = 256  # scores per block: each stage of the lookup runs over a block
_FUSED_MAX_D = 1 << 13  # up to this many values the tables stay in cache: no blocks
_CHUNK_MAX = 1 << 30  # scores per chunk: int32 counts cannot overflow


@njit(cache=True, inline="always")
def _key(b):
    """Monotone uint64 key of float64 bits ``b``: 2**63 +- magnitude bits, branch-free.

    Equal for +0.0 and -0.0; strictly increasing in the value otherwise, +-inf
    included.
    """
    s = np.uint64(np.int64(b) >> 63)  # all ones if the sign bit is set, else 0
    return _K0 + (((b & _MAG) ^ s) - s)  # 2**63 - magnitude for negatives


def distinct_runs(sorted_vals):
    """Distinct values of an ascending array and the length of each run.

    ``==`` decides equality, so -0.0 and +0.0 form one run (its first value is
    kept), and each NaN is a run of its own. Plain numpy, not a kernel: its
    passes cost microseconds against the sort before it, and a fresh
    environment's first AP is spared a compile (about 0.25 s).
    """
    sorted_vals = np.asarray(sorted_vals, dtype=np.float64)
    n = sorted_vals.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.float64), np.empty(0, dtype=np.int64)
    new = np.empty(n, dtype=np.bool_)
    new[0] = True
    np.not_equal(sorted_vals[1:], sorted_vals[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    runs = np.empty(starts.shape[0], dtype=np.int64)
    runs[:-1] = starts[1:] - starts[:-1]
    runs[-1] = n - starts[-1]
    return sorted_vals[starts], runs


@njit(cache=True)
def build_table(vals):
    """Keys and two-level bucket table of ascending distinct ``vals`` (D < 2**31).

    Returns ``(vk, tab, sub)``. ``vk`` holds the D keys followed by ``_K``
    all-ones sentinels. ``tab[e]`` packs, for the keys whose top 12 bits are
    e, the first slot (``tab[e] >> 8``) and the shift that cuts their 52 low
    bits into slots (``tab[e] & 63``): slot j of range e covers keys from
    ``(e << 52) | (j << shift)`` on. ``sub[p]`` is the number of values with a
    key below the start of slot p (``sub[-1] = D``), with bit 31 set when the
    slot holds more than ``_K`` values.
    """
    d = vals.shape[0]
    bits = vals.view(np.uint64)
    vk = np.empty(d + _K, dtype=np.uint64)
    for k in range(d):
        vk[k] = _key(bits[k])
    vk[d:] = _ONES
    count = np.zeros(_N_TOP, dtype=np.int64)
    for k in range(d):
        count[vk[k] >> _SH52] += 1
    tab = np.empty(_N_TOP, dtype=np.uint64)
    first = np.empty(_N_TOP + 1, dtype=np.int64)
    total = 0
    for e in range(_N_TOP):
        c = count[e]
        nb = 0
        if c > 0:
            while (1 << nb) <= c:  # 2**nb > c
                nb += 1
            nb = min(nb + _EXTRA_BITS, 52)
        first[e] = total
        tab[e] = (np.uint64(total) << np.uint64(8)) | np.uint64(52 - nb)
        total += 1 << nb
    first[_N_TOP] = total
    sub = np.empty(total + 1, dtype=np.uint32)
    k = 0
    for e in range(_N_TOP):
        sh = tab[e] & np.uint64(63)
        top = np.uint64(e) << _SH52
        for j in range(first[e + 1] - first[e]):
            start = top | (np.uint64(j) << sh)
            while k < d and vk[k] < start:
                k += 1
            sub[first[e] + j] = np.uint32(k)
    sub[total] = np.uint32(d)
    for p in range(total):
        if sub[p + 1] - sub[p] > _K:
            sub[p] |= _CROWDED
    # The first range holds only NaN keys (sign set, above the magnitude of
    # -inf); the last, +inf and the NaN keys above it. Flagged, their items take
    # :func:`_crowded`, which counts a NaN apart.
    for p in range(first[1]):
        sub[p] |= _CROWDED
    for p in range(first[_N_TOP - 1], total):
        sub[p] |= _CROWDED
    return vk, tab, sub


@njit(cache=True)
def _search(kx, lo, hi, vk):
    """First index in [lo, hi] whose key is >= kx (keys ascending): a crowded slot."""
    return lower_bound(vk, kx, lo, hi)


@njit(cache=True)
def _bucket_block(bits, b0, m, vk, tab, sub, kb, pb, rb, ab, cb, ib):
    """Bucket (index into ``cnt``) of scores b0 .. b0+m-1 into ``ib[:m]``.

    Four passes over the block, the first three made of independent loads,
    so that the cache misses of different scores overlap: key and slot; slot
    entry; the slot's (at most ``_K``) value keys; the compares. The lookup
    and the compares are described in the module docstring.
    """
    for i in range(m):
        kx = _key(bits[np.uint64(b0 + i)])  # unsigned: no wraparound code
        t = tab[kx >> _SH52]
        kb[i] = kx
        pb[i] = (t >> np.uint64(8)) + ((kx & _MANT) >> (t & np.uint64(63)))
    for i in range(m):
        rb[i] = sub[pb[i]]
    for i in range(m):
        lo = np.uint64(rb[i] & _LOW31)
        ab[i] = vk[lo]
        cb[i] = vk[lo + np.uint64(1)]
    for i in range(m):
        kx = kb[i]
        r = rb[i]
        if r & _CROWDED:
            ib[i] = _crowded(kx, r, pb[i], vk, sub)
        else:
            a = ab[i]
            c = cb[i]
            ib[i] = np.uint64(2) * (
                np.uint64(r) + np.uint64(kx > a) + np.uint64(kx > c)
            ) + np.uint64((kx == a) | (kx == c))


@njit(cache=True)
def _crowded(kx, r, p, vk, sub):
    """Bucket of key ``kx`` in crowded slot p (``r = sub[p]``): binary search.

    A NaN (a key below that of -inf or above that of +inf; only the flagged
    first and last ranges hold such keys) goes to the NaN entry 2 D + 2.
    """
    if kx < _KEY_NINF or kx > _KEY_PINF:
        return np.uint64(2 * (vk.shape[0] - _K) + 2)
    hi = sub[p + np.uint64(1)] & _LOW31
    lo = np.uint64(_search(kx, np.int64(r & _LOW31), np.int64(hi), vk))
    return np.uint64(2) * lo + np.uint64(vk[lo] == kx)


@njit(cache=True)
def _bucket_one(kx, vk, tab, sub):
    """Bucket of one key (the snapshot of a positive)."""
    t = tab[kx >> _SH52]
    p = (t >> np.uint64(8)) + ((kx & _MANT) >> (t & np.uint64(63)))
    r = sub[p]
    if r & _CROWDED:
        return _crowded(kx, r, p, vk, sub)
    lo = np.uint64(r)
    a = vk[lo]
    c = vk[lo + np.uint64(1)]
    return 2 * (lo + np.uint64(kx > a) + np.uint64(kx > c)) + np.uint64((kx == a) | (kx == c))


@njit(cache=True)
def _count_fused(bits, lo, hi, vk, tab, sub, cnt):
    """Count scores lo .. hi-1 with the lookup written out in one loop (small tables).

    The same steps as :func:`_bucket_block`; written inline because a call
    per score costs more than the lookup.
    """
    for i in range(lo, hi):
        kx = _key(bits[i])
        t = tab[kx >> _SH52]
        p = (t >> np.uint64(8)) + ((kx & _MANT) >> (t & np.uint64(63)))
        r = sub[p]
        if r & _CROWDED:
            cnt[_crowded(kx, r, p, vk, sub)] += 1
            continue
        j = np.uint64(r)
        a = vk[j]
        c = vk[j + np.uint64(1)]
        cnt[2 * (j + np.uint64(kx > a) + np.uint64(kx > c)) + np.uint64((kx == a) | (kx == c))] += 1


@njit(cache=True)
def _count_blocked(bits, lo, hi, vk, tab, sub, cnt):
    # per block: keys, slots, the two value keys of each slot, buckets; slot entries
    buf = np.empty((5, _BLOCK), dtype=np.uint64)
    kb, pb, ab, cb, ib = buf[0], buf[1], buf[2], buf[3], buf[4]
    rb = np.empty(_BLOCK, dtype=np.uint32)
    for b0 in range(lo, hi, _BLOCK):
        m = min(_BLOCK, hi - b0)
        _bucket_block(bits, b0, m, vk, tab, sub, kb, pb, rb, ab, cb, ib)
        for i in range(m):
            cnt[ib[i]] += 1


@njit(cache=True, inline="always")
def _lin_slot(x, off, scale, top):
    """Slot ``floor((x - off) scale)`` clamped to [0, top]; NaN goes to slot top + 1.

    Monotone non-decreasing in x over the non-NaN floats (each rounding step
    is), and equal for -0.0 and +0.0. Every compare with a NaN is false, so
    the two clamps keep a NaN and the third select sends it to the extra
    slot. With ``off`` finite and ``scale`` finite and positive (as
    :func:`choose_map` uses the map) the product is NaN only for a NaN x: an
    infinite x gives an infinite product, which the clamps catch. The index
    is unsigned, so numba adds no negative-index wraparound to the loads it
    feeds.
    """
    t = (x - off) * scale
    t = 0.0 if t < 0.0 else t
    t = top if t > top else t
    t = t if t == t else top + 1.0
    return np.uint64(np.int64(t))


@njit(cache=True)
def build_linear(vals, n_slots):
    """One-level table of a slot map linear in the value (finite ``vals``).

    Returns ``(sub, first, prm, crowd)``: ``sub[j]`` = #{k : slot(v_k) < j},
    with bit 31 set on slots holding more than one value; ``first[j]`` the
    smallest value at or above slot j (NaN past the last); ``prm = (off,
    scale, top, crowd)`` for :func:`_lin_slot` and the count loops;
    ``crowd`` the number of values that share a slot. After the ``n_slots``
    slots of the map comes slot ``n_slots``, where NaN lands: its entry
    ``sub = D + 1`` and ``first = NaN`` send a NaN to count entry 2 D + 2
    with no branch.

    A span that overflows, or so small that ``n_slots / span`` does, gives
    scale 0: every value shares slot 0 (``crowd = D``) and :func:`choose_map`
    takes the two-level table instead. One value (zero span) gets scale 1.
    """
    d = vals.shape[0]
    off = vals[0]
    span = vals[d - 1] - off
    scale = n_slots / span if span > 0.0 else 1.0
    if not np.isfinite(scale):  # the span overflows (then scale is 0), or is tiny
        scale = 0.0
    top = float(n_slots - 1)
    sub = np.zeros(n_slots + 2, dtype=np.uint32)
    for k in range(d):  # (with a zero scale, v - off may overflow: inf * 0 is NaN)
        j = _lin_slot(vals[k], off, scale, top) if scale > 0.0 else np.uint64(0)
        sub[j + np.uint64(1)] += 1
    for j in range(n_slots):
        sub[j + 1] += sub[j]
    first = np.empty(n_slots + 1, dtype=np.float64)
    crowd = 0
    for j in range(n_slots):
        r = sub[j]
        first[j] = vals[r] if r < d else np.nan
        if sub[j + 1] - r > 1:
            crowd += sub[j + 1] - r
            sub[j] |= _CROWDED
    # the NaN slot: bucket 2 (D + 1), the NaN entry. (sub[n_slots] is also the
    # upper bound of a search in slot n_slots - 1: D + 1 reaches the NaN pad of
    # ``vp``, which no score is above, so the search ends at most at D.)
    first[n_slots] = np.nan
    sub[n_slots] = np.uint32(d + 1)
    sub[n_slots + 1] = np.uint32(d + 1)
    return sub, first, np.array([off, scale, top, float(crowd)]), crowd


@njit(cache=True)
def _lin_bucket(x, vp, sub, first, prm):
    """Bucket of score ``x`` under the linear map (the snapshot of a positive: no NaN)."""
    j = _lin_slot(x, prm[0], prm[1], prm[2])
    r = sub[j]
    if r & _CROWDED:
        k = lower_bound(vp, x, np.int64(r & _LOW31), np.int64(sub[j + np.uint64(1)] & _LOW31))
        return 2 * k + np.int64(vp[k] == x)
    a = first[j]
    return 2 * (np.int64(r) + np.int64(x > a)) + np.int64(x == a)


@njit(cache=True)
def _count_linear(s, lo, hi, vp, sub, first, prm, cnt, crowded):
    """Count scores lo .. hi-1 through the linear map (a NaN: count entry 2 D + 2).

    The steps of :func:`_lin_bucket`, written out: a call per score costs more
    than the lookup. Slot j holds at most one value, ``first[j]``, unless
    flagged, and ``sub[j]`` values lie below it, so x lands in gap or tie
    ``sub[j] + [x > first[j]]``, a tie iff ``x == first[j]`` (NaN past the
    last value: no compare holds). A flagged slot is binary-searched.
    ``crowded`` False (no flagged slot: evenly spread or lattice-tied values,
    e.g. the same 1,000 values repeated) drops that test: the compiler then
    runs a copy of the loop with no data-dependent branch, measured 13-20%
    faster on such scores. Indices are unsigned: no wraparound code on the
    loads.
    """
    off = prm[0]
    scale = prm[1]
    top = prm[2]
    for i in range(lo, hi):
        x = s[np.uint64(i)]  # unsigned: no wraparound code
        j = _lin_slot(x, off, scale, top)
        r = sub[j]
        a = first[j]
        if crowded and (r & _CROWDED):
            k = lower_bound(vp, x, np.int64(r & _LOW31), np.int64(sub[j + np.uint64(1)] & _LOW31))
            cnt[2 * k + np.int64(vp[k] == x)] += 1
            continue
        cnt[np.uint64(2) * (np.uint64(r) + np.uint64(x > a)) + np.uint64(x == a)] += 1


def choose_map(vals):
    """The slot map for ``vals`` and its tables: ``(mp, vk, tab, sub, first, prm, vp)``.

    The map linear in the value when its slots rarely hold more than one value
    (normal, uniform or evenly tied scores, finite, at most ``_VALUE_MAX_D``
    of them); otherwise the two-level table, which spreads any distribution
    (log-normal, heavy tails, infinities, clusters). ``vp`` is ``vals`` padded
    with NaN, above which no score compares. A plain Python function: only the
    builder of the map chosen is compiled.
    """
    d = vals.shape[0]
    vp = np.empty(d + _K)
    vp[:d] = vals
    vp[d:] = np.nan
    if d <= _VALUE_MAX_D and np.isfinite(vals[0]) and np.isfinite(vals[d - 1]):
        sub, first, prm, crowd = build_linear(vals, _VALUE_SLOTS * d)
        if crowd * _VALUE_CROWD <= d:
            empty = np.zeros(0, dtype=np.uint64)
            return _MAP_VALUE, empty, empty, sub, first, prm, vp
    vk, tab, sub = build_table(vals)
    return _MAP_TABLE, vk, tab, sub, np.zeros(0), np.zeros(4), vp


@njit(cache=True)
def _chunk_linear(s, lo, hi, sub, first, prm, vp, cnt, pos_idx, snap, kpos):
    """Count scores lo .. hi-1 into ``cnt`` through the linear map; snapshot the positives.

    ``pos_idx`` holds ascending input indices in [lo, hi) (empty: plain
    counting): ``snap[q]`` gets the count of that score's tie bucket in this
    chunk just before it, and ``kpos[q]`` its value index. The tables are
    those of :func:`choose_map`. Returns the number of NaN in the chunk (the
    scores of ``pos_idx`` must be none).
    """
    crowded = prm[3] > 0.0
    cur = lo
    for q in range(pos_idx.shape[0] + 1):
        end = pos_idx[q] if q < pos_idx.shape[0] else hi
        _count_linear(s, cur, end, vp, sub, first, prm, cnt, crowded)
        if q < pos_idx.shape[0]:
            c = _lin_bucket(s[end], vp, sub, first, prm)
            snap[q] = cnt[c]
            kpos[q] = c >> 1
            cnt[c] += 1
            cur = end + 1
    # every NaN (the scores of ``pos_idx`` are none) was counted in the last entry
    return cnt[cnt.shape[0] - 1]


@njit(cache=True)
def _chunk_table(s, lo, hi, vk, tab, sub, cnt, pos_idx, snap, kpos, blocked):
    """:func:`_chunk_linear` through the two-level table; ``blocked`` selects the
    block-wise lookup (large tables) over the fused one."""
    bits = s.view(np.uint64)
    cur = lo
    for q in range(pos_idx.shape[0] + 1):
        end = pos_idx[q] if q < pos_idx.shape[0] else hi
        if blocked:
            _count_blocked(bits, cur, end, vk, tab, sub, cnt)
        else:
            _count_fused(bits, cur, end, vk, tab, sub, cnt)
        if q < pos_idx.shape[0]:
            c = np.int64(_bucket_one(_key(bits[end]), vk, tab, sub))
            snap[q] = cnt[c]
            kpos[q] = c >> 1
            cnt[c] += 1
            cur = end + 1
    return cnt[cnt.shape[0] - 1]


@njit(cache=True, parallel=True)
def _parallel_linear(s, bounds, pos_idx, pos_bounds, snap, kpos, cnt, n_nan, sub, first, prm, vp):
    """:func:`_chunk_linear` on every chunk, one thread per chunk."""
    for c in prange(bounds.shape[0] - 1):
        a = pos_bounds[c]
        z = pos_bounds[c + 1]
        n_nan[c] = _chunk_linear(
            s,
            bounds[c],
            bounds[c + 1],
            sub,
            first,
            prm,
            vp,
            cnt[c],
            pos_idx[a:z],
            snap[a:z],
            kpos[a:z],
        )


@njit(cache=True, parallel=True)
def _parallel_table(s, bounds, pos_idx, pos_bounds, snap, kpos, cnt, n_nan, vk, tab, sub, blocked):
    """:func:`_chunk_table` on every chunk, one thread per chunk."""
    for c in prange(bounds.shape[0] - 1):
        a = pos_bounds[c]
        z = pos_bounds[c + 1]
        n_nan[c] = _chunk_table(
            s,
            bounds[c],
            bounds[c + 1],
            vk,
            tab,
            sub,
            cnt[c],
            pos_idx[a:z],
            snap[a:z],
            kpos[a:z],
            blocked,
        )


_PARALLEL_MIN = 1 << 16  # below this many scores, one thread


def bucket_counts_nan(s, vals, pos_idx, n_threads):
    """:func:`bucket_counts` that also returns the number of NaN among ``s``.

    A NaN is counted apart in the pass itself (see the module docstring); the
    other counts are those of the other scores. Only ``pos_idx`` scores must
    be free of NaN. A plain Python function that picks the kernels to run, so
    that only those are compiled: the counting loop of the map chosen, in the
    calling thread below ``_PARALLEL_MIN`` scores (no parallel kernel is
    compiled there).

    Parameters
    ----------
    s : float64 array, shape (N,)
        Scores; NaN allowed (counted, see above).
    vals : float64 array, shape (D,)
        Distinct reference values, ascending; D < 2**31.
    pos_idx : int64 array, shape (Q,)
        Ascending input indices whose tie-bucket count is snapshot (for
        ``ties="stable"``); empty when not needed.
    n_threads : int
        Number of threads; 1 (or N below 65,536) counts in the calling thread.

    Returns
    -------
    cnt : int32 array, shape (C, 2 D + 1)
        Row c counts chunk c: gap i at 2 i, tie i at 2 i + 1.
    bounds : int64 array, shape (C + 1,)
        Chunk c covers ``s[bounds[c]:bounds[c + 1]]``.
    snap, kpos : int64 arrays, shape (Q,)
        The tie bucket's count in its chunk before each index, and its value
        index.
    n_nan : int
        The number of NaN among ``s``.
    """
    n = s.shape[0]
    mp, vk, tab, sub, first, prm, vp = choose_map(vals)
    q = pos_idx.shape[0]
    snap = np.empty(q, dtype=np.int64)
    kpos = np.empty(q, dtype=np.int64)
    parallel = n_threads > 1 and n >= _PARALLEL_MIN
    n_chunks = max(n_threads if parallel else 1, (n + _CHUNK_MAX - 1) // _CHUNK_MAX)
    per = (n + n_chunks - 1) // n_chunks
    bounds = np.minimum(np.arange(n_chunks + 1, dtype=np.int64) * per, n)
    pos_bounds = np.searchsorted(pos_idx, bounds)
    # 2 D + 1 counts, a spare entry (always 0) and the NaN entry 2 D + 2
    cnt = np.zeros((n_chunks, 2 * vals.shape[0] + 3), dtype=np.int32)
    blocked = vals.shape[0] > _FUSED_MAX_D
    n_nan = np.zeros(n_chunks, dtype=np.int64)
    if parallel and mp == _MAP_VALUE:
        _parallel_linear(
            s, bounds, pos_idx, pos_bounds, snap, kpos, cnt, n_nan, sub, first, prm, vp
        )
    elif parallel:
        _parallel_table(
            s, bounds, pos_idx, pos_bounds, snap, kpos, cnt, n_nan, vk, tab, sub, blocked
        )
    else:
        for c in range(n_chunks):
            a, z = pos_bounds[c], pos_bounds[c + 1]
            lo, hi = bounds[c], bounds[c + 1]
            if mp == _MAP_VALUE:
                n_nan[c] = _chunk_linear(
                    s, lo, hi, sub, first, prm, vp, cnt[c], pos_idx[a:z], snap[a:z], kpos[a:z]
                )
            else:
                n_nan[c] = _chunk_table(
                    s, lo, hi, vk, tab, sub, cnt[c], pos_idx[a:z], snap[a:z], kpos[a:z], blocked
                )
    return cnt[:, : 2 * vals.shape[0] + 1], bounds, snap, kpos, int(n_nan.sum())


def bucket_counts(s, vals, pos_idx, n_threads):
    """Per-chunk bucket counts of all scores ``s`` among ascending distinct ``vals``.

    :func:`bucket_counts_nan` without the NaN count, for scores known to hold
    no NaN: the same arguments and the same ``cnt, bounds, snap, kpos``.
    """
    cnt, bounds, snap, kpos, _ = bucket_counts_nan(s, vals, pos_idx, n_threads)
    return cnt, bounds, snap, kpos


@njit(cache=True)
def _total_counts(cnt):
    out = np.zeros(cnt.shape[1], dtype=np.int64)
    for c in range(cnt.shape[0]):
        for m in range(out.shape[0]):
            out[m] += cnt[c, m]
    return out


@njit(cache=True)
def groups_from_counts(cnt, runs):
    """Tie groups, best score first, from bucket counts among the positives' values.

    ``runs[i]`` is the number of positives scoring v_i (ascending i). Returns
    ``(greater, n_tied, pos_greater, pos_tied)`` as in
    :func:`pranker.measures.ap.tie_groups`: group g is value v_{D-1-g}.
    """
    tot = _total_counts(cnt)
    d = runs.shape[0]
    greater = np.empty(d, dtype=np.int64)
    n_tied = np.empty(d, dtype=np.int64)
    pos_greater = np.empty(d, dtype=np.int64)
    pos_tied = np.empty(d, dtype=np.int64)
    above = tot[2 * d]
    pos_above = 0
    for g in range(d):
        i = d - 1 - g
        greater[g] = above
        n_tied[g] = tot[2 * i + 1]
        pos_greater[g] = pos_above
        pos_tied[g] = runs[i]
        above += tot[2 * i + 1] + tot[2 * i]
        pos_above += runs[i]
    return greater, n_tied, pos_greater, pos_tied


@njit(cache=True)
def stable_ap(cnt, bounds, runs, pos_idx, snap, kpos):
    """AP with ties broken by input order, from :func:`bucket_counts` with snapshots.

    Positive q (input order) with value index i = ``kpos[q]`` has rank
    above_i + t_q + 1, t_q = ``snap[q]`` plus the tie counts of v_i in the
    chunks before its own; its index among positives in rank order is
    pos_above_i + j_q, j_q its order among the positives of v_i in input order.
    """
    d = runs.shape[0]
    n_chunks = cnt.shape[0]
    tot = _total_counts(cnt)
    above = np.empty(d, dtype=np.int64)
    pos_above = np.empty(d, dtype=np.int64)
    a = tot[2 * d]
    pa = 0
    for i in range(d - 1, -1, -1):
        above[i] = a
        pos_above[i] = pa
        a += tot[2 * i + 1] + tot[2 * i]
        pa += runs[i]
    # tie counts of the earlier chunks, per value, accumulated as chunks are passed
    earlier = np.zeros(d, dtype=np.int64)
    seen = np.zeros(d, dtype=np.int64)
    c = 0
    total = 0.0
    for q in range(pos_idx.shape[0]):
        while pos_idx[q] >= bounds[c + 1]:
            for i in range(d):
                earlier[i] += cnt[c, 2 * i + 1]
            c += 1
            if c >= n_chunks:
                break
        i = kpos[q]
        seen[i] += 1
        rank = above[i] + earlier[i] + snap[q] + 1
        total += (pos_above[i] + seen[i]) / rank
    return total / pos_idx.shape[0]


@njit(cache=True)
def mann_whitney(cnt, runs):
    """U = sum over reference items of (#others below + #others tied / 2).

    ``runs[i]`` items of the reference class score v_i; the other class is
    everything else. With the positives as reference this is the Mann-Whitney
    count U of (positive, negative) pairs, positive higher, ties 1/2; with the
    negatives as reference it is P M - U. Every term is a multiple of 1/2, so
    the sum is exact below 2**52.
    """
    tot = _total_counts(cnt)
    d = runs.shape[0]
    u = 0.0
    below = 0
    ref_below = 0
    for i in range(d):
        below += tot[2 * i]
        other_below = below - ref_below
        other_tied = tot[2 * i + 1] - runs[i]
        u += runs[i] * (other_below + 0.5 * other_tied)
        below += tot[2 * i + 1]
        ref_below += runs[i]
    return u


def default_threads() -> int:
    """Number of chunks for :func:`bucket_counts`: numba's thread count."""
    return get_num_threads()
