"""Rows for issue 4 items 3-5: pranker_many, null_params_table, expected_null_pr_curve."""

from __future__ import annotations

import numpy as np
from run import best_of  # benchmarks/run.py puts this folder on sys.path

from pranker import expected_null_pr_curve, null_params_table, pranker_many


def rows(quick: bool):
    R = 1_000 if quick else 10_000
    C = 10_000
    rng = np.random.default_rng(0)
    s = rng.standard_normal((R, C))
    for frac in (0.01, 0.1):
        y = rng.random((R, C)) < frac  # P varies per ranking: ~R distinct (N, P) pairs
        s_sig = s + y  # some signal
        pranker_many(s_sig[:4], y[:4])  # compile / load caches
        t = best_of(lambda s_sig=s_sig, y=y: pranker_many(s_sig, y), 2)
        t_full = t * (10_000 / R)
        yield (
            f"pranker_many {R}x{C}, {frac:.0%} positives",
            f"{t:.2f}s ({t_full / 2.0:.2f}x the bar" + (", scaled" if quick else "") + ")",
            "1e4 x 1e4 <= 2 s",
            t_full <= 2.0,
        )
        del s_sig, y
    if not quick:
        t_sort = best_of(lambda s=s: np.sort(s, axis=1), 1)
        yield (f"numpy.sort(axis=1) of the same {R}x{C} (reference)", f"{t_sort:.2f}s", "-", None)
    del s

    n_side = 300 if quick else 1000
    null_params_table([10], [1])
    Nv = np.arange(1000, 1000 * n_side + 1, 1000)
    Pv = np.arange(1, n_side + 1)
    t = best_of(lambda: null_params_table(Nv, Pv), 2)
    rows_n = n_side * n_side
    yield (f"null_params_table {rows_n:.0e} rows", f"{t:.2f}s ({rows_n / t:.1e} rows/s)",
           "1e6 rows in seconds (<= 2 s)", (t * 1e6 / rows_n) <= 2.0)

    expected_null_pr_curve(100, 3)
    for N, P in ((10**7, 1000), (10**7, 5 * 10**6), (10**6, 2)):
        t = best_of(lambda N=N, P=P: expected_null_pr_curve(N, P), 1)
        yield (f"expected_null_pr_curve N={N:.0e}, P={P:.0e}", f"{t:.3f}s", "-", None)
