"""The saddlepoint beyond N = 0.1 P^2, for thresholds whose top positives the tilted law pins.

Oracles: enumeration of every placement (the pinning probabilities), the tilted
estimator (unbiased, its own error stated) for the tail, and the region rule as
the documentation states it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import pranker
from pranker._numba.tilt import top_pinned
from pranker.null.choice import (
    SADDLEPOINT_MAX_LUMP,
    SADDLEPOINT_PINNED_LOG10_BOUND,
    saddlepoint_region,
)
from pranker.null.saddlepoint import SaddlepointNull, saddlepoint_tail, top_lumpiness
from pranker.null.tilt import TiltEngine

LN10 = math.log(10.0)


def _enumerated_pinning(N, P, phi):
    """log P_phi(the top k positives at ranks 1..k), k = 1..P, by visiting every placement."""
    logw, pinned = [], []
    for ranks in itertools.combinations(range(1, N + 1), P):
        logw.append(phi * sum((k + 1) / r for k, r in enumerate(ranks)))
        k = 0
        while k < P and ranks[k] == k + 1:
            k += 1
        pinned.append(k)
    logw, pinned = np.array(logw), np.array(pinned)
    log_z = np.logaddexp.reduce(logw)
    return np.array([np.logaddexp.reduce(logw[pinned >= k]) - log_z for k in range(1, P + 1)])


@pytest.mark.parametrize("N, P, phi", [(10, 3, 0.7), (12, 4, 3.0), (9, 5, 10.0), (14, 3, 0.0)])
def test_pinning_probabilities_against_enumeration(N, P, phi):
    got = np.empty(P)
    top_pinned(N, P, phi, got)
    np.testing.assert_allclose(got, _enumerated_pinning(N, P, phi), rtol=0, atol=1e-12)


def test_pinning_at_phi_zero_is_the_uniform_count():
    # untilted: the top k positives at ranks 1..k in C(N - k, P - k) of C(N, P) placements
    N, P = 300, 40
    got = np.empty(P)
    top_pinned(N, P, 0.0, got)
    want = [math.log(math.comb(N - k, P - k) / math.comb(N, P)) for k in range(1, P + 1)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_pinning_pass_in_chunks_gives_the_same_numbers():
    # cut into calls of a few layers (Ctrl-C is seen between them): the same arithmetic
    whole, cut = np.empty(60), np.empty(60)
    top_pinned(3000, 60, 4.0, whole)
    top_pinned(3000, 60, 4.0, cut, chunk_cells=7 * 2941)
    assert np.array_equal(whole, cut)


def test_lumpiness_is_small_deep_in_the_tail_and_large_near_the_bulk():
    eng = TiltEngine(40_000, 200)
    lumps = []
    for depth in (0.01, 0.05, 0.3):
        s = eng.mean_s + depth * (200 - eng.mean_s)
        phi, _, k2 = eng.saddle(s, tol=1e-8)
        lumps.append(top_lumpiness(eng, phi, k2))
    assert lumps[0] > 10 * SADDLEPOINT_MAX_LUMP  # the top positive is not pinned: lumpy
    assert lumps[2] < SADDLEPOINT_MAX_LUMP  # pinned
    assert lumps[0] > lumps[1] > lumps[2]


def _region(n: int, p: int) -> str:
    found = saddlepoint_region(n, p)
    return found[0] if found else ""


def test_region_rule():
    # 0.1 P^2 < N <= 10 P^2 or N > 25 P; N <= 1000 P; P >= 50; 4e6 to 1e8 cells
    assert _region(100_000, 100) == "pinned"  # rho = 10, N / P = 1000, 1e7 cells
    assert _region(100_001, 100) != "pinned"  # more than 1000 items per positive
    assert _region(10_000, 100) != "pinned"  # 1e6 cells: the tilt is cheaper
    assert _region(1_000_000, 300) != "pinned"  # rho = 11
    assert _region(5000, 500) != "pinned"  # the calibrated region proper
    assert _region(50_000, 1000) == "pinned"  # N / P = 50 > 25 at rho = 0.05
    assert _region(200_000, 49) != "pinned"  # too few positives
    assert pranker.null.choice.auto_method(100_000, 100) == "saddlepoint"
    assert pranker.null.choice.auto_method(10_000, 100) == "tilt"
    # the bound there (10^0.015 - 1 = 3.51 %) must be within twice rtol
    assert pranker.null.choice.auto_method(100_000, 100, rtol=0.0176) == "saddlepoint"
    assert pranker.null.choice.auto_method(100_000, 100, rtol=0.0175) == "tilt"


@pytest.mark.parametrize("depth", [0.2, 0.5])
def test_pinned_thresholds_get_the_saddlepoint_within_its_bound_of_the_tilt(depth):
    N, P = 40_000, 200  # rho = 1, N / P = 200
    eng = TiltEngine(N, P)
    s = eng.mean_s + depth * (P - eng.mean_s)
    pv = pranker.null_distribution(N, P).pvalue(s / P)
    assert pv.method == "saddlepoint" and pv.pvalue_rse is None and pv.n_draws is None
    lo, hi = pv.pvalue_interval
    assert math.log10(hi / pv.pvalue) == pytest.approx(SADDLEPOINT_PINNED_LOG10_BOUND)
    assert math.log10(pv.pvalue / lo) == pytest.approx(SADDLEPOINT_PINNED_LOG10_BOUND)
    est = eng.tail(s, rtol=0.006, progress=False)
    diff = abs(pv.log10_pvalue - est.log10_pvalue)
    assert diff <= SADDLEPOINT_PINNED_LOG10_BOUND + 3 * est.rse / LN10, (pv, est)


def test_lumpy_thresholds_go_to_the_tilt_and_name_it():
    N, P = 40_000, 200
    eng = TiltEngine(N, P)
    for depth in (0.01, 0.05):  # below the depth of the check; checked but not pinned
        ap = (eng.mean_s + depth * (P - eng.mean_s)) / P
        pv = pranker.null_distribution(N, P).pvalue(ap)
        assert pv.method == "tilt" and 0 < pv.pvalue_rse <= 0.02
        # by name, the saddlepoint answers but states no bound where the top is lumpy
        named = SaddlepointNull(N, P).pvalue(ap)
        assert named.method == "saddlepoint" and named.pvalue_interval is None
        sp = saddlepoint_tail(eng, ap * P, True)
        assert named.log10_pvalue == pytest.approx(sp.log10_pvalue, abs=1e-12)
