"""Cost of one positive-step of the tilted draws on exact layers, as a ratio to a stable sort.

Run:  python benchmarks/bench_walk.py                 (this checkout)
      PYTHONPATH=OTHER python benchmarks/bench_walk.py  (another checkout's pranker)

A draw of the tilted law (``pranker._numba.tilt``) walks the positives from
the last to the first, one search per positive in the stored layers of the
forward recursion. For each case the layers are built at a fixed tilt phi
(not timed), then 200,000 draws are timed on the threads (the best of three)
and divided by the positive-steps (draws x P). The cases span the regimes:
phi = 0 (uniform random rankings: long searches), a moderate tilt (AP about
0.5 with P = 100: long and short ones), and deep tilts (the positives near
the top: most searches end at their first probe). The ratio column divides
by the per-element time of ``numpy.sort(x, kind="stable")`` of 10^7 float64
timed in the same run; the check sum of the draws must not change between
two checkouts whose draws are meant to be the same bits.

The second part times the split estimator's states (``tilt_split_states``:
each draw down to positive ``k0 + 1``, then M = 8 redraws of positives
``k0 .. 3`` below it, ``k0 = P / 5``) on 50,000 draws, per positive-step of
both parts, with the check sum of the redraws' sums.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from run import machine_line, sort_seconds  # noqa: E402

CASES = [(10_000, 100, 0.0), (10_000, 100, 5.0), (10_000, 100, 15.0), (10_000, 100, 60.0)]
CASES += [(1_597, 50, 3.0), (1_597, 50, 10.0)]
DRAWS = 200_000


def main() -> None:
    from pranker._numba import tilt as kt

    print(machine_line())
    per_elem = sort_seconds() / 1e7
    print(
        f"{'N':>7} {'P':>4} {'phi':>5} {'ns/step':>8} {'x sort/elem':>12} {'mean AP':>8}  check sum"
    )
    for N, P, phi in CASES:
        _, _, _, layers = kt.tilt_forward(N, P, phi, 0.0, False, True)
        out = np.empty(DRAWS)
        top = np.empty(DRAWS, np.int64)
        kt.tilt_draws(layers, N, P, 1, 0, DRAWS, out, top)  # compiles / loads, in either kernel
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            kt.tilt_draws(layers, N, P, 1, 0, DRAWS, out, top)
            best = min(best, time.perf_counter() - t0)
        step = best / (DRAWS * P)
        print(
            f"{N:>7} {P:>4} {phi:>5g} {step * 1e9:>8.2f} {step / per_elem:>12.2f}"
            f" {out.mean() / P:>8.3f}  {out.sum():.12e}"
        )
    print(
        f"\n{'N':>7} {'P':>4} {'phi':>5} {'k0':>4} {'M':>3} {'ns/step':>8} {'x sort/elem':>12}  check sum"
    )
    n = DRAWS // 4
    for N, P, phi in CASES:
        _, _, _, layers = kt.tilt_forward(N, P, phi, 0.0, False, True)
        k0, M = P // 5, 8
        S = np.empty((n, M))
        D = np.empty((n, M), np.int64)
        kt.tilt_split_states(layers, N, P, np.uint64(1), 0, n, k0, M, S, D)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            kt.tilt_split_states(layers, N, P, np.uint64(1), 0, n, k0, M, S, D)
            best = min(best, time.perf_counter() - t0)
        step = best / (n * (P - k0 + M * (k0 - 2)))
        print(
            f"{N:>7} {P:>4} {phi:>5g} {k0:>4} {M:>3} {step * 1e9:>8.2f} {step / per_elem:>12.2f}"
            f"  {S.sum():.12e}"
        )


if __name__ == "__main__":
    main()
