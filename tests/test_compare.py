"""Tests of pranker.compare() against independent oracles."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from pranker import auprc_ap, compare
from pranker._numba.compare import group_ap
from pranker._numba.tiegroups import MODE_CODES
from pranker.significance.compare import _influence_values, _levels

TIES = ("average", "stable", "threshold", "optimistic", "pessimistic")


def _pair(rng, n=40, prev=0.3, rho=0.5, shift=1.0, decimals=None):
    y = rng.random(n) < prev
    y[:2] = True
    y[2:4] = False
    z = rng.normal(size=(2, n))
    z[1] = rho * z[0] + np.sqrt(1 - rho**2) * z[1]
    a, b = z[0] + shift * y, z[1] + shift * y
    if decimals is not None:
        a, b = np.round(a, decimals), np.round(b, decimals)
    return a, b, y


# --------------------------------------------------------------------------- AP kernel
@pytest.mark.parametrize("ties", TIES)
def test_group_ap_with_copies_matches_auprc_ap(ties):
    """Weighted levels (bootstrap copies) give the AP of the data with the copies written out."""
    rng = np.random.default_rng(1)
    s = np.round(rng.normal(size=30), 1)
    y = rng.random(30) < 0.4
    w = rng.integers(0, 3, size=30)
    w[np.flatnonzero(y)[0]] = 1
    lv, g = _levels(s, y, ties)
    pc = np.bincount(lv, weights=w * y, minlength=g)
    nc = np.bincount(lv, weights=w * ~y, minlength=g)
    mode = MODE_CODES[ties] if ties in ("average", "threshold") else MODE_CODES["optimistic"]
    got = group_ap(pc, nc, float(np.sum(w * y)), mode)
    idx = np.repeat(np.arange(30), w)  # copies adjacent, input order kept
    assert got == pytest.approx(auprc_ap(s[idx], y[idx], ties=ties), rel=1e-12)


# --------------------------------------------------------------------------- influence values
def _functional_ap(s, y, wpos, wneg):
    """Threshold AP of weighted class distributions (class shares fixed at P/N, M/N)."""
    P, M = y.sum(), (~y).sum()
    tot = 0.0
    for i in np.flatnonzero(y):
        sf = np.sum(wpos[s >= s[i]])
        sg = np.sum(wneg[s >= s[i]])
        tot += wpos[i] * P * sf / (P * sf + M * sg)
    return tot


def test_influence_values_are_gateaux_derivatives():
    rng = np.random.default_rng(2)
    s, _, y = _pair(rng, n=25, decimals=1)
    P, M = y.sum(), (~y).sum()
    wp = np.where(y, 1.0 / P, 0.0)
    wn = np.where(~y, 1.0 / M, 0.0)
    base = _functional_ap(s, y, wp, wn)
    assert base == pytest.approx(auprc_ap(s, y, ties="threshold"), rel=1e-12)
    inf = _influence_values(s, y, "threshold")
    eps = 1e-6
    for j in range(25):
        if y[j]:
            wp2 = (1 - eps) * wp
            wp2[j] += eps
            num = (_functional_ap(s, y, wp2, wn) - base) / eps
        else:
            wn2 = (1 - eps) * wn
            wn2[j] += eps
            num = (_functional_ap(s, y, wp, wn2) - base) / eps
        assert inf[j] == pytest.approx(num, abs=1e-4)
    assert abs(inf[y].sum()) < 1e-10 and abs(inf[~y].sum()) < 1e-10


@pytest.mark.slow
@pytest.mark.parametrize("P,M,rho", [(20, 180, 0.5), (50, 100, 0.0)])
def test_analytic_variance_matches_simulation(P, M, rho):
    """Mean analytic variance vs the variance of AP differences over 3,000 data sets.

    The standard error of a variance from 3,000 draws is about 2.6 %; we allow 12 %.
    """
    rng = np.random.default_rng(3)
    y = np.r_[np.ones(P, bool), np.zeros(M, bool)]
    d, v = [], []
    for _ in range(3000):
        z = rng.normal(size=(2, P + M))
        z[1] = rho * z[0] + np.sqrt(1 - rho**2) * z[1]
        r = compare(z[0] + y, z[1] + 0.8 * y, y, method="influence")
        d.append(r.statistic)
        v.append(r.standard_error**2)
    assert np.mean(v) / np.var(d) == pytest.approx(1.0, abs=0.12)


# --------------------------------------------------------------------------- t reference
def test_influence_pvalue_is_welch_t():
    """p-value, degrees of freedom and interval from the definitions, written out here."""
    from scipy import stats

    rng = np.random.default_rng(13)
    a, b, y = _pair(rng, n=60, prev=0.15, rho=0.3)
    r = compare(a, b, y, method="influence")
    dif = _influence_values(a, y, "average") - _influence_values(b, y, "average")
    P, M = int(y.sum()), int((~y).sum())
    mp = sum(dif[y]) / P
    mn = sum(dif[~y]) / M
    v1 = sum((x - mp) ** 2 for x in dif[y]) / (P - 1) / P
    v2 = sum((x - mn) ** 2 for x in dif[~y]) / (M - 1) / M
    nu = (v1 + v2) ** 2 / (v1**2 / (P - 1) + v2**2 / (M - 1))
    t = (auprc_ap(a, y) - auprc_ap(b, y)) / np.sqrt(v1 + v2)
    assert r.standard_error == pytest.approx(np.sqrt(v1 + v2), rel=1e-10)
    assert r.df == pytest.approx(nu, rel=1e-10)
    assert min(P, M) - 1 <= r.df <= P + M - 2
    assert r.pvalue == pytest.approx(2 * stats.t.sf(abs(t), nu), rel=1e-10)
    ci = r.confidence_interval(0.9)
    q = stats.t.ppf(0.95, nu) * np.sqrt(v1 + v2)
    assert (ci.low, ci.high) == pytest.approx((r.statistic - q, r.statistic + q), rel=1e-10)


@pytest.mark.parametrize(
    "df,t,rel",
    [
        (3.0, 1e6, 1e-8),
        (50.0, 1e8, 1e-8),
        (1000.0, 1e3, 1e-8),
        (1e4, 60.0, 1e-8),
        (12.5, 40.0, 1e-8),
        (1e6, 40.0, 2e-3),
    ],
)
def test_log_t_tail_where_the_pvalue_underflows(df, t, rel):
    """log sf of Student's t far in the tail against mpmath's incomplete beta at 50 digits
    (the last case falls back to the normal tail: log p within 0.2 %)."""
    import mpmath

    from pranker.significance.compare import _log_t_sf

    mpmath.mp.dps = 50
    x = mpmath.mpf(df) / (df + mpmath.mpf(t) ** 2)
    want = float(mpmath.log(mpmath.betainc(df / 2, 0.5, 0, x, regularized=True) / 2))
    assert _log_t_sf(t, df) == pytest.approx(want, rel=rel)


def test_small_p_type_one_error_of_the_t_reference():
    """Five positives, 45 negatives, equally good independent models: the influence test
    with the t reference rejects at about alpha = 0.05 (2,000 data sets: 3 standard errors
    are 0.015), where the normal reference rejects about 0.10."""
    rng = np.random.default_rng(14)
    y = np.r_[np.ones(5, bool), np.zeros(45, bool)]
    rej = 0
    for _ in range(2000):
        z = rng.normal(size=(2, 50))
        rej += compare(z[0] + y, z[1] + y, y, method="influence").pvalue <= 0.05
    assert abs(rej / 2000 - 0.05) < 3 * np.sqrt(0.05 * 0.95 / 2000)


# --------------------------------------------------------------------------- permutation
def _all_swaps(a, b, y, ties):
    """AP_a - AP_b for every one of the 2^N patterns of swapped scores (plain enumeration)."""
    out = []
    for bits in itertools.product((False, True), repeat=a.size):
        sw = np.array(bits)
        out.append(
            auprc_ap(np.where(sw, b, a), y, ties=ties) - auprc_ap(np.where(sw, a, b), y, ties=ties)
        )
    return np.array(out)


def _tied_pair(seed, n=11):
    rng = np.random.default_rng(seed)
    a, b, y = _pair(rng, n=n, prev=0.4, shift=1.5, decimals=0)  # many ties, within and across
    return a, b - 0.8 * y, y  # b weaker


@pytest.mark.parametrize("ties", TIES)
def test_swap_distribution_is_the_enumeration(ties):
    """Every replicate is one of the 2^N swap values, each drawn with its probability
    (each value's frequency within 4.5 binomial standard errors of its share of the
    2^N patterns, 40,000 draws), and the p-value matches the enumerated one."""
    a, b, y = _tied_pair(4)
    exact = _all_swaps(a, b, y, ties)
    d = auprc_ap(a, y, ties=ties) - auprc_ap(b, y, ties=ties)
    assert exact[0] == pytest.approx(d, abs=1e-12)  # no swap: the observed difference
    n = 40000
    res = compare(a, b, y, ties=ties, n_draws=n, alpha=None, seed=5)
    assert res.n_draws == n and res.method == "permutation"
    reps = res._replicates
    vals, counts = np.unique(np.round(exact, 9), return_counts=True)
    idx = np.searchsorted(vals, np.round(reps, 9))
    assert np.all(vals[np.minimum(idx, vals.size - 1)] == np.round(reps, 9))
    got = np.bincount(idx, minlength=vals.size) / n
    want = counts / exact.size
    assert np.all(np.abs(got - want) <= 4.5 * np.sqrt(want * (1 - want) / n) + 1e-9)
    p_exact = np.mean(np.abs(exact) >= abs(d) - 1e-12)
    assert abs(res.pvalue - p_exact) < 4 * np.sqrt(p_exact * (1 - p_exact) / n) + 1e-4
    # the null of the difference: mean 0 exactly, its variance that of the enumeration
    assert res.null_mean == 0.0
    var = np.mean(exact**2)
    assert res.null_var == pytest.approx(var, rel=5 * np.sqrt(2.0 / n) * 3)


def test_swap_one_sided_against_the_enumeration():
    a, b, y = _tied_pair(8, n=12)
    exact = _all_swaps(a, b, y, "average")
    d = exact[0]
    n = 20000
    g = compare(a, b, y, alternative="greater", n_draws=n, alpha=None, seed=2)
    le = compare(a, b, y, alternative="less", n_draws=n, alpha=None, seed=2)
    for res, p in ((g, np.mean(exact >= d - 1e-12)), (le, np.mean(exact <= d + 1e-12))):
        assert abs(res.pvalue - p) < 4 * np.sqrt(p * (1 - p) / n) + 1e-4


def test_patterns_do_not_depend_on_threads(monkeypatch):
    """Pattern t depends only on (seed, t): the parallel kernel (forced) gives the numbers
    of the serial one, and a run continued from pattern m gives the patterns m, m+1, ..."""
    from pranker._numba import compare as kernels
    from pranker.significance.compare import _swap_setup

    rng = np.random.default_rng(30)
    a, b, y = _pair(rng, n=3000, prev=0.05)
    cells, mode, _ = _swap_setup(a, b, y, "average")
    args = (kernels.swap_layout(*cells), int(y.sum()), mode, 9)
    serial = kernels.swap_diffs(*args, 0, 300)
    monkeypatch.setattr(kernels, "_PARALLEL_MIN_WORK", 0)
    parallel = kernels.swap_diffs(*args, 0, 300)
    assert np.array_equal(serial, parallel)
    assert np.array_equal(kernels.swap_diffs(*args, 100, 200), serial[100:])


_U64 = (1 << 64) - 1


def _splitmix(state):
    """One step of splitmix64 in plain Python: (next state, output word)."""
    state = (state + 0x9E3779B97F4A7C15) & _U64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _U64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _U64
    return state, z ^ (z >> 31)


def _pattern_by_definition(a, b, y, seed, t):
    """Which instances swap in pattern t, from the documented stream, in plain Python.

    Slots: the distinct positive scores of both models cut the axis into 2K + 1 slots,
    best first. Per class (positives, then negatives) the instances whose two slots
    differ form cells (slot pair lo < hi), listed by (lo, hi); the cells of one
    instance read one bit each (64 per word, least significant first), then each
    other cell of n instances reads n // 64 fresh words and its last n % 64 bits from
    the current word, or from a fresh word when fewer are left. A cell's set bits
    put that many of its instances (here: the first ones) at the better slot lo.
    """
    thr = sorted(set(a[y]) | set(b[y]))
    K = len(thr)

    def slot(x):
        i = sum(1 for v in thr if v < x)
        return 2 * K - 2 * i - (1 if i < K and thr[i] == x else 0)

    state = (seed ^ ((t * 0x94D049BB133111EB) & _U64)) & _U64
    state = _splitmix(state)[1]
    swap = np.zeros(a.size, bool)
    for cls in (y, ~y):
        cells: dict = {}
        for i in np.flatnonzero(cls):
            u, v = slot(a[i]), slot(b[i])
            if u != v:
                cells.setdefault((min(u, v), max(u, v)), []).append(i)
        keys = sorted(cells)
        singles = [k for k in keys if len(cells[k]) == 1]
        others = [k for k in keys if len(cells[k]) > 1]
        for c, k in enumerate(singles):
            if c % 64 == 0:
                state, word = _splitmix(state)
            (i,) = cells[k]
            up = (word >> (c % 64)) & 1
            swap[i] = (slot(a[i]) == k[0]) != bool(up)  # A's score moves to B's slot
        word, left = 0, 0
        for k in others:
            n = len(cells[k])
            x = 0
            while n >= 64:
                state, z = _splitmix(state)
                x += bin(z).count("1")
                n -= 64
            if n > 0:
                if left < n:
                    state, word = _splitmix(state)
                    left = 64
                x += bin(word & ((1 << n) - 1)).count("1")
                word >>= n
                left -= n
            for j, i in enumerate(cells[k]):
                swap[i] = (slot(a[i]) == k[0]) != (j < x)
    return swap


@pytest.mark.parametrize("ties", ["average", "threshold"])
def test_each_swap_pattern_against_sklearn(ties):
    """Pattern by pattern, the kernel's AP_a - AP_b is the difference of scikit-learn's
    average precision of the two swapped rankings, the swaps written out from the
    stream's definition in plain Python. The data have cells of one instance, of a
    few, and of more than 64 (whole words of the stream); without ties for
    "average" (where it is the AP), with ties for "threshold" (scikit-learn's)."""
    from sklearn.metrics import average_precision_score as sk_ap

    rng = np.random.default_rng(3)
    n, n_pos = 400, 9
    y = np.zeros(n, bool)
    y[rng.choice(n, n_pos, replace=False)] = True
    a = rng.normal(size=n) + y
    b = 0.6 * a + rng.normal(size=n)
    neg = np.flatnonzero(~y)
    a[neg[:150]], b[neg[:150]] = 9.0 + rng.random(150), -9.0 - rng.random(150)  # one cell of 150
    a[neg[150:180]], b[neg[150:180]] = 9.0 + rng.random(30), -9.0 + rng.random(30)
    if ties == "threshold":
        a, b = np.round(a, 0), np.round(b, 0)
    res = compare(a, b, y, ties=ties, n_draws=40, alpha=None, seed=11)
    for t, rep in enumerate(res._replicates):
        sw = _pattern_by_definition(a, b, y, 11, t)
        want = sk_ap(y, np.where(sw, b, a)) - sk_ap(y, np.where(sw, a, b))
        assert rep == pytest.approx(want, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("n,rho", [(50, 0.8), (500, 0.0)])
def test_permutation_type_one_error_with_five_positives(n, rho):
    """Equally good models (the pair of scores of an instance exchangeable), 5 positives,
    where the influence test rejected 0.024 and 0.003 of the time at alpha = 0.05: the
    default rejects 0.05 within 3 Monte Carlo standard errors (1,000 data sets: 0.021)."""
    rng = np.random.default_rng(40 + n)
    y = np.r_[np.ones(5, bool), np.zeros(n - 5, bool)]
    rej = 0
    for k in range(1000):
        z = rng.normal(size=(2, n))
        z[1] = rho * z[0] + np.sqrt(1 - rho**2) * z[1]
        rej += compare(z[0] + y, z[1] + y, y, seed=k).pvalue <= 0.05
    assert abs(rej / 1000 - 0.05) <= 3 * np.sqrt(0.05 * 0.95 / 1000)


def test_sequential_stop_agrees_with_every_pattern():
    """An early stop reads the first m patterns of the full run (the same seed): its p-value
    is (b + 1) / (m + 1) of those, and the full run's decision at alpha is the same."""
    rng = np.random.default_rng(6)
    seen = set()
    for k in range(6):
        a, b, y = _pair(rng, n=200, prev=0.2)
        a = a + (0.0, 0.3, 1.0)[k % 3] * y
        early = compare(a, b, y, seed=k)
        full = compare(a, b, y, seed=k, alpha=None)
        assert full.n_draws == 9999 and full.decision is None
        m = early.n_draws
        head = full._replicates[:m]
        b_hits = np.count_nonzero(np.abs(head) >= abs(early.statistic) - 1e-12)
        assert early.pvalue == pytest.approx((b_hits + 1) / (m + 1), rel=1e-12)
        if early.decision in ("below", "above"):
            assert (full.pvalue <= 0.05) == (early.decision == "below")
        seen.add(early.decision)
    assert {"below", "above"} <= seen


def test_permutation_interval_inverts_the_shifted_test():
    """The interval holds the differences delta whose shifted observation d - delta lies
    within the central conf_level of the swap distribution (symmetric about 0)."""
    rng = np.random.default_rng(17)
    a, b, y = _pair(rng, n=300, prev=0.1)
    res = compare(a + 0.4 * y, b, y, seed=1)
    reps = res._replicates
    ci = res.confidence_interval()
    for delta in np.linspace(ci.low - 0.05, ci.high + 0.05, 41):
        x = res.statistic - delta
        share = np.mean(np.r_[reps, -reps] <= x)  # where d - delta falls in the null
        inside = ci.low <= delta <= ci.high
        if 0.03 < share < 0.97 and not (0.02 < abs(share - 0.025) < 0.03):
            assert inside == (0.025 <= share <= 0.975)


# --------------------------------------------------------------------------- API
@pytest.mark.parametrize("method", ["influence", "bootstrap", "permutation"])
@pytest.mark.parametrize("ties", TIES)
def test_result_fields(method, ties):
    rng = np.random.default_rng(7)
    a, b, y = _pair(rng, n=120, decimals=1)
    r = compare(a, b, y, method=method, ties=ties, n_draws=499)
    assert r.statistic == pytest.approx(r.auprc_a - r.auprc_b)
    assert r.auprc_a == pytest.approx(auprc_ap(a, y, ties=ties))
    assert 0.0 < r.pvalue <= 1.0 and r.log10_pvalue == pytest.approx(np.log10(r.pvalue))
    ci = r.confidence_interval()
    assert ci.low <= r.statistic <= ci.high
    ci99 = r.confidence_interval(0.99)
    assert ci99.low <= ci.low and ci99.high >= ci.high
    assert (r.n, r.n_pos, r.method) == (120, int(y.sum()), method)
    assert r.seed is None if method == "influence" else r.seed is not None
    g = compare(a, b, y, method=method, ties=ties, alternative="greater", n_draws=499)
    gl = g.confidence_interval()
    assert gl.high == np.inf and gl.low <= r.statistic
    d = r.to_dict()
    assert d["statistic"] == r.statistic and len(d["confidence_interval"]) == 2


def test_alternatives_influence():
    rng = np.random.default_rng(8)
    a, b, y = _pair(rng, n=300)
    a = a + 0.5 * y
    two = compare(a, b, y, method="influence")
    g = compare(a, b, y, method="influence", alternative="greater")
    le = compare(a, b, y, method="influence", alternative="less")
    assert g.pvalue == pytest.approx(two.pvalue / 2)
    assert le.pvalue == pytest.approx(1 - g.pvalue)


def test_deep_tail_log10():
    rng = np.random.default_rng(9)
    y = rng.random(20000) < 0.2
    a = 3 * y + rng.normal(size=20000)
    b = rng.normal(size=20000)
    r = compare(a, b, y, method="influence")
    assert r.pvalue == 0.0 and r.log10_pvalue < -300


def test_identical_models():
    rng = np.random.default_rng(10)
    a, _, y = _pair(rng)
    for m in ("influence", "bootstrap", "permutation"):
        r = compare(a, a, y, method=m)
        assert r.statistic == 0.0 and r.pvalue == 1.0


def test_reproducible_and_seeded():
    rng = np.random.default_rng(11)
    a, b, y = _pair(rng, n=200)
    r1 = compare(a, b, y, method="bootstrap", seed=3)
    r2 = compare(a, b, y, method="bootstrap", seed=3)
    assert r1.pvalue == r2.pvalue and r1.confidence_interval() == r2.confidence_interval()


def test_refusals():
    rng = np.random.default_rng(12)
    a, b, y = _pair(rng)
    with pytest.raises(ValueError, match="method"):
        compare(a, b, y, method="delong")
    with pytest.raises(ValueError, match="alternative"):
        compare(a, b, y, alternative="bigger")
    with pytest.raises(ValueError, match="same number"):
        compare(a, b[:-1], y)
    with pytest.raises(ValueError, match="2 positives"):
        compare(a[:5], b[:5], np.array([1, 0, 0, 0, 0]))
    with pytest.raises(ValueError, match="NaN"):
        compare(np.r_[np.nan, a[1:]], b, y)


def test_vocabulary_and_earlier_names():
    """The fields every result shares, JSON-ready; the earlier names warn and read the new ones."""
    rng = np.random.default_rng(21)
    a, b, y = _pair(rng)
    inf = compare(a, b, y, conf_level=0.9, method="influence")
    assert inf.conf_level == 0.9 and inf.n_draws is None and inf.seed is None
    assert inf.pvalue_interval is None and inf.pvalue_rse is None
    # influence: the null interval is symmetric about 0, t quantiles times the standard error
    lo, hi = inf.null_interval
    assert lo == pytest.approx(-hi, rel=1e-12) and hi > 0
    d = inf.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    perm = compare(a, b, y, method="permutation", n_draws=999, alpha=None, seed=3)
    assert perm.n_draws == 999
    # Clopper-Pearson from b of m: the p-value (b + 1) / (m + 1) gives b back
    b_hits = round(perm.pvalue * 1000) - 1
    from scipy.stats import beta as beta_dist

    c_lo = 0.0 if b_hits == 0 else beta_dist.ppf(0.025, b_hits, 999 - b_hits + 1)
    assert perm.pvalue_interval[0] == pytest.approx(c_lo, rel=1e-9, abs=1e-15)
    p = perm.pvalue
    assert perm.pvalue_rse == pytest.approx(math.sqrt((1 - p) / (p * 999)), rel=1e-12)
    # the permutation null interval: quantiles of differences under random swaps,
    # on both sides of 0
    lo, hi = perm.null_interval
    assert lo < 0 < hi
    with pytest.warns(DeprecationWarning, match="conf_level"):
        old = compare(a, b, y, confidence_level=0.9, method="influence")
    assert old.pvalue == inf.pvalue
    with pytest.warns(DeprecationWarning, match="conf_level"):
        assert old.confidence_level == 0.9
    with pytest.warns(DeprecationWarning, match="n_draws"):
        assert perm.n_resamples == 999
    with pytest.warns(DeprecationWarning):
        ci = inf.confidence_interval(confidence_level=0.8)
    assert ci == inf.confidence_interval(conf_level=0.8)
    with pytest.raises(TypeError, match="twice"):
        compare(a, b, y, conf_level=0.9, confidence_level=0.9)
