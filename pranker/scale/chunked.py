r"""Exact AUPRC of data on disk, one chunk at a time: the count decomposition.

Average precision only needs, for every positive, how many items and how many
positives score higher and how many share its score. Let
``v_0 < v_1 < ... < v_{G-1}`` be the distinct scores held by positives. Every
item falls either *on* one of them or strictly *between* two of them, so a
chunk of data is summarised exactly by two count vectors:

``tied[g]``
    items of the chunk with score ``v_g`` (``G`` entries);
``between[j]``
    items with ``v_{j-1} < score < v_j`` (``G + 1`` entries, ``v_{-1} = -inf``
    and ``v_G = +inf`` as open ends, so ``+-inf`` scores are counted too).

Counts add over chunks, and from the sums

    greater[g]     = sum_{j > g} between[j] + sum_{g' > g} tied[g']
    pos_greater[g] = sum_{g' > g} pos_tied[g']

are the global tie groups of :func:`pranker.tie_groups`, hence the AP in the
``"average"``, ``"threshold"``, ``"optimistic"`` and ``"pessimistic"`` modes
(:func:`pranker.ap_from_tie_groups`). The algorithm is two passes:

1. gather the positives' scores (``O(P)`` memory) and count ``N``;
2. for each chunk, sort it (``numpy.sort``) and binary-search the sorted
   distinct positive scores into it: ``tied = hi - lo`` and
   ``between[j] = lo[j] - hi[j-1]``; add the vectors.

Memory is one chunk (plus its sorted copy) plus ``O(P)``; the work is one sort
per chunk. The null moments need only ``N`` and ``P`` (:mod:`pranker.null`).

``ties="stable"`` (ties broken by input order) also needs, for each positive,
how many items tied with it come *before* it in the global input order. A
chunk records, for each of its positives, its group and the number of tied
items before it inside the chunk; joining the summary ``L`` of an earlier span
of rows with the summary ``R`` of the span that follows it adds ``L.tied[g]``
to each of ``R``'s positives. This join is associative (but not commutative),
so any ordered reduction tree -- sequential here, a tree of tasks in
:mod:`pranker.dask` -- gives every positive's stable rank
``greater[g] + before + 1`` exactly; the AP is ``(1/P) sum_k k / r_k`` over
the sorted ranks. The extra memory is ``O(P)``.

When the positives are too many to gather (more than ``max_positives``), a
fallback partitions the *score range* instead: boundaries from approximate
quantiles of a deterministic sample of the scores cut the real line into
ranges; a counting pass gives the number of items and positives above each
range; the rows are then shuffled by range (to temporary files here, between
tasks in :mod:`pranker.dask`), keeping input order, and every range is ranked
exactly on its own, offset by the counts above it. Ties never straddle a
boundary (ranges are half-open intervals of score values), so the result is
exact in every mode, ``"stable"`` included; the quantiles only affect how
evenly the rows spread (a single tied value larger than memory cannot be
split).

References
----------
.. [1] M. Lopes and G. Bontempi, "On the null distribution of the precision
   and recall curve", ECML PKDD 2014, doi:10.1007/978-3-662-44851-9_21.
.. [2] F. McSherry and M. Najork, "Computing information retrieval
   performance measures efficiently in the presence of tied scores",
   ECIR 2008.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._numba import tiegroups as _k_tiegroups
from .._validation import _as_numeric_array, check_labels, check_ties
from ..measures.ap import _stable_ranks, tie_groups
from ..significance.single import (
    PrankerResult,
    _check_conf_level,
    _check_params,
    significance_from_ap,
)

__all__ = [
    "auprc_ap_chunked",
    "pranker_chunked",
    "ChunkCounts",
    "count_chunk",
    "combine_counts",
    "ap_from_counts",
]

DEFAULT_CHUNK_SIZE = 1 << 22
# Per chunk / partition the count vectors take about 24 bytes per distinct positive
# score (G <= P): 2**22 positives -> ~100 MB, on top of the chunk itself.
DEFAULT_MAX_POSITIVES = 1 << 22
DEFAULT_ROWS_PER_RANGE = 1 << 24
SAMPLE_PER_CHUNK = 1024


# ---------------------------------------------------------------------------
# per-chunk pieces, shared with pranker.dask
# ---------------------------------------------------------------------------


def _chunk_scores(scores, where: str) -> np.ndarray:
    """A chunk's scores as a flat float32 or float64 array (other types -> float64)."""
    arr = _as_numeric_array(scores, f"scores ({where})")
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    return np.ascontiguousarray(arr).ravel()


def _chunk_labels(labels, n: int, where: str) -> np.ndarray:
    yb = check_labels(labels, name=f"labels ({where})")
    if yb.shape[0] != n:
        raise ValueError(
            f"{where}: {n} scores but {yb.shape[0]} labels; the score and label "
            "columns/arrays must be split into chunks of the same lengths."
        )
    return yb


def _nan_error(x: np.ndarray, where: str) -> ValueError:
    nan = np.isnan(x)
    return ValueError(
        f"scores contain {int(nan.sum())} NaN value(s) in {where}; the first is at index "
        f"{int(np.flatnonzero(nan)[0])} within it. Remove or impute them before ranking "
        "(+/-inf are allowed and ranked)."
    )


@dataclass
class ScanResult:
    """Pass 1 summary of a chunk: sizes, the positives' scores, a sample of scores."""

    n: int
    n_pos: int
    positives: np.ndarray | None  # float64; None when the chunk alone exceeds the limit
    sample: np.ndarray  # float64, evenly spaced, at most SAMPLE_PER_CHUNK values


def scan_chunk(scores, labels, *, max_positives: int = DEFAULT_MAX_POSITIVES,
               where: str = "chunk") -> ScanResult:
    """Pass 1 on one chunk: validate, count, keep the positives' scores and a sample."""
    x = _chunk_scores(scores, where)
    yb = _chunk_labels(labels, x.shape[0], where)
    if np.isnan(x).any():
        raise _nan_error(x, where)
    pos = x[yb].astype(np.float64)
    n = int(x.shape[0])
    step = max(1, -(-n // SAMPLE_PER_CHUNK))
    sample = x[step // 2 :: step].astype(np.float64)
    return ScanResult(n, int(pos.shape[0]), pos if pos.shape[0] <= max_positives else None, sample)


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


def count_chunk(scores, labels, vals: np.ndarray, *, stable: bool = False,
                where: str = "chunk") -> ChunkCounts:
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
    x = _chunk_scores(scores, where)
    n = int(x.shape[0])
    yb = _chunk_labels(labels, n, where)
    vals = np.asarray(vals, dtype=np.float64)
    G = int(vals.shape[0])
    x, v = _search_values(x, vals)
    xs = np.sort(x)
    if n and np.isnan(xs[-1]):
        raise _nan_error(x, where)
    lo = np.searchsorted(xs, v, side="left").astype(np.int64)
    hi = np.searchsorted(xs, v, side="right").astype(np.int64)
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
    check_ties(ties)
    if c.n_pos == 0:
        raise ValueError("no positive instance (no nonzero label): AUPRC is undefined.")
    greater, pos_greater = _greater_counts(c)
    if ties == "stable":
        if c.before is None:
            raise ValueError("ties='stable' needs counts made with count_chunk(..., stable=True).")
        ranks = np.sort(greater[c.group] + c.before + 1)
        return float(_k_tiegroups.ap_from_ranks(ranks, c.n_pos))
    rev = slice(None, None, -1)
    arrs = [np.ascontiguousarray(a[rev], dtype=np.int64)
            for a in (greater, c.tied, pos_greater, c.pos_tied)]
    return float(_k_tiegroups.ap_from_groups(*arrs, c.n_pos, _k_tiegroups.MODE_CODES[ties]))


def distinct_positive_scores(positives) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of the gathered positive scores and their multiplicities."""
    pos = np.sort(np.asarray(positives, dtype=np.float64))
    if pos.shape[0] == 0:
        raise ValueError("no positive instance (no nonzero label): AUPRC is undefined.")
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
        [np.full(len(s), float(wi)) for s, wi in zip(samples, weights, strict=True)]
        + [np.zeros(0)]
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


def range_histogram(scores, labels, bounds: np.ndarray, where: str = "chunk"):
    """Rows and positives of a chunk in each score range."""
    x = _chunk_scores(scores, where)
    yb = _chunk_labels(labels, x.shape[0], where)
    if np.isnan(x).any():
        raise _nan_error(x, where)
    ids = range_ids(x, bounds)
    k = bounds.shape[0] + 1
    return (np.bincount(ids, minlength=k).astype(np.int64),
            np.bincount(ids[yb], minlength=k).astype(np.int64))


def split_by_range(scores, labels, bounds: np.ndarray, where: str = "chunk"):
    """The chunk's rows of each range, in input order: a list of ``(scores, labels)``."""
    x = _chunk_scores(scores, where)
    yb = _chunk_labels(labels, x.shape[0], where)
    ids = range_ids(x, bounds)
    order = np.argsort(ids, kind="stable")
    cuts = np.searchsorted(ids[order], np.arange(1, bounds.shape[0] + 1))
    xo, yo = x[order], yb[order]
    return [(xs, ys) for xs, ys in zip(np.split(xo, cuts), np.split(yo, cuts), strict=True)]


def range_ap_sum(scores: np.ndarray, labels: np.ndarray, items_above: int, pos_above: int,
                 ties: str) -> float:
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
        r = _stable_ranks(x, yb) + items_above
        k = np.arange(1, r.shape[0] + 1, dtype=np.float64) + pos_above
        return float(np.sum(k / r))
    g, nt, pg, pt = tie_groups(x, yb)
    return float(
        _k_tiegroups.ap_from_groups(g + items_above, nt, pg + pos_above, pt, 1,
                                _k_tiegroups.MODE_CODES[ties])
    )


def offsets_above(n_per_range: np.ndarray, p_per_range: np.ndarray):
    """Rows and positives in the ranges above each range (higher ranges = higher scores)."""
    sn = np.cumsum(n_per_range[::-1])[::-1]
    sp = np.cumsum(p_per_range[::-1])[::-1]
    return sn - n_per_range, sp - p_per_range


# ---------------------------------------------------------------------------
# sources: numpy arrays / memmaps / .npy files, parquet files, callables
# ---------------------------------------------------------------------------


def _open_array(a, name: str):
    if isinstance(a, (str, os.PathLike)):
        p = Path(a)
        if not p.exists():
            raise FileNotFoundError(f"{name}: no such file {str(p)!r}.")
        if p.suffix != ".npy":
            raise ValueError(f"{name}: expected a .npy file, got {str(p)!r}.")
        return np.load(p, mmap_mode="r")
    return a


def _parquet_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.rglob("*.parquet") if p.is_file())
        if not files:
            raise FileNotFoundError(f"no .parquet files under {str(path)!r}.")
        return files
    if not path.exists():
        raise FileNotFoundError(f"no such parquet file or directory {str(path)!r}.")
    return [path]


def _parquet_chunks(path: Path, score_col: str, label_col: str, chunk_size: int):
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "reading parquet needs pyarrow: pip install 'pranker[dask]' (or pip install pyarrow)."
        ) from exc
    files = _parquet_files(path)

    def chunks():
        for f in files:
            pf = pq.ParquetFile(f)
            names = pf.schema_arrow.names
            for col in (score_col, label_col):
                if col not in names:
                    raise ValueError(
                        f"{str(f)!r} has no column {col!r} (columns: {names}); pass "
                        "score_col= and label_col=."
                    )
            for i, batch in enumerate(pf.iter_batches(batch_size=chunk_size,
                                                      columns=[score_col, label_col])):
                s = batch.column(0).to_numpy(zero_copy_only=False)
                y = batch.column(1).to_numpy(zero_copy_only=False)
                yield s, y, f"{f.name} batch {i}"

    return chunks


def _chunk_source(source, y, score_col: str, label_col: str,
                  chunk_size: int) -> Callable[[], Iterator]:
    """A re-iterable source: calling it yields ``(scores, labels, where)`` chunks in order."""
    chunk_size = int(chunk_size)
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1; got {chunk_size}.")
    if callable(source) and y is None:
        def chunks():
            for i, item in enumerate(source()):
                s, lab = item
                yield s, lab, f"chunk {i}"
        return chunks
    if isinstance(source, (str, os.PathLike)) and y is None:
        p = Path(source)
        if p.suffix == ".npy":
            raise ValueError(f"{str(p)!r} holds scores only; pass the labels as y=.")
        return _parquet_chunks(p, score_col, label_col, chunk_size)
    if y is None:
        raise ValueError(
            "pass labels y= with score arrays, or a parquet path / a callable yielding "
            "(scores, labels) chunks as source."
        )
    s = _open_array(source, "scores")
    lab = _open_array(y, "y")
    s_shape, y_shape = np.shape(s), np.shape(lab)
    n = int(np.prod(s_shape))
    if n != int(np.prod(y_shape)):
        raise ValueError(
            f"scores and y must have the same number of elements; got shapes {s_shape} "
            f"and {y_shape}."
        )
    s_flat = s.reshape(-1) if hasattr(s, "reshape") else np.asarray(s).ravel()
    y_flat = lab.reshape(-1) if hasattr(lab, "reshape") else np.asarray(lab).ravel()

    def chunks():
        for start in range(0, n, chunk_size):
            stop = min(n, start + chunk_size)
            yield s_flat[start:stop], y_flat[start:stop], f"rows {start}:{stop}"

    return chunks


# ---------------------------------------------------------------------------
# drivers
# ---------------------------------------------------------------------------


def _pass1(chunks, max_positives: int):
    n = 0
    n_pos = 0
    positives = []
    samples, weights = [], []
    gather = True
    for s, lab, where in chunks():
        r = scan_chunk(s, lab, max_positives=max_positives, where=where)
        n += r.n
        n_pos += r.n_pos
        samples.append(r.sample)
        weights.append(r.n / max(1, r.sample.shape[0]))
        if gather and (r.positives is None or n_pos > max_positives):
            gather = False
            positives = []
        if gather:
            positives.append(r.positives)
    if n == 0:
        raise ValueError("the source holds no rows: at least one instance is needed.")
    if n_pos == 0:
        raise ValueError(
            "y has no positive instance (no nonzero label): AUPRC is undefined. "
            "Check that positives are coded as nonzero values."
        )
    return n, n_pos, (np.concatenate(positives) if gather else None), samples, weights


def _auprc_counts(chunks, n, positives, ties):
    vals, pos_counts = distinct_positive_scores(positives)
    total = None
    stable = ties == "stable"
    for s, lab, where in chunks():
        c = count_chunk(s, lab, vals, stable=stable, where=where)
        total = c if total is None else combine_counts(total, c)
    check_consistent(total, n, pos_counts)
    return ap_from_counts(total, ties)


def _auprc_ranges(chunks, n, n_pos, samples, weights, ties, rows_per_range, tmp_dir):
    bounds = range_boundaries(samples, weights, n, rows_per_range)
    k = bounds.shape[0] + 1
    n_r = np.zeros(k, dtype=np.int64)
    p_r = np.zeros(k, dtype=np.int64)
    with tempfile.TemporaryDirectory(prefix="pranker-ranges-", dir=tmp_dir) as d:
        sf = [Path(d) / f"r{r}.f8" for r in range(k)]
        lf = [Path(d) / f"r{r}.u1" for r in range(k)]
        for s, lab, where in chunks():
            parts = split_by_range(s, lab, bounds, where=where)
            for r, (xs, ys) in enumerate(parts):
                if xs.shape[0] == 0:
                    continue
                n_r[r] += xs.shape[0]
                p_r[r] += int(np.count_nonzero(ys))
                with open(sf[r], "ab") as fh:
                    xs.astype(np.float64).tofile(fh)
                with open(lf[r], "ab") as fh:
                    ys.astype(np.uint8).tofile(fh)
        if int(n_r.sum()) != n or int(p_r.sum()) != n_pos:
            raise RuntimeError("the data changed between the passes; nothing was computed.")
        above_n, above_p = offsets_above(n_r, p_r)
        total = 0.0
        for r in range(k - 1, -1, -1):
            if p_r[r] == 0:
                continue
            xs = np.fromfile(sf[r], dtype=np.float64)
            ys = np.fromfile(lf[r], dtype=np.uint8).astype(bool)
            total += range_ap_sum(xs, ys, int(above_n[r]), int(above_p[r]), ties)
    return total / n_pos


def _auprc_chunked(source, y, *, score_col, label_col, chunk_size, ties, max_positives,
                   rows_per_range, tmp_dir):
    check_ties(ties)
    max_positives = int(max_positives)
    chunks = _chunk_source(source, y, score_col, label_col, chunk_size)
    n, n_pos, positives, samples, weights = _pass1(chunks, max_positives)
    if positives is not None:
        ap = _auprc_counts(chunks, n, positives, ties)
    else:
        ap = _auprc_ranges(chunks, n, n_pos, samples, weights, ties, rows_per_range, tmp_dir)
    return ap, n, n_pos


def auprc_ap_chunked(
    source,
    y=None,
    *,
    score_col: str = "score",
    label_col: str = "label",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    ties: str = "average",
    max_positives: int = DEFAULT_MAX_POSITIVES,
    rows_per_range: int = DEFAULT_ROWS_PER_RANGE,
    tmp_dir: str | os.PathLike | None = None,
) -> float:
    """Exact AP of scores too large for memory, read one chunk at a time.

    Equal to :func:`pranker.auprc_ap` on the concatenated data (to rounding)
    in every tie mode; see the module documentation for the method.

    Parameters
    ----------
    source : array_like, numpy memmap, path, or callable
        - scores as an array or memmap, or a path to a ``.npy`` file (opened
          with ``mmap_mode="r"``), with the labels in ``y`` (same forms);
        - a parquet file, or a directory of ``*.parquet`` files (read in sorted
          path order, batches of ``chunk_size`` rows), with columns
          ``score_col`` and ``label_col`` (needs pyarrow);
        - a callable returning a fresh iterator of ``(scores, labels)`` chunks
          each time it is called (it is called two or three times).
    y : array_like, memmap or path, optional
        Labels (nonzero = positive) when ``source`` holds scores only.
    score_col, label_col : str
        Parquet column names.
    chunk_size : int
        Rows per chunk for arrays and parquet files; memory is about
        ``chunk_size * 17`` bytes (float64 scores) plus ``~50 * G`` bytes for
        ``G <= P`` distinct positive scores (two count vector sets of 24 bytes
        per value) and the gathered positives.
    ties : {"average", "stable", "threshold", "optimistic", "pessimistic"}
        See :func:`pranker.auprc_ap`; ``"stable"`` follows the order of the chunks.
    max_positives : int
        Gather at most this many positive scores (default 2**22); above it,
        use the range-partition fallback (rows shuffled to temporary files).
    rows_per_range : int
        Fallback only: target rows per score range (memory of the last pass).
    tmp_dir : path, optional
        Fallback only: where the temporary range files go (removed after).

    Returns
    -------
    float

    References
    ----------
    .. [1] M. Lopes and G. Bontempi, "On the null distribution of the precision
       and recall curve", ECML PKDD 2014, doi:10.1007/978-3-662-44851-9_21.

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0, 1, 0, 1, 0]
    >>> s = [0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3]
    >>> round(auprc_ap_chunked(np.array(s), np.array(y), chunk_size=3), 6)
    0.966667
    """
    ap, _, _ = _auprc_chunked(
        source, y, score_col=score_col, label_col=label_col, chunk_size=chunk_size, ties=ties,
        max_positives=max_positives, rows_per_range=rows_per_range, tmp_dir=tmp_dir,
    )
    return ap


def result_from_ap(auprc: float, n: int, n_pos: int, params, conf_level: float,
                   ties: str, **significance) -> PrankerResult:
    """The :class:`pranker.PrankerResult` of an AP computed elsewhere (needs only N, P)."""
    return significance_from_ap(auprc, n, n_pos, params=params, conf_level=conf_level,
                                ties=ties, **significance)


def pranker_chunked(
    source,
    y=None,
    params=None,
    conf_level: float = 0.95,
    *,
    score_col: str = "score",
    label_col: str = "label",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    ties: str = "average",
    max_positives: int = DEFAULT_MAX_POSITIVES,
    rows_per_range: int = DEFAULT_ROWS_PER_RANGE,
    tmp_dir: str | os.PathLike | None = None,
    method: str | None = None,
    n_draws: int | None = None,
    seed: int | None = None,
) -> PrankerResult:
    """:func:`pranker.pranker` for data read one chunk at a time.

    The AP comes from :func:`auprc_ap_chunked` (same parameters); the null
    and the p-value (``method``, ``n_draws``, ``seed`` as in
    :func:`pranker.pranker`) need only AP, N and P.

    Returns
    -------
    PrankerResult

    References
    ----------
    .. [1] M. Lopes and G. Bontempi, "On the null distribution of the precision
       and recall curve", ECML PKDD 2014, doi:10.1007/978-3-662-44851-9_21.

    Examples
    --------
    >>> y = np.array([1, 1, 1, 0, 0, 0, 1, 0, 1, 0])
    >>> s = np.array([0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3])
    >>> res = pranker_chunked(s, y, chunk_size=4)
    >>> round(res.auprc, 4), res.n, res.n_pos, res.pvalue < 0.05
    (0.9667, 10, 5, True)
    """
    check_ties(ties)
    conf_level = _check_conf_level(conf_level)
    if params is not None:
        params = _check_params(params)
    ap, n, n_pos = _auprc_chunked(
        source, y, score_col=score_col, label_col=label_col, chunk_size=chunk_size, ties=ties,
        max_positives=max_positives, rows_per_range=rows_per_range, tmp_dir=tmp_dir,
    )
    return result_from_ap(ap, n, n_pos, params, conf_level, ties, method=method,
                          n_draws=n_draws, seed=seed)
