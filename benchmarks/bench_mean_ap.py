"""Rows for map_significance: Q queries of N_q ~ 1000 items, P_q 5-50, against numpy.sort."""

from __future__ import annotations

import time

import numpy as np

from pranker import map_significance


def _queries(rng, Q, vary):
    ss, ys = [], []
    for _ in range(Q):
        N = int(rng.integers(900, 1101)) if vary else 1000
        y = np.zeros(N, bool)
        y[rng.choice(N, int(rng.integers(5, 51)), replace=False)] = True
        ys.append(y)
        ss.append(rng.normal(size=N) + 0.3 * y)
    return ss, ys


def rows(quick: bool):
    Q = 1_000 if quick else 10_000
    rng = np.random.default_rng(0)
    map_significance(*_queries(rng, 30, True), query_method=None)  # compile / load caches
    for vary in (False, True):
        ss, ys = _queries(rng, Q, vary)
        allx = np.concatenate(ss)
        t0 = time.perf_counter()
        np.sort(allx)
        t_sort = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = map_significance(ss, ys, query_method=None)
        t = time.perf_counter() - t0
        what = "N_q 900-1100" if vary else "N_q = 1000"
        yield (f"map_significance Q={Q:.0e}, {what}, mAP p-value ({res.method})",
               f"{t:.2f}s = {t / t_sort:.1f}x sort ({t_sort:.2f}s)",
               "<= 10x numpy.sort", t / t_sort <= 10.0)
        if not vary:
            t0 = time.perf_counter()
            map_significance(ss, ys)
            t2 = time.perf_counter() - t0
            yield (f"map_significance Q={Q:.0e}, N_q = 1000, with per-query p-values",
                   f"{t2:.2f}s = {t2 / t_sort:.1f}x sort", "-", None)
