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

are the global tie groups of :func:`pranker.measures.ap.tie_groups`, hence the AP in the
``"average"``, ``"threshold"``, ``"optimistic"`` and ``"pessimistic"`` modes
(:func:`pranker.measures.ap.ap_from_tie_groups`). The algorithm is two passes:

1. gather the positives' scores (``O(P)`` memory) and count ``N``;
2. for each chunk, sort it (``numpy.sort``) and binary-search the sorted
   distinct positive scores into it: ``tied = hi - lo`` and
   ``between[j] = lo[j] - hi[j-1]``; add the vectors.

The work is one sort per chunk. The null moments need only ``N`` and ``P``
(:mod:`pranker.null`). The per-chunk steps live in :mod:`pranker.scale.counts`,
shared with :mod:`pranker.dask`; this module holds the sources and the two
passes as a loop.

Memory (peak, in-process): one chunk as read, plus what the count pass
allocates on top of it -- one sorted copy of its scores and the boolean label
mask, about ``1.1x`` the chunk's bytes for float32 scores with int8 labels
(``4.3x`` with ``ties="stable"``, up to ``5x`` in the fallback's split) --
plus ``O(P)``: the gathered positives (8 bytes each) and about 50 bytes per
distinct positive score for the count vectors and their temporaries. Nothing
grows with ``N``. Measured as resident memory above a warm process
(``benchmarks/bench_dask.py``, float32 + int8 Parquet, 2e7 rows): about
``4.5x`` the chunk's bytes ``+ 74 MB``; the difference from the numpy figures
is the Parquet reader (it decodes whole row groups and concatenates them into a
batch) and memory the allocators keep after a chunk is freed.

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
.. [1] %(ref_lopes2014)s
.. [2] %(ref_mcsherry2008)s
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

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
from ..measures.ap import auprc_ap
from ..significance.single import PrankerResult
from .counts import (  # noqa: F401  (re-exported: the per-chunk pieces live in .counts)
    DEFAULT_CHUNK_SIZE,
    DEFAULT_MAX_POSITIVES,
    DEFAULT_ROWS_PER_RANGE,
    DOCS,
    ChunkCounts,
    ap_from_counts,
    ap_from_total,
    arguments_of,
    check_range_totals,
    check_significance_args,
    check_totals,
    combine_counts,
    count_chunk,
    distinct_positive_scores,
    offsets_above,
    range_ap_sum,
    range_boundaries,
    result_from_ap,
    sample_weight,
    scan_chunk,
    split_by_range,
)
from .weighted import (
    columns_average,
    samples_mean,
    weight_at_or_above,
    weighted_ap,
    weighted_positives,
)

__doc__ = fill_doc()(__doc__)

__all__ = ["auprc_ap_chunked", "pranker_chunked"]


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
            for i, batch in enumerate(
                pf.iter_batches(batch_size=chunk_size, columns=[score_col, label_col])
            ):
                s = batch.column(0).to_numpy(zero_copy_only=False)
                y = batch.column(1).to_numpy(zero_copy_only=False)
                yield s, y, f"{f.name} batch {i}"

    return chunks


def _chunk_source(
    source, y, score_col: str, label_col: str, chunk_size: int
) -> Callable[[], Iterator]:
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

    def row_chunks():
        for start in range(0, n, chunk_size):
            stop = min(n, start + chunk_size)
            yield s_flat[start:stop], y_flat[start:stop], f"rows {start}:{stop}"

    return row_chunks


# ---------------------------------------------------------------------------
# drivers
# ---------------------------------------------------------------------------


def _pass1(chunks, max_positives: int, pos_label):
    n = 0
    n_pos = 0
    positives: list[np.ndarray] = []
    samples, weights = [], []
    codes = set()
    gather = True
    for s, lab, where in chunks():
        r = scan_chunk(s, lab, max_positives=max_positives, where=where, pos_label=pos_label)
        n += r.n
        n_pos += r.n_pos
        codes.add(r.negative_code)
        samples.append(r.sample)
        weights.append(sample_weight(r.n, r.sample))
        if gather and (r.positives is None or n_pos > max_positives):
            gather = False
            positives = []
        if gather:
            assert r.positives is not None  # gather stops at the first chunk without them
            positives.append(r.positives)
    check_totals(n, n_pos, "source", pos_label, codes)
    return n, n_pos, (np.concatenate(positives) if gather else None), samples, weights


def _auprc_counts(chunks, n, positives, ties, pos_label):
    vals, pos_counts = distinct_positive_scores(positives)
    total = None
    stable = ties == "stable"
    for s, lab, where in chunks():
        c = count_chunk(s, lab, vals, stable=stable, where=where, pos_label=pos_label)
        total = c if total is None else combine_counts(total, c)
    return ap_from_total(total, n, pos_counts, ties)


def _auprc_ranges(chunks, n, n_pos, samples, weights, ties, rows_per_range, tmp_dir, pos_label):
    bounds = range_boundaries(samples, weights, n, rows_per_range)
    k = bounds.shape[0] + 1
    n_r = np.zeros(k, dtype=np.int64)
    p_r = np.zeros(k, dtype=np.int64)
    with tempfile.TemporaryDirectory(prefix="pranker-ranges-", dir=tmp_dir) as d:
        sf = [Path(d) / f"r{r}.f8" for r in range(k)]
        lf = [Path(d) / f"r{r}.u1" for r in range(k)]
        for s, lab, where in chunks():
            parts = split_by_range(s, lab, bounds, where=where, pos_label=pos_label)
            for r, (xs, ys) in enumerate(parts):
                if xs.shape[0] == 0:
                    continue
                n_r[r] += xs.shape[0]
                p_r[r] += int(np.count_nonzero(ys))
                with open(sf[r], "ab") as fh:
                    xs.astype(np.float64).tofile(fh)
                with open(lf[r], "ab") as fh:
                    ys.astype(np.uint8).tofile(fh)
        check_range_totals(n_r, p_r, n, n_pos)
        above_n, above_p = offsets_above(n_r, p_r)
        total = 0.0
        for r in range(k - 1, -1, -1):
            if p_r[r] == 0:
                continue
            xs = np.fromfile(sf[r], dtype=np.float64)
            ys = np.fromfile(lf[r], dtype=np.uint8).astype(bool)
            total += range_ap_sum(xs, ys, int(above_n[r]), int(above_p[r]), ties)
    return total / n_pos


def _auprc_chunked(
    source,
    y,
    *,
    score_col,
    label_col,
    chunk_size,
    ties,
    max_positives,
    rows_per_range,
    tmp_dir,
    pos_label,
):
    check_ties(ties, "auprc_ap_chunked")  # pranker_chunked checked it under its own name
    max_positives = int(max_positives)
    chunks = _chunk_source(source, y, score_col, label_col, chunk_size)
    n, n_pos, positives, samples, weights = _pass1(chunks, max_positives, pos_label)
    if positives is not None:
        ap = _auprc_counts(chunks, n, positives, ties, pos_label)
    else:
        ap = _auprc_ranges(
            chunks, n, n_pos, samples, weights, ties, rows_per_range, tmp_dir, pos_label
        )
    return ap, n, n_pos


def _weighted_chunks(source, y, sample_weight, chunk_size, where):
    """The row chunks of score and label arrays, each with its weights."""
    if y is None or callable(source):
        raise ValueError(
            f"{where}: sample_weight= goes with arrays (or .npy files) of scores and labels "
            "y=, one weight per row; a parquet or callable source carries no weights."
        )
    chunks = _chunk_source(source, y, "score", "label", chunk_size)
    w = _open_array(sample_weight, "sample_weight")
    w_flat = w.reshape(-1) if hasattr(w, "reshape") else np.asarray(w).ravel()
    n = int(np.prod(np.shape(_open_array(source, "scores"))))
    if w_flat.shape[0] != n:
        raise ValueError(
            f"{where}: sample_weight has {w_flat.shape[0]} entries for {n} rows; give one "
            "weight per row."
        )

    def wchunks():
        start = 0
        for s, lab, name in chunks():
            stop = start + int(np.shape(s)[0])
            yield s, lab, w_flat[start:stop], name
            start = stop

    return wchunks


def _auprc_weighted(source, y, sample_weight, chunk_size, ties, pos_label, where):
    """Weighted AP (``ties="threshold"``) in two passes; the AP and the positives' weight."""
    if ties != "threshold":
        raise ValueError(
            f"{where}: with sample_weight, ties='threshold' (scikit-learn's weighted AP) is "
            f"computed chunk by chunk; got ties={ties!r}. The weighted 'stable' AP needs "
            "every positive's place in the input order: use pranker.auprc_ap in memory."
        )
    wchunks = _weighted_chunks(source, y, sample_weight, chunk_size, where)
    n = 0
    xs, ws, codes = [], [], set()
    for s, lab, w, name in wchunks():
        k, x, wp, code = weighted_positives(s, lab, w, where=name, pos_label=pos_label)
        n += k
        xs.append(x)
        ws.append(wp)
        codes.add(code)
    pos_x = np.concatenate(xs) if xs else np.empty(0)
    pos_w = np.concatenate(ws) if ws else np.empty(0)
    check_totals(n, int(pos_x.shape[0]), "source", pos_label, codes)

    def w_ge(vals):
        total = np.zeros(vals.shape[0])
        for s, _, w, name in wchunks():
            total += weight_at_or_above(s, w, vals, where=name)
        return total

    return weighted_ap(pos_x, pos_w, w_ge, where), float(pos_w.sum())


def _ap_one(where, sample_weight, args):
    """The AP of one ranking (flattened) and its support: positives, or their weight."""
    if sample_weight is None:
        ap, _, n_pos = _auprc_chunked(**args)
        return ap, float(n_pos)
    return _auprc_weighted(
        args["source"],
        args["y"],
        sample_weight,
        args["chunk_size"],
        args["ties"],
        args["pos_label"],
        where,
    )


def _ap_table(where, s, lab, sample_weight, average, args):
    """A 2-D table of scores and labels averaged as :func:`pranker.auprc_ap` averages it."""
    if average == "binary":
        raise matrix_error(where, s, lab)
    w = sample_weight
    if average == "micro":
        if w is not None and np.ndim(s) == 2 and np.shape(w) == np.shape(s)[:1]:
            w = np.repeat(np.asarray(w), np.shape(s)[1])  # each sample's weight on each class
        return _ap_one(where, w, {**args, "source": s, "y": lab})[0]
    n_samples, n_classes = check_table_shapes(s, lab, where, average)
    if average == "samples":  # each row a ranking of the classes: rows in memory, block by block
        step = max(1, int(args["chunk_size"]) // n_classes)
        total = weight = 0.0
        for start in range(0, n_samples, step):
            S = np.asarray(s[start : start + step])
            Y = np.asarray(lab[start : start + step])
            wb = None if w is None else np.asarray(w[start : start + step], dtype=np.float64)
            if wb is not None and not (wb > 0).any():
                continue
            kw = {"ties": args["ties"], "pos_label": args["pos_label"], "sample_weight": wb}
            m = auprc_ap(S, Y, average="samples", **kw)
            b = float(S.shape[0]) if wb is None else float(wb.sum())
            total += m * b
            weight += b
        return samples_mean(total, weight, where)

    def one(j, wj):
        return _ap_one(where, wj, {**args, "source": s[:, j], "y": lab[:, j]})

    return columns_average(n_classes, w, average, where, one)


@fill_doc(DOCS)
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
    pos_label=None,
    sample_weight=None,
    average: str | None = "binary",
):
    """Exact AP of scores too large for memory, read one chunk at a time.

    Equal to :func:`pranker.auprc_ap` on the concatenated data (to rounding)
    in every tie mode; see the module documentation for the method. With
    ``sample_weight`` and ``average`` the meanings are scikit-learn's, as in
    :func:`pranker.auprc_ap`: a 2-D table of scores and labels (arrays or
    ``.npy`` files of shape (n_samples, n_classes)) needs an ``average``.

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
        Labels when ``source`` holds scores only: 0/1, False/True or -1/1 (1
        is the positive class), or any values with ``pos_label``.
    score_col, label_col : str
        Parquet column names.
    chunk_size : int
        Rows per chunk for arrays and parquet files; memory is about
        ``chunk_size * 17`` bytes (float64 scores) plus ``~50 * G`` bytes for
        ``G <= P`` distinct positive scores (two count vector sets of 24 bytes
        per value) and the gathered positives.
    ties : {"average", "stable", "threshold", "optimistic", "pessimistic"}
        See :func:`pranker.auprc_ap`; ``"stable"`` follows the order of the chunks.
    tmp_dir : path, optional
        Fallback only: where the temporary range files go (removed after).
    sample_weight : array_like, memmap or path, optional
        One weight per row (arrays and ``.npy`` sources): scikit-learn's
        weighted AP, with ``ties="threshold"`` only (positives gathered in
        memory, two passes).
    average : {"binary", "micro", "macro", "weighted", "samples"} or None
        For a 2-D table, as in :func:`pranker.auprc_ap`: ``"binary"`` (the
        default) refuses a table, ``"micro"`` ranks all entries together,
        ``"macro"``/``"weighted"``/``None`` take each column as a ranking
        (one pass pair per column), ``"samples"`` each row (read in blocks of
        rows). Ignored for 1-D input.
    %(scale_ap_rest)s
    pranker_chunked : the same AP with its p-value against random ranking.
    pranker.dask.auprc_ap : the same on a Dask cluster.

    References
    ----------
    .. [1] %(ref_lopes2014)s
    .. [2] %(ref_mcsherry2008)s

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0, 1, 0, 1, 0]
    >>> s = [0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3]
    >>> round(auprc_ap_chunked(np.array(s), np.array(y), chunk_size=3), 6)
    0.966667
    >>> labels = np.where(np.array(y) == 1, "spam", "ham")
    >>> round(auprc_ap_chunked(np.array(s), labels, chunk_size=3, pos_label="spam"), 6)
    0.966667
    """
    where = "auprc_ap_chunked"
    check_ties(ties, where)
    check_average(average, where)
    if sample_weight is not None:
        check_weighted_ties(ties, where)
    args = arguments_of(_auprc_chunked, locals())
    if y is not None and not callable(source):
        s, lab = _open_array(source, "scores"), _open_array(y, "y")
        if is_matrix(s) or is_matrix(lab):
            return _ap_table(where, s, lab, sample_weight, average, args)
    return _ap_one(where, sample_weight, args)[0]


@fill_doc(DOCS)
def pranker_chunked(
    source,
    y=None,
    params=None,
    conf_level: float = 0.95,
    *,
    pos_label=None,
    score_col: str = "score",
    label_col: str = "label",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    ties: str = "average",
    max_positives: int = DEFAULT_MAX_POSITIVES,
    rows_per_range: int = DEFAULT_ROWS_PER_RANGE,
    tmp_dir: str | os.PathLike | None = None,
    method: str | None = None,
    rtol: float | None = None,
    n_draws: int | None = None,
    seed: int | None = None,
    alpha: float | None = None,
    max_nodes: int | None = None,
    progress: bool | None = None,
) -> PrankerResult:
    """:func:`pranker.pranker` for data read one chunk at a time: AUPRC and its p-value.

    The AP is that of :func:`auprc_ap_chunked` (exact, two passes over the
    data); the null and the p-value need only AP, N and P and are computed
    as :func:`pranker.significance_from_ap` does.

    Parameters
    ----------
    source, y, score_col, label_col, chunk_size, ties, tmp_dir
        The data and how it is read, as in :func:`auprc_ap_chunked`.
    %(scale_pranker_rest)s
    auprc_ap_chunked : the AP alone.
    pranker.dask.pranker : the same on a Dask cluster.

    References
    ----------
    .. [1] %(ref_lopes2014)s

    Examples
    --------
    >>> y = np.array([1, 1, 1, 0, 0, 0, 1, 0, 1, 0])
    >>> s = np.array([0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3])
    >>> res = pranker_chunked(s, y, chunk_size=4)
    >>> round(res.auprc, 4), res.n, res.n_pos, res.method, round(res.pvalue, 4)
    (0.9667, 10, 5, 'exact', 0.0079)
    >>> from pranker import pranker
    >>> res == pranker(s, y)  # the same answer as in memory
    True
    """
    options = check_significance_args("pranker_chunked", ties, locals())
    ap, n, n_pos = _auprc_chunked(**arguments_of(_auprc_chunked, locals()))
    return result_from_ap(ap, n, n_pos, options, ties)
