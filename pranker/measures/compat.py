"""Drop-in ports of precision-recall code people move over from MATLAB.

* :func:`vl_pr` and :func:`vl_roc` reproduce VLFeat's ``VL_PR`` and ``VL_ROC``
  (VLFeat 0.9.x, ``toolbox/plotop``) value for value, including the ``1e-10``
  guards, the stable ranking of tied scores and the ``-inf`` = "not retrieved"
  convention.
* :func:`recall_precision` reproduces the ``recall_precision(Wtrue, Dhat)``
  MATLAB function distributed with Iterative Quantization (Gong & Lazebnik)
  and used across the hashing literature (precision, recall and rate inside a
  Hamming ball of radius ``n - 1``).

Labels come first, as in the originals. Everything is vectorised: one stable
sort, cumulative sums, and (for ``recall_precision``) one histogram pass.

VLFeat conventions (shared by :func:`vl_pr` and :func:`vl_roc`)
----------------------------------------------------------------
Samples are ranked by decreasing score; tied scores keep their input order
(MATLAB's ``sort(..., 'descend')`` is stable). Point ``k`` of a curve
(``k = 0..m``) is the operating point where the ``k`` highest-ranked samples
are predicted positive, so point 0 is "nothing retrieved". With
``tp[k]``/``fp[k]`` the positives/negatives among them:

* labels ``> 0`` are positive, ``< 0`` negative, ``== 0`` ignored (they take
  a rank but change no count);
* a score of ``-inf`` means "not retrieved": those samples are dropped from
  the ranking (``m`` counts only the others) but still count in the totals
  ``P``/``N``, so recall can end below 1 -- unless ``include_inf=True``;
* ``num_positives``/``num_negatives`` replace ``P``/``N`` by a larger total,
  i.e. add virtual samples that are never retrieved;
* divisions are guarded as in VLFeat with ``small = 1e-10``:
  ``recall = tp / max(P, small)`` and
  ``precision = max(tp, small) / max(tp + fp, small)``. Hence precision is 1
  at point 0 (``small / small``) and ``1e-10 / fp`` (not 0) where no positive
  has been retrieved yet.

References
----------
A. Vedaldi and B. Fulkerson, "VLFeat: An open and portable library of
computer vision algorithms", ACM Multimedia 2010 (``vl_pr``, ``vl_roc``,
``vl_tpfp``).

D. Hoiem, Y. Chodpathumwan and Q. Dai, "Diagnosing error in object detectors",
ECCV 2012 (normalised precision).

Y. Gong and S. Lazebnik, "Iterative quantization: a Procrustean approach to
learning binary codes", CVPR 2011 (``recall_precision``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any, cast

import numpy as np

from .._numba import retrieval as _rk
from .._validation import _as_numeric_array, _first_nan_message, check_count, check_scores
from .retrieval import check_distance_matrix, query_matrix

__all__ = ["vl_pr", "vl_roc", "recall_precision", "VLPRInfo", "VLROCInfo"]

_SMALL = 1e-10  # VLFeat's guard against division by zero


class _InfoMapping(Mapping):
    """Read-only mapping view of a dataclass: ``info["auc"]`` and ``info.auc``."""

    def __getitem__(self, key: str) -> float:
        if key not in self._keys():
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def _keys(self) -> tuple[str, ...]:
        # the subclasses are dataclasses
        return tuple(f.name for f in fields(cast(Any, self)))

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self._keys()}


@dataclass(frozen=True, eq=False)
class VLPRInfo(_InfoMapping):
    """Summary of a :func:`vl_pr` curve (VLFeat's ``INFO`` structure).

    Each attribute is also a mapping key: ``info.ap == info["ap"]``, and
    ``dict(info)`` or ``info.to_dict()`` gives them all.

    Attributes
    ----------
    auc : float
        Trapezoidal area under the PR curve (with ``interpolate=True``: equal
        to ``ap``).
    ap : float
        TREC average precision: sum of the precision at each recalled positive,
        divided by ``P`` (unretrieved positives contribute 0). NaN if ``P == 0``
        (VLFeat divides 0 by 0).
    ap_interp_11 : float
        TREC 11-point interpolated AP: mean over recall levels k/10 of the
        largest precision at recall >= k/10 (0 if that recall is never reached).
    auc_pa08 : float
        Deprecated alias of ``ap_interp_11`` (PASCAL VOC up to 2008).

    See Also
    --------
    vl_pr : the function that returns it.

    Examples
    --------
    Ranked by score, the samples are positive, negative, positive:

    >>> from pranker.compat import vl_pr
    >>> info = vl_pr([1, -1, 1], [3, 2, 1])[2]
    >>> list(info)
    ['auc', 'ap', 'ap_interp_11', 'auc_pa08']
    >>> round(info.ap, 4), round(info["ap"], 4)  # (1/1 + 2/3) / 2
    (0.8333, 0.8333)
    >>> round(info.ap_interp_11, 4)  # (6 x 1 + 5 x 2/3) / 11
    0.8485
    """

    auc: float
    ap: float
    ap_interp_11: float
    auc_pa08: float


@dataclass(frozen=True, eq=False)
class VLROCInfo(_InfoMapping):
    """Summary of a :func:`vl_roc` curve (VLFeat's ``INFO`` structure).

    Each attribute is also a mapping key: ``info.auc == info["auc"]``, and
    ``dict(info)`` or ``info.to_dict()`` gives them all.

    Attributes
    ----------
    auc : float
        Area under (FPR, TPR), summed exactly over the staircase in the stable
        ranking (ties are NOT counted 1/2, as in VLFeat).
    eer : float
        Equal error rate (VLFeat's crossing rule); NaN when the curve never
        crosses TPR = TNR (possible when samples are not retrieved).
    eer_threshold : float
        Score of the sample at which the curve crosses: predicting positive the
        samples ranked up to and including it is the first operating point with
        TNR <= TPR. NaN when ``eer`` is NaN. (Not in VLFeat, an addition.)

    See Also
    --------
    vl_roc : the function that returns it.

    Examples
    --------
    Ranked by score, the samples are positive, negative, positive; one of
    the two (positive, negative) pairs is in the right order:

    >>> from pranker.compat import vl_roc
    >>> info = vl_roc([1, -1, 1], [3, 2, 1])[2]
    >>> list(info)
    ['auc', 'eer', 'eer_threshold']
    >>> info.auc, info["auc"]
    (0.5, 0.5)
    """

    auc: float
    eer: float
    eer_threshold: float


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------


def _check_vl_labels(labels) -> np.ndarray:
    arr = _as_numeric_array(labels, "labels")
    if arr.dtype.kind == "b":
        raise TypeError(
            "labels must be signed numbers (> 0 positive, < 0 negative, 0 ignored) as in "
            "VLFeat; got booleans, whose False (= 0) would silently ignore every negative. "
            "Pass np.where(y, 1, -1) instead."
        )
    flat = np.ascontiguousarray(arr, dtype=np.float64).ravel()
    nan = np.isnan(flat)
    if nan.any():
        raise ValueError(_first_nan_message(nan, "labels"))
    return flat


def _check_total(value, actual: int, name: str) -> int:
    if value is None:
        return actual
    total = check_count(value, name)
    if total < actual:
        raise ValueError(
            f"{name}={total} is smaller than the {actual} "
            f"{'positive' if name == 'num_positives' else 'negative'} labels present. "
            f"{name} is the TOTAL count (labelled samples plus virtual never-retrieved "
            f"ones), so it must be >= {actual}. (VLFeat only warns and then reports "
            "recall above 1; pranker refuses.)"
        )
    return total


def _stable_descending_order(s: np.ndarray) -> np.ndarray:
    """Indices sorting ``s`` by decreasing value, ties in input order.

    ``np.argsort(kind="stable")`` on float64 is a merge sort, several times
    slower than the default (SIMD) sort. So: any descending argsort, then
    number the tie groups along it (``g``, non-decreasing) and sort the int64
    keys ``g * N + index`` with ``np.sort``; that only reorders indices inside
    each group, ascending. Needs ``N**2 < 2**63``, i.e. N < 3e9.
    """
    n = s.shape[0]
    order = np.argsort(-s)
    ranked = s[order]
    group = np.zeros(n, np.int64)
    np.cumsum(ranked[1:] != ranked[:-1], out=group[1:])
    if group[-1] == n - 1:  # no ties
        return order
    keys = np.sort(group * n + order)
    return keys - group * n


def _tpfp(labels, scores, num_positives, num_negatives, include_inf):
    """VLFeat's ``vl_tpfp``: cumulative tp/fp over the stable descending ranking.

    Returns ``(tp, fp, p, n, perm, s_sorted)`` where ``tp``/``fp`` have length
    ``m + 1`` (point 0 = nothing retrieved), ``perm`` the input indices of the
    ``m`` ranked (retrieved) samples in rank order and ``s_sorted`` their scores.
    """
    lab = _check_vl_labels(labels)
    s = check_scores(scores)
    if s.size != lab.size:
        raise ValueError(
            f"labels and scores must have the same number of elements; got {lab.size} labels "
            f"and {s.size} scores (shapes {np.shape(labels)} and {np.shape(scores)})."
        )
    if not isinstance(include_inf, (bool, np.bool_)):
        raise TypeError(f"include_inf must be True or False; got {include_inf!r}.")
    pos = lab > 0
    neg = lab < 0
    p = _check_total(num_positives, int(np.count_nonzero(pos)), "num_positives")
    n = _check_total(num_negatives, int(np.count_nonzero(neg)), "num_negatives")
    # MATLAB's sort(..., 'descend') is stable: ties keep input order
    perm = _stable_descending_order(s)
    m = s.size if include_inf else int(np.count_nonzero(s > -np.inf))
    perm = perm[:m]
    tp = np.zeros(m + 1)
    fp = np.zeros(m + 1)
    np.cumsum(pos[perm], out=tp[1:])
    np.cumsum(neg[perm], out=fp[1:])
    return tp, fp, float(p), float(n), perm, s[perm]


def _stable_output(curve: np.ndarray, perm: np.ndarray, size: int) -> np.ndarray:
    """Drop point 0 and scatter point k (k >= 1) to the input index of the k-th sample."""
    out = np.full(size, np.nan)
    out[perm] = curve[1:]
    return out


def _check_flag(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r}.")
    return bool(value)


# ---------------------------------------------------------------------------
# vl_pr
# ---------------------------------------------------------------------------


def vl_pr(
    labels,
    scores,
    *,
    interpolate: bool = False,
    num_positives: int | None = None,
    num_negatives: int | None = None,
    include_inf: bool = False,
    stable: bool = False,
    normalize_prior: float | None = None,
) -> tuple[np.ndarray, np.ndarray, VLPRInfo]:
    """Precision-recall curve exactly as VLFeat's ``VL_PR``.

    Parameters
    ----------
    labels : array_like of real, shape (N,) (any shape is flattened)
        ``> 0`` positive, ``< 0`` negative, ``0`` ignored. Booleans are refused
        (``False`` would mean "ignored", not "negative").
    scores : array_like of real, same size
        Larger is more positive; ``-inf`` means "not retrieved"; NaN is refused.
    interpolate : bool
        Replace precision by its running maximum from the end of the ranking
        (``max(precision[k:])``); then ``info.auc == info.ap``.
    num_positives, num_negatives : int, optional
        Total number of positives/negatives, at least the number present in
        ``labels``; the difference are virtual samples never retrieved.
        A smaller value raises ``ValueError`` (VLFeat's documentation says it
        "cannot be smaller"; its code warns and returns recall above 1).
    include_inf : bool
        Rank the ``-inf`` samples too (last, in input order), so recall can
        reach 1. Virtual samples from ``num_positives`` stay unretrieved.
    stable : bool
        Return one value per input sample, in input order: the precision and
        recall of the operating point that retrieves everything up to and
        including that sample; NaN for samples that are not retrieved
        (``-inf`` scores unless ``include_inf``). Point 0 is dropped.
    normalize_prior : float in [0, 1], optional
        Hoiem et al.'s normalised precision: weight positives by ``a / P`` and
        negatives by ``(1 - a) / N`` so that positives make up the fraction
        ``a`` of the total weight:
        ``precision = max(tp a/P, small) / max(tp a/P + fp (1-a)/N, small)``
        (``P``, ``N`` guarded by ``max(., 1e-10)``).

    Returns
    -------
    recall, precision : ndarray of float64
        Length ``m + 1`` (``m`` ranked samples), starting at recall 0 and
        precision 1 -- or length ``N`` in input order with ``stable=True``.
    info : VLPRInfo
        ``auc``, ``ap``, ``ap_interp_11``, ``auc_pa08`` as attributes and keys.

    Notes
    -----
    With ``tp[k]``, ``fp[k]`` the positives and negatives among the first ``k``
    ranked samples, ``recall = tp / max(P, 1e-10)`` and
    ``precision = max(tp, 1e-10) / max(tp + fp, 1e-10)``;
    ``auc = sum_k (prec[k-1] + prec[k]) / 2 * (rec[k] - rec[k-1])``;
    ``ap = sum(prec[k] at the points where recall increases) / P``;
    ``ap_interp_11 = sum_{j=0..10} max(prec[rec >= j/10], default 0) / 11`` with
    the recall levels ``j/10`` correctly rounded (as MATLAB's ``linspace``
    makes them, unlike ``numpy.linspace``, which is one ulp off at 0.3, 0.6
    and 0.7).

    References
    ----------
    .. [1] VLFeat ``vl_pr.m`` and ``vl_tpfp.m``, https://www.vlfeat.org
    .. [2] C. D. Manning, P. Raghavan and H. Schuetze, *Introduction to
       Information Retrieval*, Cambridge University Press, 2008 (TREC AP).
    .. [3] D. Hoiem, Y. Chodpathumwan and Q. Dai, "Diagnosing error in object
       detectors", ECCV 2012.

    Examples
    --------
    The sample with label 0 is ignored, the one with score -inf is not
    retrieved, so recall stops at 2/3:

    >>> from pranker.compat import vl_pr
    >>> rec, prec, info = vl_pr([1, -1, 0, 1, 1], [0.9, 0.8, 0.7, 0.6, -np.inf])
    >>> rec.round(4).tolist()
    [0.0, 0.3333, 0.3333, 0.3333, 0.6667]
    >>> prec.round(4).tolist()
    [1.0, 1.0, 0.5, 0.5, 0.6667]
    >>> round(info.ap, 4), round(info["ap"], 4)  # (1 + 2/3 + 0) / 3
    (0.5556, 0.5556)
    """
    interpolate = _check_flag(interpolate, "interpolate")
    stable = _check_flag(stable, "stable")
    if normalize_prior is not None:
        try:
            a = float(normalize_prior)
        except (TypeError, ValueError):
            raise TypeError(
                f"normalize_prior must be a number in [0, 1] or None; got {normalize_prior!r}."
            ) from None
        if not 0.0 <= a <= 1.0:
            raise ValueError(
                f"normalize_prior is the target fraction of positives and must lie in [0, 1]; "
                f"got {normalize_prior!r}."
            )
    tp, fp, p, n, perm, _ = _tpfp(labels, scores, num_positives, num_negatives, include_inf)
    size = np.size(scores)

    recall = tp / max(p, _SMALL)
    if normalize_prior is None:
        precision = np.maximum(tp, _SMALL) / np.maximum(tp + fp, _SMALL)
    else:
        # same operation order as VLFeat: (tp * a) / max(p, small)
        wtp = tp * a / max(p, _SMALL)
        wfp = fp * (1.0 - a) / max(n, _SMALL)
        precision = np.maximum(wtp, _SMALL) / np.maximum(wtp + wfp, _SMALL)
    if interpolate:
        precision = np.maximum.accumulate(precision[::-1])[::-1]

    # average precision: precision where recall moves (each recalled positive)
    sel = np.flatnonzero(np.diff(recall)) + 1
    ap = float(np.sum(precision[sel]) / p) if p > 0 else float("nan")
    if interpolate:
        auc = ap
    else:
        auc = float(0.5 * np.sum((precision[:-1] + precision[1:]) * np.diff(recall)))

    # 11-point interpolated AP. recall is non-decreasing, so {recall >= r} is a
    # suffix starting at searchsorted(recall, r); its max precision is a
    # suffix maximum. Levels j/10 correctly rounded (MATLAB linspace).
    suffix_max = np.maximum.accumulate(precision[::-1])[::-1]
    levels = np.arange(11) / 10.0
    first = np.searchsorted(recall, levels, side="left")
    ap11 = 0.0
    for f in first.tolist():  # 11 levels, accumulated in VLFeat's order
        pr = max(0.0, float(suffix_max[f])) if f < recall.size else 0.0
        ap11 = ap11 + pr / 11.0
    info = VLPRInfo(auc=auc, ap=ap, ap_interp_11=ap11, auc_pa08=ap11)

    if stable:
        return _stable_output(recall, perm, size), _stable_output(precision, perm, size), info
    return recall, precision, info


# ---------------------------------------------------------------------------
# vl_roc
# ---------------------------------------------------------------------------


def vl_roc(
    labels,
    scores,
    *,
    num_positives: int | None = None,
    num_negatives: int | None = None,
    include_inf: bool = False,
    stable: bool = False,
) -> tuple[np.ndarray, np.ndarray, VLROCInfo]:
    """ROC curve exactly as VLFeat's ``VL_ROC`` (true positive and true negative rates).

    Parameters
    ----------
    labels, scores, num_positives, num_negatives, include_inf, stable
        As in :func:`vl_pr` (same ranking, same ``-inf`` and label-0 rules).

    Returns
    -------
    tpr, tnr : ndarray of float64
        ``tpr = tp / max(P, 1e-10)``, ``tnr = 1 - fp / max(N, 1e-10)`` at the
        ``m + 1`` operating points (or per input sample with ``stable=True``,
        NaN where not retrieved).
    info : VLROCInfo
        ``auc``, ``eer``, ``eer_threshold`` as attributes and keys.

    Notes
    -----
    ``auc = sum_k tpr[k] (fpr[k] - fpr[k-1])`` with ``fpr[-1] := 0``: exact for
    the staircase of the stable ranking, so with untied scores, every label
    nonzero and nothing at ``-inf`` it equals the Mann-Whitney AUC
    (scikit-learn's ``roc_auc_score``); tied scores are broken by input order,
    not counted 1/2, and unretrieved samples add no area.

    EER: with ``s`` the last point where ``tnr > tpr`` (``s = 0`` always
    qualifies), ``eer = 1 - tpr[s]`` if the step ``s -> s+1`` leaves ``tpr``
    unchanged and ``1 - tnr[s]`` otherwise; NaN if ``s`` is the last point.
    ``eer_threshold`` is the score of the ``(s+1)``-th ranked sample.

    References
    ----------
    .. [1] VLFeat ``vl_roc.m``, https://www.vlfeat.org
    .. [2] T. Fawcett, "An introduction to ROC analysis", Pattern Recognition
       Letters 27 (2006) 861-874.

    Examples
    --------
    >>> from pranker.compat import vl_roc
    >>> tpr, tnr, info = vl_roc([1, 1, -1, 1, -1], [5, 4, 3, 2, 1])
    >>> tpr.round(4).tolist()
    [0.0, 0.3333, 0.6667, 0.6667, 1.0, 1.0]
    >>> tnr.tolist()
    [1.0, 1.0, 1.0, 0.5, 0.5, 0.0]
    >>> round(info.auc, 4), round(info["eer"], 4), info.eer_threshold
    (0.8333, 0.3333, 3.0)
    """
    stable = _check_flag(stable, "stable")
    tp, fp, p, n, perm, s_sorted = _tpfp(labels, scores, num_positives, num_negatives, include_inf)
    size = np.size(scores)
    tpr = tp / max(p, _SMALL)
    fpr = fp / max(n, _SMALL)
    tnr = 1.0 - fpr
    auc = float(np.sum(tpr * np.diff(fpr, prepend=0.0)))

    above = np.flatnonzero(tnr > tpr)  # never empty: tnr[0] = 1 > 0 = tpr[0]
    s = int(above[-1])
    if s == tpr.size - 1:
        eer = float("nan")
        thr = float("nan")
    else:
        eer = float(1.0 - tpr[s]) if tpr[s] == tpr[s + 1] else float(1.0 - tnr[s])
        thr = float(s_sorted[s])
    info = VLROCInfo(auc=auc, eer=eer, eer_threshold=thr)
    if stable:
        return _stable_output(tpr, perm, size), _stable_output(tnr, perm, size), info
    return tpr, tnr, info


# ---------------------------------------------------------------------------
# recall_precision (ITQ / hashing MATLAB function)
# ---------------------------------------------------------------------------


def recall_precision(Wtrue, Dhat) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall and rate inside a Hamming ball, as the ITQ MATLAB function.

    Port of ``[recall, precision, rate] = recall_precision(Wtrue, Dhat)`` from
    the Iterative Quantization code (and the same loop in Spectral Hashing and
    BRE). For ``n = 1 .. L`` with ``L = floor(max(Dhat))``, the pairs
    ``(i, j)`` with ``Dhat[i, j] <= (n - 1) + 0.00001`` are retrieved, and

    * ``precision[n-1] = sum(Wtrue[retrieved]) / #retrieved``,
    * ``recall[n-1] = sum(Wtrue[retrieved]) / sum(Wtrue)``,
    * ``rate[n-1] = #retrieved / (Ntest * Ntrain)``,

    pooled over all queries (a pair-level, not per-query, curve; see
    :func:`pranker.radius_curves` for per-query curves and their mean).

    Parameters
    ----------
    Wtrue : array_like, shape (Ntest, Ntrain)
        True neighbours: bool, or numbers summed as in MATLAB's
        ``sum(Wtrue(j))`` (0/1, or weights). A 1-D input is one query.
    Dhat : array_like of real, same shape
        Estimated distances (Hamming distances, usually integers). NaN and
        ``+inf`` are refused (MATLAB cannot allocate ``zeros(Inf, 1)``).

    Returns
    -------
    recall, precision, rate : ndarray of float64, shape (L,)
        Entry ``n - 1`` is radius ``n - 1``. Exactly as the MATLAB code:

        * the radius ``max(Dhat)`` itself is NOT included (the loop stops at
          ``n - 1 = L - 1``), so the last recall can be below 1;
        * ``L = 0`` (all distances below 1) gives three empty arrays;
        * a non-integer maximum is floored (``zeros(2.5, 1)`` in older MATLAB;
          newer MATLAB refuses it);
        * nothing retrieved at a radius gives precision NaN (MATLAB's 0/0), and
          ``sum(Wtrue) == 0`` gives recall NaN; no warning is raised.

    Notes
    -----
    MATLAB loops over the radii and rescans the matrix each time,
    O(L x Ntest x Ntrain). Here one pass puts each pair in the first bin
    ``b`` with ``Dhat <= b + 0.00001`` (the same floating-point comparison)
    and cumulative sums give every radius: O(Ntest x Ntrain x log L).

    References
    ----------
    .. [1] Y. Gong and S. Lazebnik, "Iterative quantization: a Procrustean
       approach to learning binary codes", CVPR 2011.
    .. [2] Y. Weiss, A. Torralba and R. Fergus, "Spectral hashing", NIPS 2008.
    .. [3] B. Kulis and T. Darrell, "Learning to hash with binary
       reconstructive embeddings", NIPS 2009.

    Examples
    --------
    >>> from pranker.compat import recall_precision
    >>> W = np.array([[1, 0, 1, 0], [0, 1, 0, 0]], dtype=bool)
    >>> D = np.array([[0, 1, 2, 3], [2, 1, 0, 3]])
    >>> rec, prec, rate = recall_precision(W, D)
    >>> rec.round(4).tolist(), prec.round(4).tolist(), rate.tolist()
    ([0.3333, 0.6667, 1.0], [0.5, 0.5, 0.5], [0.25, 0.5, 0.75])
    """
    W = query_matrix(Wtrue, "Wtrue")
    D = check_distance_matrix(Dhat, W.shape, "Dhat", "Wtrue")
    if W.size == 0:
        raise ValueError(f"Wtrue and Dhat are empty (shape {W.shape}): nothing to evaluate.")
    if W.dtype.kind == "f" and np.isinf(W).any():
        raise ValueError("Wtrue contains infinite values; use 0/1 (or finite weights).")
    if W.dtype.kind in "if" and (W < 0).any():
        raise ValueError(
            "Wtrue contains negative values; it marks true neighbours (0/1 or non-negative "
            "weights)."
        )
    dmax = float(np.max(D))
    if dmax == np.inf:
        raise ValueError(
            "Dhat contains +inf: the number of radii, floor(max(Dhat)), would be infinite. "
            "Replace +inf by a finite distance larger than every radius of interest."
        )
    L = int(np.floor(dmax)) if dmax >= 1.0 else 0
    if L == 0:
        empty = np.zeros(0)
        return empty, empty.copy(), empty.copy()
    if L > 1 << 24:
        raise ValueError(
            f"max(Dhat) = {dmax:g} asks for {L} radii; this port materialises one entry per "
            "integer radius. Rescale the distances or use pranker.radius_curves with radii=."
        )
    ntest, ntrain = W.shape
    # (n - 1) + 0.00001 in float64, the same rounding as MATLAB's double arithmetic
    thresholds = np.arange(L, dtype=np.float64) + 0.00001
    rel = W if W.dtype == np.bool_ else np.asarray(W, dtype=np.float64)
    # MATLAB compares in double precision; one dtype also means one compiled kernel
    d_flat = np.ascontiguousarray(D, dtype=np.float64).reshape(1, -1)
    r_flat = np.ascontiguousarray(rel).reshape(1, -1)
    count = np.zeros((1, L + 1), np.int64)
    good = np.zeros((1, L + 1), np.int64 if rel.dtype == np.bool_ else np.float64)
    _rk.hist_sorted(d_flat, r_flat, thresholds, count, good)
    retrieved = np.cumsum(count[0, :L]).astype(np.float64)
    retrieved_good = np.cumsum(good[0, :L]).astype(np.float64)
    total_good = float(np.sum(rel, dtype=np.float64))

    precision = np.full(L, np.nan)
    np.divide(retrieved_good, retrieved, out=precision, where=retrieved != 0)
    recall = np.full(L, np.nan)
    if total_good != 0:
        recall = retrieved_good / total_good
    rate = retrieved / (ntest * ntrain)
    return recall, precision, rate
