"""The last scikit-learn gaps: 1-D multiclass labels with 2-D scores, the name of the
function in every tie-mode error, and a weighted curve's AP refused as auprc_ap refuses it.

The oracle is scikit-learn's ``average_precision_score`` (and ``label_binarize``)."""

from __future__ import annotations

import re

import numpy as np
import pytest

sklearn_metrics = pytest.importorskip("sklearn.metrics")
from sklearn.preprocessing import label_binarize  # noqa: E402

from pranker import auprc_ap, pr_curve  # noqa: E402

AVERAGES = ["macro", "weighted", "micro", None]


def _multiclass(seed: int, n: int = 60, k: int = 4, ties: bool = False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    S = rng.random((n, k))
    if ties:
        S = np.round(S * 4) / 4
    return S, y


@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_multiclass_labels_are_one_hot_encoded(average, seed):
    S, y = _multiclass(seed, ties=seed == 2)
    got = auprc_ap(S, y, average=average, ties="threshold")
    want = sklearn_metrics.average_precision_score(y, S, average=average)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("average", AVERAGES)
def test_multiclass_with_sample_weight(average):
    S, y = _multiclass(3)
    w = np.random.default_rng(4).uniform(0.1, 3.0, y.size)
    got = auprc_ap(S, y, average=average, ties="threshold", sample_weight=w)
    want = sklearn_metrics.average_precision_score(y, S, average=average, sample_weight=w)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_multiclass_string_labels_and_column_order():
    """Column j is the j-th sorted label, whatever the order in which the labels occur."""
    S, y = _multiclass(5, k=3)
    names = np.array(["pear", "apple", "fig"])[y]  # sorted: apple, fig, pear
    got = auprc_ap(S, names, average=None, ties="threshold")
    Y = label_binarize(names, classes=["apple", "fig", "pear"])
    want = [sklearn_metrics.average_precision_score(Y[:, j], S[:, j]) for j in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(
        got, sklearn_metrics.average_precision_score(names, S, average=None), rtol=1e-12
    )


def test_multiclass_average_tie_mode_per_column_by_enumeration():
    """The default tie mode on one-hot columns: each column's AP averaged over the orders of
    its tied items, by enumeration of the orders (a plain loop)."""
    from itertools import permutations

    S = np.array([[0.5, 0.2, 0.3], [0.5, 0.4, 0.1], [0.1, 0.4, 0.5], [0.2, 0.1, 0.5]])
    y = np.array([0, 1, 2, 0])
    got = auprc_ap(S, y, average=None)
    for j in range(3):
        pos = y == j
        aps = []
        for order in permutations(range(4)):
            keys = sorted(order, key=lambda i: -S[i, j])  # stable: ties in `order`'s order
            hits = np.cumsum(pos[keys])
            aps.append(np.mean([hits[r] / (r + 1) for r in range(4) if pos[keys][r]]))
        assert got[j] == pytest.approx(np.mean(aps), rel=1e-12)


def test_multiclass_needs_an_average():
    S, y = _multiclass(6)
    with pytest.raises(ValueError, match=r"^auprc_ap: .*average='micro'"):
        auprc_ap(S, y)


def test_multiclass_wrong_number_of_columns():
    S, y = _multiclass(7, k=4)
    with pytest.raises(ValueError, match=r"^auprc_ap: y has 4 distinct labels .* 3 columns"):
        auprc_ap(S[:, :3], y, average="macro")


def test_multiclass_refuses_pos_label_and_missing_labels():
    S, y = _multiclass(8, k=3)
    with pytest.raises(ValueError, match=r"^auprc_ap: pos_label=1 has no meaning"):
        auprc_ap(S, y, average="macro", pos_label=1)
    yf = y.astype(float)
    yf[5] = np.nan
    with pytest.raises(ValueError, match=r"^auprc_ap: y has a missing"):
        auprc_ap(S, yf, average="macro")


# --- every tie-mode error names its function -----------------------------------------


def _tie_error_callers():
    import pranker
    from pranker import chunked

    s = np.array([0.9, 0.5, 0.1, 0.3])
    y = np.array([1, 0, 1, 0])
    calls = [
        ("auprc_ap_chunked", lambda: chunked.auprc_ap_chunked(s, y, ties="bad")),
        ("pranker_chunked", lambda: chunked.pranker_chunked(s, y, ties="bad")),
        ("compare", lambda: pranker.compare(s, s[::-1], y, ties="bad")),
        ("ap_interval", lambda: pranker.ap_interval(s, y, ties="bad")),
    ]
    vals = np.array([0.1, 0.9])
    c = chunked.count_chunk(s, y, vals)
    calls.append(("ap_from_counts", lambda: chunked.ap_from_counts(c, "bad")))
    return calls


@pytest.mark.parametrize("name", [c[0] for c in _tie_error_callers()])
def test_tie_mode_errors_name_the_function(name):
    call = dict(_tie_error_callers())[name]
    with pytest.raises(ValueError, match=rf"^{re.escape(name)}: ties must be one of"):
        call()


def test_dask_tie_mode_errors_name_the_function():
    da = pytest.importorskip("dask.array")
    import pranker.dask as pdask

    s = da.from_array(np.array([0.9, 0.5, 0.1, 0.3]), chunks=2)
    y = da.from_array(np.array([1, 0, 1, 0]), chunks=2)
    for fn, name in (
        (pdask.auprc_ap, "pranker.dask.auprc_ap"),
        (pdask.pranker, "pranker.dask.pranker"),
    ):
        with pytest.raises(ValueError, match=rf"^{re.escape(name)}: ties must be one of"):
            fn(s, y, ties="bad", scheduler="sync")


# --- a weighted curve's AP: as auprc_ap -----------------------------------------------


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
def test_weighted_curve_ap_refused_as_auprc_ap_refuses(ties):
    s = [0.9, 0.5, 0.5, 0.1]
    y = [1, 0, 1, 0]
    w = [1.0, 2.0, 0.5, 1.0]
    with pytest.raises(ValueError) as ap_err:
        auprc_ap(s, y, ties=ties, sample_weight=w)
    curve = pr_curve(s, y, ties=ties, sample_weight=w)  # the curve itself is defined
    with pytest.raises(ValueError) as curve_err:
        curve.average_precision()
    strip = re.compile(r"^[\w.]+: ")
    assert strip.sub("", str(curve_err.value)) == strip.sub("", str(ap_err.value))
    assert str(curve_err.value).startswith("PRCurve.average_precision: ")
    for other in ("average", "optimistic", "pessimistic"):
        with pytest.raises(ValueError, match="no weighted meaning"):
            curve.average_precision(ties=other)


def test_weighted_curve_ap_in_the_weighted_modes_is_sklearns():
    s = np.array([0.9, 0.5, 0.5, 0.1, 0.7])
    y = np.array([1, 0, 1, 0, 1])
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0])
    want = sklearn_metrics.average_precision_score(y, s, sample_weight=w)
    for built in ("threshold", "stable", "optimistic"):
        curve = pr_curve(s, y, ties=built, sample_weight=w)
        assert curve.average_precision(ties="threshold") == pytest.approx(want, rel=1e-12)
    assert pr_curve(s, y, sample_weight=w).average_precision() == pytest.approx(want, rel=1e-12)


def test_two_class_labels_with_a_table_are_not_one_hot_encoded():
    """Two distinct labels are binary, not multiclass: scikit-learn refuses them with 2-D
    scores, and so does auprc_ap (it names the one-hot table it needs)."""
    S = np.array([[0.1, 0.9], [0.4, 0.3], [0.8, 0.5]])
    with pytest.raises(ValueError):
        sklearn_metrics.average_precision_score([0, 1, 1], S)
    with pytest.raises(ValueError, match=r"^auprc_ap: with average='macro'.*label_binarize"):
        auprc_ap(S, [0, 1, 1], average="macro")
