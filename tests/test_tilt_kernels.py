"""The kernels of the exact-tilt engine against brute force over all subsets."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from pranker._numba.sampling import _draw_seed, _uniform01
from pranker._numba.tilt import block_len, tilt_draws, tilt_forward


def _all_s(N, P):
    """S = sum_k k / r_k of every P-subset of 1..N, and the subsets."""
    subs = list(itertools.combinations(range(1, N + 1), P))
    s = np.array([math.fsum(k / r for k, r in enumerate(sub, 1)) for sub in subs])
    return s, subs


def _brute(s, phi, c):
    """(log sum e^{phi (S - c)}, E_phi[S - c], E_phi[(S - c)^2]) in long double."""
    x = phi * (s.astype(np.longdouble) - c)
    top = x.max()
    w = np.exp(x - top)
    z = w.sum()
    y = s.astype(np.longdouble) - c
    return float(top + np.log(z)), float((w * y).sum() / z), float((w * y * y).sum() / z)


def _rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


@pytest.mark.parametrize("N,P", [(6, 3), (10, 4), (12, 2), (14, 7), (13, 12)])
def test_phi_zero_is_the_null(N, P):
    s, _ = _all_s(N, P)
    c = float(s.mean())
    log_z, m1, m2, _ = tilt_forward(N, P, 0.0, c, True, False)
    assert _rel(math.exp(log_z), math.comb(N, P)) < 1e-12
    assert abs(m1) < 1e-12 * max(s.std(), 1e-3)
    assert _rel(m2, float(s.var())) < 1e-11


@pytest.mark.parametrize("N,P", [(8, 3), (12, 5), (14, 7), (14, 2), (14, 13)])
@pytest.mark.parametrize("phi", [-5.0, -1.0, 0.5, 2.0, 10.0, 50.0, 700.0, 3000.0, -700.0, -3000.0])
def test_cgf_against_subsets(N, P, phi):
    s, _ = _all_s(N, P)
    for c in (float(s.mean()), None):
        if c is None:  # centred at the tilted mean: m2 is the tilted variance itself
            _, m1b, _ = _brute(s, phi, 0.0)
            c = m1b
        lz, m1, m2 = _brute(s, phi, c)
        log_z, k1, k2, _ = tilt_forward(N, P, phi, c, True, False)
        # log Z itself may be near 0: compare Z relatively
        assert abs(log_z - lz) < 1e-12 * max(1.0, abs(lz))
        # forward mode carries (S - c) as a sum of per-positive terms of size
        # up to 1, so its rounding floor is absolute: ~eps P (and eps P^2 for
        # the square), visible only when the tilted spread is below ~1e-7
        assert abs(k1 - m1) <= 1e-12 * abs(m1) + 1e-15 * P
        assert abs(k2 - m2) <= 1e-12 * m2 + 1e-15 * P * P
        # the storing pass gives the same partition function
        log_z2, _, _, layers = tilt_forward(N, P, phi, c, False, True)
        assert abs(log_z2 - log_z) < 1e-13 * max(1.0, abs(log_z))
        assert layers[0].shape[0] == P


def test_draws_follow_the_tilted_law():
    from scipy.stats import chi2

    N, P, phi, n = 8, 3, 2.0, 200_000
    s, _ = _all_s(N, P)
    c = float(s.mean())
    _, _, _, layers = tilt_forward(N, P, phi, c, False, True)
    out = np.empty(n)
    tilt_draws(layers, N, P, np.uint64(12345), 0, n, out)
    # subsets with equal S are pooled (the draws record S only)
    key = np.round(s, 9)
    values, group = np.unique(key, return_inverse=True)
    idx = np.searchsorted(values, np.round(out, 9))
    assert np.array_equal(values[idx], np.round(out, 9))
    counts = np.bincount(idx, minlength=values.size)
    p = np.bincount(group, weights=np.exp(phi * (s - s.max())), minlength=values.size)
    p /= p.sum()
    expected = n * p
    assert expected.min() > 5
    stat = float(((counts - expected) ** 2 / expected).sum())
    assert chi2.sf(stat, values.size - 1) > 1e-4


def _log_rows(layers, P, w):
    """Every stored layer as plain log prefix sums, each relative to its last cell.

    Written from the storage rule alone: in block b of a row the prefix sum is
    ``c0[b] + c1[b] T[d]`` in the block's unit, and ``c0[b + 1]`` is the end of
    block b in the next block's unit.
    """
    T, C0, C1, _ = layers
    nb = C0.shape[1]
    L = block_len(P)
    out = np.empty((P, w))
    for k in range(P):
        unit = np.zeros(nb)  # log of block b's unit relative to the last block's
        for b in range(nb - 2, -1, -1):
            end = min(w, (b + 1) * L) - 1
            g_end = C0[k, b] + C1[k, b] * T[k, end]
            unit[b] = unit[b + 1] + math.log(C0[k, b + 1]) - math.log(g_end)
        for d in range(w):
            b = d // L
            out[k, d] = unit[b] + math.log(C0[k, b] + C1[k, b] * T[k, d])
    return out


def _reference_draw(layers, N, P, seed, i):
    """One draw by plain inverse-CDF searches (np.searchsorted) on the log prefix sums."""
    m = N - P
    w = m + 1
    rows = _log_rows(layers, P, layers[0].shape[1])
    state = np.uint64(_draw_seed(np.uint64(seed), np.int64(i)))
    d = m
    s = 0.0
    for k in range(P, 0, -1):
        row = rows[k - 1, :w]
        state, u = _uniform01(state)
        state = np.uint64(state)
        t = math.log(u) + row[d]
        d = int(np.searchsorted(row[: d + 1], t, side="left"))
        s += k / (k + d)
    return s


@pytest.mark.parametrize(
    "N,P,phi_sd",
    [
        (400, 5, 0.0),
        (400, 5, 0.3),
        (2000, 30, 1.0),
        (300, 150, 5.0),
        (5000, 3, 0.1),
        (200, 20, 40.0),
        # rows of several scaling blocks, near the bulk and deep (positives mostly stay)
        (3000, 60, 2.0),
        (3000, 100, 25.0),
    ],
)
def test_draws_are_the_inverse_cdf_and_split_free(N, P, phi_sd):
    from pranker.null.tilt import TiltEngine

    e = TiltEngine(N, P)
    phi = phi_sd / e.sd_s
    _, _, _, layers = tilt_forward(N, P, phi, e.mean_s, False, True)
    seed = np.uint64(987654321)
    n = 3000
    full = np.empty(n)
    tilt_draws(layers, N, P, seed, 0, n, full)
    for i in range(0, n, 97):  # a wrong search moves a draw far more than 1e-12 relative
        assert full[i] == pytest.approx(_reference_draw(layers, N, P, seed, i), rel=1e-12)
    # any split of the indices gives the same draws (the same kernel: bit for bit)
    for cuts in ([0, 1, 2, 500, 501, 3000], [0, 64, 1000, 2999, 3000], [0, 3000]):
        parts = np.empty(n)
        for a, b in zip(cuts[:-1], cuts[1:], strict=True):
            tilt_draws(layers, N, P, seed, a, b - a, parts[a:b])
        assert np.array_equal(parts, full)
    part = np.empty(100)
    tilt_draws(layers, N, P, seed, 1234, 100, part)
    assert np.array_equal(part, full[1234:1334])


@pytest.mark.parametrize("N,P", [(30, 7), (25, 9), (30, 10), (1000, 10), (50, 49)])
def test_every_draw_is_written_and_inside_the_support(N, P):
    """Each output slot gets a draw (prefilled with NaN here), each draw a possible S."""
    from pranker._numba.tilt import tilt_draws, tilt_forward

    s_min = sum(k / (N - P + k) for k in range(1, P + 1))
    for phi in (0.0, 1.0, -2.0):
        _, _, _, G = tilt_forward(N, P, phi, 0.0, False, True)
        for n in (16, 100, 4096):
            out = np.full(n, np.nan)
            tilt_draws(G, N, P, np.uint64(12345), 0, n, out)
            assert not np.isnan(out).any(), (phi, n)
            assert np.all(out >= s_min * (1 - 1e-12)) and np.all(out <= P * (1 + 1e-12))


def test_split_contributions_the_same_for_any_cut_and_thread_count():
    """The tail contributions with the top two positives summed out and positives 3 .. k0
    re-drawn: each draw has its own streams, so one thread, all threads or any cut of the
    range give the same numbers, for both tails; each lies in [0, 1] (a tail probability
    given the other positives, times a weight at most 1 at the grid point's threshold)."""
    import numba

    from pranker._numba.tilt import tilt_split_contributions
    from pranker.null.tilt import TiltEngine

    N, P = 900, 40
    e = TiltEngine(N, P)
    d = np.arange(N - P + 1, dtype=np.float64)
    n = 3000
    for upper, z in ((True, 2.0), (False, -1.5)):
        phi = z / e.sd_s  # about the saddle point of the mean + z sd
        s = e.mean_s + z * e.sd_s
        _, _, _, layers = tilt_forward(N, P, phi, e.mean_s, False, True)
        h1 = np.logaddexp.accumulate(phi / (1 + d))
        log_g2 = np.logaddexp.accumulate(2 * phi / (2 + d) + h1)
        thr = s * (1 - 1e-12) if upper else s * (1 + 1e-12)
        for k0, M in ((2, 1), (6, 8)):
            args = (k0, M, phi, s, thr, log_g2, upper)
            outs = []
            before = numba.get_num_threads()
            try:
                for th in (1, numba.config.NUMBA_NUM_THREADS):
                    numba.set_num_threads(th)
                    w = np.empty(n)
                    tilt_split_contributions(layers, N, P, np.uint64(7), 0, n, *args, w)
                    outs.append(w)
            finally:
                numba.set_num_threads(before)
            w2 = np.empty(n)
            for lo, hi in ((0, 17), (17, 1500), (1500, n)):
                tilt_split_contributions(layers, N, P, np.uint64(7), lo, hi - lo, *args, w2[lo:hi])
            for w in outs[1:] + [w2]:
                assert np.array_equal(w, outs[0])
            assert np.all(outs[0] >= 0) and outs[0].max() > 0
            if upper:  # e^{-phi (S - s)} <= 1 on the event S >= s, times a probability
                assert outs[0].max() <= 1 + 1e-9


def test_count_of_the_top_two_against_a_double_loop():
    """``count_top_two(t, D)``: the placements ``d_1 <= d_2 <= D`` whose part of S reaches t
    (exceeds it, when strict), against the plain double loop, at random and at attainable
    thresholds moved by the 1e-12 tolerance the estimator applies."""
    from pranker._numba.toptwo import count_top_two, top_two_terms

    rng = np.random.default_rng(3)
    for trial in range(1500):
        D = int(rng.integers(0, 250)) if trial % 3 else int(rng.integers(0, 4))
        d1 = np.arange(D + 1)[:, None]
        d2 = np.arange(D + 1)[None, :]
        vals = (1 / (1 + d1) + 2 / (2 + d2))[d1 <= d2]
        t0 = float(rng.choice(vals)) if trial % 2 else float(rng.uniform(-0.5, 3.2))
        for strict, t in ((False, t0 * (1 - 1e-12)), (True, t0 * (1 + 1e-12))):
            want = int(((vals > t) if strict else (vals >= t)).sum())
            # the terms' table may be longer than D (the kernels pass one of N - P)
            f1, f2 = top_two_terms(D + trial % 5)
            assert count_top_two(t, D, strict, f1, f2) == want, (D, t, strict)
    # large D: the runs of equal counts, not a loop over d_2 (the sum of the two terms
    # over all placements, cross-checked by a plain loop over d_2)
    D = 200_000
    for t in (0.004 * (1 - 1e-12), 0.3, 1.2, 2.9):
        x = np.arange(D + 1, dtype=np.float64)
        a = t - 2 / (2 + x)
        with np.errstate(divide="ignore"):
            n1 = np.where(a <= 0, x + 1, np.minimum(x + 1, np.floor(1 / np.maximum(a, 1e-300))))
        n1[a > 1] = 0
        assert count_top_two(t, D, False, *top_two_terms(D)) == float(n1.sum())


def test_count_of_the_top_two_exact_at_attainable_thresholds():
    """At thresholds the top two can attain exactly (no tolerance), the count by first
    offsets decides each boundary by the sum itself: equal to the plain double loop, both
    with ``>=`` and with ``>``."""
    from pranker._numba.toptwo import count_top_two, top_two_terms

    rng = np.random.default_rng(11)
    for _ in range(600):
        D = int(rng.integers(0, 250))
        d1 = np.arange(D + 1)[:, None]
        d2 = np.arange(D + 1)[None, :]
        vals = (1 / (1 + d1) + 2 / (2 + d2))[d1 <= d2]
        t = float(rng.choice(vals[vals >= 0.02])) if (vals >= 0.02).any() else 1.0
        for strict in (False, True):
            want = int(((vals > t) if strict else (vals >= t)).sum())
            assert count_top_two(t, D, strict, *top_two_terms(D)) == want, (D, t, strict)


def test_serial_and_parallel_draw_kernels_give_the_same_bits():
    """Small calls run the draw kernels in the calling thread (no parallel compile on a first
    p-value), large ones on the threads: both kernels of each pair, on the same inputs, give
    the same numbers bit for bit; the choice goes to the threads for a large call."""
    from pranker._numba import tilt as k
    from pranker._numba import walk
    from pranker.null.tilt import TiltEngine

    N, P, n, k0, M = 700, 30, 2500, 6, 4
    e = TiltEngine(N, P)
    phi = 1.5 / e.sd_s
    T, C0, C1, scale = tilt_forward(N, P, phi, e.mean_s, False, True)[3]
    L = block_len(P)
    cw, ms = k._one_component(N, P)
    no_s, no_d = np.empty(0), np.empty(0, np.int64)
    outs = []
    for walks in (walk.walks_serial, walk.walks_parallel):
        R, D, top = np.empty(n), np.empty(n, np.int64), np.empty(n, np.int64)
        args = (cw, ms, np.uint64(11), 5, P - 1, k0 + 1, 0, no_s, no_d)
        walks(T, C0, C1, L, P, *args, R.reshape(-1, 1), D.reshape(-1, 1), top)
        S_out, D_out = np.empty((n, M)), np.empty((n, M), np.int64)
        key = np.uint64(11) ^ walk.INNER_KEY
        walks(T, C0, C1, L, P, no_s, no_d, key, 5, k0, 3, M, R, D, S_out, D_out, no_d)
        d = np.arange(N - P + 1, dtype=np.float64)
        log_g2 = np.logaddexp.accumulate(2 * phi / (2 + d) + np.logaddexp.accumulate(phi / (1 + d)))
        s = e.mean_s + 1.5 * e.sd_s
        w = np.empty(n)
        split = k._split_serial if walks is walk.walks_serial else k._split_parallel
        split(S_out, D_out, phi, s, s * (1 - 1e-12), log_g2, True, w)
        outs.append((R, D, top, S_out, D_out, w))
    for a, b in zip(*outs, strict=True):
        assert np.array_equal(a, b)
    assert np.all(outs[0][2] >= outs[0][1])  # the last positive is below positive k0 + 1
    assert outs[0][5].max() > 0
    assert not k._serial(k._SERIAL_MAX_STEPS) or k.get_num_threads() == 1


@pytest.mark.parametrize(
    ("N", "P", "phi_sd", "k0", "M"),
    [(700, 30, 1.5, 6, 4), (300, 40, 8.0, 12, 8), (2500, 80, 20.0, 16, 8), (2500, 10, 0.5, 5, 3)],
)
def test_inner_redraws_are_the_inverse_cdf_one_after_the_other(N, P, phi_sd, k0, M):
    """The M inner redraws of each draw (walked together, each from its own place in the
    row's stream) against a plain loop: one redraw after the other from the row's stream,
    each positive by np.searchsorted on the log prefix sums."""
    from pranker._numba import tilt as k
    from pranker._numba import walk
    from pranker.null.tilt import TiltEngine

    e = TiltEngine(N, P)
    phi = phi_sd / e.sd_s
    layers = tilt_forward(N, P, phi, e.mean_s, False, True)[3]
    T, C0, C1, _ = layers
    n, seed, start = 40, np.uint64(77), 9
    R, D, top = np.empty(n), np.empty(n, np.int64), np.empty(n, np.int64)
    k._draws(layers, N, P, seed, start, n, R, k0 + 1, D, top)
    S_out, D_out = np.empty((n, M)), np.empty((n, M), np.int64)
    k.tilt_split_states(layers, N, P, seed, start, n, k0, M, S_out, D_out)
    rows = _log_rows(layers, P, T.shape[1])
    key = np.uint64(seed) ^ walk.INNER_KEY
    for w in range(n):
        state = np.uint64(_draw_seed(key, np.int64(start + w)))
        for i in range(M):
            d, s = int(D[w]), float(R[w])
            for kk in range(k0, 2, -1):
                state, u = _uniform01(state)
                state = np.uint64(state)
                row = rows[kk - 1]
                d = int(np.searchsorted(row[: d + 1], math.log(u) + row[d], side="left"))
                s += kk / (kk + d)
            assert D_out[w, i] == d and S_out[w, i] == pytest.approx(s, rel=1e-12), (w, i)
