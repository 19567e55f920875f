"""Small N stays instant: every default p-value at N <= 1e5, warm, in seconds and as a ratio to T.

Run:  python benchmarks/bench_small_n.py

A grid of N (1e3 .. 1e5), P (10, 100, 500, 1000, N / 10, N / 2 where below N)
and depth (3 sd and 30 sd above the null mean, half-way from the mean to the
top AP of 1), each ``pranker.significance_from_ap(ap, N, P)`` with the
defaults, after one call of the same (N, P) at 1 sd (kernels compiled, caches
warm as for a user's second call). Prints the worst points and the time of
N = 5,000, P = 500 (bar 50 ms) and the worst at N <= 1e5 (bar 0.2 s). T is a
stable sort of 1e7 float64 timed in the same run.
"""

from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main() -> int:
    from bench_work_cap import cpu_model, sort_time

    import pranker
    from pranker.null.moments import null_params

    x = np.random.default_rng(0).standard_normal(10**7)
    T = sort_time(x)
    rows = []
    for N in (1000, 5000, 10**4, 3 * 10**4, 10**5):
        for P in sorted({10, 100, 500, 1000, N // 10, N // 2}):
            if not 2 <= P < N:
                continue
            mean, var = null_params(N, P)
            sd = math.sqrt(var)
            pranker.significance_from_ap(min(mean + sd, 0.999), N, P)
            for label, ap in (
                ("3 sd", mean + 3 * sd),
                ("30 sd", mean + 30 * sd),
                ("half-way", 0.5 * (mean + 1.0)),
            ):
                if not ap < 1.0:
                    continue
                t0 = time.perf_counter()
                r = pranker.significance_from_ap(ap, N, P)
                secs = time.perf_counter() - t0
                rows.append((secs, N, P, label, r.method, r.log10_pvalue))
    print(f"CPU: {cpu_model()}; {time.strftime('%Y-%m-%d')}; T = {T:.2f} s (stable sort of 1e7)")
    print()
    print("| N | P | depth | method | log10 p | seconds | time / T |")
    print("|---|---|---|---|---|---|---|")
    for secs, N, P, label, method, lp in sorted(rows, reverse=True)[:12]:
        print(f"| {N} | {P} | {label} | {method} | {lp:.1f} | {secs:.3f} | {secs / T:.3f} |")
    new = [r for r in rows if r[1:3] == (5000, 500)]
    print()
    print(f"points: {len(rows)}; worst {max(rows)[0]:.3f} s; N = 5,000, P = 500: ", end="")
    print(", ".join(f"{r[3]} {1e3 * r[0]:.0f} ms" for r in new))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
