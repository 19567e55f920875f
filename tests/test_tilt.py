"""The exact-tilt tail engine against independent oracles.

Oracles: exhaustive enumeration of every placement (exact fractions or plain
float sums written here), plain Monte Carlo with numpy's own generator, the
closed-form null moments, and the saddlepoint as a deep-tail cross-check.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from pranker import null_distribution, null_params, pranker, pranker_many, significance_from_ap
from pranker.null.distributions import TiltNull
from pranker.null.tilt import TiltEngine


# ----------------------------------------------------------------- oracles
def all_sums(N, P):
    """S = sum_k k / r_k for every placement (float64, plain loops over combinations)."""
    return np.array(
        [
            sum((k + 1) / r for k, r in enumerate(c))
            for c in itertools.combinations(range(1, N + 1), P)
        ]
    )


def all_sums_fast(N, P):
    """The same for larger C(N, P), vectorised over the combinations."""
    c = np.array(list(itertools.combinations(range(1, N + 1), P)), dtype=np.float64)
    return (np.arange(1, P + 1) / c).sum(axis=1)


def exact_sf(sums, s):
    """P(S >= s) with the package's tie convention (1e-12 relative)."""
    return np.count_nonzero(sums >= s * (1 - 1e-12)) / sums.size


def numpy_null_sums(N, P, draws, seed):
    """Plain Monte Carlo: uniform P-subsets from numpy's generator (argpartition of keys)."""
    rng = np.random.default_rng(seed)
    out = []
    k = np.arange(1, P + 1)
    for start in range(0, draws, 5000):
        b = min(5000, draws - start)
        ranks = np.sort(np.argpartition(rng.random((b, N)), P, axis=1)[:, :P], axis=1) + 1
        out.append((k / ranks).sum(axis=1))
    return np.concatenate(out)


# ----------------------------------------------------------------- the CGF
@pytest.mark.parametrize("N,P", [(8, 3), (12, 5), (14, 7), (13, 2), (10, 9)])
def test_cgf_and_its_derivatives_equal_enumeration(N, P):
    S = all_sums(N, P)
    eng = TiltEngine(N, P)
    for phi in (-800.0, -7.0, -0.5, 0.0, 0.3, 2.0, 15.0, 80.0, 650.0, 2000.0):
        K, K1, K2 = eng.cgf(phi)
        top = (phi * S).max()
        w = np.exp(phi * S - top)
        want_K = top + math.log(w.sum()) - math.log(S.size)
        mean = (w * S).sum() / w.sum()
        var = (w * (S - mean) ** 2).sum() / w.sum()
        assert K == pytest.approx(want_K, rel=1e-11, abs=1e-11), phi
        assert K1 == pytest.approx(mean, rel=1e-11), phi
        assert K2 == pytest.approx(var, rel=1e-7, abs=1e-13 * P * P), phi


def test_cgf_at_zero_gives_the_closed_form_moments():
    # exact fractions for the enumeration; the closed forms of null_params
    for N, P in [(9, 4), (11, 3), (14, 6)]:
        S = [
            sum(Fraction(k + 1, r) for k, r in enumerate(c))
            for c in itertools.combinations(range(1, N + 1), P)
        ]
        mean = sum(S) / len(S)
        var = sum((x - mean) ** 2 for x in S) / len(S)
        K, K1, K2 = TiltEngine(N, P).cgf(0.0)
        assert abs(K) < 1e-13
        assert K1 == pytest.approx(float(mean), rel=1e-13)
        assert K2 == pytest.approx(float(var), rel=1e-11)
    for N, P in [(10**5, 100), (3000, 1500), (10**4, 7)]:
        m, v = null_params(N, P)
        _, K1, K2 = TiltEngine(N, P).cgf(0.0)
        assert K1 / P == pytest.approx(m, rel=1e-12)
        assert K2 / P**2 == pytest.approx(v, rel=1e-9)


# ----------------------------------------------------------------- p-values
@pytest.mark.slow
def test_pvalues_against_exhaustive_enumeration_every_small_case():
    """Every N <= 14 (P from 2 to N - 1 in steps): the tilt estimate is within 4.5 of its
    standard errors of the exact fraction, and the exact method equals it."""
    worst = 0.0
    checked = exact_p2 = 0
    for N in range(4, 15):
        for P in sorted({2, N // 2, N - 2}):
            if not 2 <= P < N:
                continue
            S = all_sums(N, P)
            vals = np.unique(np.round(S, 12))
            for q in (0.5, 0.9, 0.99, 0.999):
                s = float(vals[min(int(q * vals.size), vals.size - 1)])
                p = exact_sf(S, s)
                ap = s / P
                est = TiltNull(N, P).pvalue(ap)
                if est.method == "exact":  # the top of the support is closed-form
                    assert est.pvalue == pytest.approx(p, rel=1e-12)
                    continue
                if est.pvalue_rse == 0.0:
                    # only with P = 2 at a tilted grid point: both positives are summed
                    # out exactly, no randomness is left
                    assert P == 2
                    assert est.pvalue == pytest.approx(p, rel=1e-12)
                    exact_p2 += 1
                    continue
                z = (est.pvalue - p) / (p * est.pvalue_rse)
                worst = max(worst, abs(z))
                assert abs(z) < 4.5, (N, P, q, p, est)
                assert est.pvalue_rse <= 0.02
                ex = null_distribution(N, P, "exact").pvalue(ap)
                assert ex.pvalue == pytest.approx(p, rel=1e-12)
                checked += 1
    assert checked > 45 and worst > 0.0 and exact_p2 > 5 and checked + exact_p2 > 60


@pytest.mark.parametrize("N,P", [(60, 4), (40, 5)])
def test_deep_tail_counts_beyond_small_n(N, P):
    S = all_sums_fast(N, P)
    srt = np.sort(S)
    null = TiltNull(N, P)
    for depth in (1e-2, 1e-3, 1e-4, 3e-5):
        s = float(srt[int((1 - depth) * S.size)])
        p = exact_sf(S, s)
        est = null.pvalue(s / P)
        if est.method == "exact":
            continue
        assert abs(est.pvalue - p) < 4.5 * p * est.pvalue_rse, (depth, p, est)
        lo, hi = est.pvalue_interval
        assert lo < est.pvalue < hi


@pytest.mark.slow
def test_plain_monte_carlo_where_p_is_not_small():
    N, P = 300, 10
    S = numpy_null_sums(N, P, 200_000, seed=1)
    null = TiltNull(N, P)
    for q in (0.5, 0.9, 0.99, 0.998):
        s = float(np.quantile(S, q))
        p_mc = np.mean(S >= s * (1 - 1e-12))
        se_mc = math.sqrt(p_mc * (1 - p_mc) / S.size)
        est = null.pvalue(s / P)
        tol = 4.5 * math.hypot(se_mc, est.pvalue * est.pvalue_rse)
        assert abs(est.pvalue - p_mc) < tol, (q, p_mc, est)


@pytest.mark.slow
def test_random_looking_ranking_at_large_n_is_not_declared_significant():
    # N = 1e5, P = 100, AP = 0.01: the two-moment beta says ~1e-12; the truth is ~1.0e-3
    # (Monte Carlo here with the package's uniform-subset sampler, 3e5 draws)
    from pranker.null import null_ap_samples

    N, P, ap = 10**5, 100, 0.01
    draws = null_ap_samples(N, P, 300_000, seed=11)
    p_mc = np.mean(draws >= ap * (1 - 1e-12))
    est = significance_from_ap(ap, N, P)
    assert est.method == "tilt"
    se = math.sqrt(p_mc / draws.size)
    assert abs(est.pvalue - p_mc) < 4.5 * math.hypot(se, est.pvalue * est.pvalue_rse)
    assert 5e-4 < est.pvalue < 2e-3
    beta = significance_from_ap(ap, N, P, method="beta")
    assert beta.pvalue < 1e-9  # the beta's error, kept as R has it


@pytest.mark.slow
def test_far_tail_in_log_space_with_saddlepoint_cross_check():
    N, P = 5000, 200
    for ap in (0.2, 0.5, 0.9):
        est = significance_from_ap(ap, N, P)
        sp = significance_from_ap(ap, N, P, method="saddlepoint")
        assert est.method == "tilt" and sp.method == "saddlepoint"
        assert math.isfinite(est.log10_pvalue)
        # Lugannani-Rice is accurate to ~1 % for P this large
        assert abs(est.log10_pvalue - sp.log10_pvalue) < 0.03, (
            ap,
            est.log10_pvalue,
            sp.log10_pvalue,
        )
    deep = significance_from_ap(0.99, N, P)
    assert deep.pvalue == 0.0 and deep.log10_pvalue < -330  # below float64, kept in logs
    sp = significance_from_ap(0.99, N, P, method="saddlepoint")
    assert abs(deep.log10_pvalue - sp.log10_pvalue) < 0.03
    lo, hi = deep.pvalue_interval  # linear ends underflow too; the log ends do not
    assert lo == hi == 0.0
    # the top of the support: only the perfect ranking, exactly 1 / C(N, P)
    top = significance_from_ap(1.0, N, P)
    assert top.method == "exact"
    want = -(math.lgamma(N + 1) - math.lgamma(P + 1) - math.lgamma(N - P + 1)) / math.log(10)
    assert top.log10_pvalue == pytest.approx(want, rel=1e-12)


@pytest.mark.slow
def test_interval_for_p_covers_the_truth_95_percent_of_the_time():
    """200 seeded repetitions at a p-value known exactly by enumeration."""
    N, P = 40, 5
    S = all_sums_fast(N, P)
    s = float(np.sort(S)[int((1 - 2e-4) * S.size)])
    p = exact_sf(S, s)
    hits = 0
    for seed in range(200):
        est = TiltNull(N, P, seed=seed).pvalue(s / P)
        lo, hi = est.pvalue_interval
        hits += lo <= p <= hi
    assert 0.92 <= hits / 200 <= 0.98, hits


def test_same_call_same_number_and_seed_recorded():
    a = significance_from_ap(0.3, 2000, 30)
    b = significance_from_ap(0.3, 2000, 30)
    assert a == b and a.seed is not None and a.n_draws >= 4096
    c = significance_from_ap(0.3, 2000, 30, seed=7)
    assert c.seed == 7 and c.pvalue != a.pvalue
    assert abs(math.log(c.pvalue / a.pvalue)) < 5 * math.hypot(a.pvalue_rse, c.pvalue_rse)


def test_rtol_is_met_and_costs_more_draws():
    loose = significance_from_ap(0.2, 3000, 40, rtol=0.05)
    tight = significance_from_ap(0.2, 3000, 40, rtol=0.01)
    assert loose.pvalue_rse <= 0.05 and tight.pvalue_rse <= 0.01
    assert tight.n_draws > loose.n_draws


def test_every_entry_point_gives_the_same_default_answer(tmp_path):
    rng = np.random.default_rng(3)
    N, P = 1500, 25
    y = np.zeros(N, dtype=bool)
    y[rng.choice(N, P, replace=False)] = True
    s = rng.standard_normal(N) + 1.5 * y
    ref = pranker(s, y)
    assert ref.method == "tilt"
    assert significance_from_ap(ref.auprc, N, P) == ref  # what pranker() itself calls
    # other code paths: the same answer to 1e-12 relative (the last bits may differ)
    many = pranker_many(np.vstack([s, s[::-1]]), np.vstack([y, y[::-1]]))
    assert many.log10_pvalue[0] == pytest.approx(ref.log10_pvalue, rel=1e-12)
    assert many.pvalue_rse[0] == pytest.approx(ref.pvalue_rse, rel=1e-12)
    from pranker.chunked import pranker_chunked

    ch = pranker_chunked(s, y, chunk_size=200)
    assert ch.log10_pvalue == pytest.approx(ref.log10_pvalue, rel=1e-12)
    assert ch.method == ref.method
    dask = pytest.importorskip("dask.array")
    from pranker.dask import pranker as dask_pranker

    dk = dask_pranker(dask.from_array(s, chunks=300), y, scheduler="sync")
    assert dk.log10_pvalue == pytest.approx(ref.log10_pvalue, rel=1e-12)


def test_lower_tail_and_quantiles_of_the_tilted_null():
    N, P = 14, 6
    S = all_sums(N, P)
    null = TiltNull(N, P)
    for q in (0.001, 0.01, 0.2):
        s = float(np.quantile(S, q))
        want = np.mean(S <= s * (1 + 1e-12))
        got = null.cdf(s / P)
        assert got == pytest.approx(want, rel=0.1), q
    lo, hi = null.interval(0.9)
    inside = np.mean((S / P >= lo) & (S / P <= hi))
    assert 0.85 < inside < 0.95  # saddlepoint quantiles of a discrete null at N = 14


@pytest.mark.parametrize("N,P,ap", [(20000, 4, 0.6), (5000, 6, 0.5)])
def test_few_positives_among_many_items_deep_tail(N, P, ap):
    """A very skewed null (K' near the top of the support at small tilts): the tilt
    still reaches the tail, checked against the exact tail count."""
    from pranker.null.exact import exact_pvalue

    est = significance_from_ap(ap, N, P)
    truth = exact_pvalue(ap, N, P)
    assert est.method == "tilt" and truth < 1e-8
    assert abs(est.pvalue - truth) < 4.5 * truth * est.pvalue_rse


def test_saddlepoint_stays_a_probability_near_the_mean_and_the_top():
    from pranker.null.distributions import SaddlepointNull

    near_mean = SaddlepointNull(1000, 5).pvalue(0.011)  # just below the null mean
    assert -1.0 < near_mean.log10_pvalue <= 0.0
    top = SaddlepointNull(10_000, 1000).pvalue(0.9040102372445095)  # degenerate tilted law
    assert math.isfinite(top.log10_pvalue) and top.log10_pvalue < -900


@pytest.mark.slow
def test_saddle_point_found_where_the_tilted_law_changes_mode():
    """N = 1e5, P = 100, AP near 1/P: S = P AP moves from below 1/2 (no positive at
    rank 1) to at least 1 (one there) over a short range of the tilt, and a
    search that stalled there returned p = 1e-94 for a true 1e-3. The saddle
    point must solve K'(phi) = s, and the p-value stay within a factor of 5 of
    plain Monte Carlo (1e5 null draws: about 100 above the threshold, +-20 %)."""
    from pranker.null import null_ap_samples
    from pranker.null.distributions import SaddlepointNull

    N, P = 100_000, 100
    eng = TiltEngine(N, P)
    samples = null_ap_samples(N, P, 100_000, seed=3)
    for ap in (0.0098, 0.0100, 0.0102):
        s = ap * P
        phi, _, k2 = eng.saddle(s)
        _, k1, _ = eng.cgf(phi)
        assert abs(k1 - s) <= 1e-6 * math.sqrt(k2)
        mc = np.mean(samples >= ap)
        assert 50 / 100_000 < mc < 200 / 100_000
        sp = SaddlepointNull(N, P).pvalue(ap).pvalue
        assert mc / 5 < sp < 5 * mc


def test_significance_from_ap_refuses_what_is_not_an_ap():
    for bad in (1.5, -0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="auprc must be a finite number in"):
            significance_from_ap(bad, 100, 10)


@pytest.mark.parametrize("N,P", [(40, 5), (26, 9), (60, 3)])
def test_first_positive_summed_out_both_tails(N, P):
    """The estimator that sums the first positive out, at a fixed grid point, upper and lower
    tails, against enumeration: within 4.5 of its standard errors."""
    S = all_sums_fast(N, P)
    srt = np.sort(S)
    e = TiltEngine(N, P, seed=11)
    for q in (0.6, 0.9, 0.99, 0.999, 0.9999):
        s = float(srt[int(q * S.size)])
        est = e.tail(s)
        p = float(np.mean(S >= s * (1 - 1e-12)))
        assert abs(10**est.log10_pvalue - p) < 4.5 * p * est.rse + 1e-300, (q, p, est)
    for q in (0.4, 0.1, 0.01, 0.001):
        s = float(srt[int(q * S.size)])
        est = e.tail(s, upper=False)
        p = float(np.mean(S <= s * (1 + 1e-12)))
        assert abs(10**est.log10_pvalue - p) < 4.5 * p * est.rse, (q, p, est)


@pytest.mark.slow
@pytest.mark.parametrize("N,P,n_plans", [(24, 12, 3), (26, 18, 4)])
def test_every_split_plan_against_enumeration_both_tails(monkeypatch, N, P, n_plans):
    """N = 24, P = 12 and N = 26, P = 18 (all 2.7 and 1.6 million placements enumerated):
    each candidate way of drawing (the top two positives summed out; positives 3 .. k0
    re-drawn M times per draw), forced in turn, gives upper and lower tails within 4.5 of
    its standard errors of the exact fraction, at the grid point the threshold picks. At
    P = 12 the top tenth and fifth round to the same plan, listed once."""
    S = all_sums_fast(N, P)
    srt = np.sort(S)
    plans = TiltEngine(N, P).split_plans()
    assert len(plans) == n_plans == len(set(plans))
    assert plans[0] == (2, 1) and all(M > 1 for _, M in plans[1:])
    seen = 0
    for plan in plans:
        e = TiltEngine(N, P, seed=5)
        monkeypatch.setattr(e, "_split_plan", lambda *a, plan=plan: plan)
        for q in (0.7, 0.99, 0.9999):
            s = float(srt[int(q * S.size)])
            est = e.tail(s)
            p = float(np.mean(S >= s * (1 - 1e-12)))
            assert est.phi > 0 and est.rse > 0
            assert abs(10**est.log10_pvalue - p) < 4.5 * p * est.rse, (plan, q, p, est)
            seen += 1
        for q in (0.2, 0.01, 0.0001):
            s = float(srt[int(q * S.size)])
            est = e.tail(s, upper=False)
            p = float(np.mean(S <= s * (1 + 1e-12)))
            assert abs(10**est.log10_pvalue - p) < 4.5 * p * est.rse, (plan, q, p, est)
    assert seen == 3 * n_plans


def test_the_pilot_picks_the_split_where_it_pays():
    """N = 5,000, P = 500: at the null mean + 9 sd the top positives carry the variance and
    the pilot re-draws them (relative variance times cost measured 3.6 times lower); at
    + 130 sd (p ~ 1e-290) the top 100 positives are pinned and it does not pick
    k0 = P / 10. Either way the estimate meets 2 % rse."""
    N, P = 5000, 500
    e = TiltEngine(N, P)
    mild = e.mean_s + 9 * e.sd_s
    assert e._split_plan(e.grid_index(mild), True) != (2, 1)
    deep = e.mean_s + 130 * e.sd_s
    assert e._split_plan(e.grid_index(deep), True) != (50, 8)
    est = e.tail(mild)
    assert est.rse <= 0.02 and est.n_draws <= 16384


def test_first_positive_summed_out_cuts_the_variance_with_few_positives():
    """N = 10^5, P = 10 at the null mean + 3 sd: the relative variance per draw of plain
    tilting was ~240 (measured); with the first positive summed out it is a few units, so
    the default stops at its first 4,096 or 8,192 draws."""
    from pranker.null.moments import null_params

    N, P = 100_000, 10
    par = null_params(N, P)
    s = P * (par.mean + 3 * math.sqrt(par.var))
    e = TiltEngine(N, P)
    j = e.grid_index(s, 1)
    _, w = e._contributions(s, j, 16384, True)
    assert w.var() / w.mean() ** 2 < 10.0
    est = e.tail(s)
    assert est.rse <= 0.02 and est.n_draws <= 8192


@pytest.mark.parametrize("N,P", [(300, 30), (3000, 300), (20_000, 5)])
def test_grid_index_is_the_first_edge_past_the_threshold_however_searched(N, P):
    """The grid point of a threshold is the first cell whose upper edge has K' above it
    (below it, lower tail): against a plain scan of the edges, for a fresh engine (a first
    guess, then galloping) and for one that has seen other thresholds (bisection between
    cached edges), in both tails."""
    rng = np.random.default_rng(N + P)
    warm = TiltEngine(N, P)
    climbing = TiltEngine(N, P)  # thresholds in increasing order: galloping up from the cache
    scan = TiltEngine(N, P)  # its cached edges are only read in order
    s_min = sum(k / (N - P + k) for k in range(1, P + 1))
    zs = np.r_[rng.uniform(0.05, 40, 12), -rng.uniform(0.2, 3, 4)]
    for z in np.sort(zs[zs > 0]):
        s = min(climbing.mean_s + z * climbing.sd_s, P * (1 - 1e-9))
        j = 0
        while scan._k1_edge(j, 1) <= s:
            j += 1
        assert climbing.grid_index(s, 1) == j, (z, j)
    for z in zs:
        s = min(warm.mean_s + z * warm.sd_s, P * (1 - 1e-9))
        sign = 1 if z > 0 else -1
        if sign < 0 and s <= s_min * 1.01:
            continue
        j = 0
        while (scan._k1_edge(j, sign) <= s) if sign > 0 else (scan._k1_edge(j, sign) >= s):
            j += 1
        assert TiltEngine(N, P).grid_index(s, sign) == j, (z, j)
        assert warm.grid_index(s, sign) == j, (z, j)


@pytest.mark.parametrize("N,P", [(1000, 20), (10_000, 90)])
def test_threshold_far_past_the_cached_edges_is_found_from_the_highest_one(N, P):
    """Rankings visited in increasing AP: a threshold many cells past every cached edge is
    located by Newton steps from the highest one (no fresh saddle search), and it is the
    first cell whose upper edge has K' above it (a plain scan of the edges)."""
    e = TiltEngine(N, P)
    scan = TiltEngine(N, P)
    e.grid_index(e.mean_s + 0.5 * e.sd_s, 1)  # the cache: edges around half a sd

    def no_fresh_search(*args, **kwargs):
        raise AssertionError("a fresh saddle search past the cached edges")

    e.saddle = no_fresh_search
    for z in (1.0, 3.0, 8.0, 20.0):
        s = min(e.mean_s + z * e.sd_s, P * (1 - 1e-9))
        j = 0
        while scan._k1_edge(j, 1) <= s:
            j += 1
        assert e.grid_index(s, 1) == j, (z, j)


def test_split_states_kept_shared_or_redrawn_give_the_same_numbers(monkeypatch):
    """A threshold's estimate is the same whether its draws' states were kept (and shared
    with an earlier threshold of the same cell) or redrawn past the memory budget: the same
    streams, the same arithmetic, bit for bit."""
    import pranker.null.tilt as tilt_module

    N, P = 2000, 60
    fresh = TiltEngine(N, P)
    s1 = fresh.mean_s + 6 * fresh.sd_s
    s2 = s1 * (1 + 1e-4)  # the same cell of the grid
    assert fresh.grid_index(s1) == fresh.grid_index(s2)
    want = fresh.tail(s2, rtol=0.004)
    assert want.n_draws > 8192  # past the small budget below
    shared = TiltEngine(N, P)
    shared.tail(s1, rtol=0.004)
    got_shared = shared.tail(s2, rtol=0.004)
    monkeypatch.setattr(tilt_module, "_STATE_BUDGET", 1)  # keep one chunk's states only
    redrawn = TiltEngine(N, P)
    got_redrawn = redrawn.tail(s2, rtol=0.004)
    for got in (got_shared, got_redrawn):
        assert (got.log10_pvalue, got.rse, got.n_draws) == (
            want.log10_pvalue,
            want.rse,
            want.n_draws,
        )


def test_only_the_engine_in_use_keeps_its_tables():
    """A loop over rankings of different sizes holds one engine's layers and draws, not
    eight: switching to another (N, P) frees the previous engine's tables (its cheap CGF
    values stay), and the numbers do not change."""
    from pranker.null.tilt import tilt_engine

    a = tilt_engine(3000, 40)
    s = a.mean_s + 5 * a.sd_s
    first = a.tail(s)
    assert a._layers is not None and a._draws
    edges = dict(a._k1_cache)
    b = tilt_engine(2500, 45)
    b.tail(b.mean_s + 5 * b.sd_s)
    assert a._layers is None and not a._draws  # freed
    assert a._k1_cache == edges  # kept
    again = tilt_engine(3000, 40)
    assert again is a and b._layers is None
    assert again.tail(s) == first  # redrawn from the same streams


# ----------------------------------------------------- cells grouped near the bulk
def _block_middle(j, m):
    b = 3**m
    return b * (j // b) + (b - 1) // 2


@pytest.mark.parametrize("N,P", [(1000, 20), (20_000, 5), (3000, 300)])
def test_sampling_point_is_the_middle_of_the_widest_narrow_block(N, P):
    """The grid point that estimates a threshold is its own cell, or the middle of the
    aligned block of 3^m cells around it, m the largest (at most 4) for which 3^m cells as
    wide as its own span at most 0.5 tilted standard deviations (1.0 for problems of at
    most 2^17 cells); restated here from the tilted variances at the cell's edges (the CGF
    is checked against enumeration above)."""
    e = TiltEngine(N, P)
    width = 1.0 if P * (N - P + 1) <= 2**17 else 0.5
    merged = kept = 0
    for z in np.linspace(0.2, 12.0, 40):
        s = e.mean_s + z * e.sd_s
        if s >= P * 0.99:
            break
        j = e.grid_index(s, 1)
        r = e.sampling_point(s, 1)
        if j == 0:
            assert r == 0
            continue
        lo_phi, hi_phi = e.grid_phi(j - 0.5), e.grid_phi(j + 0.5)
        sd = math.sqrt(max(e.cgf(lo_phi)[2], e.cgf(hi_phi)[2]))
        tau = (hi_phi - lo_phi) * sd
        m = max([0] + [m for m in range(1, 5) if 3**m * tau <= width])
        assert r == (_block_middle(j, m) if m else j), (z, j, r, tau)
        merged += r != j
        kept += r == j
    assert merged > 0  # near the bulk cells are grouped ...
    if P <= 20:
        assert kept > 0  # ... deep in the tail they keep their own draws


@pytest.mark.parametrize("N,P", [(40, 5), (30, 6)])
def test_grouped_cells_against_enumeration(N, P):
    """Thresholds whose cell is grouped (estimated at another grid point's tilt) stay
    unbiased: against every placement enumerated, within 4.5 standard errors, and the
    estimate reports the tilt of the block's middle."""
    S = all_sums_fast(N, P)
    srt = np.sort(S)
    e = TiltEngine(N, P, seed=5)
    checked = 0
    for q in np.linspace(0.55, 0.9995, 30):
        s = float(srt[int(q * S.size)])
        j, r = e.grid_index(s, 1), e.sampling_point(s, 1)
        if r == j:
            continue
        est = e.tail(s)
        p = float(np.mean(S >= s * (1 - 1e-12)))
        assert est.phi == pytest.approx(e.grid_phi(r), rel=1e-12)
        assert abs(10**est.log10_pvalue - p) < 4.5 * p * est.rse, (q, p, est)
        checked += 1
    assert checked >= 5


def test_grouped_thresholds_share_draws_and_do_not_depend_on_order():
    """Two thresholds in different cells of one block share the block's draws (one set of
    states kept), and a threshold's answer is the same from a fresh engine and from one
    that has answered the other threshold first (bit for bit)."""
    N, P = 1000, 20
    e = TiltEngine(N, P)
    pairs = []
    for z in np.linspace(0.3, 3.0, 60):
        s = e.mean_s + z * e.sd_s
        pairs.append((s, e.grid_index(s, 1), e.sampling_point(s, 1)))
    found = [
        (a, b)
        for a, b in itertools.combinations(pairs, 2)
        if a[2] == b[2] and a[1] != b[1] and a[2] > 0
    ]
    assert found
    (s1, _, r), (s2, _, _) = found[0]
    warm = TiltEngine(N, P)
    first = warm.tail(s1)
    second = warm.tail(s2)
    states = [k for k in warm._draws if isinstance(k, tuple) and k[0] == "states"]
    assert len(states) == 1 and states[0][1] == r
    for s, got in ((s1, first), (s2, second)):
        want = TiltEngine(N, P).tail(s)
        assert (got.log10_pvalue, got.rse, got.n_draws) == (
            want.log10_pvalue,
            want.rse,
            want.n_draws,
        )


@pytest.mark.parametrize("N, P", [(12, 4), (30, 5)])
def test_engine_tail_at_the_top_of_the_support_is_exact(N, P):
    """At S = P (AP = 1) and between the second largest S and P only the perfect ranking
    counts: p = 1 / C(N, P), counted here over every placement (it raised ZeroDivisionError)."""
    sums = [
        sum((k + 1) / r for k, r in enumerate(c))
        for c in itertools.combinations(range(1, N + 1), P)
    ]
    second = sorted(set(round(x, 12) for x in sums))[-2]
    eng = TiltEngine(N, P)
    for s in (float(P), 0.5 * (second + P)):
        want = sum(x >= s * (1 - 1e-12) for x in sums) / math.comb(N, P)
        est = eng.tail(s)
        assert want == 1 / math.comb(N, P)
        assert est.rse == 0.0 and est.n_draws == 0
        assert est.log10_pvalue == pytest.approx(math.log10(want), abs=1e-12)


def test_loose_rtol_first_batch_against_enumeration():
    """With a loose target the estimate starts from a smaller first batch: it stays within
    4.5 of its own standard errors of every placement enumerated, reports an rse at or
    below the target, and stops after that batch where the variance allows."""
    N, P = 30, 6
    S = all_sums_fast(N, P)
    srt = np.sort(S)
    e = TiltEngine(N, P, seed=11)
    first = []
    for q in (0.6, 0.9, 0.99, 0.999, 0.9999, 0.99999):
        s = float(srt[int(q * S.size)])
        est = e.tail(s, rtol=0.1)
        p = float(np.mean(S >= s * (1 - 1e-12)))
        assert est.rse <= 0.1
        assert abs(10**est.log10_pvalue - p) < 4.5 * p * est.rse, (q, p, est)
        first.append(est.n_draws)
    assert min(first) < 4096  # the loose target's first batch answered some thresholds


def test_loose_rtol_interval_covers_the_truth():
    """The 95 % interval from the smaller first batch covers the enumerated p about
    95 % of the time (100 seeds; binomial 4-sigma band)."""
    N, P = 26, 5
    S = all_sums_fast(N, P)
    s = float(np.sort(S)[int((1 - 1e-3) * S.size)])
    p = exact_sf(S, s)
    hits, draws = 0, []
    for seed in range(100):
        est = TiltEngine(N, P, seed=seed).tail(s, rtol=0.1)
        lo, hi = (10.0**v for v in est.log10_interval)
        hits += lo <= p <= hi
        draws.append(est.n_draws)
    assert 0.95 - 4 * math.sqrt(0.95 * 0.05 / 100) <= hits / 100, hits
    assert min(draws) < 4096


def test_the_draw_schedule():
    """After n draws at relative standard error rse, the next size aims 10 % past the
    n (rse / rtol)^2 draws the measured variance asks for, in whole steps of a quarter of
    the first batch (1,024 draws; 256 from rtol 0.04 on), growing by at least a quarter and
    at most 8-fold, doubling while nothing hit, never past max_draws; the first batch is
    4,096 draws (1,024 from rtol 0.04 on)."""
    from pranker.null.choice import first_draws, next_draws

    assert first_draws(0.02) == 4096 and first_draws(0.01) == 4096
    assert first_draws(0.04) == 1024 and first_draws(0.1) == 1024
    rng = np.random.default_rng(11)
    for _ in range(2000):
        rtol = float(rng.choice([0.005, 0.01, 0.02, 0.05, 0.1]))
        n = int(rng.integers(1, 200)) * 1024
        rse = float(rng.uniform(0.0, 6.0) * rtol)
        cap = int(rng.choice([1 << 20, 1 << 30]))
        got = next_draws(n, rse, rtol, cap)
        step = 1024 if rtol < 0.04 else 256
        aim = math.ceil(1.1 * n * (rse / rtol) ** 2 / step) * step
        assert got == min(cap, min(8 * n, max(aim, n + n // 4, n + step)))
    assert next_draws(4096, math.inf, 0.02, 1 << 20) == 8192
    assert next_draws(4096, math.inf, 0.02, 6000) == 6000
