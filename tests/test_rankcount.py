"""The rank-count kernel (pranker/_numba/rankcount.py) against independent oracles.

Oracles: scikit-learn's ``average_precision_score`` (= ties="threshold") and
``roc_auc_score``; plain-Python loops written here (AP as the mean over
positives of the precision at their rank, for optimistic / pessimistic /
stable orders; Mann-Whitney by pairs); the McSherry-Najork expectation by
brute-force averaging over every order of the tied items, in exact fractions.
"""

from fractions import Fraction
from itertools import permutations

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

import pranker.measures.ap as ap_module
from pranker import auprc_ap, roc_auc
from pranker._numba import rankcount
from pranker.measures.ap import tie_groups

MODES = ["average", "stable", "threshold", "optimistic", "pessimistic"]


@pytest.fixture(autouse=True)
def count_small_inputs(monkeypatch):
    """The counting path for inputs of any size (by default only from 16,384 scores)."""
    monkeypatch.setattr(ap_module, "_RANK_COUNT_MIN_N", 0)


# ---------------------------------------------------------------------------
# plain definitions
# ---------------------------------------------------------------------------


def ap_of_labels(labels):
    """Mean over positives of the precision at their rank, in exact fractions."""
    total = Fraction(0)
    k = 0
    for i, lab in enumerate(labels, start=1):
        if lab:
            k += 1
            total += Fraction(k, i)
    return total / k


def order_by(scores, key):
    return sorted(range(len(scores)), key=key)


def ap_loop(scores, y, mode):
    """AP by sorting with an explicit tie-break and walking the ranks (float scores)."""
    s = [float(v) for v in scores]
    y = [bool(v) for v in y]
    if mode == "stable":
        order = order_by(s, lambda i: (-s[i], i))
    elif mode == "optimistic":
        order = order_by(s, lambda i: (-s[i], not y[i]))
    elif mode == "pessimistic":
        order = order_by(s, lambda i: (-s[i], y[i]))
    elif mode == "threshold":
        P = sum(y)
        total = Fraction(0)
        prev_tp = 0
        for t in sorted(set(s), reverse=True):
            tp = sum(1 for i in range(len(s)) if s[i] >= t and y[i])
            k = sum(1 for i in range(len(s)) if s[i] >= t)
            total += Fraction(tp - prev_tp, P) * Fraction(tp, k)
            prev_tp = tp
        return total
    else:
        raise ValueError(mode)
    return ap_of_labels([y[i] for i in order])


def ap_average_brute(scores, y):
    """McSherry-Najork: the mean AP over every order of tied items (tiny inputs)."""
    n = len(scores)
    values = []
    for perm in permutations(range(n)):
        if all(scores[perm[i]] >= scores[perm[i + 1]] for i in range(n - 1)):
            values.append(ap_of_labels([y[i] for i in perm]))
    return sum(values) / len(values)


def auc_pairs(scores, y):
    s = np.asarray(scores, dtype=float)
    y = np.asarray(y, dtype=bool)
    p, q = s[y], s[~y]
    gt = (p[:, None] > q[None, :]).sum()
    eq = (p[:, None] == q[None, :]).sum()
    return (gt + 0.5 * eq) / (p.size * q.size)


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------


def make_scores(rng, kind, n):
    if kind == "normal":
        return rng.standard_normal(n)
    if kind == "lognormal":
        return rng.lognormal(0.0, 3.0, n)
    if kind == "heavy_ties":
        return rng.integers(0, 5, n).astype(float)
    if kind == "distinct1000":
        return rng.integers(0, 1000, n) / 7.0
    if kind == "clustered":  # dense clusters far apart, values within 1e-12 relative
        centers = np.array([-1e6, 0.0, 1.0, 1e-300, 3e8])
        return centers[rng.integers(0, 5, n)] * (1 + 1e-12 * rng.integers(0, 50, n))
    if kind == "infs":
        s = rng.standard_normal(n).round(1)
        pick = rng.random(n)
        s[pick < 0.15] = np.inf
        s[pick > 0.85] = -np.inf
        return s
    if kind == "zeros":  # signed zeros, subnormals, huge values
        vals = np.array([0.0, -0.0, 5e-324, -5e-324, 1e308, -1e308, 2.0**-1074 * 3])
        return vals[rng.integers(0, vals.size, n)]
    if kind == "all_tied":
        return np.full(n, 0.25)
    raise ValueError(kind)


KINDS = [
    "normal",
    "lognormal",
    "heavy_ties",
    "distinct1000",
    "clustered",
    "infs",
    "zeros",
    "all_tied",
]


def labels(rng, n, n_pos):
    y = np.zeros(n, dtype=bool)
    y[rng.choice(n, n_pos, replace=False)] = True
    return y


# ---------------------------------------------------------------------------
# the kernel's counts against numpy
# ---------------------------------------------------------------------------


def counts_oracle(scores, vals):
    """(#scores < v, #scores == v) for each v, by sorting (numpy)."""
    srt = np.sort(scores)
    lo = np.searchsorted(srt, vals, "left")
    hi = np.searchsorted(srt, vals, "right")
    return lo, hi - lo


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_bucket_counts_match_searchsorted(kind, threads, monkeypatch):
    monkeypatch.setattr(rankcount, "_PARALLEL_MIN", 0, raising=True)
    rng = np.random.default_rng(hash(kind) % 2**32)
    # the last size exceeds _FUSED_MAX_D distinct values: block-wise lookup
    for n, n_ref in [(1, 1), (7, 3), (500, 40), (5000, 1000), (3000, 3000), (30000, 12000)]:
        s = make_scores(rng, kind, n)
        ref = np.sort(s[rng.choice(n, n_ref, replace=False)])
        vals, runs = rankcount.distinct_runs(ref)
        assert runs.sum() == n_ref
        cnt, bounds, _, _ = rankcount.bucket_counts(s, vals, np.zeros(0, dtype=np.int64), threads)
        tot = cnt.sum(axis=0)
        below, tied = counts_oracle(s, vals)
        assert np.array_equal(tot[1::2], tied)
        # items below v_i = all gap and tie counts left of tie i
        csum = np.concatenate(([0], np.cumsum(tot)))
        assert np.array_equal(csum[1::2][: vals.size], below)
        assert tot.sum() == n
        assert bounds[0] == 0 and bounds[-1] == n


def test_crowded_slots_take_the_binary_search():
    """Many values inside one slot: consecutive floats, and a narrow cluster."""
    base = np.nextafter(1.0, 2.0)
    vals = [1.0]
    for _ in range(3000):  # 3001 consecutive floats: one slot holds them all
        vals.append(np.nextafter(vals[-1], 2.0))
    vals = np.array(vals + [1.5, 3.0, -2.0])
    vals.sort()
    rng = np.random.default_rng(5)
    s = np.concatenate([rng.choice(vals, 20000), rng.uniform(0.9, 1.1, 20000), [base]])
    rng.shuffle(s)
    v, _ = rankcount.distinct_runs(vals)
    _, _, sub = rankcount.build_table(v)
    assert (sub & rankcount._CROWDED).any()
    cnt, _, _, _ = rankcount.bucket_counts(s, v, np.zeros(0, dtype=np.int64), 2)
    tot = cnt.sum(axis=0)
    below, tied = counts_oracle(s, v)
    assert np.array_equal(tot[1::2], tied)
    assert np.array_equal(np.concatenate(([0], np.cumsum(tot)))[1::2][: v.size], below)


def test_keys_are_monotone_over_special_floats():
    x = np.array([-np.inf, -1e308, -1.0, -5e-324, -0.0, 0.0, 5e-324, 2.2e-308, 1.0, 1e308, np.inf])
    v, runs = rankcount.distinct_runs(x)
    assert list(runs) == [1, 1, 1, 1, 2, 1, 1, 1, 1, 1]  # -0.0 == 0.0
    vk, _, _ = rankcount.build_table(v)
    keys = vk[: v.size]
    assert np.all(np.diff(keys.astype(object)) > 0)


# ---------------------------------------------------------------------------
# auprc_ap through the rank-count path
# ---------------------------------------------------------------------------


@pytest.fixture
def parallel_small(monkeypatch):
    """Rank-count path for every input, threaded even on small inputs."""
    monkeypatch.setattr(rankcount, "_PARALLEL_MIN", 0)
    monkeypatch.setattr(ap_module, "_RANK_COUNT_MAX_SHARE", 1.0)


@pytest.mark.parametrize("kind", KINDS)
def test_ap_all_modes_against_loops_and_sklearn(kind, parallel_small):
    rng = np.random.default_rng(17 + KINDS.index(kind))
    for n, n_pos in [(1, 1), (2, 1), (30, 1), (30, 5), (200, 20), (200, 40), (2000, 100)]:
        s = make_scores(rng, kind, n)
        y = labels(rng, n, n_pos)
        for mode in ["stable", "threshold", "optimistic", "pessimistic"]:
            want = float(ap_loop(s, y, mode))
            got = auprc_ap(s, y, ties=mode)
            assert got == pytest.approx(want, rel=1e-12, abs=0), (kind, n, n_pos, mode)
        if np.isfinite(s).all():  # scikit-learn rejects infinite scores
            sk = average_precision_score(y, s)
            assert auprc_ap(s, y, ties="threshold") == pytest.approx(sk, rel=1e-12, abs=0)


def test_ap_average_brute_force_on_rank_count_path(monkeypatch):
    """Exact expectation over all tie orders, on inputs where the kernel runs."""
    monkeypatch.setattr(ap_module, "_RANK_COUNT_MAX_SHARE", 1.0)
    rng = np.random.default_rng(7)
    for kind in KINDS:
        for _ in range(8):
            n = int(rng.integers(1, 8))
            s = make_scores(rng, kind, n)
            y = labels(rng, n, int(rng.integers(1, n + 1)))
            want = ap_average_brute(list(s), list(y))
            assert auprc_ap(s, y) == pytest.approx(float(want), rel=1e-13), (kind, s, y)
            for mode in ["stable", "optimistic", "pessimistic", "threshold"]:
                assert auprc_ap(s, y, ties=mode) == pytest.approx(
                    float(ap_loop(s, y, mode)), rel=1e-13
                )


@pytest.mark.parametrize("share", [1.0, 0.0])
def test_p_equal_n_and_n_minus_1_both_paths(share, monkeypatch):
    """P = N and P = N - 1 (the sort path by default; forced through the kernel too)."""
    monkeypatch.setattr(ap_module, "_RANK_COUNT_MAX_SHARE", share)
    rng = np.random.default_rng(3)
    for kind in KINDS:
        for n in [1, 2, 5, 50]:
            s = make_scores(rng, kind, n)
            for n_pos in {n, max(1, n - 1)}:
                y = labels(rng, n, n_pos)
                for mode in ["stable", "threshold", "optimistic", "pessimistic"]:
                    want = float(ap_loop(s, y, mode))
                    assert auprc_ap(s, y, ties=mode) == pytest.approx(want, rel=1e-13)
                if n <= 5:
                    want = float(ap_average_brute(list(s), list(y)))
                    assert auprc_ap(s, y) == pytest.approx(want, rel=1e-13)


def test_both_paths_agree_on_larger_inputs(monkeypatch):
    """Rank-count and sort paths give the same tie groups and the same AP."""
    rng = np.random.default_rng(23)
    for kind in KINDS:
        s = make_scores(rng, kind, 20000)
        y = labels(rng, 20000, 300)
        monkeypatch.setattr(ap_module, "_RANK_COUNT_MAX_SHARE", 1.0)
        g_new = tie_groups(s, y)
        a_new = {m: auprc_ap(s, y, ties=m) for m in MODES}
        monkeypatch.setattr(ap_module, "_RANK_COUNT_MAX_SHARE", 0.0)
        g_old = tie_groups(s, y)
        a_old = {m: auprc_ap(s, y, ties=m) for m in MODES}
        for a, b in zip(g_new, g_old, strict=True):
            assert np.array_equal(a, b)
        for m in MODES:
            assert a_new[m] == pytest.approx(a_old[m], rel=1e-13)


def test_stable_snapshots_across_many_chunks(monkeypatch):
    """Ties broken by input order must count tied items of every earlier chunk."""
    monkeypatch.setattr(rankcount, "_PARALLEL_MIN", 0)
    rng = np.random.default_rng(29)
    cases = [
        (rng.integers(0, 4, 3000).astype(float), labels(rng, 3000, 200)),
        # more distinct values than _FUSED_MAX_D: the block-wise lookup
        (np.round(rng.standard_normal(40000), 3), labels(rng, 40000, 12000)),
    ]
    for s, y in cases:
        _check_stable(s, y)


def _check_stable(s, y):
    want = float(ap_loop(s, y, "stable"))
    for threads in [1, 2, 5, 64]:
        idx = np.flatnonzero(y)
        ref = np.sort(s[idx])
        vals, runs = rankcount.distinct_runs(ref)
        cnt, bounds, snap, kpos = rankcount.bucket_counts(s, vals, idx, threads)
        got = rankcount.stable_ap(cnt, bounds, runs, idx, snap, kpos)
        assert got == pytest.approx(want, rel=1e-13), threads


# ---------------------------------------------------------------------------
# roc_auc through the rank-count path
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_roc_auc_against_sklearn_and_pairs(kind, parallel_small):
    rng = np.random.default_rng(41 + KINDS.index(kind))
    for n, n_pos in [(2, 1), (30, 1), (30, 29), (300, 20), (300, 280), (3000, 150), (3000, 2900)]:
        s = make_scores(rng, kind, n)
        y = labels(rng, n, n_pos)
        want = auc_pairs(s, y)
        got = roc_auc(s, y)
        assert got == pytest.approx(want, rel=1e-13, abs=1e-15), (kind, n, n_pos)
        if np.isfinite(s).all():
            assert got == pytest.approx(roc_auc_score(y, s), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("share", [1.0, 0.0])
def test_roc_auc_both_paths(share, monkeypatch):
    monkeypatch.setattr(ap_module, "_RANK_COUNT_MAX_SHARE", share)
    import pranker.measures.curves as curves_module

    monkeypatch.setattr(curves_module, "_rank_count_pays", ap_module._rank_count_pays)
    rng = np.random.default_rng(43)
    for kind in KINDS:
        for n_pos in [1, 400, 500, 999]:
            s = make_scores(rng, kind, 1000)
            y = labels(rng, 1000, n_pos)
            assert roc_auc(s, y) == pytest.approx(auc_pairs(s, y), rel=1e-13, abs=1e-15)


def test_too_many_distinct_values_fall_back_to_sorting(monkeypatch):
    """Past the distinct-value cap the sorted reference scores feed the sort path."""
    import pranker.measures.curves as curves_module

    monkeypatch.setattr(ap_module, "_RANK_COUNT_MAX_SHARE", 1.0)
    monkeypatch.setattr(ap_module, "_RANK_COUNT_MAX_DISTINCT", 4)
    monkeypatch.setattr(ap_module, "_RANK_COUNT_DISTINCT_SHARE", 10**9)
    monkeypatch.setattr(curves_module, "_rank_count_pays", ap_module._rank_count_pays)
    rng = np.random.default_rng(47)
    for kind in KINDS:
        s = make_scores(rng, kind, 400)
        for n_pos in [3, 40, 390]:
            y = labels(rng, 400, n_pos)
            for mode in ["stable", "threshold", "optimistic", "pessimistic"]:
                want = float(ap_loop(s, y, mode))
                assert auprc_ap(s, y, ties=mode) == pytest.approx(want, rel=1e-13)
            assert roc_auc(s, y) == pytest.approx(auc_pairs(s, y), rel=1e-13, abs=1e-15)


# ---------------------------------------------------------------------------
# the slot maps: which one runs, and each one's edge cases
# ---------------------------------------------------------------------------


def _counts_agree(s, vals, threads=1):
    cnt, _, _, _ = rankcount.bucket_counts(s, vals, np.zeros(0, dtype=np.int64), threads)
    tot = cnt.sum(axis=0)
    below, tied = counts_oracle(s, vals)
    assert np.array_equal(tot[1::2], tied)
    assert np.array_equal(np.concatenate(([0], np.cumsum(tot)))[1::2][: vals.size], below)
    assert tot.sum() == s.size


@pytest.mark.parametrize(
    "kind, want",
    [
        ("normal", rankcount._MAP_VALUE),
        ("distinct1000", rankcount._MAP_VALUE),
        ("lognormal", rankcount._MAP_TABLE),
        ("infs", rankcount._MAP_TABLE),
        ("clustered", rankcount._MAP_TABLE),
    ],
)
def test_map_choice(kind, want):
    """Evenly spread finite values take the linear map; skewed, infinite or clustered the table."""
    rng = np.random.default_rng(61)
    s = make_scores(rng, kind, 20000)
    vals, _ = rankcount.distinct_runs(np.sort(s[rng.choice(s.size, 500, replace=False)]))
    assert rankcount.choose_map(vals)[0] == want
    _counts_agree(s, vals)


def test_linear_map_last_bit_neighbours_and_crowded_slots():
    """Values one ulp apart share a linear slot (binary search there); items between and beside."""
    rng = np.random.default_rng(67)
    base = np.linspace(-3, 3, 400)
    near = np.nextafter(base[::20], np.inf)  # 20 pairs of neighbouring floats
    vals = np.unique(np.concatenate([base, near]))
    mp, _, _, sub, _, _, _ = rankcount.choose_map(vals)
    assert mp == rankcount._MAP_VALUE
    assert (sub & rankcount._CROWDED).any()
    s = np.concatenate(
        [
            rng.choice(vals, 5000),
            np.nextafter(vals, -np.inf),
            np.nextafter(vals, np.inf),  # one ulp off every value
            rng.uniform(-4, 4, 5000),
            [np.inf, -np.inf, 0.0, -0.0, 5e-324, -5e-324, 1e308, -1e308],
        ]
    )
    rng.shuffle(s)
    for threads in (1, 3):
        _counts_agree(s, vals, threads)
    # the last slot crowded: its search runs up to the NaN slot's entry (D + 1)
    top = np.unique(np.concatenate([base, [np.nextafter(3.0, -np.inf)]]))
    lk = rankcount.choose_map(top)
    last = lk[3][: lk[3].size - 2]  # the map's own slots
    assert lk[0] == rankcount._MAP_VALUE and last[-1] & rankcount._CROWDED
    t = np.concatenate([s, np.nextafter(top[-2:], np.inf), top[-2:], [3.5, np.inf]])
    for threads in (1, 3):
        _counts_agree(t, top, threads)


def test_linear_map_signed_zeros_and_single_value():
    """-0.0 ties +0.0 in the linear map; one reference value (zero span) and two."""
    rng = np.random.default_rng(71)
    s = rng.choice(np.array([-0.0, 0.0, -1.0, 1.0, 0.5, 2.0**-1074]), 3000)
    for ref in ([0.0], [-0.0, 0.0], [-1.0, -0.0], [0.0, 2.0**-1074], [-1.0, 1.0], [0.5]):
        vals, _ = rankcount.distinct_runs(np.sort(np.array(ref)))
        if len(ref) == 1 or ref[0] == -1.0:
            assert rankcount.choose_map(vals)[0] == rankcount._MAP_VALUE
        _counts_agree(s, vals)


def test_linear_map_one_value_infinities_and_nan():
    """One reference value (zero span): infinite and huge scores, and NaN.

    ``x - v`` overflows to an infinite product for huge scores, which the
    clamps must place; with no crowded slot the branch-free loop runs, and its
    NaN slot must count exactly the NaN, on one thread and on several.
    """
    rng = np.random.default_rng(75)
    for ref in ([0.5], [-1e308], [1e308]):
        vals = np.array(ref)
        lk = rankcount.choose_map(vals)
        assert lk[0] == rankcount._MAP_VALUE and lk[5][3] == 0.0  # no crowded slot
        s = np.concatenate(
            [rng.choice([0.5, -1e308, 1e308, 0.0], 3000), np.full(7, np.inf), np.full(5, -np.inf)]
        )
        rng.shuffle(s)
        for threads in (1, 3):
            _counts_agree(s, vals, threads)
            *_, n_nan = rankcount.bucket_counts_nan(s, vals, np.zeros(0, dtype=np.int64), threads)
            assert n_nan == 0
        bad = s.copy()
        bad[[3, 900, 2999]] = [np.nan, -np.nan, np.nan]
        *_, n_nan = rankcount.bucket_counts_nan(bad, vals, np.zeros(0, dtype=np.int64), 1)
        assert n_nan == 3


def test_linear_map_span_overflow_is_exact():
    """Finite values whose span overflows (-1e308 .. 1e308): every score in one slot, still exact."""
    rng = np.random.default_rng(73)
    vals = np.array([-1e308, -1.0, 1.0, 1e308])
    s = np.concatenate([vals, rng.standard_normal(1000) * 1e308, [np.inf, -np.inf]])
    lk = rankcount.choose_map(vals)
    assert lk[0] == rankcount._MAP_TABLE  # all four share the one slot: too crowded
    sub, _, prm, crowd = rankcount.build_linear(vals, 64)
    assert prm[1] == 0.0 and crowd == 4
    _counts_agree(s, vals)


@pytest.mark.parametrize("kind", ["normal", "distinct1000", "lognormal"])
def test_stable_ap_on_each_map(kind):
    """Stable ties (snapshots at the positives) through the linear map and the table."""
    rng = np.random.default_rng(79)
    s = make_scores(rng, kind, 3000)
    if kind == "normal":
        s = np.round(s, 2)  # ties
    _check_stable(s, labels(rng, 3000, 150))


def _nan_oracle(s):
    """Count and first index of NaN, by a plain loop."""
    where = [i for i, x in enumerate(s.tolist()) if x != x]
    return len(where), where[0]


@pytest.mark.parametrize("kind", ["normal", "lognormal", "wide"])
@pytest.mark.parametrize("ties", ["average", "stable", "pessimistic"])
@pytest.mark.parametrize("at", ["negative", "positive", "both"])
def test_nan_found_by_the_counting_pass(kind, ties, at):
    # the rank-count path checks NaN inside its own passes: same message as check_scores
    rng = np.random.default_rng(11)
    n = 200_000
    s = rng.lognormal(0, 3, n) if kind == "lognormal" else rng.standard_normal(n)
    y = np.zeros(n, dtype=bool)
    n_pos = 20_000 if kind == "wide" else 300  # D > 8192: the block-wise lookup
    y[rng.choice(n, n_pos, replace=False)] = True
    neg = np.flatnonzero(~y)
    pos = np.flatnonzero(y)
    spots = {"negative": neg[[7, 4000]], "positive": pos[[3]], "both": [neg[9], pos[1], neg[-1]]}
    s[spots[at]] = np.nan
    s[neg[100]] = -np.nan  # a NaN with the sign bit set
    count, first = _nan_oracle(s)
    msg = (
        rf"^auprc_ap: scores contains {count} NaN value\(s\); the first is at "
        rf"\(flattened\) index {first}\. "
    )
    assert ap_module._rank_count_pays(n, n_pos)
    with pytest.raises(ValueError, match=msg):
        auprc_ap(s, y, ties=ties)
    with pytest.raises(ValueError, match=msg):
        auprc_ap(s.reshape(1000, 200), y.reshape(1000, 200), ties=ties, average="micro")


@pytest.mark.parametrize("share", [0.001, 0.5])
def test_nan_is_reported_before_a_label_error(share):
    # the NaN check is deferred on the fast path, but it still comes first
    rng = np.random.default_rng(12)
    n = 100_000
    s = rng.standard_normal(n)
    s[[5, 60_000]] = np.nan
    y = (rng.random(n) < share).astype(float)
    msg = r"^auprc_ap: scores contains 2 NaN value\(s\); the first is at \(flattened\) index 5\. "
    with pytest.raises(ValueError, match=msg):
        auprc_ap(s, y * 3)  # labels 0/3: not binary
    with pytest.raises(ValueError, match=msg):
        auprc_ap(s, np.zeros(n))  # no positive
    with pytest.raises(ValueError, match=msg):
        auprc_ap(s, y, pos_label=7)  # pos_label absent


def test_bucket_counts_nan_counts_every_nan():
    rng = np.random.default_rng(13)
    for d, n_nan in [(50, 0), (50, 3), (3000, 5), (20_000, 2), (3000, 1)]:
        s = rng.standard_normal(300_000)
        bad = rng.choice(s.size, n_nan, replace=False)
        s[bad] = np.where(np.arange(n_nan) % 2, np.nan, -np.nan)
        if n_nan:  # the NaN whose bits are all ones but the sign: its key is the sentinel's
            s.view(np.uint64)[bad[0]] = np.uint64(0x7FFFFFFFFFFFFFFF)
            s.view(np.uint64)[bad[-1]] = np.uint64(0xFFFFFFFFFFFFFFFF)
        vals = np.unique(rng.choice(s[np.isfinite(s)], d))
        for threads in (1, 2):
            *_, got = rankcount.bucket_counts_nan(s, vals, np.zeros(0, dtype=np.int64), threads)
            assert got == n_nan


@pytest.mark.parametrize("share", [0.002, 0.998, 0.5])
@pytest.mark.parametrize("at", ["negative", "positive"])
def test_roc_auc_nan_found_on_every_path(share, at):
    # the smaller class is the reference: positives, negatives, or the sort path
    rng = np.random.default_rng(15)
    n = 100_000
    s = rng.standard_normal(n)
    y = rng.random(n) < share
    where = np.flatnonzero(y if at == "positive" else ~y)
    s[where[[2, -1]]] = np.nan
    count, first = _nan_oracle(s)
    msg = rf"^roc_auc: scores contains {count} NaN value\(s\); the first is at \(flattened\) index {first}\. "
    with pytest.raises(ValueError, match=msg):
        roc_auc(s, y)
    with pytest.raises(ValueError, match=msg):
        roc_auc(s, np.ones(n))  # no negative: the NaN is still reported first


def test_small_inputs_take_the_sort_path_with_the_same_numbers(monkeypatch):
    """Below _RANK_COUNT_MIN_N scores the sort path runs (no counting kernel to compile);
    its tie groups, AP and ROC AUC are those of the counting path, bit for bit."""
    rng = np.random.default_rng(101)
    calls = []
    real = rankcount.bucket_counts_nan
    monkeypatch.setattr(rankcount, "bucket_counts_nan", lambda *a: calls.append(1) or real(*a))
    for kind in KINDS:
        s = make_scores(rng, kind, 5000)
        y = labels(rng, 5000, 50)
        monkeypatch.setattr(ap_module, "_RANK_COUNT_MIN_N", 0)
        counted = [auprc_ap(s, y, ties=m) for m in MODES] + [roc_auc(s, y)]
        groups = tie_groups(s, y)
        assert calls
        calls.clear()
        monkeypatch.setattr(ap_module, "_RANK_COUNT_MIN_N", 1 << 14)
        sorted_ = [auprc_ap(s, y, ties=m) for m in MODES] + [roc_auc(s, y)]
        assert len(calls) == 1  # only ties="stable" still counts
        calls.clear()
        assert counted == sorted_, kind
        for a, b in zip(groups, tie_groups(s, y), strict=True):
            assert np.array_equal(a, b)
