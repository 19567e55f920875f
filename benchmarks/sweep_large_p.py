"""The default p-value against plain Monte Carlo over the (N, P) plane, thousands of positives included.

For each (N, P) of the grid and each threshold at ``z`` null standard
deviations above the null mean, the default p-value
(``significance_from_ap``, 2 % relative standard error) is compared with the
share of ``--draws`` uniformly random rankings (the O(P) placement sampler,
seeded) whose AP reaches the threshold. The table gives both, their combined
standard error and the difference in units of it (for a saddlepoint p-value,
which reports a measured bound instead of an rse, the difference left after
moving it to the nearer end of its bound); ``--check`` exits non-zero
when any difference exceeds 4 combined standard errors or a default p-value is
0 below the largest AP.

    python benchmarks/sweep_large_p.py            # 30 pairs x 3 thresholds, 10^5 draws
    python benchmarks/sweep_large_p.py --quick    # 8 pairs, 2*10^4 draws
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from run import machine_line

GRID_N = (1000, 2000, 5000, 10000, 20000, 50000)
GRID_FRAC = (0.05, 0.2, 0.5, 0.8, 0.99)
QUICK = (
    (1000, 50),
    (2000, 1000),
    (5000, 2500),
    (6000, 3000),
    (8000, 2000),
    (4000, 3960),
    (20000, 10000),
    (10000, 9900),
)


def main(argv=None) -> int:
    from pranker import significance_from_ap
    from pranker._numba.sampling import null_ap_draws
    from pranker.null.moments import null_params

    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--draws", type=int, default=None)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    pairs = QUICK if args.quick else [(n, max(2, round(f * n))) for n in GRID_N for f in GRID_FRAC]
    n_mc = args.draws or (20_000 if args.quick else 100_000)
    zs = (2.0, 2.5, 3.0)
    print(f"machine: {machine_line()}; plain Monte Carlo: {n_mc} random rankings per (N, P)")
    print(
        "| N | P | z | default p | its rse (or bound) | method | Monte Carlo p | combined se "
        "| diff / se | s (default) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    worst = 0.0
    bad = 0
    for N, P in pairs:
        par = null_params(N, P)
        mean, sd = par.mean, math.sqrt(par.var)
        ap_draws = np.empty(n_mc)
        null_ap_draws(np.uint64(20261128 + N * 7 + P), 0, n_mc, N, P, ap_draws)
        for z in zs:
            a = mean + z * sd
            if a >= 1.0:
                continue
            t0 = time.perf_counter()
            res = significance_from_ap(a, N, P)
            dt = time.perf_counter() - t0
            p = res.pvalue
            rse = res.pvalue_rse if res.pvalue_rse is not None else 0.0
            # a saddlepoint p-value carries a measured bound instead of an rse: the difference
            # is judged after moving p to the nearest end of its bound interval
            bound = 0.0
            if res.pvalue_rse is None and res.pvalue_interval is not None:
                bound = res.pvalue_interval[1] / p - 1.0
            k = int(np.count_nonzero(ap_draws >= a * (1 - 1e-12)))
            q = k / n_mc
            # the binomial variance at the default's p (the hypothesis under test), so a Monte
            # Carlo count of 0 far in the tail is judged by what the default predicts
            se = math.sqrt((p * (1 - p) / n_mc) + (p * rse) ** 2) or 1e-300
            gap = p - q
            if bound:
                gap = math.copysign(max(abs(gap) - bound * p, 0.0), gap)
            diff = gap / se
            worst = max(worst, abs(diff))
            if abs(diff) > 4 or not p > 0:
                bad += 1
            print(
                f"| {N} | {P} | {z} | {p:.4g} | "
                + (f"bound {bound:.3f}" if bound else f"{rse:.3f}")
                + f" | {res.method} | {q:.4g} | {se:.2g} | {diff:+.2f} | {dt:.1f} |",
                flush=True,
            )
    print(f"largest |diff| / se: {worst:.2f}; cells beyond 4 se or p = 0: {bad}")
    return 1 if (args.check and bad) else 0


if __name__ == "__main__":
    sys.exit(main())
