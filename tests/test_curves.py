"""Tests of pranker.measures.curves against independent oracles.

Oracles: plain loop-over-thresholds definitions written here, exact fractions,
brute force over all orders of tied items, mpmath quadrature, and
scikit-learn (test-only dependency).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from sklearn import metrics as skm

import pranker
from pranker import (
    average_precision_many,
    pr_curve,
    roc_auc,
    roc_auc_many,
    roc_curve,
)

SEEDS = range(8)


def _data(seed, n=None, levels=None, weights=False):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(2, 40))
    levels = levels or int(rng.integers(2, 12))
    s = rng.integers(0, levels, n).astype(float) / 3.0  # many ties
    if seed % 3 == 0:
        s[rng.integers(0, n)] = -np.inf
    if seed % 4 == 1:
        s[rng.integers(0, n)] = np.inf
    y = rng.random(n) < 0.4
    y[rng.integers(0, n)] = True
    y[rng.integers(0, n)] = False if y.sum() > 1 else y[0]
    w = rng.integers(0, 4, n).astype(float) if weights else None
    if weights:
        w[np.flatnonzero(y)[0]] = 2.0  # keep a positive with weight
    return s, y, w


# ---------------------------------------------------------------------------
# oracle: loop over thresholds
# ---------------------------------------------------------------------------


def loop_threshold_curve(s, y, w=None):
    """One point per distinct score (nonzero weight), from the highest; point 0 empty."""
    w = np.ones(len(s)) if w is None else np.asarray(w, float)
    items = [(float(a), bool(b), float(c)) for a, b, c in zip(s, y, w, strict=True) if c > 0]
    thr = sorted({a for a, _, _ in items}, reverse=True)
    T, TP, FP = [math.inf], [0.0], [0.0]
    for t in thr:
        T.append(t)
        TP.append(sum(c for a, b, c in items if b and a >= t))
        FP.append(sum(c for a, b, c in items if (not b) and a >= t))
    return np.array(T), np.array(TP), np.array(FP)


def loop_per_item_order(s, y, ties):
    idx = list(range(len(s)))
    if ties == "stable":
        key = lambda i: (-s[i], i)  # noqa: E731
    elif ties == "optimistic":
        key = lambda i: (-s[i], not y[i], i)  # noqa: E731
    else:
        key = lambda i: (-s[i], bool(y[i]), i)  # noqa: E731
    return sorted(idx, key=key)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_threshold_curve_matches_loop(seed, weighted):
    s, y, w = _data(seed, weights=weighted)
    c = pr_curve(s, y, sample_weight=w)
    T, TP, FP = loop_threshold_curve(s, y, w)
    np.testing.assert_array_equal(c.thresholds, T)
    np.testing.assert_allclose(c.tp, TP, rtol=0, atol=1e-12)
    np.testing.assert_allclose(c.fp, FP, rtol=0, atol=1e-12)
    assert c.precision[0] == 1.0 and c.recall[0] == 0.0
    assert c.recall[-1] == 1.0
    n_pos = TP[-1]
    np.testing.assert_allclose(c.recall, TP / n_pos, rtol=1e-15)
    np.testing.assert_allclose(c.precision[1:], TP[1:] / (TP[1:] + FP[1:]), rtol=1e-15)
    assert c.n_pos == pytest.approx(n_pos) and c.n_neg == pytest.approx(FP[-1])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ties", ["stable", "optimistic", "pessimistic"])
def test_per_item_curve_matches_loop(seed, ties):
    s, y, _ = _data(seed)
    c = pr_curve(s, y, ties=ties)
    order = loop_per_item_order(s, y, ties)
    tp = np.concatenate(([0], np.cumsum([y[i] for i in order])))
    fp = np.concatenate(([0], np.cumsum([not y[i] for i in order])))
    np.testing.assert_array_equal(c.tp, tp)
    np.testing.assert_array_equal(c.fp, fp)
    np.testing.assert_array_equal(c.thresholds[1:], [s[i] for i in order])
    # AP of the per-item curve is AP in that tie mode
    assert c.average_precision() == pytest.approx(pranker.auprc_ap(s, y, ties=ties), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_sklearn_precision_recall_curve_and_ap(seed):
    s, y, _ = _data(seed)
    s = np.where(np.isfinite(s), s, np.sign(s) * 1e300)  # sklearn rejects inf
    c = pr_curve(s, y)
    p, r, t = skm.precision_recall_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(c.precision, p[::-1], rtol=1e-14)
    np.testing.assert_allclose(c.recall, r[::-1], rtol=1e-14)
    np.testing.assert_array_equal(c.thresholds[1:], t[::-1])
    ap = skm.average_precision_score(y, s)
    assert c.average_precision() == pytest.approx(ap, rel=1e-12)
    assert c.average_precision(ties="threshold") == pytest.approx(ap, rel=1e-12)
    assert pranker.auprc_ap(s, y, ties="threshold") == pytest.approx(ap, rel=1e-12)
    # trapezoid through all points = sklearn.metrics.auc(recall, precision)
    assert c.auc_trapezoid() == pytest.approx(skm.auc(r, p), rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_sklearn_weighted(seed):
    s, y, w = _data(seed, weights=True)
    s = np.where(np.isfinite(s), s, np.sign(s) * 1e300)
    c = pr_curve(s, y, sample_weight=w)
    ap = skm.average_precision_score(y, s, sample_weight=w)
    assert c.average_precision() == pytest.approx(ap, rel=1e-12)
    if (w[~y] > 0).any():
        rc = roc_curve(s, y, sample_weight=w)
        assert rc.auc == pytest.approx(skm.roc_auc_score(y, s, sample_weight=w), rel=1e-12)
        assert roc_auc(s, y, sample_weight=w) == pytest.approx(rc.auc, rel=1e-15)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ties", ["stable", "threshold"])
def test_integer_weights_equal_repeats(seed, ties):
    s, y, w = _data(seed, weights=True)
    reps = w.astype(int)
    cw = pr_curve(s, y, sample_weight=w, ties=ties)
    if ties == "threshold":
        cr = pr_curve(np.repeat(s, reps), np.repeat(y, reps))
        np.testing.assert_array_equal(cw.tp, cr.tp)
        np.testing.assert_array_equal(cw.fp, cr.fp)
        np.testing.assert_array_equal(cw.thresholds, cr.thresholds)
        assert cw.ap_11point() == cr.ap_11point()
        assert cw.auc_davis_goadrich() == pytest.approx(cr.auc_davis_goadrich(), rel=1e-13)
        assert cw.break_even_point() == pytest.approx(cr.break_even_point(), rel=1e-13)
    else:
        # a weight-w item is w consecutive copies in the stable order
        cr = pr_curve(np.repeat(s, reps), np.repeat(y, reps), ties="stable")
        keep = np.concatenate(
            ([0], np.cumsum(reps[reps > 0][np.argsort(-s[reps > 0], kind="stable")]))
        )
        np.testing.assert_array_equal(cw.tp, cr.tp[keep])
        np.testing.assert_array_equal(cw.fp, cr.fp[keep])
        # (the copies add intermediate points, so per-item AP differs: not asserted)
    if (y & (w > 0)).any() and (~y & (w > 0)).any():
        assert roc_curve(s, y, sample_weight=w).auc == pytest.approx(
            roc_auc(np.repeat(s, reps), np.repeat(y, reps)), rel=1e-13
        )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mode", ["average", "optimistic", "pessimistic", "threshold"])
def test_ap_tie_modes_from_curve(seed, mode):
    s, y, _ = _data(seed)
    want = pranker.auprc_ap(s, y, ties=mode)
    assert pr_curve(s, y).average_precision(ties=mode) == pytest.approx(want, rel=1e-12)
    # regrouping a per-item curve by threshold gives the same
    c = pr_curve(s, y, ties="stable")
    assert c.average_precision(ties=mode) == pytest.approx(want, rel=1e-12)


def test_ap_stable_needs_stable_curve():
    with pytest.raises(ValueError, match="stable"):
        pr_curve([1, 2, 3], [1, 0, 1]).average_precision(ties="stable")
    with pytest.raises(ValueError, match="no weighted meaning"):
        pr_curve([1, 2, 3], [1, 0, 1], sample_weight=[1, 2, 1]).average_precision(ties="average")


# ---------------------------------------------------------------------------
# interpolated precision and 11-point AP, in exact fractions
# ---------------------------------------------------------------------------


def frac_points(s, y):
    T, TP, FP = loop_threshold_curve(s, y)
    P = int(TP[-1])
    pairs = zip(TP[1:], FP[1:], strict=True)
    pts = [(Fraction(int(a), P), Fraction(int(a), int(a + b))) for a, b in pairs]
    return pts  # (recall, precision) of the real operating points


def eleven_point_fraction(pts, include_initial=False):
    pts = pts + ([(Fraction(0), Fraction(1))] if include_initial else [])
    vals = []
    for k in range(11):
        lvl = Fraction(k, 10)
        vals.append(max([p for r, p in pts if r >= lvl], default=Fraction(0)))
    return sum(vals) / 11


@pytest.mark.parametrize("seed", SEEDS)
def test_ap_11point_exact(seed):
    s, y, _ = _data(seed)
    c = pr_curve(s, y)
    pts = frac_points(s, y)
    assert c.ap_11point() == pytest.approx(float(eleven_point_fraction(pts)), rel=1e-15)
    assert c.ap_11point(include_initial=True) == pytest.approx(
        float(eleven_point_fraction(pts, True)), rel=1e-15
    )


def test_ap_11point_hits_level_0p3_exactly():
    # 10 positives; the first 3 retrieved with precision 1, then a run of negatives.
    # Recall 3/10 is reached with precision 1; the next positive has precision 4/14.
    y = [1, 1, 1] + [0] * 10 + [1] * 7
    s = np.arange(len(y), 0, -1).astype(float)
    c = pr_curve(s, y)
    pts = frac_points(s, y)
    want = eleven_point_fraction(pts)
    assert c.ap_11point() == pytest.approx(float(want), rel=1e-15)
    # the naive float grid misses level 0.3 (one ulp above 3/10) and gets another value
    grid = np.linspace(0, 1, 11)
    assert grid[3] > 0.3
    naive = np.mean([max(c.precision[1:][c.recall[1:] >= g]) for g in grid])
    assert naive != pytest.approx(float(want), rel=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_interpolated_precision_loop(seed):
    s, y, _ = _data(seed)
    c = pr_curve(s, y)
    ip = c.interpolated_precision()
    for k in range(len(c)):
        want = max(c.precision[j] for j in range(1, len(c)) if c.recall[j] >= c.recall[k])
        assert ip[k] == want
    ip1 = c.interpolated_precision(include_initial=True)
    assert ip1[0] == 1.0
    np.testing.assert_array_equal(ip1[c.recall > 0], ip[c.recall > 0])


# ---------------------------------------------------------------------------
# Davis & Goadrich
# ---------------------------------------------------------------------------


def dg_quadrature(tp, fp, n_pos):
    """Area under D&G's interpolation, integrated numerically segment by segment."""
    mpmath.mp.dps = 30
    total = mpmath.mpf(0)
    for k in range(1, len(tp)):
        ta, fa, tb, fb = (mpmath.mpf(float(v)) for v in (tp[k - 1], fp[k - 1], tp[k], fp[k]))
        if tb == ta:
            continue
        skew = (fb - fa) / (tb - ta)
        if ta + fa == 0:
            prec = lambda x, tb=tb, fb=fb: tb / (tb + fb)  # noqa: E731
        else:
            prec = lambda x, ta=ta, fa=fa, skew=skew: (ta + x) / (ta + x + fa + skew * x)  # noqa: E731
        total += mpmath.quad(prec, [0, tb - ta])
    return float(total / n_pos)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ties", ["threshold", "stable"])
def test_davis_goadrich_quadrature(seed, ties):
    s, y, _ = _data(seed)
    c = pr_curve(s, y, ties=ties)
    assert c.auc_davis_goadrich() == pytest.approx(dg_quadrature(c.tp, c.fp, c.n_pos), rel=1e-12)


def test_davis_goadrich_hand_example():
    # points (tp, fp): (0,0) -> (1,0) -> (2,2); P = 2.
    # first segment: precision 1 over recall [0, 1/2] -> 1/2
    # second: precision (1+x)/(1+3x), x in [0,1], integral = 1/3 + (2/9) ln 4, over P=2
    c = pr_curve([3, 2, 2, 2], [1, 1, 0, 0])
    want = 0.5 + (1 / 3 + (2 / 9) * math.log(4)) / 2
    assert c.auc_davis_goadrich() == pytest.approx(want, rel=1e-14)
    # linear interpolation in PR space overstates it
    assert c.auc_trapezoid() > c.auc_davis_goadrich()


def test_davis_goadrich_accuracy_large_counts():
    # a segment with huge skew (the case where a naive closed form cancels)
    tp = np.array([0.0, 1.0, 1000.0])
    fp = np.array([0.0, 0.0, 1e6])
    from pranker._numba.curves import dg_area

    assert dg_area(tp, fp, 1000.0) == pytest.approx(dg_quadrature(tp, fp, 1000.0), rel=1e-13)


# ---------------------------------------------------------------------------
# break-even point, F, @k, at-recall / at-precision
# ---------------------------------------------------------------------------


def expected_over_tie_orders(s, y, fn):
    """Mean of fn(labels in ranked order) over all orders of tied items (brute force)."""
    vals = []
    for perm in itertools.permutations(range(len(s))):
        rank = {i: r for r, i in enumerate(perm)}
        order = sorted(range(len(s)), key=lambda i: (-s[i], rank[i]))
        vals.append(fn([y[i] for i in order]))
    return sum(vals) / len(vals)


def test_break_even_seed_example():
    # seed 001: irrel, irrel, rel, rel with two relevant: R-precision 0
    assert pr_curve([4, 3, 2, 1], [0, 0, 1, 1]).break_even_point() == 0.0


@pytest.mark.parametrize("seed", SEEDS)
def test_break_even_is_expected_r_precision(seed):
    s, y, _ = _data(seed, n=6, levels=3)
    P = int(np.sum(y))
    want = expected_over_tie_orders(list(s), list(y), lambda lab: Fraction(sum(lab[:P]), P))
    assert pr_curve(s, y).break_even_point() == pytest.approx(float(want), rel=1e-14)
    # with all points (per-item curve) BEP is the R-precision of that order
    c = pr_curve(s, y, ties="stable")
    order = loop_per_item_order(s, y, "stable")
    assert c.break_even_point() == pytest.approx(sum(y[i] for i in order[:P]) / P, rel=1e-15)


@pytest.mark.parametrize("seed", SEEDS)
def test_precision_recall_at_k_expected(seed):
    s, y, _ = _data(seed, n=6, levels=3)
    c = pr_curve(s, y)
    P = int(np.sum(y))
    for k in range(1, len(s) + 1):
        want = expected_over_tie_orders(list(s), list(y), lambda lab, k=k: Fraction(sum(lab[:k])))
        assert c.precision_at_k(k) == pytest.approx(float(want) / k, rel=1e-14)
        assert c.recall_at_k(k) == pytest.approx(float(want) / P, rel=1e-14)
    ks = np.arange(1, len(s) + 1)
    np.testing.assert_allclose(c.precision_at_k(ks), [c.precision_at_k(int(k)) for k in ks])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("beta", [1.0, 0.5, 2.0])
def test_best_f_loop(seed, beta):
    s, y, _ = _data(seed)
    c = pr_curve(s, y)
    T, TP, FP = loop_threshold_curve(s, y)
    best = (-1.0, None)
    for k in range(1, len(T)):
        p, r = TP[k] / (TP[k] + FP[k]), TP[k] / TP[-1]
        f = 0.0 if p + r == 0 else (1 + beta**2) * p * r / (beta**2 * p + r)
        if f > best[0] + 1e-12:
            best = (f, k)
    f, thr, prec, rec = c.best_f(beta)
    assert f == pytest.approx(best[0], rel=1e-12)
    assert thr == T[best[1]]
    assert (prec, rec) == (c.precision[best[1]], c.recall[best[1]])


@pytest.mark.parametrize("seed", SEEDS)
def test_precision_at_recall_and_recall_at_precision_loop(seed):
    s, y, _ = _data(seed)
    c = pr_curve(s, y)
    for r in [0.0, 0.1, 0.25, 1 / 3, 0.5, 0.7, 0.99, 1.0]:
        want = max(c.precision[j] for j in range(1, len(c)) if c.recall[j] >= r)
        assert c.precision_at_recall(r) == want
    for p in [0.0, 0.2, 0.5, 2 / 3, 0.9, 1.0]:
        want = max(c.recall[j] for j in range(len(c)) if c.precision[j] >= p)
        assert c.recall_at_precision(p) == want
    rs = np.array([0.0, 0.5, 1.0])
    np.testing.assert_array_equal(c.precision_at_recall(rs), [c.precision_at_recall(v) for v in rs])
    ps = np.array([0.0, 0.5, 1.0])
    np.testing.assert_array_equal(c.recall_at_precision(ps), [c.recall_at_precision(v) for v in ps])


def test_precision_at_exact_recall_fraction():
    y = [1, 1, 1] + [0] * 10 + [1] * 7  # recall exactly 3/10 at precision 1
    c = pr_curve(np.arange(20, 0, -1), y)
    assert c.precision_at_recall(0.3) == 1.0
    assert c.precision_at_recall(0.30000000000000004) < 1.0


# ---------------------------------------------------------------------------
# ROC
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_roc_against_sklearn_and_mann_whitney(seed):
    s, y, _ = _data(seed)
    if y.all() or not y.any():
        pytest.skip("one class")
    sf = np.where(np.isfinite(s), s, np.sign(s) * 1e300)
    c = roc_curve(sf, y)
    fpr, tpr, thr = skm.roc_curve(y, sf, drop_intermediate=False)
    np.testing.assert_allclose(c.fpr, fpr, rtol=1e-15)
    np.testing.assert_allclose(c.tpr, tpr, rtol=1e-15)
    np.testing.assert_array_equal(c.thresholds[1:], thr[1:])
    assert c.thresholds[0] == np.inf
    auc = skm.roc_auc_score(y, sf)
    assert c.auc == pytest.approx(auc, rel=1e-14)
    # Mann-Whitney by the pair definition, exact
    pos, neg = s[y], s[~y]
    U = sum(Fraction(1) if a > b else Fraction(1, 2) if a == b else 0 for a in pos for b in neg)
    assert c.auc == pytest.approx(float(U / (len(pos) * len(neg))), rel=1e-15)
    assert roc_auc(s, y) == pytest.approx(float(U / (len(pos) * len(neg))), rel=1e-15)


def eer_oracle(fpr, tpr):
    """Intersection of the polyline with fpr = 1 - tpr, in exact fractions."""
    for k in range(1, len(fpr)):
        x0, y0, x1, y1 = (Fraction(v) for v in (fpr[k - 1], tpr[k - 1], fpr[k], tpr[k]))
        g0, g1 = x0 + y0 - 1, x1 + y1 - 1
        if g0 < 0 <= g1:
            t = -g0 / (g1 - g0)
            return x0 + t * (x1 - x0), k
    raise AssertionError("no crossing")


@pytest.mark.parametrize("seed", SEEDS)
def test_eer(seed):
    s, y, _ = _data(seed)
    if y.all() or not y.any():
        pytest.skip("one class")
    c = roc_curve(s, y)
    want, k = eer_oracle(c.fpr, c.tpr)
    e, thr = c.eer()
    assert e == pytest.approx(float(want), abs=1e-14)
    assert thr == c.thresholds[k]
    # at the EER the miss rate equals the false alarm rate on the polyline
    assert 0.0 <= e <= 1.0


def test_eer_hand():
    # ranks: P N P N ; at threshold 2nd item fpr=1/2, fnr=1/2
    c = roc_curve([4, 3, 2, 1], [1, 0, 1, 0])
    assert c.eer() == (0.5, 3.0)
    c = roc_curve([4, 3, 2, 1], [1, 1, 0, 0])
    assert c.eer()[0] == 0.0


# ---------------------------------------------------------------------------
# many rankings at once
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["average", "stable", "threshold", "optimistic", "pessimistic"])
def test_average_precision_many(mode):
    rng = np.random.default_rng(5)
    S = rng.integers(0, 4, (6, 15)).astype(float)
    Y = rng.random((6, 15)) < 0.4
    Y[:, 0] = True
    got = average_precision_many(S, Y, ties=mode)
    want = [pranker.auprc_ap(S[r], Y[r], ties=mode) for r in range(6)]
    np.testing.assert_allclose(got, want, rtol=1e-13)
    got1 = average_precision_many(S, Y[0], ties=mode)
    want1 = [pranker.auprc_ap(S[r], Y[0], ties=mode) for r in range(6)]
    np.testing.assert_allclose(got1, want1, rtol=1e-13)


def test_roc_auc_many():
    rng = np.random.default_rng(6)
    S = rng.integers(0, 4, (5, 20)).astype(float)
    Y = rng.random((5, 20)) < 0.4
    Y[:, 0], Y[:, 1] = True, False
    got = roc_auc_many(S, Y)
    np.testing.assert_allclose(got, [skm.roc_auc_score(Y[r], S[r]) for r in range(5)], rtol=1e-14)
    np.testing.assert_allclose(
        roc_auc_many(S, Y[0]), [skm.roc_auc_score(Y[0], S[r]) for r in range(5)], rtol=1e-14
    )


# ---------------------------------------------------------------------------
# edge cases and bad input
# ---------------------------------------------------------------------------


def test_edge_cases():
    c = pr_curve([0.3], [1])
    assert c.precision.tolist() == [1.0, 1.0] and c.recall.tolist() == [0.0, 1.0]
    assert c.average_precision() == 1.0 and c.ap_11point() == 1.0
    c = pr_curve([1, 1, 1, 1], [1, 0, 0, 1])  # all tied: one operating point
    assert len(c) == 2 and c.precision[1] == 0.5
    assert c.average_precision() == 0.5
    c = pr_curve([np.inf, 1.0, -np.inf], [0, 1, 1])
    assert c.thresholds.tolist() == [np.inf, np.inf, 1.0, -np.inf]
    # -0.0 and 0.0 are the same score: one tied group
    c = pr_curve([0.0, -0.0, 1.0], [1, 0, 0])
    assert c.tp.tolist() == [0, 0, 1] and c.fp.tolist() == [0, 1, 2]
    assert roc_auc([0.0, -0.0, 1.0], [1, 0, 0]) == 0.25


def test_frozen_and_readonly():
    c = pr_curve([3, 2, 1], [1, 0, 1])
    with pytest.raises(AttributeError):
        c.n_pos = 5
    with pytest.raises(ValueError):
        c.precision[0] = 0.0
    r = roc_curve([3, 2, 1], [1, 0, 1])
    with pytest.raises(ValueError):
        r.fpr[0] = 1.0


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: pr_curve([1, np.nan], [1, 0]), "NaN"),
        (lambda: pr_curve([1, 2, 3], [1, 0]), "same number"),
        (lambda: pr_curve([1, 2], [0, 0]), "no positive"),
        (lambda: pr_curve([1, 2], [1, 0], sample_weight=[1, -1]), "finite and >= 0"),
        (lambda: pr_curve([1, 2], [1, 0], sample_weight=[1, np.nan]), "finite and >= 0"),
        (lambda: pr_curve([1, 2], [1, 0], sample_weight=[1]), "one weight per score"),
        (lambda: pr_curve([1, 2], [1, 0], sample_weight=[0, 1]), "no positive"),
        (lambda: pr_curve([1, 2], [1, 0], ties="average"), "does not define a curve"),
        (lambda: pr_curve([1, 2], [1, 0], ties="bogus"), "ties must be one of"),
        (lambda: pr_curve([], []), "empty"),
        (lambda: pr_curve(["a", "b"], [1, 0]), "numeric"),
        (lambda: roc_curve([1, 2], [1, 1]), "no negative"),
        (lambda: roc_auc([1, 2], [0, 0]), "no positive"),
        (lambda: pr_curve([1, 2], [1, 0]).precision_at_k(3), "k must be"),
        (lambda: pr_curve([1, 2], [1, 0]).precision_at_k(0), "k must be"),
        (lambda: pr_curve([1, 2], [1, 0]).precision_at_recall(1.5), r"r must lie in"),
        (lambda: pr_curve([1, 2], [1, 0]).recall_at_precision(-0.1), r"p must lie in"),
        (lambda: pr_curve([1, 2], [1, 0]).best_f(0), "beta"),
        (lambda: average_precision_many([1, 2], [1, 0]), "2-D"),
        (lambda: average_precision_many([[1, 2]], [[0, 0]]), "row 0 .* no positive"),
        (lambda: average_precision_many([[1, 2]], [1, 0, 1]), "y must have shape"),
        (lambda: roc_auc_many([[1, 2], [2, 1]], [[1, 0], [1, 1]]), "row 1 .* one class"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_input_not_modified():
    s = np.array([3.0, 1.0, 2.0, 0.5])
    y = np.array([1, 0, 1, 0])
    w = np.array([1.0, 0.0, 2.0, 1.0])
    pr_curve(s, y, sample_weight=w)
    roc_curve(s, y, sample_weight=w)
    assert s.tolist() == [3.0, 1.0, 2.0, 0.5] and w.tolist() == [1.0, 0.0, 2.0, 1.0]


def test_large_random_against_sklearn():
    rng = np.random.default_rng(11)
    n = 20000
    s = np.round(rng.normal(size=n), 2)
    y = rng.random(n) < 0.3 + 0.2 * (s > 0)
    c = pr_curve(s, y)
    assert c.average_precision() == pytest.approx(skm.average_precision_score(y, s), rel=1e-12)
    assert roc_auc(s, y) == pytest.approx(skm.roc_auc_score(y, s), rel=1e-13)
    # majority class positive: the other sort path
    assert roc_auc(s, ~y) == pytest.approx(skm.roc_auc_score(~y, s), rel=1e-13)
    c2 = pr_curve(s, ~y)
    assert c2.average_precision() == pytest.approx(skm.average_precision_score(~y, s), rel=1e-12)


# ---------------------------------------------------------------------------
# drop_intermediate: fewer points, the same summaries
# ---------------------------------------------------------------------------


def _kept(full, lean):
    """Indices into ``full`` of the points of ``lean`` (point 0, then decreasing thresholds)."""
    return np.concatenate(([0], 1 + np.searchsorted(-full[1:], -lean[1:])))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_drop_intermediate_keeps_every_summary(seed, weighted):
    s, y, w = _data(seed, n=60, levels=25, weights=weighted)
    full = pr_curve(s, y, sample_weight=w)
    lean = pr_curve(s, y, sample_weight=w, drop_intermediate=True)
    assert len(lean) <= len(full)
    # the kept points are points of the full curve, point 0 and the last one included
    idx = _kept(full.thresholds, lean.thresholds)
    np.testing.assert_array_equal(full.thresholds[idx], lean.thresholds)
    np.testing.assert_array_equal(full.tp[idx], lean.tp)
    assert idx[0] == 0 and idx[-1] == len(full) - 1
    # each dropped point has the tp of both its neighbours (inside a run of false positives)
    dropped = np.setdiff1d(np.arange(len(full)), idx)
    assert (full.tp[dropped] == full.tp[dropped - 1]).all()
    assert (full.tp[dropped] == full.tp[dropped + 1]).all()
    for summary in ("average_precision", "auc_davis_goadrich", "auc_trapezoid", "ap_11point"):
        assert getattr(lean, summary)() == pytest.approx(getattr(full, summary)(), rel=1e-13)
    assert lean.best_f() == full.best_f()
    assert lean.break_even_point() == pytest.approx(full.break_even_point(), rel=1e-13)
    if not weighted:
        for mode in ("average", "optimistic", "pessimistic"):
            assert lean.average_precision(ties=mode) == pytest.approx(
                full.average_precision(ties=mode), rel=1e-13
            )
    if (~y & ((np.ones(len(y)) if w is None else w) > 0)).any():
        r_full = roc_curve(s, y, sample_weight=w)
        r_lean = roc_curve(s, y, sample_weight=w, drop_intermediate=True)
        assert r_lean.auc == r_full.auc
        assert r_lean.eer()[0] == pytest.approx(r_full.eer()[0], rel=1e-12, abs=1e-15)
        idx = _kept(r_full.thresholds, r_lean.thresholds)
        np.testing.assert_array_equal(r_full.fp[idx], r_lean.fp)
        np.testing.assert_array_equal(r_full.tp[idx], r_lean.tp)
        # dropped points lie midway on the straight line between their neighbours
        gone = np.setdiff1d(np.arange(len(r_full)), idx)
        for arr in (r_full.fp, r_full.tp):
            assert (2 * arr[gone] == arr[gone - 1] + arr[gone + 1]).all()


def test_drop_intermediate_is_for_threshold_curves_and_bools():
    with pytest.raises(ValueError, match="^pr_curve: drop_intermediate=True needs a threshold"):
        pr_curve([1, 2, 3], [1, 0, 1], ties="stable", drop_intermediate=True)
    assert len(pr_curve([1, 2, 3], [1, 0, 1], ties="stable", drop_intermediate=False)) == 4
    with pytest.raises(ValueError, match="^roc_curve: drop_intermediate must be True or False"):
        roc_curve([1, 2, 3], [1, 0, 1], drop_intermediate=1)


def test_max_fpr_one_is_the_whole_area_and_weights_work():
    s, y, w = _data(3, n=50, levels=20, weights=True)
    assert roc_auc(s, y, max_fpr=1.0) == roc_auc(s, y)
    reps = w.astype(int)
    for m in (0.1, 0.35, 0.8):
        assert roc_auc(s, y, sample_weight=w, max_fpr=m) == pytest.approx(
            roc_auc(np.repeat(s, reps), np.repeat(y, reps), max_fpr=m), rel=1e-12
        )
