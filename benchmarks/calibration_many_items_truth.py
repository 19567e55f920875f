"""Many positives with 30-100 items each: importance-sampler "truth" tails of S = P * AP.

Measures ``P(S >= s)`` under the null by the unbiased importance sampler
(``TiltEngine(N, P).tail(s, rtol=0.01)``, at most 2^21 draws, each case in a
"spawn" subprocess stopped after 20 minutes) at thresholds placed as the
sweep of ``bench_bounded_wait.py`` places them: the null mean plus 3, 10 and
30 null standard deviations, and a fraction of the way from the null mean
to AP = 1. These are the independent truths against which the saddlepoint
on the CGF extrapolated from the scaled-down problems is calibrated where
each positive has more than 10 items (docs/calibration.md, "Beyond the
leaps").

One JSON line per case is appended to
``docs/calibration_many_items_truth.jsonl`` as soon as it finishes (earlier
lines are never rewritten); a stopped case is recorded with
``"truth_log10": null, "timeout": true``.

Usage (one core for the kernels; optional arguments: the indices of the cases to run)::

    NUMBA_NUM_THREADS=1 python benchmarks/calibration_many_items_truth.py [8 9]
"""

from __future__ import annotations

import json
import math
import os
import sys
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import calibration_large_p_truth as base  # noqa: E402
from run import cpu_model  # noqa: E402

from pranker.null.moments import null_params  # noqa: E402

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "docs", "calibration_many_items_truth.jsonl"
)
# (N, P, where): where is ("sd", z) for the null mean + z sd, ("depth", f) for a fraction f of
# the way from the null mean to AP = 1
CASES = [
    (300_000, 3_000, ("sd", 3.0)),
    (300_000, 3_000, ("sd", 30.0)),
    (1_000_000, 10_000, ("sd", 10.0)),
    (300_000, 10_000, ("sd", 3.0)),
    (300_000, 10_000, ("sd", 30.0)),
    (300_000, 3_000, ("sd", 10.0)),
    (300_000, 3_000, ("depth", 0.2)),
    (300_000, 10_000, ("depth", 0.2)),
    (300_000, 3_000, ("depth", 0.5)),
    (1_000_000, 10_000, ("depth", 0.5)),
    (1_000_000, 10_000, ("sd", 2.0)),
    (200_000, 10_000, ("sd", 3.0)),
    (300_000, 3_000, ("sd", 1.5)),
    (300_000, 10_000, ("depth", 0.5)),
    (1_000_000, 10_000, ("sd", 1.5)),
    (1_000_000, 10_000, ("sd", 1.0)),
    (300_000, 3_000, ("sd", 0.75)),
]
DATE = "2026-12-04"


def threshold(N: int, P: int, where: tuple[str, float]) -> float:
    """The threshold ``s`` on S = P * AP."""
    mean, var = null_params(N, P)
    kind, x = where
    ap = mean + x * math.sqrt(var) if kind == "sd" else mean + x * (1.0 - mean)
    return ap * P


def main() -> None:
    base.LIMIT_SECONDS = 20 * 60
    cpu = cpu_model()
    with open(OUT, "a") as fh:
        chosen = [int(a) for a in sys.argv[1:]] or range(len(CASES))
        for N, P, where in (CASES[i] for i in chosen):
            s = threshold(N, P, where)
            t0 = time.perf_counter()
            res = base.sample(N, P, s)
            seconds = time.perf_counter() - t0
            row = {"N": N, "P": P, "where": list(where), "s": float(s)}
            if res is None:
                row.update(truth_log10=None, rse=None, n_draws=None, timeout=True)
            else:
                row.update(truth_log10=res[0], rse=res[1], n_draws=res[2])
            row.update(seconds=round(seconds, 2), date=DATE, cpu=cpu)
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
