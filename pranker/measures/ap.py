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

from .._numba import rankcount
from .._numba import tiegroups as _k_tiegroups
from .._validation import check_no_nan, check_scores_labels, check_ties, score_label_aliases

__all__ = ["auprc_ap", "tie_groups", "ap_from_tie_groups"]


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


def _count_piece(piece: np.ndarray, vals: np.ndarray):
    srt = np.sort(piece)  # releases the GIL
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
    check_ties(ties)
    if ties == "stable":
        raise ValueError(
            "ties='stable' depends on input order and cannot be computed from tie-group counts; "
            "use auprc_ap on the scores themselves."
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


@score_label_aliases
def auprc_ap(scores, y, *, ties: str = "average", pos_label=None) -> float:
    """AUPRC as average precision: AP = (1/P) sum_k k / r_k.

    Parameters
    ----------
    scores : array_like of float, any shape
        Higher scores are ranked first. ``+inf`` and ``-inf`` are allowed and
        ranked; NaN is an error. Flattened.
    y : array_like, same number of elements as ``scores``
        Gold standard, binary: 0/1, False/True or -1/1, where 1 (True) marks
        a positive. Other labels (more values, strings) need ``pos_label``.
    ties : {"average", "stable", "threshold", "optimistic", "pessimistic"}
        How tied scores are ordered; see the module documentation.
    pos_label : scalar, optional
        The label of the positive class, e.g. ``"spam"``: positives are
        ``y == pos_label`` and every other label is a negative. It must occur
        in ``y``.
    y_score, y_true : array_like, keyword only
        scikit-learn's names for ``scores`` and ``y``; give each argument once.

    Instances masked in ``scores`` or ``y`` (numpy masked arrays) are left out.

    Returns
    -------
    float
        The average precision, in ``[min_auprc(N, P), 1]``.

    Raises
    ------
    ValueError
        NaN scores, size mismatch, empty input, no positive, labels that are
        not binary (without ``pos_label``), or scores that are all 0/1 with
        labels that are not, which looks like ``(y_true, y_score)`` order.
    TypeError
        Non-numeric input.

    See Also
    --------
    pranker : the AUPRC with its p-value against random ranking.
    pr_curve : the precision-recall curve; ``average_precision()`` of a curve.
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
    >>> auprc_ap(y_true=["spam", "ham", "spam"], y_score=[0.9, 0.5, 0.1], pos_label="spam")
    0.8333333333333333
    """
    check_ties(ties)
    s, yb = check_scores_labels(scores, y, pos_label=pos_label, where="auprc_ap", check_nan=False)
    return auprc_validated(s, yb, ties, where="auprc_ap")
