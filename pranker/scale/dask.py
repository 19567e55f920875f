"""Exact AUPRC and its significance on Dask: arrays and dataframes larger than one machine.

The method is the count decomposition of :mod:`pranker.chunked`, run as
tasks:

1. every partition validates its rows and returns its size, its positives'
   scores and a small deterministic sample of its scores; the results are
   persisted on the workers and only the sizes come back first;
2. if there are at most ``max_positives`` positives, their scores are
   gathered (``O(P)``), sorted and deduplicated; every partition histograms
   its scores against them (:func:`pranker.chunked.count_chunk`) and the count
   vectors are summed by an *ordered* tree of tasks
   (:func:`pranker.chunked.combine_counts`, associative), which also gives
   every positive's stable rank for ``ties="stable"``;
3. otherwise (the fallback) the score line is cut into ranges at weighted
   quantiles of the sample, one pass counts rows and positives per range,
   and a shuffle sends every range's rows, in partition order, to one task
   that ranks them exactly, shifted by the counts of the ranges above it.

The result equals :func:`pranker.auprc_ap` on the concatenated data to
rounding (1e-12) in every tie mode; the null moments need only N and P.
Memory of a worker (peak): the partition it is counting, about ``2x`` its
bytes for the read itself (Arrow buffers and the pandas frame), one sorted
copy of its scores and the label mask (about ``1.1x``), so about ``5x`` a
partition of float32 scores with int8 labels, plus ``O(P)``: the broadcast
distinct positive scores (8 bytes each) and the count vectors, about 100
bytes per distinct positive score in all (one task's temporaries and the up
to ``split_every`` partial sums a tree task holds). Measured on a
``LocalCluster`` (``benchmarks/bench_dask.py``, partitions of 10^7 rows =
48 MB): 227 MB = 4.8x a partition above the worker's warm baseline of
~290 MB at 2e7 rows (G ~ 2e5), ~410 MB at 2e8 rows (G ~ 2e6: the O(P)
term). The per-task steps are those of :mod:`pranker.scale.counts`.

Tasks are pure, so when a worker dies the scheduler recomputes its tasks
(or raises, e.g. ``KilledWorker`` after too many failures); a partition that
returns different rows in the two passes is detected (``RuntimeError``), never
turned into a wrong number.

Partition order is the row order for ``ties="stable"``: the order of
``dask.array`` blocks (C order after ``ravel``) or of the dataframe's
partitions.

Requires ``dask`` and ``distributed`` (``pip install 'pranker[dask]'``); they
are imported only when these functions are called.

References
----------
.. [1] %(ref_lopes2014)s
.. [2] %(ref_mcsherry2008)s
"""

from __future__ import annotations

import functools

import numpy as np

from .._docs import fill_doc
from .._validation import (
    check_average,
    check_table_shapes,
    check_ties,
    check_weighted_ties,
    is_matrix,
    matrix_error,
)
from ..measures.ap import auprc_ap as _auprc_ap_memory
from ..significance.single import PrankerResult
from . import counts as _c
from . import weighted as _w

__doc__ = fill_doc()(__doc__)

__all__ = ["auprc_ap", "pranker"]


def _require_dask():
    try:
        import dask
        import dask.array  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "pranker.dask needs dask: pip install 'pranker[dask]' "
            "(installs dask[array,dataframe], distributed and pyarrow)."
        ) from exc
    return dask


# ---------------------------------------------------------------------------
# task functions (run on the workers; module-level so they pickle by reference)
# ---------------------------------------------------------------------------


def _unpack(data, cols):
    if cols is None:
        return data[0], data[1]
    df = data[0]
    return df[cols[0]].to_numpy(), df[cols[1]].to_numpy()


def _scan_task(data, cols, max_positives, where, pos_label):
    """Validate and scan one partition; an input error is returned, not raised.

    The partitions run in any order, so the first error raised would name
    whichever partition failed first; the client raises instead the error of
    the first bad partition in order (:func:`_first_error`), the same every run.
    """
    try:
        s, y = _unpack(data, cols)
        return _c.scan_chunk(s, y, max_positives=max_positives, where=where, pos_label=pos_label)
    except (ValueError, TypeError) as exc:
        return exc


def _scan_meta(r):
    if isinstance(r, Exception):
        return r
    return r.n, r.n_pos, r.positives is not None, r.sample, r.negative_code


def _first_error(meta) -> None:
    """Raise the input error of the first partition (in order) that has one."""
    for m in meta:
        if isinstance(m, Exception):
            raise m


def _scan_positives(r):
    return r.positives


def _count_task(data, cols, vals, stable, where, pos_label):
    s, y = _unpack(data, cols)
    return _c.count_chunk(s, y, vals, stable=stable, where=where, pos_label=pos_label)


def _hist_task(data, cols, bounds, where, pos_label):
    s, y = _unpack(data, cols)
    return _c.range_histogram(s, y, bounds, where=where, pos_label=pos_label)


def _split_task(data, cols, bounds, where, pos_label):
    s, y = _unpack(data, cols)
    return tuple(_c.split_by_range(s, y, bounds, where=where, pos_label=pos_label))


def _shared(dask, value, scheduler):
    """One copy of ``value`` for every task, as a graph literal.

    Not ``client.scatter``: the scheduler cannot recompute scattered data, so
    a run whose every worker holding it died would fail; a literal is part of
    the graph and is sent again with the tasks that are rerun. It passes
    through the scheduler once (the positives' distinct scores: at most
    ``max_positives`` floats).
    """
    return dask.delayed(value, pure=True)


def _tree(dask, fn, items, split_every):
    """Ordered tree reduction of a list of delayed objects."""
    level = list(items)
    while len(level) > 1:
        level = [
            dask.delayed(fn, pure=True)(level[i : i + split_every])
            for i in range(0, len(level), split_every)
        ]
    return level[0]


# ---------------------------------------------------------------------------
# inputs: dask arrays (with labels), dask dataframes (with column names)
# ---------------------------------------------------------------------------


def _partitions(dask, scores, y, score_col, label_col):
    """A list of delayed partitions, the column names (or None), and their names."""
    import dask.array as da

    try:
        import dask.dataframe as dd
    except ImportError:  # pragma: no cover - dataframe extra missing
        dd = None
    if dd is not None and isinstance(scores, dd.DataFrame):
        if y is not None:
            raise ValueError(
                "with a dask DataFrame, give the label column name as label_col=, not y=."
            )
        cols = [c for c in (score_col, label_col) if c not in scores.columns]
        if cols:
            raise ValueError(
                f"the dataframe has no column(s) {cols} (columns: {list(scores.columns)}); "
                "pass score_col= and label_col=."
            )
        parts = scores[[score_col, label_col]].to_delayed()
        return [(p,) for p in parts], (score_col, label_col)
    if not isinstance(scores, da.Array):
        raise TypeError(
            "pranker.dask works on a dask array of scores (with labels y=) or a dask "
            f"DataFrame (with score_col= and label_col=); got {type(scores).__name__}. "
            "For numpy arrays use pranker.auprc_ap, for files pranker.chunked."
        )
    if y is None:
        raise ValueError("pass the labels y= (a dask or numpy array) with a dask array of scores.")
    s = scores.ravel() if scores.ndim != 1 else scores
    if not isinstance(y, da.Array):
        y = np.asarray(y)
        if y.size != s.size:
            raise ValueError(
                f"scores and y must have the same number of elements; got {s.size} and {y.size}."
            )
        y = da.from_array(y.ravel(), chunks=s.chunks)
    yv = y.ravel() if y.ndim != 1 else y
    if yv.shape[0] != s.shape[0]:
        raise ValueError(
            f"scores and y must have the same number of elements; got {s.shape[0]} and "
            f"{yv.shape[0]}."
        )
    if yv.chunks != s.chunks:
        yv = yv.rechunk(s.chunks)
    sd = s.to_delayed().ravel()
    yd = yv.to_delayed().ravel()
    return [(a, b) for a, b in zip(sd, yd, strict=True)], None


# ---------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------


def _auprc(
    scores,
    y,
    *,
    score_col,
    label_col,
    ties,
    max_positives,
    rows_per_range,
    split_every,
    scheduler,
    pos_label,
):
    dask = _require_dask()
    check_ties(ties, "pranker.dask.auprc_ap")  # pranker.dask.pranker checked it first
    split_every = int(split_every)
    if split_every < 2:
        raise ValueError(f"split_every must be >= 2; got {split_every}.")
    parts, cols = _partitions(dask, scores, y, score_col, label_col)
    names = [f"partition {i}" for i in range(len(parts))]
    delayed = functools.partial(dask.delayed, pure=True)
    kw = {} if scheduler is None else {"scheduler": scheduler}

    # pass 1: sizes, positives (kept on the workers), samples
    scans = [
        delayed(_scan_task)(p, cols, int(max_positives), w, pos_label)
        for p, w in zip(parts, names, strict=True)
    ]
    scans = dask.persist(*scans, **kw)
    meta = dask.compute(*[delayed(_scan_meta)(r) for r in scans], **kw)
    _first_error(meta)
    n = sum(m[0] for m in meta)
    n_pos = sum(m[1] for m in meta)
    _c.check_totals(n, n_pos, "collection", pos_label, [m[4] for m in meta])
    if n_pos <= max_positives and all(m[2] for m in meta):
        positives = dask.compute(*[delayed(_scan_positives)(r) for r in scans], **kw)
        del scans
        vals, pos_counts = _c.distinct_positive_scores(np.concatenate(positives))
        del positives
        vals_d = _shared(dask, vals, scheduler)
        counts = [
            delayed(_count_task)(p, cols, vals_d, ties == "stable", w, pos_label)
            for p, w in zip(parts, names, strict=True)
        ]
        (total,) = dask.compute(_tree(dask, _c.sum_counts, counts, split_every), **kw)
        return _c.ap_from_total(total, n, pos_counts, ties), n, n_pos

    # fallback: partition the score range
    del scans
    samples = [m[3] for m in meta]
    weights = [_c.sample_weight(m[0], m[3]) for m in meta]
    bounds = _c.range_boundaries(samples, weights, n, rows_per_range)
    k = bounds.shape[0] + 1
    bounds_d = _shared(dask, bounds, scheduler)
    hists = [
        delayed(_hist_task)(p, cols, bounds_d, w, pos_label)
        for p, w in zip(parts, names, strict=True)
    ]
    ((n_r, p_r),) = dask.compute(_tree(dask, _c.sum_histograms, hists, split_every), **kw)
    _c.check_range_totals(n_r, p_r, n, n_pos)
    above_n, above_p = _c.offsets_above(n_r, p_r)
    splits = [
        dask.delayed(_split_task, pure=True, nout=k)(p, cols, bounds_d, w, pos_label)
        for p, w in zip(parts, names, strict=True)
    ]
    sums = [
        delayed(_c.range_pieces_ap_sum)(
            [sp[r] for sp in splits], int(above_n[r]), int(above_p[r]), ties
        )
        for r in range(k)
        if p_r[r] > 0
    ]
    sums = dask.compute(*sums, **kw)
    return float(np.sum(np.asarray(sums, dtype=np.float64)) / n_pos), n, n_pos


def _wpos_task(s, y, w, where, pos_label):
    """Pass 1 of the weighted AP on one partition; an input error is returned, not raised."""
    try:
        return _w.weighted_positives(s, y, w, where=where, pos_label=pos_label)
    except (ValueError, TypeError) as exc:
        return exc


def _as_dask(da, a, chunks, what, n):
    """``a`` (a dask or numpy array) flattened and cut into the given chunks."""
    if not isinstance(a, da.Array):
        a = np.asarray(a)
        if a.size != n:
            raise ValueError(
                f"scores and {what} must have the same number of elements; got {n} and {a.size}."
            )
        return da.from_array(a.ravel(), chunks=chunks)
    a = a.ravel() if a.ndim != 1 else a
    if a.shape[0] != n:
        raise ValueError(
            f"scores and {what} must have the same number of elements; got {n} and {a.shape[0]}."
        )
    return a if a.chunks == chunks else a.rechunk(chunks)


def _auprc_weighted(dask, scores, y, sample_weight, ties, scheduler, pos_label, where):
    """Weighted AP (``ties="threshold"``) of a dask array in two passes of tasks; the AP and
    the positives' weight."""
    import dask.array as da

    if ties != "threshold":
        raise ValueError(
            f"{where}: with sample_weight, ties='threshold' (scikit-learn's weighted AP) is "
            f"computed on the cluster; got ties={ties!r}. The weighted 'stable' AP needs every "
            "positive's place in the input order: use pranker.auprc_ap in memory."
        )
    if not isinstance(scores, da.Array) or y is None:
        raise ValueError(
            f"{where}: sample_weight= goes with a dask array of scores and its labels y= (one "
            "weight per element); a dataframe carries no weights here."
        )
    s = scores.ravel() if scores.ndim != 1 else scores
    n = int(s.shape[0])
    parts = [
        list(a.to_delayed().ravel())
        for a in (
            s,
            _as_dask(da, y, s.chunks, "y", n),
            _as_dask(da, sample_weight, s.chunks, "sample_weight", n),
        )
    ]
    names = [f"partition {i}" for i in range(len(parts[0]))]
    delayed = functools.partial(dask.delayed, pure=True)
    kw = {} if scheduler is None else {"scheduler": scheduler}
    scans = dask.compute(
        *[
            delayed(_wpos_task)(a, b, c, name, pos_label)
            for a, b, c, name in zip(*parts, names, strict=True)
        ],
        **kw,
    )
    _first_error(scans)
    pos_x = np.concatenate([r[1] for r in scans])
    pos_w = np.concatenate([r[2] for r in scans])
    _c.check_totals(
        sum(r[0] for r in scans),
        int(pos_x.shape[0]),
        "collection",
        pos_label,
        [r[3] for r in scans],
    )

    def w_ge(vals):
        vals_d = _shared(dask, vals, scheduler)
        ge = [
            delayed(_w.weight_at_or_above)(a, c, vals_d, where=name)
            for a, c, name in zip(parts[0], parts[2], names, strict=True)
        ]
        return np.sum(np.asarray(dask.compute(*ge, **kw)), axis=0)

    return _w.weighted_ap(pos_x, pos_w, w_ge, where), float(pos_w.sum())


def _ap_one(dask, where, sample_weight, args):
    """The AP of one ranking (flattened) and its support: positives, or their weight."""
    if sample_weight is None:
        ap, _, n_pos = _auprc(**args)
        return ap, float(n_pos)
    return _auprc_weighted(
        dask,
        args["scores"],
        args["y"],
        sample_weight,
        args["ties"],
        args["scheduler"],
        args["pos_label"],
        where,
    )


def _samples_task(S, Y, W, ties, pos_label):
    """The weighted sum of the row APs of a block of rows, and the block's weight."""
    S, Y = np.asarray(S), np.asarray(Y)
    if W is not None:
        W = np.asarray(W, dtype=np.float64)
        if not (W > 0).any():
            return 0.0, 0.0
    m = _auprc_ap_memory(S, Y, average="samples", ties=ties, pos_label=pos_label, sample_weight=W)
    b = float(S.shape[0]) if W is None else float(W.sum())
    return m * b, b


def _ap_table(dask, where, scores, y, sample_weight, average, args):
    """A 2-D dask table of scores averaged as :func:`pranker.auprc_ap` averages it."""
    import dask.array as da

    if average == "binary":
        raise matrix_error(where, scores, y)
    w = sample_weight
    if average == "micro":
        if w is not None and np.shape(w) == tuple(scores.shape[:1]):
            k = scores.shape[1]  # each sample's weight on each of its classes
            w = da.repeat(w, k, axis=0) if isinstance(w, da.Array) else np.repeat(w, k)
        return _ap_one(dask, where, w, {**args, "scores": scores, "y": y})[0]
    n_samples, n_classes = check_table_shapes(scores, y, where, average)
    if average == "samples":
        S = scores.rechunk({1: -1})
        rows = S.chunks[0]
        Y = y if isinstance(y, da.Array) else da.from_array(np.asarray(y), chunks=S.chunks)
        Y = Y.rechunk(S.chunks)
        Sd, Yd = S.to_delayed().ravel(), Y.to_delayed().ravel()
        if w is None:
            Wd = [None] * len(Sd)
        else:
            Wa = w if isinstance(w, da.Array) else da.from_array(np.asarray(w), chunks=(rows,))
            Wd = list(Wa.rechunk((rows,)).to_delayed().ravel())
        delayed = functools.partial(dask.delayed, pure=True)
        kw = {} if args["scheduler"] is None else {"scheduler": args["scheduler"]}
        parts = dask.compute(
            *[
                delayed(_samples_task)(a, b, c, args["ties"], args["pos_label"])
                for a, b, c in zip(Sd, Yd, Wd, strict=True)
            ],
            **kw,
        )
        total, weight = (float(sum(p[i] for p in parts)) for i in (0, 1))
        return _w.samples_mean(total, weight, where)

    def one(j, wj):
        return _ap_one(dask, where, wj, {**args, "scores": scores[:, j], "y": y[:, j]})

    return _w.columns_average(n_classes, w, average, where, one)


@fill_doc(_c.DOCS)
def auprc_ap(
    scores,
    y=None,
    *,
    score_col: str = "score",
    label_col: str = "label",
    ties: str = "average",
    max_positives: int = _c.DEFAULT_MAX_POSITIVES,
    rows_per_range: int = _c.DEFAULT_ROWS_PER_RANGE,
    split_every: int = 8,
    scheduler=None,
    pos_label=None,
    sample_weight=None,
    average: str | None = "binary",
):
    """Exact AP of a dask array or dataframe, computed on the cluster.

    Equal to :func:`pranker.auprc_ap` on the concatenated data (to rounding)
    in every tie mode; the method is that of :mod:`pranker.chunked`, run as
    tasks (see the module documentation). With ``sample_weight`` and
    ``average`` the meanings are scikit-learn's, as in
    :func:`pranker.auprc_ap`: a 2-D table (n_samples, n_classes) of scores
    and labels needs an ``average``.

    Parameters
    ----------
    scores : dask.array.Array or dask.dataframe.DataFrame
        Scores (higher first; 1-D, or a 2-D table with ``average``), or a dataframe
        holding the columns ``score_col`` and ``label_col`` (e.g. from
        ``dask.dataframe.read_parquet``).
    y : dask.array.Array or array_like, optional
        Labels for a dask array of scores (rechunked to the scores' chunks if
        needed): 0/1, False/True or -1/1 (1 is the positive class), or any
        values with ``pos_label``.
    score_col, label_col : str
        Column names for a dataframe.
    ties : {"average", "stable", "threshold", "optimistic", "pessimistic"}
        See :func:`pranker.auprc_ap`; ``"stable"`` follows partition order.
    split_every : int
        Fan-in of the reduction tree.
    scheduler : optional
        Passed to ``dask.compute``; by default the active
        ``distributed.Client`` (or dask's default scheduler).
    sample_weight : dask.array.Array or array_like, optional
        One weight per element of a dask array of scores: scikit-learn's
        weighted AP, with ``ties="threshold"`` only (positives gathered on the
        client, two passes of tasks).
    average : {"binary", "micro", "macro", "weighted", "samples"} or None
        For a 2-D table, as in :func:`pranker.auprc_ap`: ``"binary"`` (the
        default) refuses a table, ``"micro"`` ranks all entries together,
        ``"macro"``/``"weighted"``/``None`` take each column as a ranking,
        ``"samples"`` each row (one task per block of rows). Ignored for 1-D
        input.
    %(scale_ap_rest)s
    pranker : the same AP with its p-value against random ranking.
    pranker.chunked.auprc_ap_chunked : the same for files read chunk by chunk.

    References
    ----------
    .. [1] %(ref_lopes2014)s
    .. [2] %(ref_mcsherry2008)s

    Examples
    --------
    >>> import dask.array as da
    >>> s = da.from_array(np.array([0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3]), chunks=4)
    >>> y = np.array([1, 1, 1, 0, 0, 0, 1, 0, 1, 0])
    >>> round(auprc_ap(s, y, scheduler="sync"), 6)
    0.966667
    >>> round(auprc_ap(s, np.where(y == 1, "spam", "ham"), pos_label="spam",
    ...                scheduler="sync"), 6)
    0.966667
    """
    where = "pranker.dask.auprc_ap"
    check_ties(ties, where)
    check_average(average, where)
    if sample_weight is not None:
        check_weighted_ties(ties, where)
    args = _c.arguments_of(_auprc, locals())
    dask = _require_dask()
    if y is not None and (is_matrix(scores) or is_matrix(y)):
        return _ap_table(dask, where, scores, y, sample_weight, average, args)
    return _ap_one(dask, where, sample_weight, args)[0]


@fill_doc(_c.DOCS)
def pranker(
    scores,
    y=None,
    params=None,
    conf_level: float = 0.95,
    *,
    pos_label=None,
    score_col: str = "score",
    label_col: str = "label",
    ties: str = "average",
    max_positives: int = _c.DEFAULT_MAX_POSITIVES,
    rows_per_range: int = _c.DEFAULT_ROWS_PER_RANGE,
    split_every: int = 8,
    scheduler=None,
    method: str | None = None,
    rtol: float | None = None,
    n_draws: int | None = None,
    seed: int | None = None,
    alpha: float | None = None,
    max_nodes: int | None = None,
    progress: bool | None = None,
) -> PrankerResult:
    """:func:`pranker.pranker` on a dask array or dataframe: AUPRC and its p-value.

    The AP is that of :func:`auprc_ap`, computed on the cluster; the null and
    the p-value need only AP, N and P and are computed on the client, as
    :func:`pranker.significance_from_ap` does.

    Parameters
    ----------
    scores, y, score_col, label_col, ties, split_every, scheduler
        The data and where the work runs, as in :func:`auprc_ap`.
    %(scale_pranker_rest)s
    auprc_ap : the AP alone.
    pranker.chunked.pranker_chunked : the same for files read chunk by chunk.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    >>> import dask.array as da
    >>> y = np.array([1, 1, 1, 0, 0, 0, 1, 0, 1, 0])
    >>> s = np.array([0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3])
    >>> res = pranker(da.from_array(s, chunks=4), y, scheduler="sync")
    >>> round(res.auprc, 4), res.n, res.n_pos, res.method, round(res.pvalue, 4)
    (0.9667, 10, 5, 'exact', 0.0079)
    >>> import pranker as pk
    >>> res == pk.pranker(s, y)  # the same answer as in memory
    True
    """
    options = _c.check_significance_args("pranker.dask.pranker", ties, locals())
    ap, n, n_pos = _auprc(**_c.arguments_of(_auprc, locals()))
    return _c.result_from_ap(ap, n, n_pos, options, ties)
