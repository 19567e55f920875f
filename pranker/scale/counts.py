"""The one counting path of the scale layer, shared by :mod:`pranker.chunked` and :mod:`pranker.dask`.

Everything here works on one chunk (or one partition) of rows, or merges the
summaries of chunks; the drivers only decide where the chunks come from and
where the work runs (a loop in :mod:`pranker.chunked`, tasks in
:mod:`pranker.dask`). The method -- the count decomposition, the stable-ties
join and the range-partition fallback -- is described in :mod:`pranker.chunked`.

Memory of one call on a chunk of ``n`` rows, on top of the chunk itself, as
numpy allocates it at the peak (tracemalloc, float32 scores with int8 labels,
5 bytes a row; ``benchmarks/bench_dask.py``):

- :func:`scan_chunk`: 2.0 bytes a row (the boolean label mask and a NaN test),
  plus the chunk's positives and a sample of at most ``SAMPLE_PER_CHUNK``
  scores;
- :func:`count_chunk`: 5.2 bytes a row (one sorted copy of the scores and the
  mask: 1.04x the chunk), plus about 50 bytes per distinct positive score
  (the searches and the count vectors) and 8 per positive; ``stable=True``:
  21.6 bytes a row (each row's group and the ordering of the tied rows);
- :func:`range_histogram` / :func:`split_by_range` (fallback): 17.0 / 25.0
  bytes a row (int64 range ids, the stable order, the permuted copy).

A :class:`ChunkCounts` takes 8 bytes per distinct positive score (two int32
vectors) and 8 to 16 per positive.
"""

from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass

import numpy as np

from .._numba import tiegroups as _k_tiegroups
from .._validation import (
    _as_numeric_array,
    _no_positive_hint,
    check_labels,
    check_ties,
)
from ..measures.ap import tie_groups
from ..significance.options import PValueOptions
from ..significance.single import PrankerResult, result_of

DEFAULT_CHUNK_SIZE = 1 << 22
# Per chunk / partition the count vectors take about 24 bytes per distinct positive
# score (G <= P): 2**22 positives -> ~100 MB, on top of the chunk itself.
DEFAULT_MAX_POSITIVES = 1 << 22
DEFAULT_ROWS_PER_RANGE = 1 << 24
SAMPLE_PER_CHUNK = 1024

# Parameter descriptions shared by the public functions of pranker.chunked and
# pranker.dask (filled in by pranker._docs.fill_doc): one text for one meaning.
DOCS = {
    "scale_ap_rest": (
        "max_positives : int\n"
        "    Gather at most this many positive scores (default 2**22); beyond it the\n"
        "    range-partition fallback is used. The count vectors take about 24 bytes\n"
        "    per distinct positive score, so this also bounds the memory of a chunk's\n"
        "    (or a task's) counting.\n"
        "rows_per_range : int\n"
        "    Fallback only: target rows per score range (the memory of ranking one\n"
        "    range).\n"
        "pos_label : scalar, optional\n"
        "    The label of the positive class; every other value is a negative. Without\n"
        "    it the labels must be binary (0/1, False/True or -1/1; 1 is positive), as\n"
        "    in :func:`pranker.pranker`, with the same errors (checked chunk by chunk).\n"
        "\n"
        "Returns\n"
        "-------\n"
        "float\n"
        "    The average precision (AUPRC) of all the rows.\n"
        "\n"
        "See Also\n"
        "--------\n"
        "pranker.auprc_ap : the same for arrays in memory."
    ),
    "scale_pranker_rest": (
        "params : (mean, var), optional\n"
        "    Precomputed null mean and variance of AP, as in :func:`pranker.pranker`.\n"
        "conf_level : float\n"
        "    Coverage of ``pvalue_interval`` and ``null_interval`` (default 0.95).\n"
        "pos_label : scalar, optional\n"
        "    As in :func:`pranker.pranker`: the label of the positive class.\n"
        "max_positives, rows_per_range : int\n"
        "    How many positive scores are gathered, and the fallback beyond that, as\n"
        "    for the AP alone.\n"
        "method, rtol, n_draws, seed, alpha, max_nodes, progress : optional\n"
        "    How the p-value is computed, as in :func:`pranker.pranker`, with the same\n"
        '    defaults (the ``"auto"`` rule and a fixed seed recorded on the result):\n'
        "    the same AP, N and P give the same p-value as there.\n"
        "\n"
        "Returns\n"
        "-------\n"
        "PrankerResult\n"
        "    The result of :func:`pranker.pranker`, field for field (``auprc``,\n"
        "    ``pvalue``, ``log10_pvalue``, ``method``, ``n``, ``n_pos``, the null\n"
        "    moments and interval, ``seed``); the p-value needs only AP, N and P.\n"
        "\n"
        "See Also\n"
        "--------\n"
        "pranker.pranker : the same for arrays in memory.\n"
        "pranker.significance_from_ap : the p-value of an AP computed elsewhere."
    ),
}


# ---------------------------------------------------------------------------
# one chunk: validation, pass 1 (scan) and pass 2 (count)
# ---------------------------------------------------------------------------


def chunk_scores(scores, where: str) -> np.ndarray:
    """A chunk's scores as a flat float32 or float64 array (other types -> float64)."""
    arr = _as_numeric_array(scores, f"scores ({where})")
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    return np.ascontiguousarray(arr).ravel()


def chunk_labels(labels, n: int, where: str, pos_label=None) -> np.ndarray:
    """A chunk's labels as a flat bool array, by the rule of :func:`pranker.pranker`.

    Binary labels (0/1, False/True, -1/1; 1 is positive) unless ``pos_label``
    names the positive value; a chunk need not hold ``pos_label`` (the total
    is checked after the first pass, :func:`check_totals`).
    """
    yb = check_labels(
        labels, name=f"labels ({where})", pos_label=pos_label, pos_label_must_occur=False
    )
    if yb.shape[0] != n:
        raise ValueError(
            f"{where}: {n} scores but {yb.shape[0]} labels; the score and label "
            "columns/arrays must be split into chunks of the same lengths."
        )
    return yb


def nan_error(x: np.ndarray, where: str) -> ValueError:
    nan = np.isnan(x)
    return ValueError(
        f"scores contain {int(nan.sum())} NaN value(s) in {where}; the first is at index "
        f"{int(np.flatnonzero(nan)[0])} within it. Remove or impute them before ranking "
        "(+/-inf are allowed and ranked)."
    )


def read_chunk(scores, labels, where: str, *, check_nan: bool = True, pos_label=None):
    """A chunk's scores (float32/float64, flat) and boolean labels, validated."""
    x = chunk_scores(scores, where)
    yb = chunk_labels(labels, x.shape[0], where, pos_label)
    if check_nan and np.isnan(x).any():
        raise nan_error(x, where)
    return x, yb


@dataclass
class ScanResult:
    """Pass 1 summary of a chunk: sizes, the positives' scores, a sample of scores."""

    n: int
    n_pos: int
    positives: np.ndarray | None  # float64; None when the chunk alone exceeds the limit
    sample: np.ndarray  # float64, evenly spaced, at most SAMPLE_PER_CHUNK values
    negative_code: int | None = None  # 0 or -1: how the chunk's numeric labels mark a negative


def _negative_code(labels, yb: np.ndarray) -> int | None:
    """0 or -1 for numeric binary labels with a negative, else None.

    A chunk that passed :func:`chunk_labels` without ``pos_label`` codes its
    negatives all as 0 or all as -1; the whole data must do the same (labels
    -1, 0 and 1 together are not binary), which only the totals can tell.
    """
    if yb.all():
        return None
    raw = np.asarray(labels)
    if raw.dtype.kind not in "iuf":
        return None
    return -1 if bool(np.any(raw == -1)) else 0


def scan_chunk(
    scores,
    labels,
    *,
    max_positives: int = DEFAULT_MAX_POSITIVES,
    where: str = "chunk",
    pos_label=None,
) -> ScanResult:
    """Pass 1 on one chunk: validate, count, keep the positives' scores and a sample."""
    x, yb = read_chunk(scores, labels, where, pos_label=pos_label)
    pos = x[yb].astype(np.float64)
    n = int(x.shape[0])
    step = max(1, -(-n // SAMPLE_PER_CHUNK))
    sample = x[step // 2 :: step].astype(np.float64)
    code = None if pos_label is not None else _negative_code(labels, yb)
    return ScanResult(
        n, int(pos.shape[0]), pos if pos.shape[0] <= max_positives else None, sample, code
    )


@dataclass
class ChunkCounts:
    """Exact summary of a contiguous span of rows against the distinct positive scores.

    Attributes
    ----------
    n, n_pos : int
        Rows and positives in the span.
    between : ndarray of int32 or int64, shape (G + 1,)
        ``between[j]``: rows with ``v[j-1] < score < v[j]``.
    tied : ndarray of int32 or int64, shape (G,)
        Rows with score ``v[g]``.
    group : ndarray of int64, shape (n_pos,)
        For each positive of the span, in input order, its group ``g``.
    before : ndarray of int64 or None
        ``ties="stable"`` only: for each positive, the number of rows with
        score ``v[g]`` before it in the span.

    The dense vectors are int32 while the span has fewer than 2**31 rows
    (half the memory and transfer of int64), int64 beyond; the positives are
    kept per positive (``O(P)`` in all), not as a third dense vector.
    """

    n: int
    n_pos: int
    between: np.ndarray
    tied: np.ndarray
    group: np.ndarray
    before: np.ndarray | None = None

    @property
    def pos_tied(self) -> np.ndarray:
        """Positives with score ``v[g]`` (int64, shape (G,))."""
        return np.bincount(self.group, minlength=self.tied.shape[0]).astype(np.int64)


def _count_dtype(n: int):
    return np.int32 if n < 2**31 else np.int64


def _search_values(x: np.ndarray, vals: np.ndarray):
    """(x, vals) in a common dtype in which comparisons are exact."""
    if x.dtype == np.float32:
        v32 = vals.astype(np.float32)
        if np.array_equal(v32.astype(np.float64), vals):
            return x, v32
        return x.astype(np.float64), vals
    return x, vals


def count_chunk(
    scores, labels, vals: np.ndarray, *, stable: bool = False, where: str = "chunk", pos_label=None
) -> ChunkCounts:
    """Pass 2 on one chunk: histogram of its scores against the sorted positive scores.

    Parameters
    ----------
    scores, labels : array_like
        The chunk (any numeric dtype; float32 is kept as float32).
    vals : ndarray of float64
        Sorted distinct scores of all positives (from pass 1), ``G >= 1``.
    stable : bool
        Also record, per positive, the tied rows before it (``ties="stable"``).
    where : str
        Name of the chunk for error messages.
    pos_label : scalar, optional
        The label of the positive class, as in :func:`pranker.pranker`.

    Returns
    -------
    ChunkCounts

    Raises
    ------
    ValueError
        NaN scores, or a positive whose score is not among ``vals`` (the data
        changed between the two passes).

    Examples
    --------
    >>> c = count_chunk([0.1, 0.5, 0.5, 0.9, 0.3], [0, 1, 0, 0, 1], np.array([0.3, 0.5]))
    >>> c.between.tolist(), c.tied.tolist(), c.pos_tied.tolist()
    ([1, 0, 1], [1, 2], [1, 1])
    """
    x, yb = read_chunk(scores, labels, where, check_nan=False, pos_label=pos_label)
    n = int(x.shape[0])
    vals = np.asarray(vals, dtype=np.float64)
    G = int(vals.shape[0])
    x, v = _search_values(x, vals)
    xs = np.sort(x)
    if n and np.isnan(xs[-1]):
        raise nan_error(x, where)
    lo = np.searchsorted(xs, v, side="left").astype(np.int64, copy=False)
    hi = np.searchsorted(xs, v, side="right").astype(np.int64, copy=False)
    del xs
    dt = _count_dtype(n)
    tied = (hi - lo).astype(dt)
    between = np.empty(G + 1, dtype=dt)
    between[0] = lo[0]
    between[1:G] = lo[1:] - hi[:-1]
    between[G] = n - hi[G - 1]
    pos = x[yb]
    gp = np.searchsorted(v, pos, side="left")
    if pos.shape[0]:
        gc = np.minimum(gp, G - 1)
        if not np.array_equal(v[gc], pos):
            raise ValueError(
                f"{where}: a positive's score is not among the positives' scores gathered in "
                "the first pass; the data changed between the two passes over it."
            )
    group = gp.astype(np.int64)
    before = None
    if stable:
        g_all = np.searchsorted(v, x, side="left")
        on = v[np.minimum(g_all, G - 1)] == x
        idx = np.flatnonzero(on)
        gt = g_all[idx]
        order = np.argsort(gt, kind="stable")
        gs = gt[order]
        b_sorted = np.arange(gs.shape[0], dtype=np.int64) - np.searchsorted(gs, gs, side="left")
        b = np.empty_like(b_sorted)
        b[order] = b_sorted
        before = b[yb[idx]]  # positives are tied rows; same input order as group
    return ChunkCounts(n, int(pos.shape[0]), between, tied, group, before)


def combine_counts(a: ChunkCounts, b: ChunkCounts) -> ChunkCounts:
    """Summary of the rows of ``a`` followed by the rows of ``b`` (associative, ordered).

    Examples
    --------
    >>> vals = np.array([0.5])
    >>> a = count_chunk([0.5, 0.2], [0, 0], vals, stable=True)
    >>> b = count_chunk([0.5, 0.9], [1, 0], vals, stable=True)
    >>> ab = combine_counts(a, b)
    >>> ab.n, ab.tied.tolist(), ab.before.tolist()  # one tied row before the positive
    (4, [2], [1])
    """
    before = None
    if a.before is not None and b.before is not None:
        before = np.concatenate((a.before, b.before + a.tied[b.group]))
    n = a.n + b.n
    dt = _count_dtype(n)
    return ChunkCounts(
        n,
        a.n_pos + b.n_pos,
        np.add(a.between, b.between, dtype=dt),
        np.add(a.tied, b.tied, dtype=dt),
        np.concatenate((a.group, b.group)),
        before,
    )


def _greater_counts(c: ChunkCounts):
    """Items / positives strictly above each group (ascending group order)."""
    tied = c.tied.astype(np.int64)
    pos_tied = c.pos_tied
    sb = np.cumsum(c.between[::-1], dtype=np.int64)[::-1]  # sb[j] = sum_{j' >= j} between
    st = np.cumsum(tied[::-1])[::-1]
    sp = np.cumsum(pos_tied[::-1])[::-1]
    greater = sb[1:] + (st - tied)
    pos_greater = sp - pos_tied
    return greater, pos_greater


def ap_from_counts(c: ChunkCounts, ties: str = "average") -> float:
    """Average precision from the summed counts of all rows.

    Examples
    --------
    >>> vals = np.array([0.3, 0.5])
    >>> c = count_chunk([0.1, 0.5, 0.5, 0.9, 0.3], [0, 1, 0, 0, 1], vals)
    >>> ap_from_counts(c, "optimistic")  # positives at ranks 2 and 4: (1/2 + 2/4) / 2
    0.5
    >>> round(ap_from_counts(c, "pessimistic"), 12)  # ranks 3 and 4: (1/3 + 2/4) / 2
    0.416666666667
    """
    check_ties(ties, "ap_from_counts")
    if c.n_pos == 0:
        raise ValueError("no positive instance (no positive label): AUPRC is undefined.")
    greater, pos_greater = _greater_counts(c)
    if ties == "stable":
        if c.before is None:
            raise ValueError("ties='stable' needs counts made with count_chunk(..., stable=True).")
        ranks = np.sort(greater[c.group] + c.before + 1)
        return float(_k_tiegroups.ap_from_ranks(ranks, c.n_pos))
    rev = slice(None, None, -1)
    g, t, pg, pt = (
        np.ascontiguousarray(a[rev], dtype=np.int64)
        for a in (greater, c.tied, pos_greater, c.pos_tied)
    )
    return float(_k_tiegroups.ap_from_groups(g, t, pg, pt, c.n_pos, _k_tiegroups.MODE_CODES[ties]))


def distinct_positive_scores(positives) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of the gathered positive scores and their multiplicities."""
    pos = np.sort(np.asarray(positives, dtype=np.float64))
    if pos.shape[0] == 0:
        raise ValueError("no positive instance (no positive label): AUPRC is undefined.")
    starts = np.flatnonzero(np.concatenate(([True], pos[1:] != pos[:-1])))
    counts = np.diff(np.concatenate((starts, [pos.shape[0]]))).astype(np.int64)
    return pos[starts], counts


def check_consistent(c: ChunkCounts, n: int, pos_counts: np.ndarray) -> None:
    """The two passes must have seen the same data."""
    if c.n != n or not np.array_equal(c.pos_tied, pos_counts):
        raise RuntimeError(
            f"the data changed between the passes (first pass: {n} rows, {int(pos_counts.sum())} "
            f"positives; second pass: {c.n} rows, {c.n_pos} positives). Nothing was computed; "
            "rerun on data that does not change."
        )


# ---------------------------------------------------------------------------
# fallback: partition the score range when P is too large to gather
# ---------------------------------------------------------------------------


def range_boundaries(samples, weights, n_total: int, rows_per_range: int) -> np.ndarray:
    """Boundaries cutting the scores into about ``n_total / rows_per_range`` ranges.

    ``samples[i]`` (arrays of scores) stand for ``weights[i]`` rows each. Range
    ``r`` is ``b[r-1] <= score < b[r]``, so equal scores share a range.
    """
    k = max(1, math.ceil(n_total / max(1, rows_per_range)))
    vals = np.concatenate([np.asarray(s, dtype=np.float64) for s in samples] + [np.zeros(0)])
    w = np.concatenate(
        [np.full(len(s), float(wi)) for s, wi in zip(samples, weights, strict=True)] + [np.zeros(0)]
    )
    if k == 1 or vals.shape[0] == 0:
        return np.zeros(0, dtype=np.float64)
    order = np.argsort(vals, kind="stable")
    vals, w = vals[order], w[order]
    cw = np.cumsum(w)
    targets = cw[-1] * np.arange(1, k) / k
    b = vals[np.minimum(np.searchsorted(cw, targets), vals.shape[0] - 1)]
    b = np.unique(b)
    return b[b > vals[0]]  # a boundary at the minimum would leave range 0 empty


def range_ids(x: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    return np.searchsorted(bounds, x, side="right")


def range_histogram(scores, labels, bounds: np.ndarray, where: str = "chunk", pos_label=None):
    """Rows and positives of a chunk in each score range."""
    x, yb = read_chunk(scores, labels, where, pos_label=pos_label)
    ids = range_ids(x, bounds)
    k = bounds.shape[0] + 1
    return (
        np.bincount(ids, minlength=k).astype(np.int64),
        np.bincount(ids[yb], minlength=k).astype(np.int64),
    )


def split_by_range(scores, labels, bounds: np.ndarray, where: str = "chunk", pos_label=None):
    """The chunk's rows of each range, in input order: a list of ``(scores, bool labels)``."""
    x, yb = read_chunk(scores, labels, where, check_nan=False, pos_label=pos_label)
    ids = range_ids(x, bounds)
    order = np.argsort(ids, kind="stable")
    cuts = np.searchsorted(ids[order], np.arange(1, bounds.shape[0] + 1))
    xo, yo = x[order], yb[order]
    return [(xs, ys) for xs, ys in zip(np.split(xo, cuts), np.split(yo, cuts), strict=True)]


def range_ap_sum(
    scores: np.ndarray, labels: np.ndarray, items_above: int, pos_above: int, ties: str
) -> float:
    """P times the AP contribution of one score range's positives.

    The range's rows (in input order) are ranked on their own; ``items_above``
    and ``pos_above`` rows / positives of higher ranges shift every rank and
    every positive count: a positive at local rank ``r`` with ``k`` local
    positives up to it adds ``(pos_above + k) / (items_above + r)``.
    """
    x = np.asarray(scores, dtype=np.float64)
    yb = np.asarray(labels, dtype=bool)
    if not yb.any():
        return 0.0
    if ties == "stable":
        r = stable_ranks(x, yb) + items_above
        k = np.arange(1, r.shape[0] + 1, dtype=np.float64) + pos_above
        return float(np.sum(k / r))
    g, nt, pg, pt = tie_groups(x, yb)
    return float(
        _k_tiegroups.ap_from_groups(
            g + items_above, nt, pg + pos_above, pt, 1, _k_tiegroups.MODE_CODES[ties]
        )
    )


def offsets_above(n_per_range: np.ndarray, p_per_range: np.ndarray):
    """Rows and positives in the ranges above each range (higher ranges = higher scores)."""
    sn = np.cumsum(n_per_range[::-1])[::-1]
    sp = np.cumsum(p_per_range[::-1])[::-1]
    return sn - n_per_range, sp - p_per_range


def stable_ranks(scores: np.ndarray, y: np.ndarray) -> np.ndarray:
    """1-based ranks of the positives, best score first, ties in input order."""
    order = np.argsort(-scores, kind="stable")
    return (np.flatnonzero(y[order]) + 1).astype(np.int64)


# ---------------------------------------------------------------------------
# what both drivers do with the per-chunk results
# ---------------------------------------------------------------------------


def sample_weight(n: int, sample: np.ndarray) -> float:
    """Rows of the chunk that each of its sampled scores stands for."""
    return n / max(1, sample.shape[0])


def check_totals(n: int, n_pos: int, what: str, pos_label=None, negative_codes=()) -> None:
    """After pass 1: binary labels, at least one row and one positive (the messages of
    :func:`pranker.pranker`)."""
    codes = {c for c in negative_codes if c is not None}
    if len(codes) > 1:  # some chunks code negatives as 0, others as -1: the error of the whole
        check_labels(np.array(sorted(codes) + [1]), name=f"y (all chunks of the {what})")
    if n == 0:
        raise ValueError(f"the {what} holds no rows: at least one instance is needed.")
    if n_pos == 0 and pos_label is not None:
        raise ValueError(
            f"pos_label={pos_label!r} does not occur in the labels of the {what}: there would "
            "be no positive. Check the value and its type (1 and '1' differ)."
        )
    if n_pos == 0:
        raise ValueError(
            f"y has no positive instance in the {what}: AUPRC is undefined. "
            + _no_positive_hint(None)
        )


def sum_counts(parts) -> ChunkCounts:
    """:func:`combine_counts` over a sequence of consecutive spans, in order."""
    return functools.reduce(combine_counts, parts)


def ap_from_total(total: ChunkCounts, n: int, pos_counts: np.ndarray, ties: str) -> float:
    """AP from the counts of all rows, after checking them against pass 1."""
    check_consistent(total, n, pos_counts)
    return ap_from_counts(total, ties)


def sum_histograms(parts):
    """Sum of :func:`range_histogram` results: rows and positives per range."""
    return (sum(p[0] for p in parts), sum(p[1] for p in parts))


def check_range_totals(n_r: np.ndarray, p_r: np.ndarray, n: int, n_pos: int) -> None:
    """The range pass must have seen the rows and positives of pass 1."""
    if int(n_r.sum()) != n or int(p_r.sum()) != n_pos:
        raise RuntimeError("the data changed between the passes; nothing was computed.")


def range_pieces_ap_sum(pieces, items_above: int, pos_above: int, ties: str) -> float:
    """:func:`range_ap_sum` of one range's ``(scores, labels)`` pieces, in row order."""
    xs = np.concatenate([p[0].astype(np.float64) for p in pieces])
    ys = np.concatenate([p[1] for p in pieces])
    return range_ap_sum(xs, ys, items_above, pos_above, ties)


# ---------------------------------------------------------------------------
# significance: the null needs only AP, N and P
# ---------------------------------------------------------------------------


def arguments_of(function, arguments: dict) -> dict:
    """The arguments ``function`` takes, picked by name from ``arguments`` (a public
    function's ``locals()`` at its start): its signature is the one list of them."""
    return {k: arguments[k] for k in inspect.signature(function).parameters}


def check_significance_args(where: str, ties: str, arguments: dict) -> PValueOptions:
    """Check the p-value options among a ``pranker`` call's arguments once, before any pass
    over the data."""
    check_ties(ties, where)
    return PValueOptions.of(where, arguments)


def result_from_ap(
    auprc: float, n: int, n_pos: int, options: PValueOptions, ties: str
) -> PrankerResult:
    """The :class:`pranker.PrankerResult` of an AP computed elsewhere (needs only N, P):
    the path of :func:`pranker.pranker` after its AP."""
    return result_of(auprc, n, n_pos, options, ties)
