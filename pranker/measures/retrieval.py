"""Retrieval by distance threshold: precision, recall and rate at every radius.

A query retrieves every database item within distance ``r`` of it. Given a
relevance matrix (queries x database) and the distances -- or bit-packed
binary codes, whose Hamming distances are computed on the fly -- this module
returns, for all radii at once,

* per-query precision, recall and rate curves and their mean over queries,
* the pooled (pair-level) curves of the hashing literature's MATLAB
  ``recall_precision`` (see :func:`pranker.compat.recall_precision`),
* per-query average precision of the ranking by distance (tied distances
  handled as in :func:`pranker.auprc_ap`), e.g. for per-query significance.

One pass histograms the (query, item) pairs by distance bin; cumulative sums
over the bins give the counts inside every radius. No per-radius boolean
matrix and, for codes, no queries x database distance matrix is ever built:
memory beyond the inputs is O(queries x number of radii).

Conventions
-----------
* Item ``j`` is retrieved by query ``q`` at radius ``r`` iff ``d(q, j) <= r``.
* Precision with nothing retrieved (0/0) is ``empty_precision``, 0 by
  default: the convention of the hashing literature (a query whose Hamming
  ball is empty counts as precision 0, e.g. Liu et al. 2012). Pass
  ``empty_precision=1.0`` for the PR-curve convention (nothing retrieved, no
  mistake), or ``np.nan`` to leave such queries out of the mean.
* Recall of a query without relevant items is NaN; such queries are left out
  of ``mean_recall`` and ``mean_average_precision`` (their ``precision`` is
  still defined and counted).
* The pooled curves divide total counts: ``pooled_precision = sum_q good /
  sum_q retrieved``, ``pooled_recall = sum_q good / sum_q relevant``,
  ``pooled_rate = sum_q retrieved / (Q M)``.

References
----------
Y. Gong and S. Lazebnik, "Iterative quantization: a Procrustean approach to
learning binary codes", CVPR 2011.

W. Liu, J. Wang, R. Ji, Y.-G. Jiang and S.-F. Chang, "Supervised hashing with
kernels", CVPR 2012 (precision within Hamming radius 2, empty = 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._numba import retrieval as _rk
from .._numba import tiegroups as _k_tiegroups
from .._validation import _as_numeric_array, _first_nan_message, check_count, check_ties

__all__ = [
    "RadiusCurves",
    "radius_curves",
    "hamming_radius_curves",
    "hamming_distances",
    "pack_codes",
]

_MAX_BINS = 1 << 20


@dataclass(frozen=True, eq=False)
class RadiusCurves:
    """Counts inside every radius, and the curves derived from them.

    The counts are stored; the curves and the per-query AP are computed from
    them on access (see the module docstring for the conventions):
    ``precision``, ``recall`` and ``rate``, shape (Q, K), per query and
    radius; ``mean_precision``, ``mean_recall`` and ``mean_rate``, shape (K,),
    their means over queries; ``pooled_precision``, ``pooled_recall`` and
    ``pooled_rate``, shape (K,), from counts summed over queries; and
    ``n_queries``.

    Attributes
    ----------
    radii : ndarray, shape (K,)
        Increasing radii.
    retrieved : ndarray of int64, shape (Q, K)
        ``retrieved[q, k] = #{j : d(q, j) <= radii[k]}``.
    relevant_retrieved : ndarray, shape (Q, K)
        Relevant items among them.
    n_relevant : ndarray, shape (Q,)
        Relevant items of each query in the whole database.
    n_database : int
        Database size M.
    empty_precision : float
        Precision assigned where nothing is retrieved.

    Methods
    -------
    average_precision(ties="average")
        AP of each query's ranking by increasing distance, shape (Q,).
    mean_average_precision(ties="average")
        Its mean over the queries with relevant items (mAP).

    See Also
    --------
    radius_curves : the counts from a distance matrix.
    hamming_radius_curves : the counts from bit-packed binary codes.
    pranker.compat.recall_precision : the pooled curves in the form of the
        hashing literature's MATLAB function.

    Examples
    --------
    Two queries, four database items at distances 0, 1, 2, 3 from query 0
    and 2, 1, 0, 3 from query 1. Query 0 has its relevant items at distances
    0 and 2, query 1 its only one at distance 1.

    >>> from pranker import radius_curves
    >>> rel = np.array([[True, False, True, False], [False, True, False, False]])
    >>> dist = np.array([[0, 1, 2, 3], [2, 1, 0, 3]])
    >>> rc = radius_curves(rel, dist)
    >>> rc.retrieved.tolist(), rc.relevant_retrieved.tolist()
    ([[1, 2, 3, 4], [1, 2, 3, 4]], [[1, 1, 2, 2], [0, 1, 1, 1]])
    >>> rc.n_relevant.tolist(), rc.n_database
    ([2, 1], 4)
    >>> rc.recall.tolist()
    [[0.5, 0.5, 1.0, 1.0], [0.0, 1.0, 1.0, 1.0]]

    Ranked by distance, query 0 finds its relevant items at ranks 1 and 3,
    AP = (1/1 + 2/3) / 2 = 5/6, and query 1 at rank 2, AP = 1/2:

    >>> rc.average_precision().round(4).tolist()
    [0.8333, 0.5]
    >>> round(rc.mean_average_precision(), 4)
    0.6667
    """

    radii: np.ndarray
    retrieved: np.ndarray
    relevant_retrieved: np.ndarray
    n_relevant: np.ndarray
    n_database: int
    empty_precision: float = 0.0

    @property
    def n_queries(self) -> int:
        return int(self.retrieved.shape[0])

    # -- per query ------------------------------------------------------------
    @property
    def precision(self) -> np.ndarray:
        """(Q, K) precision per query and radius; ``empty_precision`` where 0/0."""
        out = np.full(self.retrieved.shape, self.empty_precision, dtype=np.float64)
        np.divide(self.relevant_retrieved, self.retrieved, out=out, where=self.retrieved > 0)
        return out

    @property
    def recall(self) -> np.ndarray:
        """(Q, K) recall per query and radius; NaN rows for queries without relevant items."""
        out = np.full(self.retrieved.shape, np.nan)
        nrel = self.n_relevant[:, None]
        np.divide(
            self.relevant_retrieved,
            nrel,
            out=out,
            where=np.broadcast_to(nrel > 0, out.shape),
        )
        return out

    @property
    def rate(self) -> np.ndarray:
        """(Q, K) fraction of the database retrieved."""
        return self.retrieved / float(self.n_database)

    # -- mean over queries ----------------------------------------------------
    @property
    def mean_precision(self) -> np.ndarray:
        """(K,) mean precision over queries (over defined ones if ``empty_precision`` is NaN)."""
        prec = self.precision
        if not math.isnan(self.empty_precision):
            return prec.mean(axis=0)
        defined = self.retrieved > 0
        n_def = defined.sum(axis=0)
        out = np.full(prec.shape[1], np.nan)
        np.divide(np.where(defined, prec, 0.0).sum(axis=0), n_def, out=out, where=n_def > 0)
        return out

    @property
    def mean_recall(self) -> np.ndarray:
        """(K,) mean recall over the queries that have relevant items."""
        has = self.n_relevant > 0
        return self.recall[has].mean(axis=0)

    @property
    def mean_rate(self) -> np.ndarray:
        """(K,) mean fraction of the database retrieved."""
        return self.rate.mean(axis=0)

    # -- pooled over pairs (the hashing MATLAB function) ---------------------
    @property
    def pooled_precision(self) -> np.ndarray:
        """(K,) total relevant retrieved / total retrieved (``empty_precision`` where 0/0)."""
        good = self.relevant_retrieved.sum(axis=0, dtype=np.float64)
        ret = self.retrieved.sum(axis=0, dtype=np.float64)
        out = np.full(ret.shape, self.empty_precision)
        np.divide(good, ret, out=out, where=ret > 0)
        return out

    @property
    def pooled_recall(self) -> np.ndarray:
        """(K,) total relevant retrieved / total relevant pairs."""
        total = float(self.n_relevant.sum(dtype=np.float64))
        return self.relevant_retrieved.sum(axis=0, dtype=np.float64) / total

    @property
    def pooled_rate(self) -> np.ndarray:
        """(K,) retrieved pairs / all pairs."""
        return self.retrieved.sum(axis=0, dtype=np.float64) / (
            float(self.n_queries) * float(self.n_database)
        )

    # -- average precision of the ranking by distance ------------------------
    def average_precision(self, ties: str = "average") -> np.ndarray:
        """(Q,) AP of each query's ranking by increasing distance bin.

        Items in the same bin (the same distance, for integer distances with
        the default radii) are tied; items beyond the largest radius form one
        last tied group, so every relevant item is ranked. ``ties`` is any mode
        of :func:`pranker.auprc_ap` except ``"stable"``: ``"average"`` is the
        expected AP over random orders inside each group (McSherry & Najork
        2008), ``"threshold"`` one operating point per radius (scikit-learn's
        ``average_precision_score`` on ``-distance``). NaN for queries
        without relevant items.

        References
        ----------
        .. [1] F. McSherry and M. Najork, "Computing information retrieval
           performance measures efficiently in the presence of tied scores",
           ECIR 2008.
        """
        check_ties(ties)
        if ties == "stable":
            raise ValueError(
                "ties='stable' needs the input order inside each distance bin, which the "
                "histogram does not keep; use 'average', 'threshold', 'optimistic' or "
                "'pessimistic', or pranker.auprc_ap(-distances[q], relevance[q]) per query."
            )
        count = np.diff(self.retrieved, axis=1, prepend=0, append=self.n_database)
        good = np.diff(self.relevant_retrieved, axis=1, prepend=0, append=self.n_relevant[:, None])
        out = np.empty(self.n_queries)
        _rk.ap_per_query(
            np.ascontiguousarray(count, dtype=np.int64),
            np.ascontiguousarray(good, dtype=np.int64),
            _k_tiegroups.MODE_CODES[ties],
            out,
        )
        return out

    def mean_average_precision(self, ties: str = "average") -> float:
        """Mean of :meth:`average_precision` over the queries with relevant items (mAP)."""
        ap = self.average_precision(ties)
        return float(np.mean(ap[self.n_relevant > 0]))


# ---------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------


def _check_empty_precision(value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(
            f"empty_precision must be a number in [0, 1] or NaN; got {value!r}."
        ) from None
    if not (math.isnan(v) or 0.0 <= v <= 1.0):
        raise ValueError(f"empty_precision must lie in [0, 1] (or be NaN); got {value!r}.")
    return v


def query_matrix(x, name: str) -> np.ndarray:
    """``x`` as a numeric 2-D (queries x database) matrix without NaN; a 1-D array is one query."""
    arr = _as_numeric_array(x, name)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D (queries x database) matrix; got {arr.ndim} dimensions "
            f"(shape {arr.shape})."
        )
    if arr.dtype.kind == "f":
        nan = np.isnan(arr)
        if nan.any():
            raise ValueError(_first_nan_message(nan.ravel(), name))
    return arr


def _check_relevance(relevance, name: str = "relevance") -> np.ndarray:
    arr = query_matrix(relevance, name)
    if arr.dtype != np.bool_:
        bad = (arr != 0) & (arr != 1)
        if bad.any():
            raise ValueError(
                f"{name} must be boolean or 0/1; found {int(np.count_nonzero(bad))} other "
                f"value(s), the first at flattened index {int(np.flatnonzero(bad.ravel())[0])}."
            )
        arr = arr != 0
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}): need queries and a database.")
    if not arr.any():
        raise ValueError(
            f"{name} has no relevant (True) pair: recall and AP are undefined. Check the "
            "ground truth."
        )
    return np.ascontiguousarray(arr)


def _finish(radii, count, good, n_database, empty_precision) -> RadiusCurves:
    """Cumulative counts from the histograms (last column: beyond every radius)."""
    k = radii.shape[0]
    n_relevant = good.sum(axis=1).astype(np.int64)
    return RadiusCurves(
        radii=radii,
        retrieved=np.cumsum(count[:, :k], axis=1),
        relevant_retrieved=np.cumsum(good[:, :k], axis=1),
        n_relevant=n_relevant,
        n_database=int(n_database),
        empty_precision=empty_precision,
    )


# ---------------------------------------------------------------------------
# from a distance matrix
# ---------------------------------------------------------------------------


def check_distance_matrix(
    distances, shape, name: str = "distances", like: str = "relevance"
) -> np.ndarray:
    """``distances`` as a numeric (queries x database) matrix of the given ``shape``.

    A 1-D array is one query. Booleans (a relevance matrix passed by mistake)
    and NaN are errors (:func:`query_matrix`); the message names ``name`` and the matrix ``like``
    whose shape it must have.
    """
    arr = query_matrix(distances, name)
    if arr.shape != tuple(shape):
        raise ValueError(
            f"{name} must have the same (queries x database) shape as {like}; got "
            f"{arr.shape} and {tuple(shape)}."
        )
    if arr.dtype.kind == "b":
        raise TypeError(f"{name} must hold distances (numbers), not booleans.")
    return arr


def radius_curves(
    relevance, distances, radii=None, *, empty_precision: float = 0.0
) -> RadiusCurves:
    """Precision, recall and rate at every radius from a distance matrix.

    Parameters
    ----------
    relevance : array_like of bool (or 0/1), shape (Q, M)
        ``relevance[q, j]``: database item ``j`` is relevant to query ``q``.
        A 1-D input is one query.
    distances : array_like of int or float, shape (Q, M)
        Distance of item ``j`` to query ``q``. NaN is refused; ``+inf`` is
        never retrieved.
    radii : array_like of float, shape (K,), optional
        Strictly increasing radii. Default: every integer ``0 .. max(distances)``,
        which requires non-negative integer-valued distances (e.g. Hamming).
    empty_precision : float in [0, 1] or NaN
        Precision where nothing is retrieved (default 0; see module docstring).

    Returns
    -------
    RadiusCurves
        Cumulative counts and the per-query, mean and pooled curves.

    Notes
    -----
    One pass over the pairs: item ``(q, j)`` goes to the first bin ``b`` with
    ``d <= radii[b]`` (a binary search; a direct index for integer distances
    with the default radii), and cumulative sums over the bins give the counts
    inside every radius. Time O(QM log K), memory O(QK) beyond the inputs.

    Examples
    --------
    >>> from pranker import radius_curves
    >>> rel = np.array([[True, False, True, False], [False, True, False, False]])
    >>> dist = np.array([[0, 1, 2, 3], [2, 1, 0, 3]])
    >>> rc = radius_curves(rel, dist)
    >>> rc.radii.tolist()
    [0, 1, 2, 3]
    >>> rc.precision.round(4).tolist()
    [[1.0, 0.5, 0.6667, 0.5], [0.0, 0.5, 0.3333, 0.25]]
    >>> rc.pooled_precision.tolist()  # total relevant retrieved / total retrieved
    [0.5, 0.5, 0.5, 0.375]
    >>> rc.mean_recall.tolist()
    [0.25, 0.75, 1.0, 1.0]
    """
    empty_precision = _check_empty_precision(empty_precision)
    rel = _check_relevance(relevance)
    dist = np.ascontiguousarray(check_distance_matrix(distances, rel.shape))
    nq = dist.shape[0]

    if radii is None:
        dmin = dist.min()
        dmax = dist.max()
        integral = dist.dtype.kind in "iu" or bool(
            np.isfinite(dmax) and np.all(dist == np.floor(dist))
        )
        if not integral or dmin < 0:
            raise ValueError(
                "the default radii are the integers 0..max(distances), which needs "
                "non-negative integer-valued distances; pass radii= (increasing) for "
                "negative, fractional or infinite distances."
            )
        if dmax >= _MAX_BINS:
            raise ValueError(
                f"max(distances) = {dmax} would give {int(dmax) + 1} radii; pass radii= "
                "explicitly (at most a few thousand is typical)."
            )
        k = int(dmax) + 1
        count = np.zeros((nq, k + 1), np.int64)
        good = np.zeros((nq, k + 1), np.int64)
        if dist.dtype.kind in "iu":
            _rk.hist_int(dist, rel, count, good)
            radii_arr: np.ndarray = np.arange(k, dtype=np.int64)
        else:
            radii_arr = np.arange(k, dtype=np.float64)
            _rk.hist_sorted(dist, rel, radii_arr, count, good)
        return _finish(radii_arr, count, good, rel.shape[1], empty_precision)

    radii_arr = np.ascontiguousarray(_as_numeric_array(radii, "radii"), dtype=np.float64)
    if radii_arr.ndim != 1 or radii_arr.size == 0:
        raise ValueError(f"radii must be a non-empty 1-D array; got shape {radii_arr.shape}.")
    if np.isnan(radii_arr).any():
        raise ValueError(_first_nan_message(np.isnan(radii_arr), "radii"))
    if radii_arr.size > 1 and not np.all(np.diff(radii_arr) > 0):
        raise ValueError("radii must be strictly increasing.")
    if radii_arr.size >= _MAX_BINS:
        raise ValueError(f"too many radii ({radii_arr.size}); at most {_MAX_BINS - 1}.")
    k = radii_arr.size
    count = np.zeros((nq, k + 1), np.int64)
    good = np.zeros((nq, k + 1), np.int64)
    _rk.hist_sorted(dist, rel, radii_arr, count, good)
    return _finish(radii_arr, count, good, rel.shape[1], empty_precision)


# ---------------------------------------------------------------------------
# binary codes
# ---------------------------------------------------------------------------


def pack_codes(bits, dtype=np.uint64) -> np.ndarray:
    """Pack a {0, 1} / bool code matrix into rows of uint8 or uint64 words.

    Parameters
    ----------
    bits : array_like of bool or {0, 1}, shape (n, b)
        One binary code of ``b`` bits per row (a 1-D input is one code).
        Sign codes (-1/+1) must be converted first, e.g. ``bits > 0``.
    dtype : {numpy.uint8, numpy.uint64}
        Word type. Rows are zero-padded to whole words; padding bits are 0 in
        every code, so Hamming distances are unchanged.

    Returns
    -------
    ndarray of dtype, shape (n, ceil(b / 8)) or (n, ceil(b / 64))
        Bit ``i`` of a code is bit ``i % 8`` (little-endian) of byte ``i // 8``.

    Examples
    --------
    >>> from pranker import pack_codes
    >>> pack_codes([[1, 0, 0, 0, 0, 0, 0, 0, 1]], dtype=np.uint8).tolist()
    [[1, 1]]
    >>> pack_codes(np.ones((2, 70), bool)).shape
    (2, 2)
    """
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.uint8), np.dtype(np.uint64)):
        raise ValueError(f"dtype must be numpy.uint8 or numpy.uint64; got {dt}.")
    arr = _as_numeric_array(bits, "bits")
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(f"bits must be a 2-D (codes x bits) matrix with bits; got {arr.shape}.")
    if arr.dtype != np.bool_:
        bad = (arr != 0) & (arr != 1)
        if bad.any():
            raise ValueError(
                "bits must be boolean or 0/1; found other values (NaN or e.g. -1 of sign "
                "codes). Convert sign codes with bits > 0."
            )
        arr = arr != 0
    packed = np.packbits(arr, axis=1, bitorder="little")
    if dt == np.uint8:
        return packed
    return _bytes_to_words(packed)


def _bytes_to_words(packed: np.ndarray) -> np.ndarray:
    """(n, nbytes) uint8 -> (n, ceil(nbytes / 8)) uint64, zero padded."""
    n, nbytes = packed.shape
    nwords = (nbytes + 7) // 8
    if nbytes == nwords * 8 and packed.flags.c_contiguous:
        return packed.view(np.uint64)
    buf = np.zeros((n, nwords * 8), np.uint8)
    buf[:, :nbytes] = packed
    return buf.view(np.uint64)


def _check_codes(codes, name: str) -> tuple[np.ndarray, int]:
    """Codes as (n, words) uint64 and the number of bits per code."""
    arr = np.asarray(codes)
    if arr.dtype.kind != "u":
        raise TypeError(
            f"{name} must be bit-packed unsigned integers (uint8/16/32/64 rows); got dtype "
            f"{arr.dtype}. Pack a 0/1 matrix with pranker.pack_codes."
        )
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a 2-D (codes x words) array; got shape {arr.shape}.")
    nbits = arr.shape[1] * arr.dtype.itemsize * 8
    if arr.dtype == np.uint64:
        return np.ascontiguousarray(arr), nbits
    as_bytes = np.ascontiguousarray(arr).view(np.uint8).reshape(arr.shape[0], -1)
    return _bytes_to_words(as_bytes), nbits


def _check_code_pair(query_codes, database_codes):
    qa = np.asarray(query_codes)
    da = np.asarray(database_codes)
    if qa.dtype != da.dtype:
        raise TypeError(
            f"query_codes and database_codes must have the same dtype; got {qa.dtype} and "
            f"{da.dtype}."
        )
    q, qbits = _check_codes(qa, "query_codes")
    d, dbits = _check_codes(da, "database_codes")
    if qbits != dbits:
        raise ValueError(
            f"query and database codes must have the same length; got {qbits} and {dbits} bits "
            "per row."
        )
    if q.shape[0] == 0 or d.shape[0] == 0:
        raise ValueError("query_codes and database_codes need at least one row each.")
    return q, d, qbits


def hamming_distances(query_codes, database_codes) -> np.ndarray:
    """Hamming distances between bit-packed codes, shape (Q, M).

    Prefer :func:`hamming_radius_curves`, which never builds this matrix.

    Parameters
    ----------
    query_codes, database_codes : ndarray of uint8/uint16/uint32/uint64
        One packed code per row (see :func:`pack_codes`), same dtype and width.

    Returns
    -------
    ndarray, shape (Q, M)
        uint8 when codes have at most 255 bits, else uint16 / uint32.

    Examples
    --------
    >>> from pranker import hamming_distances, pack_codes
    >>> q = pack_codes([[1, 1, 0, 0]])
    >>> db = pack_codes([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 0]])
    >>> hamming_distances(q, db).tolist()
    [[0, 4, 1]]
    """
    q, d, nbits = _check_code_pair(query_codes, database_codes)
    dt = np.uint8 if nbits <= 255 else np.uint16 if nbits <= 65535 else np.uint32
    out = np.empty((q.shape[0], d.shape[0]), dt)
    _rk.hamming_matrix(q, d, out)
    return out


def hamming_radius_curves(
    query_codes,
    database_codes,
    relevance=None,
    *,
    query_labels=None,
    database_labels=None,
    n_bits: int | None = None,
    max_radius: int | None = None,
    empty_precision: float = 0.0,
) -> RadiusCurves:
    """Precision, recall and rate at every Hamming radius, straight from packed codes.

    Parameters
    ----------
    query_codes : ndarray of uint8/uint16/uint32/uint64, shape (Q, words)
    database_codes : ndarray, same dtype, shape (M, words)
        Bit-packed binary codes (see :func:`pack_codes`).
    relevance : array_like of bool (or 0/1), shape (Q, M), optional
        Ground-truth neighbours. Alternatively give the labels below and the
        relevance is computed on the fly (no Q x M matrix at all).
    query_labels, database_labels : array_like, optional
        Either 1-D integer class labels, shapes (Q,) and (M,): relevant iff the
        labels are equal; or 2-D multi-hot 0/1 label matrices, shapes (Q, C)
        and (M, C): relevant iff at least one label is shared (the usual rule
        for multi-label sets such as NUS-WIDE).
    n_bits : int, optional
        Code length in bits. Packing pads codes to whole words with zero bits,
        which never differ, so the length cannot be read off packed rows;
        default: every bit of the rows (e.g. 64 for 48-bit codes in uint64).
    max_radius : int, optional
        Largest radius reported (default ``n_bits``, so the last radius
        retrieves everything). Items farther away form the unretrieved tail.
    empty_precision : float in [0, 1] or NaN
        Precision where nothing is retrieved (default 0).

    Returns
    -------
    RadiusCurves
        Radii ``0 .. max_radius`` with per-query, mean and pooled curves and
        per-query AP (:meth:`RadiusCurves.average_precision`).

    Notes
    -----
    For each query (in parallel) and each database code, the distance is the
    popcount of the XOR of the packed words (LLVM ``ctpop``), and the pair
    goes straight into the query's histogram of distances. Time O(QM words),
    memory O(Q x max_radius) beyond the inputs: no Q x M distance matrix.

    Examples
    --------
    >>> from pranker import hamming_radius_curves, pack_codes
    >>> q = pack_codes([[1, 1, 0, 0]])
    >>> db = pack_codes([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 0]])
    >>> rc = hamming_radius_curves(q, db, [[True, False, True]], n_bits=4, max_radius=2)
    >>> rc.retrieved.tolist(), rc.recall.tolist()
    ([[1, 2, 2]], [[0.5, 1.0, 1.0]])
    >>> round(float(rc.average_precision()[0]), 4)
    1.0
    >>> rc2 = hamming_radius_curves(q, db, query_labels=[7], database_labels=[7, 3, 7],
    ...                             n_bits=4, max_radius=2)
    >>> rc2.relevant_retrieved.tolist() == rc.relevant_retrieved.tolist()
    True
    """
    empty_precision = _check_empty_precision(empty_precision)
    q, d, nbits = _check_code_pair(query_codes, database_codes)
    labels_given = query_labels is not None or database_labels is not None
    if (relevance is None) == (not labels_given):
        raise ValueError(
            "give either relevance (a queries x database matrix) or both query_labels and "
            "database_labels, not both and not neither."
        )
    if relevance is not None:
        rel = _check_relevance(relevance)
        if rel.shape != (q.shape[0], d.shape[0]):
            raise ValueError(
                f"relevance must have shape (queries, database) = ({q.shape[0]}, "
                f"{d.shape[0]}); got {rel.shape}."
            )
    else:
        qlab, dlab = _check_label_pair(query_labels, database_labels, q.shape[0], d.shape[0])
    if n_bits is not None:
        width = nbits
        nbits = check_count(n_bits, "n_bits")
        if not 1 <= nbits <= width:
            raise ValueError(
                f"n_bits must be in [1, {width}] (the bits in a packed row); got {nbits}."
            )
    if max_radius is None:
        kmax = nbits
    else:
        kmax = check_count(max_radius, "max_radius")
        if not 0 <= kmax <= nbits:
            raise ValueError(f"max_radius must be in [0, {nbits}] (the code length); got {kmax}.")
    k = kmax + 1
    count = np.zeros((q.shape[0], k + 1), np.int64)
    good = np.zeros((q.shape[0], k + 1), np.int64)
    if relevance is not None:
        _rk.hist_hamming(q, d, rel, count, good)
    elif qlab.ndim == 1:
        _rk.hist_hamming_labels(q, d, qlab, dlab, count, good)
    else:
        _rk.hist_hamming_multilabel(q, d, qlab, dlab, count, good)
    if not good.any():
        raise ValueError(
            "no query has a relevant database item (no equal or shared label): recall and AP "
            "are undefined. Check the labels."
        )
    return _finish(np.arange(k, dtype=np.int64), count, good, d.shape[0], empty_precision)


def _check_label_pair(query_labels, database_labels, nq: int, nd: int):
    """Class labels (1-D int64) or multi-hot label sets packed into uint64 words."""
    if query_labels is None or database_labels is None:
        raise ValueError("query_labels and database_labels must be given together.")
    ql = _as_numeric_array(query_labels, "query_labels")
    dl = _as_numeric_array(database_labels, "database_labels")
    if ql.ndim != dl.ndim or ql.ndim not in (1, 2):
        raise ValueError(
            "query_labels and database_labels must both be 1-D class labels or both 2-D "
            f"multi-hot matrices; got shapes {ql.shape} and {dl.shape}."
        )
    if ql.shape[0] != nq or dl.shape[0] != nd:
        raise ValueError(
            f"need one label row per code: {nq} queries and {nd} database items; got "
            f"{ql.shape[0]} and {dl.shape[0]}."
        )
    if ql.ndim == 1:
        for name, arr in (("query_labels", ql), ("database_labels", dl)):
            if arr.dtype.kind not in "iub" and not (
                np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))
            ):
                raise ValueError(f"{name} must hold integer class labels; got non-integer values.")
        return (
            np.ascontiguousarray(ql, dtype=np.int64),
            np.ascontiguousarray(dl, dtype=np.int64),
        )
    if ql.shape[1] != dl.shape[1]:
        raise ValueError(
            f"multi-hot label matrices need the same number of classes; got {ql.shape[1]} "
            f"and {dl.shape[1]}."
        )
    return pack_codes(ql, np.uint64), pack_codes(dl, np.uint64)
