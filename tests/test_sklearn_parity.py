"""The measures next to scikit-learn's (a test-only reference).

Random problems with ties, zero and fractional weights are compared with
``sklearn.metrics``: average precision (``ties="threshold"``), weighted and
not, per ranking, per row and averaged over the columns of a table; ROC AUC
with and without ``max_fpr``; and the points of ``roc_curve`` and
``pr_curve`` with and without ``drop_intermediate``. Then scikit-learn's own
documented cases (from its ``test_ranking.py``) and, for each mistake a user
can make, the exception class: pranker's must be an instance of every
built-in class of the one scikit-learn raises.

Tolerance: values agree to ``rel=1e-12`` (plus ``abs=1e-14`` near 0); the
two libraries add the same terms in different orders. Thresholds are input
values and agree exactly. A second, exact oracle checks the partial AUC:
the ROC polyline clipped at ``max_fpr`` in fractions.
"""

from __future__ import annotations

import inspect
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn import metrics as skm

from pranker import (
    auprc_ap,
    average_precision_many,
    pr_curve,
    roc_auc,
    roc_auc_many,
    roc_curve,
)

REL, ABS = 1e-12, 1e-14
N_PROBLEMS = 160  # random binary problems, in blocks of 20


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=REL, atol=ABS)


def _problem(rng, weighted: bool):
    """Scores with ties (finite: scikit-learn refuses inf), labels with both classes,
    weights with zeros and fractions that leave each class some weight."""
    n = int(rng.integers(2, 60))
    levels = int(rng.integers(1, 15))
    s = rng.integers(0, levels, n) / 7.0 + (rng.random(n) if rng.random() < 0.3 else 0.0)
    y = rng.random(n) < rng.uniform(0.1, 0.7)
    y[rng.integers(n)] = True
    y[rng.integers(n)] = False
    if y.all():
        y[0] = False
    if not y.any():
        y[0] = True
    w = None
    if weighted:
        w = rng.choice([0.0, 0.5, 1.0, 2.0, 3.25], size=n)
        w[np.flatnonzero(y)[0]] = 1.5
        w[np.flatnonzero(~y)[0]] = 0.75
    return s, y, w


def _stable_rank_scores(s):
    """Distinct scores that order items as ``ties="stable"`` does (input order in ties)."""
    order = np.argsort(-s, kind="stable")
    out = np.empty(len(s))
    out[order] = -np.arange(len(s), dtype=float)
    return out


# ---------------------------------------------------------------------------
# random binary problems
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("block", range(N_PROBLEMS // 20))
def test_random_problems_agree_with_sklearn(block):
    rng = np.random.default_rng(1000 + block)
    for i in range(20):
        s, y, w = _problem(rng, weighted=i % 4 != 0)
        kw = {} if w is None else {"sample_weight": w}
        ap = skm.average_precision_score(y, s, **kw)
        assert auprc_ap(s, y, ties="threshold", **kw) == pytest.approx(ap, rel=REL, abs=ABS)
        assert auprc_ap(y_score=s, y_true=y, ties="threshold", **kw) == pytest.approx(ap, rel=REL)
        assert pr_curve(s, y, **kw).average_precision() == pytest.approx(ap, rel=REL, abs=ABS)
        # "stable": scikit-learn's AP of the ranking with ties broken by input order
        ap_stable = skm.average_precision_score(y, _stable_rank_scores(s), **kw)
        assert auprc_ap(s, y, ties="stable", **kw) == pytest.approx(ap_stable, rel=REL, abs=ABS)
        if w is None:  # unweighted: every tie mode equals threshold's when no score is tied
            t = _stable_rank_scores(s)
            for mode in ("average", "optimistic", "pessimistic"):
                assert auprc_ap(t, y, ties=mode) == pytest.approx(ap_stable, rel=REL)

        auc = skm.roc_auc_score(y, s, **kw)
        assert roc_auc(s, y, **kw) == pytest.approx(auc, rel=REL, abs=ABS)
        fpr_sk = skm.roc_curve(y, s, **kw)[0]
        for max_fpr in (rng.uniform(0.01, 1.0), float(fpr_sk[len(fpr_sk) // 2]) or 0.5, 1.0):
            want = skm.roc_auc_score(y, s, max_fpr=max_fpr, **kw)
            assert roc_auc(s, y, max_fpr=max_fpr, **kw) == pytest.approx(want, rel=REL, abs=ABS)

        for drop in (False, True):
            fpr, tpr, thr = skm.roc_curve(y, s, drop_intermediate=drop, **kw)
            r = roc_curve(s, y, drop_intermediate=drop, **kw)
            np.testing.assert_array_equal(r.thresholds, thr)
            _close(r.fpr, fpr)
            _close(r.tpr, tpr)
            assert r.auc == pytest.approx(auc, rel=REL, abs=ABS)

            prec, rec, thr = skm.precision_recall_curve(y, s, drop_intermediate=drop, **kw)
            c = pr_curve(s, y, drop_intermediate=drop, **kw)
            # scikit-learn: increasing thresholds, then the (recall 0, precision 1) point;
            # pranker: that point first (threshold +inf), then decreasing thresholds
            np.testing.assert_array_equal(c.thresholds[1:], thr[::-1])
            _close(c.precision, prec[::-1])
            _close(c.recall, rec[::-1])
            assert c.average_precision() == pytest.approx(ap, rel=REL, abs=ABS)


@pytest.mark.parametrize("shared", [True, False])
def test_average_precision_many_with_weights(shared):
    rng = np.random.default_rng(7 + shared)
    R, n = 30, 25
    S = rng.integers(0, 6, (R, n)) / 5.0
    Y = rng.random((R, n)) < 0.3
    Y[:, 0] = True
    W = rng.choice([0.0, 0.5, 1.0, 2.5], size=(R, n))
    W[:, 0] = 1.0
    if shared:
        Y = np.broadcast_to(Y[0], (R, n))
        W = W[0]
    got = average_precision_many(S, Y, sample_weight=W, ties="threshold")
    W2 = np.broadcast_to(W, (R, n))
    want = [skm.average_precision_score(Y[r], S[r], sample_weight=W2[r]) for r in range(R)]
    _close(got, want)
    got = average_precision_many(S, Y, sample_weight=W, ties="stable")
    want = [
        skm.average_precision_score(Y[r], _stable_rank_scores(S[r]), sample_weight=W2[r])
        for r in range(R)
    ]
    _close(got, want)
    # unweighted rows against scikit-learn too
    _close(
        average_precision_many(S, Y, ties="threshold"),
        [skm.average_precision_score(Y[r], S[r]) for r in range(R)],
    )
    _close(roc_auc_many(S, Y), [skm.roc_auc_score(Y[r], S[r]) for r in range(R)])


# ---------------------------------------------------------------------------
# tables (n_samples, n_classes): the averages
# ---------------------------------------------------------------------------


def _table(rng, n, c):
    """Scores and multilabel indicators whose every row and column has both classes."""
    S = rng.integers(0, 8, (n, c)) / 7.0
    Y = rng.random((n, c)) < 0.4
    for j in range(c):
        Y[2 * j % n, j], Y[(2 * j + 1) % n, j] = True, False
    for i in range(n):
        if Y[i].all():
            Y[i, rng.integers(c)] = False
        if not Y[i].any():
            Y[i, rng.integers(c)] = True
    return S, Y


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weighted", [False, True])
def test_table_averages_agree_with_sklearn(seed, weighted):
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(6, 40)), int(rng.integers(2, 6))
    S, Y = _table(rng, n, c)
    kw = {}
    if weighted:
        w = rng.choice([0.5, 1.0, 2.0, 3.0], size=n)
        kw = {"sample_weight": w}
    for average in ("micro", "macro", "weighted", "samples", None):
        want = skm.average_precision_score(Y, S, average=average, **kw)
        _close(auprc_ap(S, Y, ties="threshold", average=average, **kw), want)
        want = skm.roc_auc_score(Y, S, average=average, **kw)
        _close(roc_auc(S, Y, average=average, **kw), want)
        want = skm.roc_auc_score(Y, S, average=average, max_fpr=0.4, **kw)
        _close(roc_auc(S, Y, average=average, max_fpr=0.4, **kw), want)
    # the macro value is the mean of the columns' own APs
    cols = average_precision_many(S.T, Y.T, ties="threshold", **kw)
    assert auprc_ap(S, Y, ties="threshold", average="macro", **kw) == pytest.approx(cols.mean())


def test_table_without_average_names_both_choices():
    S, Y = _table(np.random.default_rng(0), 10, 3)
    for f in (auprc_ap, roc_auc):
        with pytest.raises(ValueError, match=rf"^{f.__name__}: .*average='micro'.*average='macro'"):
            f(S, Y)
    for f in (pr_curve, roc_curve):
        with pytest.raises(ValueError, match=rf"^{f.__name__}: .*numpy.ravel"):
            f(S, Y)
    # a column vector is one ranking, not a table
    assert auprc_ap(S[:, :1], Y[:, :1]) == auprc_ap(S[:, 0], Y[:, 0])


def test_table_columns_without_a_positive_are_refused():
    S = np.array([[0.1, 0.9], [0.4, 0.3], [0.8, 0.5]])
    Y = np.array([[0, 1], [0, 0], [0, 1]])  # column 0 has no positive
    with pytest.raises(ValueError, match=r"^auprc_ap: column 0 of y has no positive"):
        auprc_ap(S, Y, average="macro")
    with pytest.raises(ValueError, match=r"^roc_auc: column 0 of y has only one class"):
        roc_auc(S, Y, average="macro")
    with pytest.raises(ValueError, match=r"^auprc_ap: row 1 of y has no positive"):
        auprc_ap(S, Y, average="samples")
    with pytest.raises(ValueError, match=r"^auprc_ap: with average='macro'.*label_binarize"):
        auprc_ap(S, [0, 1, 1], average="macro")


# ---------------------------------------------------------------------------
# scikit-learn's documented cases (sklearn/metrics/tests/test_ranking.py)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "y, s, tpr, fpr, auc",
    [
        ([0, 1], [0, 1], [0, 0, 1], [0, 1, 1], 1.0),
        ([0, 1], [1, 0], [0, 1, 1], [0, 0, 1], 0.0),
        ([1, 0], [1, 1], [0, 1], [0, 1], 0.5),
        ([1, 0], [1, 0], [0, 0, 1], [0, 1, 1], 1.0),
        ([1, 0], [0.5, 0.5], [0, 1], [0, 1], 0.5),
    ],
)
def test_sklearn_roc_toydata(y, s, tpr, fpr, auc):
    # scikit-learn's test unpacks (fpr, tpr) as (tpr, fpr): its "tpr" is the fpr
    r = roc_curve(s, y, drop_intermediate=True)
    assert r.fpr.tolist() == tpr and r.tpr.tolist() == fpr
    assert roc_auc(s, y) == auc


@pytest.mark.parametrize("drop", [False, True])
@pytest.mark.parametrize(
    "y, s, p, r, ap",
    [
        ([0, 1], [0, 1], [0.5, 1, 1], [1, 1, 0], 1.0),
        ([0, 1], [1, 0], [0.5, 0.0, 1.0], [1.0, 0.0, 0.0], 0.5),
        ([1, 0], [1, 1], [0.5, 1], [1.0, 0], 0.5),
        ([1, 0], [1, 0], [0.5, 1, 1], [1, 1, 0], 1.0),
        ([1, 0], [0.5, 0.5], [0.5, 1], [1, 0.0], 0.5),
        ([1, 1], [0.25, 0.75], [1.0, 1.0, 1.0], [1, 0.5, 0.0], 1.0),
    ],
)
def test_sklearn_pr_toydata(y, s, p, r, ap, drop):
    c = pr_curve(s, y, drop_intermediate=drop)
    assert c.precision[::-1].tolist() == p and c.recall[::-1].tolist() == r
    assert auprc_ap(s, y, ties="threshold") == ap


def test_sklearn_no_positive_or_negative_is_an_error_here():
    # scikit-learn warns and returns 0 (AP) or NaN (ROC AUC); pranker refuses
    with pytest.raises(ValueError, match="^auprc_ap: y has no positive"):
        auprc_ap([0.25, 0.75], [0, 0])
    with pytest.raises(ValueError, match="^pr_curve: y has no positive"):
        pr_curve([0.25, 0.75], [0, 0])
    with pytest.raises(ValueError, match="^roc_curve: y has no negative"):
        roc_curve([0.25, 0.75], [1, 1])
    with pytest.raises(ValueError, match="^roc_auc: y has no positive"):
        roc_auc([0.25, 0.75], [0, 0])


@pytest.mark.parametrize(
    "Y, S, values",
    [
        ([[1, 0], [0, 1]], [[0, 1], [1, 0]], dict(macro=0.5, weighted=0.5, samples=0.5, micro=0.5)),
        ([[1, 1], [1, 1]], [[0, 1], [0, 1]], dict(macro=1.0, weighted=1.0, samples=1.0, micro=1.0)),
        (
            [[1, 0], [0, 1]],
            [[0.5, 0.5], [0.5, 0.5]],
            dict(macro=0.5, weighted=0.5, samples=0.5, micro=0.5),
        ),
        ([[0, 1], [0, 1]], [[0, 1], [1, 0]], dict(samples=0.75, micro=0.5)),
        ([[0, 1], [0, 1]], [[0, 1], [0, 1]], dict(samples=1.0, micro=1.0)),
    ],
)
def test_sklearn_multilabel_ap_toydata(Y, S, values):
    for average, want in values.items():
        assert auprc_ap(S, Y, average=average, ties="threshold") == pytest.approx(want)


@pytest.mark.parametrize(
    "Y, S, values",
    [
        ([[1, 0], [0, 1]], [[0, 1], [1, 0]], dict(macro=0, weighted=0, samples=0, micro=0)),
        (
            [[1, 0], [0, 1]],
            [[0.5, 0.5], [0.5, 0.5]],
            dict(macro=0.5, weighted=0.5, samples=0.5, micro=0.5),
        ),
        ([[0, 1], [0, 1]], [[0, 1], [0, 1]], dict(samples=1.0, micro=1.0)),
        ([[0, 1], [0, 1]], [[0, 1], [1, 0]], dict(samples=0.5, micro=0.5)),
    ],
)
def test_sklearn_multilabel_roc_toydata(Y, S, values):
    for average, want in values.items():
        assert roc_auc(S, Y, average=average) == pytest.approx(want)
    if "macro" not in values:  # a column with one class: scikit-learn warns, pranker refuses
        with pytest.raises(ValueError, match="^roc_auc: column 0 of y has only one class"):
            roc_auc(S, Y, average="macro")


def test_sklearn_drop_intermediate_cases():
    y = [0, 0, 0, 0, 1, 1]
    s = [0.0, 0.2, 0.5, 0.6, 0.7, 1.0]
    assert roc_curve(s, y, drop_intermediate=True).thresholds.tolist() == [np.inf, 1.0, 0.7, 0.0]
    assert pr_curve(s, y, drop_intermediate=True).thresholds[1:].tolist() == [1.0, 0.7, 0.0]
    y = [0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]
    s = [0.0, 0.1, 0.6, 0.6, 0.7, 0.8, 0.9, 0.6, 0.7, 0.8, 0.9, 0.9, 1.0]
    got = roc_curve(s, y, drop_intermediate=True).thresholds.tolist()
    assert got == [np.inf, 1.0, 0.9, 0.7, 0.6, 0.0]
    got = pr_curve(s, y, drop_intermediate=True).thresholds[1:].tolist()
    assert got == [1.0, 0.9, 0.8, 0.7, 0.6, 0.0]
    # all positive: every threshold kept
    s = [0.0, 0.1, 0.2, 0.3]
    assert pr_curve(s, [1, 1, 1, 1], drop_intermediate=True).thresholds[1:].tolist() == s[::-1]
    # the default keeps every threshold (scikit-learn's roc_curve defaults to True)
    assert len(roc_curve([0.0, 0.2, 0.5, 0.6, 0.7, 1.0], [0, 0, 0, 0, 1, 1])) == 7


def test_sklearn_constant_scores_and_zero_weights():
    y = np.zeros(100, dtype=int)
    y[::4] = 1
    assert auprc_ap(np.ones(100), y, ties="threshold") == 0.25
    # a weight-0 item is as if absent
    y, s, w = [0, 0, 1, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5], [1, 1, 1, 0.5, 0]
    a, b = roc_curve(s, y, sample_weight=w), roc_curve(s[:-1], y[:-1], sample_weight=w[:-1])
    assert a.fpr.tolist() == b.fpr.tolist() and a.tpr.tolist() == b.tpr.tolist()
    a, b = pr_curve(s, y, sample_weight=w), pr_curve(s[:-1], y[:-1], sample_weight=w[:-1])
    assert a.precision.tolist() == b.precision.tolist()
    # fpr and tpr never decrease with fractional weights
    r = roc_curve([0.1, 0.7, 0.3, 0.4, 0.5], [0, 0, 1, 1, 1], sample_weight=np.repeat(0.2, 5))
    assert (np.diff(r.fpr) >= 0).all() and (np.diff(r.tpr) >= 0).all()


def _exact_partial_auc(s, y, max_fpr: Fraction) -> Fraction:
    """McClish's standardised partial AUC in fractions: the ROC polyline clipped at max_fpr."""
    P, M = sum(y), len(y) - sum(y)
    pts = [(Fraction(0), Fraction(0))]
    for t in sorted(set(s), reverse=True):
        tp = sum(1 for a, b in zip(s, y, strict=True) if a >= t and b)
        fp = sum(1 for a, b in zip(s, y, strict=True) if a >= t and not b)
        pts.append((Fraction(fp, M), Fraction(tp, P)))
    area = Fraction(0)
    for (x0, y0), (x1, y1) in zip(pts, pts[1:], strict=False):
        if x0 >= max_fpr:
            break
        if x1 > max_fpr:  # cut the segment at max_fpr
            y1 = y0 + (y1 - y0) * (max_fpr - x0) / (x1 - x0)
            x1 = max_fpr
        area += (x1 - x0) * (y0 + y1) / 2
    lo = max_fpr * max_fpr / 2
    return (1 + (area - lo) / (max_fpr - lo)) / 2


def test_partial_auc_cases_and_exact_oracle():
    y = [0, 0, 1, 1]
    assert roc_auc(y, y, max_fpr=1) == 1 and roc_auc(y, y, max_fpr=0.001) == 1
    s = [0.1, 0, 0.1, 0.01]
    assert roc_auc(s, y, max_fpr=1) == roc_auc(s, y)
    assert roc_auc(s, y, max_fpr=0.3) == 0.5
    for bad in (-0.1, 1.1, 0, "0.5", True):
        with pytest.raises(ValueError, match=r"^roc_auc: max_fpr must be a number in \(0, 1\]"):
            roc_auc(s, y, max_fpr=bad)
    rng = np.random.default_rng(5)
    for _ in range(40):
        n = int(rng.integers(4, 25))
        s = (rng.integers(0, 5, n) / 4.0).tolist()
        yy = (rng.random(n) < 0.5).astype(int)
        yy[0], yy[1] = 1, 0
        for k in (1, 3, 7):
            m = Fraction(k, 8)
            want = float(_exact_partial_auc(s, yy.tolist(), m))
            assert roc_auc(s, yy, max_fpr=k / 8) == pytest.approx(want, rel=REL)


# ---------------------------------------------------------------------------
# the same mistake: the same exception class (or a subclass)
# ---------------------------------------------------------------------------

_S, _Y = [0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]

# (what, pranker call, scikit-learn call); a scikit-learn call of None means
# scikit-learn does not raise (it warns, or accepts): pranker's ValueError is stricter
MISTAKES = [
    ("string labels", lambda: auprc_ap(_S, ["a", "a", "b", "b"]), lambda: skm.average_precision_score(["a", "a", "b", "b"], _S)),
    ("NaN score", lambda: auprc_ap([np.nan, 0.4, 0.35, 0.8], _Y), lambda: skm.average_precision_score(_Y, [np.nan, 0.4, 0.35, 0.8])),
    ("NaN label", lambda: roc_auc(_S, [np.nan, 0, 1, 1]), lambda: skm.roc_auc_score([np.nan, 0, 1, 1], _S)),
    ("None score", lambda: roc_auc([None, 0.4, 0.35, 0.8], _Y), lambda: skm.roc_auc_score(_Y, [None, 0.4, 0.35, 0.8])),
    ("size mismatch", lambda: pr_curve(_S, _Y[:3]), lambda: skm.precision_recall_curve(_Y[:3], _S)),
    ("complex scores", lambda: roc_curve(np.array(_S) * 1j, _Y), lambda: skm.roc_curve(_Y, np.array(_S) * 1j)),
    ("ragged scores", lambda: auprc_ap([[0.1], [0.4, 0.35]], _Y), lambda: skm.average_precision_score(_Y, [[0.1], [0.4, 0.35]])),
    ("string scores", lambda: auprc_ap(["a", "b", "c", "d"], _Y), lambda: skm.average_precision_score(_Y, ["a", "b", "c", "d"])),
    ("weights of another length", lambda: auprc_ap(_S, _Y, sample_weight=[1, 2], ties="threshold"), lambda: skm.average_precision_score(_Y, _S, sample_weight=[1, 2])),
    ("NaN weight", lambda: roc_auc(_S, _Y, sample_weight=[1, np.nan, 1, 1]), lambda: skm.roc_auc_score(_Y, _S, sample_weight=[1, np.nan, 1, 1])),
    ("string weights", lambda: roc_curve(_S, _Y, sample_weight=list("abcd")), lambda: skm.roc_curve(_Y, _S, sample_weight=list("abcd"))),
    ("pos_label absent", lambda: auprc_ap(_S, _Y, pos_label=3), lambda: skm.average_precision_score(_Y, _S, pos_label=3)),
    ("max_fpr out of range", lambda: roc_auc(_S, _Y, max_fpr=1.5), lambda: skm.roc_auc_score(_Y, _S, max_fpr=1.5)),
    ("max_fpr not a number", lambda: roc_auc(_S, _Y, max_fpr="a"), lambda: skm.roc_auc_score(_Y, _S, max_fpr="a")),
    ("unknown average", lambda: auprc_ap(_S, _Y, average="mean"), lambda: skm.average_precision_score(_Y, _S, average="mean")),
    ("drop_intermediate not a bool", lambda: roc_curve(_S, _Y, drop_intermediate="x"), lambda: skm.roc_curve(_Y, _S, drop_intermediate="x")),
    ("one class (ROC)", lambda: roc_auc(_S, [1, 1, 1, 1]), None),
    ("no positive (AP)", lambda: auprc_ap(_S, [0, 0, 0, 0]), None),
    ("negative weight", lambda: auprc_ap(_S, _Y, sample_weight=[1, -1, 1, 1], ties="threshold"), None),
    ("weighted average ties", lambda: auprc_ap(_S, _Y, sample_weight=[1, 2, 1, 1]), None),
    ("labels not binary", lambda: auprc_ap(_S, [0, 1, 2, 2]), None),  # scikit-learn: AttributeError on lists
    ("empty input", lambda: auprc_ap([], []), None),  # scikit-learn: IndexError
]  # fmt: skip


def _builtin_bases(exc: BaseException):
    skip = (object, BaseException, Exception)
    return [c for c in type(exc).__mro__ if c.__module__ == "builtins" and c not in skip]


@pytest.mark.parametrize("what, ours, theirs", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_exception_classes_match_sklearn(what, ours, theirs):
    with pytest.raises(Exception) as info:
        ours()
    name = ours.__code__.co_names[0]  # the pranker function called
    assert str(info.value).startswith(f"{name}: "), str(info.value)
    if theirs is None:
        assert isinstance(info.value, ValueError)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as sk:
            theirs()
    for cls in _builtin_bases(sk.value):
        assert isinstance(info.value, cls), (what, type(info.value), type(sk.value))


def _raises_section(f) -> str:
    """The text of the Raises section of ``f``'s docstring (up to the next section)."""
    doc = inspect.getdoc(f) or ""
    m = re.search(r"^Raises\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", doc, re.M | re.S)
    assert m, f"{f.__name__} has no Raises section"
    return m.group(1)


@pytest.mark.parametrize("what, ours, theirs", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_every_raised_error_is_in_the_docstring(what, ours, theirs):
    import pranker

    with pytest.raises(Exception) as info:
        ours()
    f = getattr(pranker, ours.__code__.co_names[0])
    section = _raises_section(f)
    assert any(c.__name__ in section for c in type(info.value).__mro__ if c.__name__ != "object"), (
        f.__name__,
        type(info.value),
    )
