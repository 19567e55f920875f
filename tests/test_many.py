"""Tests of pranker_many: every ranking against pranker() and against plain loops."""

import json
import math
from itertools import permutations

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from pranker import pranker, pranker_many

TIES = ["average", "stable", "threshold", "optimistic", "pessimistic"]


# ---------------------------------------------------------------- plain oracles
def loop_ap_order(order_scores, labels):
    """AP of the ranking given by an explicit order (list of indices, best first)."""
    hits = 0
    total = 0.0
    for pos, i in enumerate(order_scores, start=1):
        if labels[i]:
            hits += 1
            total += hits / pos
    return total / hits


def loop_ap(scores, labels, ties):
    n = len(scores)
    idx = list(range(n))
    if ties == "stable":
        return loop_ap_order(sorted(idx, key=lambda i: -scores[i]), labels)
    if ties == "optimistic":
        return loop_ap_order(sorted(idx, key=lambda i: (-scores[i], not labels[i])), labels)
    if ties == "pessimistic":
        return loop_ap_order(sorted(idx, key=lambda i: (-scores[i], bool(labels[i]))), labels)
    if ties == "threshold":
        P = sum(1 for v in labels if v)
        total, prev_recall = 0.0, 0.0
        for t in sorted(set(scores), reverse=True):
            sel = [i for i in idx if scores[i] >= t]
            tp = sum(1 for i in sel if labels[i])
            recall = tp / P
            total += (recall - prev_recall) * tp / len(sel)
            prev_recall = recall
        return total
    # average: mean over every order of the items (ties broken by that order)
    vals = []
    for perm in permutations(idx):
        rank_in_perm = {i: r for r, i in enumerate(perm)}
        vals.append(loop_ap_order(sorted(idx, key=lambda i: (-scores[i], rank_in_perm[i])), labels))
    return sum(vals) / len(vals)


def loop_bh(p):
    """Benjamini-Hochberg adjusted p-values, written out."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adj = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p[i] * m / rank)
        adj[i] = running
    return adj


def random_batch(rng, R, n, levels=None, frac=0.3):
    if levels:
        s = rng.integers(0, levels, size=(R, n)).astype(float)
    else:
        s = rng.standard_normal((R, n))
    y = rng.random((R, n)) < frac
    y[:, 0] |= ~y.any(axis=1)  # at least one positive per row
    s = s + y * rng.random((R, 1))  # some signal, different per row
    if levels:
        s = np.round(s)  # keep ties
    return s, y


FIELDS = ["auprc", "pvalue", "log10_pvalue", "null_mean", "null_var"]


def assert_row_matches_pranker(res, i, s, y, ties, method="beta"):
    """Entry points agree: row i of pranker_many is pranker() on that ranking, to 1e-12 relative
    (two code paths: the last bits may differ on other CPUs).

    (The AP itself is checked against plain loops; the default p-values against
    enumeration and simulation in test_tilt.py.)
    """
    ref = pranker(s, y, ties=ties, conf_level=res.conf_level, method=method)
    d = res.to_dict()
    for f in FIELDS:
        got, want = d[f][i], getattr(ref, f)
        if math.isnan(want):
            assert math.isnan(got), (f, i)
        else:
            assert got == pytest.approx(want, rel=1e-12, abs=1e-300), (f, i, got, want)
    assert d["n"][i] == ref.n and d["n_pos"][i] == ref.n_pos
    assert d["method"][i] == ref.method


# ------------------------------------------------------------------------ tests
@pytest.mark.parametrize("ties", TIES)
def test_small_rows_vs_pranker_and_loops(ties):
    rng = np.random.default_rng(11)
    s, y = random_batch(rng, 12, 6, levels=3, frac=0.4)
    y[3] = True  # P = N row
    res = pranker_many(s, y, ties=ties, method="beta")
    for i in range(s.shape[0]):
        assert_row_matches_pranker(res, i, s[i], y[i], ties)
        assert res.auprc[i] == pytest.approx(loop_ap(list(s[i]), list(y[i]), ties), rel=1e-12)
    assert res.auprc[3] == 1.0 and res.pvalue[3] == 1.0 and res.null_var[3] == 0.0


@pytest.mark.parametrize("ties", TIES)
def test_larger_rows_vs_pranker(ties):
    rng = np.random.default_rng(5)
    s, y = random_batch(rng, 40, 300, levels=25, frac=0.05)
    s[7, :10] = np.inf
    s[8, -5:] = -np.inf
    res = pranker_many(s, y, ties=ties, method="beta")
    for i in range(s.shape[0]):
        assert_row_matches_pranker(res, i, s[i], y[i], ties)


def test_threshold_matches_sklearn_and_continuous_loop():
    rng = np.random.default_rng(8)
    s, y = random_batch(rng, 30, 200, levels=40, frac=0.1)
    res = pranker_many(s, y, ties="threshold")
    want = [average_precision_score(y[i], s[i]) for i in range(30)]
    np.testing.assert_allclose(res.auprc, want, rtol=1e-12)
    c, yc = random_batch(rng, 10, 500, frac=0.05)  # no ties: every mode is the plain AP
    res = pranker_many(c, yc)
    want = [loop_ap(list(c[i]), list(yc[i]), "stable") for i in range(10)]
    np.testing.assert_allclose(res.auprc, want, rtol=1e-12)


def test_bh_matches_loop():
    rng = np.random.default_rng(3)
    s, y = random_batch(rng, 200, 80, frac=0.1)
    res = pranker_many(s, y, method="beta")
    np.testing.assert_allclose(res.pvalue_bh, loop_bh(list(res.pvalue)), rtol=1e-12)
    assert np.all(res.pvalue_bh >= res.pvalue)


def test_bh_in_log_space_keeps_underflowing_pvalues():
    from pranker.significance.many import bh_log10

    rng = np.random.default_rng(4)
    p = rng.random(300) ** 4
    np.testing.assert_allclose(10 ** bh_log10(np.log10(p)), loop_bh(list(p)), rtol=1e-10)
    # p-values below float64: BH is a min over suffixes of m p_(j) / j, here on logs
    lp = np.array([-500.0, -400.0, -2.0, -450.0])
    want = [
        min(lp[i] + np.log10(4) - np.log10(r) for i, r in [(0, 1), (3, 2), (1, 3), (2, 4)][k:])
        for k in range(4)
    ]
    got = bh_log10(lp)
    np.testing.assert_allclose(got[[0, 3, 1, 2]], np.minimum(want, 0.0), rtol=1e-12)


def test_mask_and_ragged_list_and_axis():
    rng = np.random.default_rng(21)
    rows_s = [rng.standard_normal(n) for n in (5, 50, 17, 120)]
    rows_y = [rng.random(n) < 0.2 for n in (5, 50, 17, 120)]
    for yy in rows_y:
        yy[-1] = True
    ragged = pranker_many(rows_s, rows_y, method="beta")
    width = 120
    s = np.full((4, width), np.nan)  # padding may hold anything, NaN included
    y = np.ones((4, width), dtype=bool)
    mask = np.zeros((4, width), dtype=bool)
    for i, (a, b) in enumerate(zip(rows_s, rows_y, strict=True)):
        s[i, : a.size], y[i, : a.size], mask[i, : a.size] = a, b, True
    masked = pranker_many(s, y, mask=mask, method="beta")
    for i, (a, b) in enumerate(zip(rows_s, rows_y, strict=True)):
        assert_row_matches_pranker(ragged, i, a, b, "average")
        assert_row_matches_pranker(masked, i, a, b, "average")
    assert ragged.n.tolist() == [5, 50, 17, 120]
    # axis=0 is the transpose; a 3-D batch keeps its shape
    full_s, full_y = random_batch(rng, 6, 40, frac=0.2)
    r0 = pranker_many(full_s.T, full_y.T, axis=0)
    r1 = pranker_many(full_s, full_y)
    # the same rows reach the same kernel whatever the axis or batch shape: bit for bit
    np.testing.assert_array_equal(r0.auprc, r1.auprc)
    np.testing.assert_array_equal(r0.pvalue, r1.pvalue)
    r3 = pranker_many(full_s.reshape(2, 3, 40), full_y.reshape(2, 3, 40))
    assert r3.shape == (2, 3)
    np.testing.assert_array_equal(r3.auprc.ravel(), r1.auprc)
    one = pranker_many(full_s[0], full_y[0])
    assert one.shape == () and len(one) == 1
    assert float(one.auprc) == r1.auprc[0]


def test_no_positive_raise_or_nan():
    rng = np.random.default_rng(2)
    s, y = random_batch(rng, 5, 30, frac=0.2)
    y[2] = False
    with pytest.raises(ValueError, match="no positive"):
        pranker_many(s, y)
    res = pranker_many(s, y, no_positive="nan")
    assert res.valid.tolist() == [True, True, False, True, True]
    for f in FIELDS + ["pvalue_bh", "log10_pvalue_bh", "pvalue_rse"]:
        assert math.isnan(getattr(res, f)[2]), f
    assert res.n[2] == 30 and res.n_pos[2] == 0
    keep = [0, 1, 3, 4]
    np.testing.assert_allclose(res.pvalue_bh[keep], loop_bh(list(res.pvalue[keep])), rtol=1e-12)
    with pytest.raises(ValueError, match="no positive"):
        res.row(2)
    all_empty = pranker_many(s, np.zeros_like(y), no_positive="nan")
    assert not all_empty.valid.any() and np.isnan(all_empty.pvalue_bh).all()


def test_table_conversions_and_row():
    rng = np.random.default_rng(4)
    s, y = random_batch(rng, 7, 25, frac=0.3)
    res = pranker_many(s, y, conf_level=0.9)
    d = res.to_dict()
    assert set(d) >= {"auprc", "pvalue", "pvalue_bh", "n", "n_pos", "valid", "pvalue_interval"}
    meta = {"conf_level", "ties", "requested_method", "seed"}
    assert all(isinstance(v, list) and len(v) == 7 for k, v in d.items() if k not in meta)
    assert (d["conf_level"], d["seed"]) == (0.9, res.seed)
    assert json.loads(json.dumps(d, allow_nan=False)) == d  # plain, strict JSON
    assert d["pvalue"] == res.pvalue.tolist() and d["n"] == [int(v) for v in res.n]
    for i in range(7):  # None where not estimated, [low, high] around the p-value otherwise
        iv = d["pvalue_interval"][i]
        if res.method[i] == "exact":
            assert iv == [res.pvalue[i], res.pvalue[i]] and d["n_draws"][i] is None
        elif iv is not None:
            assert iv[0] <= res.pvalue[i] <= iv[1] and d["n_draws"][i] >= 4096
    pd = pytest.importorskip("pandas")
    df = res.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == 7
    np.testing.assert_array_equal(df["pvalue"].to_numpy(), res.pvalue)
    with pytest.warns(DeprecationWarning, match="pvalue_interval"):
        low = res.pvalue_low
    np.testing.assert_array_equal(low, res.pvalue_interval[0])
    np.testing.assert_array_equal(res.statistic, res.auprc)
    r = res.row(4)
    ref = pranker(s[4], y[4], conf_level=0.9)  # the single-ranking path: to 1e-12 relative
    assert r.method == ref.method
    for f in ("auprc", "pvalue", "log10_pvalue", "pvalue_interval", "null_interval"):
        tol = 1e-12 / math.log(10.0) if f == "log10_pvalue" else 1e-300  # p to 1e-12 relative
        assert getattr(r, f) == pytest.approx(getattr(ref, f), rel=1e-12, abs=tol), f


def test_log10_interval_where_the_interval_underflows():
    """A perfect ranking of 300 positives among 3,000 (p = 1 / C(N, P), about 10^-414): its
    interval underflows to (0, 0) but its log10 interval is finite, the same as pranker's."""
    rng = np.random.default_rng(11)
    y = np.zeros((2, 3000), dtype=bool)
    y[:, :300] = True
    rng.shuffle(y[1])
    s = y * 10.0 + rng.standard_normal((2, 3000)) * np.array([[0.0], [1.0]])
    res = pranker_many(s, y)
    exact = -math.log10(math.comb(3000, 300))
    assert res.pvalue_interval[0][0] == res.pvalue_interval[1][0] == 0.0
    assert res.log10_pvalue_interval[0][0] == pytest.approx(exact, abs=1e-9)
    assert res.log10_pvalue_interval[1][0] == pytest.approx(exact, abs=1e-9)
    for i in range(2):
        ref = pranker(s[i], y[i]).log10_pvalue_interval
        assert res.row(i).log10_pvalue_interval == pytest.approx(ref, rel=1e-12)
        assert tuple(v[i] for v in res.log10_pvalue_interval) == pytest.approx(ref, rel=1e-12)


def test_float32_and_integer_labels():
    rng = np.random.default_rng(6)
    s, y = random_batch(rng, 4, 60, frac=0.2)
    s32 = s.astype(np.float32)
    res = pranker_many(s32, y.astype(np.int8) * 3, pos_label=3, method="beta")
    ref = pranker_many(s32.astype(np.float64), y, method="beta")
    # float32 scores run another compilation of the kernel: to 1e-12 relative
    np.testing.assert_allclose(res.auprc, ref.auprc, rtol=1e-12, atol=0)
    with pytest.raises(ValueError, match="pos_label"):
        pranker_many(s32, y.astype(np.int8) * 3)  # {0, 3}: which one is positive?
    # -1/1 labels: 1 is the positive class, as in scikit-learn
    pm = pranker_many(s, np.where(y, 1, -1), method="beta")
    np.testing.assert_array_equal(pm.auprc, ref.auprc)  # the same bool labels once read


def test_bad_input():
    s = np.zeros((2, 4))
    y = np.array([[1, 0, 0, 0], [0, 1, 0, 0]])
    with pytest.raises(ValueError, match="same shape"):
        pranker_many(s, y[:, :3])
    with pytest.raises(ValueError, match="ties"):
        pranker_many(s, y, ties="random")
    with pytest.raises(ValueError, match="no_positive"):
        pranker_many(s, y, no_positive="skip")
    with pytest.raises(ValueError, match="axis"):
        pranker_many(s, y, axis=2)
    with pytest.raises(TypeError, match="mask"):
        pranker_many(s, y, mask=np.ones((2, 4)))
    with pytest.raises(ValueError, match="mask"):
        pranker_many(s, y, mask=np.ones((2, 3), dtype=bool))
    bad = s.copy()
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        pranker_many(bad, y)
    yn = y.astype(float)
    yn[0, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        pranker_many(s, yn)
    with pytest.raises(ValueError, match="list"):
        pranker_many([[1.0, 2.0], [1.0]], np.ones((2, 2)))
    with pytest.raises(ValueError, match="length"):
        pranker_many([[1.0, 2.0], [1.0]], [[1, 0], [1, 0]])
    with pytest.raises(ValueError, match="empty"):
        pranker_many(np.zeros((0, 3)), np.zeros((0, 3)))
    # N = 2, P = 1 (AP is 1 or 1/2): exact, no beta needed
    two = pranker_many(np.array([[0.2, 0.1], [0.1, 0.2]]), np.array([[1, 0], [1, 0]]))
    assert two.pvalue.tolist() == [0.5, 1.0] and two.method.tolist() == ["exact", "exact"]
    with pytest.raises(ValueError):
        pranker_many(s, y, conf_level=1.5)


def test_progress_bar_blocks_give_same_results():
    pytest.importorskip("tqdm")
    rng = np.random.default_rng(12)
    s, y = random_batch(rng, 120, 30, frac=0.2)
    a = pranker_many(s, y, progress=True)
    b = pranker_many(s, y)  # the same kernel on the same rows, in blocks: bit for bit
    np.testing.assert_array_equal(a.auprc, b.auprc)
    np.testing.assert_array_equal(a.pvalue_bh, b.pvalue_bh)


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_search_paths_crowded_infinite_and_single_value(ties):
    rng = np.random.default_rng(31)
    R, n = 6, 400
    s = rng.standard_cauchy((R, n)) ** 3  # crowded buckets: a few extremes set the range
    y = rng.random((R, n)) < 0.2
    y[:, 0] = True
    s[1, 0] = np.inf  # a positive at +inf: infinite range, plain binary search
    s[2, 0] = -np.inf
    s[3] = np.round(s[3])  # heavy ties
    s[4, y[4]] = 0.25  # one distinct positive score (G = 1)
    s[5] = rng.integers(0, 3, n) * 5e-324  # range of a few subnormals: scale overflows
    res = pranker_many(s, y, ties=ties, method="beta")
    for i in range(R):
        assert_row_matches_pranker(res, i, s[i], y[i], ties)


def test_positive_score_sort_kernel_matches_numpy_sort():
    from pranker._numba.rows import _sort_floats

    rng = np.random.default_rng(40)
    cases = [
        rng.random(1000),
        rng.standard_cauchy(3000) ** 3,  # most values in one bucket
        np.round(rng.standard_normal(2000), 1),  # many duplicates
        np.concatenate([np.zeros(500), np.ones(500)]),
        rng.random(65) * 1e-300,
        np.array([5e-324, 0.0, 1e-323] * 40),  # subnormal range
        np.concatenate([rng.random(100), [np.inf, -np.inf]]),
        rng.random(10),
    ]
    for a in cases:
        np.testing.assert_array_equal(_sort_floats(a, a.min(), a.max()), np.sort(a))


def test_empty_rankings_count_as_no_positive():
    res = pranker_many(np.zeros((3, 0)), np.zeros((3, 0)), no_positive="nan")
    assert res.n.tolist() == [0, 0, 0] and not res.valid.any()
    with pytest.raises(ValueError, match="no positive"):
        pranker_many(np.zeros((3, 0)), np.zeros((3, 0)))


def test_method_exact_and_auto_per_ranking():
    """Other methods are pranker()'s, applied ranking by ranking; exact against enumeration."""
    from fractions import Fraction
    from itertools import combinations

    rng = np.random.default_rng(8)
    N, P = 9, 3
    s = rng.standard_normal((4, N))
    y = np.zeros((4, N), dtype=bool)
    for r in range(4):
        y[r, rng.choice(N, P, replace=False)] = True
    res = pranker_many(s, y, method="exact")
    assert res.requested_method == "exact" and list(res.method) == ["exact"] * 4
    # oracle: the fraction of the C(9, 3) placements whose AP is at least the observed one
    aps = [
        sum(Fraction(k + 1, r) for k, r in enumerate(c)) / P
        for c in combinations(range(1, N + 1), P)
    ]
    for r in range(4):
        order = np.argsort(-s[r])
        ranks = np.flatnonzero(y[r][order]) + 1
        obs = sum(Fraction(k + 1, int(q)) for k, q in enumerate(ranks)) / P
        want = sum(a >= obs for a in aps) / len(aps)
        assert res.pvalue[r] == pytest.approx(want, rel=1e-12)
        assert res.row(r).method == "exact"
        assert (
            res.pvalue_rse[r] == 0.0
            and res.pvalue_interval[0][r] == res.pvalue_interval[1][r] == res.pvalue[r]
        )


def test_default_pvalues_equal_pranker_number_for_number():
    """The default (auto: exact or tilt) p-value of each ranking is pranker()'s (to 1e-12
    relative), whether rankings share (N, P) or not; whatever the order of the batch, the
    same call gives the same numbers bit for bit."""
    rng = np.random.default_rng(9)
    R, N = 8, 400
    y = np.zeros((R, N), dtype=bool)
    y[:, :12] = True  # all share (N, P) = (400, 12): one null, one grid of tilts
    for r in range(R):
        rng.shuffle(y[r])
    s = rng.standard_normal((R, N)) + y * np.linspace(0.0, 3.0, R)[:, None]
    res = pranker_many(s, y)
    assert set(res.method.tolist()) == {"tilt"}
    for r in (0, 3, 7):
        assert_row_matches_pranker(res, r, s[r], y[r], "average", method=None)
    rev = pranker_many(s[::-1], y[::-1])
    np.testing.assert_array_equal(rev.log10_pvalue[::-1], res.log10_pvalue)
    # the strongest signal is far in the tail, with its uncertainty
    assert res.log10_pvalue[-1] < -10 and np.all(res.pvalue_rse <= 0.02 + 1e-12)
    with pytest.raises(ValueError, match="method must be one of"):
        pranker_many(s, y, method="bootstrap")


def test_loose_rtol_pvalues_equal_pranker_number_for_number():
    """With a loose target (smaller first batch) each ranking's p-value is still pranker()'s
    with the same rtol, to 1e-12 relative, within the target."""
    rng = np.random.default_rng(19)
    R, N = 6, 500
    y = np.zeros((R, N), dtype=bool)
    y[:, :15] = True
    for r in range(R):
        rng.shuffle(y[r])
    s = rng.standard_normal((R, N)) + y * np.linspace(0.0, 2.5, R)[:, None]
    res = pranker_many(s, y, rtol=0.1)
    assert set(res.method.tolist()) == {"tilt"}
    for r in range(R):
        one = pranker(s[r], y[r], rtol=0.1)
        assert res.pvalue[r] == pytest.approx(one.pvalue, rel=1e-12)
        assert res.n_draws[r] == one.n_draws and res.pvalue_rse[r] <= 0.1
    assert np.nanmin(res.n_draws) < 4096
