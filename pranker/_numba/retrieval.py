"""numba kernels for retrieval by distance threshold (Hamming radius and the like).

Only numbers and arrays cross this boundary; validation lives in
:mod:`pranker.measures.retrieval` and :mod:`pranker.compat`.

Every kernel makes ONE pass over the (query, database item) pairs and
histograms them by distance bin: ``count[q, b]`` items and ``good[q, b]``
relevant items of query ``q`` fall in bin ``b``. Bin ``b < K`` holds the items
with ``radii[b-1] < d <= radii[b]``; bin ``K`` (the last column) holds the
items farther than every radius (never retrieved). Cumulative sums of the
histogram over ``b`` give the counts inside every radius at once, so the
memory beyond the inputs is O(queries x bins) and no per-radius boolean matrix
is ever built.

Hamming distances are computed on bit-packed codes, 64 bits per word, with the
LLVM ``ctpop`` intrinsic (one ``popcnt`` instruction on x86-64 with SSE4.2).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

from .tiegroups import ap_from_groups, lower_bound


@intrinsic
def _ctpop_u64(typingctx, x):
    """Number of set bits of a uint64 (LLVM ``llvm.ctpop.i64``), returned as int64."""
    if x != types.uint64:
        return None
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@njit(cache=True, inline="always")
def _hamming_row(a, b):
    """Hamming distance between two packed rows (uint64 words)."""
    d = 0
    for w in range(a.shape[0]):
        d += _ctpop_u64(a[w] ^ b[w])
    return d


@njit(cache=True, inline="always")
def _capped_hamming(a, b, nb):
    """Hamming distance of two packed rows, values beyond ``nb`` sent to bin ``nb``."""
    d = _hamming_row(a, b)
    return nb if d > nb else d


@njit(cache=True, inline="always")
def _fold_bins(c, g, count_row, good_row):
    """Sum the four interleaved sub-histograms into one output row."""
    for b in range(count_row.shape[0]):
        count_row[b] = c[0, b] + c[1, b] + c[2, b] + c[3, b]
        good_row[b] = g[0, b] + g[1, b] + g[2, b] + g[3, b]


@njit(cache=True, parallel=True)
def hamming_matrix(qcodes, dcodes, out):
    """out[q, j] = Hamming distance between query row q and database row j."""
    nq = qcodes.shape[0]
    nd = dcodes.shape[0]
    for q in prange(nq):
        a = qcodes[q]
        for j in range(nd):
            out[q, j] = _hamming_row(a, dcodes[j])


@njit(cache=True, inline="always")
def _hist_query(a, dcodes, r, count_row, good_row):
    """Histogram of the Hamming distances of query row ``a`` to every database row;
    ``r[j]`` says whether database row j is relevant."""
    nb = count_row.shape[0] - 1
    # four interleaved sub-histograms: consecutive increments of the same
    # bin would otherwise wait on each other (store-to-load latency)
    c = np.zeros((4, nb + 1), np.int64)
    g = np.zeros((4, nb + 1), np.int64)
    for j in range(dcodes.shape[0]):
        d = _capped_hamming(a, dcodes[j], nb)
        c[j & 3, d] += 1
        g[j & 3, d] += r[j]
    _fold_bins(c, g, count_row, good_row)


@njit(cache=True, parallel=True)
def hist_hamming(qcodes, dcodes, rel, count, good):
    """Histogram of Hamming distances per query, bins 0..K-1 by value, bin K beyond.

    ``rel`` is the (Q, M) bool relevance matrix; ``count`` and ``good`` are
    zeroed (Q, K+1) int64 outputs.
    """
    for q in prange(qcodes.shape[0]):
        _hist_query(qcodes[q], dcodes, rel[q], count[q], good[q])


@njit(cache=True, parallel=True)
def hist_hamming_labels(qcodes, dcodes, qlab, dlab, count, good):
    """As :func:`hist_hamming`, relevance = equal class labels (1-D int arrays)."""
    for q in prange(qcodes.shape[0]):
        _hist_query(qcodes[q], dcodes, dlab == qlab[q], count[q], good[q])


@njit(cache=True, parallel=True)
def hist_hamming_multilabel(qcodes, dcodes, qlab, dlab, count, good):
    """As :func:`hist_hamming`, relevance = at least one shared label.

    ``qlab``/``dlab`` are multi-hot label sets packed in uint64 words; the
    pair is relevant iff some word of ``qlab[q] & dlab[j]`` is nonzero.
    """
    nd = dcodes.shape[0]
    for q in prange(qcodes.shape[0]):
        lq = qlab[q]
        shared = np.zeros(nd, np.bool_)
        for j in range(nd):
            for w in range(qlab.shape[1]):
                if (lq[w] & dlab[j, w]) != 0:
                    shared[j] = True
                    break
        _hist_query(qcodes[q], dcodes, shared, count[q], good[q])


@njit(cache=True, parallel=True)
def hist_int(dist, rel, count, good):
    """Histogram of non-negative integer distances by value; values >= K go to bin K."""
    nq = dist.shape[0]
    nd = dist.shape[1]
    nb = count.shape[1] - 1
    for q in prange(nq):
        c = np.zeros((4, nb + 1), np.int64)
        g = np.zeros((4, nb + 1), np.int64)
        for j in range(nd):
            d = dist[q, j]
            b = nb if d > nb else np.int64(d)
            c[j & 3, b] += 1
            g[j & 3, b] += rel[q, j]
        _fold_bins(c, g, count[q], good[q])


@njit(cache=True, inline="always")
def _bin_of(d, radii):
    """Smallest b with d <= radii[b] (radii increasing), or len(radii) if none."""
    return lower_bound(radii, d, 0, radii.shape[0])


@njit(cache=True, parallel=True)
def hist_sorted(dist, rel, radii, count, good):
    """Histogram of distances into the bins cut by increasing ``radii``.

    Item (q, j) goes to the first b with ``dist[q, j] <= radii[b]``, so the
    cumulative count at b is ``#{j : dist[q, j] <= radii[b]}`` exactly as a
    direct comparison would give it. ``rel`` may be bool or float (weights);
    ``good`` accumulates in its own dtype.
    """
    nq = dist.shape[0]
    nd = dist.shape[1]
    for q in prange(nq):
        for j in range(nd):
            b = _bin_of(dist[q, j], radii)
            count[q, b] += 1
            good[q, b] += rel[q, j]


@njit(cache=True)
def ap_per_query(count, good, mode, out):
    """Average precision of each query's ranking by distance bin.

    Items in one bin are tied; ``count[q, b]``/``good[q, b]`` are the bin
    sizes and relevant counts (last bin: everything beyond the largest
    radius). ``out[q]`` is NaN for a query without relevant items. The tie
    ``mode`` is one of the :mod:`pranker._numba` codes (not "stable").
    """
    nq = count.shape[0]
    nb = count.shape[1]
    greater = np.empty(nb, np.int64)
    n_tied = np.empty(nb, np.int64)
    pos_greater = np.empty(nb, np.int64)
    pos_tied = np.empty(nb, np.int64)
    for q in range(nq):
        above = 0
        pos_above = 0
        k = 0
        for b in range(nb):
            if good[q, b] > 0:
                greater[k] = above
                n_tied[k] = count[q, b]
                pos_greater[k] = pos_above
                pos_tied[k] = good[q, b]
                k += 1
            above += count[q, b]
            pos_above += good[q, b]
        if pos_above == 0:
            out[q] = np.nan
        else:
            out[q] = ap_from_groups(
                greater[:k], n_tied[:k], pos_greater[:k], pos_tied[:k], pos_above, mode
            )
