"""The saddlepoint on the compressed CGF within a work budget: what a capped search proves.

Oracles: exhaustive enumeration (``ExactNull``) for the rigorous ends (the
Chernoff and Cantelli bounds), the unbiased importance sampler at a tight
relative standard error (``TiltEngine.tail``) for the truth behind the
interval, and the kernel's own leap loop, stepped one cycle at a time, for
the layers a leaped pass is charged.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from pranker import WorkBudgetWarning, significance_from_ap
from pranker._numba.cgf_knots import band_layers_range, leap_layers
from pranker._numba.compressed import compressed_knots
from pranker.null.cgf import LEAP_FRACTION, LEAP_MAX, LEAP_START, leap_schedule
from pranker.null.choice import LARGE_P_LOG10_BOUND
from pranker.null.exact import ExactNull
from pranker.null.saddlepoint import LargePSaddle
from pranker.null.tilt import TiltEngine

LN10 = math.log(10.0)


@pytest.fixture(scope="module")
def truths():
    """(N, P) = (4000, 1000), s at 5 and 40 sd: the importance sampler at 1 % rse."""
    N, P = 4_000, 1_000
    ref = LargePSaddle(N, P)
    out = {}
    for z in (5.0, 40.0):
        s = ref.mean_s + z * ref.sd_s
        est = TiltEngine(N, P).tail(s, rtol=0.01, progress=False)
        out[z] = (s, est.log10_pvalue, est.rse / LN10)
    return N, P, out


@pytest.mark.parametrize("z", [5.0, 40.0])
@pytest.mark.parametrize("max_work", [10**5, 2 * 10**8, 4 * 10**8, 8 * 10**8, None])
def test_the_interval_of_a_capped_search_holds_the_truth(truths, z, max_work):
    """Whatever the budget stops the search after (no pass, one, two, none), the interval holds
    the independent estimate (within 3 of its standard errors), and the value lies inside it."""
    N, P, out = truths
    s, truth, se = out[z]
    sd = LargePSaddle(N, P, max_work=max_work)
    lp, (lo, hi), capped = sd.bounded_tail(s, LARGE_P_LOG10_BOUND)
    assert lo <= lp <= hi
    assert lo - 3 * se <= truth <= hi + 3 * se, (max_work, sd.passes, lo, truth, hi)
    if max_work is None:
        assert not capped
    else:
        assert sd.work <= max_work  # never past the budget
    if max_work == 10**5:
        assert capped and sd.passes == 0
    if not capped:
        assert hi - lo == pytest.approx(2 * LARGE_P_LOG10_BOUND)


def test_no_pass_affordable_gives_the_rigorous_interval_at_once():
    N, P = 4_000, 1_000
    sd = LargePSaddle(N, P, max_work=1)
    s = sd.mean_s + 3.0 * sd.sd_s
    lp, (lo, hi), capped = sd.bounded_tail(s, LARGE_P_LOG10_BOUND)
    assert capped and sd.passes == 0 and sd.work == 0
    assert hi == pytest.approx(math.log10(1.0 / (1.0 + 3.0**2)))  # Cantelli at 3 sd
    assert lo == pytest.approx(-math.log10(math.comb(N, P)))
    assert lp == hi  # the value is the bound: conservative when read alone


@pytest.mark.parametrize("z", [3.0, 5.0])
@pytest.mark.parametrize("max_work", [1, 2 * 10**5, 4 * 10**5])
def test_without_a_measured_bound_the_ends_are_rigorous(z, max_work):
    """N = 24, P = 6 (every offset a knot: the compressed CGF is exact): with no calibrated
    bound only the Cantelli and Chernoff bounds and 1 / C(N, P) are used, and they hold
    against exhaustive enumeration whatever the passes made (none, one, two)."""
    N, P = 24, 6
    sd = LargePSaddle(N, P, max_work=max_work)
    s = sd.mean_s + z * sd.sd_s
    exact = ExactNull(N, P).pvalue(s / P).log10_pvalue
    lp, (lo, hi), capped = sd.bounded_tail(s, None)
    assert capped
    assert lo <= exact <= hi, (sd.passes, lo, exact, hi)
    assert lo <= lp <= hi
    if sd.passes:
        assert hi < math.log10(1.0 / (1.0 + z * z))  # a pass's Chernoff bound beats Cantelli


def test_without_a_measured_bound_an_answer_has_no_interval():
    sd = LargePSaddle(24, 6)
    lp, interval, capped = sd.bounded_tail(sd.mean_s + 3.0 * sd.sd_s, None)
    assert interval is None and not capped and lp < 0.0


@pytest.mark.parametrize("N, P", [(10**6, 10**5), (10**6, 5 * 10**5)])
def test_a_capped_search_warns_and_names_the_budget(N, P):
    """On the compressed knots (10^5 positives) and on the scaled-down problems (5*10^5), a
    budget too small for one pass answers at once with the rigorous interval, warns once, and
    gives the same numbers when asked again."""
    ap = 0.55
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = significance_from_ap(ap, N, P, progress=False, max_work=10**7)
    assert [w.category for w in caught] == [WorkBudgetWarning]
    assert "max_work=" in str(caught[0].message) and "saddlepoint" in str(caught[0].message)
    assert a.method == "saddlepoint"
    lo, hi = a.log10_pvalue_interval
    assert lo <= a.log10_pvalue <= hi < 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkBudgetWarning)
        b = significance_from_ap(ap, N, P, progress=False, max_work=10**7)
    assert (b.log10_pvalue, b.log10_pvalue_interval) == (a.log10_pvalue, a.log10_pvalue_interval)


@pytest.mark.parametrize("frac", [LEAP_FRACTION, 0.0011])
@pytest.mark.parametrize("P", [130, 1_000, 25_000, 200_000])
def test_leap_schedule_is_the_kernels(P, frac):
    """The layers charged to a leaped pass are the ones the kernel computes exactly.

    The kernel, stepped one cycle at a time, reports where each cycle lands:
    a cycle that ends before P computed its first three layers exactly; the
    last one computed either those three (then leaped onto P) or every
    layer up to P, told apart by computing those layers exactly here.
    """
    x = compressed_knots(3 * P, 64, 0.5)  # few knots: only the layers matter here
    lo = np.zeros(P, np.int64)
    B = x.shape[0]
    g, g1, g2 = np.zeros(B), np.zeros(B), np.zeros(B)
    k = min(LEAP_START, P)
    g, g1, g2, j0 = band_layers_range(1, k, 0.1, x, lo, False, g, g1, g2, 0)
    seen = list(range(1, k + 1))
    while k < P:
        before = (g.copy(), g1.copy(), g2.copy(), j0)
        g, g1, g2, j0, k2 = leap_layers(k, P, 0.1, x, lo, False, g, g1, g2, j0, frac, LEAP_MAX, 3)
        if k2 < P:
            seen.extend((k + 1, k + 2, k + 3))
        else:
            a, a1, a2, _ = band_layers_range(k + 1, P, 0.1, x, lo, False, *before)
            exact = np.array_equal(a, g) and np.array_equal(a1, g1) and np.array_equal(a2, g2)
            seen.extend(range(k + 1, P + 1) if exact else (k + 1, k + 2, k + 3))
        k = k2
    assert leap_schedule(P, frac).tolist() == seen


def test_deep_in_the_tail_with_many_positives_answers():
    """(2e5, 2e4) at 89 % of the way to the top: the tilt there (about 5) once made the leaped
    layers lose their mass (a ZeroDivisionError from the kernel); now the leaps shorten with
    the tilt, and the answer is an interval that holds its value, below the Cantelli bound."""
    N, P = 200_000, 20_000
    sd = LargePSaddle(N, P)
    ap = (sd.mean_s + 0.89 * (P - sd.mean_s)) / P
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkBudgetWarning)
        r = significance_from_ap(ap, N, P, progress=False)
    lo, hi = r.log10_pvalue_interval
    assert math.isfinite(lo) and lo <= r.log10_pvalue <= hi
    assert hi < math.log10(1.0 / (1.0 + ((ap * P - sd.mean_s) / sd.sd_s) ** 2))
