r"""Mean average precision over queries, and its p-value against random rankings.

For Q queries, query q with N_q instances of which P_q are relevant, the
mean AP is ``mAP = (1/Q) sum_q AP_q``. Under the null that every query's
ranking is random (and the queries independent), :func:`map_significance`
gives ``p = P(mAP_null >= observed)``.

The null is :class:`pranker.null.mean_ap.MeanAPNull`: the exact cumulant
generating function of the sum (one forward recursion per distinct P, read at
every N), with two ways to the tail —

``"saddlepoint"``
    Lugannani–Rice (1980) at the saddle point of the exact CGF;
    deterministic, with ``pvalue_error`` the relative size of the next term of
    the expansion (Daniels 1987), an estimate rather than a bound.
``"tilt"``
    Unbiased importance sampling from the exactly tilted law of every query
    (Siegmund 1976), to a relative standard error ``rtol``.

``method="auto"`` takes ``"tilt"`` for at most :data:`AUTO_TILT_MAX_QUERIES`
queries, and beyond that the saddlepoint where the null mAP's excess kurtosis
is at most :data:`AUTO_SADDLE_MAX_KURTOSIS` (else ``"tilt"``; measured in
docs/mean_ap.md). A single query (Q = 1) is the test of one ranking: the
result has the method, p-value and intervals of
:func:`pranker.significance_from_ap`. Degenerate queries are exact: P_q = N_q
has AP = 1 always.

Per-query p-values and groups
-----------------------------
On request (``query_method``), each query's own p-value is that of
:func:`pranker.pranker_many` (the same numbers as
:func:`pranker.significance_from_ap`), with Benjamini–Hochberg adjusted values
over the queries. They are not computed by default: a tail probability per
query at 2 % relative error takes thousands of tilted draws per query
(queries sharing (N_q, P_q) and a cell of the grid of tilts share them),
hundreds to thousands of times the cost of sorting the scores at Q = 10^4, while the mAP
p-value costs a few sorts. With ``groups``, each group of queries gets its own
mAP and p-value (and BH-adjusted values across the groups).

References
----------
.. [1] %(ref_lugannani1980)s
.. [2] %(ref_daniels1987)s
.. [3] %(ref_siegmund1976)s
.. [4] %(ref_lopes2014)s
.. [5] Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate",
   JRSS B 57 (1995) 289–300.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import _format as _fmt
from .._display import ResultDisplay
from .._docs import fill_doc
from .._results import jsonable, renamed_parameters
from .._validation import (
    binarize_labels,
    check_conf_level,
    check_probability,
    check_query_counts,
    check_scores,
    check_ties,
)
from ..null.choice import DEFAULT_RTOL
from ..null.logspace import pow10
from ..null.mean_ap import MEAN_AP_METHODS, MeanAPNull, MeanAPPValue
from .figure import Plottable

__all__ = [
    "map_significance",
    "map_significance_from_ap",
    "query_average_precision",
    "MapResult",
    "MapGroup",
]

__doc__ = fill_doc()(__doc__)


# --------------------------------------------------------------------------- results
class _MeanAPVocabulary(ResultDisplay, Plottable):
    """What :class:`MapResult` and :class:`MapGroup` share: the measure's name, the null's
    interval, JSON-ready fields, the table shown in Jupyter."""

    statistic: float
    conf_level: float
    null_mean: float
    null: MeanAPNull | None

    @property
    def mean_ap(self) -> float:
        """The mean AP over the queries (the same value as ``statistic``)."""
        return self.statistic

    @property
    def null_interval(self) -> tuple | None:
        """Central ``conf_level`` interval of the null mean AP (from ``null``; None without it)."""
        return None if self.null is None else self.null.interval(self.conf_level)

    @property
    def null_interval_method(self) -> str | None:
        """How ``null_interval`` is computed (``null.interval_method``)."""
        return None if self.null is None else self.null.interval_method

    def _table(self):
        pct = f"{100 * self.conf_level:g}%"
        groups = getattr(self, "groups", None)
        if hasattr(self, "group"):  # one group's row
            groups, caption = (self,), "Mean AP of a group of queries against random rankings"
        else:
            caption = f"Mean AP over {self.n_queries:,} queries against random rankings"
        headers = ["method", "mean AP", "p-value", "null mean", f"{pct} null interval"]
        iv = self.null_interval
        row = [
            self.method,
            _fmt.sig(self.statistic, 4),
            _fmt.pvalue_text(self),
            _fmt.sig(self.null_mean, 4),
            "" if iv is None else _fmt.interval(*iv),
        ]
        rows = [] if hasattr(self, "group") else [row]
        note = "p-value: probability that random rankings of every query score at least this"
        if groups:
            headers = ["group", "queries", "method", "mean AP", "p-value", "p (BH)"]
            rows = [
                [
                    str(g.group),
                    f"{g.n_queries:,}",
                    g.method,
                    _fmt.sig(g.statistic, 4),
                    _fmt.pvalue_text(g),
                    _fmt.pvalue_number(g.pvalue_bh, g.log10_pvalue_bh, 3),
                ]
                for g in groups
            ]
            if not hasattr(self, "group"):
                rows.insert(0, ["all", f"{self.n_queries:,}", *row[:3], ""])
            note += "; p (BH): Benjamini-Hochberg adjusted across the groups"
        return caption, headers, rows, note

    def to_dict(self) -> dict:
        """Plain Python values ready for :func:`json.dumps` (lists for arrays, None for NaN)."""
        names = getattr(self, "__dataclass_fields__", {})
        d = {k: getattr(self, k) for k in names if k not in ("null", "groups")}
        d.update(
            mean_ap=self.mean_ap,
            null_interval=self.null_interval,
            null_interval_method=self.null_interval_method,
        )
        if "groups" in names:
            groups = getattr(self, "groups", None)
            d["groups"] = None if groups is None else [g.to_dict() for g in groups]
        return jsonable(d)


@dataclass(frozen=True)
class MapGroup(_MeanAPVocabulary):
    """One group's mean AP and its p-value (a row of :attr:`MapResult.groups`).

    Attributes
    ----------
    group : object
        The group label.
    statistic : float
        Mean AP over the group's queries (also ``mean_ap``).
    pvalue, log10_pvalue : float
        P(mAP_null >= statistic) for the group's queries alone.
    pvalue_bh, log10_pvalue_bh : float
        Benjamini–Hochberg adjusted across the groups.
    pvalue_rse : float or None
        Relative standard error (0 when exact; None when not estimated, as
        for the saddlepoint).
    n_queries : int
    n, n_pos : int
        Instances and positives of the group's queries, summed (each query's
        own are in :attr:`MapResult.query_n` and ``query_n_pos``).
    null_mean, null_var : float
        Exact mean and variance of the group's null mean AP.
    method : str
        ``"saddlepoint"``, ``"tilt"`` or ``"exact"``.
    pvalue_error : float or None
        Estimated relative error of the p-value: the relative standard error
        for ``"tilt"``, the size of the next term of the saddlepoint expansion
        for ``"saddlepoint"``, 0 when exact.
    pvalue_interval : (float, float) or None
        Confidence interval for the true p-value (None without an error bound).
    n_draws, seed : int or None
        Random draws behind the p-value and their seed (None without draws).
    conf_level : float
        Coverage of ``pvalue_interval`` and ``null_interval``.
    null : MeanAPNull
        The null of the group's mean AP; ``null_interval`` comes from it.

    See Also
    --------
    MapResult, map_significance

    Examples
    --------
    Two groups of one query each, both ranking their single positive first:
    under random ranking that happens with probability 1/4 (N = 4) and 1/5
    (N = 5); both groups together, with probability 1/20.

    >>> from pranker import map_significance_from_ap
    >>> r = map_significance_from_ap([1.0, 1.0], [4, 5], [1, 1], groups=["a", "b"])
    >>> [(g.group, round(float(g.pvalue), 6), round(float(g.pvalue_bh), 6), g.method) for g in r.groups]
    [('a', 0.25, 0.25, 'exact'), ('b', 0.2, 0.25, 'exact')]
    >>> round(float(r.pvalue), 6)
    0.05
    """

    group: object
    statistic: float
    pvalue: float
    log10_pvalue: float
    pvalue_bh: float
    log10_pvalue_bh: float
    pvalue_rse: float | None
    n_queries: int
    n: int
    n_pos: int
    null_mean: float
    null_var: float
    method: str
    pvalue_error: float | None = None
    pvalue_interval: tuple | None = None
    n_draws: int | None = None
    seed: int | None = None
    conf_level: float = 0.95
    null: MeanAPNull | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class MapResult(_MeanAPVocabulary):
    """Result of :func:`map_significance`.

    Attributes
    ----------
    statistic : float
        The mean AP over the queries (also ``mean_ap``).
    pvalue, log10_pvalue : float
        P(mAP_null >= statistic) under random rankings of every query;
        ``log10_pvalue`` stays finite where ``pvalue`` underflows (``pvalue``
        keeps subnormal floats, down to about 1e-323).
    pvalue_interval : (float, float) or None
        Confidence interval at ``conf_level`` for the true p-value (the value
        twice when exact); None for the saddlepoint (no error bound).
    pvalue_rse : float or None
        Relative standard error of the p-value: 0 when exact, None when not
        estimated (the saddlepoint).
    n_queries : int
    n, n_pos : int
        Instances and positives over all queries, summed (each query's own
        are ``query_n`` and ``query_n_pos``).
    method : str
        ``"saddlepoint"``, ``"tilt"`` or ``"exact"`` (the edges of the
        support, and for one query whatever :func:`significance_from_ap`
        uses).
    null_mean, null_var : float
        Exact mean and variance of the null mAP.
    n_draws : int or None
        Draws behind a ``"tilt"`` p-value (per query for two queries or
        more); None when no random draw was made.
    seed : int or None
        Seed of those draws; None when no random draw was made.
    pvalue_error : float or None
        How uncertain ``pvalue`` is, as a relative error: ``pvalue_rse`` for
        ``"tilt"``; for ``"saddlepoint"`` the ratio of the next term of the
        tail expansion (Daniels 1987, order ``Q^{-3/2}``) to the
        Lugannani–Rice value, an estimate rather than a bound (None for a
        single query, where the saddlepoint is that of
        :func:`pranker.significance_from_ap`); 0 when exact.
    conf_level : float
        Coverage of ``pvalue_interval`` and ``null_interval``.
    query_auprc, query_n, query_n_pos : ndarray
        Each query's AP, N and P.
    query_pvalue, query_log10_pvalue : ndarray
        Each query's own p-value (NaN when not asked for).
    query_pvalue_bh, query_log10_pvalue_bh : ndarray
        Benjamini–Hochberg adjusted values over the queries.
    groups : tuple of MapGroup or None
        One row per group when ``groups`` was given.
    null : MeanAPNull
        The null of the mean AP; ``null_interval`` (the central
        ``conf_level`` interval of the null mean AP, computed on first use)
        and ``null_interval_method`` come from it.

    See Also
    --------
    map_significance : computes it from scores and labels.
    map_significance_from_ap : computes it from per-query APs.
    MapGroup : the rows of ``groups``.

    References
    ----------
    .. [1] R. Lugannani and S. Rice, Adv. Appl. Prob. 12 (1980) 475–490.
    .. [2] H. E. Daniels, International Statistical Review 55 (1987) 37–48.
    .. [3] Y. Benjamini and Y. Hochberg, JRSS B 57 (1995) 289–300.

    Examples
    --------
    >>> res = map_significance_from_ap([0.3] * 40, [1000] * 40, [10] * 40)
    >>> res.method, res.n_queries, res.n_draws, res.seed
    ('saddlepoint', 40, None, None)
    >>> res.pvalue < 1e-10, res.pvalue_error < 0.05, res.mean_ap == res.statistic
    (True, True, True)
    >>> lo, hi = res.null_interval
    >>> bool(lo < res.null_mean < hi < res.mean_ap)
    True
    >>> import json
    >>> sorted(json.loads(json.dumps(res.to_dict())))[:3]
    ['conf_level', 'groups', 'log10_pvalue']
    """

    statistic: float
    pvalue: float
    log10_pvalue: float
    pvalue_interval: tuple | None
    pvalue_rse: float | None
    n_queries: int
    n: int
    n_pos: int
    method: str
    null_mean: float
    null_var: float
    n_draws: int | None = None
    seed: int | None = None
    pvalue_error: float | None = None
    conf_level: float = 0.95
    query_auprc: np.ndarray | None = field(default=None, repr=False, compare=False)
    query_n: np.ndarray | None = field(default=None, repr=False, compare=False)
    query_n_pos: np.ndarray | None = field(default=None, repr=False, compare=False)
    query_pvalue: np.ndarray | None = field(default=None, repr=False, compare=False)
    query_log10_pvalue: np.ndarray | None = field(default=None, repr=False, compare=False)
    query_pvalue_bh: np.ndarray | None = field(default=None, repr=False, compare=False)
    query_log10_pvalue_bh: np.ndarray | None = field(default=None, repr=False, compare=False)
    groups: tuple | None = field(default=None, repr=False, compare=False)
    null: MeanAPNull | None = field(default=None, repr=False, compare=False)


def _pvalue_fields(stat: float, null: MeanAPNull, pv: MeanAPPValue, conf_level: float) -> dict:
    """The fields a mean AP and its p-value share in :class:`MapResult` and :class:`MapGroup`."""
    return dict(
        statistic=stat,
        pvalue=pv.pvalue,
        log10_pvalue=pv.log10_pvalue,
        pvalue_interval=pv.pvalue_interval,
        pvalue_rse=pv.pvalue_rse,
        pvalue_error=pv.pvalue_error,
        n_queries=null.n_queries,
        n=int(np.sum(null.n)),
        n_pos=int(np.sum(null.n_pos)),
        null_mean=null.mean,
        null_var=null.var,
        method=pv.method,
        n_draws=pv.n_draws,
        seed=pv.seed,
        conf_level=conf_level,
        null=null,
    )


# --------------------------------------------------------------------------- from APs
@dataclass(frozen=True)
class _Options:
    method: str
    seed: int | None
    rtol: float
    max_draws: int | None
    conf_level: float


def _check_queries(ap, n, n_pos, method):
    """The per-query arrays, checked: one entry per query, 1 <= P <= N, AP in [0, 1]."""
    ap = np.asarray(ap, dtype=np.float64).ravel()
    n, n_pos = check_query_counts(n, n_pos, "map_significance", extra=(ap,))
    if not np.all(np.isfinite(ap)) or np.any(ap < 0.0) or np.any(ap > 1.0 + 1e-12):
        raise ValueError("map_significance: every AP must be a number in [0, 1].")
    if method not in MEAN_AP_METHODS:
        raise ValueError(
            f"map_significance: method must be one of {MEAN_AP_METHODS}; got {method!r}."
        )
    return ap, n, n_pos


def _mean_ap_test(ap, n, n_pos, opt: _Options) -> dict:
    """The mean AP of these queries, its null and p-value, as result fields."""
    null = MeanAPNull(
        n, n_pos, seed=opt.seed, rtol=opt.rtol, max_draws=opt.max_draws, method=opt.method
    )
    stat = float(np.mean(ap))
    pv = null.pvalue(stat, conf_level=opt.conf_level)
    return _pvalue_fields(stat, null, pv, opt.conf_level)


def _bh(log10_p) -> np.ndarray:
    from .many import bh_log10

    return bh_log10(np.asarray(log10_p, dtype=np.float64))


def _group_rows(ap, n, n_pos, groups, opt: _Options) -> tuple:
    """One :class:`MapGroup` per group label (sorted), BH-adjusted across the groups."""
    g = np.asarray(groups).ravel()
    if g.size != ap.size:
        raise ValueError(
            f"map_significance: groups needs one label per query ({ap.size}); got {g.size}."
        )
    labels, inv = np.unique(g, return_inverse=True)
    parts = []
    for i in range(labels.size):
        sel = inv == i
        parts.append(_mean_ap_test(ap[sel], n[sel], n_pos[sel], opt))
    bh = _bh([p["log10_pvalue"] for p in parts])
    return tuple(
        MapGroup(
            group=lab.item() if hasattr(lab, "item") else lab,
            pvalue_bh=pow10(b),
            log10_pvalue_bh=float(b),
            **p,
        )
        for lab, p, b in zip(labels, parts, bh, strict=True)
    )


def _query_fields(ap, n, n_pos, query_log10_pvalues) -> dict:
    """Each query's AP, N, P and (when given) p-value with its BH-adjusted value; else NaN."""
    if query_log10_pvalues is None:
        qlg = np.full(ap.size, np.nan)
        qbh = np.full(ap.size, np.nan)
    else:
        qlg = np.asarray(query_log10_pvalues, dtype=np.float64).ravel()
        qbh = _bh(qlg)
    return dict(
        query_auprc=ap,
        query_n=n,
        query_n_pos=n_pos,
        query_pvalue=np.power(10.0, qlg),
        query_log10_pvalue=qlg,
        query_pvalue_bh=np.power(10.0, qbh),
        query_log10_pvalue_bh=qbh,
    )


@renamed_parameters(query_pvalues="query_log10_pvalues")
@fill_doc()
def map_significance_from_ap(
    ap,
    n,
    n_pos,
    groups=None,
    *,
    method: str = "auto",
    seed: int | None = None,
    rtol: float | None = None,
    max_draws: int | None = None,
    conf_level: float = 0.95,
    query_log10_pvalues=None,
) -> MapResult:
    """The mean AP of per-query APs computed elsewhere, and its p-value: the null needs only N_q, P_q.

    Parameters
    ----------
    ap : array_like of float
        Each query's AP, in [0, 1].
    n, n_pos : array_like of int
        Each query's number of items N_q and of positives P_q (``1 <= P_q <= N_q``).
    groups : array_like, optional
        One label per query; each group gets its own mAP p-value
        (``result.groups``), with BH-adjusted values across groups.
    method : {"auto", "saddlepoint", "tilt"}
        How the mAP p-value is computed (:mod:`pranker.null.mean_ap`):
        ``"auto"`` takes ``"tilt"`` for at most :data:`AUTO_TILT_MAX_QUERIES`
        queries and the saddlepoint beyond where the null is close enough to
        normal; one query gets the method of :func:`significance_from_ap`.
    seed : int, optional
        Seed of the ``"tilt"`` draws (default fixed; recorded on the result
        when draws were made).
    rtol : float, optional
        Target relative standard error of a ``"tilt"`` p-value (default 0.02).
    max_draws : int, optional
        At most this many draws per query for ``"tilt"`` (default 2**18; one
        query: the default of :func:`significance_from_ap`).
    conf_level : float
        Coverage of ``pvalue_interval`` and ``null_interval``.
    query_log10_pvalues : array_like of float, optional
        Each query's log10 p-value, if computed elsewhere; BH-adjusted values
        are derived from them. Without it those fields are NaN. (Formerly
        ``query_pvalues``, which still works with a DeprecationWarning.)

    Returns
    -------
    MapResult
        ``method``, ``pvalue_rse``/``pvalue_error`` and ``n_draws`` say how the
        p-value was obtained and how uncertain it is.

    See Also
    --------
    map_significance : the same from scores and labels.
    significance_from_ap : one query (the same result when Q = 1).

    References
    ----------
    .. [1] %(ref_lugannani1980)s
    .. [2] %(ref_daniels1987)s
    .. [3] %(ref_siegmund1976)s

    Examples
    --------
    >>> res = map_significance_from_ap([0.5, 0.4, 0.6], [100, 120, 90], [5, 8, 6])
    >>> res.method, res.n_queries, res.log10_pvalue < -6
    ('tilt', 3, True)
    >>> res.pvalue_rse <= 0.02, res.seed is not None
    (True, True)
    """
    ap, n, n_pos = _check_queries(ap, n, n_pos, method)
    opt = _Options(
        method=method,
        seed=seed,
        rtol=DEFAULT_RTOL if rtol is None else check_probability(rtol, "rtol", "map_significance"),
        max_draws=max_draws,
        conf_level=check_conf_level(conf_level, "map_significance"),
    )
    rows = None if groups is None else _group_rows(ap, n, n_pos, groups, opt)
    main = _mean_ap_test(ap, n, n_pos, opt)
    return MapResult(
        **main,
        **_query_fields(ap, n, n_pos, query_log10_pvalues),
        groups=rows,
    )


# --------------------------------------------------------------------------- from scores
def _equal_rows(scores_list, y_list, pos_label):
    """Queries of one length N, checked at once: flat scores, flat positives, N."""
    shape = np.shape(scores_list[0])
    for i, y_i in enumerate(y_list):
        if len(shape) != 1 or np.shape(y_i) != shape:
            raise ValueError(
                f"map_significance: query {i}: scores and labels must be 1-D of the same "
                f"length; got shapes {shape} and {np.shape(y_i)}."
            )
    s2, y2 = np.asarray(scores_list), np.asarray(y_list)
    s = check_scores(s2, where="map_significance", check_nan=False)
    y = binarize_labels(y2, pos_label=pos_label, name="y", where="map_significance", scores=s2)
    return s, np.ascontiguousarray(y).ravel(), s2.shape[1]


def _one_query(i, s_i, y_i, pos_label):
    """Query ``i``'s scores (float64) and positives (bool), checked as one ranking."""
    if np.ndim(s_i) != 1 or np.shape(y_i) != np.shape(s_i):
        raise ValueError(
            f"map_significance: query {i}: scores and labels must be 1-D of the same "
            f"length; got shapes {np.shape(s_i)} and {np.shape(y_i)}."
        )
    a = check_scores(s_i, f"scores[{i}]", where="map_significance", check_nan=False)
    b = binarize_labels(
        y_i, pos_label=pos_label, name=f"y[{i}]", where="map_significance", scores=a
    )
    return a, np.asarray(b, dtype=bool)


def _concatenated(scores_list, y_list, pos_label):
    """Every query's scores and positives end to end, and where each query starts."""
    if len({np.shape(r) for r in scores_list}) == 1:
        s, y, width = _equal_rows(scores_list, y_list, pos_label)
        return s, y, np.arange(len(scores_list) + 1, dtype=np.int64) * width
    rows = [
        _one_query(i, a, b, pos_label)
        for i, (a, b) in enumerate(zip(scores_list, y_list, strict=True))
    ]
    starts = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([a.shape[0] for a, _ in rows], out=starts[1:])
    return np.concatenate([a for a, _ in rows]), np.concatenate([b for _, b in rows]), starts


def _check_status(status) -> None:
    """The errors of queries the AP kernel could not score: NaN scores, no positive."""
    from .._numba.rows import ROW_NAN, ROW_NO_POSITIVE

    bad = np.flatnonzero(status == ROW_NAN)
    if bad.size:
        raise ValueError(
            f"map_significance: {bad.size} query(ies) contain NaN scores (first: "
            f"query {int(bad[0])}). Remove or impute them."
        )
    empty = np.flatnonzero(status == ROW_NO_POSITIVE)
    if empty.size:
        raise ValueError(
            f"map_significance: {empty.size} query(ies) have no positive label, so "
            f"their AP is undefined (first: {empty[:5].tolist()}). Drop them or "
            f"give each query at least one positive."
        )


def query_average_precision(scores_list, y_list, *, ties: str = "average", pos_label=None):
    """Each query's AP, N and P, without p-values: the numbers of :func:`pranker.pranker_many`.

    Parameters
    ----------
    scores_list, y_list : list of 1-D array_like
        One score array and one label array per query (lengths may differ).
    ties : str
        Tie mode (:func:`pranker.auprc_ap`).
    pos_label : scalar, optional
        The label of the positive class.

    Returns
    -------
    ap : ndarray of float
    n, n_pos : ndarray of int

    Examples
    --------
    >>> ap, n, n_pos = query_average_precision([[3, 2, 1], [1, 2, 3, 4]], [[1, 0, 1], [1, 0, 0, 0]])
    >>> ap.round(4).tolist(), n.tolist(), n_pos.tolist()
    ([0.8333, 0.25], [3, 4], [2, 1])
    """
    from .._numba.mean_ap import ap_segments
    from .._numba.tiegroups import MODE_CODES

    check_ties(ties)
    s, y, starts = _concatenated(scores_list, y_list, pos_label)
    R = starts.size - 1
    ap, n, n_pos = np.empty(R), np.empty(R, dtype=np.int64), np.empty(R, dtype=np.int64)
    status = np.empty(R, dtype=np.int8)
    ap_segments(s, y, starts, MODE_CODES[ties], ap, n, n_pos, status)
    _check_status(status)
    return ap, n, n_pos


def map_significance(
    scores_list,
    y_list,
    groups=None,
    *,
    method: str = "auto",
    ties: str = "average",
    seed: int | None = None,
    rtol: float | None = None,
    max_draws: int | None = None,
    conf_level: float = 0.95,
    query_method: str | None = None,
    pos_label=None,
) -> MapResult:
    """Mean AP over queries and its p-value against random rankings of every query.

    Parameters
    ----------
    scores_list, y_list : list of 1-D array_like
        One score array and one label array per query (each with its own
        length N_q and at least one positive).
    groups : array_like, optional
        One label per query; each group gets its own mAP p-value
        (``result.groups``), with BH-adjusted values across groups.
    method : {"auto", "saddlepoint", "tilt"}
        How the mAP p-value is computed (see the module documentation):
        ``"auto"`` takes the tilted importance sampler for at most
        :data:`AUTO_TILT_MAX_QUERIES` queries or where the null is far from
        normal (excess kurtosis above :data:`AUTO_SADDLE_MAX_KURTOSIS`), the
        saddlepoint otherwise.
    ties : str
        Tie mode of every AP (:func:`pranker.auprc_ap`).
    seed : int, optional
        Seed of the draws (default fixed; recorded on the result when draws
        were made).
    rtol : float, optional
        Target relative standard error of ``"tilt"`` p-values (default 0.02).
    max_draws : int, optional
        At most this many draws per query for ``"tilt"`` (default 2**18).
    conf_level : float
        Coverage of ``pvalue_interval`` and ``null_interval``.
    query_method : str or None
        None (default): each query's own p-value is not computed (those
        fields are NaN). A method name (``"auto"`` for the default of
        :func:`pranker.pranker`) computes them with
        :func:`pranker.pranker_many`, the same numbers as
        :func:`pranker.significance_from_ap` gives each query, plus
        Benjamini–Hochberg adjusted values. They are off by default because
        of their cost: at Q = 10^4 queries of N_q ~ 1000 the mAP p-value
        takes a few times a ``numpy.sort`` of all scores, per-query p-values
        at 2 % relative error 200-2000 times (docs/mean_ap.md).
    pos_label : scalar, optional
        The label of the positive class.

    Returns
    -------
    MapResult
        The mean AP, its p-value, how it was obtained (``method``) and how
        uncertain it is (``pvalue_rse``, ``pvalue_error``), the null (its
        mean, variance and central interval), each query's AP, N and P, and
        the group rows.

    See Also
    --------
    map_significance_from_ap : the same from per-query APs.
    pranker_many : each query's own p-value.
    significance_from_ap : one query.

    References
    ----------
    .. [1] R. Lugannani and S. Rice, Adv. Appl. Prob. 12 (1980) 475–490.
    .. [2] H. E. Daniels, International Statistical Review 55 (1987) 37–48.
    .. [3] M. Lopes and G. Bontempi, ECML PKDD 2014.
    .. [4] Y. Benjamini and Y. Hochberg, JRSS B 57 (1995) 289–300.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> ys = [rng.random(200) < 0.05 for _ in range(30)]
    >>> ss = [y * 0.5 + rng.normal(size=200) for y in ys]
    >>> res = map_significance(ss, ys)
    >>> res.method, res.n_queries, res.pvalue < 1e-4
    ('saddlepoint', 30, True)
    >>> bool(np.isnan(res.query_pvalue).all())
    True
    >>> res = map_significance(ss, ys, query_method="auto")
    >>> res.query_pvalue.shape, bool((res.query_pvalue_bh >= res.query_pvalue).all())
    ((30,), True)
    """
    if not isinstance(scores_list, (list, tuple)) or not isinstance(y_list, (list, tuple)):
        raise ValueError(
            "map_significance: scores_list and y_list must be lists with one array per query."
        )
    if len(scores_list) != len(y_list) or not scores_list:
        raise ValueError(
            f"map_significance: scores_list and y_list need one array per query; "
            f"got {len(scores_list)} and {len(y_list)}."
        )
    rtol = check_probability(rtol, "rtol", "map_significance")
    if query_method is None:
        ap, n, n_pos = query_average_precision(scores_list, y_list, ties=ties, pos_label=pos_label)
        qlg = None
    else:
        from .many import pranker_many

        many = pranker_many(
            list(scores_list),
            list(y_list),
            ties=ties,
            pos_label=pos_label,
            method=query_method,
            seed=seed,
            conf_level=conf_level,
        )
        ap, n, n_pos, qlg = many.auprc, many.n, many.n_pos, many.log10_pvalue
    return map_significance_from_ap(
        ap,
        n,
        n_pos,
        groups,
        method=method,
        seed=seed,
        rtol=rtol,
        max_draws=max_draws,
        conf_level=conf_level,
        query_log10_pvalues=qlg,
    )
