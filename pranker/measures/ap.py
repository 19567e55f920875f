"""Average precision (the AUPRC of R pranker) with exact tie handling.

AP = (1/P) sum_k k / r_k, where r_k is the rank (1 = best score) of the k-th
positive. Equivalently AP = (1/P) sum_i y_i S_i / i over positions i, with
S_i the number of positives among the first i. This is the "average maximum
precision" of Lopes & Bontempi (2014) and TREC's non-interpolated AP.

Ties are where implementations disagree; every mode here is exact:

``"average"``
    The expected AP over uniformly random orders of tied items (McSherry &
    Najork, 2008): invariant to input order. Closed form per tied group.
``"stable"``
    Ties broken by input order (what R pranker and VLFeat's ``vl_pr`` do).
``"threshold"``
    Each tied group is one operating point: AP = sum over thresholds of
    (R_t - R_{t-1}) P_t, the value of scikit-learn's ``average_precision_score``.
``"optimistic"`` / ``"pessimistic"``
    Positives ranked first / last within each tied group.

Every mode needs, per distinct positive score, how many items and positives
score higher and how many share it. When positives are a small share of the
items, only the positives' scores are sorted and one pass over all scores
drops each into its bucket among them (:mod:`pranker._numba.rankcount`, in
parallel), well below the cost of sorting the scores. Otherwise the scores
are sorted with ``numpy.sort`` (one piece per core, in threads: the counts
need no merge) and every tie group is read by a galloping search.
"""

from __future__ import annotations

import os

import numpy as np

from .._docs import MEASURE_DOCS, fill_doc
from .._numba import curves as _k_curves
from .._numba import rankcount
from .._numba import rows as _k_rows
from .._numba import tiegroups as _k_tiegroups
from .._validation import (
    check_average,
    check_each_row,
    check_no_nan,
    check_row_weights,
    check_rows,
    check_scores_labels,
    check_table_shapes,
    check_ties,
    check_weighted_pair,
    check_weighted_ties,
    is_matrix,
    matrix_error,
    score_label_aliases,
)

__all__ = ["auprc_ap", "average_precision_many", "tie_groups", "ap_from_tie_groups"]


def tie_groups(scores: np.ndarray, y: np.ndarray):
    """Tie groups that contain at least one positive, best score first.

    Parameters
    ----------
    scores : ndarray of float64, shape (N,)
        Validated scores (no NaN).
    y : ndarray of bool, shape (N,)

    Returns
    -------
    greater, n_tied, pos_greater, pos_tied : ndarray of int64, shape (G,)
        For each distinct score held by a positive, from the highest: the
        number of items scoring strictly higher, the number of items with that
        score, and the same two counts restricted to positives.

    See Also
    --------
    ap_from_tie_groups : the AP from these counts, in every tie mode but ``"stable"``.

    Examples
    --------
    >>> s = np.array([0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3])
    >>> y = np.array([1, 1, 1, 0, 0, 0, 1, 0, 1, 0], dtype=bool)
    >>> [a.tolist() for a in tie_groups(s, y)]
    [[0, 1, 5], [1, 3, 1], [0, 1, 4], [1, 3, 1]]
    """
    return _tie_groups(scores, y, int(np.count_nonzero(y)))


def _tie_groups(
    scores: np.ndarray, y: np.ndarray, n_pos: int, where=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`tie_groups`; with ``where`` given the scores may hold NaN (then raise).

    On the rank-count path the NaN check rides along the sort of the
    positives' scores and the counting pass; the sort path checks first.
    """
    n = scores.shape[0]
    if n_pos == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    _, vals, runs = _reference(scores, y, where)
    if _rank_count_pays(n, n_pos, vals.shape[0]):
        cnt, _, _, _ = _bucket_counts(scores, vals, _NO_INDEX, where)
        return rankcount.groups_from_counts(cnt, runs)
    if where is not None:
        check_no_nan(scores, where=where)
    lo, hi = _count_below_and_at(scores, vals)
    ends = np.cumsum(runs)
    greater = (n - hi)[::-1].astype(np.int64)
    n_tied = (hi - lo)[::-1].astype(np.int64)
    pos_greater = (n_pos - ends)[::-1].astype(np.int64)
    pos_tied = runs[::-1].astype(np.int64)
    return greater, n_tied, pos_greater, pos_tied


# When to count instead of sort. Counting costs a sort of the P reference
# scores plus one table lookup per score, fast while the tables over the D
# distinct reference scores stay in cache; sorting all N scores (one piece
# per core) wins when P is a large share of N or D is large.
_RANK_COUNT_MAX_SHARE = 0.2
_RANK_COUNT_MAX_DISTINCT = 1 << 16  # always counted up to this many distinct values
_RANK_COUNT_DISTINCT_SHARE = 64  # else up to N / 64 of them
# Below this many scores one sort takes well under a millisecond: counting
# would save microseconds, and its kernels take seconds to compile on first use.
_RANK_COUNT_MIN_N = 1 << 14
_NO_INDEX = np.zeros(0, dtype=np.int64)


def _rank_count_pays(
    n: int, n_ref: int, n_distinct: int | None = None, *, stable: bool = False
) -> bool:
    """Whether counting among the reference scores beats sorting all ``n`` scores.

    ``n_distinct`` (once known) is the number of distinct reference scores.
    Below ``_RANK_COUNT_MIN_N`` scores the sort is used, except for
    ``stable`` ties, whose two paths add up the AP in different orders (the
    value of small inputs is kept to the last bit).
    """
    if n_ref > _RANK_COUNT_MAX_SHARE * n or (n < _RANK_COUNT_MIN_N and not stable):
        return False
    return n_distinct is None or n_distinct <= max(
        _RANK_COUNT_MAX_DISTINCT, n // _RANK_COUNT_DISTINCT_SHARE
    )


def _threads() -> int:
    return rankcount.default_threads()


def _reference(scores: np.ndarray, mask: np.ndarray, where=None, want=True):
    """Indices i with ``mask[i] == want``, and their distinct scores and runs.

    With ``where`` given (scores not yet
    checked for NaN), a NaN among these scores raises the error of
    :func:`pranker._validation.check_scores`: NaN sorts last, so one compare
    after the sort finds it.
    """
    idx = np.flatnonzero(mask if want else ~mask)
    ref = scores[idx]
    ref.sort()
    if where is not None and ref.shape[0] and ref[-1] != ref[-1]:
        check_no_nan(scores, where=where)
    vals, runs = rankcount.distinct_runs(ref)
    return idx, vals, runs


def _bucket_counts(scores: np.ndarray, vals: np.ndarray, idx: np.ndarray, where=None):
    """:func:`rankcount.bucket_counts`; with ``where`` given, raise if a score is NaN.

    The counting pass counts the NaN it meets; only when it saw one are the
    scores searched again, for the count and first index of the message.
    """
    cnt, bounds, snap, kpos, n_nan = rankcount.bucket_counts_nan(scores, vals, idx, _threads())
    if n_nan and where is not None:
        check_no_nan(scores, where=where)
    return cnt, bounds, snap, kpos


_PARALLEL_MIN = 1 << 20  # below this, one sort in the calling thread


def _sorted_parts(scores: np.ndarray) -> list:
    """``scores`` cut into one piece per core (at most 8); a single piece when small."""
    workers = min(os.cpu_count() or 1, 8)
    if workers < 2 or scores.shape[0] < _PARALLEL_MIN:
        return [scores]
    return np.array_split(scores, workers)


# Up to this many sorted scores and distinct values together, numpy's searchsorted counts
# them (about 0.2 ms at 10^4) and no search kernel is compiled on a first small AP; beyond,
# the galloping walk is up to 12 times faster. The counts are integers: the same either way.
_NUMPY_SEARCH_MAX = 1 << 15


def _count_piece(piece: np.ndarray, vals: np.ndarray):
    srt = np.sort(piece)  # releases the GIL
    if srt.shape[0] + vals.shape[0] <= _NUMPY_SEARCH_MAX:
        lo = np.searchsorted(srt, vals, "left").astype(np.int64, copy=False)
        return lo, np.searchsorted(srt, vals, "right").astype(np.int64, copy=False)
    lo = np.empty(vals.shape[0], dtype=np.int64)
    hi = np.empty(vals.shape[0], dtype=np.int64)
    _k_tiegroups.sorted_search_both(srt, vals, lo, hi)  # numba releases it too (nogil)
    return lo, hi


def _count_below_and_at(scores: np.ndarray, vals: np.ndarray):
    """For ascending ``vals``: #scores < v and #scores <= v, as searchsorted left/right.

    One piece of ``scores`` per core is sorted and searched in its own thread;
    the counts of the pieces add up, so no merge is needed. On k cores this
    divides the time of the sort by about k.
    """
    pieces = _sorted_parts(scores)
    if len(pieces) == 1:
        return _count_piece(pieces[0], vals)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(pieces)) as pool:
        parts = list(pool.map(lambda piece: _count_piece(piece, vals), pieces))
    lo = np.sum([p[0] for p in parts], axis=0)
    hi = np.sum([p[1] for p in parts], axis=0)
    return lo, hi


def ap_from_tie_groups(greater, n_tied, pos_greater, pos_tied, n_pos: int, ties: str = "average"):
    """Average precision from tie-group counts (see :func:`tie_groups`).

    This is the reduction that distributed and out-of-core code uses: any
    source that can count, for each distinct positive score, the items and
    positives above it and tied with it gets the exact AP in every mode
    except ``"stable"`` (which depends on input order).

    Parameters
    ----------
    greater, n_tied, pos_greater, pos_tied : array_like of int, shape (G,)
        For each distinct score held by a positive, from the highest: the
        number of items scoring strictly higher, the number of items with that
        score, and the same two counts restricted to positives (the output of
        :func:`tie_groups`, or sums of such counts over chunks).
    n_pos : int
        Number of positives P.
    ties : {"average", "threshold", "optimistic", "pessimistic"}
        Tie mode, as in :func:`auprc_ap`.

    Returns
    -------
    float
        The average precision.

    Raises
    ------
    ValueError
        An unknown tie mode, or ``ties="stable"`` (it needs the input order).

    See Also
    --------
    tie_groups, auprc_ap

    Examples
    --------
    >>> s = np.array([0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3])
    >>> y = np.array([1, 1, 1, 0, 0, 0, 1, 0, 1, 0], dtype=bool)
    >>> round(ap_from_tie_groups(*tie_groups(s, y), n_pos=5), 4)
    0.9667
    """
    check_ties(ties, "ap_from_tie_groups")
    if ties == "stable":
        raise ValueError(
            "ap_from_tie_groups: ties='stable' depends on input order and cannot be computed "
            "from tie-group counts; use auprc_ap on the scores themselves."
        )
    g, t, pg, pt = (
        np.ascontiguousarray(a, dtype=np.int64) for a in (greater, n_tied, pos_greater, pos_tied)
    )
    return float(
        _k_tiegroups.ap_from_groups(g, t, pg, pt, int(n_pos), _k_tiegroups.MODE_CODES[ties])
    )


def _stable_ranks(scores: np.ndarray, y: np.ndarray) -> np.ndarray:
    # stable argsort of -scores: ties keep input order, best score first
    order = np.argsort(-scores, kind="stable")
    return (np.flatnonzero(y[order]) + 1).astype(np.int64)


def auprc_validated(s: np.ndarray, yb: np.ndarray, ties: str, where=None) -> float:
    """AP of input already validated at a public boundary: no check is repeated.

    ``s`` and ``yb`` are what :func:`pranker._validation.check_scores_labels`
    returns (float64 scores, bool labels with at least one positive), ``ties``
    a checked tie mode. The layers above (``pranker()``, the uncertainty
    measures) call this after validating once. With ``where`` given, the
    scores may still hold NaN (validated with ``check_nan=False``): the NaN is
    then found in the passes over the scores made anyway, and raised with the
    message of ``check_scores`` for ``where``.
    """
    n_pos = int(np.count_nonzero(yb))
    if ties == "stable":
        if _rank_count_pays(s.shape[0], n_pos, stable=True):
            idx, vals, runs = _reference(s, yb, where)
            if _rank_count_pays(s.shape[0], n_pos, vals.shape[0], stable=True):
                cnt, bounds, snap, kpos = _bucket_counts(s, vals, idx, where)
                return float(rankcount.stable_ap(cnt, bounds, runs, idx, snap, kpos))
        if where is not None:
            check_no_nan(s, where=where)
        return float(_k_tiegroups.ap_from_ranks(_stable_ranks(s, yb), n_pos))
    if where is not None and not _rank_count_pays(s.shape[0], n_pos):
        check_no_nan(s, where=where)
        where = None
    groups = _tie_groups(s, yb, n_pos, where)
    return float(_k_tiegroups.ap_from_groups(*groups, n_pos, _k_tiegroups.MODE_CODES[ties]))


# ---------------------------------------------------------------------------
# weighted AP and one AP per row
# ---------------------------------------------------------------------------


def _weighted_ap_rows(s: np.ndarray, yb: np.ndarray, w: np.ndarray, ties: str) -> np.ndarray:
    """AP of each row of (R, N) scores with weights (zero weights allowed; each row must
    hold positive weight on a positive), ties ``"threshold"`` or ``"stable"``.

    AP = sum_i w_i y_i prec_i / sum_i w_i y_i over the items in the order of
    decreasing score (input order within ties). With ``"stable"`` prec_i is the
    weighted precision of the items up to i; with ``"threshold"`` that of the
    items up to the end of i's tie group: the same sum as scikit-learn's
    sum over thresholds of (R_t - R_{t-1}) P_t.
    """
    order = np.argsort(-s, axis=1, kind="stable")
    ys = np.take_along_axis(yb, order, axis=1)
    ws = np.take_along_axis(w, order, axis=1)
    wpos = np.where(ys, ws, 0.0)
    tp = np.cumsum(wpos, axis=1)
    fp = np.cumsum(np.where(ys, 0.0, ws), axis=1)
    if ties == "threshold":
        ss = np.take_along_axis(s, order, axis=1)
        n = s.shape[1]
        last = np.ones(s.shape, dtype=bool)
        last[:, :-1] = ss[:, 1:] != ss[:, :-1]
        # index of the end of each item's tie group: a running minimum from the right
        end = np.where(last, np.arange(n), n)
        end = np.minimum.accumulate(end[:, ::-1], axis=1)[:, ::-1]
        tp = np.take_along_axis(tp, end, axis=1)
        fp = np.take_along_axis(fp, end, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.where(wpos > 0, tp / (tp + fp), 0.0)
    return np.sum(wpos * prec, axis=1) / np.sum(wpos, axis=1)


def _weighted_threshold_ap(s: np.ndarray, yb: np.ndarray, w: np.ndarray) -> float:
    """Weighted AP of one ranking with ``ties="threshold"`` (weights > 0, a positive among them).

    The threshold curve's counts (one stable argsort, then one pass of
    :func:`pranker._numba.curves.threshold_curve_weighted`, as
    :func:`pr_curve`), then sum over thresholds of (tp_t - tp_{t-1}) P_t / tp_end.
    """
    order = np.argsort(s, kind="stable")
    vals = s[order]
    ys = yb[order]
    ws = w[order]
    d = _k_curves.count_distinct_sorted(vals)
    thr, tp, fp = (np.empty(d + 1) for _ in range(3))
    _k_curves.threshold_curve_weighted(
        vals, np.where(ys, ws, 0.0), np.where(ys, 0.0, ws), thr, tp, fp
    )
    return float(np.dot(np.diff(tp), tp[1:] / (tp[1:] + fp[1:])) / tp[-1])


def ap_of_rows(s: np.ndarray, yb: np.ndarray, ties: str, w: np.ndarray | None = None) -> np.ndarray:
    """AP of each row of validated (R, N) float64 scores and bool labels.

    Every row holds a positive (of nonzero weight when weighted); ``ties`` is
    checked, and with weights ``(R, N)`` one of ``"threshold"``, ``"stable"``.
    Weighted rows in numpy (:func:`_weighted_ap_rows`); the others by the row
    kernel of ``pranker_many``, :func:`pranker._numba.rows.ap_rows` (no sort:
    each row counted among its positives' scores), ``"stable"`` with its sum
    added best rank first, as this function always has.
    """
    if w is not None:
        return _weighted_ap_rows(s, yb, w, ties)
    if ties == "stable":
        mode = _k_rows.MODE_STABLE_BEST_FIRST
    else:
        mode = _k_tiegroups.MODE_CODES[ties]
    R = s.shape[0]
    ap = np.empty(R)
    n_valid = np.empty(R, dtype=np.int64)
    n_pos = np.empty(R, dtype=np.int64)
    status = np.empty(R, dtype=np.int8)
    _k_rows.ap_rows(
        np.ascontiguousarray(s, dtype=np.float64),
        np.ascontiguousarray(yb, dtype=np.bool_),
        np.ones((1, 1), dtype=np.bool_),
        False,
        mode,
        0,
        R,
        ap,
        n_valid,
        n_pos,
        status,
    )
    return ap


def _ravel(x):
    """``x`` flattened, keeping a numpy mask."""
    return x.ravel() if np.ma.isMaskedArray(x) else np.ravel(x)


def average_table(
    where: str,
    scores,
    y,
    sample_weight,
    average,
    pos_label,
    binary,
    rows,
):
    """A binary measure of a 2-D (n_samples, n_classes) table, averaged as in scikit-learn.

    ``binary(scores, y, sample_weight)`` is the measure of one ranking (given
    the flattened table for ``average="micro"``); ``rows(S, Y, W, axis)`` the
    measure of each row of validated (R, N) arrays, ``W`` None or (R, N)
    weights, raising for a bad ``axis`` ("column" or "row") itself.

    ``"macro"``: the mean over columns; ``"weighted"``: weighted by each
    column's (weighted) number of positives; ``"samples"``: the mean over rows
    (each row a ranking of the classes, unweighted), weighted by
    ``sample_weight``; ``None``: one value per column.
    """
    if average == "binary":
        raise matrix_error(where, scores, y)
    if average == "micro":
        w = sample_weight
        if w is not None and np.ndim(scores) == 2 and np.shape(w) == np.shape(scores)[:1]:
            # scikit-learn: each sample's weight on each of its classes
            w = np.repeat(
                np.ma.filled(w, 0.0) if np.ma.isMaskedArray(w) else w, np.shape(scores)[1]
            )
        return binary(_ravel(scores), _ravel(y), w)
    n_samples, n_classes = check_table_shapes(scores, y, where, average)
    if average == "samples":
        S, Y = check_rows(scores, y, where, pos_label)
        if sample_weight is None:
            return float(np.mean(rows(S, Y, None, "row")))
        w = check_row_weights(sample_weight, (1, n_samples), where)[0]
        used = w > 0
        if not used.any():
            raise ValueError(f"{where}: every sample_weight is 0: the average is undefined.")
        vals = rows(S[used], Y[used], None, "row")
        return float(np.average(vals, weights=w[used]))
    S, Y = check_rows(np.transpose(scores), np.transpose(y), where, pos_label)
    W = None
    if sample_weight is not None:
        W = check_row_weights(sample_weight, (n_classes, n_samples), where)
    vals = rows(S, Y, W, "column")
    if average is None:
        return vals
    if average == "macro":
        return float(np.mean(vals))
    support = (Y * (1.0 if W is None else W)).sum(axis=1)  # "weighted"
    return float(np.average(vals, weights=support))


def one_hot_multiclass(scores, y, pos_label, where: str):
    """``(scores, y)`` with 1-D labels of several classes one-hot encoded, as scikit-learn does.

    With 2-D scores of shape (n_samples, n_classes) and 1-D labels of
    n_samples taking more than two distinct values (scikit-learn's
    "multiclass" target; two values stay binary labels, which scikit-learn
    refuses with 2-D scores and the table path refuses with its own message), column j of the scores scores the j-th of the sorted distinct
    labels (scikit-learn's ``label_binarize(y, classes=np.unique(y))``): ``y``
    becomes the (n_samples, n_classes) table ``y[:, None] == classes``. Any
    other pair is returned as given. The number of distinct labels must be the
    number of columns, no label may be missing, and ``pos_label`` has no
    meaning here (scikit-learn refuses it too).
    """
    try:
        if np.ndim(scores) != 2 or np.ndim(y) != 1:
            return scores, y
        n_samples, n_classes = np.shape(scores)
    except ValueError:  # ragged input: the validation of the caller names it
        return scores, y
    if np.shape(y)[0] != n_samples or n_samples < 2 or n_classes < 2:
        return scores, y
    if np.ma.isMaskedArray(y) or np.ma.isMaskedArray(scores):
        raise ValueError(
            f"{where}: masked entries cannot be left out of a multiclass table (a sample "
            "would lose its class); drop those samples (rows) first."
        )
    labels = np.asarray(y)
    missing = (labels.dtype.kind == "f" and bool(np.isnan(labels).any())) or (
        labels.dtype.kind == "O" and any(v is None or v != v for v in labels)
    )
    if missing:
        raise ValueError(
            f"{where}: y has a missing (NaN or None) label; every sample needs its class: "
            "drop those samples or give them one."
        )
    try:
        classes = np.unique(labels)
    except TypeError as exc:
        raise ValueError(
            f"{where}: the labels in y cannot be sorted ({exc}); give labels of one type "
            "(all numbers or all strings)."
        ) from None
    if classes.size <= 2:  # binary labels, not scikit-learn's multiclass: left as given
        return scores, y
    if pos_label is not None:
        raise ValueError(
            f"{where}: pos_label={pos_label!r} has no meaning with 1-D labels of several "
            f"classes and 2-D scores: each class is the positive class of its own column "
            "(as in scikit-learn, which refuses pos_label here too). Leave pos_label out."
        )
    if classes.size != n_classes:
        shown = ", ".join(repr(c) for c in classes[:10].tolist())
        more = ", ..." if classes.size > 10 else ""
        raise ValueError(
            f"{where}: y has {classes.size} distinct labels ({shown}{more}) but scores has "
            f"{n_classes} columns. With 1-D labels of several classes, scores must have one "
            "column per class, in the sorted order of the labels (as scikit-learn's "
            "label_binarize); pass a one-hot table y of the scores' shape when a class is "
            "absent from y."
        )
    return scores, labels[:, None] == classes[None, :]


def _ap_table_rows(ties: str):
    def rows(S, Y, W, axis):
        if W is None:
            ok = Y.any(axis=1)
        else:
            ok = np.where(Y, W, 0.0).sum(axis=1) > 0
        check_each_row(
            ok,
            "auprc_ap",
            "has no positive (of nonzero weight): its AP is undefined (scikit-learn scores "
            f"it 0 with a warning); leave that {axis} out",
            axis,
        )
        return ap_of_rows(S, Y, ties, None if W is None else np.ascontiguousarray(W))

    return rows


@score_label_aliases
def auprc_ap(
    scores,
    y,
    *,
    ties: str = "average",
    pos_label=None,
    sample_weight=None,
    average: str | None = "binary",
):
    """AUPRC as average precision: AP = (1/P) sum_k k / r_k.

    Parameters
    ----------
    scores : array_like of float, shape (N,)
        Higher scores are ranked first. ``+inf`` and ``-inf`` are allowed and
        ranked; NaN is an error. A 2-D table (n_samples, n_classes) needs
        ``average``.
    y : array_like, same shape as ``scores``
        Gold standard, binary: 0/1, False/True or -1/1, where 1 (True) marks
        a positive. Other labels (more values, strings) need ``pos_label``.
        With a 2-D table of scores, 1-D labels of several classes are one-hot
        encoded as scikit-learn does: column j scores the j-th of the sorted
        distinct labels (their number must be the number of columns).
    ties : {"average", "stable", "threshold", "optimistic", "pessimistic"}
        How tied scores are ordered; see the module documentation.
        ``"threshold"`` is scikit-learn's ``average_precision_score``; the
        default ``"average"`` differs from it when scores are tied.
    pos_label : scalar, optional
        The label of the positive class, e.g. ``"spam"``: positives are
        ``y == pos_label`` and every other label is a negative. It must occur
        in ``y``.
    sample_weight : array_like of float >= 0, shape (N,), optional
        Weight of each item (of each row of a table); weight 0 leaves the
        item out. Defined for ``ties="threshold"``, where the value is that
        of scikit-learn's ``average_precision_score(..., sample_weight=)``
        and an integer weight w counts as w copies, and for
        ``ties="stable"`` (each item one operating point, ties broken by
        input order, as ``pr_curve(..., ties="stable",
        sample_weight=w).average_precision()``). The other tie modes average
        over orders of tied items and have no weighted meaning: an error.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None
        For a 2-D table of shape (n_samples, n_classes) with one column of
        labels per class (scikit-learn's multilabel layout). ``"binary"``
        (default): one ranking only; a table is an error that names the
        choices. ``"micro"``: all entries ranked together (the flattened
        arrays, as R's pranker and :func:`pranker` compute);
        ``"macro"``: the mean of the columns' APs (scikit-learn's default);
        ``"weighted"``: their mean weighted by each column's (weighted)
        number of positives; ``"samples"``: the mean over rows of each row's
        AP across the classes, weighted by ``sample_weight``; ``None``: the
        array of the columns' APs. Ignored for one ranking, as in
        scikit-learn.
    y_score, y_true : array_like, keyword only
        scikit-learn's names for ``scores`` and ``y``; give each argument once.

    Instances masked in ``scores``, ``y`` or ``sample_weight`` (numpy masked
    arrays) are left out (``average="micro"`` or one ranking only).

    Returns
    -------
    float or ndarray
        The average precision, in ``[min_auprc(N, P), 1]``; with
        ``average=None`` one per column.

    Raises
    ------
    ValueError
        NaN scores, a missing (NaN or None) label, size mismatch, empty
        input, no positive (of nonzero weight; in a table: a column or row
        without one), labels that are not binary (without ``pos_label``), a
        ``pos_label`` that does not occur, scores that are all 0/1 with
        labels that are not (which looks like ``(y_true, y_score)`` order),
        an unknown tie mode, a tie mode that has no weighted meaning with
        ``sample_weight``, weights that are negative, not finite or not one
        per item, or a table without ``average``. String labels without
        ``pos_label``, complex or ragged input, non-numeric weights and an
        unknown ``average`` raise :class:`~pranker.InputError`,
        a ValueError that is also a TypeError.
    TypeError
        Non-numeric scores, or ``None`` among them.

    See Also
    --------
    pranker : the AUPRC with its p-value against random ranking.
    pr_curve : the precision-recall curve; ``average_precision()`` of a curve.
    average_precision_many : one AP per row of a 2-D score array.
    auprc_ap_chunked : the same AP for data that does not fit in memory.

    References
    ----------
    .. [1] M. Lopes and G. Bontempi, "On the null distribution of the precision
       and recall curve", ECML PKDD 2014, doi:10.1007/978-3-662-44851-9_21.
    .. [2] F. McSherry and M. Najork, "Computing information retrieval
       performance measures efficiently in the presence of tied scores",
       ECIR 2008.

    Examples
    --------
    The example of the R package's README:

    >>> y = [1, 1, 1, 0, 0, 0, 1, 0, 1, 0]
    >>> s = [0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3]
    >>> round(auprc_ap(s, y), 6)  # positives at ranks 1, 2, 3, 4, 6
    0.966667
    >>> auprc_ap([0.5, 0.5], [1, 0], ties="optimistic"), auprc_ap([0.5, 0.5], [1, 0], ties="pessimistic")
    (1.0, 0.5)
    >>> auprc_ap([0.5, 0.5], [1, 0])  # E[1/r] with r uniform on {1, 2}
    0.75
    >>> auprc_ap([0.5, 0.5], [1, 0], ties="threshold")  # scikit-learn's value
    0.5
    >>> auprc_ap(y_true=["spam", "ham", "spam"], y_score=[0.9, 0.5, 0.1], pos_label="spam")
    0.8333333333333333
    >>> auprc_ap([0.9, 0.5, 0.1], [1, 0, 1], sample_weight=[1, 2, 1], ties="threshold")
    0.75

    A table (n_samples, n_classes) needs an average:

    >>> S = [[0.9, 0.1], [0.6, 0.7], [0.2, 0.8]]
    >>> Y = [[1, 0], [0, 1], [1, 1]]
    >>> auprc_ap(S, Y, average="macro"), auprc_ap(S, Y, average=None).tolist()
    (0.9166666666666666, [0.8333333333333333, 1.0])

    Labels of three classes in one column, one column of scores per class:

    >>> S3 = [[0.7, 0.2, 0.1], [0.3, 0.4, 0.3], [0.2, 0.3, 0.5], [0.5, 0.1, 0.4]]
    >>> auprc_ap(S3, ["a", "b", "c", "a"], average=None).tolist()
    [1.0, 1.0, 1.0]
    """
    where = "auprc_ap"
    check_ties(ties, where)
    check_average(average, where)
    if sample_weight is not None:
        check_weighted_ties(ties, where)
    scores, y_table = one_hot_multiclass(scores, y, pos_label, where)
    if y_table is not y:  # 1-D multiclass labels, now one column of labels per class
        y, pos_label = y_table, None
    if is_matrix(scores) or is_matrix(y):
        return average_table(
            where,
            scores,
            y,
            sample_weight,
            average,
            pos_label,
            lambda s, t, w: auprc_ap(s, t, ties=ties, pos_label=pos_label, sample_weight=w),
            _ap_table_rows(ties),
        )
    if sample_weight is None:
        s, yb = check_scores_labels(scores, y, pos_label=pos_label, where=where, check_nan=False)
        return auprc_validated(s, yb, ties, where=where)
    s, yb, w = check_weighted_pair(
        scores, y, sample_weight, need_neg=False, what="AP", where=where, pos_label=pos_label
    )
    if ties == "threshold":
        return _weighted_threshold_ap(s, yb, w)
    return float(_weighted_ap_rows(s[None, :], yb[None, :], w[None, :], ties)[0])


@fill_doc(MEASURE_DOCS)
@score_label_aliases
def average_precision_many(
    scores, y, *, ties: str = "average", pos_label=None, sample_weight=None
) -> np.ndarray:
    """Average precision of each row of a 2-D score array (one ranking per row).

    Parameters
    ----------
    scores : array_like, shape (R, N)
    y : array_like, shape (N,) shared by all rows, or (R, N)
        %(binary_labels)s.
    ties : str
        As in :func:`pranker.auprc_ap` (default ``"average"``).
    %(pos_label)s
    sample_weight : array_like of float >= 0, shape (N,) or (R, N), optional
        Item weights (shared by all rows, or one row of weights per ranking),
        as in :func:`pranker.auprc_ap`: with ``ties="threshold"``
        scikit-learn's weighted AP, with ``ties="stable"`` each item one
        operating point; the other tie modes have no weighted meaning and
        raise.

    Masked arrays with masked entries are refused (a row cannot drop items
    here); compute such rows one at a time with :func:`pranker.auprc_ap`.
    Rows are rankings: for scikit-learn's layout (n_samples, n_classes) use
    :func:`pranker.auprc_ap` with ``average=None``, or pass the transposes.

    Returns
    -------
    ndarray, shape (R,)
        ``auprc_ap(scores[r], y[r], ties=ties)`` for each row.

    Raises
    ------
    ValueError
        Scores that are not 2-D or are empty, NaN scores, a missing label,
        ``y`` or ``sample_weight`` of another shape, a row of ``y`` with no
        positive (of nonzero weight), labels that are not binary (without
        ``pos_label``), arguments that look swapped, masked entries, an
        unknown tie mode, a tie mode that has no weighted meaning with
        ``sample_weight``, or weights that are negative or not finite.
        String labels without ``pos_label``, complex or ragged input and
        non-numeric weights raise
        %(input_error)s.
    %(type_error)s

    See Also
    --------
    auprc_ap : One ranking.
    pranker_many : The same APs with their p-values.

    Examples
    --------
    >>> average_precision_many([[3, 2, 1], [1, 2, 3]], [1, 0, 1])
    array([0.83333333, 0.83333333])
    >>> average_precision_many([[3, 2, 1], [1, 2, 3]], [1, 0, 1], sample_weight=[1, 2, 1], ties="threshold")
    array([0.75, 0.75])
    """
    where = "average_precision_many"
    check_ties(ties, where)
    if sample_weight is not None:
        check_weighted_ties(ties, where)
    s, yb = check_rows(scores, y, where, pos_label)
    w = None
    if sample_weight is None:
        ok = yb.any(axis=1)
    else:
        w = np.ascontiguousarray(check_row_weights(sample_weight, s.shape, where))
        ok = np.where(yb, w, 0.0).sum(axis=1) > 0
    check_each_row(ok, where, "has no positive (of nonzero weight): AP is undefined there")
    return ap_of_rows(s, yb, ties, w)
