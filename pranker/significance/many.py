"""AUPRC and p-values for many rankings at once (one per query, class, factor...).

``pranker_many`` evaluates thousands of rankings in parallel (numba, one
thread per block of rankings), each with its own N and P, computes the exact
null moments and the beta fit once per distinct (N, P), and adds
Benjamini-Hochberg adjusted p-values across the rankings.

The p-values are those of :func:`pranker.pranker` with the same ``method``
(default ``"auto"``: exact where counting is instant, the exact-tilt
estimator otherwise), number for number. Rankings that share (N, P) share
one null: its recursions, its grid of tilts and its draws, so a batch costs
far less than its rankings one by one; for small problems (at most 2^17
cells) rankings of neighbouring sizes share the tilt's draws too
(:mod:`pranker.null.tilt`, "Neighbouring sizes, shared").

Input forms
-----------
- An array (any number of dimensions): every 1-D slice along ``axis`` is one
  ranking; results have the shape of the remaining axes.
- The same with ``mask`` (bool, same shape): only items with ``mask`` True
  belong to their ranking, so rankings of different lengths fit in one
  padded array. Masked-out entries are never read for their value (they may
  hold anything, NaN included).
- A list (or tuple) of 1-D arrays of different lengths for ``scores`` and
  the same for ``y``: one ranking per element (``axis`` must stay -1). This
  is padded into the masked form internally. (A list of equal-length rows is
  simply a 2-D array.)

Rankings without a positive
---------------------------
AP is undefined when P = 0. By default (``no_positive="raise"``) such a
ranking is an error that names it. With ``no_positive="nan"`` its results are
NaN, ``valid`` is False, and it takes no part in the Benjamini-Hochberg
adjustment. Rankings with P = N have AP = 1, a point-mass null (variance 0)
and p-value 1, as in :func:`pranker.pranker`.

Speed
-----
No ranking is sorted: the positives' scores are sorted and every item is
located among them by a bucketed search, which gives the tie groups exactly
(see :func:`pranker._numba.rows.row_ap`). Cost O(N + P log P) per ranking
for smooth score distributions (O(N log P) at worst), plus, per distinct (N, P), the
tail engine's recursions and draws (:mod:`pranker.null.tilt`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from .. import _format as _fmt
from .._display import MAX_ROWS, ResultDisplay
from .._numba import rows as _kernels_many
from .._numba import tiegroups as _k_tiegroups
from .._progress import progress_bar
from .._results import DeprecatedAlias, jsonable
from .._validation import (
    _as_label_array,
    _as_numeric_array,
    binarize_labels,
    check_ties,
    score_label_aliases,
)
from ..null.choice import DEFAULT_SEED, tilt_shared_n
from ..null.distributions import SaddlepointNull, TiltNull
from .figure import Plottable
from .options import PValueOptions
from .single import PrankerResult, null_interval_of

__all__ = ["ManyResult", "pranker_many"]

_COLUMNS = (
    "auprc",
    "pvalue",
    "log10_pvalue",
    "pvalue_bh",
    "log10_pvalue_bh",
    "pvalue_rse",
    "pvalue_interval",
    "log10_pvalue_interval",
    "method",
    "n_draws",
    "null_mean",
    "null_var",
    "n",
    "n_pos",
    "valid",
)
# (low, high) pairs of arrays
_INTERVALS = ("pvalue_interval", "log10_pvalue_interval", "null_interval")


@dataclass(frozen=True)
class ManyResult(ResultDisplay, Plottable):
    """Results of :func:`pranker_many`: one entry per ranking.

    Every array attribute has the batch shape ``shape`` (the input shape
    without the ranking axis; ``(R,)`` for a list of R rankings).

    Attributes
    ----------
    auprc, pvalue, log10_pvalue : ndarray of float
        Observed AP and its p-value P(AP_null >= auprc), exactly as
        :func:`pranker.pranker` computes them with the same ``method``;
        ``log10_pvalue`` stays finite where ``pvalue`` underflows.
    pvalue_bh, log10_pvalue_bh : ndarray of float
        Benjamini-Hochberg adjusted p-values over all valid rankings,
        computed in log space.
    pvalue_rse : ndarray of float
        Relative standard error of each p-value (0 exact, NaN for an
        approximation without an error estimate).
    pvalue_interval : (ndarray, ndarray)
        The ends (low, high) of each true p-value's confidence interval at
        ``conf_level`` (NaN for an approximation without an error bound).
    log10_pvalue_interval : (ndarray, ndarray)
        The same ends in log10, finite where ``pvalue_interval`` underflows
        to 0 (p-values below about 10^-308).
    method : ndarray of str (object)
        How each ranking's p-value was obtained (empty when invalid).
    n_draws : ndarray of float
        Random draws behind each p-value (NaN when none were drawn).
    null_mean, null_var : ndarray of float
        Exact null moments for each ranking's (N, P).
    n, n_pos : ndarray of int64
        Number of (unmasked) items and of positives of each ranking.
    valid : ndarray of bool
        False for rankings without a positive (only with ``no_positive="nan"``).
    conf_level : float
    ties : str
    requested_method : str
        The ``method`` asked for (``"auto"`` by default).
    seed : int or None
        Seed of the draws (tilt and Monte Carlo); None when no ranking's
        p-value was drawn.
    statistic : ndarray of float
        The observed AP again (scipy's name), as in every result type.
    null_interval : (ndarray, ndarray)
        The ends (low, high) of each ranking's central ``conf_level``
        interval of the null AP, from the null of its method (as
        ``row(i).null_interval``; NaN when invalid). Computed on first use,
        once per distinct (N, P): exact where the placements can be
        enumerated, else quantiles of 65,536 seeded random rankings (about
        0.02-0.2 s per distinct (N, P) with a hundred positives).

    ``None`` in a single result (``row(i)``) and NaN in these arrays both mean
    "not estimated"; ``to_dict()`` turns NaN into None.

    See Also
    --------
    pranker_many : Computes it.
    PrankerResult : The result for one ranking (``row(i)``).

    Examples
    --------
    Each entry is the answer of :func:`pranker.pranker` for its ranking:

    >>> import numpy as np
    >>> from pranker import pranker, pranker_many
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.random((3, 20))
    >>> y = rng.random((3, 20)) < 0.3
    >>> y[:, 0] = True
    >>> res = pranker_many(scores, y)
    >>> res.shape, [str(m) for m in res.method]
    ((3,), ['exact', 'exact', 'exact'])
    >>> bool(res.pvalue[1] == pranker(scores[1], y[1]).pvalue)
    True
    >>> res.row(1).n_pos == int(y[1].sum())
    True
    """

    auprc: np.ndarray
    pvalue: np.ndarray
    log10_pvalue: np.ndarray
    pvalue_bh: np.ndarray
    log10_pvalue_bh: np.ndarray
    pvalue_rse: np.ndarray
    pvalue_interval: tuple
    log10_pvalue_interval: tuple
    method: np.ndarray
    n_draws: np.ndarray
    null_mean: np.ndarray
    null_var: np.ndarray
    n: np.ndarray
    n_pos: np.ndarray
    valid: np.ndarray
    conf_level: float = 0.95
    ties: str = "average"
    requested_method: str = "auto"
    seed: int | None = DEFAULT_SEED

    @property
    def shape(self) -> tuple:
        return self.auprc.shape

    def __len__(self) -> int:
        return int(self.auprc.size)

    @property
    def statistic(self) -> np.ndarray:
        """The observed AP of each ranking (scipy's name)."""
        return self.auprc

    @functools.cached_property
    def null_interval(self) -> tuple:
        """(low, high) arrays: each ranking's central ``conf_level`` interval of the null AP."""
        rows = np.flatnonzero(self.valid.ravel())
        low, high = np.full(len(self), np.nan), np.full(len(self), np.nan)
        if rows.size:
            names, code = np.unique(self.method.ravel()[rows].astype(str), return_inverse=True)
            keys = np.stack([self.n.ravel()[rows], self.n_pos.ravel()[rows], code], axis=1)
            distinct, which = np.unique(keys, axis=0, return_inverse=True)
            ends = np.empty((distinct.shape[0], 2))
            for k, (n, n_pos, m) in enumerate(distinct.tolist()):
                null = PValueOptions(method=str(names[m]), seed=self.seed).null(n, n_pos)
                ends[k] = null_interval_of(null, self.conf_level)
            low[rows], high[rows] = ends[which.ravel(), 0], ends[which.ravel(), 1]
        return low.reshape(self.shape), high.reshape(self.shape)

    # earlier names, kept until 0.5.0
    pvalue_low = DeprecatedAlias("pvalue_interval", 0)
    pvalue_high = DeprecatedAlias("pvalue_interval", 1)

    def _table(self):
        d = self._columns()
        rows_all = np.flatnonzero(d["valid"])
        shown = rows_all[:MAX_ROWS]
        headers = ["ranking", "N", "P", "method", "AUPRC", "p-value", "p (BH)", "null mean"]
        rows = []
        for i in shown:
            lo, hi = d["pvalue_interval"][i]
            one = SimpleNamespace(
                pvalue=d["pvalue"][i],
                log10_pvalue=d["log10_pvalue"][i],
                method=d["method"][i],
                pvalue_interval=None if np.isnan(lo) else (lo, hi),
                pvalue_rse=None if np.isnan(d["pvalue_rse"][i]) else d["pvalue_rse"][i],
            )
            lg_bh = d["log10_pvalue_bh"][i]
            rows.append(
                [
                    str(i),
                    f"{int(d['n'][i]):,}",
                    f"{int(d['n_pos'][i]):,}",
                    str(d["method"][i]),
                    _fmt.sig(d["auprc"][i], 4),
                    _fmt.pvalue_text(one),
                    _fmt.pvalue_number(d["pvalue_bh"][i], lg_bh, 3),
                    _fmt.sig(d["null_mean"][i], 4),
                ]
            )
        total = len(self)
        caption = f"AUPRC of {total:,} rankings against random ranking (ties = {self.ties})"
        note = "p (BH): Benjamini-Hochberg adjusted over the valid rankings"
        if shown.size < total:
            note += f"; showing {shown.size} of {total:,} (to_pandas() gives them all)"
        return caption, headers, rows, note

    def _columns(self, names=_COLUMNS) -> dict:
        """Each column flattened (C order), one entry per ranking; intervals as (R, 2)."""
        d = {}
        for name in names:
            if name in _INTERVALS:
                lo, hi = getattr(self, name)
                d[name] = np.stack([lo.ravel(), hi.ravel()], axis=1)
            else:
                d[name] = getattr(self, name).ravel()
        return d

    def to_dict(self, *, null_interval: bool = True) -> dict:
        """JSON-ready columns: one list entry per ranking (C order), None where not
        estimated (interval entries are ``[low, high]`` or None); then the batch's
        ``conf_level``, ``ties``, ``requested_method`` and ``seed`` (scalars, which
        ``pandas.DataFrame`` repeats on every row).

        The columns are ``statistic`` (the AP, also ``auprc``) and every other
        field of the result, ``null_interval`` included: computed here if it was
        not used before, about 65,536 random rankings per distinct (N, P) for
        the tilt (tens of milliseconds each). ``null_interval=False`` leaves
        that column out, for a quick table of many rankings of distinct sizes.
        """
        names = ("statistic", *_COLUMNS) + (("null_interval",) if null_interval else ())
        d = self._columns(names)
        intervals = {name: d.pop(name) for name in _INTERVALS if name in d}
        out = jsonable(d)
        for name, iv in intervals.items():
            out[name] = [None if np.isnan(p).any() else p.tolist() for p in iv]
        cols = {name: out[name] for name in names}
        meta = ("conf_level", "ties", "requested_method", "seed")
        return cols | {k: getattr(self, k) for k in meta}

    def to_pandas(self, *, null_interval: bool = True):
        """A ``pandas.DataFrame`` with one row per ranking (needs pandas): the columns
        of :meth:`to_dict` (``null_interval=False`` leaves that column out)."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError(
                "to_pandas() needs pandas: pip install pandas (or pip install 'pranker[all]'); "
                "to_dict() gives the same columns as plain lists."
            ) from exc
        return pd.DataFrame(self.to_dict(null_interval=null_interval))

    def row(self, i: int) -> PrankerResult:
        """The result of ranking ``i`` (flat index) as a :class:`PrankerResult`."""
        d = self._columns()
        size = d["auprc"].shape[0]
        if not -size <= i < size:
            raise IndexError(f"ranking index {i} out of range for {size} rankings.")
        if not d["valid"][i]:
            raise ValueError(f"ranking {i} has no positive: its AP is undefined.")
        method = str(d["method"][i])
        n, n_pos = int(d["n"][i]), int(d["n_pos"][i])
        null = PValueOptions(method=method, seed=self.seed).null(n, n_pos)
        rse = float(d["pvalue_rse"][i])
        lo, hi = (float(v) for v in d["pvalue_interval"][i])
        llo, lhi = (float(v) for v in d["log10_pvalue_interval"][i])
        draws = float(d["n_draws"][i])
        return PrankerResult(
            auprc=float(d["auprc"][i]),
            pvalue=float(d["pvalue"][i]),
            log10_pvalue=float(d["log10_pvalue"][i]),
            pvalue_interval=None if np.isnan(lo) else (lo, hi),
            log10_pvalue_interval=None if np.isnan(llo) else (llo, lhi),
            pvalue_rse=None if np.isnan(rse) else rse,
            method=method,
            n=n,
            n_pos=n_pos,
            null_mean=float(d["null_mean"][i]),
            null_var=float(d["null_var"][i]),
            conf_level=self.conf_level,
            ties=self.ties,
            n_draws=None if np.isnan(draws) else int(draws),
            seed=self.seed if method in ("tilt", "montecarlo") else None,
            null=null,
        )


def _ragged(scores, y, axis, pos_label=None):
    """Pad a list of 1-D score arrays (and labels) into 2-D arrays plus a mask."""
    if axis != -1:
        raise ValueError("axis applies to array input; a list of rankings needs axis=-1.")
    if not isinstance(y, (list, tuple)) or len(y) != len(scores):
        raise ValueError(
            f"scores is a list of {len(scores)} rankings, so y must be a list of as many "
            f"label arrays; got {type(y).__name__}"
            + (f" of length {len(y)}." if isinstance(y, (list, tuple)) else ".")
        )
    rows_s = []
    rows_y = []
    for i, (s_i, y_i) in enumerate(zip(scores, y, strict=True)):
        a = _as_numeric_array(s_i, f"scores[{i}]")
        b = _as_label_array(y_i, f"y[{i}]", "pranker_many")
        if a.ndim != 1 or b.ndim != 1:
            raise ValueError(
                f"ranking {i}: scores and y must be 1-D; got shapes {a.shape} and {b.shape}."
            )
        if a.shape != b.shape:
            raise ValueError(
                f"ranking {i}: scores and y differ in length ({a.shape[0]} vs {b.shape[0]})."
            )
        rows_s.append(a)
        rows_y.append(
            binarize_labels(b, pos_label=pos_label, name=f"y[{i}]", where="pranker_many", scores=a)
        )
    lengths = np.array([a.shape[0] for a in rows_s], dtype=np.int64)
    width = int(lengths.max()) if lengths.size else 0
    s2 = np.zeros((len(rows_s), width))
    y2 = np.zeros((len(rows_s), width), dtype=bool)
    mask = np.arange(width)[None, :] < lengths[:, None]
    for i, (a, b) in enumerate(zip(rows_s, rows_y, strict=True)):
        s2[i, : a.shape[0]] = a
        y2[i, : b.shape[0]] = b
    return s2, y2, mask


def _kernel_mask(m2):
    """``(use_mask, mask)`` as the row kernels take them: a dummy 1x1 mask when there is none."""
    use_mask = m2 is not None
    return use_mask, (m2 if use_mask else np.ones((1, 1), dtype=bool))


def _row_buffers(R):
    """The row kernels' outputs for ``R`` rankings: AP, N, number of positives, status code."""
    return (
        np.empty(R),
        np.empty(R, dtype=np.int64),
        np.empty(R, dtype=np.int64),
        np.empty(R, dtype=np.int8),
    )


def _prepare(scores, y, axis, mask, pos_label=None):
    """Return 2-D scores, labels, mask (or None) and the batch shape."""
    if (
        isinstance(scores, (list, tuple))
        and len(scores) > 0
        and all(np.ndim(r) == 1 for r in scores)
        and len({np.shape(r) for r in scores}) > 1
    ):
        if mask is not None:
            raise ValueError("mask is for array input; a list of rankings needs no mask.")
        s2, y2, m2 = _ragged(scores, y, axis, pos_label)
        return s2, y2, m2, (s2.shape[0],)
    s = _as_numeric_array(scores, "scores")
    if s.dtype.kind == "c":
        raise TypeError("scores must be real-valued.")
    if s.dtype not in (np.float64, np.float32):
        s = s.astype(np.float64)
    y_arr = _as_label_array(y, "y", "pranker_many")
    if s.ndim == 0:
        raise ValueError("scores must have at least one dimension (the ranking axis).")
    if y_arr.shape != s.shape:
        raise ValueError(f"scores and y must have the same shape; got {s.shape} and {y_arr.shape}.")
    m = None
    if mask is not None:
        m = np.asarray(mask)
        if m.dtype != np.bool_:
            raise TypeError(
                f"mask must be boolean (True = item belongs to the ranking); got {m.dtype}."
            )
        if m.shape != s.shape:
            raise ValueError(f"mask must have the shape of scores {s.shape}; got {m.shape}.")
    if m is None:
        yb = binarize_labels(y_arr, pos_label=pos_label, name="y", where="pranker_many", scores=s)
    else:  # padding may hold anything: only the items of the rankings are labels
        yb = np.zeros(s.shape, dtype=bool)
        if m.any():
            yb[m] = binarize_labels(
                y_arr[m], pos_label=pos_label, name="y", where="pranker_many", scores=s[m]
            )
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"axis must be an integer; got {axis!r}.")
    if not -s.ndim <= axis < s.ndim:
        raise ValueError(f"axis {axis} is out of range for scores with {s.ndim} dimension(s).")
    ax = int(axis) % s.ndim
    batch = s.shape[:ax] + s.shape[ax + 1 :]
    width = s.shape[ax]

    rows = int(np.prod(batch, dtype=np.int64))

    def to2d(a):
        return np.moveaxis(a, ax, -1).reshape(rows, width)

    return to2d(s), to2d(yb), (None if m is None else to2d(m)), batch


@score_label_aliases
def pranker_many(
    scores,
    y,
    axis: int = -1,
    *,
    pos_label=None,
    mask=None,
    ties: str = "average",
    conf_level: float = 0.95,
    no_positive: str = "raise",
    progress: bool | None = False,
    method: str = "auto",
    rtol: float | None = None,
    seed: int | None = None,
    n_draws: int | None = None,
    alpha: float | None = None,
    max_nodes: int | None = None,
    max_work: int | None = None,
) -> ManyResult:
    """AUPRC, p-values and BH-adjusted p-values for many rankings in parallel.

    Parameters
    ----------
    scores : array_like or list of 1-D array_like
        Scores; every slice along ``axis`` is one ranking (higher = better).
        A list of 1-D arrays of different lengths is a ragged batch (see the
        module documentation). NaN is an error unless masked out.
    y : array_like or list of 1-D array_like
        Labels of the same shape: 0/1, booleans or -1/1 (1 is the positive
        class), or any values with ``pos_label``.
    pos_label : scalar, optional
        The label of the positive class (every other value is negative).
    axis : int
        The ranking axis of array input.
    mask : array_like of bool, optional
        Same shape as ``scores``; False marks padding that is not part of
        its ranking. Each ranking's N is its number of True entries.
    ties : {"average", "stable", "threshold", "optimistic", "pessimistic"}
        Tie handling, as in :func:`pranker.auprc_ap` (``"stable"`` uses the
        order along ``axis`` and takes one more pass).
    conf_level : float
        Coverage of each p-value's confidence interval ``pvalue_interval``.
    no_positive : {"raise", "nan"}
        What a ranking without a positive does: raise (default) or give NaN
        results with ``valid`` False.
    progress : bool or None
        Show a progress bar (needs tqdm); None = only on a terminal.
    method : {"auto", "exact", "tilt", "saddlepoint", "montecarlo", "beta", "skewbeta"}
        As in :func:`pranker.pranker` (default ``"auto"``), with the same
        numbers; the ``method`` column says what each ranking used.
    rtol : float, optional
        Target relative standard error of tilt p-values (default 0.02). The
        tilt's cost is in its draws, about ``1 / rtol**2`` of them per
        ranking (rankings that share (N, P) and a cell of the grid of tilts
        share them): thousands of rankings take minutes at the default.
        ``rtol=0.2`` is 100 times cheaper and still decides ``p < 0.05``
        unless p is within ~40 % of 0.05; ``method="beta"`` is O(1) per
        ranking but wrong by orders of magnitude in the tail.
    seed : int, optional
        Seed of the tilt and Monte Carlo draws (default: the fixed seed of
        :func:`pranker.pranker`, so each ranking gets the same p-value as
        there).
    n_draws, alpha, max_nodes : optional
        As in :func:`pranker.pranker`: Monte Carlo draws and early stopping,
        the step budget of the exact count.
    max_work : int, optional
        Work budget of each estimated (tilt) p-value, in deterministic units
        (about 1 ns each on the reference machine; default 1.8e9, about a
        stable sort of 10^7 numbers). A p-value that reaches it before
        ``rtol`` reports the relative standard error it reached and the
        wider interval that goes with it, and warns
        (:class:`pranker.WorkBudgetWarning`); each ranking gets the same
        number as from :func:`pranker.pranker`.

    Returns
    -------
    ManyResult
        ``to_dict()`` / ``to_pandas()`` give a table with one row per ranking;
        ``row(i)`` gives ranking i as a :class:`pranker.PrankerResult`.

    See Also
    --------
    pranker : One ranking.
    average_precision_many : The APs alone.
    map_significance : The mean AP over many queries, tested as one statistic.

    References
    ----------
    .. [1] M. Lopes and G. Bontempi, "On the null distribution of the precision
       and recall curve", ECML PKDD 2014, doi:10.1007/978-3-662-44851-9_21.
    .. [2] Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate",
       J. R. Stat. Soc. B 57 (1995) 289-300.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random((3, 200)) < 0.1
    >>> scores = rng.standard_normal((3, 200)) + 2.0 * y * np.array([[0.0], [1.0], [2.0]])
    >>> res = pranker_many(scores, y)
    >>> res.shape, bool(res.pvalue[2] < res.pvalue[0])
    ((3,), True)
    >>> res.method.tolist()
    ['tilt', 'tilt', 'tilt']
    >>> ragged = pranker_many([[0.9, 0.1, 0.5], [0.3, 0.8, 0.1, 0.2]], [[1, 0, 0], [0, 1, 0, 1]])
    >>> ragged.auprc.round(4).tolist(), ragged.n.tolist(), ragged.n_pos.tolist()
    ([1.0, 0.8333], [3, 4], [1, 2])
    """
    check_ties(ties)
    options = PValueOptions.checked(
        "pranker_many",
        method=method,
        conf_level=conf_level,
        rtol=rtol,
        n_draws=n_draws,
        seed=DEFAULT_SEED if seed is None else seed,
        alpha=alpha,
        max_nodes=max_nodes,
        max_work=max_work,
        progress=False,  # the bar is over rankings, not inside each p-value
    )
    if no_positive not in ("raise", "nan"):
        raise ValueError(f"no_positive must be 'raise' or 'nan'; got {no_positive!r}.")
    s2, y2, m2, batch = _prepare(scores, y, axis, mask, pos_label)
    ap, n, npos, empty = _batch_ap(s2, y2, m2, ties, progress, no_positive)
    R = ap.shape[0]
    valid = ~empty
    out = _pvalues(ap, n, npos, valid, options, progress)
    log_bh = np.full(R, np.nan)
    if valid.any():
        log_bh[valid] = bh_log10(out["log10_pvalue"][valid])
    out["log10_pvalue_bh"] = log_bh
    bh = np.where(np.isnan(log_bh), np.nan, 10.0 ** np.maximum(log_bh, -400.0))
    out["pvalue_bh"] = np.where(
        valid, np.maximum(bh, out["pvalue"]), np.nan
    )  # q >= p, also after rounding
    return _many_result(out, ap, n, npos, valid, batch, options, ties)


def bh_log10(log10_p: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values, in log10, from log10 p-values.

    ``q_(i) = min_{j >= i} m p_(j) / j`` capped at 1 (Benjamini & Hochberg
    1995), computed on logs so that p-values below 1e-308 keep their order
    and their adjusted values.

    Examples
    --------
    >>> bh_log10(np.log10([0.01, 0.04, 0.03, 0.5])).round(4).tolist()
    [-1.3979, -1.273, -1.273, -0.301]
    """
    lp = np.asarray(log10_p, dtype=np.float64)
    m = lp.size
    if m == 0:
        return lp.copy()
    order = np.argsort(lp, kind="stable")
    ranks = np.arange(1, m + 1, dtype=np.float64)
    q = lp[order] + math.log10(m) - np.log10(ranks)
    q = np.minimum.accumulate(q[::-1])[::-1]
    q = np.maximum(q, lp[order])  # q >= p, also where adding and removing log10(m) rounds
    out = np.empty(m)
    out[order] = np.minimum(q, 0.0)
    return out


def _batch_ap(s2, y2, m2, ties, progress, no_positive):
    """AP, N, P of every ranking of the prepared batch, and which have no positive
    (an error unless ``no_positive="nan"``)."""
    R = s2.shape[0]
    if R == 0:
        raise ValueError("no rankings given (the batch is empty).")
    use_mask, mk = _kernel_mask(m2)
    ap, n, npos, status = _row_buffers(R)
    mode = _k_tiegroups.MODE_CODES[ties]
    n_blocks = 1 if not progress else min(R, 50)
    edges = np.linspace(0, R, n_blocks + 1).astype(np.int64)
    with progress_bar(R, "rankings", progress) as bar:
        for b in range(n_blocks):
            lo, hi = int(edges[b]), int(edges[b + 1])
            _kernels_many.ap_rows(s2, y2, mk, use_mask, mode, lo, hi, ap, n, npos, status)
            bar.update(hi - lo)
    bad_nan = np.flatnonzero(status == _kernels_many.ROW_NAN)
    if bad_nan.size:
        raise ValueError(
            f"{bad_nan.size} ranking(s) contain NaN scores (first: ranking {int(bad_nan[0])}, "
            "flat index over the batch). Remove or impute them, or set mask=False there."
        )
    empty = status == _kernels_many.ROW_NO_POSITIVE
    if empty.any() and no_positive == "raise":
        idx = np.flatnonzero(empty)
        raise ValueError(
            f"{idx.size} ranking(s) have no positive label, so AUPRC is undefined (first: "
            f"{idx[:5].tolist()}, flat indices over the batch). Pass no_positive='nan' to get "
            "NaN results flagged valid=False for them."
        )
    return ap, n, npos, empty


def _many_result(out, ap, n, npos, valid, batch, options, ties) -> ManyResult:
    """The :class:`ManyResult` of the columns, in the batch's shape."""
    low, high = out.pop("pvalue_low"), out.pop("pvalue_high")
    log_low, log_high = out.pop("log10_low"), out.pop("log10_high")
    cols = dict(out, auprc=ap, n=n, n_pos=npos, valid=valid)
    shaped = {k: np.asarray(v).reshape(batch) for k, v in cols.items()}
    return ManyResult(
        **shaped,
        pvalue_interval=(low.reshape(batch), high.reshape(batch)),
        log10_pvalue_interval=(log_low.reshape(batch), log_high.reshape(batch)),
        conf_level=options.conf_level,
        ties=ties,
        requested_method=options.method,
        seed=(DEFAULT_SEED if options.seed is None else options.seed)
        if np.isfinite(cols["n_draws"]).any()
        else None,
    )


def _pvalues(ap, n, npos, valid, options: PValueOptions, progress):
    """Every valid ranking's p-value, as :func:`pranker.significance_from_ap` gives it.

    Rankings are grouped by (N, P), and where the tilt's sizes share draws
    (:func:`pranker.null.choice.tilt_shared_n`) by the bin of N: a group shares
    its null's engine, its grid of tilts and its draws (visited in
    increasing AP, each search starting from the previous ranking's grid
    point).
    """
    R = ap.shape[0]
    res = {
        k: np.full(R, np.nan)
        for k in (
            "pvalue",
            "log10_pvalue",
            "pvalue_rse",
            "pvalue_low",
            "pvalue_high",
            "log10_low",
            "log10_high",
            "null_mean",
            "null_var",
            "n_draws",
        )
    }
    conf_level = options.conf_level
    used = np.full(R, "", dtype=object)
    rows = np.flatnonzero(valid)
    if rows.size == 0:
        res["method"] = used
        return res
    # the group of a ranking: (N, P), or (N', P) for the bin's top size N' where sizes share draws
    pairs, inverse = np.unique(np.stack([n[rows], npos[rows]], axis=1), axis=0, return_inverse=True)
    shared_n = np.array([tilt_shared_n(N, P) or N for N, P in pairs.tolist()], dtype=np.int64)[
        inverse.ravel()
    ]
    key = shared_n * (int(npos[rows].max()) + 1) + npos[rows]
    order = np.lexsort((ap[rows], key))
    rows = rows[order]
    key = key[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    ends = np.r_[starts[1:], rows.size]
    with progress_bar(rows.size, "p-values", progress) as bar:
        for a, b in zip(starts, ends, strict=True):
            grp = rows[a:b]
            nulls: dict = {}  # N -> its null (one N per group unless sizes share draws)
            for i in grp:
                N, P = int(n[i]), int(npos[i])
                null = nulls.get(N)
                if null is None:
                    null = nulls[N] = options.null(N, P)
                x = float(ap[i])
                if isinstance(null, TiltNull) and 1 < P < N and null.edge_pvalue(x) is None:
                    eng, _ = null.upper_engine()
                    s = x * P
                    index = None if eng.compressed else eng.sampling_point(s, 1)
                    pv = null.tail_pvalue(x, conf_level=conf_level, index=index)
                else:
                    pv = null.pvalue(x, conf_level=conf_level)
                res["pvalue"][i] = pv.pvalue
                res["log10_pvalue"][i] = pv.log10_pvalue
                res["pvalue_rse"][i] = np.nan if pv.pvalue_rse is None else pv.pvalue_rse
                if pv.pvalue_interval is not None:
                    res["pvalue_low"][i], res["pvalue_high"][i] = pv.pvalue_interval
                if pv.log10_pvalue_interval is not None:
                    res["log10_low"][i], res["log10_high"][i] = pv.log10_pvalue_interval
                used[i] = pv.method
                if pv.n_draws is not None:
                    res["n_draws"][i] = pv.n_draws
                res["null_mean"][i] = null.mean
                res["null_var"][i] = null.var
            for N, null in nulls.items():
                # the group's layers and draws (up to ~160 MB) are not kept for the next group
                if isinstance(null, TiltNull) and 1 < P < N:
                    null.release()
                elif isinstance(null, SaddlepointNull) and 1 < P < N:
                    null.engine.release()
            bar.update(b - a)
    res["method"] = used
    return res
