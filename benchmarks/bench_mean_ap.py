"""Rows for map_significance: Q queries of N_q ~ 1000 items, P_q 5-50, against numpy.sort.

Every time is divided by that of ``numpy.sort(kind="stable")`` of all Q * N_q
scores (one flat array; what a sort-based AP needs), measured in the same run
right before. Run alone with
``python benchmarks/bench_mean_ap.py [--quick] [--query-pvalues]``; ``--accuracy``
prints the table of the saddlepoint against the tilted estimator instead.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from pranker import map_significance
from pranker.significance.mean_ap import query_average_precision


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
    yield (
        "load average (1, 5, 15 min) at start",
        " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "-",
        None,
    )
    for vary in (False, True):
        ss, ys = _queries(rng, Q, vary)
        what = "N_q 900-1100" if vary else "N_q = 1000"
        allx = np.concatenate(ss)
        t_sort, _ = _best(lambda allx=allx: np.sort(allx, kind="stable"))
        t_ap, _ = _best(lambda ss=ss, ys=ys: query_average_precision(ss, ys))
        t, res = _best(lambda ss=ss, ys=ys: map_significance(ss, ys, query_method=None))
        yield (
            f"Q={Q:.0e}, {what}: numpy.sort(kind='stable') of all scores",
            f"{t_sort:.3f}s",
            "-",
            None,
        )
        yield (f"Q={Q:.0e}, {what}: the Q APs alone", f"{t_ap / t_sort:.2f}x sort", "-", None)
        yield (
            f"Q={Q:.0e}, {what}: mAP p-value ({res.method}, est. rel. error "
            f"{res.pvalue_error:.1e})",
            f"{t / t_sort:.2f}x sort",
            "<= 10x numpy.sort (stable)",
            t / t_sort <= 10.0,
        )
        if query_pvalues:
            t0 = time.perf_counter()
            map_significance(ss, ys, query_method="auto")
            t2 = time.perf_counter() - t0
            yield (
                f"Q={Q:.0e}, {what}: with per-query p-values (query_method='auto')",
                f"{t2 / t_sort:.1f}x sort",
                "<= 10x numpy.sort (stable)",
                t2 / t_sort <= 10.0,
            )


def accuracy_rows(quick: bool = False):
    """The saddlepoint against the tilted estimator (rtol 1 %), N_q drawn from 900-1100.

    Yields ``(P, Q, z, kurtosis, tilt p, its rse, saddlepoint / tilt, estimated error, auto)``
    at mAP thresholds ``z`` null standard deviations above the null mean.
    """
    import math

    from pranker import map_significance_from_ap
    from pranker.null.choice import AUTO_SADDLE_MAX_KURTOSIS
    from pranker.null.mean_ap import MeanAPNull

    rng = np.random.default_rng(7)
    cells = [
        (2, 20),
        (2, 50),
        (2, 100),
        (5, 20),
        (5, 50),
        (5, 100),
        (20, 5),
        (20, 10),
        (20, 30),
        ("5-50", 1000),
    ]
    if quick:
        cells = [(5, 50), (20, 30)]
    for P, Q in cells:
        n = rng.integers(900, 1101, Q)
        k = rng.integers(5, 51, Q) if P == "5-50" else np.full(Q, P)
        null = MeanAPNull(n, k, seed=1)
        K = null.cgf(0.0, order=4)
        kurt = K[4] / K[2] ** 2
        for z in (3.0, 6.0, 10.0):
            m = null.mean + z * math.sqrt(null.var)
            t = map_significance_from_ap([m] * Q, n, k, method="tilt", rtol=0.01)
            s = map_significance_from_ap([m] * Q, n, k, method="saddlepoint")
            auto = "saddlepoint" if Q > 20 and kurt <= AUTO_SADDLE_MAX_KURTOSIS else "tilt"
            yield (P, Q, z, kurt, t.pvalue, t.pvalue_rse, s.pvalue / t.pvalue, s.pvalue_error, auto)


def print_accuracy(quick: bool = False):
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        "| P | Q | z | excess kurtosis | tilt p (rse) | saddlepoint / tilt | "
        "estimated saddlepoint error | auto |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for P, Q, z, kurt, p, rse, ratio, err, auto in accuracy_rows(quick):
        print(
            f"| {P} | {Q} | {z:g} | {kurt:.2f} | {p:.3g} ({rse:.3f}) | {ratio:.3f} | "
            f"{err:.1e} | {auto} |",
            flush=True,
        )


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    if "--accuracy" in sys.argv:
        print_accuracy(quick)
        sys.exit(0)
    out = list(rows(quick, "--query-pvalues" in sys.argv))
    w = max(len(r[0]) for r in out)
    for name, measured, target, ok in out:
        mark = {True: "yes", False: "NO", None: "-"}[ok]
        print(f"{name:<{w}}  {measured:<14}  {target:<18}  {mark}")
