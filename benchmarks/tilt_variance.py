"""Variance per draw of the exact-layer tilt estimators, side by side.

Run:  python benchmarks/tilt_variance.py [--draws 16384]

For each (N, P, threshold) row, at the grid point the default picks for the
threshold, the relative variance per draw ``var(c) / mean(c)^2`` of

- whole draws (``tilt_draws``: the plain tilted estimator, version 0.2),
- the top two positives summed out (plan ``(2, 1)``),
- the plan the pilot picks (``TiltEngine._split_plan``: positives 3..k0
  re-drawn M times per draw),

and the work to reach a given rse, ``variance x cost per draw``, in
positive-steps (``P`` for a whole draw; ``P - k0 + M (k0 - 2) + 4 M`` for a
split one), as a ratio to whole draws. The draw count needed for 2 % rse is
``variance / 0.02^2``. All from one seed; the variances are estimates (their
own relative error is a few percent at 16,384 draws, more where the weights
are heavy-tailed).
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

ROWS = [
    (100_000, 10, 3.0),
    (100_000, 10, 10.0),
    (1000, 5, 3.0),
    (10_000, 30, 5.0),
    (10_000, 100, 3.0),
    (10_000, 100, 8.0),
    (5000, 50, 10.0),
    (5000, 500, 3.0),
    (5000, 500, 9.0),
    (5000, 500, 30.0),
    (5000, 500, 130.0),
    (2000, 1000, 3.0),
    (2000, 1000, 10.0),
    (10_000, 1000, 20.0),
]


def measure(N, P, z, n):
    from pranker._numba.tilt import tilt_draws, tilt_split_contributions
    from pranker.null.choice import REL_TOL
    from pranker.null.tilt import TiltEngine, _mix_seed

    e = TiltEngine(N, P)
    s = min(e.mean_s + z * e.sd_s, P * (1 - 1e-9))
    j = e.grid_index(s)
    phi = e.grid_phi(j)
    k, layers = e._layers_at(j)
    key = np.uint64(_mix_seed(e.seed, N, P, j))
    whole = np.empty(n)
    tilt_draws(layers, N, P, key, 0, n, whole)
    hit = whole >= s * (1 - REL_TOL)
    c = np.where(hit, np.exp(-phi * (whole - s)), 0.0)
    out = {"log10p": (k - phi * s + math.log(c.mean())) / math.log(10), "whole": c}
    thr = s * (1 - REL_TOL)
    log_g2 = e._log_g2(j)
    plan = e._split_plan(j, True)
    for name, (k0, M) in (("top2", (2, 1)), ("plan", plan)):
        w = np.empty(n)
        tilt_split_contributions(layers, N, P, key, 0, n, k0, M, phi, s, thr, log_g2, True, w)
        out[name] = w
    out["plan_used"] = plan
    return out


def rel_var(c):
    mu = c.mean()
    return float(c.var() / (mu * mu)) if mu > 0 else math.inf


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=16384)
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from run import cpu_model

    import pranker

    print(
        f"# Relative variance per draw at the default grid point: pranker {pranker.__version__}, "
        f"CPU {cpu_model()}, {args.draws} draws per estimator\n"
    )
    head = (
        "| N | P | threshold | log10 p | whole draws | top two summed out | plan (k0, M) "
        "| picked plan | work / whole draws |"
    )
    print(head)
    print("|---:|---:|---|---:|---:|---:|---|---:|---:|")
    for N, P, z in ROWS:
        r = measure(N, P, z, args.draws)
        k0, M = r["plan_used"]
        v_whole, v2, vp = rel_var(r["whole"]), rel_var(r["top2"]), rel_var(r["plan"])
        cost = (P - k0 + M * (k0 - 2) + 4 * M) if M > 1 else P
        work = vp * cost / (v_whole * P) if math.isfinite(v_whole) and v_whole > 0 else math.nan
        print(
            f"| {N:,} | {P:,} | mean + {z:g} sd | {r['log10p']:.1f} | {v_whole:.3g} | {v2:.3g} "
            f"| ({k0}, {M}) | {vp:.3g} | {work:.2g} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
