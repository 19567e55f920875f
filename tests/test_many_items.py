"""Many positives with 11 to 100 items each: the saddlepoint on the scaled CGF, its wider bound.

Oracles: the importance sampler's truths at about 1 % relative standard error
(``docs/calibration_many_items_truth.jsonl`` and the N / P = 100 rows of
``docs/calibration_large_p_truth.jsonl``, written by the scripts in
``benchmarks/``), the exact recursion's K at a tilt, and plain Monte Carlo
quantiles of the null AP.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from pranker import WorkBudgetWarning, significance_from_ap
from pranker.null.cgf import LayersCGF, ScaledCGF
from pranker.null.choice import (
    MANY_ITEMS_LOG10_BOUND,
    SCALED_LOG10_BOUND,
    SCALED_SPREAD_FACTOR,
    plan,
)
from pranker.null.large_p import ScaledSaddle, large_p_tail
from pranker.null.moments import null_ap_samples, null_params
from pranker.null.saddlepoint import SaddlepointNull

DOCS = Path(__file__).resolve().parents[1] / "docs"
LN10 = math.log(10.0)


def _truths() -> list[dict]:
    rows = []
    for name in ("calibration_many_items_truth.jsonl", "calibration_large_p_truth.jsonl"):
        path = DOCS / name
        for line in path.read_text().splitlines():
            r = json.loads(line)
            if r.get("truth_log10") is not None and r["N"] > 10 * r["P"]:
                rows.append(r)
    return rows


TRUTHS = _truths()


def test_each_truth_is_recorded_once():
    """The importance-sampled truths are independent cases: no (N, P, threshold) repeats in
    the files (a rerun of the script that writes them skips what is recorded), so a truth is
    not counted twice."""
    for name in (
        "calibration_many_items_truth.jsonl",
        "calibration_large_p_truth.jsonl",
    ):
        rows = [json.loads(line) for line in (DOCS / name).read_text().splitlines() if line]
        keys = [(r["N"], r["P"], round(r["s"], 4)) for r in rows]
        assert len(keys) == len(set(keys)), name


def test_the_truths_cover_the_region():
    """At least five truths, two of them at P = 1e4 with 100 items per positive, down to 1e-25."""
    assert len(TRUTHS) >= 5
    assert sum(r["N"] == 100 * r["P"] == 10**6 for r in TRUTHS) >= 2
    assert min(r["truth_log10"] for r in TRUTHS) < -25.0


@pytest.mark.parametrize("row", TRUTHS, ids=lambda r: f"N{r['N']}-P{r['P']}-s{r['s']:.2f}")
def test_the_interval_holds_the_sampler_truth(row):
    """The route's interval (the region's bounds and its spread) holds the truth (2 se)."""
    N, P, s = row["N"], row["P"], row["s"]
    lp, interval, capped = large_p_tail(N, P, s, MANY_ITEMS_LOG10_BOUND, None)
    assert not capped and interval is not None
    lo, hi = interval
    se = row["rse"] / LN10
    assert lo - 2.0 * se <= row["truth_log10"] <= hi + 2.0 * se, (lp, interval, row)
    # the half-width: the smooth bound or the lumpy one, plus four spreads
    sd = ScaledSaddle(N, P)
    assert sd.log_sf(s) / LN10 == lp  # the same search and formula (no budget)
    spread = SCALED_SPREAD_FACTOR * sd.spreads[-1] / LN10
    lumpy = sd.lumpy(sd.points[-1][0])
    half = (MANY_ITEMS_LOG10_BOUND if lumpy else SCALED_LOG10_BOUND) + spread
    assert hi - lp == pytest.approx(half, abs=1e-12) or hi == 0.0


def test_lumpy_is_the_change_of_regime():
    """The wider bound applies between log(N/P)/4 and log(N/P) + 0.3: around the tilted variance
    of S growing by two orders of magnitude at N = 1e6, P = 1e4 (1.8 at phi = 2.6, 186 at 3.7)."""
    sd = ScaledSaddle(10**6, 10**4)
    assert [sd.lumpy(phi) for phi in (1.0, 1.2, 2.4, 3.7, 4.8, 5.0)] == [
        False,
        True,
        True,
        True,
        True,
        False,
    ]


def test_the_default_answers_with_the_scaled_saddlepoint_and_says_so():
    """At N = 1e6, P = 1e4 the default is this route, warns, and holds the truth at 10 sd."""
    (row,) = [r for r in TRUTHS if r["N"] == 10**6 and abs(r["truth_log10"] + 13.8) < 0.1]
    ap = row["s"] / row["P"]
    with pytest.warns(WorkBudgetWarning, match="method='tilt'"):
        res = significance_from_ap(ap, row["N"], row["P"])
    assert res.method == "saddlepoint"
    lo, hi = res.log10_pvalue_interval
    se = row["rse"] / LN10
    assert lo - 2.0 * se <= row["truth_log10"] <= hi + 2.0 * se
    direct = large_p_tail(row["N"], row["P"], row["s"], MANY_ITEMS_LOG10_BOUND, None)
    assert res.log10_pvalue == direct[0]  # the same computation
    # no warning where the bound is within twice rtol
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loose = significance_from_ap(ap, row["N"], row["P"], rtol=0.2)
    assert loose.log10_pvalue == res.log10_pvalue


def test_the_region_ends_at_100_items_per_positive_and_90_percent_of_the_way():
    assert plan(10**6, 10**4, ap=0.02).region == "many items"
    assert plan(10**6, 10**4, ap=0.95).method == "tilt"  # beyond 90 % of the way to the top
    assert plan(10**6 + 10**4, 10**4).method == "tilt"


def test_scaled_cgf_at_100_items_per_positive_against_the_exact_recursion():
    """K at N = 3e5, P = 3e3 (9e8 cells, one exact pass each) within 4 spreads plus 1e-4 nats,
    in the body, where the tilted law changes regime, and past it."""
    N, P = 300_000, 3_000
    exact, scaled = LayersCGF(N, P), ScaledCGF(N, P)
    for phi in (0.5, 3.0, 3.8, 5.5):
        k = exact.cgf(phi, derivs=False)[0]
        k_hat = scaled.cgf(phi)[0]
        assert abs(k_hat - k) <= SCALED_SPREAD_FACTOR * scaled.spreads[-1] + 1e-4, (phi, k, k_hat)


@pytest.mark.parametrize("n,n_pos", [(100_000, 10_000), (300_000, 3_000)])
def test_null_quantiles_beyond_the_exact_recursion_against_monte_carlo(n, n_pos):
    """The central 95 % of the null AP from the large-P CGF (knots; scaled) within Monte Carlo's
    error: the fraction of 8,000 random rankings below each end is 2.5 % within 3 se (0.52 %)."""
    lo, hi = SaddlepointNull(n, n_pos).interval(0.95)
    x = null_ap_samples(n, n_pos, 8_000, seed=11)
    se = math.sqrt(0.025 * 0.975 / x.size)
    assert abs(np.mean(x < lo) - 0.025) <= 3.0 * se
    assert abs(np.mean(x > hi) - 0.025) <= 3.0 * se


def test_a_spread_wider_than_rtol_is_searched_again_on_larger_problems():
    """Half-way at N = 1e7, P = 1e5 (the saddle point past the change of regime, S smooth) the
    spread of the default's problems (at most 635 positives) widens the interval to about 0.05;
    the second search, on problems of twice the positives, narrows it to within twice rtol, and
    its answer lies inside the first interval (two extrapolations, each within its spread)."""
    N, P = 10**7, 10**5
    mean, var = null_params(N, P)
    s = 0.5 * (mean + 1.0) * P
    first = ScaledSaddle(N, P)
    lp0, (lo0, hi0), capped0 = first.bounded_tail(s, SCALED_LOG10_BOUND)
    assert not capped0 and hi0 - lp0 > 0.04
    lp, (lo, hi), capped = large_p_tail(N, P, s, MANY_ITEMS_LOG10_BOUND, None, rtol=0.02)
    assert not capped and lo0 <= lp <= hi0
    assert 10.0 ** (hi - lp) - 1.0 <= 0.04 < 10.0 ** (hi0 - lp0) - 1.0
    # without rtol, no second search: the first answer
    assert large_p_tail(N, P, s, MANY_ITEMS_LOG10_BOUND, None)[0] == lp0
