"""pranker.compat against independent oracles.

Oracles: plain per-sample loops that follow VLFeat's documented definitions
and the ITQ MATLAB loop line by line, hand-worked examples in exact fractions,
and scikit-learn where the definitions coincide (no ties, nothing at -inf,
no ignored labels).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from pranker.compat import recall_precision, vl_pr, vl_roc

SMALL = 1e-10


# ---------------------------------------------------------------------------
# oracles: plain loops
# ---------------------------------------------------------------------------


def loop_tpfp(labels, scores, num_pos=None, num_neg=None, include_inf=False):
    labels = [float(v) for v in np.ravel(labels)]
    scores = [float(v) for v in np.ravel(scores)]
    # Python's sort is stable: ties keep input order
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    if not include_inf:
        order = [i for i in order if scores[i] > -math.inf]
    p = sum(1 for v in labels if v > 0) if num_pos is None else num_pos
    n = sum(1 for v in labels if v < 0) if num_neg is None else num_neg
    tp, fp = [0.0], [0.0]
    for i in order:
        tp.append(tp[-1] + (labels[i] > 0))
        fp.append(fp[-1] + (labels[i] < 0))
    return tp, fp, float(p), float(n), order


def loop_vl_pr(
    labels, scores, interpolate=False, num_pos=None, num_neg=None, include_inf=False, prior=None
):
    tp, fp, p, n, order = loop_tpfp(labels, scores, num_pos, num_neg, include_inf)
    m = len(tp)
    rec = [tp[k] / max(p, SMALL) for k in range(m)]
    if prior is None:
        prec = [max(tp[k], SMALL) / max(tp[k] + fp[k], SMALL) for k in range(m)]
    else:
        prec = []
        for k in range(m):
            a = tp[k] * prior / max(p, SMALL)
            b = fp[k] * (1 - prior) / max(n, SMALL)
            prec.append(max(a, SMALL) / max(a + b, SMALL))
    if interpolate:
        prec = [max(prec[k:]) for k in range(m)]
    auc = 0.0
    for k in range(1, m):
        auc += 0.5 * (prec[k - 1] + prec[k]) * (rec[k] - rec[k - 1])
    s = 0.0
    for k in range(1, m):
        if rec[k] != rec[k - 1]:
            s += prec[k]
    ap = s / p if p > 0 else math.nan
    if interpolate:
        auc = ap
    ap11 = 0.0
    for j in range(11):
        rc = j / 10  # correctly rounded, as MATLAB's linspace(0, 1, 11)
        cand = [prec[k] for k in range(m) if rec[k] >= rc]
        ap11 += max([0.0] + cand) / 11
    return rec, prec, dict(auc=auc, ap=ap, ap_interp_11=ap11, auc_pa08=ap11), order


def loop_vl_roc(labels, scores, num_pos=None, num_neg=None, include_inf=False):
    tp, fp, p, n, order = loop_tpfp(labels, scores, num_pos, num_neg, include_inf)
    m = len(tp)
    tpr = [tp[k] / max(p, SMALL) for k in range(m)]
    tnr = [1 - fp[k] / max(n, SMALL) for k in range(m)]
    auc = 0.0
    for k in range(1, m):
        auc += tpr[k] * ((1 - tnr[k]) - (1 - tnr[k - 1]))
    s = max(k for k in range(m) if tnr[k] > tpr[k])
    if s == m - 1:
        eer = thr = math.nan
    else:
        eer = 1 - tpr[s] if tpr[s] == tpr[s + 1] else 1 - tnr[s]
        thr = float(np.ravel(scores)[order[s]])
    return tpr, tnr, dict(auc=auc, eer=eer, eer_threshold=thr), order


def random_case(rng, n, p_inf=0.2, p_zero=0.1, tie_levels=None):
    labels = rng.choice([-1.0, 1.0], size=n)
    labels[rng.random(n) < p_zero] = 0.0
    if tie_levels:
        scores = rng.integers(0, tie_levels, size=n).astype(float)
    else:
        scores = rng.normal(size=n)
    scores[rng.random(n) < p_inf] = -np.inf
    return labels, scores


def assert_info(info, ref, keys):
    for k in keys:
        got = info[k]
        assert getattr(info, k) == got
        if math.isnan(ref[k]):
            assert math.isnan(got), k
        else:
            assert got == pytest.approx(ref[k], rel=1e-12, abs=1e-15), k


# ---------------------------------------------------------------------------
# vl_pr
# ---------------------------------------------------------------------------


def test_vl_pr_hand_example_inf_and_ignored():
    # ranking: +1 (0.9), -1 (0.8), ignored (0.7), +1 (0.6); the +1 at -inf is not retrieved
    labels = [1, -1, 0, 1, 1]
    scores = [0.9, 0.8, 0.7, 0.6, -np.inf]
    rec, prec, info = vl_pr(labels, scores)
    third = Fraction(1, 3)
    exp_rec = [0, third, third, third, 2 * third]
    exp_prec = [1, 1, Fraction(1, 2), Fraction(1, 2), Fraction(2, 3)]
    np.testing.assert_allclose(rec, [float(v) for v in exp_rec], rtol=1e-15)
    np.testing.assert_allclose(prec, [float(v) for v in exp_prec], rtol=1e-15)
    # AP: precision 1 and 2/3 at the two recalled positives, 0 for the unretrieved one
    assert info.ap == pytest.approx(float((1 + Fraction(2, 3)) / 3), rel=1e-15)
    # trapezoid: only the steps where recall moves have area
    half = Fraction(1, 2)
    auc = half * (1 + 1) * third + half * (half + Fraction(2, 3)) * third
    assert info.auc == pytest.approx(float(auc), rel=1e-15)
    # 11-point: levels 0..0.3 reach max precision 1; 0.4..0.6 reach 2/3; above 2/3 nothing
    ap11 = (4 * 1 + 3 * Fraction(2, 3)) / 11
    assert info.ap_interp_11 == pytest.approx(float(ap11), rel=1e-15)
    assert info.auc_pa08 == info.ap_interp_11
    # include_inf ranks it last: recall reaches 1 with precision 3/4
    rec2, prec2, info2 = vl_pr(labels, scores, include_inf=True)
    assert rec2[-1] == 1.0 and prec2[-1] == 0.75
    assert info2.ap == pytest.approx((1 + 2 / 3 + 3 / 4) / 3, rel=1e-15)


def test_vl_pr_info_is_mapping_and_attributes():
    _, _, info = vl_pr([1, -1, 1], [3, 2, 1])
    assert set(info) == {"auc", "ap", "ap_interp_11", "auc_pa08"}
    assert dict(info) == info.to_dict()
    assert info["ap"] == info.ap
    with pytest.raises(KeyError):
        info["eer"]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("interpolate", [False, True])
def test_vl_pr_matches_loop(seed, interpolate):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    labels, scores = random_case(rng, n, tie_levels=4 if seed % 3 == 0 else None)
    include_inf = seed % 2 == 1
    rec, prec, info = vl_pr(labels, scores, interpolate=interpolate, include_inf=include_inf)
    r_rec, r_prec, r_info, _ = loop_vl_pr(
        labels, scores, interpolate=interpolate, include_inf=include_inf
    )
    np.testing.assert_allclose(rec, r_rec, rtol=1e-14, atol=0)
    np.testing.assert_allclose(prec, r_prec, rtol=1e-14, atol=0)
    assert_info(info, r_info, ["auc", "ap", "ap_interp_11", "auc_pa08"])


@pytest.mark.parametrize("seed", range(6))
def test_vl_pr_num_positives_negatives_prior_match_loop(seed):
    rng = np.random.default_rng(100 + seed)
    labels, scores = random_case(rng, 30)
    npos = int(np.sum(labels > 0)) + int(rng.integers(0, 5))
    nneg = int(np.sum(labels < 0)) + int(rng.integers(0, 5))
    prior = float(rng.uniform(0.05, 0.95))
    kw = dict(num_positives=npos, num_negatives=nneg)
    rec, prec, info = vl_pr(labels, scores, normalize_prior=prior, **kw)
    r_rec, r_prec, r_info, _ = loop_vl_pr(labels, scores, num_pos=npos, num_neg=nneg, prior=prior)
    np.testing.assert_allclose(rec, r_rec, rtol=1e-14)
    np.testing.assert_allclose(prec, r_prec, rtol=1e-14)
    assert_info(info, r_info, ["auc", "ap", "ap_interp_11"])


def test_vl_pr_matches_sklearn_without_ties_or_inf():
    rng = np.random.default_rng(7)
    y = rng.random(200) < 0.3
    s = rng.normal(size=200) + y
    labels = np.where(y, 1, -1)
    _, _, info = vl_pr(labels, s)
    assert info.ap == pytest.approx(average_precision_score(y, s), rel=1e-12)


def test_vl_pr_prior_equal_to_natural_fraction_is_plain_precision():
    # weights a/P and (1-a)/N are equal when a = P / (P + N): same precision
    rng = np.random.default_rng(3)
    labels, scores = random_case(rng, 50, p_inf=0.0, p_zero=0.0)
    P, N = np.sum(labels > 0), np.sum(labels < 0)
    _, prec, _ = vl_pr(labels, scores)
    _, prec_n, _ = vl_pr(labels, scores, normalize_prior=P / (P + N))
    np.testing.assert_allclose(prec_n, prec, rtol=1e-13)


def test_vl_pr_ties_keep_input_order_and_small_guard():
    # tied scores: the first in input order is ranked first
    _, prec, _ = vl_pr([1, -1], [0.5, 0.5])
    assert prec.tolist() == [1.0, 1.0, 0.5]
    _, prec, _ = vl_pr([-1, 1], [0.5, 0.5])
    # max(tp, 1e-10) / (tp + fp): not 0 before the first positive
    assert prec.tolist() == [1.0, 1e-10, 0.5]


def test_vl_pr_no_positive_follows_vlfeat():
    rec, prec, info = vl_pr([-1, -1, 0], [3, 2, 1])
    assert rec.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert prec[0] == 1.0 and prec[1] == 1e-10 and prec[2] == 0.5e-10
    assert math.isnan(info.ap)  # 0 / 0 in VLFeat
    assert info.auc == 0.0
    assert info.ap_interp_11 == pytest.approx(1 / 11)  # only level 0 is reached


def test_vl_pr_recall_level_three_tenths_counts():
    # 3 of 10 positives at the top, then negatives, then the rest: recall exactly 3/10
    labels = [1, 1, 1] + [-1] * 10 + [1] * 7
    scores = np.arange(len(labels), 0, -1).astype(float)
    rec, prec, info = vl_pr(labels, scores)
    assert rec[3] == 0.3  # the double nearest 3/10, like the level
    # levels 0..0.3 reach precision 1 (at recall 0.3); numpy.linspace's level
    # 0.30000000000000004 would not
    r_rec, r_prec, r_info, _ = loop_vl_pr(labels, scores)
    assert info.ap_interp_11 == pytest.approx(r_info["ap_interp_11"], rel=1e-15)
    later = max(p for r, p in zip(r_rec, r_prec, strict=True) if r >= 0.4)
    assert info.ap_interp_11 == pytest.approx((4 * 1.0 + 7 * later) / 11, rel=1e-14)


def test_vl_pr_virtual_positives_scale_recall_and_ap():
    labels = [1, -1, 1]
    scores = [3.0, 2.0, 1.0]
    rec, prec, info = vl_pr(labels, scores, num_positives=4)
    assert rec.tolist() == [0.0, 0.25, 0.25, 0.5]
    assert info.ap == pytest.approx((1 + 2 / 3) / 4, rel=1e-15)
    with pytest.raises(ValueError, match="num_positives=1 is smaller than the 2"):
        vl_pr(labels, scores, num_positives=1)
    with pytest.raises(ValueError, match="num_negatives"):
        vl_pr(labels, scores, num_negatives=0)
    with pytest.raises(TypeError, match="integer"):
        vl_pr(labels, scores, num_positives=2.5)


@pytest.mark.parametrize("include_inf", [False, True])
def test_vl_pr_stable_input_order(include_inf):
    rng = np.random.default_rng(11)
    labels, scores = random_case(rng, 25, tie_levels=5)
    rec_s, prec_s, info_s = vl_pr(labels, scores, stable=True, include_inf=include_inf)
    r_rec, r_prec, r_info, order = loop_vl_pr(labels, scores, include_inf=include_inf)
    assert rec_s.shape == (25,)
    for i in range(25):
        if i in order:
            k = order.index(i) + 1
            assert rec_s[i] == pytest.approx(r_rec[k], rel=1e-14)
            assert prec_s[i] == pytest.approx(r_prec[k], rel=1e-14)
        else:
            assert not include_inf and scores[i] == -np.inf
            assert math.isnan(rec_s[i]) and math.isnan(prec_s[i])
    assert info_s.ap == pytest.approx(r_info["ap"], rel=1e-14)


def test_vl_pr_many_ties_keep_input_order():
    # larger than the loop tests, few distinct scores (including +-inf and -0.0/0.0)
    rng = np.random.default_rng(12)
    n = 3000
    scores = rng.choice([np.inf, 1.0, 0.0, -0.0, -2.0, -np.inf], size=n)
    labels = rng.choice([-1.0, 0.0, 1.0], size=n)
    rec, prec, _ = vl_pr(labels, scores, include_inf=True)
    order = np.argsort(-scores, kind="stable")  # merge sort: stable by construction
    tp = np.concatenate(([0.0], np.cumsum(labels[order] > 0)))
    fp = np.concatenate(([0.0], np.cumsum(labels[order] < 0)))
    np.testing.assert_array_equal(rec, tp / np.sum(labels > 0))
    np.testing.assert_array_equal(prec, np.maximum(tp, SMALL) / np.maximum(tp + fp, SMALL))


def test_vl_pr_all_not_retrieved():
    rec, prec, info = vl_pr([1, -1], [-np.inf, -np.inf])
    assert rec.tolist() == [0.0] and prec.tolist() == [1.0]
    assert info.ap == 0.0
    rec_s, _, _ = vl_pr([1, -1], [-np.inf, -np.inf], stable=True)
    assert np.isnan(rec_s).all()


def test_vl_pr_bad_input():
    with pytest.raises(TypeError, match="booleans"):
        vl_pr(np.array([True, False]), [1.0, 0.0])
    with pytest.raises(ValueError, match="NaN"):
        vl_pr([1, -1], [np.nan, 0.0])
    with pytest.raises(ValueError, match="NaN"):
        vl_pr([1, np.nan], [1.0, 0.0])
    with pytest.raises(ValueError, match="same number of elements"):
        vl_pr([1, -1, 1], [1.0, 0.0])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        vl_pr([1, -1], [1.0, 0.0], normalize_prior=1.5)
    with pytest.raises(TypeError, match="interpolate"):
        vl_pr([1, -1], [1.0, 0.0], interpolate="yes")
    with pytest.raises(ValueError, match="empty"):
        vl_pr([], [])


# ---------------------------------------------------------------------------
# vl_roc
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_vl_roc_matches_loop(seed):
    rng = np.random.default_rng(200 + seed)
    n = int(rng.integers(1, 40))
    labels, scores = random_case(rng, n, tie_levels=3 if seed % 3 == 0 else None)
    kw = {}
    if seed % 4 == 1:
        kw = dict(
            num_positives=int(np.sum(labels > 0)) + 2,
            num_negatives=int(np.sum(labels < 0)) + 1,
        )
    include_inf = seed % 2 == 0
    tpr, tnr, info = vl_roc(labels, scores, include_inf=include_inf, **kw)
    r_tpr, r_tnr, r_info, _ = loop_vl_roc(
        labels, scores, kw.get("num_positives"), kw.get("num_negatives"), include_inf
    )
    np.testing.assert_allclose(tpr, r_tpr, rtol=1e-14)
    np.testing.assert_allclose(tnr, r_tnr, rtol=1e-14)
    assert_info(info, r_info, ["auc", "eer", "eer_threshold"])


def test_vl_roc_matches_sklearn_without_ties_or_inf():
    rng = np.random.default_rng(5)
    y = rng.random(300) < 0.4
    s = rng.normal(size=300) + y
    _, _, info = vl_roc(np.where(y, 1, -1), s)
    assert info.auc == pytest.approx(roc_auc_score(y, s), rel=1e-12)


def test_vl_roc_auc_is_stable_rank_mann_whitney():
    # ties broken by input order, pairs counted 0 or 1 (never 1/2)
    rng = np.random.default_rng(8)
    labels, scores = random_case(rng, 30, p_inf=0.0, p_zero=0.2, tie_levels=3)
    order = sorted(range(30), key=lambda i: -scores[i])
    rank = {i: r for r, i in enumerate(order)}
    pos = [i for i in range(30) if labels[i] > 0]
    neg = [i for i in range(30) if labels[i] < 0]
    wins = sum(1 for i in pos for j in neg if rank[i] < rank[j])
    _, _, info = vl_roc(labels, scores)
    assert info.auc == pytest.approx(wins / (len(pos) * len(neg)), rel=1e-13)


def test_vl_roc_hand_example_eer_and_nan():
    tpr, tnr, info = vl_roc([1, 1, -1, 1, -1], [5, 4, 3, 2, 1])
    assert info.eer == pytest.approx(1 / 3) and info.eer_threshold == 3.0
    # the positive is never retrieved and half the negatives are: the curve
    # ends at tpr 0 < tnr 1/2 without crossing -> NaN
    tpr, tnr, info = vl_roc([1, -1, -1], [-np.inf, 1.0, -np.inf])
    assert tpr.tolist() == [0.0, 0.0] and tnr.tolist() == [1.0, 0.5]
    assert math.isnan(info.eer) and math.isnan(info.eer_threshold)
    # only a negative retrieved, all negatives gone: crossing at tnr = 0, eer = 1
    _, _, info = vl_roc([1, 1, -1], [-np.inf, -np.inf, 1.0])
    assert info.eer == 1.0 and info.eer_threshold == 1.0


def test_vl_roc_stable_and_errors():
    tpr, tnr, _ = vl_roc([1, -1, 1], [1.0, -np.inf, 2.0], stable=True)
    assert tpr.tolist()[0] == 1.0 and math.isnan(tpr[1]) and tpr[2] == 0.5
    assert tnr[0] == 1.0 and math.isnan(tnr[1])
    with pytest.raises(ValueError, match="num_positives"):
        vl_roc([1, 1, -1], [1, 2, 3], num_positives=1)
    with pytest.raises(TypeError, match="booleans"):
        vl_roc([True, False], [1, 2])


# ---------------------------------------------------------------------------
# recall_precision (ITQ MATLAB function)
# ---------------------------------------------------------------------------


def matlab_recall_precision(Wtrue, Dhat):
    """Line-by-line transliteration of the seed's MATLAB loop."""
    Wtrue = np.atleast_2d(Wtrue)
    Dhat = np.atleast_2d(Dhat)
    max_hamm = Dhat.max()
    Ntest, Ntrain = Wtrue.shape
    total_good_pairs = Wtrue.sum(dtype=float)
    L = int(np.floor(max_hamm)) if max_hamm >= 1 else 0
    precision = np.zeros(L)
    recall = np.zeros(L)
    rate = np.zeros(L)
    for n in range(1, L + 1):
        j = Dhat <= ((n - 1) + 0.00001)
        retrieved_good_pairs = Wtrue[j].sum(dtype=float)
        retrieved_pairs = j.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            precision[n - 1] = np.float64(retrieved_good_pairs) / np.float64(retrieved_pairs)
            recall[n - 1] = np.float64(retrieved_good_pairs) / np.float64(total_good_pairs)
        rate[n - 1] = retrieved_pairs / (Ntest * Ntrain)
    return recall, precision, rate


def assert_rp_equal(got, ref):
    for g, r in zip(got, ref, strict=True):
        assert g.shape == r.shape
        np.testing.assert_allclose(g, r, rtol=1e-14, atol=0, equal_nan=True)


@pytest.mark.parametrize("seed", range(8))
def test_recall_precision_matches_matlab_loop_integer(seed):
    rng = np.random.default_rng(300 + seed)
    q, m, bits = int(rng.integers(1, 8)), int(rng.integers(1, 60)), int(rng.integers(1, 12))
    D = rng.binomial(bits, 0.3, size=(q, m))
    W = rng.random((q, m)) < 0.25
    assert_rp_equal(recall_precision(W, D), matlab_recall_precision(W, D))
    assert_rp_equal(recall_precision(W, D.astype(float)), matlab_recall_precision(W, D))


def test_recall_precision_float_tolerance_and_weights():
    # values straddling the 1e-5 tolerance of every radius
    D = np.array([[0.0, 0.000009, 0.000011, 1.0 + 9e-6, 1.0 + 1.1e-5, 2.5, 3.7]])
    W = np.array([[0.5, 1, 0, 1, 1, 2, 1]], dtype=float)  # numbers are summed (weights)
    got = recall_precision(W, D)
    assert got[0].shape == (3,)
    assert_rp_equal(got, matlab_recall_precision(W, D))
    # radius 0 keeps 0 and 9e-6 but not 1.1e-5
    assert got[2][0] == pytest.approx(2 / 7)


def test_recall_precision_edge_semantics():
    # max distance 3: radii 0, 1, 2 only -- radius 3 is not reported, recall ends below 1
    W = np.array([[True, False, True]])
    D = np.array([[1, 2, 3]])
    rec, prec, rate = recall_precision(W, D)
    assert math.isnan(prec[0])  # nothing within radius 0: MATLAB 0/0
    assert rec.tolist() == [0.0, 0.5, 0.5] and rate.tolist() == [0.0, 1 / 3, 2 / 3]
    # every distance below 1: zeros(0, 1) in MATLAB -> empty
    out = recall_precision(W, np.array([[0, 0.5, 0.9]]))
    assert all(a.shape == (0,) for a in out)
    # no true neighbour: recall 0/0
    rec, prec, _ = recall_precision(np.zeros((1, 3), bool), D)
    assert np.isnan(rec).all() and prec[1] == 0.0
    # 1-D input is one query
    assert_rp_equal(recall_precision(W[0], D[0]), matlab_recall_precision(W, D))


def test_recall_precision_bad_input():
    W = np.ones((2, 3), bool)
    with pytest.raises(ValueError, match="same"):
        recall_precision(W, np.ones((3, 2)))
    with pytest.raises(ValueError, match="NaN"):
        recall_precision(W, np.array([[1, np.nan, 2], [1, 2, 3]]))
    with pytest.raises(ValueError, match=r"\+inf"):
        recall_precision(W, np.array([[1, np.inf, 2], [1, 2, 3]]))
    with pytest.raises(ValueError, match="negative"):
        recall_precision(-np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="2-D"):
        recall_precision(np.ones((2, 2, 2)), np.ones((2, 2, 2)))
    with pytest.raises(TypeError, match="booleans"):
        recall_precision(W, W)
