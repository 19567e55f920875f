"""The compressed tilted proposal (pranker.null.compressed) against independent oracles.

Oracles: exhaustive enumeration of every placement in exact fractions (written
here from the definition S = sum_k k / r_k), the exact-tilt engine (a different
proposal: the exactly tilted law, without integrating out the first positive),
plain Monte Carlo from numpy's own generator, and the closed-form null mean.
The compressed engine is forced with coarse knots (few knots, so the
compression really happens) wherever a small case is enumerated.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import pranker
import pranker.null.compressed as compressed_module
from pranker.null.choice import EXACT_TABLE_CELLS
from pranker.null.tilt import TiltEngine

LN10 = math.log(10.0)


# ----------------------------------------------------------------- oracles
def exact_sums(N, P):
    """S = sum_k k / r_k for every P-subset of 1..N, as exact fractions (plain loops)."""
    out = []
    for ranks in itertools.combinations(range(1, N + 1), P):
        s = Fraction(0)
        for k, r in enumerate(ranks, start=1):
            s += Fraction(k, r)
        out.append(s)
    return out


def exact_tail(sums, s, upper=True):
    """P(S >= s) (``upper``) or P(S <= s), exactly, by counting subsets."""
    hits = sum(1 for x in sums if (x >= s if upper else x <= s))
    return Fraction(hits, len(sums))


def z_of(est, p):
    """|log(p_hat / p)| in units of the estimate's relative standard error.

    An estimate with rse 0 (every draw gave the same contribution, as when
    the proposal sits on the one placement that counts) must be exact.
    """
    err = abs(est.log10_pvalue * LN10 - math.log(p))
    if est.rse == 0.0:
        return 0.0 if err <= 1e-9 else math.inf
    return err / est.rse


def z_two(a, b):
    """|log(a / b)| in units of the combined relative standard error of two estimates."""
    return abs(a.log10_pvalue - b.log10_pvalue) * LN10 / math.hypot(a.rse, b.rse)


def numpy_null_sums(N, P, draws, seed):
    """Plain Monte Carlo: uniform P-subsets of 1..N from numpy's generator.

    P ranks drawn independently and uniformly, rows with a repeated rank redrawn
    (rejection: the accepted rows are uniform P-subsets).
    """
    rng = np.random.default_rng(seed)
    k = np.arange(1, P + 1)
    out = []
    need = draws
    while need > 0:
        r = np.sort(rng.integers(1, N + 1, size=(need, P)), axis=1)
        r = r[(np.diff(r, axis=1) > 0).all(axis=1)]
        out.append((k / r).sum(axis=1))
        need -= r.shape[0]
    return np.concatenate(out)


def coarse(N, P, seed, E, eps):
    """The forced-compressed engine with knots ``E, eps``; checks that it compresses."""
    eng = TiltEngine(N, P, seed=seed, compressed=True, knot_start=E, knot_ratio=eps)
    assert eng.compressed and eng._cz is not None
    assert eng._cz.n_knots < N - P + 1, (N, P, E, eps, eng._cz.x)
    return eng


# ------------------------------------------- 1. exact enumeration, N <= 14
# (N, P, knot_start, knot_ratio): every setting leaves fewer knots than offsets
ENUM_CASES = [
    (14, 4, 1, 0.3),
    (14, 4, 2, 0.5),
    (14, 4, 3, 0.5),
    (14, 4, 1, 1.0),
    (13, 6, 2, 0.5),
    (13, 6, 1, 1.0),
    (12, 3, 3, 0.3),
    (12, 3, 2, 0.5),
    (12, 3, 1, 1.0),
    (14, 2, 1, 0.3),
    (14, 2, 6, 0.5),
    (14, 2, 2, 1.0),
    (14, 9, 1, 1.0),
    (14, 9, 2, 1.5),
]
_SUMS: dict = {}


def sums_of(N, P):
    if (N, P) not in _SUMS:
        _SUMS[(N, P)] = exact_sums(N, P)
    return _SUMS[(N, P)]


def interior_thresholds(sums):
    """Attained values of S (ties!) from the body to the deep tails, inside the support."""
    vals = sorted(set(sums))
    n = len(vals)
    picks = {1, 3, n // 10, n // 3, n // 2, (2 * n) // 3, n - 1 - n // 10, n - 4, n - 2}
    return [vals[i] for i in sorted(picks) if 0 < i < n - 1]


@pytest.mark.parametrize("N,P,E,eps", ENUM_CASES)
def test_tails_against_exact_enumeration(N, P, E, eps):
    """Upper and lower tails at attained values of S within 4 rse of the exact count."""
    sums = sums_of(N, P)
    eng = coarse(N, P, 1000 * N + P, E, eps)
    checked = 0
    for s in interior_thresholds(sums):
        for upper in (True, False):
            p = exact_tail(sums, s, upper)
            est = eng.tail(float(s), upper=upper)
            assert 0 < p < 1
            # rse 0: every draw counted its completions exactly (P = 2 counts both positives)
            assert math.isfinite(est.log10_pvalue) and 0.0 <= est.rse <= 0.02, (s, upper, est)
            assert z_of(est, p) <= 4.0, (N, P, E, eps, float(s), upper, float(p), est)
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize(
    "N,P,E,eps",
    [(14, 4, 1, 0.5), (14, 4, 1, 1.0), (13, 6, 2, 0.5), (14, 2, 6, 0.5), (12, 3, 3, 0.3)],
)
def test_edges_of_the_support(N, P, E, eps):
    """At the maximum (only the perfect ranking), above it (p = 0), at and below the minimum.

    ``tail`` needs a threshold inside the support or at its edge (its tilt is
    chosen where the CGF's slope reaches the threshold; the public API answers
    the edges in closed form), so beyond the edges the grid-point estimator is
    called with a given grid point: unbiased at any tilt, it must count no
    placement at all.
    """
    sums = sums_of(N, P)
    vals = sorted(set(sums))
    smin, smax = vals[0], vals[-1]
    assert smax == P  # the perfect ranking
    assert exact_tail(sums, smax) == Fraction(1, math.comb(N, P))
    one = 1.0 / math.comb(N, P)
    eng = coarse(N, P, 7, E, eps)

    # upper tail at the maximum: 1 / C(N, P)
    est = eng.tail(float(smax))
    assert est.rse <= 0.02 and z_of(est, one) <= 4.0, est
    # above it: 0, at the grid point of the second largest value and far beyond it
    j = eng.grid_index(float(vals[-2]))
    for jj in (1, j, j + 300):
        above = eng._estimate(float(smax) * (1 + 1e-9), jj, True, 0.02, 1 << 13, 0.95)
        assert above.log10_pvalue == -math.inf, (jj, above)
        assert above.log10_interval == (-math.inf, -math.inf)

    # upper tail at and below the minimum: every placement
    for s in (float(smin), float(smin) * 0.999, 0.0):
        est = eng.tail(s)
        assert est.log10_pvalue <= 0.0
        assert abs(est.log10_pvalue) * LN10 <= 4.0 * est.rse + 1e-12, (s, est)

    # lower tail at the minimum: its own multiplicity; below it: 0
    p_min = exact_tail(sums, smin, upper=False)
    j = eng.grid_index(float(vals[1]), -1)
    for jj in (j, j + 300):
        est = eng.tail(float(smin), upper=False, index=jj)
        assert z_of(est, p_min) <= 4.0, (jj, est)
        below = eng.tail(float(smin) * (1 - 1e-9), upper=False, index=jj, max_draws=1 << 13)
        assert below.log10_pvalue == -math.inf


def test_checkpointed_rows_against_exact_enumeration(monkeypatch):
    """Tables kept as checkpoints (rows recomputed between them): still the exact count."""
    N, P = 13, 6
    sums = sums_of(N, P)
    monkeypatch.setattr(compressed_module, "TABLE_BYTES", 64)
    eng = coarse(N, P, 99, 2, 0.5)
    assert eng._cz.table_bytes() < 8 * (P + 1) * eng._cz.n_knots  # checkpointed
    for s in interior_thresholds(sums):
        for upper in (True, False):
            p = exact_tail(sums, s, upper)
            est = eng.tail(float(s), upper=upper)
            assert eng._cz._tables[1] == "checkpoints"
            assert z_of(est, p) <= 4.0, (float(s), upper, float(p), est)


# ------------------------------ 2. moderate sizes: against the exact-tilt engine
# AP thresholds chosen (once, beforehand) for p near 1e-3, 1e-10/1e-20, 1e-60
MODERATE = [
    (2000, 5, [(0.2044, -3), (0.666, -10)]),
    (3000, 20, [(0.0635, -3), (0.4574, -20)]),
    (5000, 50, [(0.037, -3), (0.2212, -20), (0.6028, -60)]),
]


@pytest.mark.parametrize("N,P,aps", MODERATE)
def test_moderate_sizes_against_the_exact_tilt_engine(N, P, aps):
    exact = TiltEngine(N, P, seed=11, compressed=False)
    assert not exact.compressed
    default = TiltEngine(N, P, seed=12, compressed=True)
    assert default._cz.n_knots < N - P + 1
    rough = coarse(N, P, 13, 8, 0.2)
    for ap, target in aps:
        s = ap * P
        ref = exact.tail(s)
        assert abs(ref.log10_pvalue - target) < 0.5, (ap, ref)  # near the target depth
        for eng in (default, rough):
            est = eng.tail(s)
            assert est.rse <= 0.02
            assert z_two(est, ref) <= 3.0, (N, P, ap, eng._cz.n_knots, est, ref)


@pytest.mark.parametrize("tables", ["default", "full rows, one tilt", "checkpoints"])
def test_moderate_sizes_each_table_layout_against_the_exact_tilt_engine(tables, monkeypatch):
    """The upper tail by state-dependent tilting (default), and by one grid tilt with the
    rows kept whole or checkpointed (as when the state-dependent tables do not fit)."""
    N, P = 5000, 50
    exact = TiltEngine(N, P, seed=21, compressed=False)
    eng = TiltEngine(N, P, seed=22, compressed=True)
    B = eng._cz.n_knots
    if tables == "full rows, one tilt":
        # room for the rows of one tilt, not for the 8 tilts of the state-dependent proposal
        monkeypatch.setattr(compressed_module, "TABLE_BYTES", 8 * (P + 1) * B)
    elif tables == "checkpoints":
        monkeypatch.setattr(compressed_module, "TABLE_BYTES", 8 * (P + 1) * B // 4)
    for ap in (0.2212, 0.6028):
        ref = exact.tail(ap * P)
        est = eng.tail(ap * P)
        kind = eng._cz._tables[1] if eng._cz._tables is not None else None
        if tables == "default":
            assert eng._cz._sd is not None  # state-dependent tilting was used
        else:
            assert eng._cz._sd is None
            assert kind == ("full" if tables.startswith("full") else "checkpoints")
        assert est.rse <= 0.02 and ref.rse <= 0.02
        assert z_two(est, ref) <= 3.0, (tables, ap, est, ref)


# ------------------------------------------- 3. large N: compressed by default
N_BIG, P_BIG = 10**6, 20


def test_large_n_uses_the_compressed_tilt_by_default():
    assert P_BIG * (N_BIG - P_BIG + 1) > EXACT_TABLE_CELLS
    eng = TiltEngine(N_BIG, P_BIG)
    assert eng.compressed
    for ap in (3.9e-5, 0.001, 0.1):
        res = pranker.significance_from_ap(ap, N_BIG, P_BIG)
        assert res.method == "tilt"
        assert 0.0 < res.pvalue_rse <= 0.02
        lo, hi = res.pvalue_interval
        assert lo <= res.pvalue <= hi


@pytest.mark.parametrize("ap", [3.9e-5, 0.001, 0.1, 0.3])
def test_large_n_two_independent_estimators_agree(ap):
    """Default knots and seed vs knot_start=64, knot_ratio=0.03 and another seed."""
    a = TiltEngine(N_BIG, P_BIG)
    b = TiltEngine(N_BIG, P_BIG, seed=7, compressed=True, knot_start=64, knot_ratio=0.03)
    assert a._cz.n_knots != b._cz.n_knots
    ea, eb = a.tail(ap * P_BIG), b.tail(ap * P_BIG)
    assert ea.rse <= 0.02 and eb.rse <= 0.02
    assert z_two(ea, eb) <= 3.0, (ap, ea, eb)
    pub = pranker.significance_from_ap(ap, N_BIG, P_BIG)
    assert pub.pvalue_rse <= 0.02
    assert abs(pub.log10_pvalue - eb.log10_pvalue) * LN10 <= 3.0 * math.hypot(
        pub.pvalue_rse, eb.rse
    )


def test_large_n_body_against_plain_monte_carlo():
    """p ~ 0.05-0.3: 50,000 uniform rankings from numpy, binomial standard error."""
    S = numpy_null_sums(N_BIG, P_BIG, 50_000, seed=2024)
    eng = TiltEngine(N_BIG, P_BIG)
    # thresholds chosen beforehand (from another seed) for p near 0.2, 0.1, 0.05
    for ap in (3.1e-5, 3.9e-5, 5.1e-5):
        s = ap * P_BIG
        q = float(np.mean(S >= s * (1 - 1e-12)))
        se_q = math.sqrt(q * (1 - q) / S.size)
        assert 0.03 < q < 0.35
        est = eng.tail(s)
        p = 10.0**est.log10_pvalue
        assert abs(p - q) <= 4.0 * math.hypot(se_q, p * est.rse), (ap, q, se_q, est)
        low = eng.tail(s, upper=False)
        q_low = float(np.mean(S <= s * (1 + 1e-12)))
        se_low = math.sqrt(q_low * (1 - q_low) / S.size)
        p_low = 10.0**low.log10_pvalue
        assert abs(p_low - q_low) <= 4.0 * math.hypot(se_low, p_low * low.rse), (ap, q_low, low)


# --------------------------------------------- 4. coverage of the 95 % interval
@pytest.mark.parametrize("upper", [True, False])
def test_interval_coverage_against_the_exact_count(upper):
    N, P = 14, 4
    sums = sums_of(N, P)
    vals = sorted(set(sums))
    s = vals[-40] if upper else vals[15]
    p = exact_tail(sums, s, upper)
    assert 0.002 < p < 0.1
    lp = math.log10(p)
    inside = 0
    for seed in range(200):
        eng = coarse(N, P, seed, 2, 0.5)
        est = eng.tail(float(s), upper=upper, rtol=0.1, conf_level=0.95)
        lo, hi = est.log10_interval
        assert lo < est.log10_pvalue < hi
        inside += lo <= lp <= hi
    assert abs(inside / 200 - 0.95) <= 0.04, inside


# ------------------------------------------------------------ 5. determinism
@pytest.mark.parametrize("upper", [True, False])
def test_same_seed_same_number_other_seed_other_number(upper):
    """Fresh engines: the same seed gives the same bits, another seed another number.

    (The upper tail beyond the mean uses state-dependent tilting, the lower
    tail a grid tilt.)
    """
    N, P = 3000, 20
    s = 0.4574 * P if upper else 0.006 * P  # p ~ 1e-20 and p ~ 0.12

    def run(seed):
        return TiltEngine(N, P, seed=seed, compressed=True).tail(s, upper=upper)

    a, b, c = run(5), run(5), run(6)
    assert a.log10_pvalue == b.log10_pvalue and a.rse == b.rse and a.n_draws == b.n_draws
    assert a.log10_interval == b.log10_interval and a.phi == b.phi != 0.0
    assert c.log10_pvalue != a.log10_pvalue
    assert z_two(a, c) <= 4.0  # and both estimate the same number


# ----------------------------------------------------------------- 6. memory
@pytest.mark.parametrize("P", [1000, 10**5])
def test_tables_stay_small_at_n_1e10(P):
    N = 10**10
    for eng in (TiltEngine(N, P), TiltEngine(N, P, compressed=True)):
        assert eng.compressed
        assert eng._cz.table_bytes() < 130e6
        if P == 1000:
            assert eng._cz.n_knots < 4000
        # the exact tables would hold P (N - P + 1) cells
        assert eng._cz.table_bytes() < 1e-3 * 8 * P * (N - P + 1)
    assert eng._cz._tables is None  # nothing computed yet


# ------------------------------------------------------ 7. the compressed CGF
@pytest.mark.parametrize(
    "N,P,E,eps",
    [(14, 4, 2, 0.5), (5000, 50, None, None), (5000, 50, 8, 0.2), (10**6, 20, None, None)],
)
def test_compressed_cgf_slope_is_monotone_and_bounded(N, P, E, eps):
    eng = TiltEngine(N, P, compressed=True, knot_start=E, knot_ratio=eps)
    smin = sum(k / (N - P + k) for k in range(1, P + 1))  # the lowest placement
    psi = np.geomspace(2.0**-12, 2.0**12, 60)
    phis = np.concatenate([-psi[::-1], [0.0], psi]) / eng.sd_s
    slope = np.array([eng._cz.cgf(float(phi))[1] for phi in phis])
    tol = 1e-9 * P
    assert np.all(np.diff(slope) >= -tol), np.diff(slope).min()
    assert np.all(slope >= smin - tol) and np.all(slope <= P + tol)
    assert slope[-1] > slope[0]


@pytest.mark.parametrize("N,P", [(2000, 5), (5000, 50), (10**6, 20), (10**6, 2), (10**8, 1000)])
def test_compressed_cgf_slope_at_zero_is_the_null_mean(N, P):
    eng = TiltEngine(N, P, compressed=True)  # default knots
    assert eng._cz.n_knots < N - P + 1
    mean_s = pranker.null_params(N, P).mean * P
    _, k1 = eng._cz.cgf(0.0)
    assert k1 == pytest.approx(mean_s, rel=0.01)


@pytest.mark.slow
@pytest.mark.parametrize("N,P,ap", [(10**8, 100, 0.003), (10**8, 100, 0.05), (10**7, 300, 0.02)])
def test_n_1e7_to_1e8_state_dependent_against_one_tilt(N, P, ap, monkeypatch):
    """Two proposals at N = 1e7-1e8: state-dependent tilts (default) and one fixed tilt.

    The thresholds sit at p ~ 1e-5.5, 1e-30 and 1e-27 (measured).
    The one-tilt estimator is forced by asking for more tilts than fit, and
    uses other knots and another seed: the two share no draw and no table.
    """
    a = pranker.significance_from_ap(ap, N, P, max_work=10**13)  # beyond the default budget
    assert a.method == "tilt" and a.pvalue_rse <= 0.02
    monkeypatch.setattr(compressed_module, "SD_MIN_TILTS", 10**9)
    eng = TiltEngine(N, P, seed=11, compressed=True, knot_start=64, knot_ratio=0.02)
    b = eng.tail(ap * P)
    assert eng._cz._sd is None  # no state-dependent tables were built
    assert b.rse <= 0.02
    z = abs(a.log10_pvalue - b.log10_pvalue) * LN10 / math.hypot(a.pvalue_rse, b.rse)
    assert z <= 3.0, (a.log10_pvalue, b.log10_pvalue, a.pvalue_rse, b.rse)


def test_every_entry_point_gives_the_compressed_answer():
    """pranker, pranker_many and pranker_chunked at a size where the compressed proposal is the default."""
    rng = np.random.default_rng(3)
    n, p = 10**6, 20
    y = np.zeros(n, dtype=bool)
    y[rng.choice(n, p, replace=False)] = True
    scores = rng.standard_normal(n) + 3.5 * y
    one = pranker.pranker(scores, y)
    assert one.method == "tilt" and TiltEngine(n, p).compressed
    assert one.log10_pvalue < -3 and 0.0 < one.pvalue_rse <= 0.02
    many = pranker.pranker_many(scores[None, :], y[None, :])
    chunked = pranker.chunked.pranker_chunked(scores, y, chunk_size=2**17)
    for other_log10, other_rse in (
        (many.log10_pvalue[0], many.pvalue_rse[0]),
        (chunked.log10_pvalue, chunked.pvalue_rse),
    ):
        # the same threshold and seed: the same estimate, up to the last bits of the AP
        assert other_log10 == pytest.approx(one.log10_pvalue, rel=1e-9)
        assert other_rse == pytest.approx(one.pvalue_rse, rel=1e-6)


# ------------------------------------- 8. the tilt handed over is on the grid
@pytest.mark.parametrize("J", [2, 8, 9, 28, 40, 41, 61, 62])
def test_tilt_grid_holds_the_saddle_tilt_exactly(J):
    """phi* is one of the J state-dependent tilts, bit for bit, and they span phi* e^-3 .. e^2."""
    for phi_star in (1e-7, 0.37, 11.312293142373862, 1234.5):
        phis = compressed_module.tilt_grid(phi_star, J)
        assert phis.shape == (J,)
        assert np.count_nonzero(phis == phi_star) == 1, (phi_star, J, phis)
        assert np.all(np.diff(phis) > 0.0)
        h = 5.0 / (J - 1)  # log-spacing of the tilts
        assert math.exp(-3.0 - h) <= phis[0] / phi_star <= math.exp(-3.0 + h)
        assert math.exp(2.0 - h) <= phis[-1] / phi_star <= math.exp(2.0 + h)
        steps = np.log(phis[1:] / phis[:-1])
        assert np.allclose(steps, h, rtol=1e-9)


def test_the_upper_tilt_is_a_state_dependent_tilt_with_the_same_tables(monkeypatch):
    """Through TiltEngine.tail: the layers above kc are drawn at phi*, the walk over the
    tilts starts at phi*'s index, and that tilt's tables below kc are those of the fixed tilt."""
    N, P, ap = 10**6, 20, 0.1  # p ~ 1e-9; kc = 12 < P
    seen = []
    kernel = compressed_module.state_dependent_draws

    def spy(tabs, phis, kc, x, thr, j0, *rest):
        seen.append((tabs.copy(), phis.copy(), kc, j0))
        return kernel(tabs, phis, kc, x, thr, j0, *rest)

    monkeypatch.setattr(compressed_module, "state_dependent_draws", spy)
    eng = TiltEngine(N, P)
    est = eng.tail(ap * P)
    assert est.rse <= 0.02 and seen
    phi_star = est.phi
    fixed_phi, kind, rows = eng._cz._tables  # the tables of the layers above kc
    assert kind == "full" and fixed_phi == phi_star
    for tabs, phis, kc, j0 in seen:
        assert 2 <= kc < P
        assert phis[j0] == phi_star and np.count_nonzero(phis == phi_star) == 1
        assert np.array_equal(tabs[j0], rows[: kc + 1])
    # an upper tilt off the grid is refused, naming the function
    phis = seen[0][1]
    off = 0.5 * (phis[10] + phis[11])
    with pytest.raises(ValueError, match="state_dependent.*phi_star"):
        eng._cz.state_dependent(ap * P, phis, seen[0][2], off, (1, 2), 16, 1e-12)


@pytest.mark.parametrize(
    "N,P,ap,most",
    [
        (5000, 50, 0.2212, 8),
        (10**6, 20, 0.1, 8),
        (10**6, 300, 0.0961, 8),
        (10**8, 1000, 0.0201, 8),
        (10**8, 1000, 0.0100101, 8),  # where Khat' is steep: K' doubles within 1 % of phi
        (10**5, 1000, None, 6),  # half an sd above the mean, where the coarse copy's root is 0
        (10**5, 5000, None, 6),
    ],
)
def test_saddle_search_stops_on_the_tilted_mean(N, P, ap, most, monkeypatch):
    """|Khat'(phi*) - s| <= SADDLE_TOL tilted sd, the sd from a central difference of Khat',
    within a few passes on the real knots (the bracket-and-Illinois search before took 22
    at N = 1e5, P = 1e3 and 12 at N = 1e5, P = 5e3, half an sd above the mean)."""
    eng = TiltEngine(N, P, compressed=True)
    cz = eng._cz
    s = ap * P if ap is not None else eng.mean_s + 0.5 * eng.sd_s
    passes = []
    real = cz.cgf
    monkeypatch.setattr(cz, "cgf", lambda phi: passes.append(phi) or real(phi))
    phi = cz.saddle(s, eng.mean_s, eng.sd_s)
    assert 1 <= len(passes) <= most, passes
    k1 = real(phi)[1]
    h = 1e-6 * phi
    k2 = (real(phi + h)[1] - real(phi - h)[1]) / (2.0 * h)
    assert k2 > 0.0
    assert abs(k1 - s) <= compressed_module.SADDLE_TOL * math.sqrt(k2), (k1, s, k2)


@pytest.mark.parametrize(
    "c, target, floor", [(1.0, 3.0, 1e-6), (40.0, 50.0, 1e-6), (0.05, 1.0, 1e-6), (2.0, 0.5, 0.5)]
)
def test_fine_root_on_a_known_convex_slope(c, target, floor):
    """``_fine_root`` on g(phi) = exp(c phi) - target (increasing, convex, Khat' = exp(c phi)):
    its answer meets the stop rule with the true derivative c exp(c phi), or is the floor when
    g(floor) >= 0; a steep g (c = 40: g' grows 40-fold per unit of phi) within a few steps."""
    seen = []

    def g(phi):
        seen.append(phi)
        return math.exp(c * phi) - target

    root = math.log(target) / c
    x = compressed_module._fine_root(g, 0.2 * max(root, floor), math.nan, target, floor, 0.02, 1.0)
    if root <= floor:
        assert x == floor
        return
    gx = math.exp(c * x) - target
    assert abs(gx) <= 0.02 * math.sqrt(c * math.exp(c * x)), (x, root)
    assert len(seen) <= 12, seen


@pytest.mark.parametrize(
    "N,P,E,eps,kc", [(14, 9, 1, 1.0, 3), (14, 9, 1, 1.5, 6), (13, 6, 2, 0.5, 2), (14, 4, 1, 0.3, 2)]
)
def test_hand_over_below_the_top_against_exact_enumeration(N, P, E, eps, kc, monkeypatch):
    """Fixed tilt above layer kc, state-dependent tilts below it: the exact count within 4 rse.

    At these sizes the default hand-over layer is P (no fixed-tilt layer at
    all), so it is moved down to exercise the hand-over.
    """
    monkeypatch.setattr(compressed_module, "handover_layer", lambda s, P: kc)
    sums = sums_of(N, P)
    eng = coarse(N, P, 31 * N + P, E, eps)
    mean = float(sum(sums) / len(sums))
    checked = 0
    for s in interior_thresholds(sums):
        if not float(s) > mean:
            continue
        p = exact_tail(sums, s)
        est = eng.tail(float(s))
        assert eng._cz._sd is not None and eng._cz._sd[0][3] == kc  # state-dependent, kc < P
        assert 0.0 <= est.rse <= 0.02
        assert z_of(est, p) <= 4.0, (N, P, E, eps, kc, float(s), float(p), est)
        checked += 1
    assert checked >= 3


# ------------------------------- 9. one step of the sampler, against its own law
@pytest.mark.parametrize("phi", [-3.0, 0.0, 0.7, 9.0])
def test_each_step_is_an_exactly_normalised_conditional(phi):
    """One backward step from d_{k+1} = D, 100,000 times: the log-probability carried for
    each offset is the same every time it is drawn, the probabilities of the offsets sum to
    1 over 0..D, and the observed counts match them (within 5 Poisson standard deviations
    plus 3, so that offsets of probability far below 1 / n may be seen once)."""
    from pranker._numba.compressed import (
        compressed_advance,
        compressed_knots,
        compressed_rows,
        draw_states,
    )

    M, k = 70, 5
    x = compressed_knots(M, 4, 0.5)
    assert x.shape[0] < 20  # blocks of several offsets
    rows = np.zeros((k + 1, x.shape[0]))
    compressed_rows(phi, x, 1, rows)
    n = 100_000
    for D in (M, 47, int(x[7]), 9, 3):  # the top, inside a block, a knot, small
        d = np.full(n, D, dtype=np.int64)
        lq = np.zeros(n)
        sr = np.zeros(n)
        st = draw_states(np.uint64(17 + D), 0, n)
        compressed_advance(rows[k - 1 : k + 1], k, k, phi, x, d, lq, sr, st)
        assert d.min() >= 0 and d.max() <= D
        q = {}
        for off, l in zip(d.tolist(), lq.tolist(), strict=True):
            assert q.setdefault(off, l) == l  # one probability per offset
        probs = np.exp(np.array([q[o] for o in sorted(q)]))
        counts = np.bincount(d, minlength=D + 1)[sorted(q)]
        if len(q) == D + 1:  # every offset seen: they must carry all the mass
            assert abs(probs.sum() - 1.0) <= 1e-12, (phi, D, probs.sum())
        else:
            assert probs.sum() <= 1.0 + 1e-12
        expected = n * probs
        assert np.all(np.abs(counts - expected) <= 5.0 * np.sqrt(expected) + 3.0), (phi, D)
        # the offsets never drawn are rare under the carried law too
        assert 1.0 - probs.sum() <= 20.0 / n


def test_draws_are_the_same_bits_for_any_thread_count():
    """Each draw has its own counter-based stream: one thread or two, the same numbers."""
    import numba

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one numba thread only")
    before = numba.get_num_threads()
    out = []
    try:
        for threads in (1, 2):
            numba.set_num_threads(threads)
            eng = TiltEngine(3000, 20, seed=9, compressed=True)
            s = 0.4574 * 20  # p ~ 1e-20: fixed tilt above kc, state-dependent below
            eng.tail(s)
            cz = eng._cz
            grid = cz.contributions(0.5, 9, 5000, s, True, 1e-12)
            out.append((cz._sd[2].copy(), grid[1].copy(), grid[0]))
    finally:
        numba.set_num_threads(before)
    (a_sd, a_c, a_off), (b_sd, b_c, b_off) = out
    assert np.array_equal(a_sd, b_sd) and np.array_equal(a_c, b_c) and a_off == b_off


# ------------------------------- 10. splitting: several continuations below the hand-over
@pytest.mark.parametrize("N,P,E,eps,kc,K", [(14, 9, 1, 1.0, 3, 7), (13, 6, 2, 0.5, 2, 3)])
def test_split_continuations_against_exact_enumeration(N, P, E, eps, kc, K, monkeypatch):
    """Each draw's upper layers continued K times below the hand-over: the exact count
    within 4 rse at every interior threshold above the mean (the hand-over moved down and K
    set, as the defaults at these sizes have no upper layers)."""
    monkeypatch.setattr(compressed_module, "handover_layer", lambda s, P: kc)
    monkeypatch.setattr(compressed_module.CompressedProposal, "continuations", lambda self, k: K)
    sums = sums_of(N, P)
    eng = coarse(N, P, 7 * N + P, E, eps)
    mean = float(sum(sums) / len(sums))
    checked = 0
    for s in interior_thresholds(sums):
        if not float(s) > mean:
            continue
        p = exact_tail(sums, s)
        est = eng.tail(float(s))
        key = eng._cz._sd[0]
        assert key[3] == kc and key[5] == K  # state-dependent, split
        assert 0.0 <= est.rse <= 0.02
        assert z_of(est, p) <= 4.0, (N, P, kc, K, float(s), float(p), est)
        checked += 1
    assert checked >= 3


def test_default_continuations_at_scale():
    """Where the upper layers cost most of a draw, each is continued several times (and
    never more than the cap); with no upper layers, once."""
    from pranker.null.choice import MAX_CONTINUATIONS

    cz = TiltEngine(10**7, 1000)._cz
    assert cz is not None
    assert 8 <= cz.continuations(25) <= MAX_CONTINUATIONS
    assert cz.continuations(60) < cz.continuations(25)
    assert cz.continuations(2) == MAX_CONTINUATIONS
    assert cz.continuations(1000) == 1


def test_split_draws_are_the_same_bits_for_any_thread_count(monkeypatch):
    """Continuation r of draw i has its own stream: one thread or two, the same numbers."""
    import numba

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one numba thread only")
    monkeypatch.setattr(compressed_module, "handover_layer", lambda s, P: 6)
    before = numba.get_num_threads()
    out = []
    try:
        for threads in (1, 2):
            numba.set_num_threads(threads)
            eng = TiltEngine(3000, 20, seed=9, compressed=True)
            eng.tail(0.4574 * 20)
            assert eng._cz._sd[0][5] > 1
            out.append(eng._cz._sd[2].copy())
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(out[0], out[1])


def test_split_default_against_plain_monte_carlo():
    """N = 1e5, P = 60, p ~ 1e-3 and 1e-4: the default hand-over and continuations (K > 1)
    against 400,000 uniform rankings from numpy (binomial standard error), the thresholds
    taken from another 100,000 rankings."""
    N, P = 10**5, 60
    S = numpy_null_sums(N, P, 400_000, seed=77)
    pick = numpy_null_sums(N, P, 100_000, seed=78)
    eng = TiltEngine(N, P, compressed=True)
    for q_target in (1e-3, 2e-4):
        s = float(np.quantile(pick, 1.0 - q_target))
        q = float(np.mean(S >= s * (1 - 1e-12)))
        se_q = math.sqrt(q * (1 - q) / S.size)
        est = eng.tail(s)
        assert eng._cz._sd[0][5] > 1  # split
        p = 10.0**est.log10_pvalue
        assert abs(p - q) <= 4.0 * math.hypot(se_q, p * est.rse), (s, q, se_q, est)
