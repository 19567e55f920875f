"""Rows for map_significance: Q queries of N_q ~ 1000 items, P_q 5-50, against numpy.sort.

Every time is divided by that of ``numpy.sort`` of all Q * N_q scores (one
flat array), measured in the same run right before. Run alone with
``python benchmarks/bench_mean_ap.py [--quick] [--query-pvalues]``.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from pranker import map_significance
from pranker.significance.mean_ap import _query_aps


def _queries(rng, Q, vary):
    ss, ys = [], []
    for _ in range(Q):
        N = int(rng.integers(900, 1101)) if vary else 1000
        y = np.zeros(N, bool)
        y[rng.choice(N, int(rng.integers(5, 51)), replace=False)] = True
        ys.append(y)
        ss.append(rng.normal(size=N) + 0.3 * y)
    return ss, ys


def _best(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def rows(quick: bool, query_pvalues: bool = True):
    Q = 1_000 if quick else 10_000
    rng = np.random.default_rng(0)
    ss, ys = _queries(rng, 30, True)
    map_significance(ss, ys)  # compile / load caches
    map_significance(ss, ys, method="saddlepoint", query_method=None)
    yield ("load average (1, 5, 15 min) at start", " ".join(f"{x:.2f}" for x in os.getloadavg()), "-", None)
    for vary in (False, True):
        ss, ys = _queries(rng, Q, vary)
        what = "N_q 900-1100" if vary else "N_q = 1000"
        allx = np.concatenate(ss)
        t_sort, _ = _best(lambda allx=allx: np.sort(allx))
        t_ap, _ = _best(lambda ss=ss, ys=ys: _query_aps(ss, ys, "average", None))
        t, res = _best(lambda ss=ss, ys=ys: map_significance(ss, ys, query_method=None))
        yield (f"Q={Q:.0e}, {what}: numpy.sort of all scores", f"{t_sort:.3f}s", "-", None)
        yield (f"Q={Q:.0e}, {what}: the Q APs alone", f"{t_ap / t_sort:.2f}x sort", "-", None)
        yield (f"Q={Q:.0e}, {what}: mAP p-value ({res.method}, est. rel. error "
               f"{res.pvalue_error:.1e})", f"{t / t_sort:.2f}x sort", "<= 10x numpy.sort",
               t / t_sort <= 10.0)
        if query_pvalues:
            t0 = time.perf_counter()
            map_significance(ss, ys)
            t2 = time.perf_counter() - t0
            yield (f"Q={Q:.0e}, {what}: with per-query p-values (default)",
                   f"{t2 / t_sort:.1f}x sort", "-", None)


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    out = list(rows(quick, "--query-pvalues" in sys.argv))
    w = max(len(r[0]) for r in out)
    for name, measured, target, ok in out:
        mark = {True: "yes", False: "NO", None: "-"}[ok]
        print(f"{name:<{w}}  {measured:<14}  {target:<18}  {mark}")
