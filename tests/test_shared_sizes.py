"""Neighbouring sizes share one tilted proposal: the upper tail of (N, P) from the draws of N'.

Oracles: exhaustive enumeration of every placement (plain loops over the
combinations, written here), plain Monte Carlo from numpy's generator, and
the bins' defining inequalities checked by integer loops.
"""

import itertools
import math

import numpy as np
import pytest

from pranker import pranker, pranker_many, significance_from_ap
from pranker._numba.tilt import tilt_split_states
from pranker.null.choice import SHARED_SIZES_MAX_CELLS, tilt_shared_bin, tilt_shared_n
from pranker.null.distributions import TiltNull


def enumerated_sf(N, P, s):
    """P(S >= s) over every placement (float sums of k / r_k; the package's 1e-12 tie rule)."""
    k = np.arange(1, P + 1)
    c = np.array(list(itertools.combinations(range(1, N + 1), P)), dtype=np.float64)
    sums = (k / c).sum(axis=1)
    return np.count_nonzero(sums >= s * (1 - 1e-12)) / sums.size


def numpy_tail(N, P, ap, draws, seed):
    """Plain Monte Carlo P(AP >= ap) with its standard error (numpy's generator)."""
    rng = np.random.default_rng(seed)
    k = np.arange(1, P + 1)
    hits = 0
    for start in range(0, draws, 4000):
        b = min(4000, draws - start)
        ranks = np.sort(np.argpartition(rng.random((b, N)), P, axis=1)[:, :P], axis=1) + 1
        hits += np.count_nonzero((k / ranks).sum(axis=1) / P >= ap * (1 - 1e-12))
    p = hits / draws
    return p, math.sqrt(p * (1 - p) / draws)


def test_bins_partition_the_sizes():
    """Each N maps to the top N' >= N of its bin: consecutive, within 1 + 2.0 / P of N, no
    bin across a power of two, and nothing shared outside the region; the bin's bottom is
    the smallest N of it."""
    for P in (3, 5, 12, 50, 120):
        prev_top, start = None, None
        for N in range(P + 1, 4000):
            top = tilt_shared_n(N, P)
            if P * (N - P + 1) > SHARED_SIZES_MAX_CELLS:
                assert top is None
                continue
            if top is None:  # bins of one size, or whose top is beyond the region
                prev_top = None
                continue
            assert P * (top - P + 1) <= SHARED_SIZES_MAX_CELLS
            assert N <= top < 2 ** N.bit_length()
            assert top * 10 * P <= N * (10 * P + 20) + 10 * P  # N' / N <= 1 + 2.0 / P (+ rounding)
            if top == prev_top:
                assert tilt_shared_n(N - 1, P) == top
            else:
                start = N
            assert tilt_shared_n(top, P) == top and tilt_shared_n(start, P) == top
            assert tilt_shared_bin(N, P) == (start, top)
            prev_top = top
    assert tilt_shared_n(1000, 2) is None  # P = 2: the estimate is exact, nothing to share
    assert tilt_shared_n(10**6, 1000) is None


@pytest.mark.parametrize("P", [3, 4, 5])
def test_every_size_of_a_bin_against_enumeration(P):
    """Every size of one bin (its bottom, middle and top), thresholds from below the mean to
    p ~ 1e-5: the estimate within 4 rse of the count over all placements, and pooled over
    the cells the errors look like standard normal draws."""
    N_top = tilt_shared_n(40, P)
    sizes = [n for n in range(P + 1, N_top + 1) if tilt_shared_n(n, P) == N_top]
    assert len(sizes) >= 2
    z = []
    for N in sorted({sizes[0], sizes[len(sizes) // 2], sizes[-1]}):
        null = TiltNull(N, P)
        eng, target = null.upper_engine()
        assert eng.N == N_top and target == N
        for q in (-0.4, 0.0, 0.5, 1.5, 3.0, 6.0):
            ap = null.mean + q * math.sqrt(null.var)
            if ap >= 1:
                continue
            exact = enumerated_sf(N, P, ap * P)
            est = null.pvalue(ap)
            if est.method == "exact":  # next to the top: the few placements above are counted
                assert est.pvalue == pytest.approx(exact, rel=1e-12)
                continue
            assert est.method == "tilt" and 0 < est.pvalue_rse <= 0.02
            z.append((est.pvalue / exact - 1) / est.pvalue_rse)
            lo, hi = est.pvalue_interval
            assert lo <= est.pvalue <= hi
    z = np.array(z)
    assert np.all(np.abs(z) < 4), z
    assert abs(z.mean()) < 4 / math.sqrt(z.size)  # no bias beyond noise


def test_a_query_sized_ranking_against_monte_carlo():
    """N = 997, P = 30 (its bin's top is larger): the estimate against 200,000 plain draws
    at p ~ 0.02, within 4 combined standard errors."""
    N, P = 997, 30
    assert tilt_shared_n(N, P) > N
    null = TiltNull(N, P)
    ap = null.mean + 2.0 * math.sqrt(null.var)
    est = null.pvalue(ap)
    p_mc, se_mc = numpy_tail(N, P, ap, 200_000, seed=5)
    se = math.hypot(se_mc, est.pvalue * est.pvalue_rse)
    assert abs(est.pvalue - p_mc) < 4 * se, (est.pvalue, p_mc, se)


def test_rankings_of_one_bin_get_pranker_numbers_in_any_batch():
    """Rankings of different N in one bin, in one batch: each p-value equals pranker()'s on
    that ranking alone, and does not depend on the other rankings of the batch."""
    rng = np.random.default_rng(3)
    P = 20
    top = tilt_shared_n(1000, P)
    sizes = [n for n in range(top - 40, top + 1) if tilt_shared_n(n, P) == top][-4:]
    assert len(sizes) == 4
    scores, labels = [], []
    for i, N in enumerate(sizes * 2):
        y = np.zeros(N, dtype=bool)
        y[rng.choice(N, P, replace=False)] = True
        scores.append(rng.standard_normal(N) + (0.2 + 0.3 * i) * y)
        labels.append(y)
    res = pranker_many(scores, labels)
    assert set(res.method.tolist()) == {"tilt"}
    for r in (0, 3, 5):
        one = pranker(scores[r], labels[r])
        assert res.pvalue[r] == one.pvalue and res.n_draws[r] == one.n_draws
        assert res.pvalue_interval[0][r] == one.pvalue_interval[0]
    alone = pranker_many(scores[5:], labels[5:])
    np.testing.assert_array_equal(alone.log10_pvalue, res.log10_pvalue[5:])
    sfa = significance_from_ap(float(res.auprc[2]), sizes[2], P)
    assert sfa.pvalue == res.pvalue[2]


@pytest.mark.parametrize("N_t", [32, 41, 52])
def test_cgf_of_a_smaller_size_read_off_the_bins_layers(N_t):
    """K_{N_t}(phi) at a grid point of the bin's top engine (P = 3, N' = 52), which weights
    the draws that fall within N_t, against log mean e^{phi S} over every placement in N_t."""
    P = 3
    null = TiltNull(N_t, P)
    eng, target = null.upper_engine()
    assert eng.N == 52 and target == N_t
    k = np.arange(1, P + 1)
    sums = np.array([(k / np.array(c)).sum() for c in itertools.combinations(range(1, N_t + 1), P)])
    for j in (5, 150, 200):
        phi = eng.grid_phi(j)
        m = (phi * sums).max()
        truth = m + math.log(np.mean(np.exp(phi * sums - m)))
        assert eng._target_cgf(j, N_t) == pytest.approx(truth, rel=1e-10, abs=1e-12)


def test_the_last_positive_follows_the_bins_mixture():
    """Draws of a bin's top engine (P = 4, sizes 32-47 at one tilt): the last positive's offset
    against the mixture of each size's tilted law, from enumeration (a chi-square test)."""
    from scipy import stats

    P = 4
    lo, top = tilt_shared_bin(40, P)
    assert top - lo >= 3
    null = TiltNull(lo, P)
    eng, _ = null.upper_engine()
    j = 60
    phi = eng.grid_phi(j)
    cw, ms = eng._mixture()
    w = np.diff(cw, prepend=0.0)
    assert ms.tolist() == list(range(lo - P, top - P + 1)) and np.all(w > 0)
    # enumeration: e^{phi S} summed by the offset of the last positive, then each size's law
    k = np.arange(1, P + 1)
    by_top = np.zeros(top - P + 1)
    for c in itertools.combinations(range(1, top + 1), P):
        by_top[c[-1] - P] += math.exp(phi * float((k / np.array(c)).sum()) - phi * P)
    expected = np.zeros(top - P + 1)
    for wi, m in zip(w, ms, strict=True):
        expected[: m + 1] += wi * by_top[: m + 1] / by_top[: m + 1].sum()
    n = 200_000
    S = np.empty((n, 1))
    D = np.empty((n, 1), np.int64)
    tops = np.empty(n, np.int64)
    _, layers = eng._layers_at(j)
    tilt_split_states(layers, top, P, np.uint64(7), 0, n, 2, 1, S, D, tops, (cw, ms))
    counts = np.bincount(tops, minlength=top - P + 1)
    keep = expected * n >= 5
    rest = [counts[~keep].sum()] if (~keep).any() else []
    rest_e = [expected[~keep].sum() * n] if (~keep).any() else []
    obs = np.r_[counts[keep], rest]
    exp_ = np.r_[expected[keep] * n, rest_e]
    assert stats.chisquare(obs, exp_ * obs.sum() / exp_.sum()).pvalue > 1e-4


def test_the_self_normalized_mean_and_its_error():
    """The summary the estimate reads: R = sum(w c) / sum(w) with each draw's weight looked up
    by its last positive's offset (clipped into the table), and the standard error of R by the
    delta method, against both formulas written as plain loops."""
    from pranker._numba.selfnorm import selfnorm_summary

    rng = np.random.default_rng(4)
    n = 500
    c = rng.exponential(size=n) * (rng.random(n) < 0.3)
    inv = rng.uniform(0.2, 1.0, 12)
    base, last = 40, 6  # sizes beyond offset base + last weigh nothing
    top = rng.integers(30, 52, size=n)
    num = den = 0.0
    weights = []
    for ci, d in zip(c, top, strict=True):
        wi = 0.0 if d - base > last else inv[max(int(d) - base, 0)]
        weights.append(wi)
        num += wi * ci
        den += wi
    ratio = num / den
    var = 0.0
    for ci, wi in zip(c, weights, strict=True):
        var += (wi * (ci - ratio)) ** 2
    se = math.sqrt(var) / den
    total, r, sd = selfnorm_summary(c, top, inv, base, last)
    assert total == pytest.approx(den, rel=1e-12)
    assert r == pytest.approx(ratio, rel=1e-12)
    assert sd / math.sqrt(n) == pytest.approx(se, rel=1e-12)  # the draw loop's rse * R
    assert selfnorm_summary(c, top, np.zeros(12), base, last) == (0.0, 0.0, 0.0)  # no weight
    assert selfnorm_summary(c, top, inv, base, -20) == (0.0, 0.0, 0.0)  # no draw within
