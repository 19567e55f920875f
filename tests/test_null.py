"""Null moments of AP against independent oracles.

Oracles: exhaustive enumeration of all C(N, P) rankings in exact integer
arithmetic (N <= 14), the unfactored moment formula of the derivation
evaluated in 50-digit arithmetic (itself checked against enumeration here),
and Monte Carlo with stated tolerances.
"""

from fractions import Fraction
from itertools import combinations
from math import comb, lcm

import mpmath
import numpy as np
import pytest

from pranker import null_params
from pranker.null import min_auprc, null_ap_samples

# ---------------------------------------------------------------------------
# oracle 1: enumeration in exact arithmetic
# ---------------------------------------------------------------------------


def enumerate_moments(N, P):
    """Exact mean and variance of AP over all C(N, P) placements (Fractions)."""
    L = lcm(*range(1, N + 1))
    s1 = 0
    s2 = 0
    for ranks in combinations(range(1, N + 1), P):
        x = sum((k + 1) * (L // r) for k, r in enumerate(ranks))  # = P * L * AP
        s1 += x
        s2 += x * x
    count = comb(N, P)
    mean = Fraction(s1, count * P * L)
    second = Fraction(s2, count * (P * L) ** 2)
    return mean, second - mean * mean


def rel_err(got, want):
    want = float(want)
    if want == 0.0:
        return abs(got)
    return abs(got - want) / abs(want)


@pytest.mark.parametrize("N", range(1, 15))
def test_exact_moments_match_enumeration(N):
    for P in range(1, N + 1):
        mean, var = enumerate_moments(N, P)
        got = null_params(N, P)
        assert rel_err(got.mean, mean) <= 1e-12, (N, P)
        if var == 0:
            assert got.var == 0.0
        else:
            assert rel_err(got.var, var) <= 1e-12, (N, P)


def test_min_auprc_matches_definition():
    for N in range(1, 15):
        for P in range(1, N + 1):
            a = sum(Fraction(k, N - P + k) for k in range(1, P + 1)) / P
            assert rel_err(min_auprc(N, P), a) <= 1e-14
    # large N against 50-digit arithmetic
    with mpmath.workdps(50):
        for N, P in [(10**12, 1), (10**12, 10**6), (10**9, 10**9 - 1), (10**6, 500_000)]:
            M = N - P
            a = (P - M * (mpmath.digamma(N + 1) - mpmath.digamma(M + 1))) / P
            assert rel_err(min_auprc(N, P), a) <= 1e-12, (N, P)


# ---------------------------------------------------------------------------
# oracle 2: the unfactored formula in 50-digit arithmetic
# ---------------------------------------------------------------------------


def mp_moments(N, P):
    """E[X] and E[X^2] - E[X]^2 as in the derivation (X = P * AP), 50 digits.

    E[X^2] = sum_m q_m C_m; the C_m are the index-pattern sums of the
    derivation. Evaluated as written (with its cancellation) at 50 digits.
    """
    N = mpmath.mpf(N)
    P = mpmath.mpf(P)
    h1 = mpmath.digamma(N + 1) + mpmath.euler
    h2 = mpmath.zeta(2) - mpmath.zeta(2, N + 1)
    q = [mpmath.mpf(1)]
    for m in range(4):
        q.append(q[-1] * (P - m) / (N - m) if P > m else mpmath.mpf(0))
    c1 = h2
    c2 = 2 * h1**2 + 3 * h1 - 5 * h2
    c3 = 2 * N * h1 + 5 * N - 5 * h1**2 - 9 * h1 + 7 * h2
    c4 = N * N - 2 * N * h1 - 5 * N + 3 * h1**2 + 6 * h1 - 3 * h2
    mu = q[1] * h1 + q[2] * (N - h1)
    var = q[1] * c1 + q[2] * c2 + q[3] * c3 + q[4] * c4 - mu**2
    return mu / P, var / P**2


def test_mp_oracle_agrees_with_enumeration():
    with mpmath.workdps(50):
        for N in range(4, 11):
            for P in range(1, N + 1):
                mean, var = enumerate_moments(N, P)
                m, v = mp_moments(N, P)
                assert (
                    abs(m - mpmath.mpf(mean.numerator) / mean.denominator) < mpmath.mpf(10) ** -40
                )
                assert abs(v - mpmath.mpf(var.numerator) / var.denominator) < mpmath.mpf(10) ** -40


def _grid():
    rng = np.random.default_rng(20141125)
    out = []
    for e in range(4, 49):  # N from 10 to 10^12 in quarter decades
        N = int(round(10 ** (e / 4)))
        ps = {1, 2, 3, 4, 5, N // 3, N // 3 + 1, N // 2, (N + 1) // 2, N // 2 + 1, N - 2, N - 1}
        ps |= {int(round(N**0.5)), int(round(N**0.75))}
        ps |= {int(x) for x in rng.integers(1, N, size=4)}
        out += [(N, P) for P in sorted(ps) if 1 <= P < N]
    out += [(2**62, 1), (2**62, 2**31), (2**62, 2**61), (2**62 - 1, 2**62 - 2)]
    return out


def test_exact_moments_match_50_digit_arithmetic():
    grid = _grid()
    N = np.array([g[0] for g in grid], dtype=np.int64)
    P = np.array([g[1] for g in grid], dtype=np.int64)
    got = null_params(N, P)  # vectorised path
    worst = 0.0
    with mpmath.workdps(50):
        for i, (n, p) in enumerate(grid):
            m, v = mp_moments(n, p)
            em = rel_err(got.mean[i], m)
            ev = rel_err(got.var[i], v)
            worst = max(worst, em, ev)
            assert em <= 1e-12 and ev <= 1e-12, (n, p, em, ev)
    assert worst < 1e-13  # in practice a few 1e-15


def test_scalar_and_vector_paths_agree_and_broadcast():
    res = null_params(np.array([[100], [1000]]), np.array([1, 10, 50]))
    assert res.mean.shape == (2, 3)
    for i, n in enumerate([100, 1000]):
        for j, p in enumerate([1, 10, 50]):
            m, v = null_params(n, p)  # the scalar kernel: to 1e-12 relative
            assert res.mean[i, j] == pytest.approx(m, rel=1e-12)
            assert res.var[i, j] == pytest.approx(v, rel=1e-12)


def test_degenerate_cases():
    assert tuple(null_params(1, 1)) == (1.0, 0.0)
    assert tuple(null_params(7, 7)) == (1.0, 0.0)
    m, v = null_params(10**12, 10**12)
    assert m == 1.0 and v == 0.0
    # P = 1: AP = 1/r, r uniform on 1..N
    N = 50
    mean = sum(Fraction(1, r) for r in range(1, N + 1)) / N
    second = sum(Fraction(1, r * r) for r in range(1, N + 1)) / N
    m, v = null_params(N, 1)
    assert rel_err(m, mean) < 1e-14 and rel_err(v, second - mean**2) < 1e-14


@pytest.mark.parametrize(
    "N,P,msg",
    [
        (10, 0, "P \\(number of positives\\) must be >= 1"),
        (10, 11, "P must be <= N"),
        (2**63 - 1, 1, "N must be <= 2\\*\\*62"),
    ],
)
def test_bad_counts(N, P, msg):
    with pytest.raises(ValueError, match=msg):
        null_params(N, P)


def test_bad_count_types():
    with pytest.raises(TypeError):
        null_params(10.5, 2)
    with pytest.raises(TypeError):
        null_params("10", 2)
    with pytest.raises(ValueError, match="method"):
        null_params(10, 2, method="approx")


# ---------------------------------------------------------------------------
# oracle 3: Monte Carlo
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("N,P", [(100_000, 50), (10**6, 1000), (2000, 900), (60, 45)])
def test_montecarlo_agrees_with_exact(N, P):
    exact = null_params(N, P)
    mc = null_params(N, P, method="montecarlo", n_draws=60_000, seed=7)
    assert mc.method == "montecarlo" and mc.n_draws == 60_000
    # 5 standard errors: a false alarm has probability < 1e-6 per check
    assert abs(mc.mean - exact.mean) < 5 * mc.mean_se
    assert abs(mc.var - exact.var) < 5 * mc.var_se


@pytest.mark.parametrize("n,p", [(8, 3), (8, 6), (9, 2), (40, 2)])
def test_random_subsets_are_uniform(n, p):
    """Every one of the C(n, p) subsets is drawn equally often (chi-square, 6 sigma).

    Covers the sparse sampler (40, 2), the dense one (8, 3) and the
    complement branch (8, 6).
    """
    from pranker._numba import sampling as _kernels

    draws = 200 * comb(n, p)
    work = _kernels.sampler_work_arrays(n, p)
    index = {c: i for i, c in enumerate(combinations(range(1, n + 1), p))}
    counts = np.zeros(len(index), dtype=np.int64)
    for j in range(draws):
        _kernels.random_positive_ranks(np.uint64(5), j, n, p, *work)
        counts[index[tuple(int(r) for r in work[0])]] += 1
    expected = draws / len(index)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    df = len(index) - 1
    assert chi2 < df + 6 * np.sqrt(2 * df)


def test_montecarlo_reproducible_and_piecewise():
    a = null_ap_samples(10_000, 30, 1000, seed=11)
    b = np.concatenate(
        [
            null_ap_samples(10_000, 30, 400, seed=11),
            null_ap_samples(10_000, 30, 600, seed=11, start=400),
        ]
    )
    assert np.array_equal(a, b)  # the same draws by index, whatever the split: bit for bit
    assert not np.array_equal(a, null_ap_samples(10_000, 30, 1000, seed=12))


# ---------------------------------------------------------------------------
# the beta and skew-beta tails: in log space, floored at 1 / C(N, P), never 0
# ---------------------------------------------------------------------------


def _log10_comb_exact(N, P):
    """log10 C(N, P) from the exact integer (math.log10 of a Python int of any size)."""
    from math import log10

    return log10(comb(N, P))


@pytest.mark.parametrize("method", ["beta", "skewbeta"])
@pytest.mark.parametrize("N, P", [(5_000, 150), (20_000, 400), (10**6, 100), (60, 30)])
def test_fitted_nulls_answer_a_perfect_ranking_with_the_floor(method, N, P):
    """AP = 1 (all positives first) has null probability exactly 1 / C(N, P); the fits
    report it in log10 whether or not it underflows float64."""
    from pranker import significance_from_ap

    res = significance_from_ap(1.0, N, P, method=method)
    want = -_log10_comb_exact(N, P)
    assert res.log10_pvalue == pytest.approx(want, rel=1e-12, abs=1e-9)
    assert res.pvalue == pytest.approx(10.0**want if want > -307 else 0.0, rel=1e-9, abs=0.0)


@pytest.mark.parametrize("method", ["beta", "skewbeta"])
def test_fitted_nulls_never_fall_below_the_floor(method):
    """Every upper tail of AP is at least 1 / C(N, P); deep in the tail the beta's own
    log-space value is kept wherever it is above that floor."""
    from pranker import null_distribution

    N, P = 20_000, 400
    null = null_distribution(N, P, method)
    floor = -_log10_comb_exact(N, P)
    ap = np.linspace(0.03, 1.0, 60)
    lg = np.array([null.pvalue(a).log10_pvalue for a in ap])
    assert np.all(np.isfinite(lg)) and np.all(lg >= floor - 1e-9)
    assert np.all(np.diff(lg) <= 1e-12)  # an upper tail does not increase
    assert np.any((lg < -320) & (lg > floor + 1))  # the beta's own value below float64


@pytest.mark.parametrize(
    "a, b, z",
    [
        (2.0, 3.0, 0.5),
        (3.0, 4000.0, 0.5),
        (0.5, 300.0, 0.9),
        (2.5, 1e5, 0.01),
        (50.0, 2000.0, 0.3),
        (0.3, 1e4, 0.2),
        (200.0, 5000.0, 0.2),
        (8.0, 900.0, 0.999),
    ],
)
def test_log_beta_upper_against_mpmath(a, b, z):
    """ln(1 - I_z(a, b)) against mpmath's regularised incomplete beta at 40 digits."""
    from pranker.null.beta import log_beta_upper

    with mpmath.workdps(40):
        want = float(mpmath.log(mpmath.betainc(b, a, 0, 1 - mpmath.mpf(z), regularized=True)))
    assert log_beta_upper(a, b, z) == pytest.approx(want, rel=1e-11)


def test_beta_pvalues_of_many_rankings_stay_finite():
    from pranker import pranker_many

    n, p = 20_000, 400
    s = np.linspace(1.0, 0.0, n)
    y = np.zeros(n, bool)
    y[:p] = True
    res = pranker_many(np.stack([s, s]), np.stack([y, y]), method="beta")
    want = -_log10_comb_exact(n, p)
    assert res.pvalue.tolist() == [0.0, 0.0]
    assert res.log10_pvalue == pytest.approx([want, want], rel=1e-12)
    # Benjamini-Hochberg of two equal p-values: min(2 p / 1, 2 p / 2) = p
    assert res.log10_pvalue_bh == pytest.approx([want, want], rel=1e-12)


def test_cli_prints_the_floored_beta_pvalue(tmp_path, capsys):
    """`pranker score --method beta` on a perfect ranking: the number, in the table and JSON."""
    import json

    from pranker.cli.main import main

    n, p = 20_000, 400
    f = tmp_path / "perfect.csv"
    rows = [f"{1 - i / n:.6f},{int(i < p)}" for i in range(n)]
    f.write_text("score,label\n" + "\n".join(rows) + "\n")
    want = -_log10_comb_exact(n, p)  # -849.86...
    assert main(["score", str(f), "--method", "beta"]) == 0
    out = capsys.readouterr().out
    assert f"{10 ** (want - np.floor(want)):.3g}e{int(np.floor(want))}" in out  # 1.38e-850
    assert main(["score", str(f), "--method", "skewbeta", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["pvalue"] == 0.0 and d["log10_pvalue"] == pytest.approx(want, rel=1e-12)
