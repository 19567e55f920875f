"""pranker.measures.retrieval against independent oracles.

Oracles: per-radius loops with explicit comparisons ``d <= r`` (the
definition), Hamming distances from ``np.unpackbits`` bit sums,
scikit-learn's ``average_precision_score`` (threshold ties) and brute-force
enumeration of the orders inside tied groups (average / optimistic /
pessimistic ties).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

import pranker
from pranker import (
    hamming_distances,
    hamming_radius_curves,
    pack_codes,
    radius_curves,
)
from pranker.compat import recall_precision

# ---------------------------------------------------------------------------
# oracles
# ---------------------------------------------------------------------------


def loop_counts(rel, dist, radii):
    rel = np.atleast_2d(rel)
    dist = np.atleast_2d(dist)
    q = rel.shape[0]
    ret = np.zeros((q, len(radii)), np.int64)
    good = np.zeros((q, len(radii)), np.int64)
    for i in range(q):
        for k, r in enumerate(radii):
            inside = dist[i] <= r
            ret[i, k] = np.count_nonzero(inside)
            good[i, k] = np.count_nonzero(inside & rel[i])
    return ret, good


def unpack_hamming(qbits, dbits):
    """Hamming distance as the number of differing bits, one pair at a time."""
    out = np.zeros((qbits.shape[0], dbits.shape[0]), np.int64)
    for i in range(qbits.shape[0]):
        for j in range(dbits.shape[0]):
            out[i, j] = int(np.sum(qbits[i] != dbits[j]))
    return out


def brute_ap(dist, rel, mode):
    """AP of ranking by increasing distance, ties resolved by enumerating orders."""
    dist = np.asarray(dist)
    rel = np.asarray(rel, bool)
    P = rel.sum()
    groups = [np.flatnonzero(dist == v) for v in np.unique(dist)]

    def ap_of(order):
        hits, s = 0, 0.0
        for rank, j in enumerate(order, start=1):
            if rel[j]:
                hits += 1
                s += hits / rank
        return s / P

    if mode == "optimistic":
        return ap_of([j for g in groups for j in sorted(g, key=lambda j: not rel[j])])
    if mode == "pessimistic":
        return ap_of([j for g in groups for j in sorted(g, key=lambda j: rel[j])])
    # average: all orders within each group, equally likely
    vals = [
        ap_of([j for perm in combo for j in perm])
        for combo in itertools.product(*[list(itertools.permutations(g)) for g in groups])
    ]
    return float(np.mean(vals))


# ---------------------------------------------------------------------------
# radius_curves from distance matrices
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_integer_distances_match_loop(seed):
    rng = np.random.default_rng(seed)
    q, m = int(rng.integers(1, 6)), int(rng.integers(1, 40))
    dist = rng.integers(0, 9, size=(q, m))
    rel = rng.random((q, m)) < 0.3
    rel[0, 0] = True
    rc = radius_curves(rel, dist)
    radii = list(range(int(dist.max()) + 1))
    ret, good = loop_counts(rel, dist, radii)
    assert rc.radii.tolist() == radii
    np.testing.assert_array_equal(rc.retrieved, ret)
    np.testing.assert_array_equal(rc.relevant_retrieved, good)
    # per query curves by their definitions
    nrel = rel.sum(axis=1)
    for i in range(q):
        for k in range(len(radii)):
            p = good[i, k] / ret[i, k] if ret[i, k] else 0.0
            assert rc.precision[i, k] == pytest.approx(p, rel=1e-15)
            if nrel[i]:
                assert rc.recall[i, k] == pytest.approx(good[i, k] / nrel[i], rel=1e-15)
            else:
                assert math.isnan(rc.recall[i, k])
            assert rc.rate[i, k] == ret[i, k] / m
    # means and pooled curves
    np.testing.assert_allclose(rc.mean_precision, rc.precision.mean(axis=0), rtol=1e-15)
    np.testing.assert_allclose(rc.mean_recall, rc.recall[nrel > 0].mean(axis=0), rtol=1e-15)
    tot = ret.sum(axis=0)
    np.testing.assert_allclose(
        rc.pooled_precision, np.where(tot > 0, good.sum(0) / np.maximum(tot, 1), 0.0), rtol=1e-15
    )
    np.testing.assert_allclose(rc.pooled_recall, good.sum(0) / nrel.sum(), rtol=1e-15)
    np.testing.assert_allclose(rc.pooled_rate, tot / (q * m), rtol=1e-15)
    # the same counts when the integers come as floats
    rc_f = radius_curves(rel, dist.astype(float))
    np.testing.assert_array_equal(rc_f.retrieved, ret)


@pytest.mark.parametrize("seed", range(4))
def test_float_distances_with_radii_match_loop(seed):
    rng = np.random.default_rng(10 + seed)
    dist = rng.normal(size=(4, 30))
    dist[0, :3] = [0.5, -0.25, np.inf]  # exact hits on radii, and never retrieved
    rel = rng.random((4, 30)) < 0.4
    radii = np.array([-1.0, -0.25, 0.0, 0.5, 1.5])
    rc = radius_curves(rel, dist, radii)
    ret, good = loop_counts(rel, dist, radii)
    np.testing.assert_array_equal(rc.retrieved, ret)
    np.testing.assert_array_equal(rc.relevant_retrieved, good)


def test_pooled_curve_equals_seed_function_where_defined():
    rng = np.random.default_rng(4)
    dist = rng.integers(0, 7, size=(5, 50))
    rel = rng.random((5, 50)) < 0.2
    rc = radius_curves(rel, dist)
    rec, prec, rate = recall_precision(rel, dist)
    L = rec.size  # the seed stops one radius short of max(dist)
    np.testing.assert_allclose(rc.pooled_recall[:L], rec, rtol=1e-14)
    np.testing.assert_allclose(rc.pooled_rate[:L], rate, rtol=1e-14)
    ok = ~np.isnan(prec)
    np.testing.assert_allclose(rc.pooled_precision[:L][ok], prec[ok], rtol=1e-14)


def test_empty_precision_conventions():
    rel = np.array([[True, False, False], [True, True, False]])
    dist = np.array([[2, 2, 2], [0, 1, 2]])
    for value in (0.0, 1.0):
        rc = radius_curves(rel, dist, empty_precision=value)
        assert rc.precision[0, 0] == value and rc.precision[0, 1] == value
        assert rc.mean_precision[0] == pytest.approx((value + 1.0) / 2)
    rc = radius_curves(rel, dist, empty_precision=np.nan)
    assert math.isnan(rc.precision[0, 0])
    assert rc.mean_precision[0] == 1.0  # only query 1 is defined at radius 0
    # pooled: nothing retrieved by anyone at radius -1
    rc = radius_curves(rel, dist, radii=[-1, 0], empty_precision=np.nan)
    assert math.isnan(rc.pooled_precision[0]) and math.isnan(rc.mean_precision[0])


def test_query_without_relevant_items_is_left_out_of_recall_and_map():
    rel = np.array([[False, False], [True, False]])
    dist = np.array([[0, 1], [1, 0]])
    rc = radius_curves(rel, dist)
    assert np.isnan(rc.recall[0]).all()
    assert rc.mean_recall.tolist() == [0.0, 1.0]
    ap = rc.average_precision()
    assert math.isnan(ap[0]) and ap[1] == pytest.approx(0.5)  # its one relevant item at rank 2
    assert rc.mean_average_precision() == pytest.approx(0.5)


# ---------------------------------------------------------------------------
# per-query AP
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_average_precision_threshold_matches_sklearn(seed):
    rng = np.random.default_rng(40 + seed)
    dist = rng.integers(0, 6, size=(4, 40))
    rel = rng.random((4, 40)) < 0.3
    rel[:, 0] = True
    rc = radius_curves(rel, dist)
    ap = rc.average_precision("threshold")
    for i in range(4):
        assert ap[i] == pytest.approx(average_precision_score(rel[i], -dist[i]), rel=1e-12)


@pytest.mark.parametrize("mode", ["average", "optimistic", "pessimistic"])
@pytest.mark.parametrize("seed", range(4))
def test_average_precision_tie_modes_match_enumeration(mode, seed):
    rng = np.random.default_rng(60 + seed)
    dist = rng.integers(0, 3, size=(2, 7))
    rel = rng.random((2, 7)) < 0.5
    rel[:, 1] = True
    ap = radius_curves(rel, dist).average_precision(mode)
    for i in range(2):
        assert ap[i] == pytest.approx(brute_ap(dist[i], rel[i], mode), rel=1e-12)


def test_average_precision_beyond_last_radius_is_one_tied_group():
    rel = np.array([[True, False, True, False]])
    dist = np.array([[0, 5, 7, 9]])
    rc = radius_curves(rel, dist, radii=[0, 1])
    # ranking: item 0, then {1, 2, 3} tied -> same as distances (0, 9, 9, 9)
    assert rc.average_precision()[0] == pytest.approx(brute_ap([0, 9, 9, 9], rel[0], "average"))


# ---------------------------------------------------------------------------
# binary codes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("nbits", [1, 13, 64, 100, 130])
def test_pack_codes_and_hamming_distances(nbits):
    rng = np.random.default_rng(nbits)
    qb = rng.random((5, nbits)) < 0.5
    db = rng.random((17, nbits)) < 0.5
    ref = unpack_hamming(qb, db)
    for dtype in (np.uint8, np.uint64):
        q = pack_codes(qb, dtype=dtype)
        d = pack_codes(db, dtype=dtype)
        assert q.dtype == dtype
        # the packing is np.unpackbits-invertible (little-endian bit order)
        back = np.unpackbits(q.view(np.uint8), axis=1, bitorder="little")[:, :nbits]
        np.testing.assert_array_equal(back.astype(bool), qb)
        np.testing.assert_array_equal(hamming_distances(q, d), ref)
    # wider word types are accepted too
    q8, d8 = pack_codes(qb, dtype=np.uint8), pack_codes(db, dtype=np.uint8)
    pad = (-q8.shape[1]) % 4
    q32 = np.pad(q8, ((0, 0), (0, pad))).view(np.uint32)
    d32 = np.pad(d8, ((0, 0), (0, pad))).view(np.uint32)
    np.testing.assert_array_equal(hamming_distances(q32, d32), ref)


def test_hamming_distance_popcount_of_full_words():
    # all-ones vs all-zeros words: every bit position is counted exactly once
    q = np.array([[np.iinfo(np.uint64).max, 0]], dtype=np.uint64)
    d = np.array([[0, 0], [0, np.iinfo(np.uint64).max], [0, 1 << 63]], dtype=np.uint64)
    assert hamming_distances(q, d).tolist() == [[64, 128, 65]]


@pytest.mark.parametrize("seed", range(3))
def test_hamming_radius_curves_match_distance_loop(seed):
    rng = np.random.default_rng(80 + seed)
    nbits = [16, 64, 70][seed]
    qb = rng.random((6, nbits)) < 0.5
    db = rng.random((50, nbits)) < 0.5
    db[:10] = qb[0]  # exact matches: radius 0 is populated
    rel = rng.random((6, 50)) < 0.3
    rel[:, 0] = True
    dist = unpack_hamming(qb, db)
    radii = list(range(nbits + 1))
    ret, good = loop_counts(rel, dist, radii)
    rc = hamming_radius_curves(pack_codes(qb), pack_codes(db), rel, n_bits=nbits)
    np.testing.assert_array_equal(rc.retrieved, ret)
    # without n_bits the radii run over every bit of the packed words (padding never differs)
    rc_w = hamming_radius_curves(pack_codes(qb), pack_codes(db), rel)
    assert rc_w.radii.size == 64 * ((nbits + 63) // 64) + 1
    np.testing.assert_array_equal(rc_w.retrieved[:, : nbits + 1], ret)
    assert (rc_w.retrieved[:, nbits:] == 50).all()
    np.testing.assert_array_equal(rc.relevant_retrieved, good)
    assert rc.retrieved[:, -1].tolist() == [50] * 6  # radius = code length retrieves all
    # truncated radii: same prefix, the rest is the unretrieved tail
    rc2 = hamming_radius_curves(
        pack_codes(qb, np.uint8), pack_codes(db, np.uint8), rel, max_radius=5
    )
    np.testing.assert_array_equal(rc2.retrieved, ret[:, :6])
    ap_full = rc.average_precision("threshold")
    for i in range(6):
        assert ap_full[i] == pytest.approx(average_precision_score(rel[i], -dist[i]), rel=1e-12)


@pytest.mark.parametrize("multilabel", [False, True])
def test_hamming_radius_curves_from_labels_equal_matrix_path(multilabel):
    rng = np.random.default_rng(90 + multilabel)
    qb = rng.random((7, 40)) < 0.5
    db = rng.random((60, 40)) < 0.5
    if multilabel:
        ql = rng.random((7, 70)) < 0.03  # 70 classes: two label words
        dl = rng.random((60, 70)) < 0.03
        rel = np.array([[bool(np.any(a & b)) for b in dl] for a in ql])
    else:
        ql = rng.integers(0, 4, size=7)
        dl = rng.integers(0, 4, size=60)
        rel = np.array([[a == b for b in dl] for a in ql])
    dist = unpack_hamming(qb, db)
    ret, good = loop_counts(rel, dist, list(range(41)))
    rc = hamming_radius_curves(
        pack_codes(qb), pack_codes(db), query_labels=ql, database_labels=dl, n_bits=40
    )
    np.testing.assert_array_equal(rc.retrieved, ret)
    np.testing.assert_array_equal(rc.relevant_retrieved, good)
    np.testing.assert_array_equal(rc.n_relevant, rel.sum(axis=1))


def test_top_level_exports():
    for name in (
        "radius_curves",
        "hamming_radius_curves",
        "hamming_distances",
        "pack_codes",
        "RadiusCurves",
    ):
        assert name in pranker.__all__ and hasattr(pranker, name)
    # submodules are reachable but not in __all__ (a star import must not shadow dask)
    assert "compat" not in pranker.__all__ and "dask" not in pranker.__all__
    # and pranker.compat.vl_pr is VLFeat's PR curve, worked by hand: positives at
    # ranks 1 and 3 of 4; VLFeat starts the curve at (recall 0, precision 1)
    recall, precision, info = pranker.compat.vl_pr([1, -1, 1, -1], [0.9, 0.8, 0.7, 0.1])
    np.testing.assert_allclose(recall, [0, 1 / 2, 1 / 2, 1, 1])
    np.testing.assert_allclose(precision, [1, 1, 1 / 2, 2 / 3, 2 / 4])
    assert info.ap == pytest.approx((1 / 1 + 2 / 3) / 2)
    # trapezoids between the points: 1/2 + 0 + (1/2 + 2/3) / 2 * 1/2 + 0
    assert info.auc == pytest.approx(0.5 + (0.5 + 2 / 3) / 4)


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


def test_bad_input_distances():
    rel = np.array([[True, False, True]])
    with pytest.raises(ValueError, match="shape"):
        radius_curves(rel, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        radius_curves(rel, np.array([[0, np.nan, 1]]))
    with pytest.raises(ValueError, match="radii="):
        radius_curves(rel, np.array([[0, 0.5, 1]]))
    with pytest.raises(ValueError, match="radii="):
        radius_curves(rel, np.array([[0, -1, 1]]))
    with pytest.raises(ValueError, match="increasing"):
        radius_curves(rel, np.array([[0, 1, 2]]), radii=[1, 1])
    with pytest.raises(ValueError, match="no relevant"):
        radius_curves(np.zeros((1, 3), bool), np.array([[0, 1, 2]]))
    with pytest.raises(ValueError, match="0/1"):
        radius_curves(np.array([[2, 0, 1]]), np.array([[0, 1, 2]]))
    with pytest.raises(ValueError, match="empty_precision"):
        radius_curves(rel, np.array([[0, 1, 2]]), empty_precision=2)
    with pytest.raises(TypeError, match="booleans"):
        radius_curves(rel, rel)
    rc = radius_curves(rel, np.array([[0, 1, 2]]))
    with pytest.raises(ValueError, match="stable"):
        rc.average_precision("stable")
    with pytest.raises(ValueError, match="ties"):
        rc.average_precision("bogus")


def test_bad_input_codes():
    q = pack_codes(np.ones((2, 8), bool), np.uint8)
    d = pack_codes(np.ones((3, 16), bool), np.uint8)
    rel = np.ones((2, 3), bool)
    with pytest.raises(ValueError, match="same length"):
        hamming_radius_curves(q, d, rel)
    with pytest.raises(TypeError, match="same dtype"):
        hamming_distances(q, pack_codes(np.ones((3, 8), bool), np.uint64))
    with pytest.raises(TypeError, match="unsigned"):
        hamming_distances(q.astype(np.int16), q.astype(np.int16))
    with pytest.raises(ValueError, match="shape"):
        hamming_radius_curves(q, q, rel)
    with pytest.raises(ValueError, match="max_radius"):
        hamming_radius_curves(q, q, np.ones((2, 2), bool), max_radius=9)
    with pytest.raises(ValueError, match="n_bits"):
        hamming_radius_curves(q, q, np.ones((2, 2), bool), n_bits=9)
    with pytest.raises(ValueError, match="max_radius"):
        hamming_radius_curves(q, q, np.ones((2, 2), bool), n_bits=4, max_radius=5)
    with pytest.raises(ValueError, match="either relevance"):
        hamming_radius_curves(
            q, q, np.ones((2, 2), bool), query_labels=[0, 1], database_labels=[0, 1]
        )
    with pytest.raises(ValueError, match="either relevance"):
        hamming_radius_curves(q, q)
    with pytest.raises(ValueError, match="together"):
        hamming_radius_curves(q, q, query_labels=[0, 1])
    with pytest.raises(ValueError, match="one label row per code"):
        hamming_radius_curves(q, q, query_labels=[0, 1, 2], database_labels=[0, 1])
    with pytest.raises(ValueError, match="integer class labels"):
        hamming_radius_curves(q, q, query_labels=[0.5, 1], database_labels=[0, 1])
    with pytest.raises(ValueError, match="no query has a relevant"):
        hamming_radius_curves(q, q, query_labels=[0, 0], database_labels=[1, 1])
    with pytest.raises(ValueError, match="sign codes"):
        pack_codes([[1, -1, 1]])
    with pytest.raises(ValueError, match="uint8 or numpy.uint64"):
        pack_codes([[1, 0]], dtype=np.uint32)
