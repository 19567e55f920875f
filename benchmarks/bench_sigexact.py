"""Benchmark rows: exact enumeration rate, exact tail count, third moment, Monte Carlo p-value."""

from __future__ import annotations

import math
import time

from run import best_of


def rows(quick: bool):
    from pranker.null.exact import _tail_count, exact_null_distribution, exact_pvalue
    from pranker.null.skewbeta import null_third_moment
    from pranker.significance.montecarlo import montecarlo_pvalue

    # full enumeration of every placement
    N, P = (30, 5) if quick else (60, 5)
    exact_null_distribution(10, 3)
    t = best_of(lambda: exact_null_distribution(N, P), 2)
    rate = math.comb(N, P) / t * 60
    yield (
        f"exact enumeration C({N},{P})={math.comb(N, P):.2e}",
        f"{rate:.2e} placements/min",
        ">= 1e8 placements/min",
        rate >= 1e8,
    )
    # tail count near the median (hardest case) at N=100, P=5 (7.5e7 placements)
    exact_pvalue(0.5, 20, 3)
    t0 = time.perf_counter()
    _, nodes = _tail_count(100, 5, 0.06 * 5, 10**9)
    t = time.perf_counter() - t0
    yield (
        "exact p-value N=100 P=5 at p~0.7 (7.5e7 placements)",
        f"{t * 1e3:.1f} ms, {nodes:.2e} steps",
        "< 1 s",
        t < 1.0,
    )
    # third moment, O(N * window)
    null_third_moment(100, 5)
    n3 = 10**4 if quick else 10**5
    t = best_of(lambda: null_third_moment(n3, 1000), 1)
    yield (f"third moment N={n3:.0e} P=1000", f"{t:.3f} s", "< 1 s", t < 1.0)
    # Monte Carlo p-value
    m = 10**5 if quick else 10**6
    montecarlo_pvalue(0.1, 1000, 10, n_draws=100, seed=0)
    t = best_of(lambda: montecarlo_pvalue(0.1, 10**4, 10, n_draws=m, seed=0), 1)
    yield (
        f"Monte Carlo p-value N=1e4 P=10, {m:.0e} draws",
        f"{m / t:.2e} draws/s",
        ">= 1e6 draws/s (2 cores)",
        m / t >= 1e6,
    )
