"""The work budget of the tilted estimator (``max_work=``), each against an independent oracle.

The truth at small (N, P) is counted here by enumerating every placement of
the positives (itertools), not by any code of the package. No timings: the
budget is in deterministic units, and benchmarks/bench_work_cap.py measures
their seconds.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import pranker
from pranker import WorkBudgetWarning, null_distribution, significance_from_ap
from pranker.null import tilt as tilt_module
from pranker.null.choice import DEFAULT_RTOL, MIN_TRUSTED_DRAWS

N, P = 26, 5  # C(26, 5) = 65,780 placements
TINY = 400_000  # work units: ~200 draws after the nominal search and pilot; far from rtol
SMALL = 1_500_000  # ~2,000 draws: enough to trust the normal interval, rse still above rtol


def _all_aps(n: int, p: int) -> np.ndarray:
    """AP of every placement of p positives among n ranks."""
    ks = np.arange(1, p + 1)
    return np.array(
        [float(np.mean(ks / np.array(r))) for r in itertools.combinations(range(1, n + 1), p)]
    )


@pytest.fixture(scope="module")
def truth():
    aps = _all_aps(N, P)
    # a threshold in the tail: an AP that some placement attains, p about 1e-3
    ap = float(np.quantile(aps, 0.999))
    p = float(np.mean(aps >= ap * (1.0 - 1e-12)))
    return ap, p


def _fresh():
    """Forget every cached engine (a capped number must not depend on what was asked before)."""
    for eng in tilt_module._ENGINES.values():
        eng.release()
    tilt_module._ENGINES.clear()


def test_capped_interval_holds_the_enumerated_truth(truth):
    ap, p = truth
    held = 0
    for seed in range(20):
        with pytest.warns(WorkBudgetWarning) as rec:
            res = significance_from_ap(ap, N, P, method="tilt", seed=seed, max_work=SMALL)
        assert DEFAULT_RTOL < res.pvalue_rse < 0.3  # the cap bit: honest rse above what was asked
        assert MIN_TRUSTED_DRAWS <= res.n_draws < 4096
        lo, hi = res.pvalue_interval
        held += lo <= p <= hi
        text = str(rec[0].message)
        assert "max_work=" in text and "rtol=" in text
    assert held >= 18, f"the 95 % interval held the enumerated truth {p} in {held} of 20 seeds"


def test_too_few_draws_give_the_rigorous_interval(truth):
    """Below MIN_TRUSTED_DRAWS the normal interval is not reported: [1/C(N, P), Cantelli] is."""
    ap, p = truth
    log10_floor = -math.log10(math.comb(N, P))
    aps = _all_aps(N, P)  # the exact mean and variance of S = P AP, from the enumeration
    mean_s, var_s = P * aps.mean(), P * P * aps.var()
    cantelli = var_s / (var_s + (P * ap - mean_s) ** 2)
    for seed in range(5):
        with pytest.warns(WorkBudgetWarning, match="Cantelli"):
            res = significance_from_ap(ap, N, P, method="tilt", seed=seed, max_work=TINY)
        assert res.n_draws < MIN_TRUSTED_DRAWS and math.isinf(res.pvalue_rse)
        lo, hi = res.log10_pvalue_interval
        assert lo == pytest.approx(log10_floor) and hi == pytest.approx(math.log10(cantelli))
        assert lo <= math.log10(p) <= hi and lo <= res.log10_pvalue <= hi


def test_capped_call_is_reproducible(truth):
    ap, _ = truth
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkBudgetWarning)
        _fresh()
        a = significance_from_ap(ap, N, P, method="tilt", max_work=TINY)
        significance_from_ap(0.9 * ap, N, P, method="tilt")  # other thresholds fill the caches
        b = significance_from_ap(ap, N, P, method="tilt", max_work=TINY)
        _fresh()
        c = significance_from_ap(ap, N, P, method="tilt", max_work=TINY)
    assert a.log10_pvalue == b.log10_pvalue == c.log10_pvalue
    assert a.pvalue_rse == b.pvalue_rse == c.pvalue_rse
    assert a.pvalue_interval == b.pvalue_interval == c.pvalue_interval


def test_a_call_within_the_budget_is_unchanged(truth):
    ap, p = truth
    with warnings.catch_warnings():
        warnings.simplefilter("error", WorkBudgetWarning)  # neither call may be capped
        default = significance_from_ap(ap, N, P, method="tilt")
        large = significance_from_ap(ap, N, P, method="tilt", max_work=10**15)
    assert default.log10_pvalue == large.log10_pvalue
    assert default.pvalue_interval == large.pvalue_interval
    assert default.n_draws == large.n_draws
    assert default.pvalue_rse <= DEFAULT_RTOL
    lo, hi = default.pvalue_interval
    assert lo * 0.9 <= p <= hi * 1.1  # and right, against the enumeration


def test_the_budget_reaches_every_entry_point(truth):
    ap, _ = truth
    ranks = np.arange(N)
    y = np.zeros(N, dtype=bool)
    y[[0, 1, 2, 4, 7]] = True  # AP about 0.9: deep in this null's tail
    scores = -ranks.astype(float)
    with pytest.warns(WorkBudgetWarning):
        null_distribution(N, P, "tilt", max_work=TINY).pvalue(ap)
    with pytest.warns(WorkBudgetWarning):
        pranker.pranker(scores, y, method="tilt", max_work=TINY)
    with pytest.warns(WorkBudgetWarning):
        many = pranker.pranker_many(
            np.stack([scores, scores]), np.stack([y, y]), method="tilt", max_work=TINY
        )
    with pytest.warns(WorkBudgetWarning):
        one = pranker.pranker(scores, y, method="tilt", max_work=TINY)
    assert many.log10_pvalue[0] == one.log10_pvalue  # the same number as one ranking alone


@pytest.mark.parametrize("bad", [0, -5, 1.5, math.nan, math.inf, True, "1e9"])
def test_bad_budgets_name_the_parameter(bad):
    with pytest.raises(ValueError, match="max_work"):
        significance_from_ap(0.5, N, P, method="tilt", max_work=bad)
    with pytest.raises(ValueError, match="max_work"):
        null_distribution(N, P, "tilt", max_work=bad)
    with pytest.raises(ValueError, match="max_work"):
        pranker.pranker_many([[0.9, 0.1, 0.5]], [[1, 0, 1]], max_work=bad)


def test_cli_flag(tmp_path, capsys):
    from pranker.cli.main import main

    path = tmp_path / "r.csv"
    rows = ["score,label"] + [f"{-i},{int(i in (0, 1, 2, 4, 7))}" for i in range(N)]
    path.write_text("\n".join(rows) + "\n")
    with pytest.warns(WorkBudgetWarning):
        assert main(["score", str(path), "--method", "tilt", "--max-work", "4e5", "--json"]) == 0
    with pytest.raises(SystemExit):
        main(["score", str(path), "--max-work", "0"])
    assert "max-work" in capsys.readouterr().err


def test_no_hit_yet_gives_an_upper_bound():
    """An estimate stopped before any draw reached the tail reports a bound, never a silent 0."""
    eng = tilt_module.TiltEngine(N, P)
    s = 0.9 * P
    est = tilt_module.TailEstimate(-math.inf, math.inf, (-math.inf, -1.0), 64, 1.0, 10, True)
    out = eng._positive(est, s, True)
    truth = float(np.mean(_all_aps(N, P) >= 0.9 * (1 - 1e-12)))
    assert math.isinf(out.rse) and out.capped
    lo, hi = out.log10_interval
    assert out.log10_pvalue == hi <= -1.0
    assert 10.0**lo <= truth <= 10.0**hi
    assert lo == pytest.approx(-math.log10(math.comb(N, P)))


def test_a_budget_too_small_for_any_draw_gives_the_bound_at_once(truth):
    """When even the minimum of draws would cost more than twice the budget, none is made:
    the answer is the Cantelli bound, inside the rigorous interval that holds the truth."""
    ap, p = truth
    aps = _all_aps(N, P)
    mean_s, var_s = P * aps.mean(), P * P * aps.var()
    cantelli = math.log10(var_s / (var_s + (P * ap - mean_s) ** 2))
    with pytest.warns(WorkBudgetWarning, match="Cantelli"):
        res = significance_from_ap(ap, N, P, method="tilt", max_work=1_000)
    assert res.n_draws == 0 and math.isinf(res.pvalue_rse)
    lo, hi = res.log10_pvalue_interval
    assert res.log10_pvalue == pytest.approx(cantelli) and hi == pytest.approx(cantelli)
    assert lo <= math.log10(p) <= hi
