r"""Weighted AP and the averages of a table, one chunk (or task) at a time.

Weighted average precision, as scikit-learn's ``average_precision_score``
defines it with ``sample_weight`` (ties grouped by threshold,
``ties="threshold"``): with ``v_0 < ... < v_{G-1}`` the distinct scores of the
positives, ``Wp[g]`` the total weight of the positives scored ``v_g`` and
``W_ge[g]`` the total weight of all items scored ``>= v_g``,

    AP = sum_g Wp[g] * (sum_{g' >= g} Wp[g']) / W_ge[g]  /  sum_g Wp[g],

the recall step of each threshold times the precision there. Negatives enter
only through ``W_ge``, and ``W_ge`` adds over chunks, so two passes suffice:

1. gather the positives' scores and weights (``O(P)`` memory);
2. for each chunk, sort its scores with their weights and read the weight at
   or above each ``v_g`` off the cumulated weights (one sort and one binary
   search per chunk); add the vectors.

A threshold whose positives all weigh 0 adds nothing (its recall step is 0),
as in scikit-learn. The same pieces serve :mod:`pranker.scale.chunked` (a
loop over the chunks) and :mod:`pranker.scale.dask` (one task per partition).

``average_of_columns`` turns the per-column values of a 2-D table into
scikit-learn's ``"macro"``, ``"weighted"`` and ``None`` averages, as
:func:`pranker.auprc_ap` does in memory.

References
----------
.. [1] %(ref_lopes2014)s
"""

from __future__ import annotations

import numpy as np

from .._docs import fill_doc
from .._validation import check_sample_weight
from .counts import DOCS, _negative_code, nan_error, read_chunk

__doc__ = fill_doc(DOCS)(__doc__)

__all__ = ["weighted_positives", "weight_at_or_above", "weighted_ap", "average_of_columns"]


def chunk_weights(sample_weight, n: int, where: str) -> np.ndarray:
    """A chunk's weights: ``n`` finite float64 values >= 0 (masked entries refused)."""
    if np.ma.isMaskedArray(sample_weight):
        raise ValueError(f"{where}: masked sample_weight entries are not supported here.")
    return check_sample_weight(np.asarray(sample_weight), n, where)


def weighted_positives(scores, labels, sample_weight, *, where: str = "chunk", pos_label=None):
    """Pass 1 on one chunk: its size, its positives' scores (float64) and their weights, and
    how its numeric labels code a negative (0, -1 or None; the totals check them).

    Examples
    --------
    >>> n, x, w, code = weighted_positives([0.1, 0.5, 0.3], [0, 1, 1], [1.0, 2.0, 0.5])
    >>> n, x.tolist(), w.tolist(), code
    (3, [0.5, 0.3], [2.0, 0.5], 0)
    """
    x, yb = read_chunk(scores, labels, where, pos_label=pos_label)
    w = chunk_weights(sample_weight, x.shape[0], where)
    code = None if pos_label is not None else _negative_code(labels, yb)
    return int(x.shape[0]), x[yb].astype(np.float64), w[yb], code


def weight_at_or_above(scores, sample_weight, vals: np.ndarray, *, where: str = "chunk"):
    """Pass 2 on one chunk: the total weight of its items scored ``>= vals[g]``, per ``g``.

    Examples
    --------
    >>> weight_at_or_above([0.1, 0.5, 0.3, 0.5], [1.0, 2.0, 0.5, 4.0], np.array([0.3, 0.5]))
    array([6.5, 6. ])
    """
    x = np.asarray(scores, dtype=np.float64).reshape(-1)
    w = chunk_weights(sample_weight, x.shape[0], where)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    if xs.shape[0] and np.isnan(xs[-1]):
        raise nan_error(x, where)
    cum = np.concatenate(([0.0], np.cumsum(w[order])))
    lo = np.searchsorted(xs, np.asarray(vals, dtype=np.float64), side="left")
    return cum[-1] - cum[lo]


def weighted_ap(pos_scores: np.ndarray, pos_weights: np.ndarray, w_ge, where: str):
    """The weighted AP from the positives (pass 1) and the summed ``w_ge`` of pass 2.

    ``w_ge`` is a callable taking the sorted distinct positive scores and
    returning the total weight at or above each (the sum over the chunks of
    :func:`weight_at_or_above`).

    Examples
    --------
    Items (score, weight) (0.1, 1), (0.5, 2), (0.3, 0.5), (0.5, 4), the second
    and third positive: the threshold 0.5 has recall step 2 / 2.5 and precision
    2 / 6, the threshold 0.3 step 0.5 / 2.5 and precision 2.5 / 6.5.

    >>> x, w = np.array([0.5, 0.3]), np.array([2.0, 0.5])
    >>> round(weighted_ap(x, w, lambda v: np.array([6.5, 6.0]), "f"), 6)
    0.34359
    """
    vals, inverse = np.unique(pos_scores, return_inverse=True)
    wp = np.bincount(inverse.reshape(-1), weights=pos_weights, minlength=vals.shape[0])
    total = float(wp.sum())
    if not total > 0:
        raise ValueError(
            f"{where}: every positive has sample_weight 0: the weighted AP is undefined."
        )
    above = np.cumsum(wp[::-1])[::-1]  # positive weight at or above each threshold
    ge = np.asarray(w_ge(vals), dtype=np.float64)
    has = wp > 0
    return float(np.sum(wp[has] * above[has] / ge[has]) / total)


def average_of_columns(values, supports, average):
    """scikit-learn's average of per-column values: ``None`` (the values), "macro", "weighted".

    ``supports`` are the columns' (weighted) numbers of positives.

    Examples
    --------
    >>> average_of_columns([0.5, 1.0], [1, 3], "weighted")
    0.875
    """
    vals = np.asarray(values, dtype=np.float64)
    if average is None:
        return vals
    if average == "macro":
        return float(np.mean(vals))
    return float(np.average(vals, weights=np.asarray(supports, dtype=np.float64)))


def samples_mean(total: float, weight: float, where: str) -> float:
    """The weighted mean of per-sample APs, ``total / weight``, or a ValueError when every
    sample's weight is 0."""
    if not weight > 0:
        raise ValueError(f"{where}: every sample_weight is 0: the average is undefined.")
    return total / weight


def columns_average(n_classes: int, sample_weight, average, where: str, one):
    """The ``average`` of per-column APs of a table: ``one(j, w_j)`` gives column j's
    ``(AP, support)`` with its weights ``w_j`` (each sample's, or column j of a 2-D
    ``sample_weight``); an error names the column."""
    values, supports = [], []
    for j in range(n_classes):
        w = sample_weight
        wj = w if w is None or np.ndim(w) == 1 else w[:, j]
        try:
            ap, support = one(j, wj)
        except ValueError as exc:
            raise ValueError(f"{where}: column {j} of the table: {exc}") from None
        values.append(ap)
        supports.append(support)
    return average_of_columns(values, supports, average)
