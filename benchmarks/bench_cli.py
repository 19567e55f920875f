"""CLI rows: reading score files (pyarrow vs the numpy fallback) against ranking them."""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np

from pranker import auprc_ap
from pranker.cli.columns import to_labels, to_scores
from pranker.cli.read import open_table


def _best(fn, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _read(path, engine):
    t = open_table(path, engine=engine)
    return to_scores(t, "score"), to_labels(t, "label")


def rows(quick: bool):
    n = 10**6 if quick else 10**7
    rng = np.random.default_rng(0)
    y = rng.random(n) < 0.01
    s = rng.standard_normal(n) + y
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "scores.csv")
        try:
            import pyarrow as pa
            import pyarrow.csv as pacsv

            pacsv.write_csv(pa.table({"score": s, "label": y.astype(np.int64)}), path)
            have_arrow = True
        except ImportError:
            np.savetxt(path, np.c_[s, y], delimiter=",", header="score,label", comments="")
            have_arrow = False
        rounds = 2 if quick else 3
        t_np = _best(lambda: _read(path, "numpy"), rounds)
        if have_arrow:
            t_pa = _best(lambda: _read(path, "pyarrow"), rounds)
            ss, yy = _read(path, "pyarrow")
            t_rank = _best(lambda: auprc_ap(ss, yy), rounds)  # the ranking, not a p-value
            yield (
                f"read CSV, N={n:.0e}: pyarrow",
                f"{n / t_pa:.2e} rows/s ({t_pa:.2f}s)",
                "1e7 rows in seconds",
                None,
            )
            yield ("read CSV: numpy fallback / pyarrow", f"{t_np / t_pa:.1f}x", "(info)", None)
            yield (
                "read CSV (pyarrow) / auprc_ap on the same data",
                f"{t_pa / t_rank:.1f}x",
                "(info)",
                None,
            )
        else:
            yield ("read CSV: pyarrow", "pyarrow missing", "", None)
