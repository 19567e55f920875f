"""AUPRC and p-values for many rankings at once (one per query, class, factor...).

``pranker_many`` evaluates thousands of rankings in parallel (numba, one
thread per block of rankings), each with its own N and P, computes the exact
null moments and the beta fit once per distinct (N, P), and adds
Benjamini-Hochberg adjusted p-values across the rankings.

By default the p-values are those of ``pranker(..., method="beta")``: O(1)
per ranking, but unreliable when P is small or N / P large
(docs/calibration.md). ``method="auto"`` (the default of
:func:`pranker.pranker`) computes each ranking's p-value as ``pranker()``
does, one ranking at a time.

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
(see :func:`pranker._kernels_many.row_ap`). Cost O(N + P log P) per ranking
for smooth score distributions (O(N log P) at worst), plus O(1) per distinct
(N, P) for the null and one vectorised beta tail per ranking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from . import _kernels, _kernels_many
from ._progress import progress_bar
from ._validation import _as_numeric_array, check_ties
from .significance import METHODS, BetaFit, PrankerResult, _check_conf_level

__all__ = ["ManyResult", "pranker_many"]

_COLUMNS = (
    "auprc",
    "pvalue",
    "pvalue_bh",
    "null_mean",
    "null_var",
    "n",
    "n_pos",
    "conf_low",
    "conf_high",
    "beta_alpha",
    "beta_beta",
    "min_auprc",
    "valid",
    "pvalue_method",
)


@dataclass(frozen=True)
class ManyResult:
    """Results of :func:`pranker_many`: one entry per ranking.

    Every array attribute has the batch shape ``shape`` (the input shape
    without the ranking axis; ``(R,)`` for a list of R rankings).

    Attributes
    ----------
    auprc, pvalue : ndarray of float
        Observed AP and its p-value P(AP_null >= auprc), as
        :func:`pranker.pranker` computes them with the requested ``method``.
    pvalue_bh : ndarray of float
        Benjamini-Hochberg adjusted p-values over all valid rankings
        (``scipy.stats.false_discovery_control``).
    null_mean, null_var : ndarray of float
        Exact null moments for each ranking's (N, P).
    n, n_pos : ndarray of int64
        Number of (unmasked) items and of positives of each ranking.
    conf_low, conf_high : ndarray of float
        Central ``conf_level`` interval of the null AUPRC.
    beta_alpha, beta_beta : ndarray of float
        Fitted beta shapes (NaN for a point-mass null, P = N).
    min_auprc : ndarray of float
        Lower end of the null support.
    pvalue_method : ndarray of str (object)
        How each ranking's p-value was obtained (empty when invalid).
    valid : ndarray of bool
        False for rankings without a positive (only with ``no_positive="nan"``).
    conf_level : float
    ties : str
    method : str
        The requested method; ``pvalue_method`` holds what each ranking used
        (``"beta"``, ``"exact"``, ``"montecarlo"``, ...; empty when invalid).
    """

    auprc: np.ndarray
    pvalue: np.ndarray
    pvalue_bh: np.ndarray
    null_mean: np.ndarray
    null_var: np.ndarray
    n: np.ndarray
    n_pos: np.ndarray
    conf_low: np.ndarray
    conf_high: np.ndarray
    beta_alpha: np.ndarray
    beta_beta: np.ndarray
    min_auprc: np.ndarray
    valid: np.ndarray
    pvalue_method: np.ndarray
    conf_level: float = 0.95
    ties: str = "average"
    method: str = "beta"

    @property
    def shape(self) -> tuple:
        return self.auprc.shape

    def __len__(self) -> int:
        return int(self.auprc.size)

    def to_dict(self) -> dict:
        """Columns as a dict of flat (1-D) arrays, one entry per ranking (C order)."""
        return {name: getattr(self, name).ravel() for name in _COLUMNS}

    def to_pandas(self):
        """A ``pandas.DataFrame`` with one row per ranking (needs pandas)."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError(
                "to_pandas() needs pandas: pip install pandas (or pip install 'pranker[all]'); "
                "to_dict() gives the same columns as numpy arrays."
            ) from exc
        return pd.DataFrame(self.to_dict())

    def row(self, i: int) -> PrankerResult:
        """The result of ranking ``i`` (flat index) as a :class:`PrankerResult`."""
        d = self.to_dict()
        size = d["auprc"].shape[0]
        if not -size <= i < size:
            raise IndexError(f"ranking index {i} out of range for {size} rankings.")
        if not d["valid"][i]:
            raise ValueError(f"ranking {i} has no positive: its AP is undefined.")
        return PrankerResult(
            auprc=float(d["auprc"][i]),
            pvalue=float(d["pvalue"][i]),
            null_mean=float(d["null_mean"][i]),
            null_var=float(d["null_var"][i]),
            n=int(d["n"][i]),
            n_pos=int(d["n_pos"][i]),
            conf_int=(float(d["conf_low"][i]), float(d["conf_high"][i])),
            conf_level=self.conf_level,
            beta_alpha=float(d["beta_alpha"][i]),
            beta_beta=float(d["beta_beta"][i]),
            min_auprc=float(d["min_auprc"][i]),
            method=str(d["pvalue_method"][i]),
            ties=self.ties,
        )


def _as_bool(arr: np.ndarray, name: str) -> np.ndarray:
    if arr.dtype == np.bool_:
        return arr
    if arr.dtype.kind == "f":
        nan = np.isnan(arr)
        if nan.any():
            first = np.unravel_index(int(np.flatnonzero(nan)[0]), arr.shape)
            raise ValueError(
                f"{name} contains {int(nan.sum())} NaN value(s); the first is at index "
                f"{tuple(int(i) for i in first)}. Labels must be 0/1 (nonzero = positive)."
            )
    return arr != 0


def _ragged(scores, y, axis):
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
        b = _as_numeric_array(y_i, f"y[{i}]")
        if a.ndim != 1 or b.ndim != 1:
            raise ValueError(
                f"ranking {i}: scores and y must be 1-D; got shapes {a.shape} and {b.shape}."
            )
        if a.shape != b.shape:
            raise ValueError(
                f"ranking {i}: scores and y differ in length ({a.shape[0]} vs {b.shape[0]})."
            )
        rows_s.append(a)
        rows_y.append(_as_bool(b, f"y[{i}]"))
    lengths = np.array([a.shape[0] for a in rows_s], dtype=np.int64)
    width = int(lengths.max()) if lengths.size else 0
    s2 = np.zeros((len(rows_s), width))
    y2 = np.zeros((len(rows_s), width), dtype=bool)
    mask = np.arange(width)[None, :] < lengths[:, None]
    for i, (a, b) in enumerate(zip(rows_s, rows_y, strict=True)):
        s2[i, : a.shape[0]] = a
        y2[i, : b.shape[0]] = b
    return s2, y2, mask


def _prepare(scores, y, axis, mask):
    """Return 2-D scores, labels, mask (or None) and the batch shape."""
    if (
        isinstance(scores, (list, tuple))
        and len(scores) > 0
        and all(np.ndim(r) == 1 for r in scores)
        and len({np.shape(r) for r in scores}) > 1
    ):
        if mask is not None:
            raise ValueError("mask is for array input; a list of rankings needs no mask.")
        s2, y2, m2 = _ragged(scores, y, axis)
        return s2, y2, m2, (s2.shape[0],)
    s = _as_numeric_array(scores, "scores")
    if s.dtype.kind == "c":
        raise TypeError("scores must be real-valued.")
    if s.dtype not in (np.float64, np.float32):
        s = s.astype(np.float64)
    yb = _as_numeric_array(y, "y")
    if s.ndim == 0:
        raise ValueError("scores must have at least one dimension (the ranking axis).")
    if yb.shape != s.shape:
        raise ValueError(
            f"scores and y must have the same shape; got {s.shape} and {yb.shape}."
        )
    yb = _as_bool(yb, "y")
    m = None
    if mask is not None:
        m = np.asarray(mask)
        if m.dtype != np.bool_:
            raise TypeError(
                f"mask must be boolean (True = item belongs to the ranking); got {m.dtype}."
            )
        if m.shape != s.shape:
            raise ValueError(f"mask must have the shape of scores {s.shape}; got {m.shape}.")
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


def pranker_many(
    scores,
    y,
    axis: int = -1,
    *,
    mask=None,
    ties: str = "average",
    conf_level: float = 0.95,
    no_positive: str = "raise",
    progress: bool | None = False,
    method: str = "beta",
    seed: int | None = None,
) -> ManyResult:
    """AUPRC, p-values and BH-adjusted p-values for many rankings in parallel.

    Parameters
    ----------
    scores : array_like or list of 1-D array_like
        Scores; every slice along ``axis`` is one ranking (higher = better).
        A list of 1-D arrays of different lengths is a ragged batch (see the
        module documentation). NaN is an error unless masked out.
    y : array_like or list of 1-D array_like
        Labels of the same shape (nonzero = positive).
    axis : int
        The ranking axis of array input.
    mask : array_like of bool, optional
        Same shape as ``scores``; False marks padding that is not part of
        its ranking. Each ranking's N is its number of True entries.
    ties : {"average", "stable", "threshold", "optimistic", "pessimistic"}
        Tie handling, as in :func:`pranker.auprc_ap` (``"stable"`` uses the
        order along ``axis`` and takes one more pass).
    conf_level : float
        Coverage of the null interval ``(conf_low, conf_high)``.
    no_positive : {"raise", "nan"}
        What a ranking without a positive does: raise (default) or give NaN
        results with ``valid`` False.
    progress : bool or None
        Show a progress bar (needs tqdm); None = only on a terminal.
    method : {"beta", "auto", "exact", "montecarlo", "skewbeta"}
        ``"beta"`` (default): the vectorised beta p-value, O(1) per ranking
        (unreliable for small P or large N / P, docs/calibration.md). Any other
        method is that of :func:`pranker.pranker`, applied to each ranking's
        AP, N and P in turn (exact counts and Monte Carlo cost far more per
        ranking); ``pvalue_method`` says what each ranking used.
    seed : int, optional
        Monte Carlo seed; ranking ``i`` (flat index) uses ``seed + i``.

    Returns
    -------
    ManyResult
        ``to_dict()`` / ``to_pandas()`` give a table with one row per ranking;
        ``row(i)`` gives ranking i as a :class:`pranker.PrankerResult`.

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
    >>> from pranker import pranker
    >>> bool(np.isclose(res.pvalue[1], pranker(scores[1], y[1], method="beta").pvalue, rtol=1e-12))
    True
    >>> ragged = pranker_many([[0.9, 0.1, 0.5], [0.3, 0.8, 0.1, 0.2]], [[1, 0, 0], [0, 1, 0, 1]])
    >>> ragged.auprc.round(4).tolist(), ragged.n.tolist(), ragged.n_pos.tolist()
    ([1.0, 0.8333], [3, 4], [1, 2])
    """
    check_ties(ties)
    conf_level = _check_conf_level(conf_level)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}.")
    if no_positive not in ("raise", "nan"):
        raise ValueError(f"no_positive must be 'raise' or 'nan'; got {no_positive!r}.")
    s2, y2, m2, batch = _prepare(scores, y, axis, mask)
    R = s2.shape[0]
    if R == 0:
        raise ValueError("no rankings given (the batch is empty).")
    use_mask = m2 is not None
    mk = m2 if use_mask else np.ones((1, 1), dtype=bool)
    ap = np.empty(R)
    n = np.empty(R, dtype=np.int64)
    npos = np.empty(R, dtype=np.int64)
    status = np.empty(R, dtype=np.int8)
    mode = _kernels.MODE_CODES[ties]
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
    valid = ~empty
    out = _null_and_pvalues(ap, n, npos, valid, conf_level)
    used = np.where(valid, "beta", "").astype(object)
    if method != "beta":
        _replace_pvalues(out, used, ap, n, npos, valid, method, seed, conf_level, progress)
    out["pvalue_method"] = used
    pvalue_bh = np.full(R, np.nan)
    if valid.any():
        from scipy.stats import false_discovery_control  # lazy: scipy.stats is slow to import

        pvalue_bh[valid] = false_discovery_control(out["pvalue"][valid], method="bh")
    cols = dict(out, auprc=ap, pvalue_bh=pvalue_bh, n=n, n_pos=npos, valid=valid)
    shaped = {k: np.asarray(v).reshape(batch) for k, v in cols.items()}
    return ManyResult(**shaped, conf_level=conf_level, ties=ties, method=method)


def _replace_pvalues(out, used, ap, n, npos, valid, method, seed, conf_level, progress):
    """p-values of ``pranker(method=...)`` for every valid ranking (one call per ranking:
    the exact count and the Monte Carlo test depend on each ranking's AP)."""
    from .significance import significance_from_ap

    rows = np.flatnonzero(valid)
    with progress_bar(rows.size, f"p-values ({method})", progress) as bar:
        for i in rows:
            res = significance_from_ap(
                float(ap[i]), int(n[i]), int(npos[i]), conf_level=conf_level, method=method,
                seed=None if seed is None else int(seed) + int(i),
            )
            out["pvalue"][i] = res.pvalue
            used[i] = res.method
            bar.update(1)


def _null_and_pvalues(ap, n, npos, valid, conf_level):
    """Null moments and beta fit once per distinct (N, P); beta p-value per ranking.

    Mirrors :func:`pranker.significance.beta_fit`, ``BetaFit.sf`` (including
    its floor at 1 / C(N, P)) and ``BetaFit.interval`` step for step, so each
    ranking's p-value equals :func:`pranker.pranker`'s (the tests check it).
    """
    R = ap.shape[0]
    res = {
        k: np.full(R, np.nan)
        for k in ("pvalue", "null_mean", "null_var", "conf_low", "conf_high", "beta_alpha",
                  "beta_beta", "min_auprc")
    }
    if not valid.any():
        return res
    nv = n[valid]
    pv = npos[valid]
    key = nv * (int(pv.max()) + 1) + pv
    _, first, inv = np.unique(key, return_index=True, return_inverse=True)
    un = np.ascontiguousarray(nv[first])
    up = np.ascontiguousarray(pv[first])
    u = un.shape[0]
    mean, var, a, span, alpha, beta = (np.empty(u) for _ in range(6))
    ok = np.empty(u, dtype=np.bool_)
    _kernels_many.null_table_kernel(un, up, mean, var, a, span, alpha, beta, ok)
    if not ok.all():
        # only the two-point null of N = 2, P = 1 (AP is 1 or 1/2): its variance is the
        # largest any law on [a, 1] can have, so no beta fits (beta_fit returns the
        # two-point law itself; pranker_many does not vectorise that case)
        i = int(np.flatnonzero(~ok)[0])
        rows = np.flatnonzero(valid)[inv == i]
        raise ValueError(
            f"the beta approximation is undefined for N={un[i]}, P={up[i]} (ranking(s) "
            f"{rows[:5].tolist()}): the null has two points only. Drop or mask such "
            "rankings, or assess them exactly (p = rank of the positive / N)."
        )
    degenerate = ~((var > 0.0) & (span > 0.0))
    lo_q, hi_q = (1.0 - conf_level) / 2.0, (1.0 + conf_level) / 2.0
    fit = ~degenerate
    c_lo = mean.copy()
    c_hi = mean.copy()
    if fit.any():
        c_lo[fit] = a[fit] + span[fit] * special.betaincinv(alpha[fit], beta[fit], lo_q)
        c_hi[fit] = a[fit] + span[fit] * special.betaincinv(alpha[fit], beta[fit], hi_q)
    # floor of the upper tail, 1 / C(N, P), exactly as BetaFit.sf applies it
    p_best = np.array(
        [
            BetaFit(al, be, lo, sc, mu, v, int(nn), int(pp)).p_best if f else 0.0
            for al, be, lo, sc, mu, v, nn, pp, f in zip(
                alpha, beta, a, span, mean, var, un, up, fit, strict=True
            )
        ]
    )
    x = ap[valid]
    m_r, a_r, s_r = mean[inv], a[inv], span[inv]
    deg_r = degenerate[inv]
    p = np.where(x <= m_r, 1.0, 0.0)
    f = ~deg_r
    if f.any():
        z = np.clip((x[f] - a_r[f]) / s_r[f], 0.0, 1.0)
        p[f] = np.maximum(special.betaincc(alpha[inv][f], beta[inv][f], z), p_best[inv][f])
    for name, vals in (
        ("pvalue", p),
        ("null_mean", m_r),
        ("null_var", var[inv]),
        ("conf_low", c_lo[inv]),
        ("conf_high", c_hi[inv]),
        ("beta_alpha", alpha[inv]),
        ("beta_beta", beta[inv]),
        ("min_auprc", a_r),
    ):
        res[name][valid] = vals
    return res

